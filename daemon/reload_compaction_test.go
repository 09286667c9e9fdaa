package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// TestReloadPastTheCompactionOfWhatItRead: a sync promotes its delta, then
// the compaction that merges it, which removes the delta's generation. A
// reload that read the manifest between the two found that generation
// gone: novad logged "Generation not loaded", kept the old one, and
// /health said the active index was missing until the compaction's own
// event came (seen in a CI run of TestHealthDuringSwapIsOneGeneration).
// It now reads the manifest again and serves the compaction.
func TestReloadPastTheCompactionOfWhatItRead(t *testing.T) {
	var lines strings.Builder
	for i := range 64 { // a delta of one record is small beside this
		fmt.Fprintf(&lines, `{"id":"r%d","text":"Runner %d of the deploy pool drained its queue."}`+"\n", i, i)
	}
	cfg, src := syncedHome(t, lines.String())

	logs := &novatest.LogBuffer{}
	s, err := New(Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	novatest.Must(t, err)
	bindUnserved(t, s)
	s.reloadOnce(t.Context(), triggerStart, nil)
	first := s.current.Load().runID()

	f, err := os.OpenFile(src, os.O_APPEND|os.O_WRONLY, 0)
	novatest.Must(t, err)
	fmt.Fprintln(f, `{"id":"late","text":"The hangar door sticks in the cold."}`)
	f.Close()

	// The sync stops after its delta's manifest is written, until the
	// reload has read that manifest.
	deltaActive, readDelta := make(chan struct{}), make(chan struct{})
	var once sync.Once
	ix := index.New(cfg, index.Options{NoRemote: true, MergeDeltas: 1, Hook: func(step string) {
		if step == index.StepManifestWritten {
			once.Do(func() { close(deltaActive); <-readDelta })
		}
	}})
	synced := make(chan *index.SyncResult, 1)
	go func() {
		r, err := ix.Sync(context.Background())
		if err != nil {
			t.Error(err)
		}
		synced <- r
	}()
	<-deltaActive

	var opened []string
	var result *index.SyncResult
	s.openActive = func(ctx context.Context, home paths.Home, m *manifest.Manifest, a *lexical.Analyzer, c *generation.Cache) (*index.Served, error) {
		opened = append(opened, m.RunID)
		if len(opened) == 1 {
			close(readDelta) // the sync goes on: its compaction removes the delta
			result = <-synced
		}
		return index.OpenServed(ctx, home, m, a, c)
	}
	s.reloadOnce(t.Context(), triggerWatch, nil)
	if result == nil || result.Compaction == nil || result.Compaction.Promote == nil {
		t.Fatalf("the sync made no compaction, so nothing replaced the delta while it was opened: %+v", result.Build)
	}
	delta, compacted := result.Promote.RunID, result.Compaction.Promote.RunID
	if opened[0] != delta {
		t.Fatalf("the reload opened %v first, want the delta %s", opened, delta)
	}
	if _, err := os.Stat(cfg.Home.Generation(delta)); !os.IsNotExist(err) {
		t.Fatalf("the compaction kept the delta's generation (%v): nothing was removed under the reload", err)
	}
	h := s.health()
	if cur := s.current.Load().runID(); cur != compacted || h.IndexUnavailableReason != api.ActiveIndexReady {
		t.Errorf("serving %s (before the sync %s), want the compaction %s; /health says %s, integrity %+v",
			cur, first, compacted, h.IndexUnavailableReason, h.Integrity)
	}
	if out := logs.String(); strings.Contains(out, "level=ERROR") || strings.Contains(out, "level=WARN") {
		t.Errorf("a replaced generation was logged as a failure:\n%s", out)
	}
}
