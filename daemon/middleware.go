package daemon

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
)

// guard wraps a listener's routes in the security checks every request
// passes, outermost first. Each check names the attack it blocks.
func (s *Server) guard(bound netip.AddrPort, next http.Handler, surface string) http.Handler {
	h := next
	h = s.refuseBrowsersAndProxies(h)
	h = s.checkHost(bound, h)
	h = s.loopbackClientsOnly(h)
	h = s.securityHeaders(h)
	h = s.recoverPanics(h)
	h = s.logRequests(surface, h)
	h = s.resumeChecks(h)
	return h
}

// resumeChecks tells the reload loop of every request: its re-checks of
// the served files pause while none comes (see serveLoop).
func (s *Server) resumeChecks(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.markUsed()
		next.ServeHTTP(w, r)
	})
}

// securityHeaders sets headers on every response, refusals included:
// nosniff and a deny-all CSP so no response can be rendered as a page,
// framed or read cross-origin; no-store so memory never lands in a cache.
// No Access-Control-* header is ever sent.
func (s *Server) securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

// loopbackClientsOnly refuses any peer that is not on this machine's
// loopback interface. Listeners bind loopback only, so this matters when a
// listener is handed to us some other way; it is checked anyway.
func (s *Server) loopbackClientsOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isLoopbackPeer(r.RemoteAddr) {
			s.writeError(w, r, api.NewError(http.StatusForbidden, api.CodeNonLoopback, api.MessageNonLoopbackClient))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func isLoopbackPeer(remote string) bool {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		host, _, err := net.SplitHostPort(remote)
		if err != nil {
			return false
		}
		addr, err := netip.ParseAddr(host)
		if err != nil {
			return false
		}
		return addr.Unmap().IsLoopback()
	}
	return ap.Addr().Unmap().IsLoopback()
}

// checkHost blocks DNS rebinding: a web page on evil.example whose name was
// re-pointed at 127.0.0.1 reaches us with Host: evil.example:<port>. Only
// localhost and the literal address the listener is bound to (127.0.0.1,
// ::1 or another address of 127.0.0.0/8), with its own port, are accepted;
// 0.0.0.0, LAN addresses, other spellings of an address (127.1,
// [::ffff:127.0.0.1]), *.localhost, trailing dots and non-ASCII
// spellings of localhost ("localhoſt", whose U+017F a Unicode case fold
// takes for s) are not.
func (s *Server) checkHost(bound netip.AddrPort, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !validHost(r.Host, bound) {
			s.writeError(w, r, api.NewError(http.StatusForbidden, api.CodeHostNotAllowed, api.MessageHostNotAllowed))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func validHost(host string, bound netip.AddrPort) bool {
	h, p, err := net.SplitHostPort(host)
	if err != nil || p != strconv.Itoa(int(bound.Port())) {
		return false
	}
	return config.IsLocalhost(h) || h == bound.Addr().String()
}

// browserHeaders are sent by browsers (and never by agents or curl). Any
// of them means a web page is making the request: cross-site "simple"
// requests (CSRF) carry a valid Host, so the Host check alone would let
// them through. browserPrefixes are whole families of such headers
// (Sec-Fetch-*, CORS preflight requests), new members included.
var (
	browserHeaders  = []string{"Origin", "Referer"}
	browserPrefixes = []string{"Sec-Fetch-", "Access-Control-Request-"}
)

// proxyHeaders mean the request was relayed by a proxy or tunnel
// (tailscale serve, ngrok, ssh -R) that terminates on loopback: the real
// client is somewhere else. proxyPrefixes are families of them
// (X-Forwarded-For, -Host, -Proto, -Port, -Server, -Prefix, ...;
// Tailscale-User-Login, ...).
var (
	proxyHeaders  = []string{"Forwarded", "X-Real-Ip", "Via", "Cf-Connecting-Ip", "True-Client-Ip"}
	proxyPrefixes = []string{"X-Forwarded-", "Tailscale-"}
)

// hasHeader reports whether r has one of names or a header starting with
// one of prefixes (names and prefixes in canonical form).
func hasHeader(r *http.Request, names, prefixes []string) bool {
	for _, h := range names {
		if _, ok := r.Header[h]; ok {
			return true
		}
	}
	for k := range r.Header {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				return true
			}
		}
	}
	return false
}

// refuseBrowsersAndProxies blocks browser-originated requests (CSRF and
// reads by web pages), WebSocket upgrades, relayed requests, and tokens in
// URLs (which leak into logs and Referer).
func (s *Server) refuseBrowsersAndProxies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hasHeader(r, browserHeaders, browserPrefixes) {
			s.writeError(w, r, api.NewError(http.StatusForbidden, api.CodeBrowserRefused, api.MessageBrowserRefused))
			return
		}
		if r.Header.Get("Upgrade") != "" {
			s.writeError(w, r, api.NewError(http.StatusForbidden, api.CodeBrowserRefused, "Protocol upgrades are refused."))
			return
		}
		if hasHeader(r, proxyHeaders, proxyPrefixes) {
			s.writeError(w, r, api.NewError(http.StatusForbidden, api.CodeProxyRefused, api.MessageProxyRefused))
			return
		}
		if tokenInQuery(r.URL.RawQuery) {
			s.writeError(w, r, api.NewError(http.StatusBadRequest, api.CodeBadRequest, "Tokens are accepted only in the request header."))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// tokenInQuery reports whether a query string has a parameter naming a
// token (token, access_token, X-Nova-Internal-Token, ... in any case,
// percent-encoded or not, after & or ;).
func tokenInQuery(raw string) bool {
	for _, part := range strings.FieldsFunc(raw, func(r rune) bool { return r == '&' || r == ';' }) {
		k, _, _ := strings.Cut(part, "=")
		if u, err := url.QueryUnescape(k); err == nil {
			k = u
		}
		if strings.Contains(strings.ToLower(k), "token") {
			return true
		}
	}
	return false
}

// recoverPanics turns a handler panic into a generic 500: no stack trace
// or error text reaches the client. The generation's files are
// memory-mapped, and handlers read them too (/stats counts the facets,
// /encode runs the builtin model): reading one truncated under novad
// faults, which must fail that request, as it fails a search, not kill
// novad; the served files are then re-checked at once.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("Handler panic", "route", routeOf(r), "panic", panicSummary(v))
				if _, fault := v.(interface{ Addr() uintptr }); fault {
					select {
					case s.checkNow <- struct{}{}:
					default:
					}
				}
				s.writeError(w, r, api.NewError(http.StatusInternalServerError, api.CodeInternal, api.MessageInternal))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// panicSummary describes a panic value for the log: a runtime error's
// message (index out of range, nil dereference), else only the value's
// type. A value a handler panics with can hold the request's text.
func panicSummary(v any) string {
	if err, ok := v.(runtime.Error); ok {
		return err.Error()
	}
	return fmt.Sprintf("%T", v)
}

type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

// logRequests logs method, route, status, size and latency. Never the
// query text, headers or body: search queries are private data and
// headers can carry the token.
func (s *Server) logRequests(surface string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		s.log.Debug("Request", "surface", surface, "method", methodOf(r), "route", routeOf(r), "status", rec.status,
			"bytes", rec.bytes, "ms", time.Since(start).Milliseconds())
	})
}

// routeOf names a request's route by its pattern: a request no route
// took (refused before routing, or a path the mux would clean) is
// "unrouted". Never the path itself, which is the client's text and can
// hold anything (a pasted token, a query).
func routeOf(r *http.Request) string {
	if r.Pattern != "" {
		return r.Pattern
	}
	return "unrouted"
}

// methodOf is r's method for a log line: a standard method, else "other"
// (a method is any token the client chose).
func methodOf(r *http.Request) string {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return r.Method
	}
	return "other"
}

// requireJSON refuses POST bodies that are not application/json: HTML
// forms and text/plain bodies are what cross-site requests can send
// without a preflight. Exactly one Content-Type header is accepted (with
// two, which one counts depends on who reads them), and no parameter but
// charset=utf-8.
func requireJSON(r *http.Request) *api.Error {
	ct := r.Header.Values("Content-Type")
	if len(ct) != 1 {
		return api.NewError(http.StatusUnsupportedMediaType, api.CodeUnsupportedMediaType, api.MessageUnsupportedMedia)
	}
	mt, params, err := mime.ParseMediaType(ct[0])
	if err != nil || mt != "application/json" {
		return api.NewError(http.StatusUnsupportedMediaType, api.CodeUnsupportedMediaType, api.MessageUnsupportedMedia)
	}
	for k, v := range params {
		if k != "charset" || !strings.EqualFold(v, "utf-8") {
			return api.NewError(http.StatusUnsupportedMediaType, api.CodeUnsupportedMediaType, "Only UTF-8 JSON is accepted, with no parameter but charset=utf-8.")
		}
	}
	return nil
}

// readBody reads at most limit bytes, answering 413 beyond.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, *api.Error) {
	if r.ContentLength > limit {
		return nil, api.NewError(http.StatusRequestEntityTooLarge, api.CodeBodyTooLarge, api.MessageBodyTooLarge)
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, api.NewError(http.StatusRequestEntityTooLarge, api.CodeBodyTooLarge, api.MessageBodyTooLarge)
		}
		return nil, api.NewError(http.StatusBadRequest, api.CodeBadRequest, "The request body could not be read.")
	}
	return b, nil
}

// logAttrs are shared slog attribute constructors so keys are spelled the
// same everywhere.
func errAttr(err error) slog.Attr { return slog.String("err", err.Error()) }
