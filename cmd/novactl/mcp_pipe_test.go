package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/internal/novatest"
)

// TestMCPClientClosedStdout: an agent that closes its end of novactl mcp's
// stdout while an answer is due (it crashed, or gave up) must not kill
// novactl with SIGPIPE, which Go's runtime raises on a write to a broken
// stdout and which leaves nothing in the agent's MCP log. novactl mcp
// stops with exit status 1 and a line on stderr saying the client went
// away. The client is this test: a real novactl (this test binary run as
// one) on real pipes.
func TestMCPClientClosedStdout(t *testing.T) {
	h := novatest.NewHome(t, "")
	cmd := exec.Command(os.Args[0], "mcp")
	cmd.Env = append(h.Env(), runMainEnv+"=1")
	outR, outW, err := os.Pipe()
	novatest.Must(t, err)
	cmd.Stdout = outW
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	novatest.Must(t, err)
	novatest.Must(t, cmd.Start())
	// The client's end is gone before novactl answers.
	novatest.Must(t, outW.Close())
	novatest.Must(t, outR.Close())
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"gone","version":"1"}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Logf("novactl mcp: %v", err) // the status is read below
	case <-time.After(20 * time.Second):
		// Still serving a client that cannot hear it: end its input so
		// the test reports that rather than hang.
		_ = stdin.Close()
		t.Logf("novactl mcp: %v", <-done)
		t.Errorf("novactl mcp kept running for 20s after its stdout broke")
	}
	_ = stdin.Close()
	st := cmd.ProcessState
	if !st.Exited() {
		t.Fatalf("novactl mcp did not exit by itself (%v); stderr %q", st, stderr.String())
	}
	if st.ExitCode() != 1 {
		t.Errorf("exit status %d, want 1; stderr %q", st.ExitCode(), stderr.String())
	}
	// The MCP SDK's logger adds its own "session ended with error" line,
	// as it does for every session that ends in an error.
	if got := stderr.String(); !strings.Contains("\n"+got, "\nnovactl mcp: the client closed its end of stdout (it went away); stopping\n") || strings.Contains(got, "goroutine ") {
		t.Errorf("stderr %q, want a line saying the client closed stdout, and no trace", got)
	}
}
