package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/internal/swell"
	"github.com/nova-recall/nova/manifest"
)

// TestInterruptedChecks: Ctrl-C (SIGINT) while index verify, index list
// --deep, doctor --deep or index sync --full hashes a large generation
// stops the command at once; it says it was interrupted, shows no result it did not finish,
// and exits 1, as an interrupted sync does. Before, the first Ctrl-C was
// ignored until every file was hashed. The active generation's build
// report is made a sparse file of many GiB (its record and the manifest
// sealed again to match), which takes many seconds to hash on any disk;
// each command is interrupted once it is hashing it.
func TestInterruptedChecks(t *testing.T) {
	h := novatest.NewHome(t, "")
	cmd := exec.Command(os.Args[0], "index", "sync", "--in-process")
	cmd.Env = append(h.Env(), runMainEnv+"=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sync: %v\n%s", err, out)
	}
	m, _, err := manifest.Read(filepath.Join(h.Dir, "index", "manifest.json"))
	novatest.Must(t, err)
	swell.Report(t, filepath.Join(h.Dir, "index", m.GenerationPath))

	for _, tc := range []struct {
		name string
		args []string
		says string
		// json: stdout holds one JSON report that says the checks were
		// interrupted, for a program reading it; otherwise nothing.
		json bool
	}{
		{"verify", []string{"index", "verify", m.RunID}, "interrupted before the verification finished", false},
		{"list", []string{"index", "list", "--deep"}, "interrupted before every generation was checked", false},
		{"doctor", []string{"doctor", "--deep"}, "interrupted before its checks finished", false},
		{"doctor --json", []string{"doctor", "--deep", "--json"}, "interrupted before its checks finished", true},
		// Last: a full sync hashes what it carries from the active
		// generation before it reads a source.
		{"sync --full", []string{"index", "sync", "--in-process", "--full"}, "interrupted; the active generation is unchanged", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := exec.Command(os.Args[0], tc.args...)
			run.Env = append(h.Env(), runMainEnv+"=1")
			var stdout, stderr bytes.Buffer
			run.Stdout, run.Stderr = &stdout, &stderr
			novatest.Must(t, run.Start())
			done := make(chan error, 1)
			go func() { done <- run.Wait() }()
			// Interrupted once it hashes the report, never before: a slow
			// start must not pass without reaching the hash.
			swell.Await(t, run.Process.Pid, filepath.Join(h.Dir, "index", m.GenerationPath), done)
			novatest.Must(t, run.Process.Signal(syscall.SIGINT))
			sent := time.Now()
			var waitErr error
			select {
			case waitErr = <-done:
			case <-time.After(5 * time.Second):
				_ = run.Process.Kill()
				t.Fatalf("still running 5s after Ctrl-C (then killed: %v)\n%s%s", <-done, stdout.String(), stderr.String())
			}
			if _, exited := waitErr.(*exec.ExitError); !exited {
				t.Fatalf("after Ctrl-C: %v", waitErr)
			}
			if code := run.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), tc.says) || (stdout.Len() > 0) != tc.json {
				t.Errorf("exit %d after Ctrl-C, want 1, no result, and %q said\nstdout: %s\nstderr: %s", code, tc.says, stdout.String(), stderr.String())
			}
			if tc.json {
				// Neither Ready nor damage: no check it cut short.
				var rep struct {
					Status            string
					Interrupted       bool
					Blocked, Degraded int
					Home              string
					Checks            []json.RawMessage
				}
				if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || rep.Status != "Interrupted" || !rep.Interrupted ||
					rep.Blocked+rep.Degraded != 0 || rep.Home != h.Dir || rep.Checks == nil || len(rep.Checks) > 0 {
					t.Errorf("doctor --json after Ctrl-C: %+v, %v; want status Interrupted, interrupted, no checks, its home\n%s", rep, err, stdout.String())
				}
			}
			t.Logf("stopped %s after Ctrl-C", time.Since(sent))
		})
	}
}
