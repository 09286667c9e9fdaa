package daemon

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/internal/swell"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// TestStopDuringLoad: novad stopped (SIGTERM, launchctl bootout) while it
// loads a generation stops at once, and says nothing of damage: the load
// was cut short, not failed. It hashed the whole generation first, the
// service manager's stop waiting on it. The generation's build report is
// made a sparse file of 64 GiB (its record and the manifest sealed again
// to match), far longer than the test's bound to hash.
func TestStopDuringLoad(t *testing.T) {
	cfg, _ := syncedHome(t, `{"id":"port","text":"The staging deploy listens on port 42017."}`+"\n")
	m, _, err := manifest.Read(cfg.Home.Manifest())
	novatest.Must(t, err)
	swell.Report(t, filepath.Join(cfg.Home.IndexDir(), m.GenerationPath))

	logs := &novatest.LogBuffer{}
	s, err := New(Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	novatest.Must(t, err)
	run, cancel := context.WithCancel(context.Background())
	defer cancel()
	loading := make(chan struct{})
	s.openActive = func(ctx context.Context, home paths.Home, m *manifest.Manifest, a *lexical.Analyzer, c *generation.Cache) (*index.Served, error) {
		cancel() // stopped as the load starts
		close(loading)
		return index.OpenServed(ctx, home, m, a, c)
	}
	stopped := make(chan error, 1)
	go func() { stopped <- s.Run(run, nil) }()
	<-loading
	select {
	case err := <-stopped:
		novatest.Must(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("novad still runs 10 s after it was stopped during a load")
	}
	if out := logs.String(); strings.Contains(out, "level=ERROR") || strings.Contains(out, "damaged") {
		t.Errorf("a load cut short by the stop was logged as a failure:\n%s", out)
	}
}
