package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/client"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/paths"
)

// fakeFacade answers every search with the envelope of reason (available
// when reason is "") and status, and counts the requests.
func fakeFacade(t *testing.T, status int, reason, message string) (url string, requests *atomic.Int32) {
	t.Helper()
	requests = new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		var body api.SearchBody
		_ = json.NewDecoder(r.Body).Decode(&body)
		resp := api.Unavailable(body.Query, body.TopK, reason)
		resp.Error = message
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, requests
}

// TestSearch_usageErrorsBeforeSending: what novad would refuse is refused
// before a request, as a usage error naming the flag or the limit, in
// text and (on stdout) in JSON.
func TestSearch_usageErrorsBeforeSending(t *testing.T) {
	url, requests := fakeFacade(t, http.StatusOK, api.ReasonIndexNotLoaded, "")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"bad date", []string{"foo", "--date", "2026-13-45"}, `--date must be a calendar date YYYY-MM-DD or an RFC 3339 time (got "2026-13-45")`},
		{"bad date-from", []string{"foo", "--date-from", "yesterday"}, `--date-from must be a calendar date YYYY-MM-DD or an RFC 3339 time (got "yesterday")`},
		{"range backwards", []string{"foo", "--date-from", "2026-05-02", "--date-to", "2026-05-01"}, "--date-from 2026-05-02 is after --date-to 2026-05-01"},
		// As instants, as novad compares two times: 04:00Z on the 9th is
		// after 16:00Z on the 8th, though the days as written are in order.
		{"range backwards as times", []string{"foo", "--date-from", "2026-06-08T23:00:00-05:00", "--date-to", "2026-06-09T01:00:00+09:00"}, "--date-from 2026-06-08T23:00:00-05:00 is after --date-to 2026-06-09T01:00:00+09:00"},
		{"query too long", []string{strings.Repeat("a", api.MaxQueryRunes+1)}, "the query is 4001 characters long; at most 4000 are searched"},
		{"query of 1 MB", []string{strings.Repeat("word ", 200_000)}, "at most 4000 are searched"},
		// A timeout of 0 reads as "none", but it would expire every
		// search before it left.
		{"zero timeout", []string{"foo", "--timeout", "0"}, "--timeout must be positive (got 0s)"},
		{"negative timeout", []string{"foo", "--timeout", "-1s"}, "--timeout must be positive (got -1s)"},
		// novad refuses a search with less time before it runs, and the
		// advice for that (narrow the query) did not fit.
		{"timeout below novad's minimum", []string{"foo", "--timeout", "150ms"}, "--timeout must be at least 200ms, the least time novad runs a search in (got 150ms)"},
		// host:port as config show prints it, without the scheme; the
		// last --facade-url wins, so this one replaces the fake's.
		{"facade URL without a scheme", []string{"foo", "--facade-url", "127.0.0.1:3036"}, `--facade-url must be a URL such as http://127.0.0.1:3036 (got "127.0.0.1:3036")`},
		{"dashboard URL without a scheme", []string{"foo", "--facade-url", "", "--dashboard-url", "localhost:3036"}, `--dashboard-url must be a URL such as http://127.0.0.1:3036 (got "localhost:3036")`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"search", "--facade-url", url}, tt.args...)
			code, out, errOut := runCLI(context.Background(), nil, args...)
			if code != ExitUsage || !strings.Contains(errOut, tt.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q on stderr", code, out, errOut, tt.want)
			}
			code, out, errOut = runCLI(context.Background(), nil, append(args, "--json")...)
			var got struct {
				OK    *bool
				Error string
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil || got.OK == nil || *got.OK || !strings.Contains(got.Error, tt.want) {
				t.Errorf("--json: stdout %q (%v), want {\"ok\":false,\"error\":%q}", out, err, tt.want)
			}
			if code != ExitUsage || errOut != "" {
				t.Errorf("--json: exit %d, stderr %q; want exit 2 and nothing on stderr", code, errOut)
			}
		})
	}
	// At the limit the query goes out.
	if code, out, errOut := runCLI(context.Background(), nil, "search", "--facade-url", url, strings.Repeat("a", api.MaxQueryRunes), "--date", "2026-05-01"); code != ExitOK {
		t.Errorf("a query of %d characters: exit %d\n%s%s", api.MaxQueryRunes, code, out, errOut)
	}
	// Times in order as instants go out, though the days as written are
	// not: 16:00Z on the 8th is before 20:00Z on the 8th.
	if code, out, errOut := runCLI(context.Background(), nil, "search", "--facade-url", url, "foo", "--date-from", "2026-06-09T01:00:00+09:00", "--date-to", "2026-06-08T20:00:00Z"); code != ExitOK {
		t.Errorf("times in order in other offsets: exit %d\n%s%s", code, out, errOut)
	}
	if n := requests.Load(); n != 2 {
		t.Errorf("%d requests reached novad, want only the two valid ones", n)
	}
}

// TestSearch_refusedByNovad: a request novad refuses as invalid prints the
// server's error with advice that fits, and exits 2; other unavailability
// keeps exit 0, as the help says.
func TestSearch_refusedByNovad(t *testing.T) {
	for _, tt := range []struct {
		name, reason, message string
		status, code          int
		want                  []string
	}{
		{"refused field", api.ReasonInvalidFieldPrefix + "project", "project: project must be a string", http.StatusUnprocessableEntity, ExitUsage,
			[]string{"Status: Unavailable — novad refused a field of the request.", "Error: project: project must be a string", "Next step: Correct the field"}},
		{"refused date", api.ReasonInvalidFieldPrefix + "dateRange", "dateRange: dateFrom 2026-05-02 is after dateTo 2026-05-01", http.StatusUnprocessableEntity, ExitUsage,
			[]string{"refused a date filter", "Error: dateRange: dateFrom 2026-05-02 is after dateTo 2026-05-01", "YYYY-MM-DD"}},
		{"refused query", api.ReasonInvalidFieldPrefix + "query", "query: query is longer than 4000 characters", http.StatusUnprocessableEntity, ExitUsage,
			[]string{"refused the query", "Error: query: query is longer than 4000 characters", "at most 4000 characters"}},
		{"refused request", api.ReasonInvalidRequest, api.CodeBodyTooLarge, http.StatusRequestEntityTooLarge, ExitUsage,
			[]string{"novad refused the request.", "Error: request-too-large", "Correct what the error names"}},
		{"busy", api.ReasonCapacityExhausted, "", http.StatusTooManyRequests, ExitOK,
			[]string{"novad is busy"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url, _ := fakeFacade(t, tt.status, tt.reason, tt.message)
			code, out, errOut := runCLI(context.Background(), nil, "search", "--facade-url", url, "foo")
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, "Check the filters") || strings.Contains(out, "could not complete") {
				t.Errorf("advice does not fit the reason:\n%s", out)
			}
			code, out, _ = runCLI(context.Background(), nil, "search", "--facade-url", url, "foo", "--json")
			if code != tt.code || !strings.Contains(out, `"reason": "`+tt.reason+`"`) {
				t.Errorf("--json: exit %d, want %d, with the envelope:\n%s", code, tt.code, out)
			}
		})
	}
}

// TestSearch_invalidConfigJSON: with --json, a configuration that does not
// load is reported as JSON on stdout, with exit 1 as in text.
func TestSearch_invalidConfigJSON(t *testing.T) {
	env := configHome(t, "server: {port: nope}\n")
	code, out, errOut := runCLI(context.Background(), env, "search", "foo", "--json")
	var got struct {
		OK    *bool
		Error string
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.OK == nil || *got.OK || !strings.Contains(got.Error, "server.port: must be an integer") {
		t.Errorf("stdout %q (%v), want {\"ok\":false,\"error\":...} naming server.port", out, err)
	}
	if code != ExitFailure || errOut != "" {
		t.Errorf("exit %d, stderr %q; want exit 1 and nothing on stderr", code, errOut)
	}
	code, out, errOut = runCLI(context.Background(), env, "search", "foo")
	if code != ExitFailure || out != "" || !strings.Contains(errOut, "server.port: must be an integer") {
		t.Errorf("text: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestSearch_otherHome: no novad holds this home's lock and another server
// answers on its facade port: nothing is sent to it, and --json names that
// case (reason ...:other-home) rather than a refused connection, as the
// MCP tools do.
func TestSearch_otherHome(t *testing.T) {
	url, requests := fakeFacade(t, http.StatusOK, "", "")
	port := strings.TrimPrefix(url, "http://127.0.0.1:")
	env := configHome(t, fmt.Sprintf("server: {host: 127.0.0.1, port: %d}\nfacade: {port: %s}\n", novatest.ClosedPort(t), port))
	code, out, _ := runCLI(context.Background(), env, "search", "foo", "--json")
	var got api.SearchResponse
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Available || got.Reason == nil {
		t.Fatalf("exit %d, stdout %q (%v), want an unavailable envelope", code, out, err)
	}
	if *got.Reason != api.ReasonCLIOtherHome || !strings.Contains(got.Error, "another home's novad") {
		t.Errorf("reason %q, error %q; want %q and the client's words", *got.Reason, got.Error, api.ReasonCLIOtherHome)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d searches reached the other server", n)
	}
}

// TestSearch_timeoutSaysSo: a search novad does not answer within
// --timeout says so, naming the flag, not with the HTTP client's
// "Post "http://...": context deadline exceeded".
func TestSearch_timeoutSaysSo(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-stop // a novad that does not answer while the test runs
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) }) // before srv.Close, which waits for the handler
	code, out, errOut := runCLI(context.Background(), nil, "search", "port", "--facade-url", srv.URL, "--timeout", "300ms")
	if code != ExitFailure || out != "" || !strings.Contains(errOut, "no answer within 300ms (--timeout)") || strings.Contains(errOut, "deadline exceeded") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and the timeout named", code, out, errOut)
	}
	// With --json the envelope's error says the same.
	code, out, _ = runCLI(context.Background(), nil, "search", "port", "--facade-url", srv.URL, "--timeout", "300ms", "--json")
	var got api.SearchResponse
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != ExitOK || api.StringOr(got.Reason, "") != api.ReasonCLIUnavailable+":timeout" ||
		!strings.Contains(got.Error, "no answer within 300ms (--timeout)") || strings.Contains(got.Error, "deadline exceeded") {
		t.Errorf("--json: exit %d, reason %q, error %q (%v); want the timeout named", code, api.StringOr(got.Reason, ""), got.Error, err)
	}
}

// TestSearch_novadStarting: a novad that holds this home but has not
// bound its ports yet (it waits while another program holds one) is
// starting, not stopped: the search says so and sends nothing, where it
// said "novad is not running ... start it", and another novad started
// then would only stand by.
func TestSearch_novadStarting(t *testing.T) {
	url, requests := fakeFacade(t, http.StatusOK, "", "")
	taken, err := strconv.Atoi(strings.TrimPrefix(url, "http://127.0.0.1:"))
	novatest.Must(t, err)
	for _, tt := range []struct {
		name   string
		facade int
		want   string
		// reason is --json's: not a refused connection, as none was made.
		reason string
	}{
		{"nothing on its ports", novatest.ClosedPort(t), "is starting for this home and has not bound its ports yet; try again in a moment", api.ReasonCLIUnavailable + ":starting"},
		{"its port held by another program", taken, "waits for its ports: what answers at " + url, api.ReasonCLIOtherHome},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := configHome(t, fmt.Sprintf("server: {host: 127.0.0.1, port: %d}\nfacade: {port: %d}\n", novatest.ClosedPort(t, tt.facade), tt.facade))
			home := paths.Home{Root: strings.TrimPrefix(env[1], "NOVA_HOME=")}
			novatest.Must(t, paths.MkdirPrivate(home.StateDir()))
			l, err := lockfile.Acquire(home.DaemonLock(), paths.FileMode, lockfile.Starting, time.Now())
			novatest.Must(t, err)
			t.Cleanup(l.Release)
			code, out, errOut := runCLI(context.Background(), env, "search", "my private question")
			pid := fmt.Sprintf("novad (pid %d)", os.Getpid())
			if code != ExitFailure || out != "" || !strings.Contains(errOut, pid) || !strings.Contains(errOut, tt.want) || strings.Contains(errOut, "start it with") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q, %q", code, out, errOut, pid, tt.want)
			}
			_, out, _ = runCLI(context.Background(), env, "search", "my private question", "--json")
			var got api.SearchResponse
			if err := json.Unmarshal([]byte(out), &got); err != nil || api.StringOr(got.Reason, "") != tt.reason || !strings.Contains(got.Error, tt.want) {
				t.Errorf("--json: reason %q, error %q (%v); want %q and %q", api.StringOr(got.Reason, ""), got.Error, err, tt.reason, tt.want)
			}
		})
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d searches reached the program on the starting novad's port", n)
	}
}

// TestSearch_notRunningPortZero: a home whose config.yaml gives novad
// port 0 (a free port it picks when it starts) has no address while no
// novad runs: the message says novad is not running without naming
// "http://127.0.0.1:0", an address nothing can answer at.
func TestSearch_notRunningPortZero(t *testing.T) {
	env := configHome(t, "server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\n")
	code, out, errOut := runCLI(context.Background(), env, "search", "foo")
	if code != ExitFailure || out != "" || !strings.Contains(errOut, "novad is not running") || strings.Contains(errOut, ":0/") ||
		!strings.Contains(errOut, "novactl service install") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1, novad not running and how to start it, no port 0", code, out, errOut)
	}
}

// TestSearch_interrupted: Ctrl-C while novad works on the search ends it
// with exit 1 and says it was interrupted; with --json stdout holds one
// whole envelope whose reason says the search was cancelled. It exited 0
// with --json, as for a novad that is not responding, and named a
// transport failure ("Post ...: context canceled").
func TestSearch_interrupted(t *testing.T) {
	arrived, release := make(chan struct{}, 2), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select { // a search novad is still working on
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // before srv.Close, which waits for the handler
	for _, jsonOut := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-arrived; cancel() }() // Ctrl-C once the search is sent
		args := []string{"search", "port", "--facade-url", srv.URL}
		if jsonOut {
			args = append(args, "--json")
		}
		code, out, errOut := runCLI(ctx, nil, args...)
		cancel()
		if code != ExitFailure {
			t.Errorf("--json=%v: exit %d, want 1\nstdout %q\nstderr %q", jsonOut, code, out, errOut)
		}
		if strings.Contains(out+errOut, "context canceled") || strings.Contains(out+errOut, ":transport") {
			t.Errorf("--json=%v: a transport failure reported:\nstdout %q\nstderr %q", jsonOut, out, errOut)
		}
		if !jsonOut {
			if out != "" || !strings.Contains(errOut, "novactl search: interrupted before novad answered") {
				t.Errorf("stdout %q, stderr %q; want the interruption on stderr", out, errOut)
			}
			continue
		}
		var got api.SearchResponse
		if err := json.Unmarshal([]byte(out), &got); err != nil || got.Available || api.StringOr(got.Reason, "") != api.ReasonCLIUnavailable+":cancelled" {
			t.Errorf("--json: stdout %q (%v), want one envelope with reason %s:cancelled", out, err, api.ReasonCLIUnavailable)
		}
		if errOut != "" {
			t.Errorf("--json: stderr %q", errOut)
		}
	}
}

// TestSearch_novadGoneMidRequest: novad stopping (or crashing) while it
// works on a search closes the connection with no answer, or with part
// of one; the search says that happened and what to do, not "Post ...:
// EOF" or "read response: unexpected EOF".
func TestSearch_novadGoneMidRequest(t *testing.T) {
	for _, tt := range []struct {
		name    string
		partial string
	}{
		{"no answer", ""},
		{"part of an answer", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{\"schemaVersion\":2,\"available\":true,"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				conn, buf, err := w.(http.Hijacker).Hijack()
				if err != nil {
					return
				}
				_, _ = buf.WriteString(tt.partial)
				_ = buf.Flush()
				conn.Close()
			}))
			t.Cleanup(srv.Close)
			code, out, errOut := runCLI(context.Background(), nil, "search", "port", "--facade-url", srv.URL)
			if code != ExitFailure || out != "" || !strings.Contains(errOut, "novad closed the connection before its answer was complete") ||
				!strings.Contains(errOut, "novactl status") || strings.Contains(errOut, "EOF") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and what happened", code, out, errOut)
			}
			code, out, _ = runCLI(context.Background(), nil, "search", "port", "--facade-url", srv.URL, "--json")
			var got api.SearchResponse
			if err := json.Unmarshal([]byte(out), &got); err != nil || got.Available || code != ExitOK ||
				!strings.Contains(got.Error, "novad closed the connection") || api.StringOr(got.Reason, "") != api.ReasonCLIUnavailable+":transport" {
				t.Errorf("--json: exit %d, stdout %q (%v)", code, out, err)
			}
		})
	}
}

// TestSearch_notAFacade: --facade-url pointed at what is not novad's
// facade (novad's direct port, a web server) says what answered and what
// to do, not a bare reason code ("rag-external-invalid-json (HTTP
// 501)"); a refusal that is not an envelope is the contract's
// rag-external-http-<status>, whatever its body.
func TestSearch_notAFacade(t *testing.T) {
	home := t.TempDir()
	novatest.Must(t, os.WriteFile(home+"/config.yaml", []byte("server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\n"), 0o600))
	env := []string{"NOVA_HOME=" + home, "HOME=" + t.TempDir()}
	cfg, err := config.Load(env)
	novatest.Must(t, err)
	startNovad(t, cfg)
	st, err := client.ReadState(cfg.Home)
	novatest.Must(t, err)
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "<html><body>Not Implemented</body></html>", http.StatusNotImplemented)
	}))
	t.Cleanup(web.Close)
	for _, tt := range []struct {
		name, url string
		status    int
	}{
		{"novad's direct port", fmt.Sprintf("http://127.0.0.1:%d", st.DirectPort), http.StatusNotFound},
		{"a web server", web.URL, http.StatusNotImplemented},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(context.Background(), env, "search", "port", "--facade-url", tt.url)
			want := fmt.Sprintf("%s answered %d", tt.url, tt.status)
			if code != ExitFailure || out != "" || !strings.Contains(errOut, want) || !strings.Contains(errOut, "is it novad's facade?") ||
				!strings.Contains(errOut, "novactl status") || strings.Contains(errOut, "rag-external") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1, %q and what to do", code, out, errOut, want)
			}
			code, out, _ = runCLI(context.Background(), env, "search", "port", "--facade-url", tt.url, "--json")
			var got api.SearchResponse
			if err := json.Unmarshal([]byte(out), &got); err != nil || code != ExitOK ||
				api.StringOr(got.Reason, "") != fmt.Sprintf("%s%d", api.ReasonCLIHTTPPrefix, tt.status) {
				t.Errorf("--json: exit %d, stdout %q (%v); want reason %s%d", code, out, err, api.ReasonCLIHTTPPrefix, tt.status)
			}
		})
	}
}

// TestSearch_flagGuesses: a mistyped search flag names the flag it most
// likely misspells; a short flag that begins several (-t: --tag,
// --timeout, --top-k) names none, where it named the first in the list,
// --tag, for a person who meant the number of results.
func TestSearch_flagGuesses(t *testing.T) {
	for _, tt := range []struct {
		flag, want string
	}{
		{"-t", ""},
		{"-d", ""},
		{"--top", `did you mean "--top-k"?`},
		{"--tim", `did you mean "--timeout"?`},
		{"--top_k", `did you mean "--top-k"?`},
		{"--jsn", `did you mean "--json"?`},
		{"--dat", `did you mean "--date"?`},
		// Other tools' names for the same flags.
		{"--limit", `did you mean "--top-k"?`},
		{"-n", `did you mean "--top-k"?`},
		{"--format", `did you mean "--json"?`},
	} {
		code, out, errOut := runCLI(context.Background(), nil, "search", tt.flag, "5", "port")
		ok := code == ExitUsage && out == "" && strings.Contains(errOut, "flag provided but not defined") && strings.Contains(errOut, `novactl search --help`)
		if tt.want == "" {
			ok = ok && !strings.Contains(errOut, "did you mean")
		} else {
			ok = ok && strings.Contains(errOut, tt.want)
		}
		if !ok {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and guess %q", tt.flag, code, out, errOut, tt.want)
		}
	}
}

// TestSearch_followsRunningNovadHost: config.yaml edited after novad
// started (server.host 127.0.0.1 → 127.0.0.2, both loopback) does not
// move the running novad, which still serves where it published: the
// search goes there, where it was sent to the edited host with the
// published ports and reported novad "not running" while it served.
func TestSearch_followsRunningNovadHost(t *testing.T) {
	home := t.TempDir()
	cfgPath := home + "/config.yaml"
	novatest.Must(t, os.WriteFile(cfgPath, []byte("server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\n"), 0o600))
	env := []string{"NOVA_HOME=" + home, "HOME=" + t.TempDir()}
	cfg, err := config.Load(env)
	novatest.Must(t, err)
	startNovad(t, cfg)
	novatest.Must(t, os.WriteFile(cfgPath, []byte("server: {host: 127.0.0.2, port: 0}\nfacade: {port: 0}\n"), 0o600))
	code, out, errOut := runCLI(context.Background(), env, "search", "port", "--json")
	var got api.SearchResponse
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != ExitOK || got.FacadeBudget == nil {
		t.Errorf("exit %d, stdout %.300q (%v), stderr %q; want novad's own envelope", code, out, err, errOut)
	}
}

// TestSearch_unreachableSaysWhatToDo: a failure to reach the facade other
// than a refused connection (here https:// to novad's plain http) says
// what to check, not only the HTTP client's words.
func TestSearch_unreachableSaysWhatToDo(t *testing.T) {
	url, requests := fakeFacade(t, http.StatusOK, "", "")
	tls := strings.Replace(url, "http://", "https://", 1)
	code, out, errOut := runCLI(context.Background(), nil, "search", "port", "--facade-url", tls)
	if code != ExitFailure || out != "" || !strings.Contains(errOut, "could not reach "+tls) || !strings.Contains(errOut, "novactl status") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1, what failed and what to check", code, out, errOut)
	}
	code, out, _ = runCLI(context.Background(), nil, "search", "port", "--facade-url", tls, "--json")
	var got api.SearchResponse
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != ExitOK || !strings.Contains(got.Error, "could not reach "+tls) {
		t.Errorf("--json: exit %d, error %q (%v)", code, got.Error, err)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d searches were answered", n)
	}
}

// TestSearch_queryFromStdin: "-" reads the query from standard input (a
// piped, multi-line or generated query), trimmed; an empty input is a
// usage error; a query that starts with "-" goes after "--".
func TestSearch_queryFromStdin(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body api.SearchBody
		_ = json.NewDecoder(r.Body).Decode(&body)
		got = append(got, body.Query)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(api.Unavailable(body.Query, body.TopK, api.ReasonIndexNotLoaded))
	}))
	t.Cleanup(srv.Close)
	search := func(stdin string, args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := Run(context.Background(), append([]string{"search", "--facade-url", srv.URL}, args...),
			&Invocation{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb})
		return code, errb.String()
	}
	if code, errOut := search("why was the dashboard\nport unavailable\n", "-"); code != ExitOK {
		t.Fatalf("piped query: exit %d, %s", code, errOut)
	}
	if code, errOut := search("", "--", "-x flag"); code != ExitOK {
		t.Fatalf("query after --: exit %d, %s", code, errOut)
	}
	want := []string{"why was the dashboard\nport unavailable", "-x flag"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("novad was asked %q, want %q", got, want)
	}
	if code, errOut := search(" \n", "-"); code != ExitUsage || !strings.Contains(errOut, "standard input held no query") {
		t.Errorf("empty stdin: exit %d, %q", code, errOut)
	}
	if code, errOut := search(strings.Repeat("word ", 20_000), "-"); code != ExitUsage || !strings.Contains(errOut, "at most 4000") && !strings.Contains(errOut, "longer than 4000") {
		t.Errorf("long stdin: exit %d, %q", code, errOut)
	}
	if len(got) != 2 {
		t.Errorf("%d requests, want 2 (the refused ones never leave)", len(got))
	}
}

// TestSearch_timeoutInSeconds: --timeout takes a plain number of seconds,
// as the contract's "search ... --timeout 3" (and scripts written for rag
// search-memory) pass it, as well as a Go duration; "3" was refused as a
// usage error ("parse error"), and the search never ran.
func TestSearch_timeoutInSeconds(t *testing.T) {
	var budget atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body api.SearchBody
		_ = json.NewDecoder(r.Body).Decode(&body)
		budget.Store(int64(body.RemainingBudgetMs))
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(api.Unavailable(body.Query, body.TopK, api.ReasonIndexNotLoaded))
	}))
	t.Cleanup(srv.Close)
	for _, tt := range []struct {
		arg    string
		budget int64
	}{{"3", 3000}, {"2.5", 2500}, {"3s", 3000}} {
		for _, cmd := range [][]string{{"search"}, {"rag", "search-memory"}} {
			budget.Store(0)
			args := append(cmd, "port", "--facade-url", srv.URL, "--timeout", tt.arg, "--json")
			code, out, errOut := runCLI(context.Background(), nil, args...)
			if code != ExitOK || budget.Load() != tt.budget {
				t.Errorf("%s --timeout %s: exit %d, remainingBudgetMs %d (want 0 and %d)\nstdout %.300s\nstderr %s",
					strings.Join(cmd, " "), tt.arg, code, budget.Load(), tt.budget, out, errOut)
			}
		}
	}
	// What is neither is named as such.
	code, _, errOut := runCLI(context.Background(), nil, "search", "port", "--facade-url", srv.URL, "--timeout", "soon")
	if code != ExitUsage || !strings.Contains(errOut, `a duration (65s, 2m) or a number of seconds`) {
		t.Errorf("--timeout soon: exit %d, stderr %q; want a usage error saying what --timeout takes", code, errOut)
	}
}

// TestSearch_refusesNonLoopbackFacade: a --facade-url (or --dashboard-url,
// or eval's --facade-url) whose host is not loopback is a usage error
// before anything is sent: the query is the user's private memory, and
// Nova's facade only ever listens on loopback. The loopback rule is
// config's (IsLoopbackHost): an IPv4-mapped ::ffff:127.0.0.1 reaches the
// fake facade here, but is refused as novad refuses it in a config.
func TestSearch_refusesNonLoopbackFacade(t *testing.T) {
	url, requests := fakeFacade(t, http.StatusOK, "", "")
	port := url[strings.LastIndexByte(url, ':')+1:]
	cases := filepath.Join(t.TempDir(), "cases.jsonl")
	novatest.Must(t, os.WriteFile(cases, []byte(`{"id":"p","query":"port","expect":{"evidenceTerms":["port"]}}`+"\n"), 0o600))
	for _, host := range []string{"192.0.2.1:" + port, "example.com", "[::ffff:127.0.0.1]:" + port, "127.1:" + port, "0.0.0.0:" + port} {
		for _, cmd := range [][]string{
			{"search", "port", "--timeout", "2s", "--facade-url"},
			{"rag", "search-memory", "port", "--timeout", "2s", "--dashboard-url"},
			{"eval", "--queries", cases, "--timeout", "2s", "--facade-url"},
		} {
			args := append(slices.Clone(cmd), "http://"+host)
			flagName := cmd[len(cmd)-1]
			want := flagName + " must name a loopback host"
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, out, errOut := runCLI(t.Context(), nil, args...)
				if code != ExitUsage || out != "" || !strings.Contains(errOut, want) {
					t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errOut, want)
				}
				code, out, errOut = runCLI(t.Context(), nil, append(args, "--json")...)
				var got struct {
					OK    *bool
					Error string
				}
				if err := json.Unmarshal([]byte(out), &got); err != nil || got.OK == nil || *got.OK || !strings.Contains(got.Error, want) ||
					code != ExitUsage || errOut != "" {
					t.Errorf("--json: exit %d, stdout %q (%v), stderr %q; want exit 2 and {\"ok\":false,\"error\":%q}", code, out, err, errOut, want)
				}
			})
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the facade; want none", n)
	}
	// Loopback in each of its forms still goes out.
	for _, host := range []string{"127.0.0.1", "localhost", "LOCALHOST"} {
		u := "http://" + host + ":" + port
		if code, out, errOut := runCLI(t.Context(), nil, "search", "port", "--facade-url", u); code != ExitOK {
			t.Errorf("--facade-url %s: exit %d\n%s%s", u, code, out, errOut)
		}
	}
	// Not every system routes 127/8 beyond .1, or has ::1: the rule alone.
	for _, u := range []string{"http://127.0.0.2:3036", "http://[::1]:3036"} {
		if _, err := facadeBase("--facade-url", u); err != nil {
			t.Errorf("%s is loopback: %v", u, err)
		}
	}
}
