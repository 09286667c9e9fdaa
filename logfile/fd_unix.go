//go:build unix

package logfile

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// replaceFD makes to's descriptor refer to from's open file, so every
// write to to (os.Stderr, the runtime's crash output) goes to from.
func replaceFD(from, to *os.File) error {
	return unix.Dup2(int(from.Fd()), int(to.Fd()))
}

// ownedByUser reports whether this process's user owns fi's file.
func ownedByUser(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
