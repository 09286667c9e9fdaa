package doctor

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/secrets"
)

// Service definitions in a fake macOS home, as novactl service install
// and brew services write them.
const (
	ourNovadPlist   = "Library/LaunchAgents/dev.nova.novad.plist"
	ourWatchPlist   = "Library/LaunchAgents/dev.nova.watch.plist"
	brewNovadPlist  = "Library/LaunchAgents/homebrew.mxcl.nova.plist"
	brewWatchPlist  = "Library/LaunchAgents/homebrew.mxcl.nova-watch.plist"
	novactlRestart  = "novactl service restart"
	brewNovaRestart = "brew services restart nova"
	brewWatchRstart = "brew services restart nova-watch"
)

// installed writes service definition files (ourNovadPlist, say) under
// the fixture's user home.
func (f *fixture) installed(files ...string) {
	f.t.Helper()
	user := strings.TrimPrefix(f.environ[0], "HOME=")
	for _, p := range files {
		p = filepath.Join(user, p)
		novatest.Must(f.t, os.MkdirAll(filepath.Dir(p), 0o700))
		novatest.Must(f.t, os.WriteFile(p, []byte("definition\n"), 0o600))
	}
}

// restartCase is one way novad and the watcher may be installed, and what
// advice to restart them must and must not say.
type restartCase struct {
	name    string
	files   []string
	want    []string
	notWant []string
}

// TestDaemonOfAnotherBuild_restartAsInstalled: after an upgrade, doctor
// names the restart that works for how novad is installed. It said
// novactl service restart to everyone: Homebrew's users got a refusal
// (novactl did not install the job) and novactl's own jobs, whose
// definitions name the old binary's resolved path, restarted the old build.
func TestDaemonOfAnotherBuild_restartAsInstalled(t *testing.T) {
	for _, tc := range []restartCase{
		{"Homebrew's novad", []string{brewNovadPlist}, []string{brewNovaRestart}, []string{"novactl service", brewWatchRstart}},
		{"Homebrew's novad and watcher", []string{brewNovadPlist, brewWatchPlist}, []string{brewNovaRestart, brewWatchRstart}, []string{"novactl service"}},
		{"novactl's jobs", []string{ourNovadPlist, ourWatchPlist}, []string{"novactl service install"}, []string{"brew services", novactlRestart}},
		{"novad run by hand", nil, []string{fmt.Sprintf("stop novad (pid %d) and run it again", os.Getpid())}, []string{"novactl service", "brew services"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.installed(tc.files...)
			m := f.sync()
			h := healthy(m.RunID, m.ChunkCount)
			h.Version = "v0.0.1-old"
			f.serve(h)
			c := want(t, f.run(Options{GOOS: "darwin"}), "daemon", Degraded, CodeDaemonOtherBuild)
			assertAdvice(t, c.Advice, tc)
		})
	}
}

// TestDaemonRunsWithAnOlderConfig_restartAsInstalled: the restart that
// makes novad read config.yaml again is the one for how it is installed.
func TestDaemonRunsWithAnOlderConfig_restartAsInstalled(t *testing.T) {
	for _, tc := range []restartCase{
		{"Homebrew's novad", []string{brewNovadPlist, brewWatchPlist}, []string{brewNovaRestart}, []string{"novactl service", brewWatchRstart}},
		{"novactl's jobs", []string{ourNovadPlist, ourWatchPlist}, []string{novactlRestart}, []string{"brew services"}},
		{"novad run by hand", nil, []string{fmt.Sprintf("stop novad (pid %d) and run it again", os.Getpid())}, []string{"novactl service", "brew services"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.installed(tc.files...)
			m := f.sync()
			h := healthy(m.RunID, m.ChunkCount)
			h.StartedAt = time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
			f.serve(h)
			c := want(t, f.run(Options{GOOS: "darwin"}), "daemon", Degraded, CodeDaemonConfigStale)
			assertAdvice(t, c.Advice, tc)
		})
	}
}

// TestDaemonNotResponding_restartAsInstalled: a hung novad is restarted
// through what runs it; novactl service stop leaves Homebrew's job running.
func TestDaemonNotResponding_restartAsInstalled(t *testing.T) {
	for _, tc := range []restartCase{
		{"Homebrew's novad", []string{brewNovadPlist}, []string{brewNovaRestart}, []string{"novactl service"}},
		{"novactl's jobs", []string{ourNovadPlist, ourWatchPlist}, []string{"novactl service stop, then start"}, []string{"brew services"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.installed(tc.files...)
			novatest.HoldNovadLock(t, f.home)
			// A port that accepts and never answers, as a stopped novad's.
			l, err := net.Listen("tcp", "127.0.0.1:0")
			novatest.Must(t, err)
			t.Cleanup(func() { l.Close() })
			f.port = l.Addr().(*net.TCPAddr).Port
			f.writeConfig()
			c := want(t, f.run(Options{GOOS: "darwin", Timeout: 300 * time.Millisecond}), "daemon", Blocked, CodeNotResponding)
			assertAdvice(t, c.Advice, tc)
		})
	}
}

// TestWatcherRunsWithAnOlderConfig_restartAsInstalled: the restart that
// makes the watcher read config.yaml again is the one for how it is
// installed.
func TestWatcherRunsWithAnOlderConfig_restartAsInstalled(t *testing.T) {
	for _, tc := range []restartCase{
		{"Homebrew's watcher", []string{brewNovadPlist, brewWatchPlist}, []string{brewWatchRstart}, []string{"novactl service", brewNovaRestart + " "}},
		{"novactl's jobs", []string{ourNovadPlist, ourWatchPlist}, []string{novactlRestart}, []string{"brew services"}},
		{"watcher run by hand", nil, []string{fmt.Sprintf("stop novactl index watch (pid %d) and run it again", os.Getpid())}, []string{"novactl service", "brew services"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, env := doctorHome(t)
			writeServiceFiles(t, env, tc.files...)
			now := time.Now().UTC()
			holdWatcher(t, home, &freshness.State{SchemaVersion: freshness.SchemaVersion, PID: os.Getpid(), StartedAt: now.Add(-time.Hour), CaughtUpAt: now.Add(-time.Hour)})
			rep := Run(t.Context(), Options{Environ: env, GOOS: "darwin", Timeout: 100 * time.Millisecond})
			c := find(rep, "watcher")
			if c == nil || c.Code != CodeWatcherConfigStale {
				t.Fatalf("watcher: %+v", c)
			}
			assertAdvice(t, c.Advice, tc)
		})
	}
}

func assertAdvice(t *testing.T, advice string, tc restartCase) {
	t.Helper()
	for _, s := range tc.want {
		if !strings.Contains(advice, s) {
			t.Errorf("advice %q lacks %q", advice, s)
		}
	}
	for _, s := range tc.notWant {
		if strings.Contains(advice, s) {
			t.Errorf("advice %q names %q", advice, s)
		}
	}
}

// TestDaemonNotRunning_startAsInstalled: a stopped novad is started
// through what is installed to run it. Doctor said novactl service
// install to everyone, which refuses while Homebrew's job exists and
// replaces novactl's own definitions where starting them was enough.
func TestDaemonNotRunning_startAsInstalled(t *testing.T) {
	for _, tc := range []restartCase{
		{"Homebrew's novad", []string{brewNovadPlist}, []string{"brew services start nova"}, []string{"novactl service"}},
		{"novactl's jobs", []string{ourNovadPlist, ourWatchPlist}, []string{"novactl service start"}, []string{"brew services", "novactl service install"}},
		{"nothing installed", nil, []string{"novactl service install", "run novad in a terminal"}, []string{"brew services"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.installed(tc.files...)
			c := want(t, f.run(Options{GOOS: "darwin"}), "daemon", Blocked, CodeNotRunning)
			assertAdvice(t, c.Advice, tc)
		})
	}
}

// TestTokenNotServed_restartAsInstalled: the restart that rewrites the
// token file is named for how novad is installed; doctor said only
// "restart novad".
func TestTokenNotServed_restartAsInstalled(t *testing.T) {
	for _, tc := range []restartCase{
		{"Homebrew's novad", []string{brewNovadPlist}, []string{brewNovaRestart}, []string{"novactl service"}},
		{"novactl's jobs", []string{ourNovadPlist, ourWatchPlist}, []string{novactlRestart}, []string{"brew services"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.installed(tc.files...)
			tok, err := secrets.Generate()
			novatest.Must(t, err)
			novatest.Must(t, secrets.WriteToken(f.home.TokenFile(), tok))
			m := f.sync()
			h := healthy(m.RunID, m.ChunkCount)
			h.InternalEncodeAuthorized = false
			f.serve(h)
			c := want(t, f.run(Options{GOOS: "darwin"}), "token", Blocked, CodeAuthUnavailable)
			assertAdvice(t, c.Advice, tc)
		})
	}
}

// TestWatcherLimit_restartAsInstalled: a limit the watcher takes in only
// when it starts (open files, inotify instances, and the inotify watches,
// of which it sets its budget, half, at start) is followed by the restart
// for how the watcher is installed; the watcher's own message says only
// "restart the watcher", or, for the inotify watches, only to raise the
// limit, which alone left the watcher's budget as it was.
func TestWatcherLimit_restartAsInstalled(t *testing.T) {
	home, env := doctorHome(t)
	writeServiceFiles(t, env, brewNovadPlist, brewWatchPlist)
	now := time.Now().UTC()
	holdWatcher(t, home, &freshness.State{SchemaVersion: freshness.SchemaVersion, PID: os.Getpid(), StartedAt: now, CaughtUpAt: now,
		RescanIntervalSeconds: 30, Watched: freshness.Watched{Sources: 1, Dirs: 10, PolledDirs: 4},
		Limits: []freshness.Limit{
			{Name: freshness.LimitOpenFiles, Value: 256, Message: "the open file limit (256) is reached. Raise it and restart the watcher"},
			{Name: freshness.LimitInotifyWatches, Value: 8192, Message: "raise fs.inotify.max_user_watches"},
		}})
	novatest.Must(t, os.Chtimes(home.Config(), now.Add(-time.Hour), now.Add(-time.Hour)))
	rep := Run(t.Context(), Options{Environ: env, GOOS: "darwin", Timeout: 100 * time.Millisecond})
	c := find(rep, "watcher-limit:"+freshness.LimitOpenFiles)
	if c == nil {
		t.Fatalf("no open-files limit check in %+v", rep.Checks)
	}
	assertAdvice(t, c.Advice, restartCase{want: []string{"restart the watcher", brewWatchRstart}, notWant: []string{"novactl service"}})
	c = find(rep, "watcher-limit:"+freshness.LimitInotifyWatches)
	if c == nil || !strings.HasPrefix(c.Advice, "raise fs.inotify.max_user_watches; then restart the watcher") {
		t.Fatalf("inotify watches limit: %+v", c)
	}
	assertAdvice(t, c.Advice, restartCase{want: []string{brewWatchRstart}, notWant: []string{"novactl service"}})
}

// writeServiceFiles puts service definitions (plists, units) at files,
// relative to the home directory env names.
func writeServiceFiles(t *testing.T, env []string, files ...string) {
	t.Helper()
	user := strings.TrimPrefix(env[1], "HOME=")
	for _, p := range files {
		p = filepath.Join(user, p)
		novatest.Must(t, os.MkdirAll(filepath.Dir(p), 0o700))
		novatest.Must(t, os.WriteFile(p, []byte("definition\n"), 0o600))
	}
}

// holdWatcher takes home's watcher lock for this process until the test
// ends, and writes st as the watcher's state.
func holdWatcher(t *testing.T, home paths.Home, st *freshness.State) {
	t.Helper()
	lock, err := freshness.Acquire(home, time.Now())
	novatest.Must(t, err)
	t.Cleanup(lock.Release)
	novatest.Must(t, freshness.Write(home, st))
}
