package manifest

import (
	"fmt"
	"io"
	"os"

	"github.com/edsrzf/mmap-go"
)

// MapFile maps path, a file this manifest's generation lists, read-only
// after checking it against want: its size always, so that a file cut
// short is never mapped (reading past its end would kill the process with
// SIGBUS), and its checksum when verify. A mismatch wraps corrupt, the
// caller's own error, so each caller's errors.Is keeps working. The caller
// unmaps the mapping (empty for an empty file) when nothing reads it.
func MapFile(path string, want FileSum, verify bool, corrupt error) (mmap.MMap, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: not a regular file", corrupt)
	}
	if fi.Size() != want.Size {
		return nil, fmt.Errorf("%w: size %d, manifest says %d", corrupt, fi.Size(), want.Size)
	}
	if verify {
		// Read, not mapped: hashing through the mapping would make every
		// page of the file resident in this process.
		h := NewHasher()
		if _, err := io.Copy(h, f); err != nil {
			return nil, err
		}
		if got := h.Sum(); got != want {
			return nil, fmt.Errorf("%w: checksum %s, manifest says %s", corrupt, got.XXH3[:12], want.XXH3[:min(12, len(want.XXH3))])
		}
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
