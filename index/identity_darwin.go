//go:build darwin

package index

import (
	"io/fs"
	"syscall"
)

// statBirthTime returns when the file stat'd as fi was created (Unix
// nanoseconds), 0 when its file system does not say.
func statBirthTime(_ string, fi fs.FileInfo) int64 {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	return st.Birthtimespec.Nano()
}

// changeTime returns the status change time of the file stat'd as fi
// (Unix nanoseconds): a change of its content, permissions or owner sets
// it, and nothing sets it back.
func changeTime(fi fs.FileInfo) int64 {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	return st.Ctimespec.Nano()
}
