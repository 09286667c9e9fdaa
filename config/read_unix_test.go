//go:build unix

package config_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/paths"
)

// TestLoadFile_notARegularFile: a named pipe at config.yaml (or a link
// to a device) is refused at once as an invalid configuration naming the
// path. Before, LoadFile opened it for reading: novad, novactl and doctor
// waited forever for a writer that never came.
func TestLoadFile_notARegularFile(t *testing.T) {
	fifo := paths.Home{Root: t.TempDir()}
	pipes := novatest.Mkfifo(t, fifo.Config())
	null := paths.Home{Root: t.TempDir()}
	if err := os.Symlink(os.DevNull, null.Config()); err != nil {
		t.Fatal(err)
	}
	for what, c := range map[string]struct {
		home paths.Home
		kind string
	}{"named pipe": {fifo, "a named pipe"}, "link to a device": {null, "a device"}} {
		err := novatest.Returns(t, pipes, "LoadFile of a "+what, func() error {
			_, err := config.LoadFile(c.home, c.home.Config(), nil)
			return err
		})
		if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), c.home.Config()+" is "+c.kind+", not a file") {
			t.Errorf("%s: LoadFile: %v, want ErrInvalid naming %s as %s", what, err, c.home.Config(), c.kind)
		}
	}
}
