package index_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSync_unreadableFolderKeepsMemory: the memory of the files in a
// folder that can no longer be read (its permissions changed, a folder
// macOS keeps from the service) is kept by a full sync as by an
// incremental one, as the memory of any file not read is.
func TestSync_unreadableFolderKeepsMemory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("every folder is readable by root")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "exports")
	recs := baseRecords()
	writeFile(t, filepath.Join(src, "a.jsonl"), jsonlLines(t, recs[:3]...))
	locked := filepath.Join(src, "locked")
	writeFile(t, filepath.Join(locked, "b.jsonl"), jsonlLines(t, recs[3:]...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	clk := newClock(epoch)
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now}))
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(locked, 0o700) }) // lets TempDir remove it
	for _, full := range []bool{false, true} {
		r, err := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Full: full}).Sync(t.Context())
		if err != nil {
			t.Fatalf("full %v: %v", full, err)
		}
		if r.Build.Records != len(recs) {
			t.Errorf("full %v: %d records, want %d (b.jsonl's kept)", full, r.Build.Records, len(recs))
		}
		if ids := searchIDs(t, cfg.Home, "rollback plan redeploy image registry"); len(ids) == 0 || ids[0] != recs[3].ID {
			t.Errorf("full %v: search for b.jsonl's %s: %v", full, recs[3].ID, ids)
		}
	}
}

// TestSync_fileReplacedByAFolderKeepsMemory: a file whose path is now a
// folder is gone, and its memory is kept by a full sync as by an
// incremental one.
func TestSync_fileReplacedByAFolderKeepsMemory(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "exports")
	recs := baseRecords()
	writeFile(t, filepath.Join(src, "a.jsonl"), jsonlLines(t, recs[:3]...))
	b := filepath.Join(src, "b.jsonl")
	writeFile(t, b, jsonlLines(t, recs[3:]...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	clk := newClock(epoch)
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now}))
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(b, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, full := range []bool{false, true} {
		r, err := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Full: full}).Sync(t.Context())
		if err != nil {
			t.Fatalf("full %v: %v", full, err)
		}
		if r.Build.Records != len(recs) {
			t.Errorf("full %v: %d records, want %d (b.jsonl's kept)", full, r.Build.Records, len(recs))
		}
	}
}
