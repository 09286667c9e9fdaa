package daemon

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/nova-recall/nova/api"
)

// guardedOK is a handler behind the whole guard that answers 200.
func guardedOK(t *testing.T) (*Server, http.Handler) {
	t.Helper()
	s := &Server{log: slog.New(slog.DiscardHandler)}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	return s, s.guard(netip.MustParseAddrPort("127.0.0.1:3036"), ok, "test")
}

func guardedRequest(method, target string, header http.Header) *http.Request {
	r := httptest.NewRequest(method, target, nil)
	r.Host = "127.0.0.1:3036"
	r.RemoteAddr = "127.0.0.1:50000"
	for k, vs := range header {
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	return r
}

// TestGuard_headerFamilies: every header of the families a browser or a
// relaying proxy sends is refused, not only the best-known members.
func TestGuard_headerFamilies(t *testing.T) {
	_, h := guardedOK(t)
	for _, name := range []string{
		"Origin", "Referer", "Sec-Fetch-Site", "Sec-Fetch-Mode", "Sec-Fetch-Dest", "Sec-Fetch-User",
		"Sec-Fetch-Storage-Access", "Access-Control-Request-Method", "Access-Control-Request-Headers",
		"Access-Control-Request-Private-Network", "Access-Control-Request-Local-Network",
		"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Forwarded-Port",
		"X-Forwarded-Server", "X-Forwarded-Prefix", "X-Forwarded-Ssl", "X-Real-IP", "Via",
		"CF-Connecting-IP", "True-Client-IP", "Tailscale-User-Login",
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, guardedRequest(http.MethodGet, "/health", http.Header{name: {"x"}}))
		if w.Code != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403", name, w.Code)
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, guardedRequest(http.MethodGet, "/health", http.Header{"User-Agent": {"curl/8"}, "Accept": {"*/*"}}))
	if w.Code != http.StatusOK {
		t.Errorf("a plain agent request: status %d, want 200", w.Code)
	}
}

// TestRequireJSON: a POST body is JSON only when its one Content-Type is
// application/json, with at most charset=utf-8; a second Content-Type
// header (which one a proxy or framework honours is anyone's guess) or
// another parameter is refused.
func TestRequireJSON(t *testing.T) {
	for _, tc := range []struct {
		types []string
		ok    bool
	}{
		{[]string{"application/json"}, true},
		{[]string{"application/json; charset=utf-8"}, true},
		{[]string{"Application/JSON; charset=UTF-8"}, true},
		{nil, false},
		{[]string{""}, false},
		{[]string{"text/plain"}, false},
		{[]string{"application/x-www-form-urlencoded"}, false},
		{[]string{"multipart/form-data; boundary=x"}, false},
		{[]string{"application/json; charset=latin1"}, false},
		{[]string{"application/json, text/plain"}, false},
		{[]string{"application/json", "text/plain"}, false},
		{[]string{"application/json", "application/json"}, false},
		{[]string{"application/json; foo=bar"}, false},
		{[]string{"application/json; charset=utf-8; boundary=x"}, false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/search", nil)
		r.Header["Content-Type"] = tc.types
		if got := requireJSON(r) == nil; got != tc.ok {
			t.Errorf("Content-Type %q: accepted %v, want %v", tc.types, got, tc.ok)
		}
	}
}

// TestLogRequests_noClientText: a request log line names the route
// template, never the path or method the client wrote: an unrouted or
// refused request's path is the client's text (a pasted token, a query).
func TestLogRequests_noClientText(t *testing.T) {
	var buf bytes.Buffer
	s := &Server{log: slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	h := s.guard(netip.MustParseAddrPort("127.0.0.1:3036"), s.directRoutes(), "direct")
	const secret = "sk-proj-Zz8Yu2Io9Pa4Sd6Fg1Hj8Kl3Zx5Cv0Bn7Mq2We4Rt9"
	for _, r := range []*http.Request{
		guardedRequest(http.MethodGet, "/"+secret, nil),
		guardedRequest(http.MethodGet, "//"+secret+"/../health", nil),
		guardedRequest(http.MethodGet, "/health/"+secret, http.Header{"Origin": {"https://evil.example"}}),
		guardedRequest("X"+strings.ToUpper(secret[3:12]), "/health", nil),
	} {
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	r := guardedRequest(http.MethodGet, "/"+secret, nil)
	r.Host = "evil.example:3036"
	h.ServeHTTP(httptest.NewRecorder(), r)
	if strings.Contains(buf.String(), secret[8:20]) || strings.Contains(buf.String(), strings.ToUpper(secret[3:12])) {
		t.Errorf("request log holds client text:\n%s", buf.String())
	}
	if n := strings.Count(buf.String(), `"msg":"Request"`); n != 5 {
		t.Errorf("%d request lines, want 5:\n%s", n, buf.String())
	}
}

// TestGuard_tokenInQuery: a token in the URL is refused whatever its
// parameter is called or however it is spelt.
func TestGuard_tokenInQuery(t *testing.T) {
	_, h := guardedOK(t)
	for _, q := range []string{"token=x", "access_token=x", "Token=x", "TOKEN=x", "X-Nova-Internal-Token=x",
		"x-nova-internal-token=x", "to%6Ben=x", "a=1&internal_token=x", "a=1;token=x"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, guardedRequest(http.MethodGet, "/health?"+q, nil))
		if w.Code != http.StatusBadRequest {
			t.Errorf("?%s: status %d, want 400", q, w.Code)
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, guardedRequest(http.MethodGet, "/health?probe=false", nil))
	if w.Code != http.StatusOK {
		t.Errorf("?probe=false: status %d, want 200", w.Code)
	}
}

// TestRecoverPanics_logsNoValue: a handler panic is logged without the
// panic's value, which can hold the request's text (a query, a token);
// a runtime error's message (an index out of range) is kept.
func TestRecoverPanics_logsNoValue(t *testing.T) {
	var buf bytes.Buffer
	s := &Server{log: slog.New(slog.NewJSONHandler(&buf, nil))}
	const private = "why did the Q3 payroll export fail"
	h := s.recoverPanics(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic("search: a marker needs two bytes: " + private)
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, guardedRequest(http.MethodPost, "/search", nil))
	if w.Code != http.StatusInternalServerError || strings.Contains(w.Body.String(), private) {
		t.Errorf("response %d %q", w.Code, w.Body.String())
	}
	if strings.Contains(buf.String(), private) || !strings.Contains(buf.String(), "Handler panic") {
		t.Errorf("panic log:\n%s", buf.String())
	}
	buf.Reset()
	h = s.recoverPanics(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var a []int
		_ = a[len(r.URL.Path)]
	}))
	h.ServeHTTP(httptest.NewRecorder(), guardedRequest(http.MethodGet, "/health", nil))
	if !strings.Contains(buf.String(), "index out of range") {
		t.Errorf("runtime error not logged:\n%s", buf.String())
	}
}

// TestGuard_loopbackPeersOnly: a request whose peer is not on loopback is
// refused even with a valid Host, as it would be from a listener handed
// over by something other than novad's own bind.
func TestGuard_loopbackPeersOnly(t *testing.T) {
	_, h := guardedOK(t)
	for _, tc := range []struct {
		remote string
		ok     bool
	}{
		{"127.0.0.1:50000", true}, {"127.8.9.10:50000", true}, {"[::1]:50000", true},
		{"[::ffff:127.0.0.1]:50000", true},
		{"192.0.2.7:50000", false}, {"10.0.0.2:50000", false}, {"[2001:db8::1]:50000", false},
		{"[::ffff:192.0.2.7]:50000", false}, {"0.0.0.0:50000", false}, {"not-an-address", false}, {"", false},
	} {
		r := guardedRequest(http.MethodGet, "/health", nil)
		r.RemoteAddr = tc.remote
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if got := w.Code == http.StatusOK; got != tc.ok {
			t.Errorf("peer %q: status %d, want allowed=%v", tc.remote, w.Code, tc.ok)
		}
		if !tc.ok && (w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), api.CodeNonLoopback)) {
			t.Errorf("peer %q: %d %s, want 403 %s", tc.remote, w.Code, w.Body.String(), api.CodeNonLoopback)
		}
	}
}

// TestGuard_securityHeadersOnEveryResponse (conformance 7.10, reliability
// D13): answers and refusals alike carry the headers that keep a browser
// from rendering, framing, caching or sharing them, with these values,
// and never an Access-Control-* header.
func TestGuard_securityHeadersOnEveryResponse(t *testing.T) {
	_, h := guardedOK(t)
	want := map[string]string{
		"X-Content-Type-Options":       "nosniff",
		"Cache-Control":                "no-store",
		"Content-Security-Policy":      "default-src 'none'; frame-ancestors 'none'",
		"Cross-Origin-Resource-Policy": "same-origin",
		"X-Frame-Options":              "DENY",
		"Referrer-Policy":              "no-referrer",
	}
	evilHost := guardedRequest(http.MethodGet, "/", nil)
	evilHost.Host = "evil.example:3036"
	remote := guardedRequest(http.MethodGet, "/", nil)
	remote.RemoteAddr = "203.0.113.10:4000"
	for name, r := range map[string]*http.Request{
		"answer":       guardedRequest(http.MethodGet, "/", nil),
		"rebinding":    evilHost,
		"non-loopback": remote,
		"browser":      guardedRequest(http.MethodPost, "/", http.Header{"Origin": {"https://evil.example"}}),
		"proxy":        guardedRequest(http.MethodGet, "/", http.Header{"X-Forwarded-For": {"203.0.113.9"}}),
		"preflight":    guardedRequest(http.MethodOptions, "/", http.Header{"Access-Control-Request-Method": {"POST"}}),
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range want {
			if got := rec.Header().Get(k); got != v {
				t.Errorf("%s (%d): %s %q, want %q", name, rec.Code, k, got, v)
			}
		}
		for k := range rec.Header() {
			if strings.HasPrefix(k, "Access-Control-") {
				t.Errorf("%s: CORS header %s", name, k)
			}
		}
	}
}
