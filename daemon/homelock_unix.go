//go:build unix

package daemon

import (
	"errors"
	"os"
	"syscall"

	"github.com/nova-recall/nova/lockfile"
)

// lockReadOnly takes the exclusive lock of an existing lock file on a
// read-only file system, where lockfile.Acquire cannot open it for
// writing: flock needs no write access, and clients test the lock the same
// way (lockfile.Held). The holder record cannot be written, so the file
// keeps the last writable run's.
func lockReadOnly(path string) (releaser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &lockfile.HeldError{Path: path}
		}
		return nil, err
	}
	return readOnlyLock{f}, nil
}

type readOnlyLock struct{ f *os.File }

func (l readOnlyLock) Release() {
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.f.Close()
}
