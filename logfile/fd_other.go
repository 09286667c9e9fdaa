//go:build !unix

package logfile

import (
	"errors"
	"os"
)

// replaceFD is not supported where there is no dup2.
func replaceFD(from, to *os.File) error {
	return errors.New("cannot replace a file descriptor on this system")
}

// ownedByUser is false where ownership is not a user id: the file is
// then left alone.
func ownedByUser(os.FileInfo) bool { return false }
