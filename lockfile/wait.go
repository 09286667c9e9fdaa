package lockfile

import (
	"context"
	"os"
	"time"
)

// Waiter waits, without polling, for the lock of one file to be let go,
// for a process standing by until the one holding it stops: a goroutine
// blocks in the kernel on a descriptor of the file and wakes exactly when
// the holder releases the lock or dies. Polling instead woke the process
// every second for as long as the holder ran, days for a second service
// job. It takes the lock for a moment only (a shared one, which the Held
// and Free probes do not meet), lets it go at once and never holds it
// for its caller, who then tries Acquire (a second standby woken by the
// same release may meet that moment: it is woken again at once).
//
// What a blocked waiter cannot see is looked at every Every: the file
// removed or replaced (a holder that renewed its lock on a new file), a
// missing file (nothing to block on yet), a platform without file locks.
// A Waiter is used by one goroutine.
type Waiter struct {
	// Path is the lock file's.
	Path string
	// Every bounds the wait when the blocked descriptor cannot tell.
	Every time.Duration

	// file is the file the blocked goroutine waits on (nil: none), woken
	// is closed when its wait ended, and last is when Wait last returned
	// because of it.
	file  os.FileInfo
	woken chan struct{}
	last  time.Time
}

// wakeSpacing keeps a waiter from spinning while the lock is only held
// for moments by probes or other waiters (each would wake it at once):
// two wakes are at least this far apart.
const wakeSpacing = 50 * time.Millisecond

// Wait returns nil when the lock may have been let go, or when Every has
// passed, and ctx.Err() as soon as ctx ends. held says whether the lock
// is what kept the caller out: when it is not (a read-only volume), a
// free lock would wake the waiter at once, and only Every is waited. A
// goroutine still blocked when ctx ends stays blocked, holding only an
// open descriptor, until the holder lets go; it keeps no process from
// exiting.
func (w *Waiter) Wait(ctx context.Context, held bool) error {
	var woken <-chan struct{}
	if held {
		if wait := wakeSpacing - time.Since(w.last); wait > 0 {
			if err := sleep(ctx, wait); err != nil {
				return err
			}
		}
		woken = w.watch()
	}
	t := time.NewTimer(w.Every)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-woken:
		w.file, w.woken, w.last = nil, nil, time.Now()
	case <-t.C:
	}
	return nil
}

// watch returns the channel closed when the lock of the file now at
// w.Path is let go, blocking a new goroutine on it unless one already
// waits on that very file (one left on a replaced file ends when its
// holder lets go); nil when there is nothing to block on.
func (w *Waiter) watch() <-chan struct{} {
	if !supported {
		return nil
	}
	if w.file != nil {
		if fi, err := os.Lstat(w.Path); err == nil && os.SameFile(w.file, fi) {
			return w.woken
		}
	}
	w.file, w.woken = nil, nil
	f, err := openProbe(w.Path)
	if err != nil {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil
	}
	woken := make(chan struct{})
	go func() {
		defer f.Close()
		// A descriptor the lock cannot be waited on never wakes the
		// caller: Every does.
		if blockShared(f) {
			close(woken)
		}
	}()
	w.file, w.woken = fi, woken
	return woken
}

// sleep waits d or until ctx ends (its error).
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
