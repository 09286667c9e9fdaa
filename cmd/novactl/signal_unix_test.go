//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/internal/novatest"
)

// TestSecondSignalExits: novactl catches SIGINT and SIGTERM to cancel
// the command, which a read stuck in a system call never sees (here the
// open of a named pipe no one writes, given as eval's queries): the first
// signal leaves it running, and a second one ends it at once with the
// status a shell reports for that signal, 130 or 143. Before, every
// signal after the first was caught too, and only SIGKILL ended it.
func TestSecondSignalExits(t *testing.T) {
	for _, tc := range []struct {
		name          string
		first, second syscall.Signal
		want          int
	}{
		{"SIGINT twice", syscall.SIGINT, syscall.SIGINT, 130},
		{"SIGTERM after SIGINT", syscall.SIGINT, syscall.SIGTERM, 143},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := novatest.NewHome(t, "")
			queries := filepath.Join(t.TempDir(), "queries.jsonl")
			pipes := novatest.Mkfifo(t, queries)
			cmd := exec.Command(os.Args[0], "eval", "--queries", queries)
			cmd.Env = append(h.Env(), runMainEnv+"=1")
			var errb bytes.Buffer
			cmd.Stderr = &errb
			novatest.Must(t, cmd.Start())
			exited := make(chan struct{})
			go func() { _ = cmd.Wait(); close(exited) }()
			t.Cleanup(func() {
				pipes.Release()
				_ = cmd.Process.Kill()
				<-exited
			})
			waitOnPipe(t, cmd.Process.Pid)
			novatest.Must(t, cmd.Process.Signal(tc.first))
			select {
			case <-exited:
				t.Fatalf("the first signal ended novactl (exit %d), which was to cancel and wait on the pipe\n%s", cmd.ProcessState.ExitCode(), errb.String())
			case <-time.After(500 * time.Millisecond):
			}
			novatest.Must(t, cmd.Process.Signal(tc.second))
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				t.Fatalf("novactl still runs 10s after a second signal (%v)", tc.second)
			}
			if code := cmd.ProcessState.ExitCode(); code != tc.want {
				t.Errorf("exit %d after %v then %v, want %d\n%s", code, tc.first, tc.second, tc.want, errb.String())
			}
		})
	}
}

// waitOnPipe waits until a thread of process pid waits in the open of a
// named pipe (Linux names the wait in /proc), so that the signals reach
// novactl once it catches them; elsewhere, or when /proc does not say,
// it waits a few seconds, time enough to start.
func waitOnPipe(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "wchan"))
		for _, w := range tasks {
			if b, err := os.ReadFile(w); err == nil && strings.Contains(string(b), "partner") {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}
