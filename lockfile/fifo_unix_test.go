//go:build unix

package lockfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestProbesOfANamedPipe: Held, Free and ReadHolder of a named pipe at a
// lock file's path (state/novad.lock) answer at once: nobody holds it,
// nothing is known of a holder. Before, each opened the pipe for reading
// and waited for a writer, and with them every novactl command that asks
// whether novad serves the home.
func TestProbesOfANamedPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "novad.lock")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	t.Cleanup(func() {
		// Release any open still blocked on the pipe.
		for range 3 {
			if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
		}
	})
	for name, probe := range map[string]func() bool{
		"Held":       func() bool { return !Held(path) },
		"Free":       func() bool { return !Free(path) },
		"ReadHolder": func() bool { return ReadHolder(path) == Holder{} },
	} {
		done := make(chan bool, 1)
		go func() { done <- probe() }()
		select {
		case ok := <-done:
			if !ok {
				t.Errorf("%s of a named pipe: not the answer for no lock", name)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("%s of a named pipe did not return", name)
		}
	}
}
