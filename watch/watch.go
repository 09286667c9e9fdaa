// Package watch keeps memory fresh by itself: it watches every configured
// source with fsnotify (folders recursively, including folders created
// after it started, but only the folders the source's listing enters:
// ingest.SkipsDir decides for both), debounces and coalesces bursts of changes, and runs
// a sync through a Syncer when something a source reads has changed. A
// periodic stat-based rescan is the safety net for lost events, overflowed
// queues and folders that could not be watched. It publishes what it sees
// in the watcher state (package freshness). It never serves and never
// writes the index itself: the Syncer does, under the index lock.
//
// The watch loop is one goroutine that owns every piece of state; the sync
// runs on a second goroutine so that events keep being read (and new
// folders watched) while a long sync runs. At most one sync runs at a time.
package watch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/paths"
)

// Syncer brings the index up to date with the sources: build, verify and
// promote, under the index lock. *index.Indexer does it through an adapter
// in novactl; tests pass a fake.
type Syncer interface {
	Sync(ctx context.Context) (Outcome, error)
}

// Outcome is what a successful sync reports.
type Outcome struct {
	// RunID and Chunks describe the promoted generation.
	RunID  string
	Chunks int
	// GoneFiles, when not nil, is the complete list of source files gone
	// whose memory the index keeps; nil means the syncer does not know,
	// and the watcher reports the files it saw disappear.
	GoneFiles []string
	// Unsettled counts the files the sync could not read this time: they
	// kept changing while they were read, or their read failed for a
	// reason that passes (too many open files, an I/O error); a file that
	// cannot be read for a lasting reason (a permission) is not counted.
	// The index kept their earlier memory. The watcher syncs again,
	// backing off, and the sources do not count as caught up meanwhile,
	// since no file event may come to say they changed.
	Unsettled int
}

// ErrBusy is wrapped by Syncer errors that mean another index writer holds
// the lock (a manual novactl index sync, say): the watcher retries soon.
var ErrBusy = errors.New("another index writer holds the lock")

// ErrNothingYet is wrapped by Syncer errors that mean the sources hold no
// memory at all yet (a watcher set up before an agent's first session):
// the sync backs off as a failure does, but a change in the sources,
// which may be that first session, is synced once they are quiet rather
// than at the end of the back-off.
var ErrNothingYet = errors.New("the sources hold no memory yet")

// Retrier is a Syncer error whose message advises running the sync again
// (index's DiskFullError, for a full disk): Retrying words it for the
// watcher, which syncs again by itself after in, its back-off (0: no wait
// named, for the state, read at any later time).
type Retrier interface {
	error
	Retrying(in time.Duration) error
}

// Lister returns the files of a source that a sync would read (its
// include and exclude globs applied), as absolute paths. A missing source
// path is an error wrapping fs.ErrNotExist or the ingest equivalent; the
// watcher treats any error as "no files for now".
type Lister func(src config.Source) ([]string, error)

// Defaults of Options.
const (
	DefaultQuiet         = 500 * time.Millisecond
	DefaultMaxWait       = 5 * time.Second
	DefaultRescan        = 5 * time.Minute
	DefaultLimitedRescan = 30 * time.Second
	DefaultBusyRetry     = 2 * time.Second
	DefaultMaxBackoff    = 5 * time.Minute
)

// SourceFiles is the Lister of a real index: ingest's one listing,
// shared with the full read and the incremental sync, with the companions
// of each file that exist (ingest.Companions: a Hermes database's
// write-ahead log, which takes its new messages while the database file
// itself does not change).
func SourceFiles(src config.Source) ([]string, error) {
	l, err := ingest.List(src)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(l.Files)+len(l.NotDownloaded))
	for _, p := range l.NotDownloaded {
		// A stub that comes or goes changes what the sync counts as not
		// downloaded (a note another device added, one evicted).
		out = append(out, ingest.CloudStub(p))
	}
	for _, f := range l.Files {
		out = append(out, f.Path)
		for _, c := range ingest.Companions(src.Kind, f.Path) {
			if _, err := os.Stat(c); err == nil {
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// Options configure a Watcher. Home, Sources and Syncer are required.
type Options struct {
	Home    paths.Home
	Sources []config.Source
	Syncer  Syncer
	// Lister lists a source's files; nil means SourceFiles.
	Lister Lister
	// Logger receives what the watcher does; nil discards it.
	Logger *slog.Logger
	// Quiet is how long the sources must stay quiet before a sync starts
	// (the debounce); MaxWait bounds how long a continuous stream of
	// changes can delay one (counted from the first change not yet
	// synced), so a busy agent never starves the index.
	Quiet, MaxWait time.Duration
	// Rescan is the period of the safety-net rescan; LimitedRescan
	// replaces it while some folders could not be watched.
	Rescan, LimitedRescan time.Duration
	// BusyRetry is the wait before retrying a sync that found the index
	// locked; failed syncs back off exponentially from it to MaxBackoff.
	BusyRetry, MaxBackoff time.Duration
	// SyncAtStart runs one sync as soon as the watcher starts, to catch
	// what changed while no watcher ran (appends, new files, deletions and
	// renames alike); an incremental sync of unchanged sources costs only
	// a stat of each file. novactl index watch sets it.
	SyncAtStart bool
	// WatchBudget caps the watches (inotify) or descriptors (kqueue) the
	// watcher may spend; 0 derives it from the platform's limits.
	WatchBudget int
	// Now is the clock the watcher stamps its state and schedules its
	// syncs by; nil means time.Now.
	Now func() time.Time

	// newNotifier builds the file system notifier; nil means fsnotify.
	// Tests replace it.
	newNotifier func() (notifier, error)
	// watchCost is what watching a folder costs of WatchBudget; nil
	// means the platform's (watchCost). Tests replace it to charge as
	// kqueue does on a Mac.
	watchCost func(dir string) (int, error)
}

// notifier is the part of fsnotify.Watcher the watcher uses.
type notifier interface {
	Add(path string) error
	Remove(path string) error
	Events() <-chan fsnotify.Event
	Errors() <-chan error
	Close() error
}

type fsNotifier struct{ w *fsnotify.Watcher }

func (n fsNotifier) Add(p string) error            { return n.w.Add(p) }
func (n fsNotifier) Remove(p string) error         { return n.w.Remove(p) }
func (n fsNotifier) Events() <-chan fsnotify.Event { return n.w.Events }
func (n fsNotifier) Errors() <-chan error          { return n.w.Errors }
func (n fsNotifier) Close() error                  { return n.w.Close() }

// noNotifier stands in for a notifier that could not be made: every Add
// fails with its error, which leaves the folder to the rescan and names
// the limit (see tree.add), and no event ever comes.
type noNotifier struct{ err *notifierError }

func (n noNotifier) Add(string) error            { return n.err }
func (noNotifier) Remove(string) error           { return nil }
func (noNotifier) Events() <-chan fsnotify.Event { return nil }
func (noNotifier) Errors() <-chan error          { return nil }
func (noNotifier) Close() error                  { return nil }

// notifierError is why no notifier could be made.
type notifierError struct{ err error }

func (e *notifierError) Error() string { return "no file system notifications: " + e.err.Error() }
func (e *notifierError) Unwrap() error { return e.err }

func newFSNotifier() (notifier, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return fsNotifier{w}, nil
}

func (o *Options) defaults() error {
	if o.Syncer == nil || o.Home.Root == "" {
		return errors.New("watch: Home and Syncer are required")
	}
	if o.Lister == nil {
		o.Lister = SourceFiles
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Quiet, DefaultQuiet)
	def(&o.MaxWait, DefaultMaxWait)
	def(&o.Rescan, DefaultRescan)
	def(&o.LimitedRescan, DefaultLimitedRescan)
	def(&o.BusyRetry, DefaultBusyRetry)
	def(&o.MaxBackoff, DefaultMaxBackoff)
	if o.MaxWait < o.Quiet {
		o.MaxWait = o.Quiet
	}
	if o.LimitedRescan > o.Rescan {
		o.LimitedRescan = o.Rescan
	}
	if o.newNotifier == nil {
		o.newNotifier = newFSNotifier
	}
	if o.watchCost == nil {
		o.watchCost = watchCost
	}
	return nil
}

// Run watches until ctx is cancelled, then waits for a running sync to
// stop, records the stop in the state and returns nil. It fails at once
// when another watcher runs for the same home (freshness.ErrRunning) or
// no notifier can be created for another reason than a limit on
// notifiers or open files (then the rescan covers every folder). It
// stops with freshness.ErrLockLost when its lock file was removed and
// another process locked the new one before it could (see
// watcher.relock).
func Run(ctx context.Context, opts Options) error {
	if err := opts.defaults(); err != nil {
		return err
	}
	lock, err := freshness.Acquire(opts.Home, opts.Now())
	if err != nil {
		return err
	}
	// The loop may replace the lock (see watcher.relock): release the
	// one held when Run returns.
	defer func() { lock.Release() }()
	n, err := opts.newNotifier()
	switch {
	case errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE):
		// A limit on notifiers or open files, reached by other programs
		// of the user: the rescan covers every folder instead (see
		// noNotifier). Exiting would have a service manager restart the
		// watcher every few seconds, and memory go stale meanwhile.
		n = noNotifier{&notifierError{err}}
	case err != nil:
		return fmt.Errorf("start file system notifications: %w", err)
	}
	defer n.Close()
	w := newWatcher(opts, n)
	w.lock = lock
	err = w.run(ctx)
	lock = w.lock
	return err
}
