package cli

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/freshness"
)

// remount bind-mounts dir on itself (once) and remounts it read-only or
// read-write: a home on a volume that is locked, then unlocked. It takes
// root on Linux; elsewhere the test is skipped.
func remount(t *testing.T, dir string, readOnly bool) {
	t.Helper()
	if runtime.GOOS != "linux" || os.Getuid() != 0 {
		t.Skip("a read-only mount needs root on Linux")
	}
	mode := "remount,bind,rw"
	if readOnly {
		mode = "remount,bind,ro"
		if out, err := exec.Command("mount", "--bind", dir, dir).CombinedOutput(); err != nil {
			t.Skipf("cannot bind-mount: %v: %s", err, out)
		}
		t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	}
	if out, err := exec.Command("mount", "-o", mode, dir).CombinedOutput(); err != nil {
		t.Fatalf("mount -o %s: %v: %s", mode, err, out)
	}
}

// TestIndexWatch_waitsForAReadOnlyHome: a watcher a service definition
// starts (--wait-for-config) on a home on a read-only volume, where it
// cannot take its lock, does not exit 1 for launchd to relaunch every
// 10 s for ever (novad waits there since the read-only home was
// supported); it logs once that it waits and watches once the volume is
// writable. Run by hand it still exits 1 at once.
func TestIndexWatch_waitsForAReadOnlyHome(t *testing.T) {
	_, home, env := jsonlHome(t)
	if err := os.MkdirAll(filepath.Dir(home.WatcherLock()), 0o700); err != nil {
		t.Fatal(err)
	}
	remount(t, home.Root, true)
	if code, _, errOut := runCLI(t.Context(), env, "index", "watch", "--in-process"); code != ExitFailure {
		t.Fatalf("without --wait-for-config: exit %d, want %d\n%s", code, ExitFailure, errOut)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	logs := &syncWriter{}
	code := make(chan int, 1)
	go func() {
		code <- Run(ctx, []string{"index", "watch", "--in-process", "--log-format", "json", "--wait-for-config"},
			&Invocation{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: logs, Environ: env, standbyEvery: 200 * time.Millisecond})
	}()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(logs.String(), "read-only"); time.Sleep(20 * time.Millisecond) {
		select {
		case c := <-code:
			t.Fatalf("the watcher exited %d instead of waiting:\n%s", c, logs)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watcher does not wait:\n%s", logs)
		}
	}
	// Five tries of the safety poll, each without a line.
	time.Sleep(time.Second)
	select {
	case c := <-code:
		t.Fatalf("the watcher exited %d while waiting:\n%s", c, logs)
	default:
	}
	if n := strings.Count(logs.String(), "read-only"); n != 1 {
		t.Errorf("logged the read-only home %d times:\n%s", n, logs)
	}
	remount(t, home.Root, false)
	for deadline := time.Now().Add(20 * time.Second); !freshness.Running(home); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the watcher does not start once the home is writable:\n%s", logs)
		}
	}
	cancel()
	select {
	case c := <-code:
		if c != ExitOK {
			t.Fatalf("exit %d after its context ended:\n%s", c, logs)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the watcher did not stop")
	}
}

// TestIndexSync_readOnlyHome: novactl index sync on a home on a read-only
// volume (novad serves it read-only) says so and what to do, not only
// "index lock: open lock: ... read-only file system".
func TestIndexSync_readOnlyHome(t *testing.T) {
	_, home, env := jsonlHome(t)
	remount(t, home.Root, true)
	code, _, errOut := runCLI(t.Context(), env, "index", "sync", "--in-process")
	if code != ExitFailure {
		t.Fatalf("exit %d, want %d\n%s", code, ExitFailure, errOut)
	}
	if !strings.Contains(errOut, home.Root+" is on a read-only volume") || !strings.Contains(errOut, "set NOVA_HOME") {
		t.Errorf("stderr does not say the home is read-only and what to do:\n%s", errOut)
	}
}
