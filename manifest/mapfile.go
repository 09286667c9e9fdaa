package manifest

import (
	"context"
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
// A cancelled ctx stops the checksum's reading with ctx's error.
func MapFile(ctx context.Context, path string, want FileSum, verify bool, corrupt error) (mmap.MMap, error) {
	// NonBlock: a named pipe in place of the file would otherwise block
	// the open, and every reader of the generation with it; CheckOpen
	// then refuses what is not a regular file.
	f, err := os.OpenFile(path, os.O_RDONLY|paths.NonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := CheckOpen(ctx, f, want, verify, corrupt); err != nil {
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
// The checksum's reading stops, with ctx's error (not corrupt: nothing
// was found wrong with the file), once ctx is done: on a slow disk a
// large file takes seconds, and an interrupted command must not wait.
func CheckOpen(ctx context.Context, f *os.File, want FileSum, verify bool, corrupt error) error {
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
	if err := ctx.Err(); err != nil {
		return err
	}
	h := NewHasher()
	for {
		// ctx is checked every few MB: often enough to stop within a
		// moment even on a slow disk, seldom enough to cost nothing.
		_, err := io.CopyN(h, f, checkEvery)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if got := h.Sum(); got != want {
		return fmt.Errorf("%w: checksum %s…, manifest says %s…", corrupt, got.XXH3[:12], want.XXH3[:min(12, len(want.XXH3))])
	}
	return nil
}

// checkEvery is how many bytes CheckOpen hashes between looks at its
// context.
const checkEvery = 4 << 20
