package watch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/ingest"
)

// Sync triggers, as recorded in the state.
const (
	triggerStart  = "start"
	triggerChange = "change"
	triggerRescan = "rescan"
	triggerRetry  = "retry"
)

type syncResult struct {
	out      Outcome
	err      error
	started  time.Time
	finished time.Time
}

// watcher is the state of one Run, owned by its loop goroutine.
type watcher struct {
	opts Options
	n    notifier
	log  *slog.Logger
	tree *tree
	st   freshness.State

	// Events not yet reconciled: files to stat again, sources to list
	// again, and when the first and last of them arrived.
	dirtyFiles            map[string]bool
	dirtySources          map[int]bool
	firstDirty, lastDirty time.Time
	// lastEvent is when the last file system event arrived: a sync waits
	// for a quiet spell after it (bounded by MaxWait).
	lastEvent time.Time

	// pending: a confirmed change that no started sync covers, seen first
	// at pendingSince; trigger says what found it.
	pending      bool
	pendingSince time.Time
	trigger      string

	syncing   bool
	covering  time.Time // pendingSince of the changes the running sync covers
	done      chan syncResult
	failures  int
	unsettled int       // syncs in a row that left input unsettled
	notBefore time.Time // no sync starts before this (back-off, spacing)
	// nothingYet is set while the last sync failed with ErrNothingYet:
	// the next change in the sources ends the back-off (see reconcile).
	nothingYet bool

	// fullRescanAt is when every source was last listed by a rescan (or
	// at start).
	fullRescanAt time.Time

	// gone are the source files seen to disappear, with when.
	gone map[string]time.Time
	// savedLimits is how many limits the last saved state listed.
	savedLimits int
	// saveFailing is set while the state cannot be written: said once.
	saveFailing bool
	// lock is Run's hold on the home's watcher lock, which relock
	// replaces when its file is gone; relockFailing is set while it
	// cannot: said once.
	lock          *freshness.Lock
	relockFailing bool
	// relockAt, when set, is when to lock the home's watcher lock again
	// after an event said state/ or the lock file went (see lockEvent).
	relockAt time.Time
}

// relockQuiet is how long state/ must stay quiet after its lock file
// went before the watcher makes it again: a removal of the folder (rm -rf
// state/) is over by then, and making it during the removal would fail
// it with "directory not empty".
const relockQuiet = 250 * time.Millisecond

func newWatcher(opts Options, n notifier) *watcher {
	budget := opts.WatchBudget
	if budget == 0 {
		budget = defaultBudget()
	}
	w := &watcher{opts: opts, n: n, log: opts.Logger, tree: newTree(n, opts.Sources, opts.Lister, budget, opts.watchCost),
		dirtyFiles: map[string]bool{}, dirtySources: map[int]bool{}, done: make(chan syncResult, 1), gone: map[string]time.Time{}}
	w.tree.limit = w.limitHit
	w.tree.warn = func(msg string, args ...any) { w.log.Warn(msg, args...) }
	return w
}

func (w *watcher) run(ctx context.Context) error {
	// Cancelled when the watcher leaves the home to another (relock),
	// to end a running sync.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	now := w.opts.Now()
	w.st = freshness.State{SchemaVersion: freshness.SchemaVersion, PID: os.Getpid(), StartedAt: now.UTC(),
		Syncs: map[string]int{}, Limits: []freshness.Limit{}, Gone: freshness.Gone{Files: []string{}}}
	w.tree.watchAll()
	w.watchLock()
	for i := range w.opts.Sources {
		w.tree.relist(i, &change{})
	}
	w.st.LastRescanAt = now.UTC()
	w.fullRescanAt = now
	if w.opts.SyncAtStart {
		w.markPending(now, triggerStart)
	} else {
		w.st.CaughtUpAt = now.UTC()
	}
	w.log.Info("Watching sources", "sources", len(w.opts.Sources), "dirs", len(w.tree.watched),
		"polledDirs", len(w.tree.polled), "files", w.tree.files(), "rescanEvery", w.rescanInterval().String())
	w.save(now)

	armed := w.rescanInterval()
	rescan := time.NewTimer(armed)
	defer rescan.Stop()
	var wake *time.Timer
	defer func() {
		if wake != nil {
			wake.Stop()
		}
	}()
	for {
		// One timer, re-armed every turn (since Go 1.23 Reset and Stop
		// never leave a stale tick behind).
		var wakeC <-chan time.Time
		if at, ok := w.nextWake(); ok {
			d := max(at.Sub(w.opts.Now()), 0)
			if wake == nil {
				wake = time.NewTimer(d)
			} else {
				wake.Reset(d)
			}
			wakeC = wake.C
		} else if wake != nil {
			wake.Stop()
		}
		// A limit hit by a new folder shortens the rescan at once.
		if iv := w.rescanInterval(); iv != armed {
			armed = iv
			rescan.Reset(iv)
		}
		select {
		case <-ctx.Done():
			w.stop()
			return nil
		case ev, ok := <-w.n.Events():
			if !ok {
				w.stop()
				return errors.New("file system notifications stopped")
			}
			if w.lockEvent(ev) || (!w.relockAt.IsZero() && within(filepath.Clean(ev.Name), w.opts.Home.StateDir())) {
				w.relockAt = w.opts.Now().Add(relockQuiet)
			}
			w.onEvent(ev, w.opts.Now())
		case err, ok := <-w.n.Errors():
			if !ok {
				w.stop()
				return errors.New("file system notifications stopped")
			}
			w.onError(err, w.opts.Now())
			// The event saying state/ went may be among those lost.
			w.relockAt = w.opts.Now().Add(relockQuiet)
		case <-wakeC:
			if at := w.relockAt; !at.IsZero() && !w.opts.Now().Before(at) {
				w.relockAt = time.Time{}
				if err := w.relock(w.opts.Now()); err != nil {
					return w.leave(cancel, err)
				}
				w.save(w.opts.Now()) // not written while state/ was gone
			}
			w.act(ctx, w.opts.Now())
		case <-rescan.C:
			w.relockAt = time.Time{}
			if err := w.relock(w.opts.Now()); err != nil {
				return w.leave(cancel, err)
			}
			w.rescan(w.opts.Now())
			armed = w.rescanInterval()
			rescan.Reset(armed)
			w.act(ctx, w.opts.Now())
		case r := <-w.done:
			w.finish(r)
		}
	}
}

// leave ends the watch when another process locked the home's watcher
// lock while its file was gone (err, from relock): the other watcher's
// state is the one to keep, so a running sync is cancelled and not
// recorded.
func (w *watcher) leave(cancel context.CancelFunc, err error) error {
	cancel()
	if w.syncing {
		<-w.done
	}
	w.log.Error("Stopping: another process locked this home's watcher lock while its file was gone (state/ removed while the watcher ran); one watcher runs per home", "err", err.Error())
	return err
}

// watchLock watches the folder of the home's watcher lock (state/), so
// that its removal, or the lock file's, is seen at once (see lockEvent)
// rather than at the next rescan: in between, to every other process
// the home has no watcher, and a second one would start and sync beside
// this one. It is one folder outside the sources, not charged to the
// watch budget; where it cannot be watched, the rescan relocks.
func (w *watcher) watchLock() {
	if err := w.n.Add(w.opts.Home.StateDir()); err != nil {
		w.log.Debug("Cannot watch the folder of the watcher lock; the rescan checks the lock", "dir", w.opts.Home.StateDir(), "err", fmt.Sprint(err))
	}
}

// lockEvent reports whether ev says the home's watcher lock file, or
// state/ holding it, was removed or moved away: the watcher then locks
// a new file (relock) before anything else.
func (w *watcher) lockEvent(ev fsnotify.Event) bool {
	if !ev.Has(fsnotify.Remove) && !ev.Has(fsnotify.Rename) {
		return false
	}
	name := filepath.Clean(ev.Name)
	return name == w.opts.Home.WatcherLock() || name == w.opts.Home.StateDir()
}

// relock locks the home's watcher lock file again when state/ was removed
// while the watcher ran (see freshness.Relock), when an event says so
// (see watchLock), after a notifier error (events lost) and at every
// rescan: it returns freshness.ErrLockLost when another process locked
// the new file first. Any other failure is logged once and tried again
// at the next rescan or event.
func (w *watcher) relock(now time.Time) error {
	l, err := freshness.Relock(w.opts.Home, w.lock, now)
	switch {
	case errors.Is(err, freshness.ErrLockLost):
		return err
	case err != nil:
		if !w.relockFailing {
			w.log.Error("Cannot lock the home's watcher lock again: a second watcher could start beside this one until it can", "path", w.opts.Home.WatcherLock(), "err", err.Error())
		}
		w.relockFailing = true
	case l != w.lock:
		w.lock = l
		w.relockFailing = false
		w.watchLock() // state/ made again: its watch went with the old one
		if !l.Named(w.opts.Home.WatcherLock()) {
			// Gone again before its watch: no event will say so.
			w.relockAt = now.Add(relockQuiet)
		}
		w.log.Warn("The home's watcher lock file was gone; locked it again", "path", w.opts.Home.WatcherLock())
	}
	return nil
}

// stop waits for a running sync (it sees the cancelled context) and
// records the stop.
func (w *watcher) stop() {
	if w.syncing {
		w.finish(<-w.done)
	}
	now := w.opts.Now()
	w.st.StoppedAt = now.UTC()
	w.save(now)
	w.log.Info("Watcher stopped")
}

// nextWake is when the loop must act next without an event: a relock
// after state/ went, the end of the debounce of unreconciled events, or
// the earliest start of a sync for a confirmed change.
func (w *watcher) nextWake() (time.Time, bool) {
	at, ok := w.relockAt, !w.relockAt.IsZero()
	if len(w.dirtyFiles)+len(w.dirtySources) > 0 {
		t := w.lastDirty.Add(w.opts.Quiet)
		if limit := w.firstDirty.Add(w.opts.MaxWait); limit.Before(t) {
			t = limit
		}
		if !ok || t.Before(at) {
			at, ok = t, true
		}
	}
	if w.pending && !w.syncing {
		t := w.syncDue()
		if !ok || t.Before(at) {
			at, ok = t, true
		}
	}
	return at, ok
}

// syncDue is when a sync for the pending changes may start: once the
// sources have been quiet for Quiet after the last event, but no later
// than MaxWait after the oldest pending change, and never before
// notBefore (back-off and spacing).
func (w *watcher) syncDue() time.Time {
	due := w.pendingSince
	if !w.lastEvent.Before(w.pendingSince) {
		due = w.lastEvent.Add(w.opts.Quiet)
		if limit := w.pendingSince.Add(w.opts.MaxWait); limit.Before(due) {
			due = limit
		}
	}
	if due.Before(w.notBefore) {
		due = w.notBefore
	}
	return due
}

// act reconciles events whose debounce is over and starts a sync when a
// confirmed change waits and none runs.
func (w *watcher) act(ctx context.Context, now time.Time) {
	if len(w.dirtyFiles)+len(w.dirtySources) > 0 {
		due := w.lastDirty.Add(w.opts.Quiet)
		if limit := w.firstDirty.Add(w.opts.MaxWait); limit.Before(due) {
			due = limit
		}
		if !now.Before(due) {
			w.reconcile(now, triggerChange)
		}
	}
	if w.pending && !w.syncing && !now.Before(w.syncDue()) && ctx.Err() == nil {
		w.startSync(ctx, now)
	}
}

// onEvent records one file system event as something to look at once
// the sources are quiet.
func (w *watcher) onEvent(ev fsnotify.Event, now time.Time) {
	name := filepath.Clean(ev.Name)
	if back := w.tree.anchoredBy(name); len(back) > 0 {
		// On the way back to a missing source folder: watch it again
		// (or a closer anchor) and list the source.
		for _, i := range back {
			w.tree.place(i)
		}
		w.lastEvent = now
		w.dirty(now, "", back)
	} else if moved := w.tree.relinked(name); len(moved) > 0 && ev.Has(fsnotify.Create) {
		// A source's link made anew, pointing elsewhere: the watches
		// below it follow the folder it pointed to; watch the one it
		// points to now, and list the source again.
		w.tree.drop(name)
		for _, i := range moved {
			w.tree.place(i)
		}
		w.lastEvent = now
		w.dirty(now, "", moved)
		return
	}
	if (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && slices.Contains(w.tree.anchors, name) {
		// An anchor went too: anchor further up.
		w.tree.drop(name)
		moved := w.tree.displaced(name)
		for _, i := range moved {
			w.tree.place(i)
		}
		w.dirty(now, "", moved)
		return
	}
	owners := w.tree.owners(name)
	if len(owners) == 0 {
		return
	}
	w.lastEvent = now
	// What happens in a folder a source's listing skips (hidden,
	// excluded) is nothing to it; what the others read still counts.
	owners = slices.DeleteFunc(owners, func(i int) bool { return w.tree.ignores(i, name) })
	if len(owners) == 0 {
		return
	}
	if ev.Op == fsnotify.Chmod {
		// A permission change may make a note readable that was not. The
		// stat, mode included, tells it from attribute noise (Spotlight,
		// the one a delete sends before its Remove) at no more cost.
		if w.tree.known(name) {
			w.dirty(now, name, nil)
		} else if fi, err := os.Lstat(name); err == nil && fi.IsDir() {
			w.tree.watchNew(name) // a folder that can be listed now
			w.dirty(now, "", owners)
		}
		return
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		if _, ok := w.tree.watched[name]; ok || w.tree.polled[name] {
			// A folder went away (or moved: its new name arrives as a
			// Create); everything below it is gone from here. A source
			// whose own folder went is anchored above it meanwhile.
			w.tree.drop(name)
			for _, i := range w.tree.displaced(name) {
				w.tree.place(i)
			}
			w.dirty(now, "", owners)
			return
		}
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(name); err == nil && fi.IsDir() {
			if !w.tree.entered(name) {
				return // a folder no listing enters: nothing in it is read
			}
			// A new folder: watch it and everything in it at once. Files
			// written before the watch existed are found by the relist.
			w.tree.watchNew(name)
			w.dirty(now, "", owners)
			return
		}
	}
	if w.tree.known(name) {
		w.dirty(now, name, nil)
		return
	}
	if links := w.tree.linksTo(name); len(links) > 0 {
		// A file some source reads through a link: stat the link again.
		for _, l := range links {
			w.dirty(now, l, nil)
		}
		return
	}
	// A file no source reads yet: list again only the sources that may
	// read it.
	owners = slices.DeleteFunc(owners, func(i int) bool { return !w.tree.mayList(i, name) })
	if len(owners) > 0 {
		w.dirty(now, "", owners)
	}
}

// dirty marks a file to stat again, or sources to list again.
func (w *watcher) dirty(now time.Time, file string, sources []int) {
	if len(w.dirtyFiles)+len(w.dirtySources) == 0 {
		w.firstDirty = now
	}
	w.lastDirty = now
	if file != "" {
		w.dirtyFiles[file] = true
	}
	for _, i := range sources {
		w.dirtySources[i] = true
	}
}

// onError handles a notifier error. After an overflow events were lost,
// so every source is listed again and every folder re-walked now.
func (w *watcher) onError(err error, now time.Time) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		w.log.Warn("File system events overflowed; rescanning every source")
	} else {
		w.log.Warn("File system notification error; rescanning every source", "err", err)
	}
	w.tree.watchAll()
	all := make([]int, len(w.opts.Sources))
	for i := range all {
		all[i] = i
	}
	w.dirty(now, "", all)
}

// rescan is the safety net: re-walk every folder (watching new ones and
// retrying polled ones) and compare every file's stat. The short rescan
// that polled folders bring (LimitedRescan) lists only the sources that
// have one; the others, whose folders all have their watch, are listed
// at the full period (Rescan), as when nothing is polled: listing a
// source stats every file of it.
func (w *watcher) rescan(now time.Time) {
	w.tree.watchAll()
	full := !now.Before(w.fullRescanAt.Add(w.opts.Rescan))
	if full {
		w.fullRescanAt = now
	}
	var srcs []int
	for i := range w.opts.Sources {
		if full || w.tree.polls(i) {
			srcs = append(srcs, i)
		}
	}
	w.dirty(now, "", srcs)
	found := w.reconcile(now, triggerRescan)
	w.st.LastRescanAt = now.UTC()
	if !found {
		w.save(now)
	}
}

// reconcile stats and lists what events pointed at and records real
// changes as pending. It reports whether anything changed.
func (w *watcher) reconcile(now time.Time, trigger string) bool {
	var c change
	for i := range w.dirtySources {
		w.tree.relist(i, &c)
	}
	for p := range w.dirtyFiles {
		w.tree.restat(p, &c)
	}
	first := w.firstDirty
	clear(w.dirtyFiles)
	clear(w.dirtySources)
	w.firstDirty, w.lastDirty = time.Time{}, time.Time{}
	if !c.any() {
		// New folders or a limit hit are news for the state even
		// without a file change.
		if w.st.Watched.Dirs != len(w.tree.watched) || w.st.Watched.PolledDirs != len(w.tree.polled) || w.savedLimits != len(w.st.Limits) {
			w.save(now)
		}
		return false
	}
	// A removed file whose inode reappears under a new name was renamed
	// (or rotated): it is not gone.
	addedIno := map[uint64]bool{}
	for _, p := range c.added {
		delete(w.gone, p)
		if ino := w.tree.inode(p); ino != 0 {
			addedIno[ino] = true
		}
	}
	renamed := 0
	for _, r := range c.removed {
		switch {
		case r.inode != 0 && addedIno[r.inode]:
			renamed++
		case !w.tree.known(r.path) && !ingest.IsCloudStub(r.path):
			// A stub that went was downloaded: its note came back.
			if _, ok := w.gone[r.path]; !ok {
				w.gone[r.path] = now
			}
		}
	}
	// An agent's every burst is a change: that is routine, and the sync's
	// own line says what came of it (see startSync). What the rescan
	// reconciles (every few minutes) may be what notifications missed:
	// worth a line.
	level := slog.LevelDebug
	if trigger != triggerChange {
		level = slog.LevelInfo
	}
	w.log.Log(context.Background(), level, "Sources changed", "added", len(c.added)-renamed, "changed", len(c.changed), "removed", len(c.removed)-renamed, "renamed", renamed, "by", trigger)
	w.st.SourcesChangedAt = now.UTC()
	if first.IsZero() || first.After(now) {
		first = now
	}
	if w.nothingYet {
		// The sources held no memory: this change may be the first, and
		// only a change can cure that failure. Sync once quiet.
		w.notBefore = time.Time{}
	}
	w.markPending(first, trigger)
	w.save(now)
	return true
}

func (w *watcher) markPending(since time.Time, trigger string) {
	if !w.pending {
		w.pending, w.pendingSince, w.trigger = true, since, trigger
	}
	if w.st.PendingSince.IsZero() {
		w.st.PendingSince = since.UTC()
	}
}

// startSync runs one sync on its own goroutine.
func (w *watcher) startSync(ctx context.Context, now time.Time) {
	w.syncing, w.pending = true, false
	w.covering, w.pendingSince = w.pendingSince, time.Time{}
	trigger := w.trigger
	if w.failures > 0 {
		trigger = triggerRetry
	}
	w.st.Running = &freshness.Sync{StartedAt: now.UTC(), Trigger: trigger}
	// A routine sync (an agent wrote) logs one line, when it finishes:
	// under launchd the log is a file nothing rotates, and a busy agent
	// makes a sync every few seconds all day.
	level := slog.LevelDebug
	if trigger != triggerChange {
		level = slog.LevelInfo
	}
	w.log.Log(ctx, level, "Sync started", "trigger", trigger)
	w.save(now)
	go func() {
		out, err := w.opts.Syncer.Sync(ctx)
		w.done <- syncResult{out: out, err: err, started: now, finished: w.opts.Now()}
	}()
}

// finish records a sync's result and decides what comes next.
func (w *watcher) finish(r syncResult) {
	w.syncing = false
	s := w.st.Running
	w.st.Running, w.st.LastSync = nil, s
	s.FinishedAt = r.finished.UTC()
	changedMeanwhile := w.pending
	w.nothingYet = errors.Is(r.err, ErrNothingYet)
	took := r.finished.Sub(r.started).Round(time.Millisecond)
	switch r.err {
	case nil:
		w.failures = 0
		s.Result, s.RunID, s.Chunks = freshness.ResultOK, r.out.RunID, r.out.Chunks
		if r.out.GoneFiles != nil {
			clear(w.gone)
			for _, p := range r.out.GoneFiles {
				w.gone[p] = r.finished
			}
		}
		if r.out.Unsettled > 0 {
			// The index kept the earlier memory of files it could not
			// read this time (they kept changing, or too many files were
			// open), and the snapshot already holds their new stat:
			// neither an event nor the rescan may bring them back. Retry,
			// backing off, and stay pending meanwhile.
			w.unsettled++
			if !w.pending {
				w.trigger = triggerRetry
			}
			w.restorePending()
			w.st.PendingSince = w.pendingSince.UTC()
			backoff := min(w.opts.BusyRetry<<min(w.unsettled-1, 20), w.opts.MaxBackoff)
			w.notBefore = r.finished.Add(backoff)
			w.log.Info("Sync could not read some files this time and kept their earlier memory; retrying", "in", backoff.String(), "files", r.out.Unsettled, "runId", r.out.RunID, "took", took.String())
			break
		}
		w.unsettled = 0
		w.st.CaughtUpAt = r.started.UTC()
		w.st.PendingSince = time.Time{}
		if w.pending {
			w.st.PendingSince = w.pendingSince.UTC()
		}
		// Space syncs out: a stream of appends gets a sync every
		// Quiet..MaxWait, not one after another back to back.
		w.notBefore = r.finished.Add(w.opts.Quiet)
		w.log.Info("Sync finished", "runId", r.out.RunID, "chunks", r.out.Chunks, "trigger", s.Trigger, "took", took.String(), "pending", w.pending)
	default:
		w.restorePending()
		if errors.Is(r.err, ErrBusy) {
			s.Result, s.Error = freshness.ResultBusy, r.err.Error()
			w.notBefore = r.finished.Add(w.opts.BusyRetry)
			w.log.Info("Another index writer is running; retrying", "in", w.opts.BusyRetry.String(), "err", r.err)
			break
		}
		if errors.Is(r.err, context.Canceled) {
			s.Result = freshness.ResultCancelled
			w.log.Info("Sync cancelled")
			break
		}
		s.Result, s.Error = freshness.ResultFailed, r.err.Error()
		if full, ok := errors.AsType[*index.DiskFullError](r.err); ok {
			s.NoRoom = full.Cause()
		}
		w.failures++
		backoff := w.opts.BusyRetry << min(w.failures, 20)
		backoff = min(backoff, w.opts.MaxBackoff)
		if w.nothingYet && changedMeanwhile {
			// A change confirmed while this sync ran, which it may not
			// have read, may be the sources' first memory (see reconcile).
			backoff = w.opts.Quiet
		}
		w.notBefore = r.finished.Add(backoff)
		logged := r.err
		if re, ok := errors.AsType[Retrier](r.err); ok {
			logged = re.Retrying(backoff)
			// Doctor shows the state's error long after: no wait in it.
			s.Error = re.Retrying(0).Error()
		}
		w.log.Error("Sync failed; retrying", "in", backoff.String(), "failures", w.failures, "err", logged)
	}
	w.st.Syncs[s.Result]++
	// Changes that arrived during the sync are confirmed now, so the
	// state shows their lag instead of "caught up".
	if len(w.dirtyFiles)+len(w.dirtySources) > 0 && w.reconcile(r.finished, triggerChange) {
		return // reconcile saved
	}
	w.save(r.finished)
}

// restorePending puts the changes a failed sync covered back.
func (w *watcher) restorePending() {
	since := w.covering
	if w.pending && (since.IsZero() || w.pendingSince.Before(since)) {
		since = w.pendingSince
	}
	w.pending, w.pendingSince = true, since
}

func (w *watcher) rescanInterval() time.Duration {
	if len(w.tree.polled) > 0 {
		return w.opts.LimitedRescan
	}
	return w.opts.Rescan
}

// limitHit records a limit once per name, and logs it once.
func (w *watcher) limitHit(name string, value int, msg string) {
	for _, l := range w.st.Limits {
		if l.Name == name {
			return
		}
	}
	w.st.Limits = append(w.st.Limits, freshness.Limit{Name: name, Value: value, Message: msg, At: w.opts.Now().UTC()})
	w.log.Warn("Watch limit reached: falling back to the rescan for the rest", "limit", name, "value", value, "rescanEvery", w.opts.LimitedRescan.String(), "advice", msg)
}

// save publishes the state. A failed write is logged, not fatal: the
// state is a report, and the next save may succeed. It is logged once
// until a save succeeds: a full disk would otherwise add a line at every
// change and sync of a busy source.
func (w *watcher) save(now time.Time) {
	if !w.relockAt.IsZero() {
		return // state/ is being removed: saved once it is locked again
	}
	w.st.UpdatedAt = now.UTC()
	w.st.RescanIntervalSeconds = int(w.rescanInterval() / time.Second)
	w.st.Watched = freshness.Watched{Sources: len(w.opts.Sources), Dirs: len(w.tree.watched), PolledDirs: len(w.tree.polled), Files: w.tree.files()}
	files := make([]string, 0, len(w.gone))
	for p := range w.gone {
		files = append(files, p)
	}
	sort.Strings(files)
	w.st.Gone.Count = len(files)
	w.st.Gone.Files = files[:min(len(files), freshness.MaxGoneListed)]
	w.savedLimits = len(w.st.Limits)
	err := freshness.Write(w.opts.Home, &w.st)
	switch {
	case err != nil && !w.saveFailing:
		w.saveFailing = true
		w.log.Warn("Cannot write the watcher state; said once until it can", "err", fmt.Sprint(err))
	case err != nil:
		w.log.Debug("Cannot write the watcher state", "err", fmt.Sprint(err))
	case w.saveFailing:
		w.saveFailing = false
		w.log.Info("The watcher state is written again")
	}
}
