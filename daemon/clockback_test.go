package daemon_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/daemon"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/manifest"
)

// TestStartWithoutManifestAfterTheClockWentBack: the manifest removed,
// novad serves the generation promoted last. The clock went back between
// the two syncs (corrected after running ahead), so that generation's
// run id sorts before the older one's; novad served the older one, the
// memory as it was before the last sync.
func TestStartWithoutManifestAfterTheClockWentBack(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "memory.jsonl")
	cfg := testConfig(t, filepath.Join(root, "home"), config.Source{Name: "m", Kind: config.KindJSONL, Path: src, SourceSet: "notes"})
	var last string
	for _, sync := range []struct {
		at   time.Time
		text string
	}{
		{time.Now().Add(2 * time.Hour), `{"id":"port","text":"The staging deploy listens on port 42017."}`},
		{time.Now(), `{"id":"port","text":"The staging deploy moved to port 42018."}`},
	} {
		novatest.Must(t, os.WriteFile(src, []byte(sync.text+"\n"), 0o600))
		at := sync.at
		r, err := index.New(cfg, index.Options{NoRemote: true, NoCompact: true, Now: func() time.Time { at = at.Add(time.Second); return at }}).Sync(context.Background())
		novatest.Must(t, err)
		last = r.Promote.RunID
	}
	m, _, err := manifest.Read(cfg.Home.Manifest())
	novatest.Must(t, err)
	if m.RunID != last || m.PreviousRunID <= last {
		t.Fatalf("active %s after %s: the clock did not go back", m.RunID, m.PreviousRunID)
	}
	novatest.Must(t, os.Remove(cfg.Home.Manifest()))

	srv := serve(t, daemon.Options{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	h := servedHealth(t, srv)
	if h.Generation != last || h.Integrity.Status != api.IntegrityFallback {
		t.Errorf("without a manifest: serving %q, integrity %+v; want %s, promoted last, as a fallback", h.Generation, h.Integrity, last)
	}
}
