//go:build unix

package paths

import (
	"io/fs"
	"os"
	"syscall"
)

// NoFollow, added to os.OpenFile's flags, makes the open fail on a
// symbolic link instead of following it: a link planted where Nova
// writes or reads one of its files must not send it elsewhere.
const NoFollow = syscall.O_NOFOLLOW

// NonBlock, added to os.OpenFile's flags, makes the open of a named pipe
// return at once instead of waiting for a writer (see ReadRegular).
const NonBlock = syscall.O_NONBLOCK

// OwnedByAnotherUser reports whether fi is known to be another user's
// (not the effective user Nova runs as).
func OwnedByAnotherUser(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) != os.Geteuid()
}

// ownedByRoot reports whether fi is root's.
func ownedByRoot(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Uid == 0
}

// HasOtherNames reports whether the file fi describes has more than one
// name (hard links).
func HasOtherNames(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1
}
