package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/paths"
)

// doctorHome writes a NOVA_HOME with one jsonl source and no index.
func doctorHome(t *testing.T) (paths.Home, []string) {
	t.Helper()
	root := t.TempDir()
	// The default home, ~/.nova: Homebrew's service definitions, which
	// some tests write, serve that home alone.
	home := paths.Home{Root: filepath.Join(root, ".nova")}
	src := filepath.Join(root, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(home.Root, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := "server: {host: 127.0.0.1, port: 1}\nfacade: {port: 2}\nsources:\n  - {name: s, kind: jsonl, path: " + src + "}\n"
	if err := os.WriteFile(home.Config(), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, []string{"NOVA_HOME=" + home.Root, "HOME=" + root}
}

func find(rep Report, id string) *Check {
	for i := range rep.Checks {
		if rep.Checks[i].ID == id {
			return &rep.Checks[i]
		}
	}
	return nil
}

func TestWatcherNotRunning(t *testing.T) {
	const (
		ourNovad   = "Library/LaunchAgents/dev.nova.novad.plist"
		ourWatcher = "Library/LaunchAgents/dev.nova.watch.plist"
		brewNovad  = "Library/LaunchAgents/homebrew.mxcl.nova.plist"
		brewWatch  = "Library/LaunchAgents/homebrew.mxcl.nova-watch.plist"
	)
	for _, tc := range []struct {
		name        string
		files       []string
		state, code string
		advice      string
	}{
		{"nothing installed", nil, Ready, "", ""},
		{"novactl's watcher job installed but stopped", []string{ourNovad, ourWatcher}, Degraded, CodeWatcherNotRunning, "novactl service start"},
		{"novactl's novad without the watcher job", []string{ourNovad}, Degraded, CodeWatcherNotInstalled, "novactl service install"},
		{"Homebrew's novad without nova-watch", []string{brewNovad}, Degraded, CodeWatcherNotInstalled, "brew install nova-recall/tap/nova-watch && brew services start nova-watch"},
		{"Homebrew's nova-watch stopped", []string{brewNovad, brewWatch}, Degraded, CodeWatcherNotRunning, "brew services start nova-watch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, env := doctorHome(t)
			user := strings.TrimPrefix(env[1], "HOME=")
			for _, f := range tc.files {
				p := filepath.Join(user, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rep := Run(context.Background(), Options{Environ: env, GOOS: "darwin", Timeout: 100 * time.Millisecond})
			c := find(rep, "watcher")
			if c == nil || c.State != tc.state || c.Code != tc.code || !strings.Contains(c.Advice, tc.advice) {
				t.Fatalf("watcher check: %+v, want %s %s advising %q", c, tc.state, tc.code, tc.advice)
			}
			if rep.Freshness == nil || rep.Freshness.Watcher.Running || rep.Freshness.LagSeconds != nil {
				t.Fatalf("freshness without a watcher: %+v", rep.Freshness)
			}
		})
	}
}

// TestWatcherRunningReportsLimitsAndFailures: the inotify watch limit's
// advice says to restart the watcher once it is raised, since the
// watcher's budget, half the limit, is set when it starts. The files the
// watcher last saw gone are not the gone check's: it names what the active index
// keeps (TestGoneFilesAsTheActiveIndexHoldsThem), and there is none here.
func TestWatcherRunningReportsLimitsAndFailures(t *testing.T) {
	home, env := doctorHome(t)
	lock, err := freshness.Acquire(home, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	now := time.Now().UTC()
	st := &freshness.State{SchemaVersion: freshness.SchemaVersion, PID: os.Getpid(), StartedAt: now.Add(-time.Hour),
		SourcesChangedAt: now.Add(-20 * time.Minute), PendingSince: now.Add(-20 * time.Minute), CaughtUpAt: now.Add(-time.Hour),
		LastSync:              &freshness.Sync{StartedAt: now.Add(-time.Minute), FinishedAt: now, Result: freshness.ResultFailed, Error: "sync: disk full\nmore"},
		RescanIntervalSeconds: 30, Watched: freshness.Watched{Sources: 1, Dirs: 8192, PolledDirs: 40, Files: 9000},
		Limits: []freshness.Limit{{Name: freshness.LimitInotifyWatches, Value: 8192, Message: "raise fs.inotify.max_user_watches"}},
		Gone:   freshness.Gone{Count: 5, Files: []string{"/a.jsonl", "/b.jsonl", "/c.jsonl", "/d.jsonl", "/e.jsonl"}}}
	if err := freshness.Write(home, st); err != nil {
		t.Fatal(err)
	}
	// The watcher read config.yaml when it started, an hour ago.
	if err := os.Chtimes(home.Config(), now.Add(-2*time.Hour), now.Add(-2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	rep := Run(context.Background(), Options{Environ: env, Timeout: 100 * time.Millisecond})
	if c := find(rep, "watcher"); c == nil || c.State != Ready || !strings.Contains(c.Message, "8192 folders") {
		t.Fatalf("watcher: %+v", c)
	}
	if c := find(rep, "watcher-limit:"+freshness.LimitInotifyWatches); c == nil || c.Code != CodeWatcherLimit || !strings.Contains(c.Message, "40 folders are rescanned every 30s") || !strings.HasPrefix(c.Advice, "raise fs.inotify.max_user_watches; then restart the watcher, which takes its share of the limit when it starts: stop novactl index watch (pid") {
		t.Fatalf("limit: %+v", c)
	}
	if c := find(rep, "watcher-sync"); c == nil || c.Code != CodeWatcherSyncFailed || !strings.HasSuffix(c.Message, "sync: disk full") {
		t.Fatalf("failed sync: %+v", c)
	}
	if c := find(rep, "gone"); c != nil {
		t.Fatalf("gone without an index: %+v", c)
	}
	if rep.Freshness == nil || !rep.Freshness.Watcher.Running || rep.Freshness.LagSeconds == nil || *rep.Freshness.LagSeconds < 1199 {
		t.Fatalf("freshness: %+v", rep.Freshness)
	}
}

func TestWatcherFreshness(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	st := &freshness.State{SchemaVersion: freshness.SchemaVersion, SourcesChangedAt: now.Add(-5 * time.Second), CaughtUpAt: now.Add(-3 * time.Second)}
	c := watcherFreshness(freshness.Compute(now, st, true, time.Time{}), st, now)
	if c.State != Ready || c.Message != "up to date: sources last changed 5s ago; index caught up 3s ago" {
		t.Fatalf("caught up: %+v", c)
	}
	st.PendingSince = now.Add(-4 * time.Second)
	if c := watcherFreshness(freshness.Compute(now, st, true, time.Time{}), st, now); c.State != Ready || !strings.HasPrefix(c.Message, "catching up (lag 4s)") {
		t.Fatalf("catching up: %+v", c)
	}
	// A long sync under way is named, with how long it has run.
	st.Running = &freshness.Sync{StartedAt: now.Add(-90 * time.Second), Trigger: "change"}
	if c := watcherFreshness(freshness.Compute(now, st, true, time.Time{}), st, now); c.State != Ready || !strings.HasSuffix(c.Message, "; a sync (change) has been running for 1m30s") {
		t.Fatalf("running: %+v", c)
	}
	st.Running = nil
	st.PendingSince = now.Add(-time.Hour)
	st.LastSync = &freshness.Sync{Result: freshness.ResultBusy, Error: "another index operation is running"}
	if c := watcherFreshness(freshness.Compute(now, st, true, time.Time{}), st, now); c.State != Degraded || c.Code != CodeIndexStale || !strings.Contains(c.Message, "waited 1h0m0s for a sync (last sync busy: another index") {
		t.Fatalf("stuck: %+v", c)
	}
}

// TestWatcherRunsWithAnOlderConfig: the watcher reads config.yaml once,
// when it starts; a source added to the file since is neither watched
// nor synced until it restarts. Doctor said the watcher ran and memory
// was up to date; now it says the watcher runs with the file as it was
// and how to restart it, and nothing while the file is older than it.
func TestWatcherRunsWithAnOlderConfig(t *testing.T) {
	home, env := doctorHome(t)
	lock, err := freshness.Acquire(home, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	now := time.Now().UTC()
	st := &freshness.State{SchemaVersion: freshness.SchemaVersion, PID: os.Getpid(), StartedAt: now.Add(-time.Hour), CaughtUpAt: now.Add(-time.Hour)}
	if err := freshness.Write(home, st); err != nil {
		t.Fatal(err)
	}
	rep := Run(context.Background(), Options{Environ: env, Timeout: 100 * time.Millisecond})
	c := find(rep, "watcher")
	if c == nil || c.State != Degraded || c.Code != CodeWatcherConfigStale || !strings.Contains(c.Message, home.Config()) || !strings.Contains(c.Advice, "stop novactl index watch (pid") {
		t.Fatalf("watcher started before config.yaml changed: %+v", c)
	}
	before := now.Add(-2 * time.Hour)
	if err := os.Chtimes(home.Config(), before, before); err != nil {
		t.Fatal(err)
	}
	rep = Run(context.Background(), Options{Environ: env, Timeout: 100 * time.Millisecond})
	if c := find(rep, "watcher"); c == nil || c.State != Ready {
		t.Fatalf("watcher started after config.yaml changed: %+v", c)
	}
}

// TestWatcherRunningWithoutState: a watcher that holds its lock but has
// written no state (it walks the sources first, or the disk holding
// NOVA_HOME is full and state/watcher.json cannot be written) is running,
// and what it watches is not known. Before, doctor said "novactl index
// watch is running (pid 0): 0 folders watched, 0 files", while a full
// disk failed its every sync.
func TestWatcherRunningWithoutState(t *testing.T) {
	home, env := doctorHome(t)
	lock, err := freshness.Acquire(home, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	rep := Run(context.Background(), Options{Environ: env, Timeout: 100 * time.Millisecond})
	c := find(rep, "watcher")
	if c == nil || c.State != Ready {
		t.Fatalf("watcher: %+v, want Ready (it runs)", c)
	}
	for _, not := range []string{"pid 0", "0 folders watched"} {
		if strings.Contains(c.Message, not) {
			t.Errorf("message %q says %q", c.Message, not)
		}
	}
	for _, want := range []string{"is running", "no state yet", home.WatcherState(), "Disk space"} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("message %q lacks %q", c.Message, want)
		}
	}
}

// TestWatcherRestartedOnAFullDisk: a watcher started while the disk
// holding NOVA_HOME is full takes its lock but writes neither the lock's
// holder nor its state, and state/watcher.json is still the one a watcher
// that stopped wrote. Before, doctor reported that stopped watcher as the
// running one (its pid, its watches, the config it read) and, with an
// index, memory "up to date" from its state, while the running watcher's
// every sync failed and a source had changed since.
func TestWatcherRestartedOnAFullDisk(t *testing.T) {
	home, env := doctorHome(t)
	now := time.Now().UTC()
	stopped := &freshness.State{SchemaVersion: freshness.SchemaVersion, PID: 999999, StartedAt: now.Add(-2 * time.Hour),
		UpdatedAt: now.Add(-time.Hour), StoppedAt: now.Add(-time.Hour), CaughtUpAt: now.Add(-time.Hour),
		Watched: freshness.Watched{Sources: 1, Dirs: 3, Files: 6}}
	if err := freshness.Write(home, stopped); err != nil {
		t.Fatal(err)
	}
	lock, err := freshness.Acquire(home, now)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	// The holder a full disk kept from being written (the lock is held
	// on the file, whatever it holds).
	if err := os.Truncate(home.WatcherLock(), 0); err != nil {
		t.Fatal(err)
	}
	rep := Run(context.Background(), Options{Environ: env, Timeout: 100 * time.Millisecond})
	c := find(rep, "watcher")
	if c == nil || strings.Contains(c.Message, "999999") || strings.Contains(c.Message, "3 folders") || !strings.Contains(c.Message, "no state yet") {
		t.Errorf("watcher: %+v, want the running watcher's state unknown, not the stopped one's", c)
	}
}

// TestWatcherOfAnOlderBuild: after brew upgrade, the watcher that was
// running goes on running the old novactl until restarted, and each of its
// syncs rebuilds the index with the old text analysis (seen with the
// binary of 0b0fc71 against this one). Doctor called the index "built by
// an older Nova" and advised "the watcher does at its next sync", while
// the watcher was what kept building it so; it names the watcher as
// another build, and how to restart it.
func TestWatcherOfAnOlderBuild(t *testing.T) {
	home, env := doctorHome(t)
	cfg, err := config.Load(env)
	if err != nil {
		t.Fatal(err)
	}
	src := cfg.Sources[0].Path
	if err := os.WriteFile(filepath.Join(src, "r.jsonl"), []byte(`{"id":"1","text":"the heron nests by the weir"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	older := lexical.NewAnalyzerWith(lexical.Options{NoLemmas: true})
	r, err := index.New(cfg, index.Options{NoRemote: true, Analyzer: older}).Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(home.Config(), before, before); err != nil {
		t.Fatal(err)
	}
	lock, err := freshness.Acquire(home, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	now := time.Now().UTC()
	sync := func(runID string) {
		t.Helper()
		st := &freshness.State{SchemaVersion: freshness.SchemaVersion, PID: os.Getpid(), StartedAt: now.Add(-time.Hour), CaughtUpAt: now,
			LastSync: &freshness.Sync{StartedAt: now, FinishedAt: now, Result: freshness.ResultOK, RunID: runID, Trigger: "change"}}
		if err := freshness.Write(home, st); err != nil {
			t.Fatal(err)
		}
	}
	sync(r.Build.RunID)
	rep := Run(context.Background(), Options{Environ: env, Timeout: 100 * time.Millisecond})
	c := find(rep, "watcher-build")
	if c == nil || c.State != Degraded || c.Code != CodeWatcherOtherBuild || !strings.Contains(c.Message, older.Version()) || !strings.Contains(c.Advice, "novactl index watch (pid") {
		t.Fatalf("a watcher whose last sync built the index with an older text analysis: %+v", c)
	}
	// The index check says the same: the old watcher does not rebuild
	// the index at its next sync, it builds it so again, undoing a sync
	// by hand; it said "the watcher does at its next sync".
	if ix := find(rep, "index"); ix == nil || ix.Code != CodeIndexStale || strings.Contains(ix.Advice, "the watcher does at its next sync") ||
		!strings.Contains(ix.Advice, "restart the watcher") || !strings.Contains(ix.Advice, "novactl index watch (pid") {
		t.Errorf("the index check beside a watcher of another build: %+v", ix)
	}
	// A generation of the older analysis the watcher did not build (it
	// was there before this watcher synced): the watcher is not to blame.
	sync("")
	rep = Run(context.Background(), Options{Environ: env, Timeout: 100 * time.Millisecond})
	if c := find(rep, "watcher-build"); c != nil {
		t.Fatalf("a watcher that built nothing yet: %+v", c)
	}
}
