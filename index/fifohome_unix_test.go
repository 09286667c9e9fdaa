//go:build unix

package index

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// TestHomeFileANamedPipe: a named pipe in place of a file Nova keeps
// under NOVA_HOME (index/lost.json, novad's state file, an embedding
// cache, a generation's mapped model, a segment's segment.json) is
// refused at once. Before, each read opened the pipe and waited for a
// writer: novactl doctor, index sync and status hung, and SIGTERM (which
// novactl catches to cancel) did not end them.
func TestHomeFileANamedPipe(t *testing.T) {
	for _, tc := range []struct {
		name string
		path func(home paths.Home) string
		run  func(t *testing.T, home paths.Home, path string) error
		// refused reports whether err is the refusal wanted; nil: any
		// return is enough (the read's caller treats failure as absence).
		refused func(err error) bool
	}{
		{"lost.json", lostFile, func(t *testing.T, home paths.Home, _ string) error {
			_, err := ReadLost(home)
			return err
		}, isNotFile},
		{"server state", paths.Home.ServerState, func(t *testing.T, home paths.Home, _ string) error {
			novatest.HoldNovadLock(t, home)
			enc, err := discoverEncoder(t.Context(), home, api.EmbeddingProfile{Provider: "openai", Model: "m", Dimension: 8})
			if enc != nil {
				t.Errorf("a named pipe for a state file gave encoder %v", enc)
			}
			return err
		}, nil},
		{"embedding cache", func(home paths.Home) string { return filepath.Join(home.EmbeddingCache(), "h.vec") }, func(t *testing.T, home paths.Home, _ string) error {
			c, err := embedding.OpenCache(home.EmbeddingCache(), "h", 8)
			if err != nil {
				return err
			}
			c.Put(embedding.KeyOf("text"), make([]float32, 8))
			return c.Flush()
		}, isNotFile},
		{"mapped model", func(home paths.Home) string { return filepath.Join(home.IndexDir(), generation.FileModel) }, func(_ *testing.T, _ paths.Home, path string) error {
			_, err := manifest.MapFile(context.Background(), path, manifest.FileSum{Size: 1}, false, generation.ErrCorrupt)
			return err
		}, func(err error) bool { return errors.Is(err, generation.ErrCorrupt) }},
		{"segment.json", func(home paths.Home) string { return filepath.Join(home.IndexDir(), segment.FileMeta) }, func(t *testing.T, home paths.Home, _ string) error {
			_, err := segment.ReadAnalyzer(home.IndexDir())
			return err
		}, isNotFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := paths.Home{Root: t.TempDir()}
			path := tc.path(home)
			novatest.Must(t, paths.MkdirPrivate(filepath.Dir(path)))
			pipes := novatest.Mkfifo(t, path)
			err := novatest.Returns(t, pipes, tc.name+"'s read", func() error { return tc.run(t, home, path) })
			t.Logf("%s: %v", tc.name, err)
			if tc.refused != nil && !tc.refused(err) {
				t.Errorf("%s: err %v, want it refused as not a file", tc.name, err)
			}
		})
	}
}

func isNotFile(err error) bool {
	_, ok := errors.AsType[*paths.NotFileError](err)
	return ok
}
