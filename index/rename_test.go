package index_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSync_renamedAndAppendedSessionIsReadOnce: a session file renamed
// and appended to between two syncs is the same file under another name:
// its memory is indexed once, with the new lines, and the old name is not
// kept as gone. A delta found the rename; a full build (sync --full, or a
// change too large for a delta: a long session renamed is read whole) did
// not, and carried the old name's memory as gone beside the same records
// read again under the new name (a Claude Code record id holds the file's
// name).
func TestSync_renamedAndAppendedSessionIsReadOnce(t *testing.T) {
	for _, tc := range []struct {
		name     string
		kind     string
		resumed  bool // the file was read on from its cursor before the rename
		full     bool
		noAppend bool
	}{
		{"claude", config.KindClaudeCode, false, false, false},
		{"claude resumed before", config.KindClaudeCode, true, false, false},
		{"jsonl", config.KindJSONL, false, false, false},
		{"jsonl resumed before", config.KindJSONL, true, false, false},
		{"claude full", config.KindClaudeCode, true, true, false},
		{"jsonl full", config.KindJSONL, false, true, false},
		{"claude full, renamed only", config.KindClaudeCode, false, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "projects")
			from := filepath.Join(src, "-src-app", "s1.jsonl")
			to := filepath.Join(src, "-src-app", "s1-moved.jsonl")
			line := func(i int) string {
				if tc.kind == config.KindJSONL {
					return jsonlLines(t, rec{ID: fmt.Sprintf("n%03d", i), Text: fmt.Sprintf("question %03d about the quarterly ledger export", i)})
				}
				return claudeLine(i, "question")
			}
			var lines []string
			for i := 1; i <= 6; i++ {
				lines = append(lines, line(i))
			}
			writeFile(t, from, strings.Join(lines, ""))
			cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "s", Kind: tc.kind, Path: src})
			clk := newClock(epoch)
			ix := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true})
			mustSync(t, ix)
			next := 7
			if tc.resumed {
				appendFile(t, from, line(next))
				next++
				if r := mustSync(t, ix); r.Build.FilesResumed != 1 {
					t.Fatalf("the append before the rename was not read on: %+v", r.Build)
				}
			}
			if err := os.Rename(from, to); err != nil {
				t.Fatal(err)
			}
			if tc.noAppend {
				next--
			} else {
				appendFile(t, to, line(next))
			}
			r := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true, Full: tc.full}))
			_, g := active(t, cfg.Home)
			counts := map[string]int{}
			for _, c := range g.All() {
				for i := 1; i <= next; i++ {
					if strings.Contains(c.Text, fmt.Sprintf("question %03d", i)) {
						counts[fmt.Sprintf("%03d", i)]++
					}
				}
				if c.SourcePath != to {
					t.Errorf("chunk %s still from %s", c.ID, c.SourcePath)
				}
			}
			for i := 1; i <= next; i++ {
				if n := counts[fmt.Sprintf("%03d", i)]; n != 1 {
					t.Errorf("line %d is in memory %d times, want once", i, n)
				}
			}
			if gone := r.Build.Sources[0].Gone; len(gone) != 0 {
				t.Errorf("gone %v after a rename, want none", gone)
			}
		})
	}
}
