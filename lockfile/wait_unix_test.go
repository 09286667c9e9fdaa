//go:build unix

package lockfile_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/lockfile"
)

// holdEnv, set to a lock file's path, makes this test binary a process
// that takes the lock, says so on stdout and holds it until it is killed
// (TestWaiterHelperHolds).
const holdEnv = "NOVA_LOCKFILE_TEST_HOLD"

// TestWaiterHelperHolds is the holding process of
// TestWaiter_wakesWhenTheHolderIsKilled, not a test of its own.
func TestWaiterHelperHolds(t *testing.T) {
	path := os.Getenv(holdEnv)
	if path == "" {
		t.Skip("only run as the helper process")
	}
	if _, err := lockfile.Acquire(path, 0o600, "serve", time.Now()); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("held\n")
	select {}
}

// waitResult runs w.Wait(ctx, true) in a goroutine and returns its
// outcome's channel.
func waitResult(ctx context.Context, w *lockfile.Waiter) <-chan error {
	done := make(chan error, 1)
	go func() { done <- w.Wait(ctx, true) }()
	return done
}

// blocks fails the test when done yields within d: the waiter should be
// blocked in the kernel, not woken.
func blocks(t *testing.T, done <-chan error, d time.Duration, what string) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("%s: Wait returned (%v) while the lock is held", what, err)
	case <-time.After(d):
	}
}

// wakes fails the test unless done yields nil within about a second, the
// promised takeover time of a standby.
func wakes(t *testing.T, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: Wait: %v", what, err)
		}
	case <-time.After(1500 * time.Millisecond):
		t.Fatalf("%s: Wait did not return within about a second", what)
	}
}

// TestWaiter_wakesWhenReleased: a waiter with an hour of safety poll
// sleeps while the lock is held, wakes as soon as it is let go, and holds
// nothing afterwards: the next holder takes the lock at once.
func TestWaiter_wakesWhenReleased(t *testing.T) {
	path := filepath.Join(t.TempDir(), "novad.lock")
	holder, err := lockfile.Acquire(path, 0o600, "serve", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w := &lockfile.Waiter{Path: path, Every: time.Hour}
	done := waitResult(t.Context(), w)
	blocks(t, done, 300*time.Millisecond, "held")
	holder.Release()
	wakes(t, done, "after the release")
	l, err := lockfile.Acquire(path, 0o600, "serve", time.Now())
	if err != nil {
		t.Fatalf("the next holder after the wake: %v", err)
	}
	defer l.Release()
	// Held again: the same waiter blocks again, on the same file.
	done = waitResult(t.Context(), w)
	blocks(t, done, 300*time.Millisecond, "held again")
	l.Release()
	wakes(t, done, "after the second release")
}

// TestWaiter_wakesWhenTheHolderIsKilled: a holder killed with SIGKILL,
// which runs none of its code, wakes the waiter as a release does.
func TestWaiter_wakesWhenTheHolderIsKilled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "novad.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestWaiterHelperHolds$")
	cmd.Env = append(os.Environ(), holdEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "held\n" {
		t.Fatalf("the helper did not take the lock: %q, %v", line, err)
	}
	w := &lockfile.Waiter{Path: path, Every: time.Hour}
	done := waitResult(t.Context(), w)
	blocks(t, done, 300*time.Millisecond, "held by the child")
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	wakes(t, done, "after kill -9 of the holder")
}

// TestWaiter_cancelled: a cancelled wait returns at once; the goroutine
// left blocked ends, closing its descriptor, when the holder lets go,
// and never stands in the next holder's way.
func TestWaiter_cancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "novad.lock")
	holder, err := lockfile.Acquire(path, 0o600, "serve", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	w := &lockfile.Waiter{Path: path, Every: time.Hour}
	done := waitResult(ctx, w)
	blocks(t, done, 200*time.Millisecond, "held")
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled Wait: %v, want context.Canceled", err)
		}
	case <-time.After(time.Second):
		t.Fatal("a cancelled Wait did not return at once")
	}
	if runtime.GOOS == "linux" && openCount(t, path) != 2 {
		t.Fatalf("open descriptors of the lock file: %d, want the holder's and the blocked waiter's", openCount(t, path))
	}
	holder.Release()
	l, err := lockfile.AcquireOutlastingProbes(path, 0o600, "serve", time.Now())
	if err != nil {
		t.Fatalf("the next holder beside the waiter left blocked: %v", err)
	}
	// flock is not fair: the next holder may take the lock before the
	// goroutine left blocked wakes, which then waits for that one too.
	l.Release()
	if runtime.GOOS != "linux" {
		return
	}
	for deadline := time.Now().Add(5 * time.Second); openCount(t, path) != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the goroutine left blocked kept its descriptor after the lock was let go")
		}
	}
}

// openCount is how many of this process's descriptors are open on path
// (linux: /proc/self/fd).
func openCount(t *testing.T, path string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && strings.TrimSuffix(l, " (deleted)") == path {
			n++
		}
	}
	return n
}

// TestWaiter_replacedFile: a holder that renewed its lock on a new file
// (state/ removed under it) and let the old one go wakes the waiter,
// which then blocks on the new file, not on the old one, free for ever.
func TestWaiter_replacedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "novad.lock")
	old, err := lockfile.Acquire(path, 0o600, "serve", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w := &lockfile.Waiter{Path: path, Every: time.Hour}
	done := waitResult(t.Context(), w)
	blocks(t, done, 200*time.Millisecond, "held")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	renewed, err := old.Renew(path, 0o600, "serve", time.Now(), nil)
	if err != nil || renewed == old {
		t.Fatalf("Renew: %v", err)
	}
	defer renewed.Release()
	wakes(t, done, "after the old file was let go")
	done = waitResult(t.Context(), w)
	blocks(t, done, 300*time.Millisecond, "the new file held")
	renewed.Release()
	wakes(t, done, "after the new file's release")
}

// TestWaiter_safetyPoll: with no file to block on (a read-only home
// without its lock file) and when the lock is not what is in the way,
// Wait returns after Every, not at once and not never.
func TestWaiter_safetyPoll(t *testing.T) {
	path := filepath.Join(t.TempDir(), "novad.lock")
	for _, held := range []bool{true, false} {
		w := &lockfile.Waiter{Path: path, Every: 200 * time.Millisecond}
		start := time.Now()
		if err := w.Wait(t.Context(), held); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < 150*time.Millisecond || d > 2*time.Second {
			t.Errorf("held=%v, no file: Wait returned after %v, want about Every", held, d)
		}
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
