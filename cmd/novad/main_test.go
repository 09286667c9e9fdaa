package main

import (
	"strings"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
)

// TestMain lets the tests below start this test binary as novad: the
// shim's wiring of arguments, output and exit status is what they check.
func TestMain(m *testing.M) { novatest.MainOrTests(m, main) }

func TestShim(t *testing.T) {
	if out, code := novatest.RunSelf(t, "--version"); code != 0 || !strings.HasPrefix(out, "novad ") {
		t.Errorf("novad --version: exit %d, output %q", code, out)
	}
	if out, code := novatest.RunSelf(t, "--no-such-flag"); code != 2 {
		t.Errorf("novad --no-such-flag: exit %d, want 2 (a usage error)\n%s", code, out)
	}
}
