package daemon

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/internal/novatest"
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
	const huge = 64 << 30
	genDir := filepath.Join(cfg.Home.IndexDir(), m.GenerationPath)
	big := filepath.Join(genDir, generation.FileReport)
	novatest.Must(t, os.Chmod(big, 0o600))
	novatest.Must(t, os.Truncate(big, huge))
	for _, record := range []string{filepath.Join(genDir, generation.FileCandidate), cfg.Home.Manifest()} {
		b, err := os.ReadFile(record)
		novatest.Must(t, err)
		var r manifest.Manifest
		novatest.Must(t, json.Unmarshal(b, &r))
		r.Files[generation.FileReport] = manifest.FileSum{Size: huge, XXH3: strings.Repeat("0", 32)}
		r.Seal()
		b, err = json.MarshalIndent(&r, "", "  ")
		novatest.Must(t, err)
		novatest.Must(t, os.Chmod(record, 0o600))
		novatest.Must(t, os.WriteFile(record, b, 0o600))
	}

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
