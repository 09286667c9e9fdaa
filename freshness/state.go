// Package freshness owns the source watcher's state file
// (NOVA_HOME/state/watcher.json) and its lock, and turns them into what
// novad's health, doctor and the TUI say about how current memory is: when
// the sources last changed, when the index last caught up, and the lag.
// The watcher (package watch) writes the state; everyone else only reads
// it. The lock, not the pid in the file, says whether a watcher runs: a
// crashed watcher releases it, and a reused pid cannot fake it.
package freshness

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nova-recall/nova/atomicfile"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/secrets"
)

// SchemaVersion is the state file format this build reads and writes.
const SchemaVersion = 1

// Results of a sync.
const (
	ResultOK     = "ok"
	ResultFailed = "failed"
	// ResultBusy means another index writer (a manual novactl index sync,
	// say) held the index lock; the watcher retries.
	ResultBusy = "busy"
	// ResultCancelled means the watcher was stopped during the sync.
	ResultCancelled = "cancelled"
)

// Names of the limits a watcher can hit.
const (
	// LimitInotifyWatches is Linux's fs.inotify.max_user_watches.
	LimitInotifyWatches = "inotify-watches"
	// LimitOpenFiles is the per-process file descriptor limit, which
	// kqueue (macOS, BSD) spends one descriptor per watched file of.
	LimitOpenFiles = "open-files"
	// LimitInotifyInstances is Linux's fs.inotify.max_user_instances:
	// once the user's programs hold that many, the watcher gets no
	// notifications at all and rescans every folder.
	LimitInotifyInstances = "inotify-instances"
)

// MaxGoneListed bounds the gone files the state lists by name.
const MaxGoneListed = 50

// State is what a watcher publishes. Times are UTC; a zero time means
// "never".
type State struct {
	SchemaVersion int       `json:"schemaVersion"`
	PID           int       `json:"pid"`
	StartedAt     time.Time `json:"startedAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
	// StoppedAt is set when the watcher stopped cleanly.
	StoppedAt time.Time `json:"stoppedAt,omitzero"`
	// SourcesChangedAt is when the watcher last saw a source file change.
	SourcesChangedAt time.Time `json:"sourcesChangedAt,omitzero"`
	// PendingSince is when the oldest change not yet covered by a
	// finished sync was seen; zero when caught up.
	PendingSince time.Time `json:"pendingSince,omitzero"`
	// CaughtUpAt is the start of the last successful sync (a sync that
	// starts at T has read every change made before T), or the time the
	// watcher found nothing to do at start.
	CaughtUpAt time.Time `json:"caughtUpAt,omitzero"`
	// LastSync is the last sync the watcher finished, if any.
	LastSync *Sync `json:"lastSync,omitempty"`
	// Running is the sync in progress, if any (its start and trigger).
	// It is kept apart from LastSync so that a sync that takes minutes
	// does not hide the result of the one before (a failure the retry
	// is about, or when the index last caught up).
	Running *Sync `json:"running,omitempty"`
	// Syncs counts the syncs since start, by result.
	Syncs map[string]int `json:"syncs"`
	// RescanIntervalSeconds is the period of the safety-net rescan now in
	// force (shorter while some folders cannot be watched).
	RescanIntervalSeconds int       `json:"rescanIntervalSeconds"`
	LastRescanAt          time.Time `json:"lastRescanAt,omitzero"`
	Watched               Watched   `json:"watched"`
	// Limits lists the limits hit since start, at most one per name.
	Limits []Limit `json:"limits"`
	Gone   Gone    `json:"gone"`
}

// Sync is one sync the watcher ran.
type Sync struct {
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
	Result     string    `json:"result"`
	// Error is the failure (no secrets: index errors name paths and
	// causes only).
	Error string `json:"error,omitempty"`
	// NoRoom, for a sync that failed because a write found no room, says
	// what ran out, as index.DiskFullError's Cause names it: "no-space",
	// "quota" or "file-too-large". A used-up quota leaves the volume's
	// free space, which doctor measures, looking ample.
	NoRoom string `json:"noRoom,omitempty"`
	// RunID and Chunks describe the generation promoted.
	RunID  string `json:"runId,omitempty"`
	Chunks int    `json:"chunks,omitempty"`
	// Trigger says why it ran: start, change, rescan or retry.
	Trigger string `json:"trigger"`
}

// Watched counts what the watcher covers.
type Watched struct {
	Sources int `json:"sources"`
	// Dirs have a file system watch; PolledDirs could not get one and
	// only the periodic rescan covers them.
	Dirs       int `json:"dirs"`
	PolledDirs int `json:"polledDirs"`
	// Files are the source files the rescan knows.
	Files int `json:"files"`
}

// Limit is a resource limit the watcher hit.
type Limit struct {
	Name string `json:"name"`
	// Value is the limit in force, when known.
	Value int `json:"value,omitempty"`
	// Message says what happened and how to raise the limit.
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

// Gone describes source files that disappeared while the index keeps
// their memory (it forgets only with --prune-missing).
type Gone struct {
	// Count is the number of gone files; Files lists at most
	// MaxGoneListed of them.
	Count int      `json:"count"`
	Files []string `json:"files"`
}

// maxStateSize bounds the watcher state Read accepts: the watcher writes
// a few kilobytes (MaxGoneListed names at most).
const maxStateSize = 16 << 20

// Read reads home's watcher state. It returns an error wrapping
// fs.ErrNotExist when no watcher has ever run. Anything but a regular
// file is refused without waiting on it (paths.ReadRegular): novad reads
// this for every /health and search.
func Read(home paths.Home) (*State, error) {
	b, _, err := paths.ReadRegular(home.WatcherState(), maxStateSize)
	if err != nil {
		return nil, err
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("watcher state %s: %w", home.WatcherState(), err)
	}
	if st.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("watcher state %s: schema version %d, want %d", home.WatcherState(), st.SchemaVersion, SchemaVersion)
	}
	return &st, nil
}

// Write replaces home's watcher state atomically (mode 0600 in the
// private state directory), so a reader never sees half a state. It is a
// report, rewritten at every sync: it is not synced to disk (see
// atomicfile.Unsynced); after a power failure the watcher writes it anew.
func Write(home paths.Home, st *State) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := secrets.EnsurePrivateDir(home.StateDir()); err != nil {
		return err
	}
	return atomicfile.Write(home.WatcherState(), append(b, '\n'), paths.FileMode, atomicfile.Unsynced())
}

// ErrRunning means another watcher holds the lock of this home.
var ErrRunning = errors.New("a source watcher is already running for this NOVA_HOME")

// RunningError is ErrRunning with what the lock file says of the watcher
// holding it (zero when it says nothing readable), so that whoever is
// refused learns which process to look at or stop.
type RunningError struct {
	Holder lockfile.Holder
}

func (e *RunningError) Error() string {
	if e.Holder.PID > 0 {
		return fmt.Sprintf("%v (pid %d, since %s)", ErrRunning, e.Holder.PID, e.Holder.Since)
	}
	return ErrRunning.Error()
}

// Unwrap makes errors.Is(err, ErrRunning) true.
func (e *RunningError) Unwrap() error { return ErrRunning }

// Lock is the running watcher's hold on home's watcher lock.
type Lock = lockfile.Lock

// Acquire takes home's watcher lock, or fails with a *RunningError
// (an ErrRunning) that names the watcher holding it.
func Acquire(home paths.Home, now time.Time) (*Lock, error) {
	if err := secrets.EnsurePrivateDir(home.StateDir()); err != nil {
		return nil, err
	}
	l, err := lockfile.AcquireOutlastingProbes(home.WatcherLock(), paths.FileMode, "watch", now)
	if he, ok := errors.AsType[*lockfile.HeldError](err); ok {
		return nil, &RunningError{Holder: he.Holder}
	}
	switch {
	case errors.Is(err, lockfile.ErrHeld):
		return nil, ErrRunning
	case err != nil:
		return nil, fmt.Errorf("watcher lock: %w", err)
	}
	return l, nil
}

// ErrLockLost means a running watcher found its lock file gone (state/
// removed while it ran) and another process holding the new one, which
// it then leaves the home to; it wraps ErrRunning.
var ErrLockLost = fmt.Errorf("%w: another process locked it while this watcher's lock file was gone (state/ removed while it ran)", ErrRunning)

// Relock locks home's watcher lock file again when its name no longer
// reaches the file l locks (see lockfile.Lock.Renew), in a private
// state/ made again: deleting state/ while the watcher runs removes the
// file but not the lock, and to every other process the home then has no
// watcher, so a second one would lock a new file and sync beside it. It
// returns the lock to hold from now on (l when nothing was gone), or
// ErrLockLost when another process locked the new file first; on any
// other error l is still held and may be renewed later.
func Relock(home paths.Home, l *Lock, now time.Time) (*Lock, error) {
	n, err := l.Renew(home.WatcherLock(), paths.FileMode, "watch", now, func() error { return secrets.EnsurePrivateDir(home.StateDir()) })
	if errors.Is(err, lockfile.ErrHeld) {
		return l, fmt.Errorf("%w (%v)", ErrLockLost, err)
	}
	return n, err
}

// Running reports whether a watcher holds home's lock now.
func Running(home paths.Home) bool { return lockfile.Held(home.WatcherLock()) }
