//go:build !unix

package lockfile

import (
	"errors"
	"os"
)

// supported is whether this platform has the advisory locks.
const supported = false

const (
	exclusive = 1
	shared    = 2
)

var errUnsupported = errors.New("file locks are not supported on this platform")

func flock(*os.File, int) error { return errUnsupported }

func unlock(*os.File) error { return nil }

// alive cannot tell here, and says every process exists.
func alive(int) bool { return true }

// blockShared is never called here: without file locks there is nothing
// to block on, and a Waiter only waits its Every.
func blockShared(*os.File) bool { return false }
