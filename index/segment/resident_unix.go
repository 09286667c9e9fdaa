//go:build unix

package segment

import "golang.org/x/sys/unix"

// dropResident releases this process's hold on b's pages (see
// Reader.ReleaseResident). b must be a read-only file mapping: advice
// to drop the pages of anonymous memory would zero it.
func dropResident(b []byte) {
	if len(b) > 0 {
		_ = unix.Madvise(b, unix.MADV_DONTNEED) // advice: a refusal costs only memory
	}
}
