package shellword

import (
	"os/exec"
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":                     "''",
		"/Users/ann/.nova":     "/Users/ann/.nova",
		"NOVA_HOME=/x":         "NOVA_HOME=/x",
		"/Users/ann/My Nova":   "'/Users/ann/My Nova'",
		"it's":                 `'it'\''s'`,
		"~/x":                  "'~/x'",
		"$HOME":                "'$HOME'",
		"a*b":                  "'a*b'",
		"line\nbreak":          "'line\nbreak'",
		"/opt/homebrew/bin/nc": "/opt/homebrew/bin/nc",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
	if got := Single("/x"); got != "'/x'" {
		t.Errorf("Single(/x) = %s", got)
	}
}

// TestQuote_shellReadsItBack: sh gives back each word as it was.
func TestQuote_shellReadsItBack(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	words := []string{"", "plain", "two words", "it's", `back\slash`, "$HOME `id` $(id)", "*", "~", "a'b'c", "tab\there", "line\nbreak", "ünï"}
	var script strings.Builder
	for _, w := range words {
		script.WriteString("printf '%s\\0' " + Quote(w) + " " + Single(w) + "\n")
	}
	out, err := exec.Command(sh, "-c", script.String()).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	for i, w := range words {
		if got[2*i] != w || got[2*i+1] != w {
			t.Errorf("sh read %q back as %q and %q", w, got[2*i], got[2*i+1])
		}
	}
}
