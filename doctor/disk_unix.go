//go:build linux || darwin

package doctor

import (
	"errors"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// volumeFree is the space an unprivileged user may still write on the
// volume that holds path. A path not made yet (a home before its first
// sync) is measured at the nearest folder above it that exists: the
// volume the first sync will write to.
func volumeFree(path string) (uint64, error) {
	var st unix.Statfs_t
	err := unix.Statfs(path, &st)
	for errors.Is(err, unix.ENOENT) && filepath.Dir(path) != path {
		path = filepath.Dir(path)
		err = unix.Statfs(path, &st)
	}
	if err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}
