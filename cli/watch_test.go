//go:build unix

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/packaging/configwait"
	"github.com/nova-recall/nova/paths"
)

// TestManualSyncWaitsForTheWatcher: while the source watcher holds the
// index lock, novactl index sync says it waits, and succeeds once the
// lock is free, instead of failing with "another index operation".
func TestManualSyncWaitsForTheWatcher(t *testing.T) {
	_, home, env := jsonlHome(t)

	f := holdIndexAsWatcher(t, home)
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

// holdIndexAsWatcher makes this process play the source watcher: its
// lock, its state, and the index lock taken the way index takes it (an
// flock, with who holds it). The index lock is let go by unlocking the
// returned file, or at the end of the test.
func holdIndexAsWatcher(t *testing.T, home paths.Home) *os.File {
	t.Helper()
	wl, err := freshness.Acquire(home, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wl.Release() })
	if err := freshness.Write(home, &freshness.State{SchemaVersion: freshness.SchemaVersion, PID: os.Getpid()}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(home.Lock(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]any{"operation": "sync", "pid": os.Getpid(), "lockedAt": time.Now().UTC().Format(time.RFC3339)})
	if _, err := f.WriteAt(info, 0); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestManualSyncInterruptedWhileWaiting: Ctrl-C while a sync waits for
// the watcher says it was interrupted, not that another operation holds
// the lock (which read as a failure to report).
func TestManualSyncInterruptedWhileWaiting(t *testing.T) {
	_, home, env := jsonlHome(t)
	holdIndexAsWatcher(t, home)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(700 * time.Millisecond)
		cancel()
	}()
	code, out, errOut := runCLI(ctx, env, "index", "sync", "--in-process")
	if code == ExitOK || !strings.Contains(errOut, "interrupted") || strings.Contains(errOut, "another index operation") {
		t.Errorf("Ctrl-C while waiting for the watcher: exit %d\n%s\n%s", code, out, errOut)
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

// syncWriter is a strings.Builder safe for the watcher's log writes and
// the test's reads.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestIndexWatch_waitForConfig: the watcher as its service definitions
// start it, over an invalid config.yaml, logs the error once and waits
// without taking the watcher lock, starts once the file is fixed by
// rename, and stops cleanly; SIGTERM (ctx) while it waits is a clean stop
// too. Without the flag it exits 78 at once.
func TestIndexWatch_waitForConfig(t *testing.T) {
	_, home, env := jsonlHome(t)
	valid, err := os.ReadFile(home.Config())
	if err != nil {
		t.Fatal(err)
	}
	replace := func(content string) {
		t.Helper()
		if err := os.WriteFile(home.Config()+".tmp", []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(home.Config()+".tmp", home.Config()); err != nil {
			t.Fatal(err)
		}
	}
	replace(string(valid) + "bogus: 1\n")
	if code, _, errOut := runCLI(t.Context(), env, "index", "watch", "--in-process"); code != ExitConfig {
		t.Fatalf("without --wait-for-config: exit %d, want %d\n%s", code, ExitConfig, errOut)
	}

	run := func(ctx context.Context) (<-chan int, *syncWriter) {
		logs := &syncWriter{}
		code := make(chan int, 1)
		go func() {
			code <- Run(ctx, []string{"index", "watch", "--in-process", "--log-format", "json", "--wait-for-config"},
				&Invocation{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: logs, Environ: env})
		}()
		return code, logs
	}
	until := func(what string, cond func() bool, code <-chan int, logs *syncWriter) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
			select {
			case c := <-code:
				t.Fatalf("the watcher exited %d before %s:\n%s", c, what, logs)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("the watcher did not get to %s:\n%s", what, logs)
			}
		}
	}

	t.Run("starts once fixed", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		code, logs := run(ctx)
		until("waiting", func() bool { return configwait.Waiting(home, configwait.JobWatcher) }, code, logs)
		if freshness.Running(home) {
			t.Fatal("a waiting watcher holds the watcher lock")
		}
		replace(string(valid) + "bogus: 1\n")
		replace(string(valid) + "other: 2\n")
		until("logging the new error", func() bool { return strings.Contains(logs.String(), "other: unknown key") }, code, logs)
		if n := strings.Count(logs.String(), "bogus: unknown key"); n != 1 {
			t.Fatalf("the same error was logged %d times, want once:\n%s", n, logs)
		}
		replace(string(valid))
		until("running", func() bool { return freshness.Running(home) }, code, logs)
		cancel()
		if c := <-code; c != ExitOK {
			t.Fatalf("exit %d after the stop, want 0:\n%s", c, logs)
		}
	})

	t.Run("stopped while waiting", func(t *testing.T) {
		replace(string(valid) + "bogus: 1\n")
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		code, logs := run(ctx)
		until("waiting", func() bool { return configwait.Waiting(home, configwait.JobWatcher) }, code, logs)
		cancel()
		select {
		case c := <-code:
			if c != ExitOK {
				t.Fatalf("exit %d after a stop while waiting, want 0:\n%s", c, logs)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the watcher did not stop while waiting")
		}
	})
}

// TestIndexWatch_standsBy: a watcher started by a service definition
// (--wait-for-config) while another watcher runs for the same home (two
// jobs: brew services' nova-watch and novactl service install's, or one
// run in a terminal) does not exit 1, which launchd relaunches every 10 s
// for ever; it logs once that it stands by, and watches once the other
// stops. Without the flag it still exits 1 at once.
func TestIndexWatch_standsBy(t *testing.T) {
	_, home, env := jsonlHome(t)
	other, err := freshness.Acquire(home, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	released := false
	defer func() {
		if !released {
			other.Release()
		}
	}()
	if code, _, errOut := runCLI(t.Context(), env, "index", "watch", "--in-process"); code != ExitFailure {
		t.Fatalf("without --wait-for-config: exit %d, want %d\n%s", code, ExitFailure, errOut)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	logs := &syncWriter{}
	code := make(chan int, 1)
	var tries atomic.Int32
	go func() {
		code <- Run(ctx, []string{"index", "watch", "--in-process", "--log-format", "json", "--wait-for-config"},
			&Invocation{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: logs, Environ: env, standbyTried: func() { tries.Add(1) }})
	}()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(logs.String(), "Standing by"); time.Sleep(20 * time.Millisecond) {
		select {
		case c := <-code:
			t.Fatalf("the watcher exited %d instead of standing by:\n%s", c, logs)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watcher does not stand by:\n%s", logs)
		}
	}
	// It tried every second, for as long as the other ran: days of
	// wake-ups for two installed jobs. It sleeps now.
	time.Sleep(3 * time.Second)
	if n := strings.Count(logs.String(), "Standing by"); n != 1 {
		t.Errorf("logged standing by %d times:\n%s", n, logs)
	}
	if n := tries.Load(); n > 0 {
		t.Errorf("the standby tried %d times in 3 s while the other watcher ran, want none", n)
	}
	other.Release()
	released = true
	for deadline := time.Now().Add(1500 * time.Millisecond); tries.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the standby did not try within about a second of the other's stop:\n%s", logs)
		}
	}
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(logs.String(), "Watcher starting") || !freshness.Running(home); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the watcher does not take over:\n%s", logs)
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

// TestIndexWatch_badLogFormat: a --log-format other than auto, text or
// json is a usage error before the watcher starts, not JSON logs.
func TestIndexWatch_badLogFormat(t *testing.T) {
	env := configHome(t, "server: {port: 0}\nfacade: {port: 0}\n")
	// Accepted, the watcher would run until this deadline.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	for _, v := range []string{"xml", "TEXT", ""} {
		code, out, errOut := runCLI(ctx, env, "index", "watch", "--in-process", "--log-format", v)
		want := "--log-format must be auto, text or json (got " + strconv.Quote(v) + ")"
		if code != ExitUsage || out != "" || !strings.Contains(errOut, want) {
			t.Errorf("--log-format %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", v, code, out, errOut, want)
		}
	}
}

// TestIndexWatch_logFileMadePrivate: under launchd the watcher's stderr
// is a file launchd created 0644 (Homebrew's var/log/nova-watch.log);
// run as its service definitions run it (--log-file), the watcher makes
// it 0600 and logs there.
func TestIndexWatch_logFileMadePrivate(t *testing.T) {
	_, home, env := jsonlHome(t)
	valid, err := os.ReadFile(home.Config())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(home.Config(), append(valid, "bogus: 1\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "nova-watch.log")
	stderr := novatest.ServiceLog(t, path)
	code := Run(t.Context(), []string{"index", "watch", "--in-process", "--log-file", path},
		&Invocation{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: stderr, Environ: env})
	log, _ := os.ReadFile(path)
	if code != ExitConfig || !strings.Contains(string(log), "bogus") {
		t.Fatalf("exit %d, want %d, logging to the file:\n%s", code, ExitConfig, log)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Errorf("log file mode %v, want 0600", m)
	}
}

// TestIndexWatch_refusedNamesTheWatcher: a second novactl index watch on
// one home (typed while the service job's watcher runs) says which
// process is the watcher already running, its pid and since when, and
// what to do; it used to say only that one runs.
func TestIndexWatch_refusedNamesTheWatcher(t *testing.T) {
	_, home, env := jsonlHome(t)
	since := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	other, err := freshness.Acquire(home, since)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	code, _, errOut := runCLI(t.Context(), env, "index", "watch", "--in-process")
	if code != ExitFailure {
		t.Fatalf("exit %d, want %d\n%s", code, ExitFailure, errOut)
	}
	for _, want := range []string{"already running", fmt.Sprintf("pid %d", os.Getpid()), "2026-03-04T05:06:07Z", "novactl service status"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("refused watcher's message lacks %q:\n%s", want, errOut)
		}
	}
}
