//go:build !unix

package manifest

// DropResident does nothing where the kernel takes no madvise advice.
func DropResident([]byte) {}
