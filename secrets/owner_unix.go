//go:build unix

package secrets

import (
	"io/fs"
	"os"
	"syscall"
)

// noFollow makes open fail on a symlink instead of following it.
const noFollow = syscall.O_NOFOLLOW

func ownedByUs(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
