package main

import (
	"strings"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
)

// TestMain lets the tests below start this test binary as novactl: the
// shim's wiring of arguments, output and exit status is what they check.
func TestMain(m *testing.M) { novatest.MainOrTests(m, main) }

func TestShim(t *testing.T) {
	if out, code := novatest.RunSelf(t, "version"); code != 0 || !strings.HasPrefix(out, "novactl ") {
		t.Errorf("novactl version: exit %d, output %q", code, out)
	}
	if out, code := novatest.RunSelf(t, "no-such-command"); code != 2 {
		t.Errorf("novactl no-such-command: exit %d, want 2 (a usage error)\n%s", code, out)
	}
}
