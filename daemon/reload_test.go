package daemon_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/daemon"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// TestPeriodicDeepCheckFallsBack: rot that keeps a file's size and time is
// found by the periodic checksum pass (no signal, no manifest change), and
// novad falls back to the older intact generation while it keeps serving.
func TestPeriodicDeepCheckFallsBack(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "memory.jsonl")
	write := func(content string) {
		if err := os.WriteFile(src, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := testConfig(t, filepath.Join(root, "home"), []config.Source{{Name: "m", Kind: config.KindJSONL, Path: src, SourceSet: "notes"}}...)
	ix := index.New(cfg, index.Options{NoRemote: true})
	var runs []string
	for _, text := range []string{
		`{"id":"a","text":"The deploy queue stalls when the runner pool is empty."}` + "\n",
		`{"id":"a","text":"The deploy queue stalls when the runner pool is empty."}` + "\n" + `{"id":"b","text":"Rotate the signing key every ninety days."}` + "\n",
	} {
		write(text)
		r, err := ix.Sync(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r.Active())
	}

	srv := serve(t, daemon.Options{Config: cfg, CheckEvery: 20 * time.Millisecond, DeepCheckEvery: 100 * time.Millisecond})
	health := func() api.Health {
		var h api.Health
		resp, err := http.Get("http://" + srv.DirectAddr().String() + api.PathHealth)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
			t.Fatal(err)
		}
		return h
	}
	waitUntil := func(what string, cond func(api.Health) bool) api.Health {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if h := health(); cond(h) {
				return h
			}
		}
		t.Fatalf("timed out waiting for %s: %+v", what, health())
		return api.Health{}
	}
	h := waitUntil("the active generation", func(h api.Health) bool { return h.Generation == runs[1] })
	if h.Integrity.Status != api.IntegrityVerified || h.Integrity.DeepCheckedAt == "" {
		t.Errorf("integrity after load: %+v", h.Integrity)
	}

	p := filepath.Join(cfg.Home.Generation(runs[1]), generation.FileSources)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 0x10
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	h = waitUntil("the fallback", func(h api.Health) bool { return h.Generation == runs[0] })
	if in := h.Integrity; in.Status != api.IntegrityFallback || in.ActiveRunID != runs[1] || in.ServedRunID != runs[0] ||
		h.IndexUnavailableReason != api.ActiveIndexMissing || !h.IndexLoaded {
		t.Errorf("after the fallback: reason %s integrity %+v", h.IndexUnavailableReason, in)
	}
}

// TestClockReachesSearch: the dates a query names are resolved against
// the clock novad is given, not the machine's, so "yesterday" is the day
// before it.
func TestClockReachesSearch(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "memory.jsonl")
	if err := os.WriteFile(src, []byte(`{"id":"a","text":"Moved the staging database to the new cluster.","timestamp":"2031-03-09T10:00:00Z"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, filepath.Join(root, "home"), []config.Source{{Name: "m", Kind: config.KindJSONL, Path: src, SourceSet: "notes"}}...)
	if _, err := index.New(cfg, index.Options{NoRemote: true}).Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2031, 3, 10, 12, 0, 0, 0, time.UTC)
	srv := serve(t, daemon.Options{Config: cfg, Now: func() time.Time { return now }})
	var h api.Health
	getJSON(t, "http://"+srv.DirectAddr().String()+api.PathHealth, &h)
	if h.StartedAt != "2031-03-10T12:00:00Z" {
		t.Errorf("startedAt %q, want the given clock's", h.StartedAt)
	}
	var resp api.SearchResponse
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp = api.SearchResponse{}
		postJSON(t, "http://"+srv.FacadeAddr().String()+api.PathFacadeSearch, `{"query":"what did we move yesterday"}`, &resp)
		if len(resp.Results) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(resp.QueryPlan.DatePriors) != 1 || resp.QueryPlan.DatePriors[0].From != "2031-03-09" {
		t.Fatalf("date priors %+v, want yesterday = 2031-03-09", resp.QueryPlan)
	}
}

// servedHealth returns srv's health once it serves a generation, or as
// it stands after 5 s (a novad that came up serving none).
func servedHealth(t *testing.T, srv *daemon.Server) api.Health {
	t.Helper()
	var h api.Health
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		getJSON(t, "http://"+srv.DirectAddr().String()+api.PathHealth, &h)
		if h.Generation != "" || time.Now().After(deadline) {
			return h
		}
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

func postJSON(t *testing.T, url, body string, v any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// TestConnectionCap (reliability.md G14): connections beyond the cap wait
// instead of being served, and are served once one closes.
func TestConnectionCap(t *testing.T) {
	cfg := testConfig(t, filepath.Join(t.TempDir(), "home"))
	srv := serve(t, daemon.Options{Config: cfg, MaxConnections: 2})
	addr := srv.DirectAddr().String()
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	// Both slots are taken by connections that send nothing (they are
	// dropped at the 5 s header timeout); a third request waits.
	result := make(chan error, 1)
	go func() {
		resp, err := (&http.Client{Timeout: 30 * time.Second}).Get("http://" + addr + api.PathHealth)
		if err == nil {
			resp.Body.Close()
		}
		result <- err
	}()
	select {
	case err := <-result:
		t.Fatalf("a request beyond the cap was served at once (err %v)", err)
	case <-time.After(500 * time.Millisecond):
	}
	held[0].Close()
	select {
	case err := <-result:
		if err != nil {
			t.Fatalf("after a slot freed: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the waiting request was not served once a slot freed")
	}
	held[1].Close()
}

// testConfig is a valid configuration of the home at root, on free ports,
// with sources.
func testConfig(t *testing.T, root string, sources ...config.Source) config.Config {
	t.Helper()
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: root}
	cfg.Server.Port, cfg.Facade.Port = 0, 0
	cfg.Sources = sources
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// serve runs a novad with opts until the test ends, and returns it once
// it accepts connections.
func serve(t *testing.T, opts daemon.Options) *daemon.Server {
	t.Helper()
	srv, err := daemon.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready, stopped := make(chan struct{}), make(chan error, 1)
	go func() { stopped <- srv.Run(ctx, ready) }()
	t.Cleanup(func() {
		cancel()
		if err := <-stopped; err != nil {
			t.Error(err)
		}
	})
	<-ready
	return srv
}

// loggedNovad is a novad serving a jsonl source of one record, and its
// log.
type loggedNovad struct {
	t    *testing.T
	src  string
	ix   *index.Indexer
	srv  *daemon.Server
	logs *novatest.LogBuffer
}

func startLogged(t *testing.T) *loggedNovad {
	t.Helper()
	root := t.TempDir()
	n := &loggedNovad{t: t, src: filepath.Join(root, "memory.jsonl"), logs: &novatest.LogBuffer{}}
	if err := os.WriteFile(n.src, []byte(`{"id":"a","text":"The deploy queue stalls when the runner pool is empty."}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, filepath.Join(root, "home"), []config.Source{{Name: "m", Kind: config.KindJSONL, Path: n.src, SourceSet: "notes"}}...)
	n.ix = index.New(cfg, index.Options{NoRemote: true})
	if _, err := n.ix.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	n.srv = serve(t, daemon.Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(n.logs, nil))})
	return n
}

// waitLogged returns once novad has logged line, and fails the test with
// problem after 20 s: what novad does beside serving has no other sign.
func (n *loggedNovad) waitLogged(line, problem string) {
	n.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(n.logs.String(), line); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			n.t.Fatalf("%s:\n%s", problem, n.logs.String())
		}
	}
}

// appendAndServe appends record to the source, syncs, and returns once
// novad serves the new generation.
func (n *loggedNovad) appendAndServe(record string) {
	t := n.t
	t.Helper()
	f, err := os.OpenFile(n.src, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, record)
	f.Close()
	r, err := n.ix.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var h api.Health
		getJSON(t, "http://"+n.srv.DirectAddr().String()+api.PathHealth, &h)
		if h.Generation == r.Active() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("novad never served %s", r.Active())
		}
	}
}

// TestRoutineReloadsLogAtDebug: every sync the watcher promotes makes
// novad reload, every few seconds while an agent works, and under launchd
// novad's log is a file nothing rotates. Loading at start says so; a
// routine reload after a promotion is debug detail (/health names the
// served generation).
func TestRoutineReloadsLogAtDebug(t *testing.T) {
	n := startLogged(t)
	for i := range 5 {
		n.appendAndServe(fmt.Sprintf(`{"id":"r%d","text":"Reload %d: the canary of build %d passed."}`, i, i, 8100+i))
	}
	out := n.logs.String()
	if c := strings.Count(out, "Generation loaded"); c != 1 {
		t.Errorf("%d \"Generation loaded\" lines at Info for a start and 5 routine reloads, want 1 (the start):\n%s", c, out)
	}
}

// TestChineseTablesReadBesideServing: once novad serves memory that holds
// Chinese, it reads the Chinese tables (a quarter of a second) on its own,
// so the first Chinese search does not wait for them; memory in English
// alone does not make it read them, and it reads them once.
func TestChineseTablesReadBesideServing(t *testing.T) {
	n := startLogged(t)
	const line = "Chinese word tables loaded"
	n.appendAndServe(`{"id":"b","text":"Rolled the canary back after the 502s."}`)
	if strings.Contains(n.logs.String(), line) {
		t.Fatalf("novad read the Chinese tables for memory in English alone:\n%s", n.logs.String())
	}
	n.appendAndServe(`{"id":"c","text":"迁移记录：数据库端口改为 5433。"}`)
	n.waitLogged(line, "novad serves Chinese memory and never read the Chinese tables")
	n.appendAndServe(`{"id":"d","text":"部署队列在周五卡住了。"}`)
	if c := strings.Count(n.logs.String(), line); c != 1 {
		t.Errorf("the Chinese tables were read %d times, want once:\n%s", c, n.logs.String())
	}
}

// TestRedactionRulesBuiltBesideServing: every search redacts its
// results' paths, and redaction's rules took novad's first search a
// tenth of a second to build (255 ms against 40 for the next at 100 000
// chunks). novad builds them once it serves its first generation,
// before any search asks, and once: a reload does not build them again.
func TestRedactionRulesBuiltBesideServing(t *testing.T) {
	n := startLogged(t)
	const line = "Redaction rules loaded"
	n.waitLogged(line, "novad serves and never built the redaction rules")
	n.appendAndServe(`{"id":"b","text":"Rolled the canary back after the 502s."}`)
	if c := strings.Count(n.logs.String(), line); c != 1 {
		t.Errorf("the redaction rules were built %d times, want once:\n%s", c, n.logs.String())
	}
}

// TestConnectionCap_idleKeepAlive: connections kept open and idle after
// a request (HTTP keep-alive) do not hold the cap's slots: a local
// process that opened as many as the cap and left them idle kept every
// other client waiting for the 60 s idle timeout, renewable at will.
func TestConnectionCap_idleKeepAlive(t *testing.T) {
	cfg := testConfig(t, filepath.Join(t.TempDir(), "home"))
	srv := serve(t, daemon.Options{Config: cfg, MaxConnections: 4})
	addr := srv.DirectAddr().String()
	for range 4 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", api.PathHealth, addr); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + addr + api.PathHealth)
	if err != nil {
		t.Fatalf("with the cap's connections idle, a new client was not served: %v", err)
	}
	resp.Body.Close()
}

// TestFailedGenerationIsNotRetriedEachPoll: a promoted generation that
// fails verification is verified once, not again at every manifest poll
// while the manifest still names it (each retry hashes every file and
// logs the failure again). A fixed manifest or SIGHUP retries it.
func TestFailedGenerationIsNotRetriedEachPoll(t *testing.T) {
	cfg := indexedHome(t, t.TempDir())
	var logs novatest.LogBuffer
	const poll = 10 * time.Millisecond
	srv := serve(t, daemon.Options{Config: cfg, Poll: poll, Debounce: poll, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	healthURL := "http://" + srv.DirectAddr().String() + api.PathHealth
	// The promote below is for a novad already serving: one still making
	// its first load could read the bad manifest instead of the good one.
	waitServing(t, "http://"+srv.DirectAddr().String())

	// A copy of the active generation with one bit flipped, promoted.
	m, _, err := manifest.Read(cfg.Home.Manifest())
	novatest.Must(t, err)
	bad := copyGeneration(t, cfg, m, func(name string, b []byte) {
		if name == generation.FileSources {
			b[len(b)/2] ^= 0x20
		}
	})
	badID := bad.RunID
	novatest.Must(t, manifest.WriteAtomic(cfg.Home.Manifest(), bad, nil))

	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var h api.Health
		getJSON(t, healthURL, &h)
		if h.Reload.FailedRunID == badID {
			if h.Generation != m.RunID {
				t.Fatalf("serving %s after a failed promote, want %s", h.Generation, m.RunID)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the failed reload was never reported:\n%s", logs.String())
		}
	}
	// The log line follows the failure /health reports: wait for it, then
	// thirty polls. Real code logs nothing more however long this takes;
	// a slow machine can only make a retrying novad look right.
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(logs.String(), "Generation not loaded"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the failed load was never logged:\n%s", logs.String())
		}
	}
	time.Sleep(30 * poll)
	if n := strings.Count(logs.String(), "Generation not loaded"); n != 1 {
		t.Errorf("%d failed loads logged for one bad promote, want 1:\n%s", n, logs.String())
	}
}

// TestStartWithoutManifestServesKeptGeneration: novad started after
// index/manifest.json was removed, with an intact generation kept, serves
// it and says it fell back, as it does for a damaged manifest. Before, it
// served nothing (a novad already running kept serving: only a restart
// lost the index), while doctor said no generation had been promoted.
func TestStartWithoutManifestServesKeptGeneration(t *testing.T) {
	cfg := indexedHome(t, t.TempDir())
	m, _, err := manifest.Read(cfg.Home.Manifest())
	novatest.Must(t, err)
	novatest.Must(t, os.Remove(cfg.Home.Manifest()))
	srv := serve(t, daemon.Options{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	h := servedHealth(t, srv)
	if h.Generation != m.RunID || !h.IndexLoaded || h.Integrity.Status != api.IntegrityFallback || h.Integrity.ServedRunID != m.RunID {
		t.Errorf("without a manifest: serving %q (loaded %v), integrity %+v; want %s, as a fallback", h.Generation, h.IndexLoaded, h.Integrity, m.RunID)
	}
}

// TestRetiredBeforeItsReload: a promotion that deletes the generation
// novad serves (a compaction removes the one it replaces) may reach the
// periodic check before the manifest watcher's event. That is a reload to
// make, not damage: novad logged "The files of the served generation are
// damaged" and went looking for an intact generation, an error in the
// person's log for what was a routine sync.
func TestRetiredBeforeItsReload(t *testing.T) {
	cfg := indexedHome(t, t.TempDir())
	var logs novatest.LogBuffer
	// The watcher's debounce and poll outlast the test: only the
	// periodic check sees the promotion.
	srv := serve(t, daemon.Options{Config: cfg, Poll: time.Hour, Debounce: time.Hour, CheckEvery: 20 * time.Millisecond,
		DeepCheckEvery: time.Hour, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	base := "http://" + srv.DirectAddr().String()
	waitServing(t, base)
	old, _, err := manifest.Read(cfg.Home.Manifest())
	novatest.Must(t, err)

	// Promote a copy of the served generation, then delete the served
	// one, as a compaction does.
	next := copyGeneration(t, cfg, old, nil)
	newID := next.RunID
	novatest.Must(t, manifest.WriteAtomic(cfg.Home.Manifest(), next, nil))
	novatest.Must(t, os.RemoveAll(filepath.Join(cfg.Home.IndexDir(), old.GenerationPath)))

	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var h api.Health
		getJSON(t, base+api.PathHealth, &h)
		if h.Generation == newID {
			if h.Integrity.Status != api.IntegrityVerified {
				t.Errorf("integrity %+v", h.Integrity)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the promoted generation was never served:\n%s", logs.String())
		}
	}
	if strings.Contains(logs.String(), "damaged") {
		t.Errorf("a routine promotion was logged as damage:\n%s", logs.String())
	}
}

// copyGeneration copies the files of m's generation into a new one, an
// hour later by its run id, each passed through change (when not nil)
// first, and returns its manifest, not yet promoted.
func copyGeneration(t *testing.T, cfg config.Config, m *manifest.Manifest, change func(name string, b []byte)) *manifest.Manifest {
	t.Helper()
	id := manifest.NewRunID(time.Now().Add(time.Hour))
	src, dst := filepath.Join(cfg.Home.IndexDir(), m.GenerationPath), cfg.Home.Generation(id)
	novatest.Must(t, os.MkdirAll(dst, 0o700))
	entries, err := os.ReadDir(src)
	novatest.Must(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		novatest.Must(t, err)
		if change != nil {
			change(e.Name(), b)
		}
		novatest.Must(t, os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600))
	}
	next := *m
	next.RunID, next.GenerationPath = id, "generations/"+id
	return &next
}

// TestIndexDirectoryReplaced: index/ replaced by another directory
// renamed over it (a restore from a backup, a sync tool's directory
// swap) keeps novad's manifest watch: the next promotion into it is
// served at once, not at the next poll (an hour here). The watch
// followed the old directory, and novad heard of no promotion again
// until the poll.
func TestIndexDirectoryReplaced(t *testing.T) {
	cfg := indexedHome(t, t.TempDir())
	srv := serve(t, daemon.Options{Config: cfg, Poll: time.Hour, Debounce: 20 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	base := "http://" + srv.DirectAddr().String()
	waitServing(t, base)
	old, _, err := manifest.Read(cfg.Home.Manifest())
	novatest.Must(t, err)

	// The same index, in another directory that takes index/'s name in
	// one step.
	dir := cfg.Home.IndexDir()
	restored := dir + ".restored"
	novatest.Must(t, os.Mkdir(restored, 0o700))
	entries, err := os.ReadDir(dir)
	novatest.Must(t, err)
	for _, e := range entries {
		novatest.Must(t, os.Rename(filepath.Join(dir, e.Name()), filepath.Join(restored, e.Name())))
	}
	novatest.Must(t, syscall.Rename(restored, dir)) // os.Rename refuses to replace a directory

	// Two promotions: the first may be seen through the replacement's own
	// event, the second only through a watch on the new index/.
	for i := range 2 {
		next := copyGeneration(t, cfg, old, nil)
		novatest.Must(t, manifest.WriteAtomic(cfg.Home.Manifest(), next, nil))
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			var h api.Health
			getJSON(t, base+api.PathHealth, &h)
			if h.Generation == next.RunID {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("promotion %d into the replaced index/ was not served (serving %s)", i+1, h.Generation)
			}
		}
		old = next
	}
}

// TestHalfWrittenGenerationServedOnceComplete: a manifest that names a
// generation whose files are not all there yet (a restore with rsync,
// which copies manifest.json before segments/, or cp -a) fails to load,
// and novad keeps serving what it served. Once the missing files arrive,
// with the manifest unchanged, the next poll serves the new generation:
// the failure was remembered by the manifest's content alone, and novad
// served the old generation until a restart or SIGHUP.
func TestHalfWrittenGenerationServedOnceComplete(t *testing.T) {
	cfg := indexedHome(t, t.TempDir())
	const poll = 20 * time.Millisecond
	srv := serve(t, daemon.Options{Config: cfg, Poll: poll, Debounce: poll, Logger: slog.New(slog.DiscardHandler)})
	base := "http://" + srv.DirectAddr().String()
	waitServing(t, base)
	old, _, err := manifest.Read(cfg.Home.Manifest())
	novatest.Must(t, err)

	// The new generation's manifest is in place before one of its files.
	next := copyGeneration(t, cfg, old, nil)
	late := filepath.Join(cfg.Home.Generation(next.RunID), generation.FileSources)
	b, err := os.ReadFile(late)
	novatest.Must(t, err)
	novatest.Must(t, os.Remove(late))
	novatest.Must(t, manifest.WriteAtomic(cfg.Home.Manifest(), next, nil))
	var h api.Health
	for deadline := time.Now().Add(20 * time.Second); h.Reload.FailedRunID != next.RunID; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the half-written generation's failure was never reported: %+v", h.Reload)
		}
		h = api.Health{} // fields left out of an answer must not keep the last one's values
		getJSON(t, base+api.PathHealth, &h)
	}
	if h.Generation != old.RunID {
		t.Fatalf("serving %q while the promoted generation is half-written, want %s", h.Generation, old.RunID)
	}

	novatest.Must(t, os.WriteFile(late, b, 0o600))
	for deadline := time.Now().Add(20 * time.Second); h.Generation != next.RunID; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the generation, complete now, was never served: serving %s, reload %+v", h.Generation, h.Reload)
		}
		h = api.Health{}
		getJSON(t, base+api.PathHealth, &h)
	}
	if !h.Reload.LastReloadSuccessful || h.Integrity.Status != api.IntegrityVerified {
		t.Errorf("serving the complete generation: reload %+v, integrity %+v", h.Reload, h.Integrity)
	}
}

// TestRestoreIntoEmptyNovadServedOnceComplete: the same restore into a
// home whose novad serves nothing yet: the manifest, copied first, names
// files not there yet; once they are, the next poll serves them (novad
// served nothing until its hourly check, a restart or SIGHUP).
func TestRestoreIntoEmptyNovadServedOnceComplete(t *testing.T) {
	cfg := indexedHome(t, t.TempDir())
	dir := cfg.Home.IndexDir()
	backup := dir + ".backup"
	novatest.Must(t, os.Rename(dir, backup))
	novatest.Must(t, os.Mkdir(dir, 0o700))
	const poll = 20 * time.Millisecond
	srv := serve(t, daemon.Options{Config: cfg, Poll: poll, Debounce: poll, Logger: slog.New(slog.DiscardHandler)})
	base := "http://" + srv.DirectAddr().String()

	// rsync's order: manifest.json before segments/ and spaces/.
	m, _, err := manifest.Read(filepath.Join(backup, "manifest.json"))
	novatest.Must(t, err)
	novatest.Must(t, os.Rename(filepath.Join(backup, "manifest.json"), cfg.Home.Manifest()))
	var h api.Health
	for deadline := time.Now().Add(20 * time.Second); h.Reload.FailedRunID != m.RunID; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the manifest without its files was never reported: %+v", h.Reload)
		}
		h = api.Health{}
		getJSON(t, base+api.PathHealth, &h)
	}
	entries, err := os.ReadDir(backup)
	novatest.Must(t, err)
	for _, e := range entries {
		novatest.Must(t, os.Rename(filepath.Join(backup, e.Name()), filepath.Join(dir, e.Name())))
	}
	for deadline := time.Now().Add(20 * time.Second); h.Generation != m.RunID; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the restored generation was never served: reload %+v, integrity %+v", h.Reload, h.Integrity)
		}
		h = api.Health{}
		getJSON(t, base+api.PathHealth, &h)
	}
}

// TestFacadeSearchDuringSwapIsOneGeneration: a facade search whose
// body arrives after a swap answers from one generation: its ragStatus
// names the generation its results come from. The status was taken
// before the body was read, so the answer named the old generation (and
// its chunk count) beside results from the new one.
func TestFacadeSearchDuringSwapIsOneGeneration(t *testing.T) {
	n := startLogged(t)
	base := "http://" + n.srv.DirectAddr().String()
	waitServing(t, base)
	addr := n.srv.FacadeAddr().String()
	body := `{"query":"zeppelin hangar"}`
	c, err := net.Dial("tcp", addr)
	novatest.Must(t, err)
	defer c.Close()
	_, err = fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", api.PathFacadeSearch, addr, len(body))
	novatest.Must(t, err)

	// A generation with a memory of the zeppelin is served before the
	// search's body comes.
	n.appendAndServe(`{"id":"z","text":"The zeppelin hangar door sticks in the cold."}`)
	var h api.Health
	getJSON(t, base+api.PathHealth, &h)

	_, err = io.WriteString(c, body)
	novatest.Must(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	novatest.Must(t, err)
	defer resp.Body.Close()
	var out api.SearchResponse
	novatest.Must(t, json.NewDecoder(resp.Body).Decode(&out))
	if resp.StatusCode != http.StatusOK || out.RagStatus == nil {
		t.Fatalf("status %d, ragStatus %v", resp.StatusCode, out.RagStatus)
	}
	found := false
	for _, r := range out.Results {
		found = found || strings.Contains(r.TextPreview, "zeppelin")
	}
	if !found {
		t.Fatalf("the search did not run on the generation served (%s): %+v", h.Generation, out.Results)
	}
	if out.RagStatus.Generation != h.Generation || out.RagStatus.ChunkCount != h.Entries {
		t.Errorf("results from %s (%d chunks), ragStatus names %s (%d chunks)", h.Generation, h.Entries, out.RagStatus.Generation, out.RagStatus.ChunkCount)
	}
}

// TestManifestNotAFileLoggedOnce: a manifest.json that is not a file (a
// directory, or a link to one) is reported once, not at every poll of
// the manifest while it stays so: it has no content whose hash marks the
// failure as known, and each poll logged the failed load again, every
// 30 s into a log nothing rotates under launchd.
func TestManifestNotAFileLoggedOnce(t *testing.T) {
	cfg := indexedHome(t, t.TempDir())
	var logs novatest.LogBuffer
	const poll = 10 * time.Millisecond
	srv := serve(t, daemon.Options{Config: cfg, Poll: poll, Debounce: poll, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	base := "http://" + srv.DirectAddr().String()
	waitServing(t, base)
	novatest.Must(t, os.Remove(cfg.Home.Manifest()))
	novatest.Must(t, os.Mkdir(cfg.Home.Manifest(), 0o700))
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(logs.String(), "Generation not loaded"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the manifest turned directory was never reported:\n%s", logs.String())
		}
	}
	time.Sleep(30 * poll)
	if n := strings.Count(logs.String(), "Generation not loaded"); n != 1 {
		t.Errorf("%d failed loads logged for one manifest turned directory, want 1:\n%s", n, logs.String())
	}
	var h api.Health
	getJSON(t, base+api.PathHealth, &h)
	if h.Reload.LastReloadSuccessful || !strings.Contains(h.Reload.LastError, "directory") || h.IndexUnavailableReason != api.ActiveIndexMissing {
		t.Errorf("/health while the manifest is a directory: reason %s, reload %+v", h.IndexUnavailableReason, h.Reload)
	}
}
