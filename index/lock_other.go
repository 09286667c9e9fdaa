//go:build !unix

package index

import (
	"errors"
	"os"
)

func tryLock(*os.File) error { return errors.New("index locking is not supported on this platform") }

func unlock(*os.File) error { return nil }
