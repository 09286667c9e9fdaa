//go:build !unix

package freshness

import (
	"errors"
	"os"
)

var errWouldBlock = errors.New("would block")

func lockExclusive(*os.File) error {
	return errors.New("the watcher lock is not supported on this platform")
}

func lockShared(*os.File) error {
	return errors.New("the watcher lock is not supported on this platform")
}

func unlockFile(*os.File) error { return nil }
