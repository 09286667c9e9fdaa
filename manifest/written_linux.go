//go:build linux

package manifest

import (
	"os"

	"golang.org/x/sys/unix"
)

// evictWritten asks the kernel to drop the page cache of f, a generation
// file just written and fsynced, so that its readers map pages read back
// from disk (the checksum check at open reads them in order). On the Linux
// VM of BENCHMARKS.md, searches over the pages a build had written stayed
// about a fifth slower than over the same bytes read back (1M chunks, p50
// 18-23 against 15-18 ms), and the builder has no use for them once they
// are on disk.
func evictWritten(f *os.File) {
	_ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED) // advice: a refusal costs only speed
}
