//go:build unix

package paths

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByOther reports whether fi is known to be another user's.
func ownedByOther(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) != os.Geteuid()
}
