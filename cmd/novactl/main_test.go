package main

import (
	"os"
	"strings"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
)

// TestMain lets the tests below start this test binary as novactl: the
// shim's wiring of arguments, output and exit status is what they check.
// Run as novactl, it first drops the variable that made it so: novactl
// refuses NOVA_* variables that are not configuration keys.
func TestMain(m *testing.M) {
	novatest.MainOrTests(m, func() {
		os.Unsetenv(runMainEnv)
		main()
	})
}

// runMainEnv, set to 1, makes this test binary run as novactl
// (novatest.MainOrTests).
const runMainEnv = "NOVA_TEST_RUN_MAIN"

func TestShim(t *testing.T) {
	if out, code := novatest.RunSelf(t, "version"); code != 0 || !strings.HasPrefix(out, "novactl ") {
		t.Errorf("novactl version: exit %d, output %q", code, out)
	}
	if out, code := novatest.RunSelf(t, "no-such-command"); code != 2 {
		t.Errorf("novactl no-such-command: exit %d, want 2 (a usage error)\n%s", code, out)
	}
}
