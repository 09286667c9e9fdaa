//go:build darwin

package ingest

import (
	"io/fs"
	"syscall"
)

// sfDataless is SF_DATALESS of <sys/stat.h>: st_flags has it on a file
// whose content a File Provider (iCloud Drive from macOS Sonoma on,
// Dropbox, Google Drive, OneDrive in ~/Library/CloudStorage) keeps only
// in the cloud. The syscall package does not name it.
const sfDataless = 0x40000000

// statDataless reports whether fi, of a stat or an lstat, has the
// SF_DATALESS flag.
func statDataless(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Flags&sfDataless != 0
}
