package daemon

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/internal/swell"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// stashServed copies the files of the generation the manifest names to a
// directory outside the home, for copyGeneration.
func stashServed(t *testing.T, home paths.Home) string {
	t.Helper()
	m, _, err := manifest.Read(home.Manifest())
	novatest.Must(t, err)
	dst := filepath.Join(t.TempDir(), m.RunID)
	copyDir(t, filepath.Join(home.IndexDir(), m.GenerationPath), dst)
	return dst
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	novatest.Must(t, os.MkdirAll(dst, 0o700))
	entries, err := os.ReadDir(src)
	novatest.Must(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		novatest.Must(t, err)
		novatest.Must(t, os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600))
	}
}

// copyGeneration makes the files in src (see stashServed) a new kept
// generation of home, its candidate record naming it, and returns its run
// id, dated ahead of now.
func copyGeneration(t *testing.T, home paths.Home, src string, ahead time.Duration) string {
	t.Helper()
	id := manifest.NewRunID(time.Now().Add(ahead))
	dst := home.Generation(id)
	copyDir(t, src, dst)
	record := filepath.Join(dst, generation.FileCandidate)
	b, err := os.ReadFile(record)
	novatest.Must(t, err)
	var r manifest.Manifest
	novatest.Must(t, json.Unmarshal(b, &r))
	r.RunID, r.GenerationPath = id, "generations/"+id
	r.Seal()
	b, err = json.MarshalIndent(&r, "", "  ")
	novatest.Must(t, err)
	novatest.Must(t, os.WriteFile(record, b, 0o600))
	return id
}

// promote makes the manifest name generation id, with the files its
// candidate record lists (copyGeneration), or those of the generation
// the manifest names when there is no such generation.
func promote(t *testing.T, home paths.Home, id string) {
	t.Helper()
	m, _, err := manifest.Read(home.Manifest())
	novatest.Must(t, err)
	next := *m
	next.RunID, next.GenerationPath = id, "generations/"+id
	if b, err := os.ReadFile(filepath.Join(home.Generation(id), generation.FileCandidate)); err == nil {
		var r manifest.Manifest
		novatest.Must(t, json.Unmarshal(b, &r))
		next.Files = r.Files
	}
	novatest.Must(t, manifest.WriteAtomic(home.Manifest(), &next, nil))
}

// waitServing waits until /health says generation id is served, verified.
func (n *checkedNovad) waitServing(id, after string) {
	n.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		h := n.health()
		if h.Generation == id {
			if h.Integrity.Status != api.IntegrityVerified || h.Integrity.ServedRunID != id {
				n.t.Errorf("serving %s after %s, integrity %+v", id, after, h.Integrity)
			}
			return
		}
		if time.Now().After(deadline) {
			n.t.Fatalf("generation %s was not served within 30 s of %s (serving %s, integrity %+v):\n%s",
				id, after, h.Generation, h.Integrity, n.logs.String())
		}
	}
}

// reloadCuts are the two ways a reload is asked for while novad is busy:
// a SIGHUP, and a promotion the manifest watcher (polling every 100 ms)
// sees. poll is the watcher's period; ask, called after the promotion,
// asks for the reload.
var reloadCuts = []struct {
	name string
	poll time.Duration
	ask  func(*Server)
}{
	{"sighup", time.Hour, func(s *Server) { s.Reload() }},
	{"promotion", 100 * time.Millisecond, func(*Server) {}},
}

// TestReloadDuringRetry: while the served generation is damaged and no
// kept one was found intact, each deep tick looks again, hashing every
// kept generation. A SIGHUP or a promotion that comes meanwhile is
// served at once, the search cut short; it waited until every kept
// generation was hashed.
func TestReloadDuringRetry(t *testing.T) {
	for _, tc := range reloadCuts {
		t.Run(tc.name, func(t *testing.T) {
			n := startChecked(t, 500*time.Millisecond, tc.poll, nil)
			before := n.waitServed()
			stash := stashServed(t, n.s.home)
			// The served generation damaged, and no other kept.
			novatest.Must(t, os.Remove(filepath.Join(n.s.home.Generation(before.Generation), generation.FileReport)))
			n.s.checkNow <- struct{}{}
			for deadline := time.Now().Add(30 * time.Second); n.health().Integrity.Status != api.IntegrityDamaged; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the damage was not found within 30 s:\n%s", n.logs.String())
				}
			}
			// A kept generation whose hash takes for ever: the next deep
			// tick's search hashes it.
			kept := copyGeneration(t, n.s.home, stash, time.Hour)
			swell.Report(t, n.s.home.Generation(kept))
			swell.Await(t, os.Getpid(), n.s.home.Generation(kept), n.stopped)
			next := copyGeneration(t, n.s.home, stash, 2*time.Hour)
			promote(t, n.s.home, next)
			tc.ask(n.s)
			n.waitServing(next, "its promotion")
			// Cut short, the search found nothing to tell of it.
			if out := n.logs.String(); strings.Contains(out, kept) {
				t.Errorf("the search cut short logged generation %s:\n%s", kept, out)
			}
		})
	}
}

// TestPromotionDuringLoad: a generation being loaded when a newer
// promotion comes is loaded to the end, and the newer one served next.
// A load is never cut short (checks are): promotions that came faster
// than a large generation loads (a compaction's, every file hashed)
// would each cut the last, and nothing newer would be served until they
// paused.
func TestPromotionDuringLoad(t *testing.T) {
	entered, release := make(chan string, 1), make(chan struct{})
	cutShort := make(chan bool, 1)
	var loads atomic.Int32
	n := startChecked(t, time.Hour, 100*time.Millisecond, func(s *Server) {
		s.openActive = func(ctx context.Context, home paths.Home, m *manifest.Manifest, a *lexical.Analyzer, c *generation.Cache) (*index.Served, error) {
			if loads.Add(1) == 2 { // the first load after the start's
				entered <- m.RunID
				<-release
				cutShort <- ctx.Err() != nil
			}
			return index.OpenServed(ctx, home, m, a, c)
		}
	})
	n.waitServed()
	stash := stashServed(t, n.s.home)
	slow := copyGeneration(t, n.s.home, stash, time.Hour)
	promote(t, n.s.home, slow)
	select {
	case id := <-entered:
		if id != slow {
			t.Fatalf("loading %s, want %s", id, slow)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the promotion of %s was not loaded within 30 s:\n%s", slow, n.logs.String())
	}
	next := copyGeneration(t, n.s.home, stash, 2*time.Hour)
	promote(t, n.s.home, next)
	// The watcher polls every 100 ms: it has seen the newer manifest
	// long before the load goes on.
	time.Sleep(time.Second)
	close(release)
	if <-cutShort {
		t.Errorf("the load of %s was cut short by the promotion of %s", slow, next)
	}
	n.waitServing(next, "its promotion")
}

// TestFallbackReplacedBeforeRecheck: a promotion that deletes the
// fallback generation served (a compaction removes the one it replaces)
// can reach a re-check before the manifest watcher's event. That is a
// reload to make, as it is for a verified generation: the promoted one
// is served and no damage is logged.
func TestFallbackReplacedBeforeRecheck(t *testing.T) {
	n := startChecked(t, time.Hour, time.Hour, nil)
	before := n.waitServed()
	stash := stashServed(t, n.s.home)
	// The manifest names a generation that is not there: the one served
	// stays, as a fallback.
	promote(t, n.s.home, manifest.NewRunID(time.Now().Add(time.Hour)))
	n.s.Reload()
	for deadline := time.Now().Add(30 * time.Second); n.health().Integrity.Status != api.IntegrityFallback; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no fallback served within 30 s:\n%s", n.logs.String())
		}
	}
	next := copyGeneration(t, n.s.home, stash, 2*time.Hour)
	promote(t, n.s.home, next)
	novatest.Must(t, os.RemoveAll(n.s.home.Generation(before.Generation)))
	n.s.checkNow <- struct{}{} // as a search that faulted asks
	n.waitServing(next, "its promotion")
	if out := n.logs.String(); strings.Contains(out, "are damaged") {
		t.Errorf("the fallback a promotion replaced was logged damaged:\n%s", out)
	}
}
