package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/internal/version"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/packaging/configwait"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/secrets"
)

// fixture is a private NOVA_HOME with one jsonl source. novad is down
// (closed ports) unless serve points the config at a fake /health.
type fixture struct {
	t       *testing.T
	home    paths.Home
	environ []string
	src     string
	port    int // the direct port config.yaml names
	extra   string
	// otherHome makes serve's fake novad one of another home: it does not
	// hold this home's lock.
	otherHome bool
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	base := t.TempDir()
	// The home is the default, ~/.nova, the one Homebrew's service
	// definitions (which some tests write) serve.
	f := &fixture{t: t, home: paths.Home{Root: filepath.Join(base, ".nova")}, src: filepath.Join(base, "notes.jsonl"),
		port: novatest.ClosedPort(t)}
	f.environ = []string{"HOME=" + base, "NOVA_HOME=" + f.home.Root}
	novatest.Must(t, os.WriteFile(f.src, []byte(`{"id":"r1","text":"we chose SQLite for the queue","date":"2026-03-01"}`+"\n"), 0o600))
	novatest.Must(t, paths.MkdirPrivate(f.home.Root))
	f.writeConfig()
	return f
}

// writeConfig writes config.yaml from the fixture's port, source and extra
// lines.
func (f *fixture) writeConfig() {
	f.t.Helper()
	cfg := fmt.Sprintf("server: {host: 127.0.0.1, port: %d}\nfacade: {port: %d}\nsources:\n  - {name: notes, kind: jsonl, path: %q}\n%s",
		f.port, novatest.ClosedPort(f.t, f.port), f.src, f.extra)
	novatest.Must(f.t, os.WriteFile(f.home.Config(), []byte(cfg), 0o600))
}

func (f *fixture) config() config.Config {
	f.t.Helper()
	cfg, err := config.Load(f.environ)
	novatest.Must(f.t, err)
	return cfg
}

// sync builds and promotes a generation, as novactl index sync does.
func (f *fixture) sync() *manifest.Manifest {
	f.t.Helper()
	_, err := index.New(f.config(), index.Options{NoRemote: true}).Sync(context.Background())
	novatest.Must(f.t, err)
	m, _, err := manifest.Read(f.home.Manifest())
	novatest.Must(f.t, err)
	return m
}

// serve answers GET /health with h on a loopback port config.yaml then
// names, and holds the home's novad lock: a novad as doctor sees it.
func (f *fixture) serve(h api.Health) {
	f.t.Helper()
	if !f.otherHome && !lockfile.Held(f.home.DaemonLock()) {
		novatest.HoldNovadLock(f.t, f.home)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != api.PathHealth {
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(h)
	}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	novatest.Must(f.t, err)
	srv.Listener = l
	srv.Start()
	f.t.Cleanup(srv.Close)
	f.port = l.Addr().(*net.TCPAddr).Port
	f.writeConfig()
}

type fakeService struct {
	st  ServiceStatus
	err error
}

func (s fakeService) ServiceStatus(context.Context) (ServiceStatus, error) { return s.st, s.err }

func (f *fixture) run(opts Options) Report {
	f.t.Helper()
	opts.Environ = f.environ
	if opts.Timeout == 0 {
		opts.Timeout = 2 * time.Second
	}
	if opts.GOOS == "" {
		opts.GOOS = "linux"
	}
	return Run(context.Background(), opts)
}

// check returns the check with this id, failing when there is none.
func check(t *testing.T, rep Report, id string) Check {
	t.Helper()
	for _, c := range rep.Checks {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no %s check in %+v", id, rep.Checks)
	return Check{}
}

func hasCheck(rep Report, id string) bool {
	for _, c := range rep.Checks {
		if c.ID == id {
			return true
		}
	}
	return false
}

// want asserts a check's state and code; a Ready check has no code and
// every other one has advice or says what to do in its message.
func want(t *testing.T, rep Report, id, state, code string) Check {
	t.Helper()
	c := check(t, rep, id)
	if c.State != state || c.Code != code {
		t.Errorf("%s: %s %q (%s), want %s %q", id, c.State, c.Code, c.Message, state, code)
	}
	if state != Ready && c.Advice == "" && !strings.Contains(c.Message, "novactl") {
		t.Errorf("%s: %s without advice: %+v", id, state, c)
	}
	return c
}

func healthy(runID string, chunks int) api.Health {
	return api.Health{Status: "ok", Generation: runID, Entries: chunks, IndexLoaded: true, InternalEncodeAuthorized: true,
		Reload:    api.ReloadStatus{LastReloadSuccessful: true},
		Integrity: api.Integrity{Status: api.IntegrityVerified, ActiveRunID: runID, ServedRunID: runID}}
}

// TestOtherHomesNovad: a novad of another home on this home's ports (a
// second home left on the default ports) is not this home's novad: doctor
// says so, where it reported this home's index as that novad's.
func TestOtherHomesNovad(t *testing.T) {
	f := newFixture(t)
	m := f.sync()
	f.otherHome = true
	f.serve(healthy("20260101T000000Z-0ther0", 5))
	rep := f.run(Options{})
	c := want(t, rep, "daemon", Blocked, CodeNotRunning)
	if !strings.Contains(c.Advice+c.Message, "another home") {
		t.Errorf("daemon: %+v does not say another home's novad answers", c)
	}
	if c := check(t, rep, "index"); c.State != Ready || !strings.Contains(c.Message, m.RunID) {
		t.Errorf("index: %+v", c)
	}
}

// TestReady: an index built from the source, novad serving it, a token
// written as novad writes it, a private home and a running service: every
// check is Ready and so is the report.
func TestReady(t *testing.T) {
	f := newFixture(t)
	m := f.sync()
	f.serve(healthy(m.RunID, m.ChunkCount))
	tok, err := secrets.Generate()
	novatest.Must(t, err)
	novatest.Must(t, secrets.WriteToken(f.home.TokenFile(), tok))
	rep := f.run(Options{Service: fakeService{st: ServiceStatus{Manager: "systemd", Installed: true, Running: true}}})
	for _, c := range rep.Checks {
		if c.State != Ready {
			t.Errorf("%s: %s", c.ID, c.Message)
		}
	}
	for _, id := range []string{"config", "loopback", "daemon", "index", "privacy", "token", "source:notes", "input", "freshness", "service"} {
		check(t, rep, id)
	}
	if rep.Status != Ready || rep.Blocked != 0 || rep.Degraded != 0 || rep.Home != f.home.Root {
		t.Errorf("report %s blocked %d degraded %d home %s", rep.Status, rep.Blocked, rep.Degraded, rep.Home)
	}
	if c := check(t, rep, "daemon"); !strings.Contains(c.Message, m.RunID) {
		t.Errorf("daemon: %s does not name the generation", c.Message)
	}
}

// TestConfig: an invalid config.yaml stops the run at the first check, and
// a non-loopback host is Blocked before any probe.
func TestConfig(t *testing.T) {
	f := newFixture(t)
	f.extra = "retrieval: {topK: 99}\n"
	f.writeConfig()
	rep := f.run(Options{})
	want(t, rep, "config", Blocked, CodeConfigInvalid)
	if len(rep.Checks) != 1 || rep.Status != Blocked || rep.Blocked != 1 {
		t.Errorf("an invalid config went on to %d checks, status %s", len(rep.Checks), rep.Status)
	}
	// A service novad waiting for the fix (--wait-for-config) is named:
	// the user need not restart it.
	novatest.Must(t, paths.MkdirPrivate(f.home.StateDir()))
	l, err := lockfile.Acquire(f.home.WaitingLock(configwait.JobNovad), paths.FileMode, "wait-for-config", time.Now())
	novatest.Must(t, err)
	c := want(t, f.run(Options{}), "config", Blocked, CodeConfigInvalid)
	if !strings.Contains(c.Advice, "novad waits for the fix and starts by itself") {
		t.Errorf("with novad waiting: %+v", c)
	}
	l.Release()

	f = newFixture(t)
	// Closed ports, never the defaults: a user's own novad may serve those.
	server := novatest.ClosedPort(t)
	facade := novatest.ClosedPort(t, server)
	bad := fmt.Sprintf("server: {host: 0.0.0.0, port: %d}\nfacade: {port: %d}\n", server, facade)
	novatest.Must(t, os.WriteFile(f.home.Config(), []byte(bad), 0o600))
	rep = f.run(Options{})
	want(t, rep, "config", Ready, "")
	c = want(t, rep, "loopback", Blocked, CodeNonLoopback)
	if !strings.Contains(c.Advice, "127.0.0.1") || hasCheck(rep, "daemon") {
		t.Errorf("non-loopback: %+v; checks %d (no probe may follow)", c, len(rep.Checks))
	}
	// Other field errors beside the host are not hidden behind it.
	novatest.Must(t, os.WriteFile(f.home.Config(), []byte(bad+"retrieval: {topK: -1, bogus: 1}\n"), 0o600))
	rep = f.run(Options{})
	c = want(t, rep, "config", Blocked, CodeConfigInvalid)
	if !strings.Contains(c.Advice, "retrieval.") || !strings.Contains(c.Advice, "config check") {
		t.Errorf("config with a non-loopback host and other errors: %+v", c)
	}
	want(t, rep, "loopback", Blocked, CodeNonLoopback)
}

// TestNonLoopbackSaysWhere: the advice on a non-loopback host names
// where it was set, the environment variable or config.yaml's line, and
// the first other field error names its file and line as the generic
// config advice does. "server.host is 0.0.0.0; set it" sent a user whose
// NOVA_SERVER_HOST set it to a config.yaml without the key.
func TestNonLoopbackSaysWhere(t *testing.T) {
	f := newFixture(t)
	f.environ = append(f.environ, "NOVA_SERVER_HOST=0.0.0.0")
	c := want(t, f.run(Options{}), "loopback", Blocked, CodeNonLoopback)
	if !strings.Contains(c.Advice, "NOVA_SERVER_HOST") {
		t.Errorf("host from the environment, advice does not name the variable: %+v", c)
	}

	f = newFixture(t)
	server := novatest.ClosedPort(t)
	facade := novatest.ClosedPort(t, server)
	bad := fmt.Sprintf("server: {host: 0.0.0.0, port: %d}\nfacade: {port: %d}\nretrieval:\n  topK: 99\n", server, facade)
	novatest.Must(t, os.WriteFile(f.home.Config(), []byte(bad), 0o600))
	rep := f.run(Options{})
	c = want(t, rep, "loopback", Blocked, CodeNonLoopback)
	if wantWhere := f.home.Config() + ": line 1"; !strings.Contains(c.Advice, wantWhere) {
		t.Errorf("host from config.yaml, advice does not say %q: %+v", wantWhere, c)
	}
	c = want(t, rep, "config", Blocked, CodeConfigInvalid)
	if wantWhere := f.home.Config() + ": line 4: retrieval.topK"; !strings.Contains(c.Advice, wantWhere) {
		t.Errorf("other field error, advice does not say %q: %+v", wantWhere, c)
	}
}

// TestDaemonAndIndex: novad down, no index, a damaged manifest, another
// embedder, novad serving an older generation, and the advice each gets.
func TestDaemonAndIndex(t *testing.T) {
	f := newFixture(t)
	rep := f.run(Options{})
	want(t, rep, "daemon", Blocked, CodeNotRunning)
	want(t, rep, "index", Blocked, CodeIndexMissing)
	want(t, rep, "token", Ready, "") // novad writes it when it starts
	if hasCheck(rep, "freshness") {
		t.Error("freshness checked without an index")
	}

	m := f.sync()
	b, err := os.ReadFile(f.home.Manifest())
	novatest.Must(t, err)
	novatest.Must(t, os.WriteFile(f.home.Manifest(), b[:len(b)/2], 0o600))
	want(t, f.run(Options{}), "index", Blocked, CodeManifestInvalid)
	novatest.Must(t, os.WriteFile(f.home.Manifest(), b, 0o600))

	f.extra = "embedding: {dimension: 128}\n"
	f.writeConfig()
	c := want(t, f.run(Options{}), "index", Blocked, CodeProfileMismatch)
	if !strings.Contains(c.Advice, "index sync") {
		t.Errorf("profile mismatch advice: %s", c.Advice)
	}
	f.extra = ""
	f.writeConfig()

	f.serve(healthy("20260101T000000Z-00000000", 3))
	want(t, f.run(Options{}), "index", Degraded, CodeServerStale)
	want(t, f.run(Options{}), "token", Blocked, CodeAuthUnavailable) // running, yet no token
	f.serve(healthy(m.RunID, m.ChunkCount))
	want(t, f.run(Options{}), "index", Ready, "")
}

// TestFreshnessStatus: the report's freshness.status is the contract's
// code the checks add up to, first in its order (conformance 12.5), as
// novad's ragStatus.freshness gives it: it said ready whenever the
// manifest read, with novad down or another embedder configured.
func TestFreshnessStatus(t *testing.T) {
	f := newFixture(t)
	status := func() string {
		t.Helper()
		rep := f.run(Options{})
		if rep.Freshness == nil {
			t.Fatal("no freshness")
		}
		return rep.Freshness.Status
	}
	if got := status(); got != api.FreshnessMissing {
		t.Errorf("no index: %q, want missing", got)
	}
	m := f.sync()
	if got := status(); got != api.FreshnessServerUnhealthy {
		t.Errorf("novad down: %q, want %s", got, api.FreshnessServerUnhealthy)
	}
	f.extra = "embedding: {dimension: 128}\n"
	f.writeConfig()
	if got := status(); got != api.ReasonProfileMismatch {
		t.Errorf("another embedder, novad down: %q, want %s first", got, api.ReasonProfileMismatch)
	}
	f.extra = ""
	f.writeConfig()
	f.serve(healthy("20260101T000000Z-00000000", 3))
	if got := status(); got != api.FreshnessServerIndexNotReady {
		t.Errorf("novad serves an older generation: %q", got)
	}
	f.serve(healthy(m.RunID, m.ChunkCount))
	if got := status(); got != "ready" {
		t.Errorf("novad serves the active generation: %q", got)
	}
}

// TestGenerationCorrupt: damaged files of the only generation are Blocked
// (nothing intact to serve); with an older intact one kept, Degraded and
// named as what novad would serve (none runs here).
func TestGenerationCorrupt(t *testing.T) {
	f := newFixture(t)
	first := f.sync()
	novatest.Must(t, os.WriteFile(f.src, []byte(`{"id":"r2","text":"the queue moved to Postgres","date":"2026-03-02"}`+"\n"), 0o600))
	second := f.sync()
	damage := func(m *manifest.Manifest) {
		// A file of the generation's own directory: segments may be shared.
		names := slices.Sorted(maps.Keys(m.Files))
		if len(names) == 0 {
			t.Fatalf("generation %s lists no files of its own", m.RunID)
		}
		p := filepath.Join(f.home.Generation(m.RunID), names[0])
		fi, err := os.Stat(p)
		novatest.Must(t, err)
		novatest.Must(t, os.Truncate(p, fi.Size()-1))
	}
	damage(second)
	c := want(t, f.run(Options{}), "index", Degraded, CodeGenerationCorrupt)
	if !strings.Contains(c.Message, first.RunID) || !strings.Contains(c.Advice, "rollback --to "+first.RunID) {
		t.Errorf("fallback not named: %+v", c)
	}
	// No novad runs here: what it would serve, not what it serves.
	if !strings.Contains(c.Message, "novad would serve "+first.RunID) {
		t.Errorf("a stopped novad said to serve: %q", c.Message)
	}
	damage(first)
	want(t, f.run(Options{Deep: true}), "index", Blocked, CodeGenerationCorrupt)
}

// TestServing: what novad says of the generation it serves becomes the
// reload check.
func TestServing(t *testing.T) {
	f := newFixture(t)
	m := f.sync()
	for _, tt := range []struct {
		name  string
		edit  func(*api.Health)
		state string
	}{
		{"fallback", func(h *api.Health) {
			h.Integrity = api.Integrity{Status: api.IntegrityFallback, ActiveRunID: m.RunID, ServedRunID: "20260101T000000Z-00000000", Problem: "chunks.bin: size 3, want 9"}
		}, Degraded},
		{"damaged", func(h *api.Health) {
			h.Integrity = api.Integrity{Status: api.IntegrityDamaged, ActiveRunID: m.RunID, ServedRunID: m.RunID, Problem: "checksum"}
		}, Degraded},
		{"none", func(h *api.Health) {
			h.Integrity = api.Integrity{Status: api.IntegrityNone, ActiveRunID: m.RunID, Problem: "checksum"}
			h.Generation = ""
		}, Blocked},
		{"reload failed", func(h *api.Health) { h.Reload = api.ReloadStatus{LastError: "load: boom\nmore"} }, Degraded},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := healthy(m.RunID, m.ChunkCount)
			tt.edit(&h)
			f.serve(h)
			c := want(t, f.run(Options{}), "reload", tt.state, CodeReloadFailed)
			if strings.Contains(c.Message, "\n") {
				t.Errorf("message spans lines: %q", c.Message)
			}
		})
	}
	f.serve(healthy(m.RunID, m.ChunkCount))
	if rep := f.run(Options{}); hasCheck(rep, "reload") {
		t.Errorf("a verified generation reported: %+v", check(t, rep, "reload"))
	}
}

// TestPrivacyAndToken: a home others can list is Blocked with the fix; a
// token file others can read is Blocked.
func TestPrivacyAndToken(t *testing.T) {
	// A home not made yet is not called private: it says Nova makes it so.
	if c := privacyCheck(paths.Home{Root: filepath.Join(t.TempDir(), "nova")}, nil); c.State != Ready || !strings.Contains(c.Message, "does not exist yet") {
		t.Errorf("a home not made yet: %+v", c)
	}
	f := newFixture(t)
	f.sync()
	if c := want(t, f.run(Options{}), "privacy", Ready, ""); !strings.Contains(c.Message, "are private to you") {
		t.Errorf("privacy of a home Nova wrote: %+v", c)
	}
	novatest.Must(t, os.Chmod(f.home.Root, 0o755))
	c := want(t, f.run(Options{}), "privacy", Blocked, CodeHomeNotPrivate)
	if !strings.Contains(c.Advice, "chmod -R go= "+f.home.Root) {
		t.Errorf("privacy: %+v", c)
	}
	novatest.Must(t, os.Chmod(f.home.Root, 0o700))

	tok, err := secrets.Generate()
	novatest.Must(t, err)
	novatest.Must(t, secrets.WriteToken(f.home.TokenFile(), tok))
	want(t, f.run(Options{}), "token", Ready, "")
	// A safe file whose token novad does not serve (another novad wrote
	// it): novad's health says so, and doctor believes novad.
	m := f.sync()
	h := healthy(m.RunID, m.ChunkCount)
	h.InternalEncodeAuthorized = false
	f.serve(h)
	c = want(t, f.run(Options{}), "token", Blocked, CodeAuthUnavailable)
	if !strings.Contains(c.Advice, "does not hold the token novad serves") {
		t.Errorf("token: %+v", c)
	}
	novatest.Must(t, os.Chmod(f.home.TokenFile(), 0o644))
	want(t, f.run(Options{}), "token", Blocked, CodeAuthUnavailable)
}

// TestSources: no sources, a missing one, a stale index, and a source in a
// folder macOS hides from launchd agents.
func TestSources(t *testing.T) {
	f := newFixture(t)
	// (Both ports named: doctor looks at the facade's too, and the
	// default 3036 may be the user's own novad.)
	novatest.Must(t, os.WriteFile(f.home.Config(), []byte(fmt.Sprintf("server: {host: 127.0.0.1, port: %d}\nfacade: {port: %d}\n", f.port, novatest.ClosedPort(t, f.port))), 0o600))
	c := want(t, f.run(Options{}), "sources", Degraded, CodeNoSources)
	if !strings.Contains(c.Advice, f.home.Config()) || strings.Contains(c.Advice, "config init") {
		t.Errorf("no sources in a config.yaml: %+v", c)
	}
	// With no config.yaml at all, the advice is the command that writes
	// one (the ports, from the environment, stay off the defaults).
	novatest.Must(t, os.Remove(f.home.Config()))
	f.environ = append(f.environ, fmt.Sprintf("NOVA_SERVER_PORT=%d", f.port), fmt.Sprintf("NOVA_FACADE_PORT=%d", novatest.ClosedPort(t, f.port)))
	c = want(t, f.run(Options{}), "sources", Degraded, CodeNoSources)
	if !strings.Contains(c.Advice, "novactl config init") || !strings.Contains(c.Message, "no config.yaml") {
		t.Errorf("no config.yaml: %+v", c)
	}

	f = newFixture(t)
	f.sync()
	want(t, f.run(Options{}), "freshness", Ready, "")
	later := time.Now().Add(2 * time.Hour)
	novatest.Must(t, os.Chtimes(f.src, later, later))
	want(t, f.run(Options{}), "freshness", Degraded, CodeIndexStale)

	novatest.Must(t, os.Remove(f.src))
	c = want(t, f.run(Options{}), "source:notes", Degraded, CodeSourceMissing)
	if !strings.Contains(c.Message, f.src) {
		t.Errorf("missing source: %s", c.Message)
	}

	base := filepath.Dir(f.src)
	docs := filepath.Join(base, "Documents", "notes")
	novatest.Must(t, os.MkdirAll(docs, 0o700))
	f.src = docs
	f.extra = ""
	novatest.Must(t, os.WriteFile(f.home.Config(), []byte(fmt.Sprintf("server: {host: 127.0.0.1, port: %d}\nfacade: {port: %d}\nsources:\n  - {name: notes, kind: markdown, path: %q}\n", f.port, novatest.ClosedPort(t, f.port), docs)), 0o600))
	want(t, f.run(Options{GOOS: "darwin"}), "source:notes", Degraded, CodePrivacyProtected)
	want(t, f.run(Options{GOOS: "linux"}), "source:notes", Ready, "")
}

// TestSources_danglingLink: a link in a source whose target cannot be
// reached (a volume that is not mounted) is source-unreadable with advice
// about the link and where it points, not about permissions.
func TestSources_danglingLink(t *testing.T) {
	f := newFixture(t)
	base := filepath.Dir(f.src)
	notes := filepath.Join(base, "md")
	novatest.Must(t, os.MkdirAll(notes, 0o700))
	novatest.Must(t, os.WriteFile(filepath.Join(notes, "queue.md"), []byte("# Queue\nWe chose SQLite.\n"), 0o600))
	link := filepath.Join(notes, "plans.md")
	novatest.Must(t, os.WriteFile(link, []byte("# Plans\nQuarterly plans.\n"), 0o600))
	f.extra = fmt.Sprintf("  - {name: docs, kind: markdown, path: %q}\n", notes)
	f.writeConfig()
	f.sync()
	want(t, f.run(Options{}), "source:docs", Ready, "")

	novatest.Must(t, os.Remove(link))
	novatest.Must(t, os.Symlink(filepath.Join("..", "Volumes", "usb", "plans.md"), link))
	c := want(t, f.run(Options{}), "source:docs", Degraded, CodeSourceUnreadable)
	if !strings.Contains(c.Message, link+": symbolic link to a file that cannot be reached") {
		t.Errorf("dangling link: %s", c.Message)
	}
	if target := filepath.Join(base, "Volumes", "usb", "plans.md"); !strings.Contains(c.Advice, "mount the volume holding "+target) ||
		!strings.Contains(c.Advice, "remove the link") || !strings.Contains(c.Advice, "memory already indexed from it is kept") || strings.Contains(c.Advice, "permissions") {
		t.Errorf("dangling link advice: %s", c.Advice)
	}
}

// TestService: each answer of the service manager.
func TestService(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		probe       fakeService
		state, code string
	}{
		{fakeService{err: errors.New("systemctl: not found")}, Degraded, CodeServiceMissing},
		{fakeService{st: ServiceStatus{Manager: "launchd"}}, Degraded, CodeServiceMissing},
		{fakeService{st: ServiceStatus{Manager: "launchd", Installed: true, Loaded: true}}, Degraded, CodeServiceNotRunning},
		{fakeService{st: ServiceStatus{Manager: "launchd", Installed: true, Loaded: true, Running: true}}, Ready, ""},
	} {
		want(t, f.run(Options{Service: tt.probe}), "service", tt.state, tt.code)
	}
	if hasCheck(f.run(Options{}), "service") {
		t.Error("a service check without a probe")
	}
}

// TestReportStatus: the report is as bad as its worst check, and counts
// them.
func TestReportStatus(t *testing.T) {
	for _, tt := range []struct {
		states []string
		status string
		b, d   int
	}{
		{[]string{Ready, Ready}, Ready, 0, 0},
		{[]string{Ready, Degraded, Degraded}, Degraded, 0, 2},
		{[]string{Degraded, Blocked, Ready}, Blocked, 1, 1},
	} {
		var r Report
		for _, s := range tt.states {
			r.Checks = append(r.Checks, Check{State: s})
		}
		r.finish()
		if r.Status != tt.status || r.Blocked != tt.b || r.Degraded != tt.d {
			t.Errorf("%v: %s %d %d", tt.states, r.Status, r.Blocked, r.Degraded)
		}
	}
}

// TestSources_unreadableFile: a listed file that cannot be opened is
// skipped by every sync, so the source is Degraded and names it. Root
// reads any file, so this runs only as another user (CI as root skips it;
// the check was run by hand with setpriv, see the commit).
func TestSources_unreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root opens files whatever their mode")
	}
	f := newFixture(t)
	f.sync()
	novatest.Must(t, os.Chmod(f.src, 0o000))
	t.Cleanup(func() { _ = os.Chmod(f.src, 0o600) })
	c := want(t, f.run(Options{}), "source:notes", Degraded, CodeSourceUnreadable)
	if !strings.Contains(c.Message, "permission denied") {
		t.Errorf("unreadable file: %+v", c)
	}
}

// TestDaemonNotResponding: a novad that holds the home but does not answer
// (stopped with SIGSTOP, hung) is not reported as not running, whose
// advice, starting one, would fail on its lock and ports.
func TestDaemonNotResponding(t *testing.T) {
	f := newFixture(t)
	novatest.HoldNovadLock(t, f.home)
	// A listener that accepts and never answers, as a stopped process's
	// socket does.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	novatest.Must(t, err)
	t.Cleanup(func() { l.Close() })
	f.port = l.Addr().(*net.TCPAddr).Port
	f.writeConfig()
	rep := f.run(Options{Timeout: 300 * time.Millisecond})
	c := want(t, rep, "daemon", Blocked, CodeNotResponding)
	if !strings.Contains(c.Advice, "did not answer within 300ms") || !strings.Contains(c.Advice, "SIGSTOP") {
		t.Errorf("advice: %q", c.Advice)
	}
}

// TestDaemonStarting: a novad that holds the home but still waits for its
// ports (another program holds one) is not reported as not running, whose
// advice, starting one, would only add a novad that stands by; nor is
// what answers on a port it waits for taken for another home's novad.
func TestDaemonStarting(t *testing.T) {
	for _, answering := range []bool{false, true} {
		t.Run(fmt.Sprintf("answering=%v", answering), func(t *testing.T) {
			f := newFixture(t)
			novatest.Must(t, paths.MkdirPrivate(f.home.StateDir()))
			l, err := lockfile.Acquire(f.home.DaemonLock(), paths.FileMode, lockfile.Starting, time.Now())
			novatest.Must(t, err)
			t.Cleanup(l.Release)
			if answering {
				// The other program on the direct port.
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				novatest.Must(t, err)
				t.Cleanup(func() { ln.Close() })
				f.port = ln.Addr().(*net.TCPAddr).Port
				f.writeConfig()
			}
			c := want(t, f.run(Options{Timeout: 300 * time.Millisecond}), "daemon", Blocked, CodeNotResponding)
			text := c.Message + " " + c.Advice
			for _, s := range []string{fmt.Sprintf("pid %d", os.Getpid()), fmt.Sprintf("127.0.0.1:%d", f.port), "server.port"} {
				if !strings.Contains(text, s) {
					t.Errorf("daemon: %q does not name %s", text, s)
				}
			}
			if strings.Contains(text, "service install") || strings.Contains(text, "what answers") {
				t.Errorf("daemon: %q", text)
			}
			// The port held is named; with none held (the program just
			// left), both are.
			facade := fmt.Sprintf("127.0.0.1:%d", f.config().Facade.Port)
			if strings.Contains(text, facade) == answering {
				t.Errorf("daemon: %q, answering on the direct port only: %v", text, answering)
			}
		})
	}
}

// TestMemoryLost: a sync past a damaged active generation, with no
// intact kept generation holding a gone file's newest memory, says so;
// doctor says it too, after, with what can be done; and no longer once
// the file is back in its place.
func TestMemoryLost(t *testing.T) {
	f := newFixture(t)
	first := f.sync()
	novatest.Must(t, os.WriteFile(f.src, []byte(`{"id":"r1","text":"we chose SQLite for the queue","date":"2026-03-01"}`+"\n"+
		`{"id":"r2","text":"the queue moved to Postgres","date":"2026-03-02"}`+"\n"), 0o600))
	second := f.sync()
	novatest.Must(t, os.Remove(f.src)) // gone: its memory is kept
	third := f.sync()
	if third.RunID == second.RunID {
		t.Fatalf("the sync after the file went wrote no generation")
	}
	rep := f.run(Options{})
	if hasCheck(rep, "lost") {
		t.Fatalf("lost memory reported before any was lost: %+v", check(t, rep, "lost"))
	}
	// The generations that read both records are damaged; the first,
	// which read one, is intact.
	for _, m := range []*manifest.Manifest{second, third} {
		names := slices.Sorted(maps.Keys(m.Files))
		p := filepath.Join(f.home.Generation(m.RunID), names[0])
		fi, err := os.Stat(p)
		novatest.Must(t, err)
		novatest.Must(t, os.Truncate(p, fi.Size()-1))
	}
	r, err := index.New(f.config(), index.Options{NoRemote: true}).Sync(context.Background())
	novatest.Must(t, err)
	if r.Build.Recovery == nil || r.Build.Recovery.BuiltOn != first.RunID || len(r.Build.Recovery.Lost) != 1 {
		t.Fatalf("the sync past the damage: %+v", r.Build.Recovery)
	}
	c := want(t, f.run(Options{}), "lost", Degraded, CodeMemoryLost)
	if !strings.Contains(c.Message, f.src) || !strings.Contains(c.Message, "1 record of 1 source file that is gone was lost") || !strings.Contains(c.Advice, "put the files back") {
		t.Errorf("lost check: %+v", c)
	}
	// Without copies, the record is moved aside, not removed: it is the
	// one record of what was lost (the advice said to remove it).
	lost := filepath.Join(f.home.IndexDir(), "lost.json")
	if mv := "mv " + lost + " " + lost + ".seen"; !strings.Contains(c.Advice, mv) || strings.Contains(c.Advice, "removing it") {
		t.Errorf("lost advice %q does not say %s", c.Advice, mv)
	}
	novatest.Must(t, os.Rename(lost, lost+".seen"))
	if rep := f.run(Options{}); hasCheck(rep, "lost") {
		t.Errorf("lost.json moved aside, and still reported lost: %+v", check(t, rep, "lost"))
	}
	novatest.Must(t, os.Rename(lost+".seen", lost))
	novatest.Must(t, os.WriteFile(f.src, []byte(`{"id":"r2","text":"the queue moved to Postgres","date":"2026-03-02"}`+"\n"), 0o600))
	if rep := f.run(Options{}); hasCheck(rep, "lost") {
		t.Errorf("the file is back, and still reported lost: %+v", check(t, rep, "lost"))
	}
}

// TestActiveIndexOfAnotherAnalyzer: an index whose terms an older Nova's
// analysis made (here one with a lever off) is degraded, not damaged:
// doctor says it finds less and that a sync rebuilds it; after the sync
// it is ready.
func TestActiveIndexOfAnotherAnalyzer(t *testing.T) {
	f := newFixture(t)
	older := lexical.NewAnalyzerWith(lexical.Options{NoLemmas: true})
	_, err := index.New(f.config(), index.Options{NoRemote: true, Analyzer: older}).Sync(context.Background())
	novatest.Must(t, err)
	c := check(t, f.run(Options{}), "index")
	if c.State != Degraded || c.Code != CodeIndexStale || !strings.Contains(c.Message, older.Version()) || !strings.Contains(c.Advice, "novactl index sync") {
		t.Errorf("index check = %+v, want degraded %s naming %s and the sync", c, CodeIndexStale, older.Version())
	}
	f.sync()
	if c := check(t, f.run(Options{}), "index"); c.State != Ready {
		t.Errorf("after the sync: %+v, want ready", c)
	}
}

// TestOldFormatIndex: an index an older Nova built in a format this one
// does not read is Blocked as index-stale, and the advice is the sync that
// rebuilds it. Before, it was reported as manifest-invalid, a corrupt
// manifest, with "roll back (novactl index rollback)" first: there is no
// generation of this format to roll back to, and that rollback fails.
func TestOldFormatIndex(t *testing.T) {
	f := newFixture(t)
	novatest.Must(t, paths.MkdirPrivate(f.home.IndexDir()))
	old := `{"schemaVersion":1,"status":"active","runId":"20250101T000000Z-00000001","generationPath":"generations/20250101T000000Z-00000001","files":{}}`
	novatest.Must(t, os.WriteFile(f.home.Manifest(), []byte(old+"\n"), 0o600))
	c := want(t, f.run(Options{}), "index", Blocked, CodeIndexStale)
	if !strings.Contains(c.Advice, "novactl index sync") || strings.Contains(c.Advice, "rollback") {
		t.Errorf("advice %q, want novactl index sync and no rollback", c.Advice)
	}
}

// TestManifestRemoved: with index/manifest.json removed and generations
// kept, the index check says so and advises the rollback that makes the
// last active generation active again. Before, it said no generation had
// been promoted ("build one: novactl index sync").
func TestManifestRemoved(t *testing.T) {
	f := newFixture(t)
	f.sync()
	novatest.Must(t, os.Remove(f.home.Manifest()))
	c := want(t, f.run(Options{}), "index", Blocked, CodeIndexMissing)
	if !strings.Contains(c.Advice, "novactl index rollback") || !strings.Contains(c.Advice, "kept") {
		t.Errorf("advice %q, want the kept generations named and novactl index rollback", c.Advice)
	}
}

// TestDaemonOfAnotherBuild: a novad that runs another build than this
// novactl (Nova upgraded, and the novad started before still running the
// old binary) is named with both builds and the restart that fixes it;
// doctor called it Ready while it served with the old code.
func TestDaemonOfAnotherBuild(t *testing.T) {
	f := newFixture(t)
	m := f.sync()
	h := healthy(m.RunID, m.ChunkCount)
	h.Version = "v0.0.1-old"
	commit := strings.Repeat("0a", 20)
	h.SourceCommit = &commit
	f.serve(h)
	c := want(t, f.run(Options{}), "daemon", Degraded, CodeDaemonOtherBuild)
	own := version.Get()
	if !strings.Contains(c.Message, "v0.0.1-old (commit 0a0a0a0a0a0a)") || !strings.Contains(c.Message, own.Build()) ||
		!strings.Contains(c.Message, m.RunID) || !strings.Contains(c.Advice, fmt.Sprintf("stop novad (pid %d) and run it again", os.Getpid())) {
		t.Errorf("novad of another build: %+v", c)
	}

	// The same build (its commit unknown, as in this test binary) is Ready.
	f2 := newFixture(t)
	m2 := f2.sync()
	h2 := healthy(m2.RunID, m2.ChunkCount)
	h2.Version = own.Version
	f2.serve(h2)
	want(t, f2.run(Options{}), "daemon", Ready, "")
}

// TestDaemonNotRunningFacadePortHeld: with no novad for this home and
// another program on the configured facade port (the direct port free),
// doctor names the port that is held: it said only "start it", and the
// novad started then could not bind its ports.
func TestDaemonNotRunningFacadePortHeld(t *testing.T) {
	f := newFixture(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	novatest.Must(t, err)
	t.Cleanup(func() { l.Close() })
	facade := l.Addr().(*net.TCPAddr).Port
	cfg := fmt.Sprintf("server: {host: 127.0.0.1, port: %d}\nfacade: {port: %d}\nsources:\n  - {name: notes, kind: jsonl, path: %q}\n",
		novatest.ClosedPort(t, facade), facade, f.src)
	novatest.Must(t, os.WriteFile(f.home.Config(), []byte(cfg), 0o600))
	c := want(t, f.run(Options{}), "daemon", Blocked, CodeNotRunning)
	text := c.Message + " " + c.Advice
	if !strings.Contains(text, fmt.Sprintf("127.0.0.1:%d", facade)) || !strings.Contains(text, "facade.port") {
		t.Errorf("daemon, with the facade port held: %q", text)
	}
}

// TestDaemonNotRunningScratchHome: with novad down for a home NOVA_HOME
// moves off ~/.nova (make run's .nova-run) and no service installed, the
// advice starts novad with that NOVA_HOME, quoted for the shell: it said
// novactl service install or plain novad, which both serve ~/.nova.
func TestDaemonNotRunningScratchHome(t *testing.T) {
	f := newFixture(t)
	f.home = paths.Home{Root: filepath.Join(t.TempDir(), "My Projects", "nova", ".nova-run")}
	novatest.Must(t, paths.MkdirPrivate(f.home.Root))
	f.environ = []string{f.environ[0], "NOVA_HOME=" + f.home.Root}
	f.writeConfig()
	c := want(t, f.run(Options{}), "daemon", Blocked, CodeNotRunning)
	text := c.Message + " " + c.Advice
	if cmd := "NOVA_HOME='" + f.home.Root + "' novad"; !strings.Contains(text, cmd) || strings.Contains(text, "service install") {
		t.Errorf("daemon, novad down for a scratch home: %q, want %q and no service install", text, cmd)
	}
	// The default home keeps the advice for it.
	g := newFixture(t)
	if c := want(t, g.run(Options{}), "daemon", Blocked, CodeNotRunning); !strings.Contains(c.Message+c.Advice, "novactl service install") {
		t.Errorf("daemon, novad down for ~/.nova: %+v", c)
	}
}

// TestDaemonRunsWithAnOlderConfig: novad reads config.yaml once, when it
// starts; a change made since (retrieval, embedding, ports) is not in
// force until it restarts. Doctor called novad Ready; now it says novad
// runs with the file as it was, and how to restart it.
func TestDaemonRunsWithAnOlderConfig(t *testing.T) {
	f := newFixture(t)
	m := f.sync()
	h := healthy(m.RunID, m.ChunkCount)
	started := time.Now().Add(-time.Hour).UTC()
	h.StartedAt = started.Format(time.RFC3339)
	f.serve(h)
	c := want(t, f.run(Options{}), "daemon", Degraded, CodeDaemonConfigStale)
	if !strings.Contains(c.Message, f.home.Config()) || !strings.Contains(c.Advice, fmt.Sprintf("stop novad (pid %d) and run it again", os.Getpid())) {
		t.Errorf("novad started before config.yaml changed: %+v", c)
	}
	before := started.Add(-time.Hour)
	novatest.Must(t, os.Chtimes(f.home.Config(), before, before))
	want(t, f.run(Options{}), "daemon", Ready, "")
}

// TestPrivacy_commandsQuoteTheirPaths: the chmod a privacy advice names
// is pasted into a shell: a home whose path holds a space is one word of
// it. Unquoted, chmod -R go= /x/my notes/.nova took /x/my and the
// relative notes/.nova for two paths, and left the home as it was.
func TestPrivacy_commandsQuoteTheirPaths(t *testing.T) {
	base := filepath.Join(t.TempDir(), "my notes")
	home := paths.Home{Root: filepath.Join(base, ".nova")}
	novatest.Must(t, os.MkdirAll(home.Root, 0o700))
	novatest.Must(t, os.WriteFile(home.Config(), []byte("server: {host: 127.0.0.1, port: 1}\nfacade: {port: 2}\n"), 0o600))
	env := []string{"HOME=" + base, "NOVA_HOME=" + home.Root}
	run := func(code string) Check {
		return want(t, Run(context.Background(), Options{Environ: env, GOOS: "linux", Timeout: 100 * time.Millisecond}), "privacy", Blocked, code)
	}
	novatest.Must(t, os.Chmod(home.Root, 0o755))
	if c := run(CodeHomeNotPrivate); !strings.Contains(c.Advice, "chmod -R go= '"+home.Root+"'") {
		t.Errorf("home open to others: %+v", c)
	}
	novatest.Must(t, os.Chmod(home.Root, 0o700))
	novatest.Must(t, os.Chmod(base, 0o777))
	if c := run(CodeHomePathUnsafe); !strings.Contains(c.Advice, "chmod go-w '"+base+"'") {
		t.Errorf("a home in a folder others can write: %+v", c)
	}
}
