package index_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/internal/swell"
	"github.com/nova-recall/nova/manifest"
)

// TestSync_cancelledInRetention: Ctrl-C while the retention after a
// sync's promotion checks a kept generation stops that check at once:
// the promotion stands, and retention removes nothing, neither the
// generation whose check was cut short (not found damaged) nor the older
// one it would have displaced beyond index.keepGenerations, the rollback
// point should the unchecked one be damaged. The quick check hashes a
// file changed since its generation was sealed, and did not look at the
// context: the sync hashed it to its end after Ctrl-C. That build report
// is a sparse file of 64 GiB touched after its sealing; the test cancels
// once the sync is hashing it, its manifest written.
func TestSync_cancelledInRetention(t *testing.T) {
	src, cfg := baseSource(t)
	clk := newClock(epoch)
	opts := index.Options{NoRemote: true, NoCompact: true, Now: clk.Now}
	// As many generations as retention keeps: the oldest goes at the next
	// promotion, unless a check is cut short.
	var ids []string
	for i := range cfg.Index.KeepGenerations {
		if i > 0 {
			appendFile(t, src, jsonlLines(t, rec{ID: fmt.Sprintf("late-%d", i), Text: fmt.Sprintf("Runner %d drained its queue.", i), Date: "2026-02-16"}))
		}
		ids = append(ids, mustSync(t, index.New(cfg, opts)).Active())
	}
	oldest, kept := ids[0], cfg.Home.Generation(ids[1])
	swell.Report(t, kept)
	// Touched after its record: a quick check hashes it.
	fi, err := os.Stat(filepath.Join(kept, generation.FileCandidate))
	if err != nil {
		t.Fatal(err)
	}
	later := fi.ModTime().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(kept, generation.FileReport), later, later); err != nil {
		t.Fatal(err)
	}
	appendFile(t, src, jsonlLines(t, rec{ID: "mem-last", Text: "The hangar door sticks in the cold.", Date: "2026-02-17"}))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var promoted atomic.Bool
	opts.Hook = func(step string) {
		if step == index.StepManifestWritten {
			promoted.Store(true)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := index.New(cfg, opts).Sync(ctx)
		done <- err
	}()
	swell.Await(t, os.Getpid(), kept, done)
	if !promoted.Load() {
		t.Fatal("the kept generation's report hashed before the promotion: not retention's check")
	}
	cancel()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the sync still runs 10 s after its context was cancelled in its retention")
	}
	if errors.Is(err, generation.ErrCorrupt) {
		t.Errorf("sync cancelled in its retention: %v; want no damage", err)
	}
	if m, _, err := manifest.Read(cfg.Home.Manifest()); err != nil || slices.Contains(ids, m.RunID) {
		t.Errorf("active after the sync cancelled in its retention: %v; want its promotion standing", err)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("the generation whose check was cut short: %v; want it kept", err)
	}
	if _, err := os.Stat(cfg.Home.Generation(oldest)); err != nil {
		t.Errorf("the oldest generation: %v; want it kept while a newer one is unchecked", err)
	}
}
