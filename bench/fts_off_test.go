//go:build !fts5

package bench

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestFTS5NotCompiled: without -tags fts5 the FTS5 baseline is not a
// default system, and asking for it says why and which target builds it,
// before any work is done.
func TestFTS5NotCompiled(t *testing.T) {
	if slices.Contains(DefaultSystems, SystemFTS5) {
		t.Fatalf("default systems %v include fts5 without the tag", DefaultSystems)
	}
	dir := t.TempDir()
	_, err := Run(context.Background(), Options{Sizes: []int{10}, Systems: []string{SystemNova, SystemFTS5}, Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "not compiled into this binary") || !strings.Contains(err.Error(), "make bench-build") {
		t.Fatalf("err %v, want the FTS5 baseline named as not compiled in, with the make target", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the refused run wrote %v", entries)
	}
}
