//go:build linux || darwin

package doctor

import (
	"errors"

	"golang.org/x/sys/unix"
)

// readOnlyVolume reports whether dir is on a read-only file system. It
// writes nothing: access(2) answers EROFS for such a volume, for root too.
func readOnlyVolume(dir string) bool {
	return errors.Is(unix.Access(dir, unix.W_OK), unix.EROFS)
}
