package index_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSync_duplicateHeldBackByAnAppendedFileComesBack: a record a later
// file holds back (its id is an earlier file's) comes back when the
// earlier file's copy goes, also when the later file was read on from its
// cursor, before or in the same sync, as a full rebuild of the files has
// it.
func TestSync_duplicateHeldBackByAnAppendedFileComesBack(t *testing.T) {
	for _, tc := range []struct {
		name string
		// sameSync appends to b.jsonl in the sync that removes a.jsonl's
		// copy; otherwise a sync before it does, with a duplicate of its
		// own.
		sameSync bool
	}{
		{"appended before", false},
		{"appended in the same sync", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "exports")
			a, b := filepath.Join(src, "a.jsonl"), filepath.Join(src, "b.jsonl")
			writeFile(t, a, jsonlLines(t,
				rec{ID: "x", Text: "the ledger export runs at midnight from the first replica"},
				rec{ID: "a2", Text: "the canary deploy waits for the readiness probe"}))
			writeFile(t, b, jsonlLines(t,
				rec{ID: "x", Text: "the ledger export moved to the second replica at noon"},
				rec{ID: "b1", Text: "the webhook signing key rotates every ninety days"}))
			cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
			clk := newClock(epoch)
			opts := index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}
			mustSync(t, index.New(cfg, opts))

			step := 0
			touch := func(paths ...string) {
				step++
				later := time.Now().Add(time.Duration(step) * time.Second)
				for _, p := range paths {
					if err := os.Chtimes(p, later, later); err != nil {
						t.Fatal(err)
					}
				}
			}
			appendB := func(r rec) {
				appendFile(t, b, jsonlLines(t, r))
				touch(b)
			}
			if !tc.sameSync {
				// Its own duplicate of a.jsonl's a2, held back too.
				appendB(rec{ID: "a2", Text: "the canary deploy now also waits for the warmup"})
				if r := mustSync(t, index.New(cfg, opts)).Build; r.FilesResumed != 1 {
					t.Fatalf("the append was not read on from the cursor: %d resumed", r.FilesResumed)
				}
				compareWithRebuild(t, cfg, opts, "after the append")
			}
			// a.jsonl's x goes (the same number of lines: not a shrink to
			// settle); b.jsonl's x is the only one left.
			writeFile(t, a, jsonlLines(t,
				rec{ID: "z", Text: "the backup job copies the queue to cold storage"},
				rec{ID: "a2", Text: "the canary deploy waits for the readiness probe"}))
			touch(a)
			if tc.sameSync {
				appendB(rec{ID: "b2", Text: "the firewall opens port 2096 for the dashboard"})
			}
			mustSync(t, index.New(cfg, opts))
			compareWithRebuild(t, cfg, opts, "after x left a.jsonl")
			if ids := searchIDs(t, cfg.Home, "ledger export second replica"); len(ids) == 0 || ids[0] != "x" {
				t.Errorf("search for b.jsonl's x: %v, want x first", ids)
			}
		})
	}
}

// TestSync_duplicateHeldBackComesBackWhenItsCopyMovesLater: a record a
// file holds back as a duplicate is that file's again once the copy that
// came first in build order moves after it (its file renamed, or the
// record moved to a later file or a later line of its own), as a full
// rebuild of the files has it.
func TestSync_duplicateHeldBackComesBackWhenItsCopyMovesLater(t *testing.T) {
	x := rec{ID: "x", Text: "the ledger export runs at midnight from the first replica"}
	a2 := rec{ID: "a2", Text: "the canary deploy waits for the readiness probe"}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, src string)
	}{
		{"renamed", func(t *testing.T, src string) {
			if err := os.Rename(filepath.Join(src, "a.jsonl"), filepath.Join(src, "z.jsonl")); err != nil {
				t.Fatal(err)
			}
		}},
		{"moved to a later file", func(t *testing.T, src string) {
			writeFile(t, filepath.Join(src, "a.jsonl"), jsonlLines(t, rec{ID: "z", Text: "the backup job copies the queue to cold storage"}, a2))
			writeFile(t, filepath.Join(src, "z.jsonl"), jsonlLines(t, x))
		}},
		{"moved to the end of the file that held it back", func(t *testing.T, src string) {
			writeFile(t, filepath.Join(src, "a.jsonl"), jsonlLines(t, rec{ID: "z", Text: "the backup job copies the queue to cold storage"}, a2))
			appendFile(t, filepath.Join(src, "b.jsonl"), jsonlLines(t, x))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "exports")
			writeFile(t, filepath.Join(src, "a.jsonl"), jsonlLines(t, x, a2))
			writeFile(t, filepath.Join(src, "b.jsonl"), jsonlLines(t,
				rec{ID: "x", Text: "the ledger export moved to the second replica at noon"},
				rec{ID: "b1", Text: "the webhook signing key rotates every ninety days"}))
			cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
			clk := newClock(epoch)
			opts := index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}
			mustSync(t, index.New(cfg, opts))
			tc.change(t, src)
			mustSync(t, index.New(cfg, opts))
			compareWithRebuild(t, cfg, opts, "after x moved after b.jsonl")
			if ids := searchIDs(t, cfg.Home, "ledger export second replica noon"); len(ids) == 0 || ids[0] != "x" {
				t.Errorf("search for b.jsonl's x: %v, want x first", ids)
			}
		})
	}
}
