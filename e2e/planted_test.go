package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/internal/novatest"
)

// plantVictim writes a file of the user's that a symbolic link planted in
// the home points at, and returns a check that it is unchanged.
func plantVictim(t *testing.T, dir, link string) func() {
	t.Helper()
	novatest.Must(t, os.MkdirAll(dir, 0o700))
	victim := filepath.Join(dir, "authorized_keys")
	const content = "ssh-ed25519 AAAA the user's key\n"
	novatest.Must(t, os.WriteFile(victim, []byte(content), 0o600))
	novatest.Must(t, os.MkdirAll(filepath.Dir(link), 0o700))
	novatest.Must(t, os.Symlink(victim, link))
	return func() {
		t.Helper()
		if b, err := os.ReadFile(victim); err != nil || string(b) != content {
			t.Errorf("the file a planted link at %s points to was written through: %q (%v)", link, b, err)
		}
	}
}

// TestPlantedLockLinksAreNotWrittenThrough: a symbolic link planted at a
// lock file's path (while the home was open to others) must not make
// novad or novactl truncate and rewrite the file it points to; they
// refuse, and say which file.
func TestPlantedLockLinksAreNotWrittenThrough(t *testing.T) {
	h := novatest.NewHome(t, "")
	outside := t.TempDir()

	indexLock := filepath.Join(h.Dir, "index", "lock")
	unchanged := plantVictim(t, filepath.Join(outside, "sync"), indexLock)
	out, errs, code := h.Novactl("index", "sync")
	unchanged()
	if code == 0 || !strings.Contains(out+errs, indexLock) {
		t.Errorf("index sync with a link at its lock: exit %d, want a refusal naming %s:\n%s%s", code, indexLock, out, errs)
	}
	novatest.Must(t, os.Remove(indexLock))
	h.Sync()

	daemonLock := filepath.Join(h.Dir, "state", "novad.lock")
	unchanged = plantVictim(t, filepath.Join(outside, "novad"), daemonLock)
	d := h.Launch()
	exit := d.WaitExit(30 * time.Second)
	unchanged()
	if exit == 0 || !strings.Contains(d.Logs.String(), daemonLock) {
		t.Errorf("novad with a link at its lock: exit %d, want a refusal naming %s:\n%s", exit, daemonLock, d.Logs.String())
	}
}
