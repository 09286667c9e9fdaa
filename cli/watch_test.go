//go:build unix

package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/paths"
)

// TestManualSyncWaitsForTheWatcher: while the source watcher holds the
// index lock, novactl index sync says it waits, and succeeds once the
// lock is free, instead of failing with "another index operation".
func TestManualSyncWaitsForTheWatcher(t *testing.T) {
	_, home, env := jsonlHome(t)

	// This process plays the watcher: its lock, its state, and the index
	// lock taken the way index takes it (an flock, with who holds it).
	wl, err := freshness.Acquire(home, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer wl.Release()
	if err := freshness.Write(home, &freshness.State{SchemaVersion: freshness.SchemaVersion, PID: os.Getpid()}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(home.Lock(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]any{"operation": "sync", "pid": os.Getpid(), "lockedAt": time.Now().UTC().Format(time.RFC3339)})
	if _, err := f.WriteAt(info, 0); err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(1500 * time.Millisecond)
		_ = f.Truncate(0)
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	}()
	code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process")
	<-released
	if code != ExitOK {
		t.Fatalf("sync beside the watcher: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "the source watcher (novactl index watch, pid") || !strings.Contains(errOut, "waiting for it to finish") {
		t.Fatalf("the wait was not explained:\n%s", errOut)
	}
	if !strings.Contains(out, "Promoted") {
		t.Fatalf("no promotion after the wait:\n%s", out)
	}
}

// TestManualSyncFailsFastForOtherWriters: a lock held by something that
// is not the watcher still fails at once, naming the holder.
func TestManualSyncFailsFastForOtherWriters(t *testing.T) {
	root := t.TempDir()
	home := paths.Home{Root: filepath.Join(root, "nova")}
	if err := os.MkdirAll(home.IndexDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(home.Lock(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]any{"operation": "rollback", "pid": 4242, "lockedAt": "2026-12-01T10:00:00Z"})
	if _, err := f.WriteAt(info, 0); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	code, _, errOut := runCLI(context.Background(), []string{"HOME=" + root, "NOVA_HOME=" + home.Root}, "index", "sync", "--in-process")
	if code != ExitFailure || !strings.Contains(errOut, "rollback, pid 4242") || time.Since(t0) > 30*time.Second {
		t.Fatalf("exit %d after %s: %s", code, time.Since(t0), errOut)
	}
}
