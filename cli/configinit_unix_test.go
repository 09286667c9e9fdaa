//go:build unix

package cli

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
)

// TestConfigInit_forceOverANamedPipe: config init --force where
// config.yaml is a named pipe says so and writes nothing. Before, its
// copy of the old file opened the pipe for reading and waited forever for
// a writer.
func TestConfigInit_forceOverANamedPipe(t *testing.T) {
	_, home, env := initHome(t)
	if err := os.MkdirAll(home.Root, 0o700); err != nil {
		t.Fatal(err)
	}
	pipes := novatest.Mkfifo(t, home.Config())
	type result struct {
		code   int
		errOut string
	}
	r := novatest.Returns(t, pipes, "config init --force", func() result {
		code, _, errOut := runCLI(context.Background(), env, "config", "init", "--force")
		return result{code, errOut}
	})
	if r.code != ExitFailure || !strings.Contains(r.errOut, home.Config()+" is a named pipe, not a file") {
		t.Errorf("exit %d, stderr:\n%s\nwant a failure naming %s as a named pipe", r.code, r.errOut, home.Config())
	}
	if fi, err := os.Lstat(home.Config()); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("config.yaml replaced: %v %v", fi, err)
	}
}
