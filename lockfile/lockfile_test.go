package lockfile_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/lockfile"
)

// TestAcquire: one holder at a time (a second open of the file, as another
// process makes, is refused with the holder's details), Held sees it, and
// Release frees it for the next holder and empties the file.
func TestAcquire(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	if lockfile.Held(path) {
		t.Fatal("Held before any lock file exists")
	}
	l, err := lockfile.Acquire(path, 0o600, "serve", now)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("lock file mode: %v %v", fi, err)
	}
	if !lockfile.Held(path) {
		t.Error("Held is false while the lock is held")
	}
	_, err = lockfile.Acquire(path, 0o600, "sync", now)
	var he *lockfile.HeldError
	if !errors.As(err, &he) || !errors.Is(err, lockfile.ErrHeld) {
		t.Fatalf("second Acquire: %v, want a *HeldError", err)
	}
	if he.Holder.PID != os.Getpid() || he.Holder.Operation != "serve" || he.Holder.Since != "2026-12-03T09:00:00Z" {
		t.Errorf("holder %+v", he.Holder)
	}
	l.Release()
	l.Release() // twice is harmless
	if lockfile.Held(path) {
		t.Error("Held after Release")
	}
	if b, _ := os.ReadFile(path); len(b) != 0 {
		t.Errorf("released lock file still says %q", b)
	}
	l2, err := lockfile.Acquire(path, 0o600, "sync", now)
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	l2.Release()
}

// TestAcquireUnopenable: a lock whose file cannot be created is an error,
// not ErrHeld.
func TestAcquireUnopenable(t *testing.T) {
	_, err := lockfile.Acquire(filepath.Join(t.TempDir(), "missing", "lock"), 0o600, "sync", time.Now())
	if err == nil || errors.Is(err, lockfile.ErrHeld) {
		t.Errorf("Acquire in a missing directory: %v", err)
	}
}

// TestHolderIsStarting: a "starting" record is believed while its process
// lives (or names none), not once that process is gone.
func TestHolderIsStarting(t *testing.T) {
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Skip("no true(1) to run:", err)
	}
	for _, tt := range []struct {
		h    lockfile.Holder
		want bool
	}{
		{lockfile.Holder{Operation: lockfile.Starting, PID: os.Getpid()}, true},
		{lockfile.Holder{Operation: lockfile.Starting}, true},
		{lockfile.Holder{Operation: lockfile.Starting, PID: ended.Process.Pid}, false},
		{lockfile.Holder{Operation: "serve", PID: os.Getpid()}, false},
		{lockfile.Holder{}, false},
	} {
		if got := tt.h.IsStarting(); got != tt.want {
			t.Errorf("%+v: IsStarting %v, want %v", tt.h, got, tt.want)
		}
	}
}

// TestAcquireRefusesAHardLink: a lock file with another name (a hard link
// to ~/.zsh_history, planted while the home was open to others) is
// refused before anything is written: recording the holder truncates
// the file, and with it the one it also names.
func TestAcquireRefusesAHardLink(t *testing.T) {
	dir := t.TempDir()
	history := filepath.Join(dir, ".zsh_history")
	if err := os.WriteFile(history, []byte("git push\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "lock")
	if err := os.Link(history, path); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	l, err := lockfile.Acquire(path, 0o600, "sync", time.Now())
	if !errors.Is(err, lockfile.ErrHardLink) {
		l.Release()
		t.Errorf("Acquire through a hard link: %v, want ErrHardLink", err)
	}
	if b, _ := os.ReadFile(history); string(b) != "git push\n" {
		t.Errorf("the file the lock also names now holds %q", b)
	}
}

// TestLock_Named: a lock whose file was removed, or replaced by another
// file of the same name, is no longer named by its path, though still
// held.
func TestLock_Named(t *testing.T) {
	path := filepath.Join(t.TempDir(), "novad.lock")
	l, err := lockfile.Acquire(path, 0o600, "serve", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if !l.Named(path) {
		t.Fatal("a held lock is not named by its own path")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if l.Named(path) {
		t.Error("a lock whose file was removed is still named by its path")
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if l.Named(path) {
		t.Error("a lock whose file was replaced is still named by its path")
	}
	var released *lockfile.Lock
	if released.Named(path) {
		t.Error("a nil lock is named by a path")
	}
}

// TestRenew: while its name reaches the locked file Renew does nothing;
// once the folder is removed it makes the folder again and locks a new
// file there, releasing the old lock; when another holder locked the new
// file first it says so (ErrHeld) and keeps the old lock.
func TestRenew(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, "lock")
	now := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	mkdir := func() error { return os.MkdirAll(dir, 0o700) }
	if err := mkdir(); err != nil {
		t.Fatal(err)
	}
	l, err := lockfile.Acquire(path, 0o600, "watch", now)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := l.Renew(path, 0o600, "watch", now, mkdir); n != l || err != nil {
		t.Fatalf("Renew of a named lock: %p %v, want the same lock", n, err)
	}

	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if lockfile.Held(path) {
		t.Fatal("Held of a removed lock file")
	}
	n, err := l.Renew(path, 0o600, "watch", now, mkdir)
	if err != nil || n == l || !n.Named(path) || !lockfile.Held(path) {
		t.Fatalf("Renew after its folder was removed: %v, named %v, held %v", err, n.Named(path), lockfile.Held(path))
	}
	if lockfile.ReadHolder(path).Operation != "watch" {
		t.Errorf("holder of the new file: %+v", lockfile.ReadHolder(path))
	}
	defer n.Release()

	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := mkdir(); err != nil {
		t.Fatal(err)
	}
	other, err := lockfile.Acquire(path, 0o600, "watch", now)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	if got, err := n.Renew(path, 0o600, "watch", now, mkdir); got != n || !errors.Is(err, lockfile.ErrHeld) {
		t.Errorf("Renew of a file another holder locked: %p %v, want the old lock and ErrHeld", got, err)
	}
}
