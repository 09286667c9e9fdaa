// Package logfile keeps the log file a service manager gives a Nova
// process private and bounded. launchd (Nova's LaunchAgent and Homebrew's
// service) appends a job's stdout and stderr to a file it creates with the
// default mode (0644, readable by every user: in a shared Homebrew prefix
// too), and nothing rotates it: a service that runs for months grows it
// for ever. Logs may name paths and sources, so they are the user's alone.
//
// The process is the file's only writer, so it keeps the file itself,
// needing no root and no newsyslog entry, which Homebrew's service could
// not install: at start it makes the file 0600, and whenever the file
// passes a size limit it moves it to <file>.1 (replacing the one before)
// and continues in a new, private <file>, which it puts in place of its
// stderr (and its stdout, when that is the same file), so that what the
// Go runtime writes there (a crash) lands in the current file too. A
// rotation that fails (a full disk) is tried again after a back-off, and
// the file is emptied past twice the limit meanwhile, so it stays bounded.
//
// A service definition names the file with the --log-file flag (Flag): the
// path launchd sends the job's stderr to. The process acts on it only when
// its stderr is that very file, a regular file this user owns.
package logfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// Flag is the command-line flag (novad, novactl index watch) that names
// the file the service manager sends the process's stderr to.
const Flag = "log-file"

// FlagUsage is Flag's help text.
const FlagUsage = "the file the service manager sends stderr to (service definitions pass it): kept private (0600) and moved to FILE.1 past 10 MiB"

// DefaultLimit is the size in bytes past which the log file is rotated:
// 10 MiB, with one previous file kept, bounds the logs of a job at 20 MiB.
// Measured in 2026-12: novad logs about 0.5 KB a start and nothing a
// search (without -v); the watcher about 165 bytes a sync (one JSON
// line, two with a compaction), so a day of steady agent work, a sync at
// most every 5 s (--max-wait) for 8 hours, writes under 1 MB, and a
// typical day tens of kilobytes: a file covers weeks to months.
const DefaultLimit = 10 << 20

// Back-off between attempts at a rotation that failed (a full disk, a
// folder made unwritable): the first retry after minRetry, doubling up
// to maxRetry. Retrying at every line would write the same error at
// every line; never retrying left the file unrotated for good.
const (
	minRetry = 10 * time.Second
	maxRetry = 10 * time.Minute
)

// ErrNotStderr is wrapped by Open's error when stderr is not the named
// file, or not a regular file this user owns: the process then leaves the
// file alone.
var ErrNotStderr = errors.New("stderr is not the log file")

// Writer writes to the log file and rotates it past its limit. It is safe
// for concurrent use; its zero value is not usable (see Open).
type Writer struct {
	mu     sync.Mutex
	path   string
	limit  int64
	stderr *os.File
	// stdout is the process's stdout when it is the same file as stderr
	// (Homebrew's formulae send both to one file), nil otherwise.
	stdout *os.File
	// retry is the back-off after a failed rotation, 0 while rotation
	// works; no attempt is made before retryAt.
	retry   time.Duration
	retryAt time.Time
	err     error // the failure, while retry > 0
	// now is time.Now, replaced in tests.
	now func() time.Time
}

// Open returns a Writer for the log file at path, which must be stderr's
// file, after making it private (0600) and rotating it if it is already
// past limit (0 means DefaultLimit). stdout follows rotations when it is
// the same file.
func Open(path string, stdout, stderr io.Writer, limit int64) (*Writer, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	errf, ok := stderr.(*os.File)
	if !ok {
		return nil, fmt.Errorf("%w %s: stderr is not a file", ErrNotStderr, path)
	}
	cur, err := errf.Stat()
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrNotStderr, path, err)
	}
	named, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrNotStderr, path, err)
	}
	if !cur.Mode().IsRegular() || !os.SameFile(cur, named) {
		return nil, fmt.Errorf("%w %s", ErrNotStderr, path)
	}
	if !ownedByUser(cur) {
		return nil, fmt.Errorf("%w %s: another user owns it", ErrNotStderr, path)
	}
	if err := errf.Chmod(0o600); err != nil {
		return nil, fmt.Errorf("make %s private: %w", path, err)
	}
	w := &Writer{path: path, limit: limit, stderr: errf, now: time.Now}
	if outf, ok := stdout.(*os.File); ok {
		fi, err := outf.Stat()
		switch {
		case err != nil:
		case os.SameFile(fi, cur):
			w.stdout = outf
		case fi.Mode().IsRegular() && ownedByUser(fi):
			// The LaunchAgent's own stdout file (novad.out.log), which
			// launchd creates 0644 as well. It stays nearly empty
			// (novad prints there only what it is asked for), so it is
			// not rotated.
			if err := outf.Chmod(0o600); err != nil {
				return nil, fmt.Errorf("make stdout's file private: %w", err)
			}
		}
	}
	if cur.Size() > limit {
		// A rotation that fails here is tried again as the file grows,
		// like one that fails later: the file is still managed.
		w.mu.Lock()
		w.rotateOrBackOff()
		w.mu.Unlock()
	}
	return w, nil
}

// Write writes p to the log file, and rotates the file when that takes it
// past the limit. A rotation that fails is tried again after a back-off;
// while it keeps failing, a file past twice the limit is emptied, so the
// log stays bounded (at the 20 MiB a job's logs take with one previous
// file) and writable.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.stderr.Write(p)
	if err != nil {
		// A file size limit (ulimit -f) below the rotation limit: this
		// file takes no more, a new one does. Without rotating, nothing
		// more could be logged.
		if !errors.Is(err, syscall.EFBIG) || !w.mayTry() || !w.rotateOrBackOff() {
			return n, err
		}
		m, err := w.stderr.Write(p[n:])
		return n + m, err
	}
	// The size is the file's, not a count of what passed here: the
	// process writes to stderr by other ways too (usage errors, a crash).
	fi, serr := w.stderr.Stat()
	if serr != nil || fi.Size() <= w.limit {
		return n, nil
	}
	if !w.mayTry() {
		if fi.Size() > 2*w.limit {
			w.empty(fi.Size())
		}
		return n, nil
	}
	w.rotateOrBackOff()
	return n, nil
}

// mayTry reports whether a rotation may be attempted: none failed, or
// the back-off after the last failure is over. w.mu is held.
func (w *Writer) mayTry() bool {
	return w.retry == 0 || !w.now().Before(w.retryAt)
}

// rotateOrBackOff rotates the file, or, when that fails, says why in the
// file and sets when to try again; it reports whether it rotated. w.mu is
// held.
func (w *Writer) rotateOrBackOff() bool {
	if err := w.rotate(); err != nil {
		w.retry = min(max(2*w.retry, minRetry), maxRetry)
		w.retryAt, w.err = w.now().Add(w.retry), err
		_, _ = fmt.Fprintf(w.stderr, "log file %s: %v; trying again in %s\n", w.path, err, w.retry)
		return false
	}
	if w.retry > 0 {
		w.retry, w.err = 0, nil
		_, _ = fmt.Fprintf(w.stderr, "log file %s: rotated again after a failure\n", w.path)
	}
	return true
}

// empty truncates the current file, of size bytes, when rotation keeps
// failing: its lines are lost, but not the ability to log, and the file
// no longer grows until the disk is full.
func (w *Writer) empty(size int64) {
	if err := w.stderr.Truncate(0); err != nil {
		return
	}
	_, _ = fmt.Fprintf(w.stderr, "log file %s: emptied at %d bytes: it cannot be rotated (%v); trying again at %s\n",
		w.path, size, w.err, w.retryAt.Format(time.RFC3339))
}

// rotate moves the log file to path.1 and puts a new, private path in
// place of stderr (and stdout). A file no longer at path (moved by hand)
// is not moved again.
func (w *Writer) rotate() error {
	cur, err := w.stderr.Stat()
	if err != nil {
		return err
	}
	if named, err := os.Stat(w.path); err == nil && os.SameFile(cur, named) {
		if err := os.Rename(w.path, w.path+".1"); err != nil {
			return fmt.Errorf("rotate: %w", err)
		}
	}
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("rotate: %w", err)
	}
	defer f.Close()
	// A file someone created at path meanwhile is made private too.
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("rotate: %w", err)
	}
	for _, to := range []*os.File{w.stderr, w.stdout} {
		if to == nil {
			continue
		}
		if err := replaceFD(f, to); err != nil {
			return fmt.Errorf("rotate: %w", err)
		}
	}
	return nil
}

// Setup returns where a process logs: a Writer for the file at path when
// path is not "" and stderr is that file, stderr otherwise, with the error
// that kept the file from being managed (to be logged as a warning: the
// process serves on, with its log as the service manager left it).
func Setup(path string, stdout, stderr io.Writer) (io.Writer, error) {
	if path == "" {
		return stderr, nil
	}
	w, err := Open(path, stdout, stderr, 0)
	if err != nil {
		return stderr, err
	}
	return w, nil
}
