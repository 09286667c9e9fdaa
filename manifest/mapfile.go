package manifest

import (
	"fmt"
	"io"
	"os"

	"github.com/edsrzf/mmap-go"

	"github.com/nova-recall/nova/paths"
)

// MapFile maps path, a file this manifest's generation lists, read-only
// after checking it against want: its size always, so that a file cut
// short is never mapped (reading past its end would kill the process with
// SIGBUS), and its checksum when verify. A mismatch wraps corrupt, the
// caller's own error, so each caller's errors.Is keeps working. The caller
// unmaps the mapping (empty for an empty file) when nothing reads it.
func MapFile(path string, want FileSum, verify bool, corrupt error) (mmap.MMap, error) {
	// NonBlock: a named pipe in place of the file would otherwise block
	// the open, and every reader of the generation with it; CheckOpen
	// then refuses what is not a regular file.
	f, err := os.OpenFile(path, os.O_RDONLY|paths.NonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := CheckOpen(f, want, verify, corrupt); err != nil {
		return nil, err
	}
	if want.Size == 0 {
		return mmap.MMap{}, nil
	}
	m, err := mmap.Map(f, mmap.RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("map: %w", err)
	}
	return m, nil
}

// CheckOpen checks f, open at its start, against want: a regular file of
// want's size and, when verify, want's checksum (read, not mapped:
// hashing through a mapping would make every page of the file resident
// in this process). A mismatch wraps corrupt. Checking the open file
// rather than its path means the file checked is the file then read.
func CheckOpen(f *os.File, want FileSum, verify bool, corrupt error) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: not a regular file", corrupt)
	}
	if fi.Size() != want.Size {
		return fmt.Errorf("%w: size %d, manifest says %d", corrupt, fi.Size(), want.Size)
	}
	if !verify {
		return nil
	}
	h := NewHasher()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := h.Sum(); got != want {
		return fmt.Errorf("%w: checksum %s…, manifest says %s…", corrupt, got.XXH3[:12], want.XXH3[:min(12, len(want.XXH3))])
	}
	return nil
}
