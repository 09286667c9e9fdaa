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

// writableByOthers reports whether fi, a directory, lets users other
// than Nova's rename or replace its entries: it is writable by others, or
// by a group other than Nova's own, and has no sticky bit (which, as on
// /tmp, keeps each entry to its owner). The user's own group is allowed:
// where umask 002 leaves directories group-writable, it is the user's
// private group.
func writableByOthers(fi fs.FileInfo) bool {
	m := fi.Mode()
	if m&fs.ModeSticky != 0 {
		return false
	}
	if m.Perm()&0o002 != 0 {
		return true
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && m.Perm()&0o020 != 0 && int(st.Gid) != os.Getegid()
}

// HasOtherNames reports whether the file fi describes has more than one
// name (hard links).
func HasOtherNames(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1
}
