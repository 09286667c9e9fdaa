//go:build unix

package watch

import (
	"fmt"
	"io/fs"
	"syscall"
)

// inodeOf identifies a file across renames: a rotated transcript keeps its
// inode under a new name, a file rewritten through a temp file gets a new
// one at the same name.
func inodeOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

func openFilesLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	return int(min(rl.Cur, 1<<30))
}

func openFilesMessage() string {
	return fmt.Sprintf("the open file limit (%d) is reached; folders beyond it are rescanned instead of watched. Raise it (ulimit -n, or launchctl limit maxfiles on macOS) and restart the watcher", openFilesLimit())
}
