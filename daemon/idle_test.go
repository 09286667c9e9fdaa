package daemon

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/secrets"
)

// TestIdleNovadChecksNothing: a novad nothing asks anything does no
// periodic work on the served generation. It stat-ed every file of it
// every 10 s (and hashed them all every hour) for days on a laptop where
// no agent searched: 157 wakeups in 2 minutes of idle. The first request
// after a pause has the files checked at once, and the checks keep their
// pace while requests come; the hourly hash missed while idle is the one
// made then. The loop runs on a fake clock (synctest).
func TestIdleNovadChecksNothing(t *testing.T) {
	cfg, _ := syncedHome(t, `{"id":"port","text":"The staging deploy listens on port 42017."}`+"\n")

	synctest.Test(t, func(t *testing.T) {
		s, err := New(Options{Config: cfg, CheckEvery: 10 * time.Second, DeepCheckEvery: time.Hour})
		novatest.Must(t, err)
		bindUnserved(t, s)
		s.reloadOnce(t.Context(), triggerStart, nil)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.serveLoop(ctx, nil)
		}()
		defer func() { cancel(); <-done }()
		checked := func() (quick, deep string) {
			s.statusMu.Lock()
			defer s.statusMu.Unlock()
			return s.integrity.CheckedAt, s.integrity.DeepCheckedAt
		}
		loadedQuick, loadedDeep := checked()
		if loadedQuick == "" || loadedDeep == "" {
			t.Fatalf("not verified at load: %+v", s.integrity)
		}

		time.Sleep(3 * time.Hour)
		synctest.Wait()
		if q, d := checked(); q != loadedQuick || d != loadedDeep {
			t.Fatalf("checked while idle: quick at %s, deep at %s (loaded at %s)", q, d, loadedQuick)
		}

		s.markUsed() // a request
		synctest.Wait()
		q, d := checked()
		if q == loadedQuick || d != q {
			t.Fatalf("the first request after 3 idle hours: quick check at %s, deep at %s, want both now (loaded at %s)", q, d, loadedQuick)
		}

		// Requests keep coming: checked at each tick.
		for range 3 {
			time.Sleep(5 * time.Second)
			s.markUsed()
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if q2, _ := checked(); q2 == q {
			t.Fatalf("not checked again while requests came: last check at %s", q2)
		}
	})
}

// bindUnserved binds s's listeners on loopback without serving them: a
// load publishes their ports in the state file.
func bindUnserved(t *testing.T, s *Server) {
	t.Helper()
	for _, ln := range []*net.Listener{&s.directLn, &s.facadeLn} {
		var err error
		*ln, err = net.Listen("tcp", "127.0.0.1:0")
		novatest.Must(t, err)
		t.Cleanup(func() { (*ln).Close() })
	}
}

// syncedHome writes records (JSON lines) as the one source of a new home
// on ports 0, syncs it once, and returns its config and the source path.
func syncedHome(t *testing.T, records string) (config.Config, string) {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join(root, "memory.jsonl")
	novatest.Must(t, os.WriteFile(src, []byte(records), 0o600))
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: filepath.Join(root, "home")}
	cfg.Server.Port, cfg.Facade.Port = 0, 0
	cfg.Sources = []config.Source{{Name: "m", Kind: config.KindJSONL, Path: src, SourceSet: "notes"}}
	novatest.Must(t, cfg.Validate())
	_, err := index.New(cfg, index.Options{NoRemote: true}).Sync(context.Background())
	novatest.Must(t, err)
	return cfg, src
}

// TestIdleNovadWakesOnlyForTheManifestPoll: between two manifest polls
// an idle novad's reload loop wakes for nothing. The look for the token
// file (and the home's lock file) had a ticker of its own, at the poll's
// period but not in step with it: two wake-ups every 30 s instead of one
// (strace of an idle novad showed them 12 ms apart). It is made at each
// manifest poll now, which the test drives by hand (changed): with no
// poll for hours, the removed token file is not looked for; the next
// poll publishes it again. The loop runs on a fake clock (synctest).
func TestIdleNovadWakesOnlyForTheManifestPoll(t *testing.T) {
	cfg, _ := syncedHome(t, `{"id":"port","text":"The staging deploy listens on port 42017."}`+"\n")

	synctest.Test(t, func(t *testing.T) {
		s, err := New(Options{Config: cfg, Poll: 30 * time.Second})
		novatest.Must(t, err)
		s.token, err = secrets.Generate()
		novatest.Must(t, err)
		bindUnserved(t, s)
		s.reloadOnce(t.Context(), triggerStart, nil)
		changed := make(chan struct{})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.serveLoop(ctx, changed)
		}()
		defer func() { cancel(); <-done }()

		// No token file (state/ cleaned up while novad ran).
		if _, err := os.Lstat(s.home.TokenFile()); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("token file before the test: %v", err)
		}
		time.Sleep(3 * time.Hour)
		synctest.Wait()
		if _, err := os.Lstat(s.home.TokenFile()); err == nil {
			t.Fatal("the token file was looked for and published with no manifest poll: a timer of its own woke the idle novad")
		}

		changed <- struct{}{} // the manifest watcher's poll
		synctest.Wait()
		if _, err := secrets.ReadToken(s.home.TokenFile()); err != nil {
			t.Fatalf("the token file was not published again at the manifest poll: %v", err)
		}
	})
}
