package configwait

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/paths"
)

// replace writes content to path the way editors and atomic writers do: a
// new file renamed over the old one.
func replace(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// errorLog records Failed's calls.
type errorLog struct {
	mu   sync.Mutex
	errs []string
	c    chan struct{}
}

func newErrorLog() *errorLog { return &errorLog{c: make(chan struct{}, 16)} }

func (l *errorLog) failed(err error) {
	l.mu.Lock()
	l.errs = append(l.errs, err.Error())
	l.mu.Unlock()
	l.c <- struct{}{}
}

func (l *errorLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.errs...)
}

func (l *errorLog) wait(t *testing.T, n int) {
	t.Helper()
	for len(l.all()) < n {
		select {
		case <-l.c:
		case <-time.After(10 * time.Second):
			t.Fatalf("Failed was called %d times, want %d: %q", len(l.all()), n, l.all())
		}
	}
}

type result struct {
	cfg config.Config
	err error
}

// start runs Load in the background over a home whose config.yaml holds
// content, with a poll too slow to matter: what the test sees comes from
// change notifications.
func start(t *testing.T, ctx context.Context, content string) (paths.Home, *errorLog, <-chan result) {
	t.Helper()
	root := t.TempDir()
	home := paths.Home{Root: root}
	if err := os.WriteFile(home.Config(), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	log := newErrorLog()
	done := make(chan result, 1)
	go func() {
		cfg, err := Load(ctx, Options{Environ: []string{"NOVA_HOME=" + root}, Job: JobNovad, Failed: log.failed, Poll: time.Hour})
		done <- result{cfg, err}
	}()
	return home, log, done
}

func waitHeld(t *testing.T, path string, want bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); lockfile.Held(path) != want; {
		if time.Now().After(deadline) {
			t.Fatalf("lock %s held = %v, want %v", path, !want, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLoad_waitsForAFix: an invalid config.yaml is reported once, however
// often the file is rewritten with the same problem; a different problem
// is reported again; a fix made by rename ends the wait with the fixed
// configuration. Only the waiting lock is held meanwhile.
func TestLoad_waitsForAFix(t *testing.T) {
	home, log, done := start(t, t.Context(), "server: {port: 47350}\nbogus: 1\n")
	log.wait(t, 1)
	waitHeld(t, home.WaitingLock(JobNovad), true)
	if !Waiting(home, JobNovad) || Waiting(home, JobWatcher) {
		t.Fatalf("Waiting(novad) = %v, Waiting(watcher) = %v", Waiting(home, JobNovad), Waiting(home, JobWatcher))
	}
	if lockfile.Held(home.DaemonLock()) {
		t.Fatal("a waiting job holds novad.lock, which clients read as a serving novad")
	}

	// The same problem again, and an unrelated file: nothing new to say.
	// The same problem is the same file: moved to another line it is
	// another error (its line number), reported whenever Load reads the
	// file between this rewrite and the next.
	replace(t, home.Config(), "server: {port: 47350}\nbogus: 1\n")
	if err := os.WriteFile(filepath.Join(home.Root, "notes.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A different problem is reported, and nothing before it.
	replace(t, home.Config(), "server: {port: 47350}\nother: 2\n")
	log.wait(t, 2)
	if got := log.all(); len(got) != 2 || !strings.Contains(got[0], "bogus") || !strings.Contains(got[1], "other") {
		t.Fatalf("errors reported %q, want the bogus key once, then the other key", got)
	}

	replace(t, home.Config(), "server: {port: 47350}\n")
	select {
	case r := <-done:
		if r.err != nil || r.cfg.Server.Port != 47350 {
			t.Fatalf("Load = port %d, %v; want the fixed configuration", r.cfg.Server.Port, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Load did not return after config.yaml was fixed; errors %q", log.all())
	}
	if Waiting(home, JobNovad) {
		t.Fatal("the waiting lock is still held after the wait")
	}
}

// TestLoad_stops: ending the context ends the wait with an error Stopped
// recognises, and lets the lock go.
func TestLoad_stops(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	home, log, done := start(t, ctx, "server: {host: 0.0.0.0}\n")
	log.wait(t, 1)
	var nl *config.NonLoopbackError
	if got := log.all()[0]; !strings.Contains(got, "0.0.0.0") {
		t.Fatalf("reported %q, want the non-loopback host", got)
	}
	waitHeld(t, home.WaitingLock(JobNovad), true)
	cancel()
	select {
	case r := <-done:
		if !Stopped(r.err) || errors.As(r.err, &nl) {
			t.Fatalf("Load = %v, want a stop", r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Load did not return after its context ended")
	}
	if Waiting(home, JobNovad) {
		t.Fatal("the waiting lock is still held after the stop")
	}
}

// TestLoad_valid: a valid configuration returns at once, without a report
// or a lock.
func TestLoad_valid(t *testing.T) {
	root := t.TempDir()
	called := false
	cfg, err := Load(t.Context(), Options{Environ: []string{"NOVA_HOME=" + root}, Job: JobNovad, Failed: func(error) { called = true }})
	if err != nil || called || cfg.Home.Root != root {
		t.Fatalf("Load = %+v, %v (reported: %v); want the defaults at once", cfg.Home, err, called)
	}
	if _, err := os.Stat(filepath.Join(root, "state")); !os.IsNotExist(err) {
		t.Fatalf("a valid configuration created state/: %v", err)
	}
}
