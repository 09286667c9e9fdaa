package agentconf

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// partialInterests are the reads Inspect makes: one path, and every
// project's nova server.
var partialInterests = []interest{
	{"mcpServers": {ServerName: nil}},
	{"mcp": {"servers": {ServerName: nil}}},
	{"projects": {"*": {"mcpServers": {ServerName: nil}}}},
}

// checkPartialAgrees fails unless a read that decodes only part of src
// accepts and refuses it as the whole parse does, and decodes the part it
// reads to the same value.
func checkPartialAgrees(t *testing.T, src []byte) {
	t.Helper()
	whole, wholeErr := parseJSONDoc(src)
	for _, want := range partialInterests {
		part, err := parseJSONFor(src, want)
		if (err == nil) != (wholeErr == nil) || (err != nil && err.Error() != wholeErr.Error()) {
			t.Fatalf("interest %v: error %v, the whole parse's %v\n%s", want, err, wholeErr, src)
		}
		if err != nil {
			continue
		}
		if got, exp := kept(part, want), kept(whole, want); !reflect.DeepEqual(got, exp) {
			t.Fatalf("interest %v: decoded %#v, the whole parse %#v\n%s", want, got, exp, src)
		}
	}
}

// kept is what a read with interest want sees of o: the members it
// decodes, as plain values, and the keys and extents of all.
func kept(o *jsonObject, want interest) any {
	type member struct {
		Key                          string
		KeyStart, ValueStart, ValEnd int
		Value                        any
	}
	var out []member
	for _, m := range o.members {
		mm := member{m.key, m.keyStart, m.valueStart, m.valueEnd, nil}
		if sub, ok := want.member(m.key); ok {
			if obj, isObj := m.value.(*jsonObject); isObj && sub != nil {
				mm.Value = kept(obj, sub)
			} else {
				mm.Value = plain(m.value)
			}
		}
		out = append(out, mm)
	}
	return out
}

func TestPartialParseAgreesWithTheWholeParse(t *testing.T) {
	docs := []string{
		`{}`,
		`{"mcpServers": {"nova": {"command": "/x/novactl", "args": ["mcp", "serve"], "env": {"NOVA_HOME": "/h"}}}}`,
		`{"projects": {"/a": {"history": [{"display": "fix \"it\"\n", "n": 1.5e3}], "mcpServers": {"nova": {"command": "old"}}}, "/b": {"mcpServers": {}}}, "mcpServers": {}}`,
		`{"projects": {"/a": [1, 2, {"mcpServers": {}}], "/b": "text", "/c": null, "/d": {"mcpServers": {"nova": {"command": "c"}, "other": {}}}}}`,
		`{mcp: {servers: {nova: {command: 'x', args: ['a',],},},}, other: [0x1F, +Infinity, .5, NaN], /* c */ }`,
		"{\"a\": \"\xff\\u00e9\", // comment\n \"mcpServers\": {\"nova\": {\"command\": \"\\u0078\"}}}",
		`{"mcpServers": {"nova": {}}, "mcpServers": {"nova": {"command": "second"}}}`,
		// Refused documents: each error must be the whole parse's.
		`{"projects": {"/a": {"history": [1, 2,, 3]}}}`,
		`{"projects": {"/a": {"history": "unterminated}}}`,
		"{\"projects\": {\"/a\": {\"h\": \"new\nline\"}}}",
		`{"projects": {"/a": {"n": 12abc}}}`,
		`{"projects": {"/a": {"x" 1}}}`,
		`{"projects": {"/a": {"x": 1}} /* open`,
		`{"mcpServers": {}} trailing`,
		`[]`,
		strings.Repeat(`{"a":`, 300) + `1` + strings.Repeat(`}`, 300),
	}
	for _, d := range docs {
		checkPartialAgrees(t, []byte(d))
	}
}

// FuzzPartialParse checks on any input that a read of part of a document
// accepts and refuses exactly what the whole parse does.
func FuzzPartialParse(f *testing.F) {
	for _, fx := range fixtures {
		if strings.HasSuffix(fx.file, ".json") || strings.HasSuffix(fx.file, ".json5") {
			b, err := os.ReadFile(filepath.Join("testdata", fx.file))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte(`{"projects": {"/a": {"history": [{"d": "x"}], "mcpServers": {"nova": {"command": "c"}}}}}`))
	f.Add([]byte(`{mcp: {servers: {nova: {command: 'x',},},}, n: [0x1F, .5]}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		checkPartialAgrees(t, src)
	})
}
