//go:build !unix

package paths

import "io/fs"

// NoFollow is 0 where open has no O_NOFOLLOW: callers that must not
// follow a link also check with Lstat.
const NoFollow = 0

// NonBlock is 0 where open has no O_NONBLOCK: Nova's files there are not
// named pipes.
const NonBlock = 0

// OwnedByAnotherUser reports whether fi is known to be another user's. It
// cannot tell on this platform, where Nova does not run as a
// service; nothing is refused for it.
func OwnedByAnotherUser(fs.FileInfo) bool { return false }

// ownedByRoot cannot tell on this platform either.
func ownedByRoot(fs.FileInfo) bool { return false }

// writableByOthers cannot tell on this platform either.
func writableByOthers(fs.FileInfo) bool { return false }

// HasOtherNames cannot tell on this platform.
func HasOtherNames(fs.FileInfo) bool { return false }
