//go:build unix

package lockfile

import (
	"errors"
	"os"
	"syscall"
)

// supported is whether this platform has the advisory locks.
const supported = true

const (
	exclusive = syscall.LOCK_EX
	shared    = syscall.LOCK_SH
)

// flock takes f's lock of kind how without waiting: ErrHeld when another
// process's lock is in the way.
func flock(f *os.File, how int) error {
	err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrHeld
	}
	return err
}

func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// alive reports whether a process with this pid exists (one of another
// user's answers EPERM, and exists).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
