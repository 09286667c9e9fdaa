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

// TestSync_editBeforeCursorThenAppend: a file edited in place and then
// appended to (same inode, larger) is read again whole by an incremental
// sync, so the edited record's new text replaces the old one. Reading on
// from the cursor would serve the old text until a full rebuild.
func TestSync_editBeforeCursorThenAppend(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "exports", "memory.jsonl")
	var recs []rec
	for i := 1; i <= 30; i++ {
		recs = append(recs, rec{ID: fmt.Sprintf("r%d", i), Text: fmt.Sprintf("Record %d about ledger reconciliation and the quarterly close process word%dx", i, i), Date: "2026-01-13"})
	}
	writeFile(t, p, jsonlLines(t, recs...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "export", Kind: config.KindJSONL, Path: p})
	clk := newClock(epoch)
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now}))

	// As `sed ... > new; cat new > file` does: same inode, same length
	// for the edited record, one more record at the end.
	content, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(content), "word2x", "WORD2Y", 1) + jsonlLines(t, rec{ID: "r31", Text: "Record 31 appended word31x"})
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(edited); err != nil {
		t.Fatal(err)
	}
	f.Close()

	r := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})).Build
	if r.Mode != index.ModeIncremental || r.FilesResumed != 0 {
		t.Errorf("mode %s, %d files resumed; want incremental, none resumed", r.Mode, r.FilesResumed)
	}
	_, g := active(t, cfg.Home)
	chunks := chunkByID(t, g)
	if c := chunks["export:r2"]; !strings.Contains(c.Text, "WORD2Y") {
		t.Errorf("r2 serves %q, want the edited text", c.Text)
	}
	if _, ok := chunks["export:r31"]; !ok {
		t.Error("the appended record r31 is missing")
	}
	if len(chunks) != 31 {
		t.Errorf("%d chunks, want 31", len(chunks))
	}
}
