package daemon

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	nconfig "github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/internal/swell"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// checkedNovad is a novad serving a home of one record through Run, on
// ports 0, whose quick checks never tick.
type checkedNovad struct {
	t       *testing.T
	cfg     nconfig.Config
	src     string // its source, a jsonl file
	s       *Server
	logs    *novatest.LogBuffer
	stop    context.CancelFunc
	stopped chan error
	// exited is closed once Run's error was received from stopped.
	exited chan struct{}
}

// startChecked starts novad with deepEvery as its deep check period and
// poll as its manifest watcher's debounce and poll (an hour: only what
// a test sends reaches the reload loop), calling prepare, if not nil,
// before Run.
func startChecked(t *testing.T, deepEvery, poll time.Duration, prepare func(*Server)) *checkedNovad {
	t.Helper()
	cfg, src := syncedHome(t, `{"id":"port","text":"The staging deploy listens on port 42017."}`+"\n")
	logs := &novatest.LogBuffer{}
	s, err := New(Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(logs, nil)), Poll: poll, Debounce: poll,
		CheckEvery: time.Hour, DeepCheckEvery: deepEvery})
	novatest.Must(t, err)
	if prepare != nil {
		prepare(s)
	}
	run, stop := context.WithCancel(context.Background())
	n := &checkedNovad{t: t, cfg: cfg, src: src, s: s, logs: logs, stop: stop, stopped: make(chan error, 1), exited: make(chan struct{})}
	ready := make(chan struct{})
	go func() { n.stopped <- s.Run(run, ready) }()
	t.Cleanup(func() {
		stop()
		select {
		case <-n.exited:
		case err := <-n.stopped:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(30 * time.Second):
			t.Error("novad still runs 30 s after the test stopped it")
		}
	})
	select {
	case <-ready:
	case err := <-n.stopped:
		t.Fatalf("novad stopped before serving: %v", err)
	}
	return n
}

// health asks novad's /health over HTTP.
func (n *checkedNovad) health() api.Health {
	n.t.Helper()
	resp, err := http.Get("http://" + n.s.DirectAddr().String() + api.PathHealth)
	novatest.Must(n.t, err)
	defer resp.Body.Close()
	var h api.Health
	novatest.Must(n.t, json.NewDecoder(resp.Body).Decode(&h))
	return h
}

// stopNow stops novad and fails the test unless Run returns, without
// error, within 10 s, or if novad logged an error or damage.
func (n *checkedNovad) stopNow() {
	n.t.Helper()
	n.stop()
	select {
	case err := <-n.stopped:
		close(n.exited)
		novatest.Must(n.t, err)
	case <-time.After(10 * time.Second):
		n.t.Fatal("novad still runs 10 s after it was stopped during a check")
	}
	if out := n.logs.String(); strings.Contains(out, "level=ERROR") || strings.Contains(out, "damaged") {
		n.t.Errorf("a check cut short was logged as a failure:\n%s", out)
	}
}

// waitServed waits until /health names a generation served.
func (n *checkedNovad) waitServed() api.Health {
	n.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if h := n.health(); h.Generation != "" {
			return h
		}
		if time.Now().After(deadline) {
			n.t.Fatalf("novad served nothing within 30 s:\n%s", n.logs.String())
		}
	}
}

func (n *checkedNovad) integrity() api.Integrity {
	_, _, in, _ := n.s.servedStatus()
	return in
}

// swellAfterLoad makes the build report of the first generation s opens
// swell (swell.Report) once its load has verified it, the record it is
// served with saying so (the manifest on disk is left as it was): a
// re-check of it then hashes 64 GiB. The test calls swellNow once novad
// runs; it returns the generation's directory and lets the load go on.
func swellAfterLoad(t *testing.T, s *Server) (swellNow func() string) {
	opened, swollen := make(chan *index.Served, 1), make(chan struct{})
	first := true
	s.openActive = func(ctx context.Context, home paths.Home, m *manifest.Manifest, a *lexical.Analyzer, c *generation.Cache) (*index.Served, error) {
		g, err := index.OpenServed(ctx, home, m, a, c)
		if err == nil && first {
			first = false
			opened <- g
			<-swollen
		}
		return g, err
	}
	return func() string {
		t.Helper()
		var g *index.Served
		select {
		case g = <-opened:
		case <-time.After(time.Minute):
			t.Fatal("novad loaded nothing within a minute")
		}
		defer close(swollen)
		dir := filepath.Join(s.home.IndexDir(), g.Record.GenerationPath)
		promoted, err := os.ReadFile(s.home.Manifest())
		novatest.Must(t, err)
		swell.Report(t, dir)
		m, _, err := manifest.Read(s.home.Manifest())
		novatest.Must(t, err)
		// The load goes on only once this is done: nothing reads the
		// record meanwhile.
		g.Record.Files[generation.FileReport] = m.Files[generation.FileReport]
		// The manifest as it was loaded: a poll finds nothing changed.
		novatest.Must(t, os.WriteFile(s.home.Manifest(), promoted, 0o600))
		return dir
	}
}

// TestStopDuringDeepRecheck: novad stopped while its periodic deep check
// hashes the served generation stops at once, and records nothing: no
// damage logged, no other generation looked for, the integrity /health
// gave before the stop unchanged.
func TestStopDuringDeepRecheck(t *testing.T) {
	var swellNow func() string
	n := startChecked(t, 500*time.Millisecond, time.Hour, func(s *Server) { swellNow = swellAfterLoad(t, s) })
	dir := swellNow()
	// The load goes on once swellNow returns: /health names the
	// generation when the swap is done (it failed here under a loaded
	// make test, asked at once).
	before := n.waitServed()
	if before.Integrity.Status != api.IntegrityVerified || before.Generation != filepath.Base(dir) {
		t.Fatalf("before the check: serving %s, integrity %+v", before.Generation, before.Integrity)
	}
	swell.Await(t, os.Getpid(), dir, n.stopped)
	if h := n.health(); !reflect.DeepEqual(h.Integrity, before.Integrity) || h.Generation != before.Generation {
		t.Errorf("during the deep check /health says %s, %+v; before it %s, %+v", h.Generation, h.Integrity, before.Generation, before.Integrity)
	}
	n.stopNow()
	if in := n.integrity(); !reflect.DeepEqual(in, before.Integrity) {
		t.Errorf("integrity after the stop %+v, before the check %+v", in, before.Integrity)
	}
}

// promoteCopy promotes a copy of the generation served (the manifest
// naming it, an hour later by its run id) and deletes the served one, as
// a compaction does, with the copy's build report swollen (swell.Report):
// loading it hashes 64 GiB. It returns the copy's directory.
func promoteCopy(t *testing.T, home paths.Home) string {
	t.Helper()
	old, _, err := manifest.Read(home.Manifest())
	novatest.Must(t, err)
	id := manifest.NewRunID(time.Now().Add(time.Hour))
	src, dst := filepath.Join(home.IndexDir(), old.GenerationPath), home.Generation(id)
	copyDir(t, src, dst)
	next := *old
	next.RunID, next.GenerationPath = id, "generations/"+id
	novatest.Must(t, manifest.WriteAtomic(home.Manifest(), &next, nil))
	swell.Report(t, dst)
	novatest.Must(t, os.RemoveAll(src))
	return dst
}

// TestStopDuringRecheckOvertaken: a re-check that finds the served
// generation gone because a promotion replaced it (the manifest names
// another) reloads; novad stopped while that reload hashes the new
// generation stops at once and records nothing. The reload cut short
// left the old generation served, and the re-check went on to log the
// files damaged and look for an intact generation.
func TestStopDuringRecheckOvertaken(t *testing.T) {
	n := startChecked(t, time.Hour, time.Hour, nil)
	before := n.waitServed()
	if before.Integrity.Status != api.IntegrityVerified {
		t.Fatalf("before the promotion: integrity %+v", before.Integrity)
	}
	dir := promoteCopy(t, n.s.home)
	n.s.checkNow <- struct{}{} // as a search that faulted asks
	swell.Await(t, os.Getpid(), dir, n.stopped)
	n.stopNow()
	if in := n.integrity(); !reflect.DeepEqual(in, before.Integrity) {
		t.Errorf("integrity after the stop %+v, before the promotion %+v", in, before.Integrity)
	}
}

// sync adds a record to n's source and syncs it, which promotes a new
// generation; it returns the run id the manifest names then.
func (n *checkedNovad) sync() string {
	n.t.Helper()
	// Asked before: novad may serve what the sync promotes before it
	// returns.
	served := n.health().Generation
	f, err := os.OpenFile(n.src, os.O_APPEND|os.O_WRONLY, 0)
	novatest.Must(n.t, err)
	_, err = f.WriteString(`{"id":"door","text":"The hangar door sticks in the cold."}` + "\n")
	novatest.Must(n.t, err)
	novatest.Must(n.t, f.Close())
	_, err = index.New(n.cfg, index.Options{NoRemote: true}).Sync(context.Background())
	novatest.Must(n.t, err)
	// The manifest's: a sync may promote a delta, then its compaction.
	m, _, err := manifest.Read(n.cfg.Home.Manifest())
	novatest.Must(n.t, err)
	if m.RunID == served {
		n.t.Fatalf("the sync promoted nothing: the manifest names %s, served", m.RunID)
	}
	return m.RunID
}

// TestReloadDuringDeepRecheck: a SIGHUP that comes while the periodic
// deep check hashes the served generation is a reload to make now: it
// verifies in full what it serves, so the check is cut short, records
// nothing, and the generation a sync promoted meanwhile is served. The
// reload loop is one goroutine: the SIGHUP waited until the check had
// hashed every file (minutes for a large index on a slow disk; here the
// test's bound).
func TestReloadDuringDeepRecheck(t *testing.T) {
	var swellNow func() string
	n := startChecked(t, 500*time.Millisecond, time.Hour, func(s *Server) { swellNow = swellAfterLoad(t, s) })
	dir := swellNow()
	swell.Await(t, os.Getpid(), dir, n.stopped)
	next := n.sync()
	n.s.Reload() // what SIGHUP does
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		h := n.health()
		if h.Generation == next {
			if h.Integrity.Status != api.IntegrityVerified || h.Integrity.ServedRunID != next || h.Integrity.DeepCheckedAt == "" {
				t.Errorf("serving %s after the SIGHUP, integrity %+v", next, h.Integrity)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the generation promoted during the deep check was not served within 30 s of the SIGHUP (serving %s):\n%s", h.Generation, n.logs.String())
		}
	}
	n.stopNow()
}

// TestPromotionDuringDeepRecheck: a promotion the manifest watcher sees
// while the periodic deep check hashes the served generation is served
// at once, the check cut short and recording nothing, as for a SIGHUP;
// the watcher's polls that find the manifest unchanged do not cut it.
// The promotion waited until the check had hashed every file.
func TestPromotionDuringDeepRecheck(t *testing.T) {
	t.Parallel() // it waits seconds for the deep check, and its home is its own
	var swellNow func() string
	// The first deep check 5 s after the load, the next 5 s later: the
	// report is open after 10 polls only if the first is still on it.
	n := startChecked(t, 5*time.Second, 100*time.Millisecond, func(s *Server) { swellNow = swellAfterLoad(t, s) })
	dir := swellNow()
	swell.Await(t, os.Getpid(), dir, n.stopped)
	time.Sleep(time.Second) // polls that find nothing new
	if !holdsOpen(t, filepath.Join(dir, generation.FileReport)) {
		t.Fatalf("the deep check stopped hashing at the watcher's polls of an unchanged manifest:\n%s", n.logs.String())
	}
	next := n.sync()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		h := n.health()
		if h.Generation == next {
			if h.Integrity.Status != api.IntegrityVerified || h.Integrity.ServedRunID != next {
				t.Errorf("serving %s after its promotion, integrity %+v", next, h.Integrity)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the generation promoted during the deep check was not served within 30 s (serving %s):\n%s", h.Generation, n.logs.String())
		}
	}
	n.stopNow()
}

// holdsOpen reports whether this process has the file at path open; it
// skips t where /proc does not tell (macOS).
func holdsOpen(t *testing.T, path string) bool {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot tell which files are open: %v", err)
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && target == path {
			return true
		}
	}
	return false
}
