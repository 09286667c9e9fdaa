package ingest

import (
	"encoding/json"
	"slices"
	"testing"
)

// The fast paths for ids and tags must decode exactly what encoding/json
// does, or step aside for it.
func TestPlainStringsDecodeAsJSONDoes(t *testing.T) {
	for _, raw := range []string{
		`"rec-1"`, `""`, `" spaced "`, `"naïve 名字"`, `"a\"b"`, `"tab\tx"`, `"\u00e9"`, `12`, `null`, `["x"]`,
	} {
		got, ok := plainString([]byte(raw))
		var want string
		err := json.Unmarshal([]byte(raw), &want)
		if ok && (err != nil || got != want) {
			t.Errorf("plainString(%s) = %q, encoding/json %q (%v)", raw, got, want, err)
		}
	}
	for _, raw := range []string{
		`[]`, `[ ]`, `["a"]`, `["a","b"]`, ` [ "a" , "b" ] `, "[\n\t\"a\",\r\n\"b\"\n]", `["", " x "]`, `["naïve","名字"]`,
		`["a\"b"]`, `["a\\"]`, `["\u0041"]`, `[1]`, `["a",1]`, `[null]`, `"a,b"`, `{"a":1}`, `[["a"]]`, `["a"]x`,
	} {
		got, ok := plainStrings([]byte(raw))
		var want []string
		err := json.Unmarshal([]byte(raw), &want)
		if ok && (err != nil || !slices.Equal(got, want)) {
			t.Errorf("plainStrings(%s) = %q, encoding/json %q (%v)", raw, got, want, err)
		}
	}
	// The common forms take the fast path.
	if _, ok := plainString([]byte(`"rec-000001-00af"`)); !ok {
		t.Error("a plain id did not take the fast path")
	}
	if _, ok := plainStrings([]byte(`["ops","bug"]`)); !ok {
		t.Error("plain tags did not take the fast path")
	}
}
