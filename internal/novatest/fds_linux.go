package novatest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// OpenFDs returns this process's open descriptors (/proc/self/fd), each
// number with what it refers to: a path, "socket:[N]",
// "anon_inode:inotify". Leak tests count them.
func OpenFDs(t testing.TB) map[string]string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	Must(t, err)
	fds := make(map[string]string, len(ents))
	for _, e := range ents {
		// The descriptor ReadDir itself held is closed by now: skipped.
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil {
			fds[e.Name()] = l
		}
	}
	return fds
}

// Sockets counts the sockets among fds (see OpenFDs).
func Sockets(fds map[string]string) int {
	n := 0
	for _, l := range fds {
		if strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}
