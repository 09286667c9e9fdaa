//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMCPStatus_NamedPipe: an agent's configuration file, or a project's
// .mcp.json, that is a named pipe is reported as one at once, by mcp
// status and doctor. Before, status read it with a plain open, which
// waits for a writer that never comes: both hung for good.
func TestMCPStatus_NamedPipe(t *testing.T) {
	home, env := mcpAgentHome(t)
	// Ports 0: doctor probes the configured ports, and the default ones
	// may be this machine's own novad's.
	nova := strings.TrimPrefix(env[1], "NOVA_HOME=")
	if err := os.MkdirAll(nova, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(nova, "config.yaml"), []byte("server:\n  port: 0\nfacade:\n  port: 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	codex := filepath.Join(home, ".codex", "config.toml")
	project := t.TempDir()
	projectFile := filepath.Join(project, ".mcp.json")
	for _, p := range []string{codex, projectFile} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		pipe string
	}{
		{"user file", []string{"mcp", "status", "--agent", "codex", "--command", fakeNovactl(t)}, codex},
		{"project file", []string{"mcp", "status", "--agent", "claude-code", "--command", fakeNovactl(t)}, projectFile},
		{"doctor", []string{"doctor"}, codex},
	} {
		t.Run(tc.name, func(t *testing.T) {
			type result struct {
				out  string
				code int
			}
			done := make(chan result, 1)
			go func() {
				out, errs, code := mcpRunIn(t, project, env, tc.args...)
				done <- result{out + errs, code}
			}()
			select {
			case r := <-done:
				if r.code == ExitOK || !strings.Contains(r.out, tc.pipe+" is a named pipe, not a file") {
					t.Errorf("exit %d, output:\n%s\nwant a failure naming %s as a named pipe", r.code, r.out, tc.pipe)
				}
			case <-time.After(10 * time.Second):
				// Release the blocked opens so that the command ends.
				for _, p := range []string{codex, projectFile} {
					if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
						w.Close()
					}
				}
				t.Fatalf("%s did not return", strings.Join(tc.args, " "))
			}
		})
	}
}
