// Package lockfile owns the advisory locks Nova's processes take on files
// under NOVA_HOME: the index's single-writer lock, and the one-per-home
// locks of the source watcher and of novad. The kernel releases an
// advisory lock when its process ends, however it ends, so a crash never
// leaves a stale lock behind, and a reused pid cannot fake one. The file
// also says who holds it, for the message of whoever is refused.
package lockfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/nova-recall/nova/paths"
)

// ErrHeld means another process holds the lock.
var ErrHeld = errors.New("the lock is held by another process")

// ErrNotRegular means the lock file's path holds something other than a
// regular file: a symbolic link (planted while the home was open to
// others, it would make Acquire truncate and rewrite the file it points
// to, an SSH key or a shell profile), a directory or a device. Acquire
// refuses it rather than replace it: the path is the user's to look at.
var ErrNotRegular = errors.New("is not a regular file; refusing to lock or write through it (remove it)")

// ErrHardLink means the lock file has other names: a hard link planted
// while the home was open to others (to ~/.zsh_history, say) would have
// Acquire truncate that file when it records its holder.
var ErrHardLink = errors.New("has other names (a hard link, maybe to a file outside the home); refusing to lock or write through it (remove it)")

// Holder is what a lock file says about the process holding it.
type Holder struct {
	// Operation is what the holder does ("sync", "serve", ...).
	Operation string `json:"operation"`
	PID       int    `json:"pid"`
	// Since is when it took the lock (RFC 3339).
	Since string `json:"lockedAt"`
}

// HeldError is ErrHeld with what the lock file says about its holder
// (zero when the file says nothing readable).
type HeldError struct {
	Path   string
	Holder Holder
}

func (e *HeldError) Error() string {
	if e.Holder.PID > 0 {
		return fmt.Sprintf("%s is held by pid %d (%s, since %s)", e.Path, e.Holder.PID, e.Holder.Operation, e.Holder.Since)
	}
	return e.Path + " is held by another process"
}

// Unwrap makes errors.Is(err, ErrHeld) true.
func (e *HeldError) Unwrap() error { return ErrHeld }

// Starting is the operation a novad records while it holds its home's
// lock but has not bound its ports yet (it may wait for them for as long
// as another program holds them): whatever answers on the ports then is
// not it, and clients send it nothing, neither a query nor memory to
// embed and the token.
const Starting = "starting"

// IsStarting reports whether the file says a novad is starting. A record
// whose process is gone is not believed: a novad rewrites the record when
// it takes the lock, except on a read-only home, where the record of a
// run that ended while starting stays; the novad serving that home could
// not replace it, and clients would never talk to it.
func (h Holder) IsStarting() bool {
	return h.Operation == Starting && (h.PID <= 0 || alive(h.PID))
}

// Lock is a held lock.
type Lock struct{ f *os.File }

// Acquire takes the exclusive lock of the file at path (created with
// mode perm) without waiting, and records operation, this process's pid
// and now in it. When another process holds it, the error is a
// *HeldError.
//
// A symbolic link or any other non-regular file at path is refused with
// ErrNotRegular, never followed (on unix the open itself does not follow
// a link planted after the check); a file with other names is refused
// with ErrHardLink.
func Acquire(path string, perm os.FileMode, operation string, now time.Time) (*Lock, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("lock file %s %w", path, ErrNotRegular)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|paths.NoFollow, perm)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("lock file %s %w", path, ErrNotRegular)
	}
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("lock file %s %w", path, ErrNotRegular)
	}
	if paths.HasOtherNames(fi) {
		f.Close()
		return nil, fmt.Errorf("lock file %s %w", path, ErrHardLink)
	}
	if err := flock(f, exclusive); err != nil {
		f.Close()
		if !errors.Is(err, ErrHeld) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return nil, &HeldError{Path: path, Holder: ReadHolder(path)}
	}
	l := &Lock{f: f}
	l.Record(operation, now)
	return l, nil
}

// probeRetries and probeRetryWait bound AcquireOutlastingProbes: a probe
// holds its shared lock for microseconds, so a second of tries outlasts
// any number of them.
const (
	probeRetries   = 20
	probeRetryWait = 50 * time.Millisecond
)

// AcquireOutlastingProbes is Acquire that does not give up on a lock held
// for a moment by something that is not a real holder: while the lock is
// held and the file names no live holder, it tries again for about a
// second before it returns the *HeldError. Held and Free take a shared
// lock for a moment and write nothing, and a holder empties the file just
// before it lets go (and is unnamed just after it takes the lock); a
// holder that starts then would otherwise meet it, give up and, for a
// long-running one, run unseen. A holder the file names is reported at
// once.
func AcquireOutlastingProbes(path string, perm os.FileMode, operation string, now time.Time) (*Lock, error) {
	for i := 0; ; i++ {
		l, err := Acquire(path, perm, operation, now)
		he, held := errors.AsType[*HeldError](err)
		if !held || i == probeRetries || (he.Holder.PID > 0 && alive(he.Holder.PID)) {
			return l, err
		}
		time.Sleep(probeRetryWait)
	}
}

// Record rewrites what the lock file says its holder does (operation,
// since now), for a holder that moves on to another operation.
func (l *Lock) Record(operation string, now time.Time) {
	b, _ := json.Marshal(Holder{Operation: operation, PID: os.Getpid(), Since: now.UTC().Format(time.RFC3339)})
	_ = l.f.Truncate(0)
	_, _ = l.f.WriteAt(b, 0)
}

// Named reports whether path still names the file l locks. A lock whose
// file was removed (its folder deleted by a cleanup of the home) or
// replaced is still held, but of a file nobody else can open: to every
// other process the lock is free, and the next one to create the file
// takes it.
func (l *Lock) Named(path string) bool {
	if l == nil || l.f == nil {
		return false
	}
	held, err := l.f.Stat()
	if err != nil {
		return false
	}
	fi, err := os.Lstat(path)
	return err == nil && os.SameFile(held, fi)
}

// Renew keeps path naming a file this process locks, for a long-running
// holder whose file may be removed under it (its folder deleted by a
// cleanup of the home; see Named). While path names l's file it returns l
// and does nothing else. Otherwise it calls makeDir (nil: none), to make
// the folder again, then takes the lock of a new file at path as Acquire
// does, recorded as operation since now, releases l and returns the new
// lock. When another process locked the new file first, the error is a
// *HeldError (errors.Is ErrHeld): two holders would run, and the caller
// should stop. On any error l is returned, still held, and a later Renew
// may succeed.
func (l *Lock) Renew(path string, perm os.FileMode, operation string, now time.Time, makeDir func() error) (*Lock, error) {
	if l.Named(path) {
		return l, nil
	}
	if makeDir != nil {
		if err := makeDir(); err != nil {
			return l, err
		}
	}
	n, err := Acquire(path, perm, operation, now)
	if err != nil {
		return l, err
	}
	l.Release()
	return n, nil
}

// ReadHolder returns what the lock file at path says about its holder:
// zero when it says nothing readable (no holder, or one writing it just
// now). It only reads.
func ReadHolder(path string) Holder {
	var h Holder
	if b, _, err := paths.ReadRegular(path, maxHolderSize); err == nil {
		_ = json.Unmarshal(b, &h)
	}
	return h
}

// maxHolderSize bounds the lock file ReadHolder reads: a holder is a
// line of JSON.
const maxHolderSize = 1 << 16

// openProbe opens the lock file at path to probe its lock: without
// waiting (a named pipe there would block the open, and every client
// asking whether novad serves, until a writer came), and only a regular
// file, as Acquire makes it (*paths.NotFileError otherwise).
func openProbe(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|paths.NonBlock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &paths.NotFileError{Path: path, Mode: fi.Mode()}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Release gives the lock up and empties the file. It is safe on a nil or
// released lock.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = l.f.Truncate(0)
	_ = unlock(l.f)
	l.f.Close()
	l.f = nil
}

// Free reports whether it is known that no process holds the lock of the
// file at path now: the file is missing (nobody ever took it) or its lock
// can be taken. Where file locks are not supported nothing is known, and
// Free is false.
func Free(path string) bool {
	if !supported {
		return false
	}
	f, err := openProbe(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	defer f.Close()
	if err := flock(f, shared); err != nil {
		return false
	}
	_ = unlock(f)
	return true
}

// Held reports whether a process holds the lock of the file at path now.
// It only reads: a missing file means nobody ever held it, and the probe
// takes a shared lock for a moment, which a concurrent Acquire may meet
// (a long-running holder starts with AcquireOutlastingProbes).
func Held(path string) bool {
	f, err := openProbe(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := flock(f, shared); err != nil {
		return errors.Is(err, ErrHeld)
	}
	_ = unlock(f)
	return false
}
