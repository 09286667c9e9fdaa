//go:build !unix

package watch

import "io/fs"

func inodeOf(fs.FileInfo) uint64 { return 0 }

func openFilesLimit() int { return 0 }

func openFilesMessage() string {
	return "the open file limit is reached; folders beyond it are rescanned instead of watched"
}
