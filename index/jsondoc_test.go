package index_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSync_jsonArrayRewritten: records exported as one pretty-printed
// JSON array, listed by a jsonl source, are indexed one per element; the
// file rewritten in place, longer (an element gone, one edited, one
// added: not an append) and then shorter, is read again whole each time,
// so the index holds what the array holds, nothing it no longer does (as
// for a JSONL file rewritten: TestSync_editBeforeCursorThenAppend and
// TestSync_shrunkFileSettlesIntoRewrite). Before, only the elements that
// sat on one line of their own were read, and the rest reported.
func TestSync_jsonArrayRewritten(t *testing.T) {
	t.Parallel() // its own home; it mostly waits for files to settle
	dir := t.TempDir()
	p := filepath.Join(dir, "exports", "records.json")
	writeFile(t, p, "[\n  {\n    \"id\": \"a1\",\n    \"text\": \"the deploy key rotates monthly\"\n  },\n"+
		"  {\n    \"id\": \"a2\",\n    \"text\": \"billing api uses postgres\"\n  }\n]\n")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "export", Kind: config.KindJSONL, Path: filepath.Dir(p), Include: []string{"*.json"}})
	rewrite := func(content string) {
		t.Helper()
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0) // same inode
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(content); err != nil {
			t.Fatal(err)
		}
	}
	texts := func() string {
		t.Helper()
		_, g := active(t, cfg.Home)
		var out []string
		for id, c := range chunkByID(t, g) {
			out = append(out, id+"="+c.Text)
		}
		slices.Sort(out)
		return strings.Join(out, "; ")
	}
	sync := func(what, want string) {
		t.Helper()
		r := mustSync(t, index.New(cfg, index.Options{NoRemote: true})).Build
		if r.ProblemCount != 0 || r.FilesResumed != 0 {
			t.Errorf("%s: problems %v, %d files resumed; want none, none", what, r.Problems, r.FilesResumed)
		}
		if got := texts(); got != want {
			t.Errorf("%s: the index holds\n %s\nwant\n %s", what, got, want)
		}
	}
	sync("first sync", "export:a1=the deploy key rotates monthly; export:a2=billing api uses postgres")

	rewrite("[\n  {\n    \"id\": \"a2\",\n    \"text\": \"billing api uses postgres 16\"\n  },\n" +
		"  {\n    \"id\": \"a3\",\n    \"text\": \"the ledger closes on the fifth working day\"\n  }\n]\n")
	sync("rewritten longer", "export:a2=billing api uses postgres 16; export:a3=the ledger closes on the fifth working day")

	rewrite("[{\"id\": \"a3\", \"text\": \"the ledger closes on the fifth\"}]\n")
	sync("rewritten shorter", "export:a3=the ledger closes on the fifth")
}
