//go:build linux || darwin

package doctor

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/nova-recall/nova/internal/novatest"
)

// TestSourceIsANamedPipe: a source whose path is a named pipe (a FIFO
// some tool writes to) is named as no file Nova reads; doctor opened it
// to see whether it could be read, and an open of a pipe without a writer
// waits for one: doctor hung for good.
func TestSourceIsANamedPipe(t *testing.T) {
	f := newFixture(t)
	f.src = filepath.Join(t.TempDir(), "export.jsonl")
	novatest.Must(t, unix.Mkfifo(f.src, 0o600))
	f.writeConfig()
	c := want(t, f.run(Options{}), "source:notes", Degraded, CodeSourceUnreadable)
	if !strings.Contains(c.Message, f.src) || !strings.Contains(c.Message, "named pipe") || !strings.Contains(c.Advice, "sources[].path") {
		t.Errorf("source that is a named pipe: %+v", c)
	}
}
