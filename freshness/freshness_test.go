package freshness

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/paths"
)

func testHome(t *testing.T) paths.Home { return paths.Home{Root: filepath.Join(t.TempDir(), "home")} }

func TestWriteReadPrivate(t *testing.T) {
	home := testHome(t)
	if _, err := Read(home); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read before any write: %v, want not-exist", err)
	}
	t0 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	st := &State{SchemaVersion: SchemaVersion, PID: 42, StartedAt: t0, SourcesChangedAt: t0.Add(time.Minute),
		LastSync: &Sync{StartedAt: t0, FinishedAt: t0.Add(time.Second), Result: ResultOK, RunID: "r", Trigger: "change"},
		Gone:     Gone{Count: 1, Files: []string{"/x/a.jsonl"}}}
	if err := Write(home, st); err != nil {
		t.Fatal(err)
	}
	got, err := Read(home)
	if err != nil {
		t.Fatal(err)
	}
	if got.PID != 42 || !got.SourcesChangedAt.Equal(t0.Add(time.Minute)) || got.LastSync.RunID != "r" || got.Gone.Files[0] != "/x/a.jsonl" {
		t.Fatalf("round trip lost data: %+v", got)
	}
	fi, err := os.Stat(home.WatcherState())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("state file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	di, err := os.Stat(home.StateDir())
	if err != nil || di.Mode().Perm() != 0o700 {
		t.Fatalf("state dir mode %v (%v), want 0700", di.Mode().Perm(), err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(home.StateDir(), ".watcher.json*"))
	if len(leftovers) != 0 {
		t.Fatalf("temp files left behind: %v", leftovers)
	}
	// A state from another format is refused, not misread.
	if err := os.WriteFile(home.WatcherState(), []byte(`{"schemaVersion":99}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(home); err == nil {
		t.Fatal("Read accepted schema version 99")
	}
}

func TestLockAndRunning(t *testing.T) {
	home := testHome(t)
	if Running(home) {
		t.Fatal("Running before any watcher started")
	}
	l, err := Acquire(home, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if !Running(home) {
		t.Fatal("Running is false while the lock is held")
	}
	if _, err := Acquire(home, time.Now()); !errors.Is(err, ErrRunning) {
		t.Fatalf("second Acquire: %v, want ErrRunning", err)
	}
	l.Release()
	if Running(home) {
		t.Fatal("Running after Release")
	}
	l2, err := Acquire(home, time.Now())
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	l2.Release()
	fi, err := os.Stat(home.WatcherLock())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("lock file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
}

func TestCompute(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	built := now.Add(-time.Hour)

	f := Compute(now, nil, false, time.Time{})
	if f.IndexCaughtUpAt != nil || f.SourcesChangedAt != nil || f.LagSeconds != nil || f.Watcher.Running || f.Watcher.LimitsHit == nil {
		t.Fatalf("no index, no watcher: %+v", f)
	}
	f = Compute(now, nil, false, built)
	if f.IndexCaughtUpAt == nil || *f.IndexCaughtUpAt != "2026-11-30T08:00:00Z" || f.LagSeconds != nil {
		t.Fatalf("index without watcher: %+v", f)
	}

	st := &State{SchemaVersion: SchemaVersion, PID: 7, StartedAt: now.Add(-2 * time.Hour),
		SourcesChangedAt: now.Add(-10 * time.Second), PendingSince: now.Add(-12 * time.Second),
		CaughtUpAt: now.Add(-30 * time.Minute), Watched: Watched{Dirs: 3, Files: 9, PolledDirs: 1},
		Limits: []Limit{{Name: LimitInotifyWatches}}, Gone: Gone{Count: 2},
		LastSync: &Sync{FinishedAt: now.Add(-29 * time.Minute), Result: ResultOK}}
	f = Compute(now, st, true, built)
	if f.LagSeconds == nil || *f.LagSeconds != 12 {
		t.Fatalf("pending change 12 s old: lag %v", f.LagSeconds)
	}
	if *f.IndexCaughtUpAt != "2026-11-30T08:30:00Z" || *f.SourcesChangedAt != "2026-11-30T08:59:50Z" {
		t.Fatalf("times: %s %s", *f.IndexCaughtUpAt, *f.SourcesChangedAt)
	}
	w := f.Watcher
	if !w.Running || w.PID != 7 || w.WatchedDirs != 3 || w.WatchedFiles != 9 || w.PolledDirs != 1 || len(w.LimitsHit) != 1 || w.FilesGone != 2 || w.LastSyncResult != ResultOK {
		t.Fatalf("watcher: %+v", w)
	}

	st.PendingSince = time.Time{}
	if f = Compute(now, st, true, built); *f.LagSeconds != 0 {
		t.Fatalf("nothing pending: lag %v", *f.LagSeconds)
	}
	// An index promoted after the watcher last caught up (a sync by hand)
	// is as fresh as its build.
	late := now.Add(-5 * time.Minute)
	if f = Compute(now, st, true, late); *f.IndexCaughtUpAt != "2026-11-30T08:55:00Z" {
		t.Fatalf("built after the watcher caught up: %s", *f.IndexCaughtUpAt)
	}
	// A stopped watcher's last state is still shown, but its lag is unknown.
	if f = Compute(now, st, false, built); f.LagSeconds != nil || f.Watcher.Running || f.SourcesChangedAt == nil {
		t.Fatalf("stopped watcher: %+v", f)
	}
}

// TestLoad_watcherStarting: a watcher that holds the lock but has not
// written its first state yet (it walks every source first: seconds on a
// large corpus, longer on a cold disk at login) is reported as itself,
// catching up since it started. The state the previous watcher left was
// reported instead: up to date (lag 0) as of its stop, under a process
// gone, with its watches and the limits it hit (after the limit was
// raised and the watcher restarted, as the advice says).
func TestLoad_watcherStarting(t *testing.T) {
	home := testHome(t)
	started := time.Now().UTC().Truncate(time.Second)
	prev := &State{SchemaVersion: SchemaVersion, PID: os.Getpid() + 1, StartedAt: started.Add(-48 * time.Hour),
		StoppedAt: started.Add(-time.Hour), CaughtUpAt: started.Add(-time.Hour), SourcesChangedAt: started.Add(-2 * time.Hour),
		Watched: Watched{Sources: 2, Dirs: 3, Files: 9}, Limits: []Limit{{Name: LimitOpenFiles}}, Syncs: map[string]int{ResultOK: 4},
		Running: &Sync{StartedAt: started.Add(-time.Hour), Trigger: "change"}}
	if err := Write(home, prev); err != nil {
		t.Fatal(err)
	}
	l, err := Acquire(home, started)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	now := started.Add(20 * time.Second)
	f, st := Load(home, now, time.Time{})
	w := f.Watcher
	if !w.Running || w.PID != os.Getpid() || f.LagSeconds == nil || *f.LagSeconds != 20 || w.WatchedDirs != 0 || len(w.LimitsHit) != 0 {
		t.Fatalf("a starting watcher: %+v lag %v", w, f.LagSeconds)
	}
	if st == nil || !st.StoppedAt.IsZero() || st.Running != nil || !st.StartedAt.Equal(started) || !st.CaughtUpAt.Equal(prev.CaughtUpAt) {
		t.Fatalf("the state of a starting watcher: %+v", st)
	}
	// Once it has written its own state, that is what is reported.
	own := &State{SchemaVersion: SchemaVersion, PID: os.Getpid(), StartedAt: started, CaughtUpAt: now, Watched: Watched{Dirs: 5}, Limits: []Limit{}}
	if err := Write(home, own); err != nil {
		t.Fatal(err)
	}
	if f, _ = Load(home, now, time.Time{}); f.Watcher.WatchedDirs != 5 || *f.LagSeconds != 0 {
		t.Fatalf("a watcher that wrote its state: %+v lag %v", f.Watcher, *f.LagSeconds)
	}
}
