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
