package doctor

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/secrets"
)

// TestReadOnlyHomeToken: novad serves a home on a read-only volume but
// could not publish its token there (the file holds the previous run's).
// doctor says why and what to do, instead of "restart novad to rewrite
// it", which cannot help; search is served, so it is not Blocked.
func TestReadOnlyHomeToken(t *testing.T) {
	f := newFixture(t)
	m := f.sync()
	tok, err := secrets.Generate()
	novatest.Must(t, err)
	novatest.Must(t, secrets.WriteToken(f.home.TokenFile(), tok))
	h := healthy(m.RunID, m.ChunkCount)
	h.InternalEncodeAuthorized = false
	f.serve(h)

	mnt := novatest.ReadOnlyMount(t, f.home.Root)
	f.environ = []string{"HOME=" + filepath.Dir(f.home.Root), "NOVA_HOME=" + mnt}
	c := want(t, f.run(Options{}), "token", Degraded, CodeAuthUnavailable)
	if !strings.Contains(c.Message, "read-only") || !strings.Contains(c.Advice, "writable") || strings.Contains(c.Advice, "rewrite it") {
		t.Errorf("token on a read-only home: %+v", c)
	}
}

// TestFullDiskToken: novad serves, but a full disk kept it from writing
// its internal token (it removes the previous run's, which no longer
// matches). doctor said "restart novad to rewrite it", which on a disk
// still full cannot help, and which is not needed once there is room:
// novad writes the missing file again by itself. It now says the disk
// has no room and to free space; search is served, so it is not Blocked.
// With room on the disk, a missing token still asks for a restart.
func TestFullDiskToken(t *testing.T) {
	f := newFixture(t)
	m := f.sync()
	h := healthy(m.RunID, m.ChunkCount)
	h.InternalEncodeAuthorized = false
	f.serve(h)
	room := func(n uint64) func(string) (uint64, error) {
		return func(string) (uint64, error) { return n, nil }
	}
	c := want(t, f.run(Options{FreeSpace: room(4 << 10)}), "token", Degraded, CodeAuthUnavailable)
	if !strings.Contains(c.Message, "no room") || !strings.Contains(c.Advice, "free space") ||
		!strings.Contains(c.Advice, "by itself") || strings.Contains(c.Advice, "restart") {
		t.Errorf("token missing on a full disk: %+v", c)
	}
	c = want(t, f.run(Options{FreeSpace: room(1 << 40)}), "token", Blocked, CodeAuthUnavailable)
	if !strings.Contains(c.Advice, "restart novad") {
		t.Errorf("token missing with room on the disk: %+v", c)
	}
}
