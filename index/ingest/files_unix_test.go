//go:build linux || darwin

package ingest

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestList_namedPipeSource: a source whose path is a named pipe is
// refused by name; it was listed as a file, and the read's open of a pipe
// without a writer waited for one: a sync, and the watcher with it, hung
// for good.
func TestList_namedPipeSource(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "export.jsonl")
	pipes := novatest.Mkfifo(t, fifo)
	err := novatest.Returns(t, pipes, "List", func() error {
		_, err := List(config.Source{Name: "x", Kind: config.KindJSONL, Path: fifo})
		return err
	})
	if !errors.Is(err, ErrSourceNotFile) || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "named pipe") {
		t.Fatalf("a named pipe as a source: %v, want ErrSourceNotFile naming it", err)
	}
}
