package doctor

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
	if runtime.GOOS != "linux" || os.Getuid() != 0 {
		t.Skip("a read-only mount needs root on Linux")
	}
	f := newFixture(t)
	m := f.sync()
	tok, err := secrets.Generate()
	novatest.Must(t, err)
	novatest.Must(t, secrets.WriteToken(f.home.TokenFile(), tok))
	h := healthy(m.RunID, m.ChunkCount)
	h.InternalEncodeAuthorized = false
	f.serve(h)

	mnt := t.TempDir()
	if out, err := exec.Command("mount", "--bind", f.home.Root, mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot bind-mount: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", mnt).Run() })
	if out, err := exec.Command("mount", "-o", "remount,bind,ro", mnt).CombinedOutput(); err != nil {
		t.Fatalf("remount read-only: %v: %s", err, out)
	}
	f.environ = []string{"HOME=" + filepath.Dir(f.home.Root), "NOVA_HOME=" + mnt}
	c := want(t, f.run(Options{}), "token", Degraded, CodeAuthUnavailable)
	if !strings.Contains(c.Message, "read-only") || !strings.Contains(c.Advice, "writable") || strings.Contains(c.Advice, "rewrite it") {
		t.Errorf("token on a read-only home: %+v", c)
	}
}
