//go:build !fts5

package cli

import (
	"strings"
	"testing"
)

// TestBenchFTS5NotCompiled: the shipped novactl has no SQLite; asking for
// the FTS5 baseline is a usage error that names the make target, and the
// default run says the baseline is left out.
func TestBenchFTS5NotCompiled(t *testing.T) {
	code, _, stderr := benchCLI("--sizes", "10", "--systems", "nova,fts5", "--no-daemon")
	if code != ExitUsage || !strings.Contains(stderr, "not compiled into this binary") || !strings.Contains(stderr, "make bench-build") {
		t.Fatalf("code %d, want %d naming make bench-build:\n%s", code, ExitUsage, stderr)
	}
}
