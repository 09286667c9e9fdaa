//go:build unix

package client

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/paths"
)

// TestReadState_namedPipe: a named pipe at server-state.json is refused
// at once, naming it. Before, ReadState opened it for reading, and every
// novactl command that finds novad through it (search, status) waited
// forever for a writer.
func TestReadState_namedPipe(t *testing.T) {
	home := paths.Home{Root: t.TempDir()}
	if err := os.MkdirAll(home.StateDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(home.ServerState(), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadState(home)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), home.ServerState()+" is a named pipe, not a file") {
			t.Errorf("ReadState: %v, want an error naming %s as a named pipe", err, home.ServerState())
		}
	case <-time.After(5 * time.Second):
		// Release the blocked open so that the goroutine ends.
		if w, err := os.OpenFile(home.ServerState(), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatal("ReadState did not return")
	}
}
