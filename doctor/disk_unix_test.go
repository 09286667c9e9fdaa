//go:build linux || darwin

package doctor

import (
	"path/filepath"
	"testing"
)

// TestVolumeFree_homeNotYetMade: before the first sync NOVA_HOME may not
// exist yet, and its volume is where that sync writes. volumeFree asked
// the file system about the home itself, failed, and doctor had no disk
// check at all for a user about to index onto a nearly full disk; it now
// asks about the nearest folder that exists.
func TestVolumeFree_homeNotYetMade(t *testing.T) {
	dir := t.TempDir()
	want, err := volumeFree(dir)
	if err != nil {
		t.Fatalf("volumeFree(%s): %v", dir, err)
	}
	got, err := volumeFree(filepath.Join(dir, "not", "yet", "nova"))
	if err != nil {
		t.Fatalf("volumeFree of a home not yet made: %v, want its volume's free space", err)
	}
	// The same volume, measured a moment apart: other writers may differ.
	if diff := max(got, want) - min(got, want); diff > 64<<20 {
		t.Errorf("volumeFree of a home not yet made: %d, want about %d (its parent's volume)", got, want)
	}
}
