package inert

import (
	"reflect"
	"testing"
)

func TestText(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain", "plain 中文 😀", "plain 中文 😀"},
		{"colour", "\x1b[31mred\x1b[0m", "red"},
		{"osc", "a\x1b]52;c;ZXZpbA==\x07b\x1b]0;title\x1b\\c", "abc"},
		{"tab and cr", "a\tb\r\nc", "a    b\nc"},
		{"c1 and nul", "a\u009b1mb\x00c\x7f", "a1mbc"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Text(c.in); got != c.want {
				t.Fatalf("Text(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestValue(t *testing.T) {
	type inner struct{ S *string }
	type outer struct {
		A   string
		L   []string
		M   map[string]float64
		Any any
		In  inner
		hid string
	}
	v := outer{A: "a\x1b[2J", L: []string{"\x07l"}, M: map[string]float64{"k\x1b[8m": 1},
		Any: map[string]any{"x": "y\x1b[5m"}, In: inner{S: ptr("s\x00")}, hid: "h\x00"}
	Value(&v)
	want := outer{A: "a", L: []string{"l"}, M: map[string]float64{"k": 1}, Any: map[string]any{"x": "y"}, In: inner{S: ptr("s")}, hid: "h\x00"}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("Value = %#v, want %#v", v, want)
	}
	Value((*outer)(nil)) // no panic
}

func ptr[T any](v T) *T { return &v }
