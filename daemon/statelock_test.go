package daemon_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/client"
	"github.com/nova-recall/nova/daemon"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/paths"
)

// removeStateDir removes the home's state/ while novad serves it, as
// rm -rf would. novad, finding its files gone, writes them again: when it
// does so between the removal's listing and its rmdir, the removal fails
// with "directory not empty", and is made again.
func removeStateDir(t *testing.T, home paths.Home) {
	t.Helper()
	err := os.RemoveAll(home.StateDir())
	for retry := 0; errors.Is(err, syscall.ENOTEMPTY) && retry < 10; retry++ {
		err = os.RemoveAll(home.StateDir())
	}
	novatest.Must(t, err)
}

// waitHomeLocked waits until the home's novad lock is held and names
// pid serving.
func waitHomeLocked(t *testing.T, home paths.Home, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		h := lockfile.ReadHolder(home.DaemonLock())
		if lockfile.Held(home.DaemonLock()) && h.PID == pid && h.Operation == "serve" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was not locked again by the serving novad (holder %+v)", home.DaemonLock(), h)
		}
	}
}

// TestHomeLockRelockedAfterStateRemoved: state/ deleted while novad runs
// (a cleanup of the home) took novad.lock with it, and the running novad
// went on holding the lock of a file no name reached: clients (novactl
// search, doctor) found no lock file and said novad was not running, and
// a second novad for the home created a new lock file, took it and
// served beside the first. novad now locks a new file within a poll, so
// clients find it again and a second novad is refused.
func TestHomeLockRelockedAfterStateRemoved(t *testing.T) {
	cfg := indexedHome(t, t.TempDir())
	srv := serve(t, daemon.Options{Config: cfg, Poll: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	waitServing(t, "http://"+srv.DirectAddr().String())

	removeStateDir(t, cfg.Home)
	waitHomeLocked(t, cfg.Home, os.Getpid())
	if fi, err := os.Stat(cfg.Home.StateDir()); err != nil || fi.Mode().Perm() != paths.DirMode {
		t.Errorf("state/: %v %v, want mode 0700", fi, err)
	}
	if fi, err := os.Stat(cfg.Home.DaemonLock()); err != nil || fi.Mode().Perm() != paths.FileMode {
		t.Errorf("novad.lock: %v %v, want mode 0600", fi, err)
	}
	// What novactl doctor and search ask. The test's ports are 0, so the
	// client finds them in the state file, written just after the lock.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(cfg.Home.ServerState()); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the state file was not written again")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := client.ForConfig(cfg).Health(ctx); err != nil {
		t.Errorf("a client of the home after state/ was removed: %v, want the serving novad's health", err)
	}

	second, err := daemon.New(daemon.Options{Config: cfg, BindRetry: -1, Logger: slog.New(slog.DiscardHandler)})
	novatest.Must(t, err)
	if err := second.Run(ctx, nil); !errors.Is(err, daemon.ErrAlreadyServing) {
		t.Errorf("a second novad for the home: %v, want %v", err, daemon.ErrAlreadyServing)
	}
}

// TestHomeLockLostStopsNovad: when another process takes the home's new
// lock file before novad locks it again (a second novad started in the
// moment after state/ was removed), two novads would serve one home, and
// clients would take the serving one for the other, still starting.
// novad stops with ErrHomeLockLost, an ErrAlreadyServing (exit 75, and a
// service manager's relaunch stands by), instead, and leaves the state
// file alone.
func TestHomeLockLostStopsNovad(t *testing.T) {
	cfg := indexedHome(t, t.TempDir())
	// A poll long enough that novad does not lock the file again between
	// the removal and the test's lock.
	srv, err := daemon.New(daemon.Options{Config: cfg, Poll: time.Second, Logger: slog.New(slog.DiscardHandler)})
	novatest.Must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready, stopped := make(chan struct{}), make(chan error, 1)
	go func() { stopped <- srv.Run(ctx, ready) }()
	<-ready
	waitServing(t, "http://"+srv.DirectAddr().String())
	// /health names the generation a moment before novad writes it into
	// its state file: that write, made after the removal below, is not the
	// one this test is about (it failed so under a loaded make test).
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if st, err := client.ReadState(cfg.Home); err == nil && st.Generation != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("novad serves a generation and never wrote it into its state file")
		}
	}

	// Removed and taken in one step, before novad's next poll.
	removeStateDir(t, cfg.Home)
	novatest.Must(t, paths.MkdirPrivate(cfg.Home.StateDir()))
	other, err := lockfile.Acquire(cfg.Home.DaemonLock(), paths.FileMode, lockfile.Starting, time.Now())
	novatest.Must(t, err)
	defer other.Release()

	select {
	case err := <-stopped:
		if !errors.Is(err, daemon.ErrHomeLockLost) || !errors.Is(err, daemon.ErrAlreadyServing) {
			t.Errorf("novad whose home another process locked: %v, want %v", err, daemon.ErrHomeLockLost)
		}
		if _, err := os.Stat(cfg.Home.ServerState()); err == nil {
			t.Error("the novad that lost the home wrote its state file")
		}
	case <-time.After(10 * time.Second):
		cancel()
		t.Errorf("novad went on serving a home another process had locked (stopped with %v)", <-stopped)
	}
}

// TestStateRemovedAtRest: state/ deleted while no novad runs is made
// again at the next start, 0700, with its lock file 0600.
func TestStateRemovedAtRest(t *testing.T) {
	cfg := indexedHome(t, t.TempDir())
	novatest.Must(t, os.RemoveAll(cfg.Home.StateDir()))
	srv := serve(t, daemon.Options{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	waitServing(t, "http://"+srv.DirectAddr().String())
	waitHomeLocked(t, cfg.Home, os.Getpid())
	for path, want := range map[string]os.FileMode{cfg.Home.StateDir(): paths.DirMode, cfg.Home.DaemonLock(): paths.FileMode, cfg.Home.TokenFile(): paths.FileMode} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want mode %o", path, fi, err, want)
		}
	}
}
