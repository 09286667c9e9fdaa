//go:build unix

package lockfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/lockfile"
)

// TestAcquireOutlastingProbes: a probe's shared lock (Held, as doctor
// takes it) in the way when a long-running holder starts does not make
// it give up, where Acquire alone does; a real holder is still reported.
func TestAcquireOutlastingProbes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	now := time.Now()
	probe, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	fd := int(probe.Fd())
	if err := syscall.Flock(fd, syscall.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	if _, err := lockfile.Acquire(path, 0o600, "watch", now); !errors.Is(err, lockfile.ErrHeld) {
		t.Fatalf("Acquire beside a probe: %v, want ErrHeld (the race this covers)", err)
	}
	// The probe lets go while the holder retries; the file stays open
	// until that is done.
	released := make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(100 * time.Millisecond)
		_ = syscall.Flock(fd, syscall.LOCK_UN)
	}()
	l, err := lockfile.AcquireOutlastingProbes(path, 0o600, "watch", now)
	<-released
	if err != nil {
		t.Fatalf("AcquireOutlastingProbes after the probe: %v", err)
	}
	defer l.Release()
	if _, err := lockfile.AcquireOutlastingProbes(path, 0o600, "watch", now); !errors.Is(err, lockfile.ErrHeld) {
		t.Fatalf("a second holder: %v, want ErrHeld", err)
	}
}
