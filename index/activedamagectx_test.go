package index_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/internal/swell"
	"github.com/nova-recall/nova/manifest"
)

// TestSync_cancelledWhileHashingTheActive: a sync whose candidate fails
// its verification in a file it shares with the active generation (bit
// rot: size and time unchanged) hashes the active generation whole to
// tell whether to build past it. Ctrl-C there stops it with
// context.Canceled, the active generation unchanged and the candidate
// dropped; the hash did not look at the context. The active generation's
// build report is a sparse file of 64 GiB (its record and the manifest
// sealed again), hashed first, far longer than the test's bound; the
// test cancels once the sync is hashing it. The
// same holds for the hash of the active generation's files changed since
// its promotion, which a sync makes before it builds.
func TestSync_cancelledWhileHashingTheActive(t *testing.T) {
	for _, tc := range []struct {
		name string
		// early: the generation's promotion is by a clock before its
		// files' times (restored from a backup), so the build hashes
		// every file before it reads a source; cancelled then.
		early bool
	}{{"in the check after the verification", false}, {"files changed since the promotion", true}} {
		t.Run(tc.name, func(t *testing.T) {
			early := tc.early
			var now func() time.Time // the real clock: files are older than the promotion
			if early {
				now = newClock(epoch).Now
			}
			dir := t.TempDir()
			src := filepath.Join(dir, "memory.jsonl")
			var lines strings.Builder
			for i := range 64 {
				fmt.Fprintf(&lines, `{"id":"r%d","text":"Runner %d of the deploy pool drained its queue."}`+"\n", i, i)
			}
			writeFile(t, src, lines.String())
			cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "m", Kind: config.KindJSONL, Path: src})
			first := mustSync(t, index.New(cfg, index.Options{NoRemote: true, NoCompact: true, Now: now})).Active()
			m, _, err := manifest.Read(cfg.Home.Manifest())
			if err != nil {
				t.Fatal(err)
			}
			swell.Report(t, filepath.Join(cfg.Home.IndexDir(), m.GenerationPath))
			// One byte of the vectors' codes flipped: the segment still opens.
			rewrite(t, filepath.Join(cfg.Home.IndexDir(), manifest.SegmentDir(m.Segments[0].ID), "codes.i8"), func(f *os.File) error {
				b := make([]byte, 1)
				if _, err := f.ReadAt(b, 100); err != nil {
					return err
				}
				_, err := f.WriteAt([]byte{^b[0]}, 100)
				return err
			})
			appendFile(t, src, `{"id":"late","text":"The hangar door sticks in the cold."}`+"\n")

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// Whether the candidate was verified before the active
			// generation's report was hashed: the hash after the
			// verification, not the one the build makes first.
			var verified atomic.Bool
			ix := index.New(cfg, index.Options{NoRemote: true, NoCompact: true, Now: now, Hook: func(step string) {
				if step == index.StepVerifyRecordRead {
					verified.Store(true)
				}
			}})
			done := make(chan error, 1)
			go func() {
				_, err := ix.Sync(ctx)
				done <- err
			}()
			swell.Await(t, os.Getpid(), filepath.Join(cfg.Home.IndexDir(), m.GenerationPath), done)
			if verified.Load() == early {
				t.Fatalf("the active generation's report hashed with the candidate verified %v; want %v", verified.Load(), !early)
			}
			cancel()
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the sync still runs 10 s after its context was cancelled")
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("sync cancelled while it hashed the active generation: %v; want context.Canceled", err)
			}
			if m, _, err := manifest.Read(cfg.Home.Manifest()); err != nil || m.RunID != first {
				t.Errorf("active after the cancelled sync: %v; want %s as it was", err, first)
			}
			if cands, _ := os.ReadDir(cfg.Home.Candidates()); len(cands) > 0 {
				t.Errorf("the cancelled sync left candidates: %v", cands)
			}
		})
	}
}
