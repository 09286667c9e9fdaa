//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
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
	}
	pipes := novatest.Mkfifo(t, codex, projectFile)
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
			r := novatest.Returns(t, pipes, strings.Join(tc.args, " "), func() result {
				out, errs, code := mcpRunIn(t, project, env, tc.args...)
				return result{out + errs, code}
			})
			if r.code == ExitOK || !strings.Contains(r.out, tc.pipe+" is a named pipe, not a file") {
				t.Errorf("exit %d, output:\n%s\nwant a failure naming %s as a named pipe", r.code, r.out, tc.pipe)
			}
		})
	}
}
