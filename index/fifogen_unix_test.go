//go:build unix

package index_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
)

// TestGenerationFileANamedPipe: a named pipe in place of a kept
// generation's candidate record or source states, or of history.jsonl,
// holds up nothing, and a generation with one is damaged, never rolled
// back to. Before, the read opened the pipe and waited for a
// writer: novactl index list, status, rollback and sync hung, and SIGTERM
// (which novactl catches to cancel) did not end them; novad's fallback to
// a kept generation hung alike.
func TestGenerationFileANamedPipe(t *testing.T) {
	for _, file := range []string{generation.FileCandidate, generation.FileSources, "history.jsonl"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			cfg, ix, runs := threeVersions(t, 0, index.Options{})
			path := filepath.Join(cfg.Home.Generation(runs[1]), file)
			if file == "history.jsonl" {
				path = cfg.Home.History()
			}
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			for _, op := range []struct {
				name string
				run  func() error
			}{
				{"list", func() error { _, err := ix.List(context.Background(), index.Quick); return err }},
				{"newest intact", func() error {
					_, _, err := index.NewestIntact(context.Background(), cfg.Home, cfg, index.Quick, runs[2])
					return err
				}},
				{"rollback", func() error {
					p, err := ix.Rollback(ctx, "")
					if err == nil && p.RunID == runs[1] && file != "history.jsonl" {
						t.Errorf("rollback made %s, whose %s is a named pipe, active", runs[1], file)
					}
					return err
				}},
				{"sync", func() error { syncVersion(t, ix, cfg.Sources[0].Path, 4); return nil }},
			} {
				done := make(chan error, 1)
				go func() { done <- op.run() }()
				select {
				case err := <-done:
					t.Logf("%s: %v", op.name, err)
				case <-time.After(10 * time.Second):
					t.Fatalf("%s waits on the named pipe at %s", op.name, path)
				}
			}
		})
	}
}
