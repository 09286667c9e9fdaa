package manifest

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watcher notifies its owner that the manifest may have changed. It
// watches the manifest's directory (editors and atomic writers replace the
// file, which a watch on the file itself would lose), debounces bursts,
// ignores chmod noise, and also fires on a fixed poll so that a lost event
// or a filesystem without notifications still converges. It does not read
// the manifest: the owner decides, by content hash, whether anything
// changed.
type Watcher struct {
	// C receives one value per debounced change or poll tick. It is
	// buffered with capacity 1, so triggers that arrive while the owner is
	// busy coalesce into one.
	C <-chan struct{}

	c      chan struct{}
	cancel context.CancelFunc
	wg     sync.WaitGroup
	fsw    *fsnotify.Watcher
	log    *slog.Logger
	poll   time.Duration
	errMu  sync.Mutex
	lastEr error
}

// WatchOptions tune a Watcher.
type WatchOptions struct {
	// Debounce is how long to wait after the last event; default 200 ms.
	Debounce time.Duration
	// Poll is the fallback interval; default 30 s.
	Poll time.Duration
	// Log, when set, is told of a watch that failed (an inotify limit, a
	// queue overflow), once per distinct error: changes are then seen
	// only at the poll, and nothing else would say why they are late.
	Log *slog.Logger
}

// Watch starts watching dir for changes to the file named name. If dir
// does not exist yet, its nearest existing ancestor is watched until it
// appears; if nothing can be watched, the watcher runs on polling alone
// and retries the watch on each tick.
func Watch(dir, name string, opts WatchOptions) *Watcher {
	if opts.Debounce <= 0 {
		opts.Debounce = 200 * time.Millisecond
	}
	if opts.Poll <= 0 {
		opts.Poll = 30 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := make(chan struct{}, 1)
	w := &Watcher{C: c, c: c, cancel: cancel, log: opts.Log, poll: opts.Poll}
	armed := make(chan struct{})
	w.wg.Add(1)
	go w.run(ctx, dir, name, opts, armed)
	// Return only once the first watch is in place: the owner reads the
	// manifest next, and a change made between that read and a late watch
	// would otherwise wait for the poll.
	<-armed
	return w
}

// Err returns the last watcher error, if any (events may have been lost;
// polling covers for them).
func (w *Watcher) Err() error {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return w.lastEr
}

// Close stops the watcher and waits for its goroutine.
func (w *Watcher) Close() {
	w.cancel()
	w.wg.Wait()
}

func (w *Watcher) setErr(err error) {
	w.errMu.Lock()
	again := w.lastEr != nil && w.lastEr.Error() == err.Error()
	w.lastEr = err
	w.errMu.Unlock()
	if w.log != nil && !again {
		w.log.Warn("Watching the index for changes failed; a promotion is seen at the next poll", "err", err, "poll", w.poll.String())
	}
}

func (w *Watcher) notify() {
	select {
	case w.c <- struct{}{}:
	default:
	}
}

// run owns the fsnotify watcher and the debounce timer. It watches dir
// when it exists, else its nearest existing ancestor, and moves down as
// the missing directories appear (and back up when dir is removed): in a
// new home the first promotion creates index/ and its manifest at once,
// and must be seen then, not at the next poll.
func (w *Watcher) run(ctx context.Context, dir, name string, opts WatchOptions, armed chan<- struct{}) {
	defer w.wg.Done()
	dir = filepath.Clean(dir)
	var fsw *fsnotify.Watcher
	parent := filepath.Dir(dir)
	// watched is dir, or its nearest existing ancestor ("" when nothing
	// is watched), and watchedFI the directory it was when watched: a
	// watch follows a directory, not its name, so another directory
	// taking the name (renamed over it, or removed and made again before
	// this looked) is watched afresh. parentWatched says dir's parent is
	// watched too (parentFI: which directory), so that dir's removal is
	// seen at once; when watched is the parent, it is the same watch.
	watched, parentWatched := "", false
	var watchedFI, parentFI os.FileInfo
	// armStep makes one move and reports whether the target changed after
	// it was watched.
	armStep := func() bool {
		if fsw == nil {
			nw, err := fsnotify.NewWatcher()
			if err != nil {
				w.setErr(err)
				return false
			}
			fsw, watched, parentWatched = nw, "", false
		}
		hadWatch := watched != ""
		if parentWatched {
			if fi, err := os.Stat(parent); err != nil || !os.SameFile(fi, parentFI) {
				// The parent was removed or replaced: its watch went with it.
				_ = fsw.Remove(parent) // fails when the old one is gone
				parentWatched = false
				if watched == parent {
					watched = ""
				}
			}
		}
		target := nearestDir(dir)
		fi, err := os.Stat(target)
		if err != nil {
			return true // gone since nearestDir looked: look again
		}
		if watched != target || !os.SameFile(fi, watchedFI) {
			if watched != "" && !(watched == parent && parentWatched) {
				_ = fsw.Remove(watched) // fails when the directory itself is gone
			}
			watched = ""
			if !(target == parent && parentWatched) {
				if err := fsw.Add(target); err != nil {
					w.setErr(err)
					return false
				}
			}
			watched, watchedFI = target, fi
			if target == parent {
				parentWatched, parentFI = true, fi
			}
			if hadWatch && target == dir {
				// dir just appeared, or another took its place: the
				// manifest may have been written into it before the watch
				// was in place.
				w.notify()
			}
		}
		if target == dir && !parentWatched {
			// Also watch dir's parent: the removal of dir is reported there
			// at once, while dir's own removal event waits until nothing
			// holds the directory (novad maps files under it).
			if pfi, err := os.Stat(parent); err == nil && fsw.Add(parent) == nil {
				parentWatched, parentFI = true, pfi
			}
		}
		return nearestDir(dir) != target
	}
	// arm watches the nearest existing directory on the way to dir. A
	// directory may appear between finding the nearest one and watching
	// it (a first sync creates nova/ and nova/index/ at once), and its
	// creation is then reported to no one: so look again after each step
	// until the answer holds.
	arm := func() {
		for range 64 {
			if !armStep() {
				return
			}
		}
	}
	disarm := func() {
		if fsw != nil {
			fsw.Close()
			fsw, watched, parentWatched = nil, "", false
		}
	}
	defer disarm()
	arm()
	close(armed)

	poll := time.NewTicker(opts.Poll)
	defer poll.Stop()
	var debounce *time.Timer
	var debounceC <-chan time.Time
	for {
		var events <-chan fsnotify.Event
		var errs <-chan error
		if fsw != nil {
			events, errs = fsw.Events, fsw.Errors
		}
		select {
		case <-ctx.Done():
			if debounce != nil {
				debounce.Stop()
			}
			return
		case ev, ok := <-events:
			if !ok {
				// The watcher closed under us; polling continues and the
				// next tick re-arms it.
				disarm()
				continue
			}
			if onPath(ev.Name, dir) {
				// A directory on the way to dir (or dir itself) appeared,
				// moved or went away: watch the nearest one that exists.
				arm()
				if ev.Name == dir {
					w.notify() // dir was removed or replaced: let the owner look
				}
				continue
			}
			if watched != dir || filepath.Base(ev.Name) != name || filepath.Dir(ev.Name) != dir || ev.Op == fsnotify.Chmod {
				continue
			}
			if debounce == nil {
				debounce = time.NewTimer(opts.Debounce)
			} else {
				debounce.Reset(opts.Debounce)
			}
			debounceC = debounce.C
		case err, ok := <-errs:
			if !ok {
				disarm()
				continue
			}
			// After an error events may have been lost: re-check now.
			w.setErr(err)
			w.notify()
		case <-debounceC:
			debounceC = nil
			w.notify()
		case <-poll.C:
			arm()
			w.notify()
		}
	}
}

// nearestDir returns dir if it is a directory, else its nearest ancestor
// that is.
func nearestDir(dir string) string {
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

// onPath reports whether p is dir or one of its ancestors.
func onPath(p, dir string) bool {
	return p == dir || strings.HasPrefix(dir, strings.TrimSuffix(p, string(filepath.Separator))+string(filepath.Separator))
}
