package manifest

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestWatch_errorsAreLogged: a watch that fails (an inotify limit, a queue
// overflow) leaves promotions to the poll; the owner's log says so, once
// per distinct error, not at every poll tick that retries it.
func TestWatch_errorsAreLogged(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	w := Watch(t.TempDir(), "manifest.json", WatchOptions{Poll: time.Hour, Log: log})
	defer w.Close()
	limit := errors.New("no space left on device")
	w.setErr(limit)
	w.setErr(errors.New(limit.Error())) // the same failure at the next tick
	w.setErr(errors.New("fsnotify: queue or buffer overflow"))
	out := buf.String()
	if n := strings.Count(out, "Watching the index for changes failed"); n != 2 {
		t.Errorf("%d lines, want one per distinct error:\n%s", n, out)
	}
	if !strings.Contains(out, "no space left on device") || !strings.Contains(out, "poll=1h0m0s") {
		t.Errorf("the log names neither the error nor the poll:\n%s", out)
	}
	if w.Err() == nil {
		t.Error("Err() is nil after a failure")
	}
}
