//go:build linux

package index

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// statBirthTime returns when the file at path, stat'd as fi, was created
// (Unix nanoseconds), 0 when its file system does not say: statx gives it
// on ext4, xfs, btrfs and tmpfs, not on every file system (overlayfs over
// some, network ones). A birth time read from a file put at path after fi
// was taken is not fi's, and is not returned.
func statBirthTime(path string, fi fs.FileInfo) int64 {
	var stx unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, unix.AT_STATX_SYNC_AS_STAT, unix.STATX_INO|unix.STATX_BTIME, &stx); err != nil ||
		stx.Mask&unix.STATX_BTIME == 0 {
		return 0
	}
	if dev, ino := deviceInode(fi); ino != stx.Ino || dev != unix.Mkdev(stx.Dev_major, stx.Dev_minor) {
		return 0
	}
	return stx.Btime.Sec*1e9 + int64(stx.Btime.Nsec)
}

// changeTime returns the status change time of the file stat'd as fi
// (Unix nanoseconds): a change of its content, permissions or owner sets
// it, and nothing sets it back.
func changeTime(fi fs.FileInfo) int64 {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	return st.Ctim.Nano()
}
