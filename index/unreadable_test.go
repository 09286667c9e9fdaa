package index_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/manifest"
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

// TestRollback_keepsAGenerationItCannotRead: a kept generation whose
// files cannot be read now (a permission changed; the same holds for an
// I/O error or too many open files) is passed over by a rollback, as a
// damaged one is, but not deleted with the damaged ones: nothing says its
// bytes are bad, and the next rollback may read it.
func TestRollback_keepsAGenerationItCannotRead(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("every file is readable by root")
	}
	cfg, runs := versions(t)
	rec := record(t, cfg, runs[1])
	seg := filepath.Join(cfg.Home.IndexDir(), manifest.SegmentDir(rec.Segments[0].ID), "records.bin")
	if err := os.Chmod(seg, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(seg, 0o600) })
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch.Add(24 * 3600e9)).Now})
	p, err := ix.Rollback(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if p.RunID != runs[0] || len(p.Skipped) != 1 || !strings.Contains(p.Skipped[0], "permission denied") {
		t.Errorf("rollback: %s skipping %v, want %s skipping %s as unreadable", p.RunID, p.Skipped, runs[0], runs[1])
	}
	if kept := dirNames(t, cfg.Home.Generations()); !slices.Equal(kept, runs) {
		t.Errorf("kept %v after the rollback, want %v: the unreadable generation is kept", kept, runs)
	}
	if _, err := os.Stat(seg); err != nil {
		t.Errorf("the unreadable generation's segment was deleted: %v", err)
	}
}
