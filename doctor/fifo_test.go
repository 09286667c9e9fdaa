//go:build linux || darwin

package doctor

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
)

// TestSourceIsANamedPipe: a source whose path is a named pipe (a FIFO
// some tool writes to) is named as no file Nova reads; doctor opened it
// to see whether it could be read, and an open of a pipe without a writer
// waits for one: doctor hung for good.
func TestSourceIsANamedPipe(t *testing.T) {
	f := newFixture(t)
	f.src = filepath.Join(t.TempDir(), "export.jsonl")
	pipes := novatest.Mkfifo(t, f.src)
	f.writeConfig()
	r := novatest.Returns(t, pipes, "doctor", func() Report { return f.run(Options{}) })
	c := want(t, r, "source:notes", Degraded, CodeSourceUnreadable)
	if !strings.Contains(c.Message, f.src) || !strings.Contains(c.Message, "named pipe") || !strings.Contains(c.Advice, "sources[].path") {
		t.Errorf("source that is a named pipe: %+v", c)
	}
}
