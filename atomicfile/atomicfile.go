// Package atomicfile replaces files so that a reader, or a crash at any
// point, sees either the old content or the new, never a mix: a temporary
// file in the same directory, an explicit mode, fsync, rename over the
// path, fsync of the directory (a report may skip the fsyncs: Unsynced).
// It never writes through a symbolic link.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrSymlink is returned when the path to replace is a symbolic link: a
// rename would replace the link, and following it would write wherever it
// points, so neither is done unless the caller owns the directory and asks
// for the link to be replaced (ReplaceSymlink).
var ErrSymlink = errors.New("is a symbolic link; refusing to write through it")

// Step names a durability boundary of a write, in the order they happen.
type Step string

// Steps reported to a Hook.
const (
	// StepTempWritten: the temporary file holds the data, not yet synced.
	StepTempWritten Step = "temp-written"
	// StepTempSynced: the temporary file is on disk, not yet renamed.
	StepTempSynced Step = "temp-synced"
	// StepRenamed: the path names the new file; the directory entry is
	// not yet synced.
	StepRenamed Step = "renamed"
)

// Option changes how Write and WriteFunc work.
type Option func(*options)

type options struct {
	hook           func(Step)
	replaceSymlink bool
	check          func(fs.FileInfo) error
	unsynced       bool
	ordered        bool
}

// WithHook calls hook after each Step. Crash tests kill the writer there;
// production passes no hook.
func WithHook(hook func(Step)) Option {
	return func(o *options) { o.hook = hook }
}

// ReplaceSymlink replaces a symbolic link found at the path (the link, not
// its target) instead of refusing. Only for files in a directory the
// caller owns, where a planted link is an attack to undo, not a user's
// choice to respect.
func ReplaceSymlink() Option {
	return func(o *options) { o.replaceSymlink = true }
}

// Unsynced skips both fsyncs, for a report rewritten every few seconds
// whose loss in a power failure does no harm (its next write restores it):
// readers still never see a half-written file, but after a power failure
// it may be old or empty. Each fsync is a cache flush of the drive on
// macOS (F_FULLFSYNC), and the watcher rewrote its state with two of them
// two or three times a sync.
func Unsynced() Option {
	return func(o *options) { o.unsynced = true }
}

// Ordered syncs with SyncOrdered and SyncDirOrdered: for a file that is
// reachable only through a later full sync (a candidate's record, which
// the manifest names after its own F_FULLFSYNC). The rename still never
// publishes a file whose data is not on the drive.
func Ordered() Option {
	return func(o *options) { o.ordered = true }
}

// WithCheck calls check with the synced temporary file's information
// before it is published; an error abandons the write.
func WithCheck(check func(fs.FileInfo) error) Option {
	return func(o *options) { o.check = check }
}

// Write replaces path with data, mode perm.
func Write(path string, data []byte, perm fs.FileMode, opts ...Option) error {
	return WriteFunc(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, opts...)
}

// WriteFunc replaces path with what write writes, mode perm. It streams,
// for files too large to hold in memory twice.
func WriteFunc(path string, perm fs.FileMode, write func(io.Writer) error, opts ...Option) error {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	hook := o.hook
	if hook == nil {
		hook = func(Step) {}
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 && !o.replaceSymlink {
		return fmt.Errorf("write %s: %w", path, ErrSymlink)
	}
	dir := filepath.Dir(path)
	// CreateTemp opens with O_EXCL and mode 0600: nothing else can have
	// the temporary file open, and it is private until chmod below.
	f, err := os.CreateTemp(dir, tempPrefix(path)+"*"+tempSuffix)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return WriteError(path, tmp, err)
	}
	// The umask of a service manager is not ours to trust: set the mode
	// explicitly.
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if err := write(f); err != nil {
		return fail(err)
	}
	hook(StepTempWritten)
	sync, syncDirectory := (*os.File).Sync, SyncDir
	if o.ordered {
		sync, syncDirectory = syncOrdered, SyncDirOrdered
	}
	if !o.unsynced {
		if err := sync(f); err != nil {
			// After a failed fsync the page cache may have dropped the
			// data; never retry on the same descriptor (fsyncgate).
			return fail(err)
		}
		hook(StepTempSynced)
	}
	if o.check != nil {
		fi, err := f.Stat()
		if err != nil {
			return fail(err)
		}
		if err := o.check(fi); err != nil {
			return fail(err)
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return WriteError(path, tmp, err)
	}
	// A rename replaces a link planted since the check above; it never
	// follows one.
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	hook(StepRenamed)
	if o.unsynced {
		return nil
	}
	return syncDirectory(dir)
}

// WriteError is the error of a write of path that failed on file: path's
// temporary file (WriteFunc's), or path itself, written in place (index
// segments' files). It names path and the cause once, not file as well:
// a temporary file is removed by then and would send whoever reads it
// looking for a file that is gone ("write f: write .f.123.tmp: no space
// left on device"), and path itself would be named twice. Another step
// than the write keeps its name ("write f: sync: …"). It is a
// *fs.PathError, as the error of file was, so errors.Is still finds the
// errno (ENOSPC, EFBIG) that says what ran out.
func WriteError(path, file string, err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok && pe.Path == file {
		err = pe.Err
		if pe.Op != "write" {
			err = fmt.Errorf("%s: %w", pe.Op, pe.Err)
		}
	}
	return &fs.PathError{Op: "write", Path: path, Err: err}
}

// Remove deletes path and syncs its directory, so that the removal
// survives a crash.
func Remove(path string) error {
	if err := os.Remove(path); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// SyncDir fsyncs a directory so that a rename or removal in it survives a
// crash. A file system that cannot sync a directory is not an error.
func SyncDir(dir string) error {
	return syncDir(dir, (*os.File).Sync)
}

// SyncOrdered fsyncs f for a file that is durable only once a later full
// sync (Write, SyncDir) is done: a generation's files, which the manifest
// written after them makes reachable. On Linux it is f.Sync. On macOS it
// is a plain fsync without F_FULLFSYNC: the data reaches the drive, and
// the F_FULLFSYNC of the manifest's write flushes the drive's cache for
// every file synced before it, so a sync that writes a dozen files pays
// for one or two cache flushes instead of one each.
func SyncOrdered(f *os.File) error { return syncOrdered(f) }

// SyncDirOrdered is SyncDir with the ordering of SyncOrdered: for a
// directory whose entries matter only once a later full sync is done.
func SyncDirOrdered(dir string) error { return syncDir(dir, syncOrdered) }

func syncDir(dir string, sync func(*os.File) error) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := sync(d); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

const tempSuffix = ".tmp"

// tempPrefix is the name start of path's temporary files: hidden, and
// named for the file they will replace.
func tempPrefix(path string) string { return "." + filepath.Base(path) + "." }

// RemoveTemps removes the temporary files a writer of path left behind
// when it was killed before its rename.
func RemoveTemps(path string) {
	pattern := filepath.Join(filepath.Dir(path), globEscape(tempPrefix(path))+"*"+tempSuffix)
	matches, _ := filepath.Glob(pattern)
	for _, m := range matches {
		os.Remove(m)
	}
}

func globEscape(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', '\\':
			out = append(out, '\\')
		}
		out = append(out, s[i])
	}
	return string(out)
}
