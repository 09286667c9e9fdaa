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

// blockShared waits until f's shared lock can be taken, then lets it go
// at once: it returns true when no process holds the exclusive lock any
// more, false when the lock cannot be waited for.
// The descriptor is held for the call (Control), so that a Close
// meanwhile cannot give its number to another file.
func blockShared(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	_ = rc.Control(func(fd uintptr) {
		for {
			err := syscall.Flock(int(fd), syscall.LOCK_SH)
			if err == nil {
				_ = syscall.Flock(int(fd), syscall.LOCK_UN)
				ok = true
				return
			}
			if !errors.Is(err, syscall.EINTR) {
				return
			}
		}
	})
	return ok
}
