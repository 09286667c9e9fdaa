//go:build linux || darwin

package doctor

import (
	"os"
	"strings"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
)

// TestConfigUnreadable: a config.yaml its user cannot read is Blocked
// with advice that makes it readable; the advice was "novactl config
// check lists every field", which lists the same "permission denied".
// Root reads any file, so this runs only as another user.
func TestConfigUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root opens files whatever their mode")
	}
	f := newFixture(t)
	novatest.Must(t, os.Chmod(f.home.Config(), 0o000))
	t.Cleanup(func() { _ = os.Chmod(f.home.Config(), 0o600) })
	c := want(t, f.run(Options{}), "config", Blocked, CodeConfigInvalid)
	if !strings.Contains(c.Advice, "chmod u+r "+f.home.Config()) || strings.Contains(c.Advice, "lists every field") {
		t.Errorf("unreadable config.yaml: %+v", c)
	}
}
