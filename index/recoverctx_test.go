package index_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/internal/swell"
	"github.com/nova-recall/nova/manifest"
)

// TestSync_cancelledInRecovery: Ctrl-C while a sync past a damaged active
// generation hashes the kept generation it would build on stops it at
// once with context.Canceled, the active generation as it was. The
// recovery's checks did not look at the context: the sync hashed every
// kept generation whole first. The kept one's build report is made a
// sparse file of 64 GiB (its record sealed again to match), which takes
// far longer than the test's bound to hash; the test cancels once the
// sync is hashing it.
func TestSync_cancelledInRecovery(t *testing.T) {
	src, cfg := baseSource(t)
	clk := newClock(epoch)
	writer := index.New(cfg, index.Options{NoRemote: true, NoCompact: true, Now: clk.Now})
	kept := mustSync(t, writer).Active()
	appendFile(t, src, jsonlLines(t, rec{ID: "mem-007", Text: "The cache warms from the replica after each deploy.", Date: "2026-02-16"}))
	damaged := mustSync(t, writer).Active()

	swell.Report(t, cfg.Home.Generation(kept))
	// The active generation's report cut short: a sync cannot build on it.
	rewrite(t, filepath.Join(cfg.Home.Generation(damaged), generation.FileReport), func(f *os.File) error { return f.Truncate(1) })

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := index.New(cfg, index.Options{NoRemote: true, NoCompact: true, Now: clk.Now}).Sync(ctx)
		done <- err
	}()
	swell.Await(t, os.Getpid(), cfg.Home.Generation(kept), done)
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the sync still runs 10 s after its context was cancelled")
	}
	if !errors.Is(err, context.Canceled) || errors.Is(err, generation.ErrCorrupt) {
		t.Errorf("sync cancelled in its recovery: %v; want context.Canceled, no damage", err)
	}
	if m, _, err := manifest.Read(cfg.Home.Manifest()); err != nil || m.RunID != damaged {
		t.Errorf("active after the cancelled sync: %v, %v; want %s as it was", m, err, damaged)
	}
}

// rewrite changes path's bytes and keeps its time, as bit rot does.
func rewrite(t *testing.T, path string, change func(*os.File) error) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := change(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}
