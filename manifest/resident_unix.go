//go:build unix

package manifest

import "golang.org/x/sys/unix"

// DropResident releases this process's hold on b's pages, which stay in
// the page cache: what a caller that had to read a whole mapping once (to
// validate it) does so that the pages do not count as the process's
// memory. b must be a read-only file mapping from MapFile: advice to drop
// the pages of anonymous memory would zero it.
func DropResident(b []byte) {
	if len(b) > 0 {
		_ = unix.Madvise(b, unix.MADV_DONTNEED) // advice: a refusal costs only memory
	}
}
