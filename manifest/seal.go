package manifest

import (
	"os"

	"github.com/nova-recall/nova/atomicfile"
)

// Seal ends the writing of a generation file: it fsyncs f, drops its pages
// from the page cache where that helps its readers (evictWritten), and
// makes it read-only, since a mapped file must never change under its
// readers (a truncated mapping faults). The caller closes f.
//
// The fsync is kept because the manifest (or a candidate record) names the
// file after it: a crash must never leave a manifest that names a file
// whose data was lost. It is an ordered one (atomicfile.SyncOrdered): the
// file is reachable only through a manifest written later, whose full
// sync flushes the drive's cache for it (on macOS, one F_FULLFSYNC for
// every file of a sync instead of one each).
func Seal(f *os.File) error {
	if err := atomicfile.SyncOrdered(f); err != nil {
		return err
	}
	evictWritten(f)
	return f.Chmod(0o400)
}
