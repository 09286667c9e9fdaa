//go:build unix

package client

import (
	"os"
	"strings"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
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
	pipes := novatest.Mkfifo(t, home.ServerState())
	err := novatest.Returns(t, pipes, "ReadState", func() error {
		_, err := ReadState(home)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), home.ServerState()+" is a named pipe, not a file") {
		t.Errorf("ReadState: %v, want an error naming %s as a named pipe", err, home.ServerState())
	}
}
