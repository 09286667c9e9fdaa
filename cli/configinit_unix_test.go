//go:build unix

package cli

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
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
	if err := syscall.Mkfifo(home.Config(), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	type result struct {
		code   int
		errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, _, errOut := runCLI(context.Background(), env, "config", "init", "--force")
		done <- result{code, errOut}
	}()
	select {
	case r := <-done:
		if r.code != ExitFailure || !strings.Contains(r.errOut, home.Config()+" is a named pipe, not a file") {
			t.Errorf("exit %d, stderr:\n%s\nwant a failure naming %s as a named pipe", r.code, r.errOut, home.Config())
		}
	case <-time.After(10 * time.Second):
		// Release the blocked open so that the command ends.
		if w, err := os.OpenFile(home.Config(), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatal("config init --force did not return")
	}
	if fi, err := os.Lstat(home.Config()); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("config.yaml replaced: %v %v", fi, err)
	}
}
