package daemon

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/internal/swell"
	"github.com/nova-recall/nova/manifest"
)

// TestStopDuringLoad: novad stopped (SIGTERM, launchctl bootout) while it
// loads a generation stops at once, and says nothing of damage: the load
// was cut short, not failed. It hashed the whole generation first, the
// service manager's stop waiting on it. The generation's build report is
// made a sparse file of 64 GiB (its record and the manifest sealed again
// to match), far longer than the test's bound to hash; the test stops
// novad once its load is hashing it.
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
	stopped := make(chan error, 1)
	go func() { stopped <- s.Run(run, nil) }()
	swell.Await(t, os.Getpid(), filepath.Join(cfg.Home.IndexDir(), m.GenerationPath), stopped)
	cancel() // stopped while the load hashes the report
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
