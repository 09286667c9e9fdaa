package manifest

import "os"

// Seal ends the writing of a generation file: it fsyncs f, drops its pages
// from the page cache where that helps its readers (evictWritten), and
// makes it read-only, since a mapped file must never change under its
// readers (a truncated mapping faults). The caller closes f.
func Seal(f *os.File) error {
	if err := f.Sync(); err != nil {
		return err
	}
	evictWritten(f)
	return f.Chmod(0o400)
}
