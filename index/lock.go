package index

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/paths"
)

// ErrLocked means another index writer holds the lock.
var ErrLocked = errors.New("another index operation is running")

// LockedError names the holder of the lock.
type LockedError struct {
	Path      string
	Operation string
	PID       int
	Since     string
}

func (e *LockedError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("another index operation is running (%s, pid %d, since %s); wait for it to finish (lock %s)", e.Operation, e.PID, e.Since, e.Path)
	}
	return fmt.Sprintf("another index operation is running; wait for it to finish (lock %s)", e.Path)
}

// Unwrap makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Unwrap() error { return ErrLocked }

// writerLock is the single-writer lock of the index directory.
type writerLock = lockfile.Lock

// acquireLock takes the lock; a holder that is not named in the file (a
// probe, or a writer that is just taking or letting go of the lock) is
// outlasted, so that a sync started as the watcher's ends is not refused.
func acquireLock(path, operation string, now time.Time) (*writerLock, error) {
	l, err := lockfile.AcquireOutlastingProbes(path, paths.FileMode, operation, now)
	if he, ok := errors.AsType[*lockfile.HeldError](err); ok {
		return nil, &LockedError{Path: path, Operation: he.Holder.Operation, PID: he.Holder.PID, Since: he.Holder.Since}
	}
	if err != nil {
		return nil, fmt.Errorf("index lock: %w", err)
	}
	return l, nil
}

// lock makes the home private and takes the index's writer lock.
func (x *Indexer) lock(ctx context.Context, op string) (*writerLock, error) {
	narrowed, err := x.home.Secure()
	if len(narrowed) > 0 {
		x.log.Info("Made the home private (other users could read it)", "paths", len(narrowed), "first", narrowed[0])
	}
	if err != nil {
		return nil, fmt.Errorf("make %s private: %w", x.home.Root, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return acquireLock(x.home.Lock(), op, x.opts.Now())
}
