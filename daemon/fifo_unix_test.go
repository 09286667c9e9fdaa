//go:build unix

package daemon_test

import (
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/daemon"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestHealthAnswersWithWatcherStateANamedPipe: a named pipe at
// state/watcher.json does not hold up /health, which reads the watcher's
// state for its freshness. Before, the read opened the pipe and waited
// for a writer: every /health (and search) hung.
func TestHealthAnswersWithWatcherStateANamedPipe(t *testing.T) {
	cfg := indexedHome(t, t.TempDir())
	srv := serve(t, daemon.Options{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	base := "http://" + srv.DirectAddr().String()
	waitServing(t, base)
	// Released when the test ends, so that a read still waiting on the
	// pipe ends and novad stops.
	novatest.Mkfifo(t, cfg.Home.WatcherState())
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(base + api.PathHealth)
	novatest.Must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/health: status %d", resp.StatusCode)
	}
}
