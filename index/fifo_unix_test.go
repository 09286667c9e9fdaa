//go:build unix

package index_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestSync_fileReplacedByANamedPipe: a source file replaced by a named
// pipe between the listing and its read is reported as skipped, a named
// pipe, and the sync goes on with the other files. Before, the read's open
// of the pipe waited for a writer that never comes: the sync, and the
// watcher with it, hung for good.
func TestSync_fileReplacedByANamedPipe(t *testing.T) {
	for _, tc := range []struct {
		kind, name, content string
	}{
		{config.KindJSONL, "b.jsonl", jsonlLines(t, baseRecords()[3:]...)},
		{config.KindMarkdown, "b.md", "# Rollback plan\n\nRedeploy the previous image from the registry.\n"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "exports")
			keep := "a.jsonl"
			keepContent := jsonlLines(t, baseRecords()[:3]...)
			if tc.kind == config.KindMarkdown {
				keep, keepContent = "a.md", "# Dashboard\n\nThe dashboard port was taken by another service.\n"
			}
			writeFile(t, filepath.Join(src, keep), keepContent)
			b := filepath.Join(src, tc.name)
			writeFile(t, b, tc.content)
			cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: tc.kind, Path: src})
			var once sync.Once
			// The listing has seen b as a file; it becomes a pipe just
			// before its read.
			opts := index.FailOpens(index.Options{NoRemote: true, Now: newClock(epoch).Now}, func(path string) error {
				if path == b {
					once.Do(func() {
						if err := os.Remove(b); err != nil {
							t.Error(err)
						}
						if err := syscall.Mkfifo(b, 0o600); err != nil {
							t.Error(err)
						}
					})
				}
				return nil
			})
			type result struct {
				r   *index.SyncResult
				err error
			}
			res := novatest.Returns(t, novatest.Pipes{b}, "the sync", func() result {
				r, err := index.New(cfg, opts).Sync(t.Context())
				return result{r, err}
			})
			if res.err != nil {
				t.Fatal(res.err)
			}
			found := false
			for _, p := range res.r.Build.Problems {
				found = found || p.Path == b && strings.Contains(p.Reason, "named pipe")
			}
			if !found || res.r.Build.Records == 0 {
				t.Errorf("%d records, problems %+v: want %s's records and %s reported as a named pipe", res.r.Build.Records, res.r.Build.Problems, keep, b)
			}
		})
	}
}
