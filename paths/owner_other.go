//go:build !unix

package paths

import "io/fs"

// ownedByOther cannot tell on this platform, where Nova does not run as a
// service; nothing is refused for it.
func ownedByOther(fs.FileInfo) bool { return false }
