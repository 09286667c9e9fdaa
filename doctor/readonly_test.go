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
