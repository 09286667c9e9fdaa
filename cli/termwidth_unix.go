//go:build unix

package cli

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// termWidth returns the width in columns of the terminal w writes to, or
// 0 when w is not a terminal or its width is unknown.
func termWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	raw, err := f.SyscallConn() // not f.Fd(), which makes f blocking
	if err != nil {
		return 0
	}
	cols := 0
	_ = raw.Control(func(fd uintptr) {
		if ws, err := unix.IoctlGetWinsize(int(fd), unix.TIOCGWINSZ); err == nil {
			cols = int(ws.Col)
		}
	})
	return cols
}
