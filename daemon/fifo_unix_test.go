//go:build unix

package daemon_test

import (
	"log/slog"
	"net/http"
	"os"
	"syscall"
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
	if err := syscall.Mkfifo(cfg.Home.WatcherState(), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	t.Cleanup(func() {
		// Release any read still blocked on the pipe so that novad stops.
		for range 8 {
			if w, err := os.OpenFile(cfg.Home.WatcherState(), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
		}
	})
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(base + api.PathHealth)
	novatest.Must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/health: status %d", resp.StatusCode)
	}
}
