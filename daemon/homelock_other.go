//go:build !unix

package daemon

import "errors"

// lockReadOnly is unsupported where flock is: a read-only home cannot be
// locked there.
func lockReadOnly(string) (releaser, error) {
	return nil, errors.New("file locks are not supported on this platform")
}
