//go:build !unix

package segment

// dropResident does nothing where the kernel takes no madvise advice.
func dropResident([]byte) {}
