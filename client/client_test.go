package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/paths"
)

// server answers every request with status and body, and records the last
// request.
type server struct {
	*httptest.Server
	status      int
	body        []byte
	method, ct  string
	path, query string
}

func newServer(t *testing.T) *server {
	t.Helper()
	s := &server{status: http.StatusOK}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.method, s.ct, s.path, s.query = r.Method, r.Header.Get("Content-Type"), r.URL.Path, string(b)
		w.WriteHeader(s.status)
		_, _ = w.Write(s.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) answer(status int, body string) { s.status, s.body = status, []byte(body) }

func envelope(t *testing.T, reason string) string {
	t.Helper()
	b, err := json.Marshal(api.Unavailable("q", 8, reason))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSearch: every facade answer that is an envelope comes back decoded
// with its status; anything else becomes a typed error naming the CLI
// reason code.
func TestSearch(t *testing.T) {
	s := newServer(t)
	c := New(s.URL, s.URL)
	ctx := context.Background()

	s.answer(http.StatusOK, envelope(t, api.ReasonIndexNotLoaded))
	resp, status, err := c.Search(ctx, api.SearchBody{Query: "why SQLite", TopK: 3})
	if err != nil || status != 200 || resp.SchemaVersion != 2 || api.StringOr(resp.Reason, "") != api.ReasonIndexNotLoaded {
		t.Fatalf("envelope: %+v %d %v", resp, status, err)
	}
	if s.method != http.MethodPost || s.path != api.PathFacadeSearch || s.ct != "application/json" || !strings.Contains(s.query, `"query":"why SQLite"`) {
		t.Errorf("request %s %s %s %s", s.method, s.path, s.ct, s.query)
	}
	s.answer(http.StatusTooManyRequests, envelope(t, api.ReasonCapacityExhausted))
	if resp, status, err := c.Search(ctx, api.SearchBody{Query: "q"}); err != nil || status != 429 || *resp.Reason != api.ReasonCapacityExhausted {
		t.Errorf("429 envelope: %v %d %v", resp, status, err)
	}

	for _, tt := range []struct {
		status int
		body   string
		reason string
	}{
		{200, "\xff\xfe{}", api.ReasonCLIInvalidEncoding},
		{200, "<html>", api.ReasonCLIInvalidJSON},
		{200, "[1,2]", api.ReasonCLIInvalidSchema},
		{200, `{"schemaVersion":1}`, api.ReasonCLIInvalidSchema},
		{200, "", api.ReasonCLIInvalidJSON},
		{200, " \n", api.ReasonCLIInvalidJSON},
		{200, `{"schemaVersion":2} {}`, api.ReasonCLIInvalidJSON},
		{200, `{"schemaVersion":2,"results":[}`, api.ReasonCLIInvalidJSON},
		{200, `{"schemaVersion":"2"}`, api.ReasonCLIInvalidSchema},
		{200, ` "envelope"`, api.ReasonCLIInvalidSchema},
	} {
		s.answer(tt.status, tt.body)
		_, _, err := c.Search(ctx, api.SearchBody{Query: "q"})
		var ee *EnvelopeError
		if !errors.As(err, &ee) || ee.Reason != tt.reason || ee.Status != tt.status {
			t.Errorf("%q: %v, want %s", tt.body, err, tt.reason)
		}
	}

	// A flat error body (a refused request) is an HTTPError with its code.
	s.answer(http.StatusForbidden, `{"error":"browser-request-refused","message":"no"}`)
	_, status, err = c.Search(ctx, api.SearchBody{Query: "q"})
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 403 || he.Code != api.CodeBrowserRefused || status != 403 ||
		he.Error() != s.URL+" answered 403 browser-request-refused" || !strings.Contains(err.Error(), "is it novad's facade?") || IsNotRunning(err) {
		t.Errorf("403: %v", err)
	}
}

func TestGetJSON(t *testing.T) {
	s := newServer(t)
	c := New(s.URL+"/facade", s.URL)
	s.answer(200, `{"status":"ok","generation":"g1","entries":7}`)
	h, err := c.Health(context.Background())
	if err != nil || h.Generation != "g1" || h.Entries != 7 || s.path != api.PathHealth || s.method != http.MethodGet {
		t.Fatalf("Health: %+v %v (%s %s)", h, err, s.method, s.path)
	}
	if _, err := c.FacadeHealth(context.Background()); err != nil || s.path != "/facade"+api.PathFacadeHealth {
		t.Errorf("FacadeHealth went to %s: %v", s.path, err)
	}
	s.answer(500, "")
	var he *HTTPError
	if _, err := c.Stats(context.Background()); !errors.As(err, &he) || he.Status != 500 || he.Error() != "novad answered 500" {
		t.Errorf("500: %v", err)
	}
	s.answer(200, "{")
	if _, err := c.Contract(context.Background()); err == nil {
		t.Error("a truncated body decoded")
	}
}

// TestNotRunning: nothing listening is NotRunningError, whose message says
// how to start novad; a cancelled context is not.
func TestNotRunning(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	c := New(url, url)
	_, err = c.Health(context.Background())
	if !IsNotRunning(err) || !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), "novactl service install") {
		t.Errorf("closed port: %v", err)
	}
	if _, _, err := c.Search(context.Background(), api.SearchBody{Query: "q"}); !IsNotRunning(err) {
		t.Errorf("search on a closed port: %v", err)
	}
	s := newServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(s.URL, s.URL).Health(ctx); err == nil || IsNotRunning(err) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestForConfig: the ports published by the novad running for this home
// win over config.yaml; a stopped one's, another home's, one no novad
// holds the home for, a missing or a broken state file do not.
func TestForConfig(t *testing.T) {
	home := paths.Home{Root: t.TempDir()}
	cfg := config.Config{Home: home}
	cfg.Server.Host, cfg.Server.Port, cfg.Facade.Port = "localhost", 4001, 4002
	check := func(name, facade, direct string) {
		t.Helper()
		c := ForConfig(cfg)
		if c.FacadeURL != facade || c.DirectURL != direct {
			t.Errorf("%s: %s %s, want %s %s", name, c.FacadeURL, c.DirectURL, facade, direct)
		}
	}
	check("no state", "http://127.0.0.1:4002", "http://127.0.0.1:4001")
	if err := os.MkdirAll(home.StateDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	writeState := func(st api.ServerState) {
		b, _ := json.Marshal(st)
		if err := os.WriteFile(home.ServerState(), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeState(api.ServerState{PID: os.Getpid(), DirectPort: 5001, FacadePort: 5002, TokenFile: home.TokenFile()})
	check("state without a novad holding the home", "http://127.0.0.1:4002", "http://127.0.0.1:4001")
	lock, err := lockfile.Acquire(home.DaemonLock(), 0o600, "serve", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	check("running", "http://127.0.0.1:5002", "http://127.0.0.1:5001")
	// A state file copied from another home (cp -a) names that home.
	writeState(api.ServerState{PID: os.Getpid(), DirectPort: 5001, FacadePort: 5002, TokenFile: "/elsewhere/state/internal-token"})
	check("another home's state", "http://127.0.0.1:4002", "http://127.0.0.1:4001")
	writeState(api.ServerState{PID: os.Getpid(), DirectPort: 5001, FacadePort: 5002, TokenFile: home.TokenFile(), StoppedAt: time.Now().Format(time.RFC3339)})
	check("stopped", "http://127.0.0.1:4002", "http://127.0.0.1:4001")
	if err := os.WriteFile(home.ServerState(), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	check("broken state", "http://127.0.0.1:4002", "http://127.0.0.1:4001")
	if _, err := ReadState(home); err == nil || !strings.Contains(err.Error(), home.ServerState()) {
		t.Errorf("ReadState of a broken file: %v", err)
	}
	cfg.Server.Host = "::1"
	check("IPv6", "http://[::1]:4002", "http://[::1]:4001")
	// Written long, it is the address novad's Host check knows (::1):
	// [0:0:0:0:0:0:0:1] was refused as a rebinding attempt.
	cfg.Server.Host = "0:0:0:0:0:0:0:1"
	check("IPv6 written long", "http://[::1]:4002", "http://[::1]:4001")
}

// TestForConfig_otherHome: while no novad holds this home's lock, what
// answers on its ports serves another home; the client says so and sends
// it nothing (neither its memory nor this home's queries are the other's).
func TestForConfig_otherHome(t *testing.T) {
	s := newServer(t)
	s.body = []byte(`{"status":"ok"}`)
	_, port, err := net.SplitHostPort(strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	home := paths.Home{Root: t.TempDir()}
	cfg := config.Config{Home: home}
	cfg.Server.Host = "127.0.0.1"
	if cfg.Server.Port, err = strconv.Atoi(port); err != nil {
		t.Fatal(err)
	}
	cfg.Facade.Port = cfg.Server.Port
	c := ForConfig(cfg)
	_, err = c.Health(context.Background())
	var nr *NotRunningError
	if !errors.As(err, &nr) || !nr.Other || !strings.Contains(err.Error(), "another home") {
		t.Fatalf("a server on this home's ports with no novad holding the home: %v", err)
	}
	if _, _, err := c.Search(context.Background(), api.SearchBody{Query: "my private question"}); !IsNotRunning(err) {
		t.Errorf("search: %v", err)
	}
	if s.path != "" || s.query != "" {
		t.Errorf("the other server was sent %s %q", s.path, s.query)
	}
	lock := novatest.HoldNovadLock(t, home)
	if _, err := c.Health(context.Background()); err != nil {
		t.Errorf("with this home's novad holding its lock: %v", err)
	}
	lock.Release()
	s.Close()
	if _, err := c.Health(context.Background()); !errors.As(err, &nr) || nr.Other {
		t.Errorf("nothing on the port, no novad for the home: %v", err)
	}
}

// TestForConfig_stateGone: with state/ deleted (and novad.lock with it)
// while this home's novad ran, what answers on the home's ports may be
// that novad, which locks the home again at its next poll: the client
// still sends it nothing, but says so rather than only "another home".
// With state/ in place and no lock, it is another home's as before.
func TestForConfig_stateGone(t *testing.T) {
	s := newServer(t)
	s.body = []byte(`{"status":"ok"}`)
	_, port, err := net.SplitHostPort(strings.TrimPrefix(s.URL, "http://"))
	novatest.Must(t, err)
	home := paths.Home{Root: t.TempDir()}
	novatest.Must(t, paths.MkdirPrivate(home.StateDir()))
	cfg := config.Config{Home: home}
	cfg.Server.Host = "127.0.0.1"
	cfg.Server.Port, err = strconv.Atoi(port)
	novatest.Must(t, err)
	cfg.Facade.Port = cfg.Server.Port
	var nr *NotRunningError
	if _, err := ForConfig(cfg).Health(context.Background()); !errors.As(err, &nr) || !nr.Other || nr.StateGone {
		t.Errorf("state/ in place, no lock: %v (%+v), want another home's, not state/ gone", err, nr)
	}
	novatest.Must(t, os.RemoveAll(home.StateDir()))
	_, err = ForConfig(cfg).Health(context.Background())
	if !errors.As(err, &nr) || !nr.Other || !nr.StateGone || !strings.Contains(err.Error(), "state/ was deleted") {
		t.Errorf("state/ deleted: %v, want it to say this home's novad may answer and lock the home again", err)
	}
	if s.path != "" {
		t.Errorf("the server was sent %s", s.path)
	}
}

func TestBudget(t *testing.T) {
	b := NewBudget(time.Hour, 5)
	if b.MaxCalls() != 3 || NewBudget(time.Hour, 0).MaxCalls() != 1 || b.Total() != time.Hour {
		t.Errorf("clamps: %d %d", b.MaxCalls(), NewBudget(time.Hour, 0).MaxCalls())
	}
	last := int(time.Hour.Milliseconds()) + 1
	for i := 1; i <= 3; i++ {
		ms, err := b.Next()
		if err != nil || ms > last || ms <= 0 || b.Calls() != i {
			t.Fatalf("call %d: %d ms, %v", i, ms, err)
		}
		last = ms
	}
	if _, err := b.Next(); !errors.Is(err, ErrBudgetExhausted) || err.Error() != api.ReasonCLIBudgetExhausted {
		t.Errorf("fourth call: %v", err)
	}
	spent := NewBudget(0, 3)
	if _, err := spent.Next(); !errors.Is(err, ErrBudgetExhausted) || spent.Remaining() != 0 {
		t.Errorf("no time: %v, %v left", err, spent.Remaining())
	}
	if b.Remaining() <= 0 || b.Remaining() > time.Hour {
		t.Errorf("remaining %v", b.Remaining())
	}
}

// TestForConfig_stateOfAnotherRun: while this home's novad has bound its
// ports but not yet written its state, or on a home where it cannot
// write it, server-state.json is a previous run's, and its ports may be
// another program's now. The state is believed only when the novad
// holding the home's lock wrote it; otherwise the query went to whatever
// answers on the old ports.
func TestForConfig_stateOfAnotherRun(t *testing.T) {
	s := newServer(t)
	s.body = []byte(`{"status":"ok"}`)
	_, port, err := net.SplitHostPort(strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	oldPort, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	home := paths.Home{Root: t.TempDir()}
	cfg := config.Config{Home: home}
	cfg.Server.Host, cfg.Server.Port = "127.0.0.1", novatest.ClosedPort(t)
	cfg.Facade.Port = novatest.ClosedPort(t, cfg.Server.Port)
	novatest.HoldNovadLock(t, home) // this process is the home's novad
	b, _ := json.Marshal(api.ServerState{PID: os.Getpid() + 1, Host: "127.0.0.1", DirectPort: oldPort, FacadePort: oldPort, TokenFile: home.TokenFile()})
	if err := os.WriteFile(home.ServerState(), b, 0o600); err != nil {
		t.Fatal(err)
	}
	c := ForConfig(cfg)
	if _, _, err := c.Search(context.Background(), api.SearchBody{Query: "my private question"}); err == nil {
		t.Errorf("search answered by what holds a previous run's port")
	}
	if s.path != "" || s.query != "" {
		t.Errorf("a previous run's port was sent %s %q", s.path, s.query)
	}
	b, _ = json.Marshal(api.ServerState{PID: os.Getpid(), Host: "127.0.0.1", DirectPort: oldPort, FacadePort: oldPort, TokenFile: home.TokenFile()})
	if err := os.WriteFile(home.ServerState(), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if c := ForConfig(cfg); c.FacadeURL != s.URL {
		t.Errorf("the state the lock holder wrote: %s, want %s", c.FacadeURL, s.URL)
	}
}

// TestSearch_tooLarge: an answer longer than the client reads is refused
// as such, before it is read, not reported as invalid JSON (cut at the
// limit) or as a connection novad dropped.
func TestSearch_tooLarge(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(maxResponseBytes+1))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"schemaVersion":2,`))
	}))
	t.Cleanup(srv.Close)
	_, _, err := New(srv.URL, srv.URL).Search(context.Background(), api.SearchBody{Query: "q"})
	var dropped *DroppedError
	if err == nil || !strings.Contains(err.Error(), "larger than the 64 MB") || errors.As(err, &dropped) {
		t.Errorf("an answer of 64 MB and a byte: %v", err)
	}
}
