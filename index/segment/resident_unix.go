//go:build unix

package segment

import "golang.org/x/sys/unix"

// dropResident releases this process's hold on b's pages. Opening a
// segment validates every term's block table and the facet columns
// through the mapping, which would otherwise leave most of the file
// resident in novad (and counted in its memory) though searches touch a
// small part of it. The pages stay in the page cache: a later read maps
// them back without touching the disk. b must be a read-only mapping.
func dropResident(b []byte) {
	if len(b) > 0 {
		_ = unix.Madvise(b, unix.MADV_DONTNEED) // advice: a refusal costs only memory
	}
}
