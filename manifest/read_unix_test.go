//go:build unix

package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
)

// TestRead_notARegularFile: a manifest.json that is a named pipe, or a
// link to a device such as /dev/zero, is refused as invalid at once.
// Before, Read opened and read it: on a pipe it waited for a writer that
// never comes, and on /dev/zero it read until memory ran out, hanging
// novad's reload loop, doctor and every novactl index command.
func TestRead_notARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo", "manifest.json")
	if err := os.Mkdir(filepath.Dir(fifo), 0o700); err != nil {
		t.Fatal(err)
	}
	pipes := novatest.Mkfifo(t, fifo)
	zero := filepath.Join(dir, "zero", "manifest.json")
	if err := os.Mkdir(filepath.Dir(zero), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for what, path := range map[string]string{"named pipe": fifo, "link to /dev/zero": zero, "directory": dir} {
		err := novatest.Returns(t, pipes, "Read of a "+what, func() error {
			_, _, err := Read(path)
			return err
		})
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Read: %v, want ErrInvalid", what, err)
		}
	}
}
