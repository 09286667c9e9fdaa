//go:build unix

package index

import (
	"io/fs"
	"syscall"
)

// deviceInode returns the device and inode of a file, which survive a
// rename and change when a file is replaced by another of the same name.
func deviceInode(fi fs.FileInfo) (uint64, uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino) //nolint:unconvert // Dev is int32 on darwin
	}
	return 0, 0
}
