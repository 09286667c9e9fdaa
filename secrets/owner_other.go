//go:build !unix

package secrets

import "io/fs"

// ownedByUs cannot be checked on this platform; Nova targets macOS and Linux.
func ownedByUs(fs.FileInfo) bool { return false }
