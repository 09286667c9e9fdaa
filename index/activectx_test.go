package index_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/internal/swell"
	"github.com/nova-recall/nova/lexical"
)

// TestOpenActive_cancelled: a cancelled context stops the
// checksums of the active generation's load (novactl bench's, eval's)
// with context.Canceled, not damage. Its build report is a sparse file
// of 64 GiB; the test cancels once the load is hashing it.
func TestOpenActive_cancelled(t *testing.T) {
	_, cfg := baseSource(t)
	active := mustSync(t, index.New(cfg, index.Options{NoRemote: true, NoCompact: true, Now: newClock(epoch).Now})).Active()
	swell.Report(t, cfg.Home.Generation(active))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, _, err := index.OpenActive(ctx, cfg.Home, lexical.NewAnalyzer())
		done <- err
	}()
	swell.Await(t, os.Getpid(), cfg.Home.Generation(active), done)
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the load still runs 10 s after its context was cancelled")
	}
	if !errors.Is(err, context.Canceled) || errors.Is(err, generation.ErrCorrupt) {
		t.Errorf("load cancelled: %v; want context.Canceled, no damage", err)
	}
}
