//go:build linux || darwin

package doctor

import "golang.org/x/sys/unix"

// volumeFree is the space an unprivileged user may still write on the
// volume that holds path.
func volumeFree(path string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}
