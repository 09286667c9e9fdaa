//go:build unix

package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/internal/novatest"
)

// TestBenchHangupCleansUp: novactl bench started novad, in the middle of
// its load test, when its terminal hangs up (SIGHUP: the window closed)
// or its output's reader goes away (SIGPIPE at its next write: a closed
// `| head` or `| tee`). Before, either signal ended novactl at once: its
// temporary work directory (a whole corpus and index) stayed behind, and
// novad, which takes SIGHUP as "reload" and writes only to its log, went
// on serving from it with no one to stop it. Now novactl stops the run
// as at Ctrl-C: novad is stopped and the work directory removed.
func TestBenchHangupCleansUp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds novad and runs a small bench")
	}
	novad := novatest.Binary(t, "novad")
	for _, tc := range []struct {
		name string
		// duration bounds the load test: the SIGPIPE comes at the line
		// written when it ends.
		duration string
		hangup   func(t *testing.T, cmd *exec.Cmd, stderr io.Closer)
	}{
		{"SIGHUP", "60s", func(t *testing.T, cmd *exec.Cmd, _ io.Closer) {
			novatest.Must(t, cmd.Process.Signal(syscall.SIGHUP))
		}},
		{"SIGPIPE", "2s", func(t *testing.T, _ *exec.Cmd, stderr io.Closer) {
			novatest.Must(t, stderr.Close())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := novatest.NewHome(t, "")
			tmp := filepath.Join(t.TempDir(), "tmp")
			novatest.Must(t, os.Mkdir(tmp, 0o700))
			cmd := exec.Command(os.Args[0], "bench", "--sizes", "100", "--queries", "2", "--systems", "none",
				"--novad", novad, "--load", "--load-requests", "100000000", "--load-duration", tc.duration)
			cmd.Env = append(h.Env(), runMainEnv+"=1", "TMPDIR="+tmp)
			stderr, err := cmd.StderrPipe()
			novatest.Must(t, err)
			novatest.Must(t, cmd.Start())
			exited := make(chan struct{})
			pid := 0
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				<-exited
				if pid > 0 {
					_ = syscall.Kill(pid, syscall.SIGKILL) // left running before the fix
				}
			})
			started := regexp.MustCompile(`novad started \(pid (\d+)\)`)
			sc := bufio.NewScanner(stderr)
			var shown strings.Builder
			for sc.Scan() {
				shown.WriteString(sc.Text() + "\n")
				if m := started.FindStringSubmatch(sc.Text()); m != nil {
					pid, _ = strconv.Atoi(m[1])
				}
				if strings.Contains(sc.Text(), "load test:") {
					break
				}
			}
			if pid == 0 {
				_ = cmd.Wait()
				close(exited)
				t.Fatalf("the load test did not start:\n%s", shown.String())
			}
			go func() {
				if tc.name == "SIGHUP" {
					_, _ = io.Copy(io.Discard, stderr) // its last lines, unread
				}
				_ = cmd.Wait()
				close(exited)
			}()
			tc.hangup(t, cmd, stderr)
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				t.Fatalf("novactl still runs 30 s after the %s", tc.name)
			}
			if err := syscall.Kill(pid, 0); err == nil {
				t.Errorf("novad (pid %d) still runs after novactl bench ended by %s (exit %d)", pid, tc.name, cmd.ProcessState.ExitCode())
			}
			left, err := os.ReadDir(tmp)
			novatest.Must(t, err)
			for _, e := range left {
				t.Errorf("%s left %s in its temporary directory", tc.name, e.Name())
			}
			if code := cmd.ProcessState.ExitCode(); code != 1 {
				t.Errorf("exit %d after %s, want 1 (the run stopped, its figures incomplete)", code, tc.name)
			}
		})
	}
}

// TestBenchUnderNohup: a run started under nohup (SIGHUP ignored, to
// outlive its terminal) goes on to its end when the terminal hangs up.
// Catching SIGHUP, as bench does to stop cleanly, would undo the
// ignoring: the run would stop at the hangup nohup was to survive.
func TestBenchUnderNohup(t *testing.T) {
	if testing.Short() {
		t.Skip("builds novad and runs a small bench")
	}
	nohup, err := exec.LookPath("nohup")
	if err != nil {
		t.Skip("no nohup here")
	}
	h := novatest.NewHome(t, "")
	tmp := filepath.Join(t.TempDir(), "tmp")
	novatest.Must(t, os.Mkdir(tmp, 0o700))
	cmd := exec.Command(nohup, os.Args[0], "bench", "--sizes", "100", "--queries", "2", "--systems", "none",
		"--novad", novatest.Binary(t, "novad"), "--load", "--load-requests", "100000000", "--load-duration", "2s")
	cmd.Env = append(h.Env(), runMainEnv+"=1", "TMPDIR="+tmp)
	stderr, err := cmd.StderrPipe()
	novatest.Must(t, err)
	novatest.Must(t, cmd.Start())
	exited := make(chan struct{})
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	sc := bufio.NewScanner(stderr)
	var shown strings.Builder
	for sc.Scan() {
		shown.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "load test:") {
			break
		}
	}
	go func() {
		for sc.Scan() {
			shown.WriteString(sc.Text() + "\n")
		}
		_ = cmd.Wait()
		close(exited)
	}()
	// nohup execs novactl in its place: the same process.
	novatest.Must(t, cmd.Process.Signal(syscall.SIGHUP))
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		t.Fatal("novactl still runs 60 s after a 2 s load test")
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit %d under nohup after a hangup, want 0 (the run to its end)\n%s", code, shown.String())
	}
}
