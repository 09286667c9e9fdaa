//go:build unix

package paths

import (
	"io/fs"
	"os"
	"syscall"
)

// OwnedByAnotherUser reports whether fi is known to be another user's
// (not the effective user Nova runs as).
func OwnedByAnotherUser(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) != os.Geteuid()
}
