package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

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

type lockInfo struct {
	Operation string `json:"operation"`
	PID       int    `json:"pid"`
	LockedAt  string `json:"lockedAt"`
}

// writerLock is the single-writer lock of the index directory. The lock is
// an OS advisory lock on the file, so a writer that crashes releases it.
type writerLock struct {
	f *os.File
}

func acquireLock(path, operation string, now time.Time) (*writerLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, paths.FileMode)
	if err != nil {
		return nil, fmt.Errorf("open index lock: %w", err)
	}
	if err := tryLock(f); err != nil {
		defer f.Close()
		le := &LockedError{Path: path}
		var info lockInfo
		if b, rerr := os.ReadFile(path); rerr == nil && json.Unmarshal(b, &info) == nil {
			le.Operation, le.PID, le.Since = info.Operation, info.PID, info.LockedAt
		}
		return nil, le
	}
	b, _ := json.Marshal(lockInfo{Operation: operation, PID: os.Getpid(), LockedAt: now.UTC().Format(time.RFC3339)})
	_ = f.Truncate(0)
	_, _ = f.WriteAt(b, 0)
	return &writerLock{f: f}, nil
}

func (l *writerLock) release() {
	if l == nil || l.f == nil {
		return
	}
	_ = l.f.Truncate(0)
	_ = unlock(l.f)
	l.f.Close()
	l.f = nil
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
