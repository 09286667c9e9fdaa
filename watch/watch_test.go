package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/paths"
)

// These tests run the watch loop in a synctest bubble: time is a fake
// clock that advances only when every goroutine waits, so a test of a
// 5-minute rescan takes microseconds and timings are exact. Files are
// real; events come from a fake notifier the test feeds, as fsnotify
// would; the syncer is a fake that records when it was called.

type fakeNotifier struct {
	events chan fsnotify.Event
	errs   chan error
	mu     sync.Mutex
	added  []string
	// failAfter makes Add fail with ENOSPC once this many watches exist
	// (0: never).
	failAfter int
	// denied makes Add fail with EACCES for this folder, as inotify does
	// for one this user may not read.
	denied string
	// removed, when set, is told of each Remove.
	removed func(string)
}

func newFakeNotifier() *fakeNotifier {
	return &fakeNotifier{events: make(chan fsnotify.Event), errs: make(chan error)}
}

func (f *fakeNotifier) Add(p string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failAfter > 0 && len(f.added) >= f.failAfter {
		return fmt.Errorf("inotify_add_watch: %w", syscall.ENOSPC)
	}
	if p == f.denied {
		// Named, as an error that opens the folder (a kqueue watch)
		// names it: what logs it must not quote a secret in the name.
		return fmt.Errorf("inotify_add_watch %s: %w", p, syscall.EACCES)
	}
	f.added = append(f.added, p)
	return nil
}
func (f *fakeNotifier) Remove(p string) error {
	if f.removed != nil {
		f.removed(p)
	}
	return nil
}
func (f *fakeNotifier) Events() <-chan fsnotify.Event { return f.events }
func (f *fakeNotifier) Errors() <-chan error          { return f.errs }
func (f *fakeNotifier) Close() error                  { return nil }

func (f *fakeNotifier) watched(p string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.added {
		if a == p {
			return true
		}
	}
	return false
}

type fakeSyncer struct {
	mu    sync.Mutex
	calls []time.Time
	// errs are returned by the first calls, in order.
	errs []error
	// took is how long each sync takes (fake time).
	took time.Duration
	// block, when set, makes Sync wait for the context.
	block bool
	gone  []string
	// unsettled are the Unsettled counts of the first calls, in order.
	unsettled []int
}

func (f *fakeSyncer) Sync(ctx context.Context) (Outcome, error) {
	f.mu.Lock()
	n := len(f.calls)
	f.calls = append(f.calls, time.Now())
	var err error
	if n < len(f.errs) {
		err = f.errs[n]
	}
	took, block := f.took, f.block
	unsettled := 0
	if n < len(f.unsettled) {
		unsettled = f.unsettled[n]
	}
	f.mu.Unlock()
	if block {
		<-ctx.Done()
		return Outcome{}, ctx.Err()
	}
	time.Sleep(took)
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{RunID: fmt.Sprintf("run-%d", n+1), Chunks: 10 + n, GoneFiles: f.gone, Unsettled: unsettled}, nil
}

func (f *fakeSyncer) times() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.calls...)
}

// jsonlLister lists *.jsonl below the source path, skipping hidden
// folders, like the ingest readers of a jsonl source.
func jsonlLister(src config.Source) ([]string, error) {
	var out []string
	err := filepath.WalkDir(src.Path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != src.Path && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

type harness struct {
	t      *testing.T
	src    string
	home   paths.Home
	n      *fakeNotifier
	s      *fakeSyncer
	t0     time.Time
	cancel context.CancelFunc
	done   chan error
}

// start runs the watcher over a source folder holding a.jsonl. It must be
// called inside a bubble.
func start(t *testing.T, tune func(*Options, *fakeNotifier, *fakeSyncer)) *harness {
	t.Helper()
	root := t.TempDir()
	h := &harness{t: t, src: filepath.Join(root, "src"), home: paths.Home{Root: filepath.Join(root, "home")},
		n: newFakeNotifier(), s: &fakeSyncer{took: 2 * time.Second}, done: make(chan error, 1)}
	must(t, os.MkdirAll(h.src, 0o755))
	must(t, os.WriteFile(filepath.Join(h.src, "a.jsonl"), []byte("{\"id\":\"1\",\"text\":\"one\"}\n"), 0o644))
	opts := Options{Home: h.home, Sources: []config.Source{{Name: "s", Kind: config.KindJSONL, Path: h.src}},
		Syncer: h.s, Lister: jsonlLister,
		newNotifier: func() (notifier, error) { return h.n, nil }}
	if tune != nil {
		tune(&opts, h.n, h.s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.t0 = time.Now()
	go func() { h.done <- Run(ctx, opts) }()
	// A failing test must still end the loop: a bubble may not exit with
	// goroutines blocked in it.
	t.Cleanup(func() {
		if h.cancel != nil {
			h.cancel()
			if err := <-h.done; err != nil {
				t.Logf("watch loop ended: %v", err)
			}
		}
	})
	synctest.Wait()
	return h
}

func (h *harness) stop() {
	h.t.Helper()
	h.cancel()
	h.cancel = nil
	if err := <-h.done; err != nil {
		h.t.Fatalf("Run: %v", err)
	}
}

// appendLine appends to a file and delivers the Write event.
func (h *harness) appendLine(p string) {
	h.t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	must(h.t, err)
	_, err = f.WriteString("{\"id\":\"x\",\"text\":\"more\"}\n")
	must(h.t, err)
	must(h.t, f.Close())
	h.n.events <- fsnotify.Event{Name: p, Op: fsnotify.Write}
}

func (h *harness) state() *freshness.State {
	h.t.Helper()
	st, err := freshness.Read(h.home)
	if err != nil {
		h.t.Fatal(err)
	}
	return st
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestBurstIsCoalescedIntoOneSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, nil)
		a := filepath.Join(h.src, "a.jsonl")
		for range 30 { // 3 s of a line every 100 ms
			h.appendLine(a)
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(10 * time.Second)
		calls := h.s.times()
		if len(calls) != 1 {
			t.Fatalf("%d syncs for one burst, want 1", len(calls))
		}
		// The last append came at 2.9 s; the sync starts one quiet second later.
		if got := calls[0].Sub(h.t0); got != 2900*time.Millisecond+DefaultQuiet {
			t.Fatalf("sync started %s after the burst began, want 3.9s", got)
		}
		st := h.state()
		if st.LastSync == nil || st.LastSync.Result != freshness.ResultOK || st.LastSync.RunID != "run-1" || st.LastSync.Trigger != triggerChange {
			t.Fatalf("last sync: %+v", st.LastSync)
		}
		if !st.PendingSince.IsZero() || !st.CaughtUpAt.Equal(calls[0].UTC()) {
			t.Fatalf("after the sync: pending since %v, caught up %v (sync started %v)", st.PendingSince, st.CaughtUpAt, calls[0])
		}
		if !st.SourcesChangedAt.After(h.t0) {
			t.Fatalf("sourcesChangedAt %v not recorded", st.SourcesChangedAt)
		}
		h.stop()
	})
}

func TestContinuousStreamDoesNotStarveTheIndex(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, nil)
		a := filepath.Join(h.src, "a.jsonl")
		lagging := 0
		for range 300 { // 30 s without a quiet second
			h.appendLine(a)
			time.Sleep(100 * time.Millisecond)
			if !h.state().PendingSince.IsZero() {
				lagging++
			}
		}
		calls := h.s.times()
		if len(calls) < 4 {
			t.Fatalf("only %d syncs during 30 s of appends: the stream starves the index", len(calls))
		}
		if first := calls[0].Sub(h.t0); first > DefaultMaxWait {
			t.Fatalf("first sync after %s, want within MaxWait %s", first, DefaultMaxWait)
		}
		for i := 1; i < len(calls); i++ {
			gap := calls[i].Sub(calls[i-1])
			// A sync takes 2 s, then syncs are spaced by at least Quiet;
			// never more than sync + MaxWait apart.
			if gap < 2*time.Second+DefaultQuiet || gap > 2*time.Second+DefaultMaxWait {
				t.Fatalf("syncs %d and %d are %s apart", i, i+1, gap)
			}
		}
		// While the stream runs, the state mostly shows a lag.
		if lagging < 150 {
			t.Fatalf("a pending change was recorded in only %d of 300 samples", lagging)
		}
		h.stop()
	})
}

func TestUnrelatedFilesAndChmodDoNotSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, nil)
		tmp := filepath.Join(h.src, "notes.tmp")
		must(t, os.WriteFile(tmp, []byte("x"), 0o644))
		h.n.events <- fsnotify.Event{Name: tmp, Op: fsnotify.Create}
		h.n.events <- fsnotify.Event{Name: filepath.Join(h.src, "a.jsonl"), Op: fsnotify.Chmod}
		hiddenDir := filepath.Join(h.src, ".git")
		must(t, os.MkdirAll(hiddenDir, 0o755))
		h.n.events <- fsnotify.Event{Name: filepath.Join(hiddenDir, "x.jsonl"), Op: fsnotify.Create}
		time.Sleep(time.Minute)
		if n := len(h.s.times()); n != 0 {
			t.Fatalf("%d syncs for changes no source reads", n)
		}
		if h.n.watched(hiddenDir) {
			t.Fatal("a hidden folder was watched")
		}
		h.stop()
	})
}

// TestPermissionChangeSyncs: a Chmod event for a file whose mode really
// changed (a note made readable: nothing else about it changes) leads to
// a sync; the rescan sees the mode too. Root reads any file, so this
// checks the event and the stat, not the reading.
func TestPermissionChangeSyncs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b string
		h := start(t, func(o *Options, _ *fakeNotifier, _ *fakeSyncer) {
			b = filepath.Join(o.Sources[0].Path, "b.jsonl")
			must(t, os.WriteFile(b, []byte("{}\n"), 0o644))
			must(t, os.Chmod(b, 0))
		})
		must(t, os.Chmod(b, 0o644))
		h.n.events <- fsnotify.Event{Name: b, Op: fsnotify.Chmod}
		time.Sleep(5 * time.Second)
		if n := len(h.s.times()); n != 1 {
			t.Fatalf("%d syncs after a note was made readable, want 1", n)
		}
		// Made unreadable again with the event lost: the rescan finds it.
		must(t, os.Chmod(b, 0))
		time.Sleep(DefaultRescan)
		if calls := h.s.times(); len(calls) != 2 || h.state().LastSync.Trigger != triggerRescan {
			t.Fatalf("%d syncs; want the rescan to find a mode change", len(calls))
		}
		h.stop()
	})
}

func TestSyncAtStart(t *testing.T) {
	for _, atStart := range []bool{true, false} {
		t.Run(fmt.Sprint(atStart), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := start(t, func(o *Options, _ *fakeNotifier, _ *fakeSyncer) { o.SyncAtStart = atStart })
				time.Sleep(5 * time.Second)
				calls := h.s.times()
				want := 0
				if atStart {
					want = 1
				}
				if len(calls) != want {
					t.Fatalf("%d syncs at start, want %d", len(calls), want)
				}
				st := h.state()
				if atStart && (st.LastSync.Trigger != triggerStart || !calls[0].Equal(h.t0) || !st.CaughtUpAt.Equal(h.t0.UTC())) {
					t.Fatalf("start sync: %+v at %v, caught up %v", st.LastSync, calls[0], st.CaughtUpAt)
				}
				// Without a start sync the watcher vouches only from now on.
				if !atStart && !st.CaughtUpAt.Equal(h.t0.UTC()) {
					t.Fatalf("caught up %v, want the start %v", st.CaughtUpAt, h.t0)
				}
				h.stop()
			})
		})
	}
}

func TestBusyIndexIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, func(_ *Options, _ *fakeNotifier, s *fakeSyncer) {
			s.errs = []error{fmt.Errorf("sync: %w", ErrBusy)}
		})
		h.appendLine(filepath.Join(h.src, "a.jsonl"))
		time.Sleep(time.Minute)
		calls := h.s.times()
		if len(calls) != 2 {
			t.Fatalf("%d syncs, want a busy one and its retry", len(calls))
		}
		if gap := calls[1].Sub(calls[0]); gap != 2*time.Second+DefaultBusyRetry {
			t.Fatalf("retry %s after the busy sync started, want sync 2s + %s", gap, DefaultBusyRetry)
		}
		st := h.state()
		if st.LastSync.Result != freshness.ResultOK || st.LastSync.Trigger != triggerChange || st.Syncs[freshness.ResultBusy] != 1 || !st.PendingSince.IsZero() {
			t.Fatalf("state after retry: %+v syncs %v", st.LastSync, st.Syncs)
		}
		h.stop()
	})
}

// TestUnsettledSyncIsRetried: a sync that kept the earlier memory of a
// file that kept changing while it was read is retried with no further
// event, backing off, and until then the state shows the change pending
// rather than caught up.
func TestUnsettledSyncIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, func(_ *Options, _ *fakeNotifier, s *fakeSyncer) { s.unsettled = []int{1, 1} })
		h.appendLine(filepath.Join(h.src, "a.jsonl"))
		changed := time.Now()
		time.Sleep(DefaultQuiet + 3*time.Second) // the first sync is over
		st := h.state()
		if len(h.s.times()) != 1 || st.LastSync.Result != freshness.ResultOK || !st.PendingSince.Equal(changed.UTC()) || !st.CaughtUpAt.Equal(h.t0.UTC()) {
			t.Fatalf("after an unsettled sync: %d syncs, last %+v, pending since %v (change at %v), caught up %v",
				len(h.s.times()), st.LastSync, st.PendingSince, changed, st.CaughtUpAt)
		}
		time.Sleep(time.Minute)
		calls := h.s.times()
		if len(calls) != 3 {
			t.Fatalf("%d syncs, want 2 unsettled ones and the retry that settles", len(calls))
		}
		for i, want := range []time.Duration{2*time.Second + DefaultBusyRetry, 2*time.Second + 2*DefaultBusyRetry} {
			if gap := calls[i+1].Sub(calls[i]); gap != want {
				t.Fatalf("retry %d came %s after the sync before started, want %s", i+1, gap, want)
			}
		}
		st = h.state()
		if st.LastSync.Trigger != triggerRetry || !st.PendingSince.IsZero() || !st.CaughtUpAt.Equal(calls[2].UTC()) {
			t.Fatalf("after the retries: last %+v, pending since %v, caught up %v", st.LastSync, st.PendingSince, st.CaughtUpAt)
		}
		h.stop()
	})
}

func TestFailedSyncsBackOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("disk full")
		h := start(t, func(_ *Options, _ *fakeNotifier, s *fakeSyncer) {
			s.errs = []error{boom, boom, boom}
			s.took = 0
		})
		h.appendLine(filepath.Join(h.src, "a.jsonl"))
		time.Sleep(time.Hour)
		calls := h.s.times()
		if len(calls) != 4 {
			t.Fatalf("%d syncs, want 3 failures and a success", len(calls))
		}
		for i, want := range []time.Duration{4 * time.Second, 8 * time.Second, 16 * time.Second} {
			if gap := calls[i+1].Sub(calls[i]); gap != want {
				t.Fatalf("retry %d after %s, want %s", i+1, gap, want)
			}
		}
		st := h.state()
		if st.Syncs[freshness.ResultFailed] != 3 || st.LastSync.Result != freshness.ResultOK || st.LastSync.Trigger != triggerRetry {
			t.Fatalf("state: %+v %v", st.LastSync, st.Syncs)
		}
		h.stop()
	})
}

// TestRunningSyncKeepsTheLastResult: while a sync runs, the state says so
// and still reports the sync before it: here a failure, which the running
// retry must not hide until it has succeeded.
func TestRunningSyncKeepsTheLastResult(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, func(_ *Options, _ *fakeNotifier, s *fakeSyncer) {
			s.errs = []error{errors.New("disk full")}
			s.took = 30 * time.Second
		})
		h.appendLine(filepath.Join(h.src, "a.jsonl"))
		for len(h.s.times()) < 2 {
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(time.Second) // the retry is running
		st := h.state()
		if st.Running == nil || st.Running.Trigger != triggerRetry || st.LastSync == nil || st.LastSync.Result != freshness.ResultFailed {
			t.Fatalf("during the retry: running %+v, last sync %+v", st.Running, st.LastSync)
		}
		time.Sleep(time.Minute)
		st = h.state()
		if st.Running != nil || st.LastSync.Result != freshness.ResultOK || st.LastSync.Trigger != triggerRetry {
			t.Fatalf("after the retry: running %+v, last sync %+v", st.Running, st.LastSync)
		}
		h.stop()
	})
}

func TestNewNestedFolderIsWatchedAndSynced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, nil)
		// Codex opens a new YYYY/MM/DD folder: only the top one's Create
		// reaches the watcher before the rest exists under it.
		year := filepath.Join(h.src, "2026")
		day := filepath.Join(year, "12", "01")
		must(t, os.MkdirAll(day, 0o755))
		must(t, os.WriteFile(filepath.Join(day, "rollout-1.jsonl"), []byte("{}\n"), 0o644))
		h.n.events <- fsnotify.Event{Name: year, Op: fsnotify.Create}
		synctest.Wait()
		for _, d := range []string{year, filepath.Join(year, "12"), day} {
			if !h.n.watched(d) {
				t.Fatalf("%s is not watched", d)
			}
		}
		time.Sleep(5 * time.Second)
		if n := len(h.s.times()); n != 1 {
			t.Fatalf("%d syncs for a new folder with a file, want 1", n)
		}
		if st := h.state(); st.Watched.Files != 2 || st.Watched.Dirs != 4 {
			t.Fatalf("watched: %+v", st.Watched)
		}
		h.stop()
	})
}

func TestWatchLimitFallsBackToRescan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var src string
		h := start(t, func(o *Options, n *fakeNotifier, _ *fakeSyncer) {
			n.failAfter = 2
			src = o.Sources[0].Path
			for _, d := range []string{"p1", "p2", "p3"} {
				must(t, os.MkdirAll(filepath.Join(src, d), 0o755))
			}
		})
		_ = src
		st := h.state()
		if len(st.Limits) != 1 || st.Limits[0].Name != freshness.LimitInotifyWatches || st.Watched.Dirs != 2 || st.Watched.PolledDirs != 2 {
			t.Fatalf("limit not recorded: limits %+v watched %+v", st.Limits, st.Watched)
		}
		if st.RescanIntervalSeconds != int(DefaultLimitedRescan/time.Second) {
			t.Fatalf("rescan every %ds with polled folders, want %s", st.RescanIntervalSeconds, DefaultLimitedRescan)
		}
		// A file appears in a folder that has no watch, and no event
		// comes: the short rescan finds it.
		var polled string
		for _, d := range []string{"p1", "p2", "p3"} {
			if p := filepath.Join(h.src, d); !h.n.watched(p) {
				polled = p
			}
		}
		must(t, os.WriteFile(filepath.Join(polled, "new.jsonl"), []byte("{}\n"), 0o644))
		time.Sleep(DefaultLimitedRescan + 3*time.Second)
		calls := h.s.times()
		if len(calls) != 1 || calls[0].Sub(h.t0) != DefaultLimitedRescan {
			t.Fatalf("syncs %v, want one at the first rescan (%s)", calls, DefaultLimitedRescan)
		}
		if st := h.state(); st.LastSync.Trigger != triggerRescan {
			t.Fatalf("trigger %q, want rescan", st.LastSync.Trigger)
		}
		h.stop()
	})
}

func TestOverflowRescansAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, nil)
		// The change's own event was lost in the overflow.
		f, err := os.OpenFile(filepath.Join(h.src, "a.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
		must(t, err)
		_, _ = f.WriteString("{\"id\":\"2\",\"text\":\"two\"}\n")
		must(t, f.Close())
		h.n.errs <- fsnotify.ErrEventOverflow
		time.Sleep(5 * time.Second)
		if n := len(h.s.times()); n != 1 {
			t.Fatalf("%d syncs after an overflow hid a change, want 1", n)
		}
		h.stop()
	})
}

func TestDeletedFilesAreGoneAndRenamedOnesAreNot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, func(o *Options, _ *fakeNotifier, _ *fakeSyncer) {
			for _, n := range []string{"b.jsonl", "c.jsonl"} {
				must(t, os.WriteFile(filepath.Join(o.Sources[0].Path, n), []byte("{}\n"), 0o644))
			}
		})
		b, c, c2 := filepath.Join(h.src, "b.jsonl"), filepath.Join(h.src, "c.jsonl"), filepath.Join(h.src, "c-renamed.jsonl")
		must(t, os.Remove(b))
		h.n.events <- fsnotify.Event{Name: b, Op: fsnotify.Remove}
		must(t, os.Rename(c, c2))
		h.n.events <- fsnotify.Event{Name: c, Op: fsnotify.Rename}
		h.n.events <- fsnotify.Event{Name: c2, Op: fsnotify.Create}
		time.Sleep(5 * time.Second)
		if n := len(h.s.times()); n != 1 {
			t.Fatalf("%d syncs, want 1 for the deletion and the rename", n)
		}
		st := h.state()
		if st.Gone.Count != 1 || st.Gone.Files[0] != b {
			t.Fatalf("gone: %+v, want only %s", st.Gone, b)
		}
		// A reappearing file is no longer gone.
		must(t, os.WriteFile(b, []byte("{}\n"), 0o644))
		h.n.events <- fsnotify.Event{Name: b, Op: fsnotify.Create}
		time.Sleep(5 * time.Second)
		if st := h.state(); st.Gone.Count != 0 {
			t.Fatalf("gone after the file came back: %+v", st.Gone)
		}
		h.stop()
	})
}

func TestSyncerListOfGoneFilesWins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, func(_ *Options, _ *fakeNotifier, s *fakeSyncer) { s.gone = []string{"/old/x.jsonl", "/old/y.jsonl"} })
		h.appendLine(filepath.Join(h.src, "a.jsonl"))
		time.Sleep(5 * time.Second)
		if st := h.state(); st.Gone.Count != 2 || st.Gone.Files[1] != "/old/y.jsonl" {
			t.Fatalf("gone: %+v", st.Gone)
		}
		h.stop()
	})
}

func TestStopDuringSyncCancelsIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, func(o *Options, _ *fakeNotifier, s *fakeSyncer) {
			o.SyncAtStart = true
			s.block = true
		})
		if !freshness.Running(h.home) {
			t.Fatal("the lock is not held while the watcher runs")
		}
		h.stop()
		st := h.state()
		if st.StoppedAt.IsZero() || st.LastSync == nil || st.LastSync.Result != freshness.ResultCancelled {
			t.Fatalf("after stop: stopped %v, last sync %+v", st.StoppedAt, st.LastSync)
		}
		if freshness.Running(h.home) {
			t.Fatal("the lock is still held after Run returned")
		}
	})
}

func TestSecondWatcherIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, nil)
		err := Run(context.Background(), Options{Home: h.home, Syncer: h.s, Lister: jsonlLister})
		if !errors.Is(err, freshness.ErrRunning) {
			t.Fatalf("second watcher: %v, want ErrRunning", err)
		}
		h.stop()
	})
}

func TestIdleWatcherDoesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, nil)
		before := h.state().UpdatedAt
		time.Sleep(DefaultRescan - time.Second)
		// No timer fired and nothing was written between rescans.
		if after := h.state().UpdatedAt; !after.Equal(before) {
			t.Fatalf("state rewritten at %v while idle", after)
		}
		time.Sleep(2 * time.Second)
		st := h.state()
		if !st.LastRescanAt.Equal(h.t0.Add(DefaultRescan).UTC()) || len(h.s.times()) != 0 {
			t.Fatalf("after one rescan: last rescan %v, syncs %d", st.LastRescanAt, len(h.s.times()))
		}
		h.stop()
	})
}

func TestLimitHitLaterShortensTheRescan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The source folder and state/ (see watchLock) take two watches.
		h := start(t, func(_ *Options, n *fakeNotifier, _ *fakeSyncer) { n.failAfter = 3 })
		// Two new project folders; only one more watch fits.
		p1, p2 := filepath.Join(h.src, "p1"), filepath.Join(h.src, "p2")
		must(t, os.MkdirAll(p1, 0o755))
		must(t, os.MkdirAll(p2, 0o755))
		h.n.events <- fsnotify.Event{Name: p1, Op: fsnotify.Create}
		h.n.events <- fsnotify.Event{Name: p2, Op: fsnotify.Create}
		time.Sleep(5 * time.Second)
		if st := h.state(); st.Watched.PolledDirs != 1 || len(st.Limits) != 1 {
			t.Fatalf("after the limit: %+v %+v", st.Watched, st.Limits)
		}
		polled := p2
		if !h.n.watched(p1) {
			polled = p1
		}
		t1 := time.Now()
		must(t, os.WriteFile(filepath.Join(polled, "x.jsonl"), []byte("{}\n"), 0o644))
		time.Sleep(DefaultLimitedRescan + 3*time.Second)
		calls := h.s.times()
		if len(calls) != 1 || calls[0].Sub(t1) > DefaultLimitedRescan {
			t.Fatalf("syncs %v after a silent change at %v; the rescan should find it within %s", calls, t1, DefaultLimitedRescan)
		}
		h.stop()
	})
}

// TestUnwritableStateIsLoggedOnce: while the watcher state cannot be
// written (a full disk; here a directory in its place) the watcher says
// so once, not at every change and sync of a busy agent's stream, and
// says when it can write it again.
func TestUnwritableStateIsLoggedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs novatest.LogBuffer
		h := start(t, func(o *Options, _ *fakeNotifier, s *fakeSyncer) {
			o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			s.took = 0
		})
		must(t, os.Remove(h.home.WatcherState()))
		must(t, os.Mkdir(h.home.WatcherState(), 0o700))
		a := filepath.Join(h.src, "a.jsonl")
		for range 20 { // a line every 3 s: 20 changes, 20 syncs
			h.appendLine(a)
			time.Sleep(3 * time.Second)
		}
		must(t, os.Remove(h.home.WatcherState()))
		h.appendLine(a)
		time.Sleep(3 * time.Second)
		h.stop()
		if n := len(h.s.times()); n < 20 {
			t.Fatalf("%d syncs, want one per change", n)
		}
		out := logs.String()
		if n := strings.Count(out, "Cannot write the watcher state"); n != 1 {
			t.Errorf("%d warnings that the state cannot be written, want 1:\n%s", n, out)
		}
		if !strings.Contains(out, "The watcher state is written again") {
			t.Errorf("no word that the state is written again:\n%s", out)
		}
		if h.state().LastSync == nil {
			t.Errorf("the state was not written once it could be")
		}
	})
}

// TestRoutineSyncsLogOneLineEach: an agent at work makes the watcher sync
// every few seconds all day, and under launchd its log is a file nothing
// rotates. A routine sync says what it did in one line ("Sync finished",
// with the run it promoted); what led to it is for debugging.
func TestRoutineSyncsLogOneLineEach(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs novatest.LogBuffer
		h := start(t, func(o *Options, _ *fakeNotifier, s *fakeSyncer) {
			o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			s.took = 0
		})
		a := filepath.Join(h.src, "a.jsonl")
		time.Sleep(3 * time.Second) // the sync at start, if any
		before := strings.Count(logs.String(), "\n")
		for range 20 {
			h.appendLine(a)
			time.Sleep(3 * time.Second)
		}
		h.stop()
		out := logs.String()
		lines := strings.Count(out, "\n") - before - 1 // less "Watcher stopped"
		if n := strings.Count(out, "Sync finished"); n < 20 {
			t.Fatalf("%d syncs logged, want one per change:\n%s", n, out)
		}
		if lines > 20 {
			t.Errorf("20 routine syncs wrote %d log lines at the default level, want one each:\n%s", lines, out)
		}
	})
}

// TestHiddenFileListedSyncs: a file whose name begins with a dot is a
// source's when its listing lists it (Aider's .aider.chat.history.md in
// each repository): an append to it syncs, one written in a repository
// later too; another dotfile (.DS_Store) syncs nothing.
func TestHiddenFileListedSyncs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var history string
		h := start(t, func(o *Options, _ *fakeNotifier, _ *fakeSyncer) {
			src := o.Sources[0].Path
			history = filepath.Join(src, "billing", ".aider.chat.history.md")
			must(t, os.MkdirAll(filepath.Join(src, "shop"), 0o755))
			must(t, os.MkdirAll(filepath.Dir(history), 0o755))
			must(t, os.WriteFile(history, []byte("#### hi\n"), 0o644))
			o.Sources = []config.Source{{Name: "s", Kind: config.KindAider, Path: src}}
			o.Lister = SourceFiles
		})
		h.appendLine(history)
		time.Sleep(time.Minute)
		if n := len(h.s.times()); n != 1 {
			t.Fatalf("%d syncs after an append to a listed dotfile, want 1", n)
		}
		ds := filepath.Join(h.src, "billing", ".DS_Store")
		must(t, os.WriteFile(ds, []byte("x"), 0o644))
		h.n.events <- fsnotify.Event{Name: ds, Op: fsnotify.Create}
		time.Sleep(time.Minute)
		if n := len(h.s.times()); n != 1 {
			t.Fatalf("%d syncs after a .DS_Store was written, want still 1", n)
		}
		later := filepath.Join(h.src, "shop", ".aider.chat.history.md")
		must(t, os.WriteFile(later, []byte("#### hello\n"), 0o644))
		h.n.events <- fsnotify.Event{Name: later, Op: fsnotify.Create}
		time.Sleep(time.Minute)
		if n := len(h.s.times()); n != 2 {
			t.Fatalf("%d syncs after a history was written in another repository, want 2", n)
		}
		h.stop()
	})
}

// TestCloudStubSyncs: a note another device added that this Mac has only
// as an iCloud stub (.Note.md.icloud) syncs, so that doctor counts it as
// not downloaded; a stub of a file the source does not read does not;
// and the stub a download replaces is no file gone.
func TestCloudStubSyncs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, func(o *Options, _ *fakeNotifier, _ *fakeSyncer) {
			must(t, os.WriteFile(filepath.Join(o.Sources[0].Path, "Today.md"), []byte("# Today\n"), 0o644))
			o.Sources = []config.Source{{Name: "notes", Kind: config.KindMarkdown, Path: o.Sources[0].Path}}
			o.Lister = SourceFiles
		})
		time.Sleep(time.Minute)
		before := len(h.s.times())
		other := filepath.Join(h.src, ".photo.jpg.icloud")
		must(t, os.WriteFile(other, []byte("plist"), 0o644))
		h.n.events <- fsnotify.Event{Name: other, Op: fsnotify.Create}
		time.Sleep(time.Minute)
		if n := len(h.s.times()); n != before {
			t.Fatalf("%d syncs after the stub of a photo, want still %d", n, before)
		}
		stub := filepath.Join(h.src, ".Plans.md.icloud")
		must(t, os.WriteFile(stub, []byte("plist"), 0o644))
		h.n.events <- fsnotify.Event{Name: stub, Op: fsnotify.Create}
		time.Sleep(time.Minute)
		if n := len(h.s.times()); n != before+1 {
			t.Fatalf("%d syncs after a note's stub appeared, want %d", n, before+1)
		}
		// Downloaded: the note replaces its stub, which is not a file gone.
		must(t, os.Remove(stub))
		h.n.events <- fsnotify.Event{Name: stub, Op: fsnotify.Remove}
		note := filepath.Join(h.src, "Plans.md")
		must(t, os.WriteFile(note, []byte("# Plans\n"), 0o644))
		h.n.events <- fsnotify.Event{Name: note, Op: fsnotify.Create}
		time.Sleep(time.Minute)
		if n := len(h.s.times()); n != before+2 {
			t.Fatalf("%d syncs after the note was downloaded, want %d", n, before+2)
		}
		if st := h.state(); st.Gone.Count != 0 {
			t.Fatalf("gone after a download: %+v", st.Gone)
		}
		h.stop()
	})
}

// The state is stamped by the clock the caller passes in, not the
// machine's: a service manager or a test can run the watcher on its own
// time.
func TestStateIsStampedByTheGivenClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		skew := 36 * time.Hour
		h := start(t, func(o *Options, _ *fakeNotifier, _ *fakeSyncer) {
			o.Now = func() time.Time { return time.Now().Add(skew) }
		})
		st := h.state()
		if want := h.t0.Add(skew).UTC(); !st.StartedAt.Equal(want) || !st.CaughtUpAt.Equal(want) {
			t.Fatalf("started %v, caught up %v; want both at the given clock's %v", st.StartedAt, st.CaughtUpAt, want)
		}
		h.stop()
		if st := h.state(); st.StoppedAt.Before(h.t0.Add(skew)) {
			t.Fatalf("stopped %v, before the given clock's start %v", st.StoppedAt, h.t0.Add(skew))
		}
	})
}

// TestFoldersGoneUnseenAreForgotten: a folder deleted with no event to
// say so (below a folder left to the rescan, or while events overflowed)
// is forgotten by the next walk: it no longer counts as polled or
// watched, nor holds a watch of the budget that a new folder then lacks.
func TestFoldersGoneUnseenAreForgotten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, func(o *Options, _ *fakeNotifier, _ *fakeSyncer) {
			o.WatchBudget = 2
			must(t, os.MkdirAll(filepath.Join(o.Sources[0].Path, "p", "q", "r"), 0o755))
		})
		p, q := filepath.Join(h.src, "p"), filepath.Join(h.src, "p", "q")
		if st := h.state(); st.Watched.Dirs != 2 || st.Watched.PolledDirs != 2 || !h.n.watched(p) {
			t.Fatalf("at start: %+v", st.Watched)
		}
		// Below a polled folder: no event.
		must(t, os.RemoveAll(filepath.Join(q, "r")))
		time.Sleep(DefaultLimitedRescan + time.Second)
		if st := h.state(); st.Watched.PolledDirs != 1 {
			t.Fatalf("after the rescan: %+v, want the deleted folder no longer polled", st.Watched)
		}
		// A watched folder, its events lost in an overflow.
		must(t, os.RemoveAll(p))
		h.n.errs <- fsnotify.ErrEventOverflow
		time.Sleep(time.Second)
		n := filepath.Join(h.src, "n")
		must(t, os.Mkdir(n, 0o755))
		h.n.events <- fsnotify.Event{Name: n, Op: fsnotify.Create}
		time.Sleep(5 * time.Second)
		if st := h.state(); st.Watched.Dirs != 2 || st.Watched.PolledDirs != 0 || !h.n.watched(n) {
			t.Fatalf("after a new folder: %+v, watched %v; want it watched in the place of the deleted one", st.Watched, h.n.watched(n))
		}
		h.stop()
	})
}

// TestSourcePathWithTrailingSlash: a source path written with a trailing
// slash (as a shell's completion leaves it; config.yaml keeps an absolute
// path as written) is the same folder: an append to a file in it syncs,
// and so does one in a folder made later.
func TestSourcePathWithTrailingSlash(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, func(o *Options, _ *fakeNotifier, _ *fakeSyncer) {
			o.Sources[0].Path += string(filepath.Separator)
		})
		h.appendLine(filepath.Join(h.src, "a.jsonl"))
		time.Sleep(5 * time.Second)
		if n := len(h.s.times()); n != 1 {
			t.Fatalf("%d syncs after an append, want 1", n)
		}
		sub := filepath.Join(h.src, "sub")
		must(t, os.Mkdir(sub, 0o755))
		h.n.events <- fsnotify.Event{Name: sub, Op: fsnotify.Create}
		synctest.Wait()
		if !h.n.watched(sub) {
			t.Fatal("a folder made in the source is not watched")
		}
		h.stop()
	})
}

// TestUnreadableFolderIsNotPolled: a folder this user may not read cannot
// be watched, nor listed: the listing reports it and reads nothing there.
// The watcher says so once and keeps its rescan period; it watches the
// folder once it can. It used to count the folder as polled, which cut
// the rescan of every source to LimitedRescan for as long as the folder
// stayed unreadable, and to log the same warning at each of those
// rescans, in a log nothing rotates.
func TestUnreadableFolderIsNotPolled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs novatest.LogBuffer
		var n *fakeNotifier
		h := start(t, func(o *Options, fn *fakeNotifier, _ *fakeSyncer) {
			o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			n = fn
		})
		private := filepath.Join(h.src, "private")
		n.mu.Lock()
		n.denied = private
		n.mu.Unlock()
		must(t, os.Mkdir(private, 0o755))
		h.n.events <- fsnotify.Event{Name: private, Op: fsnotify.Create}
		time.Sleep(time.Hour)
		synctest.Wait()
		if st := h.state(); st.Watched.PolledDirs != 0 || st.RescanIntervalSeconds != int(DefaultRescan/time.Second) {
			t.Errorf("polled dirs %d, rescan every %d s; want none polled, every %d s", st.Watched.PolledDirs, st.RescanIntervalSeconds, int(DefaultRescan/time.Second))
		}
		if c := strings.Count(logs.String(), "Cannot watch a folder this user may not read"); c != 1 {
			t.Errorf("%d warnings that the folder cannot be watched in an hour, want 1:\n%s", c, logs.String())
		}
		// Readable now: the rescan watches it.
		n.mu.Lock()
		n.denied = ""
		n.mu.Unlock()
		time.Sleep(DefaultRescan + time.Second)
		synctest.Wait()
		if !n.watched(private) {
			t.Error("the folder is not watched once it can be")
		}
	})
}

// TestUnreadableFolderNamedForKey: the warning that a folder cannot be
// watched names it with the secrets in its name redacted (an export
// folder named for a key), as a search cites it: the watcher's log is a
// file users attach to bug reports. The folder's place is still given.
func TestUnreadableFolderNamedForKey(t *testing.T) {
	const key = "ghp_R7kQ2mX9vL4nB8cT1wZ5yH3jF6dS0aPeUu2G"
	synctest.Test(t, func(t *testing.T) {
		var logs novatest.LogBuffer
		var n *fakeNotifier
		h := start(t, func(o *Options, fn *fakeNotifier, _ *fakeSyncer) {
			o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			n = fn
		})
		private := filepath.Join(h.src, "export-"+key)
		n.mu.Lock()
		n.denied = private
		n.mu.Unlock()
		must(t, os.Mkdir(private, 0o755))
		h.n.events <- fsnotify.Event{Name: private, Op: fsnotify.Create}
		time.Sleep(time.Minute)
		synctest.Wait()
		out := logs.String()
		if !strings.Contains(out, "Cannot watch a folder this user may not read") || !strings.Contains(out, filepath.Join(h.src, "export-[redacted]")) {
			t.Errorf("no warning naming the folder, redacted:\n%s", out)
		}
		if strings.Contains(out, key[4:]) {
			t.Errorf("the log holds the key in the folder's name:\n%s", out)
		}
	})
}

// TestNoNotifierFallsBackToTheRescan: when no notifier can be made (on
// Linux, fs.inotify.max_user_instances reached by the editors and tools
// of the same user; elsewhere, the open file limit), the watcher still
// runs: every folder is left to the short rescan, which finds a change,
// and the state names the limit. It used to exit at once, and a service
// manager restarted it every few seconds, with no freshness at all.
func TestNoNotifierFallsBackToTheRescan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, func(o *Options, _ *fakeNotifier, _ *fakeSyncer) {
			o.newNotifier = func() (notifier, error) {
				return nil, fmt.Errorf("inotify_init1: %w", syscall.EMFILE)
			}
		})
		time.Sleep(time.Second)
		synctest.Wait()
		st := h.state()
		if len(st.Limits) != 1 || st.Watched.PolledDirs != 1 || st.RescanIntervalSeconds != int(DefaultLimitedRescan/time.Second) {
			t.Fatalf("limits %+v, %d polled dirs, rescan every %d s; want the limit named, the folder polled, every %d s",
				st.Limits, st.Watched.PolledDirs, st.RescanIntervalSeconds, int(DefaultLimitedRescan/time.Second))
		}
		f, err := os.OpenFile(filepath.Join(h.src, "a.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
		must(t, err)
		_, err = f.WriteString("{\"id\":\"2\",\"text\":\"two\"}\n")
		must(t, err)
		must(t, f.Close())
		time.Sleep(DefaultLimitedRescan + time.Minute)
		synctest.Wait()
		if n := len(h.s.times()); n != 1 {
			t.Errorf("%d syncs after a change, want the rescan to find it", n)
		}
	})
}

// TestFilesNoListingReadsCostNoRelist: a file a source's listing does not
// list (Codex's history.jsonl beside its rollouts, Gemini's logs.json, a
// Hermes database's -shm, an editor's backup) is written all day while an
// agent runs, and each write had the whole source listed again, every
// file of it stat-ed, after the debounce: 3000 notes cost about 50 ms of
// CPU per write, and a large Codex or Claude Code home much more. Only a
// file the listing lists, or the companion of one it reads (a Hermes
// database's -wal), has the source listed again.
func TestFilesNoListingReadsCostNoRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		lists := 0
		var db string
		h := start(t, func(o *Options, _ *fakeNotifier, _ *fakeSyncer) {
			src := o.Sources[0].Path
			db = filepath.Join(src, "state.db")
			must(t, os.WriteFile(db, []byte("db"), 0o644))
			o.Sources = append(o.Sources, config.Source{Name: "hermes", Kind: config.KindHermes, Path: src})
			o.Lister = func(s config.Source) ([]string, error) {
				mu.Lock()
				lists++
				mu.Unlock()
				// As novactl lists: the files, and their companions that exist.
				l, err := ingest.List(s)
				var out []string
				for _, f := range l.Files {
					out = append(out, f.Path)
					for _, c := range ingest.Companions(s.Kind, f.Path) {
						if _, err := os.Stat(c); err == nil {
							out = append(out, c)
						}
					}
				}
				return out, err
			}
		})
		listed := func() int {
			mu.Lock()
			defer mu.Unlock()
			return lists
		}
		before := listed()
		for _, name := range []string{"history.log", "state.db-shm", "a.jsonl~"} {
			p := filepath.Join(h.src, name)
			must(t, os.WriteFile(p, []byte("x"), 0o644))
			h.n.events <- fsnotify.Event{Name: p, Op: fsnotify.Create}
			h.n.events <- fsnotify.Event{Name: p, Op: fsnotify.Write}
			time.Sleep(time.Minute)
		}
		if n := listed() - before; n != 0 || len(h.s.times()) != 0 {
			t.Fatalf("files no source lists: %d listings, %d syncs, want none", n, len(h.s.times()))
		}

		// A new database log is the database's change.
		wal := db + "-wal"
		must(t, os.WriteFile(wal, []byte("wal"), 0o644))
		h.n.events <- fsnotify.Event{Name: wal, Op: fsnotify.Create}
		time.Sleep(time.Minute)
		if n := len(h.s.times()); n != 1 {
			t.Fatalf("%d syncs after a database's log was made, want 1", n)
		}
		// A new file a listing lists.
		b := filepath.Join(h.src, "b.jsonl")
		must(t, os.WriteFile(b, []byte("{}\n"), 0o644))
		h.n.events <- fsnotify.Event{Name: b, Op: fsnotify.Create}
		time.Sleep(time.Minute)
		if n := len(h.s.times()); n != 2 {
			t.Fatalf("%d syncs after a new listed file, want 2", n)
		}
		h.stop()
	})
}

// TestLimitedRescanListsOnlyWhatIsPolled: while a watch limit leaves some
// folders without a watch, the rescan runs every 30 s for them, and it
// listed every source again, every file of each stat-ed: a source whose
// folders all have their watch paid ten times the rescan it needs (on a
// Mac, where kqueue's open files run out first, a Claude Code home with
// no watch for its older projects had the notes beside it stat-ed every
// 30 s). The short rescan lists the sources with a polled folder; every
// source is listed at the full period, as when nothing is polled.
func TestLimitedRescanListsOnlyWhatIsPolled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		lists := map[string]int{}
		var other string
		h := start(t, func(o *Options, n *fakeNotifier, _ *fakeSyncer) {
			// The two source folders, then one of p1 and p2: the other is polled.
			n.failAfter = 3
			for _, d := range []string{"p1", "p2"} {
				must(t, os.MkdirAll(filepath.Join(o.Sources[0].Path, d), 0o755))
			}
			other = filepath.Join(filepath.Dir(o.Sources[0].Path), "other")
			must(t, os.MkdirAll(other, 0o755))
			must(t, os.WriteFile(filepath.Join(other, "o.jsonl"), []byte("{}\n"), 0o644))
			o.Sources = append(o.Sources, config.Source{Name: "other", Kind: config.KindJSONL, Path: other})
			o.Lister = func(s config.Source) ([]string, error) {
				mu.Lock()
				lists[s.Name]++
				mu.Unlock()
				return jsonlLister(s)
			}
		})
		listed := func(name string) int {
			mu.Lock()
			defer mu.Unlock()
			return lists[name]
		}
		if st := h.state(); st.Watched.PolledDirs != 1 {
			t.Fatalf("watched %+v, want one polled folder", st.Watched)
		}
		s0, o0 := listed("s"), listed("other")
		// A change no event reports, in the source whose folders are all watched.
		must(t, os.WriteFile(filepath.Join(other, "o.jsonl"), []byte("{}\n{}\n"), 0o644))
		time.Sleep(DefaultRescan - time.Second)
		if s, o := listed("s")-s0, listed("other")-o0; s != 9 || o != 0 {
			t.Fatalf("in 9 short rescans: the source with a polled folder listed %d times, the one without %d, want 9 and 0", s, o)
		}
		if n := len(h.s.times()); n != 0 {
			t.Fatalf("%d syncs before the full rescan", n)
		}
		time.Sleep(5 * time.Second)
		if o := listed("other") - o0; o != 1 {
			t.Fatalf("the full rescan listed the source without a polled folder %d times, want 1", o)
		}
		if calls := h.s.times(); len(calls) != 1 || calls[0].Sub(h.t0) != DefaultRescan {
			t.Fatalf("syncs %v, want one at the full rescan (%s)", calls, DefaultRescan)
		}
		h.stop()
	})
}

// TestFoldersThatFillUpStayWithinTheBudget charges folders as kqueue does
// on a Mac (a descriptor for the folder and one for each file in it,
// since fsnotify watches every file of a watched folder): files an agent
// writes after start, in a folder watched when it was empty, cost
// descriptors too. The rescan counts them again and leaves the least
// recently modified folder to the rescan, so that the watcher stays
// within its budget; a file written there is still found. The watcher
// counted each folder once, when it watched it: one running for weeks
// over transcripts that keep coming spent descriptors past its budget,
// and once the process ran out of them, new files went unwatched and
// every sync failed to open the files it reads.
func TestFoldersThatFillUpStayWithinTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var old, busy string
		h := start(t, func(o *Options, _ *fakeNotifier, _ *fakeSyncer) {
			old, busy = filepath.Join(o.Sources[0].Path, "old"), filepath.Join(o.Sources[0].Path, "busy")
			must(t, os.MkdirAll(old, 0o755))
			must(t, os.MkdirAll(busy, 0o755))
			must(t, os.Chtimes(old, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour)))
			// The source folder (itself and 3 entries), old and busy
			// (empty): 6 of 8.
			o.WatchBudget, o.watchCost = 8, kqueueCost
		})
		if st := h.state(); st.Watched.Dirs != 3 || st.Watched.PolledDirs != 0 || len(st.Limits) != 0 {
			t.Fatalf("at start: %+v, limits %+v; want the three folders watched", st.Watched, st.Limits)
		}
		for _, n := range []string{"s1.jsonl", "s2.jsonl", "s3.jsonl"} {
			p := filepath.Join(busy, n)
			must(t, os.WriteFile(p, []byte("{}\n"), 0o644))
			h.n.events <- fsnotify.Event{Name: p, Op: fsnotify.Create}
		}
		time.Sleep(DefaultRescan + 3*time.Second)
		st := h.state()
		if st.Watched.Dirs != 2 || st.Watched.PolledDirs != 1 || len(st.Limits) != 1 || st.Limits[0].Name != budgetLimit {
			t.Fatalf("after the rescan: %+v, limits %+v; want busy (4 now) and the source folder watched, old polled, the budget reported", st.Watched, st.Limits)
		}
		syncs := len(h.s.times())
		// No event comes from a folder left to the rescan: the short
		// rescan finds the file.
		must(t, os.WriteFile(filepath.Join(old, "late.jsonl"), []byte("{}\n"), 0o644))
		time.Sleep(DefaultLimitedRescan + 3*time.Second)
		if n := len(h.s.times()); n != syncs+1 {
			t.Fatalf("%d syncs after a file was written in the folder left to the rescan, want %d", n, syncs+1)
		}
		h.stop()
	})
}

// TestFoldersOutgrowingTheDescriptorsAreCounted: when the watches have
// outgrown the descriptors (kqueue, a Mac: files made in watched folders
// after their watch) the rescan cannot read a folder to count it, for
// want of a descriptor. That folder's watch is given back, which frees
// descriptors to count the rest, and the watcher is back within its
// budget. Counting it as it was kept the watcher out of descriptors for
// good: each rescan failed the same way.
func TestFoldersOutgrowingTheDescriptorsAreCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		exhausted := false
		var busy string
		h := start(t, func(o *Options, n *fakeNotifier, _ *fakeSyncer) {
			old := filepath.Join(o.Sources[0].Path, "old")
			busy = filepath.Join(o.Sources[0].Path, "busy")
			must(t, os.MkdirAll(old, 0o755))
			must(t, os.MkdirAll(busy, 0o755))
			must(t, os.Chtimes(old, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour)))
			o.WatchBudget = 8
			o.watchCost = func(dir string) (int, error) {
				mu.Lock()
				defer mu.Unlock()
				if exhausted {
					return 1, fmt.Errorf("open %s: %w", dir, syscall.EMFILE)
				}
				return kqueueCost(dir)
			}
			// Giving a watch back frees its descriptors.
			n.removed = func(string) {
				mu.Lock()
				exhausted = false
				mu.Unlock()
			}
		})
		for _, n := range []string{"s1.jsonl", "s2.jsonl", "s3.jsonl"} {
			p := filepath.Join(busy, n)
			must(t, os.WriteFile(p, []byte("{}\n"), 0o644))
			h.n.events <- fsnotify.Event{Name: p, Op: fsnotify.Create}
		}
		time.Sleep(5 * time.Second)
		mu.Lock()
		exhausted = true
		mu.Unlock()
		time.Sleep(DefaultRescan)
		st := h.state()
		if st.Watched.Dirs != 2 || st.Watched.PolledDirs != 1 || len(st.Limits) == 0 {
			t.Fatalf("after the rescan: %+v, limits %+v; want two folders watched within the budget, one polled, a limit reported", st.Watched, st.Limits)
		}
		h.stop()
	})
}

// TestStateRemovedWhileWatching: deleting state/ while the watcher runs
// (a cleanup of the home) removed its lock file but not its lock, and to
// every other process the home had no watcher: a second one locked a new
// file and watched and synced beside it. The watcher locks a new file at
// its next rescan, and a second watcher is refused again.
func TestStateRemovedWhileWatching(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, nil)
		must(t, os.RemoveAll(h.home.StateDir()))
		time.Sleep(DefaultRescan + time.Second)
		synctest.Wait()
		if !freshness.Running(h.home) {
			t.Error("no watcher lock is held after a rescan")
		}
		for path, want := range map[string]os.FileMode{h.home.StateDir(): paths.DirMode, h.home.WatcherLock(): paths.FileMode} {
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: %v %v, want mode %o", path, fi, err, want)
			}
		}
		// A cancelled context: a watcher that does start stops at once.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := Run(ctx, Options{Home: h.home, Syncer: h.s, Lister: jsonlLister}); !errors.Is(err, freshness.ErrRunning) {
			t.Errorf("second watcher after state/ was removed: %v, want ErrRunning", err)
		}
		h.stop()
	})
}

// TestLockTakenWhileStateRemovedStopsTheWatcher: when another process
// locks the new lock file first (a second watcher started in the moment
// after state/ was removed), two watchers would sync one home. The first
// stops with freshness.ErrLockLost (an ErrRunning: a service job's
// watcher stands by) and leaves the other's state file alone.
func TestLockTakenWhileStateRemovedStopsTheWatcher(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, nil)
		must(t, os.RemoveAll(h.home.StateDir()))
		other, err := freshness.Acquire(h.home, time.Now())
		must(t, err)
		defer other.Release()
		time.Sleep(DefaultRescan + time.Second)
		synctest.Wait()
		select {
		case err := <-h.done:
			h.cancel = nil
			if !errors.Is(err, freshness.ErrLockLost) || !errors.Is(err, freshness.ErrRunning) {
				t.Errorf("watcher whose home another process locked: %v, want %v", err, freshness.ErrLockLost)
			}
		default:
			t.Error("the watcher went on beside the one that holds the home's lock")
		}
		if _, err := os.Stat(h.home.WatcherState()); err == nil {
			t.Error("the watcher that lost the lock wrote its state file")
		}
	})
}

// TestChangeEndsTheBackOffOfAnEmptySource: a sync that found no memory in
// the sources (a watcher set up before the agent's first session: its
// folder does not exist yet) backs off as failures do, to minutes apart;
// the first file written in the sources is what it waited for, and is
// synced once they are quiet, not at the end of the back-off.
func TestChangeEndsTheBackOffOfAnEmptySource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		empty := fmt.Errorf("%w: the sources produced no memory to index", ErrNothingYet)
		h := start(t, func(o *Options, _ *fakeNotifier, s *fakeSyncer) {
			o.SyncAtStart = true
			s.errs = slices.Repeat([]error{empty}, 20)
			s.took = 0
		})
		time.Sleep(10 * time.Minute)
		before := len(h.s.times())
		t1 := time.Now()
		h.appendLine(filepath.Join(h.src, "a.jsonl"))
		time.Sleep(10 * time.Second)
		calls := h.s.times()
		if len(calls) <= before || calls[before].Sub(t1) > DefaultQuiet {
			t.Fatalf("syncs %v after the first write at %v; want one within %s", calls[before:], t1, DefaultQuiet)
		}
		st := h.state()
		if st.LastSync.Result != freshness.ResultFailed || !strings.Contains(st.LastSync.Error, "no memory") {
			t.Fatalf("state: %+v", st.LastSync)
		}
		h.stop()
	})
}

// TestChangeDuringASyncOfAnEmptySource: the first file written while a
// sync that finds no memory runs (it may not have read it) is synced once
// that sync ends, not at the end of the back-off.
func TestChangeDuringASyncOfAnEmptySource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		empty := fmt.Errorf("%w: the sources produced no memory to index", ErrNothingYet)
		h := start(t, func(o *Options, _ *fakeNotifier, s *fakeSyncer) {
			o.SyncAtStart = true
			s.errs = slices.Repeat([]error{empty}, 20)
			s.took = time.Minute
		})
		// Syncs of a minute, 4 s to 128 s apart: the seventh runs from
		// 612 s to 672 s.
		time.Sleep(620 * time.Second)
		if st := h.state(); st.Running == nil {
			t.Fatalf("no sync running at 620 s: %+v", st.LastSync)
		}
		before := len(h.s.times())
		t1 := time.Now()
		h.appendLine(filepath.Join(h.src, "a.jsonl"))
		time.Sleep(2 * time.Minute)
		calls := h.s.times()
		if len(calls) <= before || calls[before].Sub(t1) > time.Minute {
			t.Fatalf("syncs %v after a write at %v during a sync; want one as soon as that sync ended", calls[before:], t1)
		}
		h.stop()
	})
}

// TestOverflowRelocksAtOnce: when the event saying state/ was removed is
// lost in an overflow, the watcher locks its home again at the overflow,
// not at its next rescan.
func TestOverflowRelocksAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, nil)
		must(t, os.RemoveAll(h.home.StateDir()))
		h.n.errs <- fsnotify.ErrEventOverflow
		time.Sleep(time.Second)
		synctest.Wait()
		if !freshness.Running(h.home) {
			t.Error("no watcher lock is held after an overflow hid the removal of state/")
		}
		h.stop()
	})
}
