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

	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/manifest"
)

// TestInterruptedVerify: Ctrl-C (SIGINT) during index verify of a large
// generation stops it at once, says the verification was interrupted, and
// exits 1, as an interrupted sync does; before, the first Ctrl-C was
// ignored until every file was hashed. The candidate's source states are
// made a sparse file of many GiB (its record sealed again to match), which
// verify hashes for many seconds on any disk.
func TestInterruptedVerify(t *testing.T) {
	h := novatest.NewHome(t, "")
	cmd := exec.Command(os.Args[0], "index", "build", "--in-process")
	cmd.Env = append(h.Env(), runMainEnv+"=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cands, err := filepath.Glob(filepath.Join(h.Dir, "index", "candidates", "*", generation.FileCandidate))
	if err != nil || len(cands) != 1 {
		t.Fatalf("candidates: %v %v", cands, err)
	}
	b, err := os.ReadFile(cands[0])
	novatest.Must(t, err)
	var m manifest.Manifest
	novatest.Must(t, json.Unmarshal(b, &m))
	const huge = 16 << 30
	big := filepath.Join(filepath.Dir(cands[0]), generation.FileSources)
	if _, ok := m.Files[generation.FileSources]; !ok {
		t.Fatalf("the candidate record lists no %s: %v", generation.FileSources, m.Files)
	}
	novatest.Must(t, os.Truncate(big, huge))
	m.Files[generation.FileSources] = manifest.FileSum{Size: huge, XXH3: strings.Repeat("0", 32)}
	m.Seal()
	b, err = json.MarshalIndent(&m, "", "  ")
	novatest.Must(t, err)
	novatest.Must(t, os.WriteFile(cands[0], b, 0o600))

	verify := exec.Command(os.Args[0], "index", "verify")
	verify.Env = append(h.Env(), runMainEnv+"=1")
	var stdout, stderr bytes.Buffer
	verify.Stdout, verify.Stderr = &stdout, &stderr
	novatest.Must(t, verify.Start())
	done := make(chan error, 1)
	go func() { done <- verify.Wait() }()
	select {
	case err := <-done:
		t.Skipf("verify finished before it could be interrupted: %v\n%s%s", err, stdout.String(), stderr.String())
	case <-time.After(700 * time.Millisecond):
	}
	novatest.Must(t, verify.Process.Signal(syscall.SIGINT))
	sent := time.Now()
	var waitErr error
	select {
	case waitErr = <-done:
	case <-time.After(5 * time.Second):
		_ = verify.Process.Kill()
		t.Fatalf("verify still ran 5s after Ctrl-C (then killed: %v)\n%s%s", <-done, stdout.String(), stderr.String())
	}
	took := time.Since(sent)
	if _, exited := waitErr.(*exec.ExitError); !exited {
		t.Fatalf("verify after Ctrl-C: %v", waitErr)
	}
	if code := verify.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "interrupted before the verification finished") || stdout.Len() > 0 {
		t.Errorf("exit %d after Ctrl-C, want 1 and the interruption said\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
	}
	t.Logf("verify stopped %s after Ctrl-C", took)
}
