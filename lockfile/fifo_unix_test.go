//go:build unix

package lockfile_test

import (
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/lockfile"
)

// TestProbesOfANamedPipe: Held, Free and ReadHolder of a named pipe at a
// lock file's path (state/novad.lock) answer at once: nobody holds it,
// nothing is known of a holder. Before, each opened the pipe for reading
// and waited for a writer, and with them every novactl command that asks
// whether novad serves the home.
func TestProbesOfANamedPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "novad.lock")
	pipes := novatest.Mkfifo(t, path)
	for name, probe := range map[string]func() bool{
		"Held":       func() bool { return !lockfile.Held(path) },
		"Free":       func() bool { return !lockfile.Free(path) },
		"ReadHolder": func() bool { return lockfile.ReadHolder(path) == lockfile.Holder{} },
	} {
		if !novatest.Returns(t, pipes, name+" of a named pipe", probe) {
			t.Errorf("%s of a named pipe: not the answer for no lock", name)
		}
	}
}
