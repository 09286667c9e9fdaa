package daemon

import (
	"bytes"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"

	gojson "github.com/goccy/go-json"

	"github.com/nova-recall/nova/api"
)

// handlerFunc is an HTTP handler that returns an error; handle turns the
// error into the one flat error body.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// route is one entry of a route table.
type route struct {
	pattern string
	h       handlerFunc
}

// directRouteTable is the direct server's route table, sorted by path.
func (s *Server) directRouteTable() []route {
	return []route{
		{"POST " + api.PathEncode, s.handleEncode},
		{"GET " + api.PathHealth, s.handleHealth},
		{"POST /index/rebuild", s.refuseMutation(api.MessageReadOnlyDirect, false)},
		{"POST /index/run", s.refuseMutation(api.MessageReadOnlyDirect, false)},
		{"POST /memories", s.refuseMutation(api.MessageReadOnlyDirect, false)},
		{"POST /memory/write", s.refuseMutation(api.MessageReadOnlyDirect, false)},
		{"POST " + api.PathSearch, s.handleDirectSearch},
		{"GET " + api.PathStats, s.handleStats},
	}
}

// facadeRouteTable is the facade's route table, sorted by path.
func (s *Server) facadeRouteTable() []route {
	return []route{
		{"GET " + api.PathFacadeContract, s.handleContract},
		{"GET " + api.PathFacadeHealth, s.handleFacadeHealth},
		{"POST /api/rag/external/index/run", s.refuseMutation(api.MessageReadOnlyFacade, true)},
		{"POST /api/rag/external/memory/write", s.refuseMutation(api.MessageReadOnlyFacade, true)},
		{"POST " + api.PathFacadeSearch, s.handleFacadeSearch},
		{"POST /api/rag/external/server/start", s.refuseMutation(api.MessageReadOnlyFacade, true)},
		{"POST /api/rag/external/server/stop", s.refuseMutation(api.MessageReadOnlyFacade, true)},
		{"PUT /api/rag/external/settings", s.refuseMutation(api.MessageReadOnlyFacade, true)},
		{"POST /api/rag/external/source/create", s.refuseMutation(api.MessageReadOnlyFacade, true)},
		{"GET " + api.PathFacadeStats, s.handleFacadeStats},
	}
}

func (s *Server) directRoutes() http.Handler {
	return s.mux(s.directRouteTable(), api.MessageReadOnlyDirect, false)
}
func (s *Server) facadeRoutes() http.Handler {
	return s.mux(s.facadeRouteTable(), api.MessageReadOnlyFacade, true)
}

// mux registers a route table. Every path also gets a method-less
// fallback so a wrong method answers with the JSON error body rather than
// the mux's plain text; any method that could write (PUT, PATCH, DELETE,
// OPTIONS, ..., and POST to a route that only reads) is refused as
// read-only.
func (s *Server) mux(routes []route, readOnlyMessage string, withContract bool) http.Handler {
	mux := http.NewServeMux()
	// allow is each path's Allow header for a 405: its methods, GET
	// with the HEAD the mux answers with it.
	allow := map[string]string{}
	for _, rt := range routes {
		mux.Handle(rt.pattern, s.handle(rt.h))
		method, path, _ := cutMethod(rt.pattern)
		if method == http.MethodGet {
			method += ", " + http.MethodHead
		}
		if allow[path] != "" {
			method = allow[path] + ", " + method
		}
		allow[path] = method
	}
	fallback := s.handle(func(w http.ResponseWriter, r *http.Request) error {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodPost:
		default:
			return s.readOnlyError(readOnlyMessage, withContract)
		}
		methods, known := allow[r.URL.Path]
		if known && r.Method == http.MethodPost {
			// A write to a route that only reads (health, stats,
			// contract) is refused as one, as PUT or DELETE is
			// (reliability.md F13), not as a mere wrong method.
			return s.readOnlyError(readOnlyMessage, withContract)
		}
		if known {
			// RFC 9110 requires Allow on a 405, as net/http's mux
			// sends it: the client learns the method to use.
			w.Header().Set("Allow", methods)
			return api.NewError(http.StatusMethodNotAllowed, api.CodeMethodNotAllowed, api.MessageMethodNotAllowed)
		}
		return api.NewError(http.StatusNotFound, api.CodeNotFound, api.MessageNotFound)
	})
	for p := range allow {
		mux.Handle(p, fallback)
	}
	mux.Handle("/", fallback)
	// The mux answers a path it would clean (//encode, /./search,
	// /x/../health) with a redirect in text/html; such a path names no
	// route, so it gets the fallback's JSON answer instead.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isCleanPath(r.URL.Path) {
			fallback.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// isCleanPath reports whether p is already in the form the mux routes:
// rooted, without empty, "." or ".." elements (a trailing slash is kept).
func isCleanPath(p string) bool {
	// "*" (OPTIONS *) is not rooted: the mux would answer it in plain text.
	if !strings.HasPrefix(p, "/") {
		return false
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c == p
}

func cutMethod(pattern string) (method, path string, ok bool) {
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == ' ' {
			return pattern[:i], pattern[i+1:], true
		}
	}
	return "", pattern, false
}

// handle adapts an error-returning handler.
func (s *Server) handle(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// writeError writes the flat error body. Errors that are not *api.Error
// become a generic 500: internal error text never reaches the client.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := err.(*api.Error)
	if !ok {
		s.log.Error("Request failed", "route", routeOf(r), errAttr(err))
		e = api.NewError(http.StatusInternalServerError, api.CodeInternal, api.MessageInternal)
	}
	writeJSON(w, e.Status, e)
}

// writeJSON writes v as the response body, with the bytes encoding/json
// writes (TestWriteJSON_sameBytesAsEncodingJSON) but through
// goccy/go-json: a search envelope is tens of kilobytes, and the standard
// encoder's reflection took twice as long. The body is encoded before the
// header goes out, so it has a Content-Length and a failure is a 500.
func writeJSON(w http.ResponseWriter, status int, v any) {
	jw := jsonWriters.Get().(*jsonWriter)
	defer jw.release()
	if err := jw.enc.Encode(v); err != nil {
		// Only a value JSON cannot hold (a NaN score) gets here: a 500
		// rather than a 200 whose body stops short. The encoder writes
		// nothing of a value it fails on.
		status = http.StatusInternalServerError
		jw.buf.Reset()
		_ = jw.enc.Encode(api.NewError(status, api.CodeInternal, api.MessageInternal))
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(jw.buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(jw.buf.Bytes())
}

// jsonWriter is an encoder and the buffer it encodes a response into,
// reused from one response to the next: a buffer of its own for each
// response, then a copy of it one byte longer for the newline, were two
// envelopes' worth of garbage per search (about 100 KB at ten results)
// for a collector novad runs at GOGC 50.
type jsonWriter struct {
	buf bytes.Buffer
	enc *gojson.Encoder
}

// maxPooledJSON is the largest buffer put back for reuse: a rare large
// answer (topK 100 of long texts) is left to the collector rather than
// held by the pool.
const maxPooledJSON = 1 << 20

var jsonWriters = sync.Pool{New: func() any {
	jw := &jsonWriter{}
	jw.enc = gojson.NewEncoder(&jw.buf)
	jw.enc.SetEscapeHTML(false)
	return jw
}}

// release empties jw and returns it to the pool, unless its buffer grew
// past maxPooledJSON.
func (jw *jsonWriter) release() {
	if jw.buf.Cap() > maxPooledJSON {
		return
	}
	jw.buf.Reset()
	jsonWriters.Put(jw)
}

// refuseMutation answers a mutation route of the contract: 403 and no side
// effect, whatever the body.
func (s *Server) refuseMutation(message string, withContract bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		return s.readOnlyError(message, withContract)
	}
}

func (s *Server) readOnlyError(message string, withContract bool) *api.Error {
	e := api.NewError(http.StatusForbidden, api.CodeReadOnly, message)
	if withContract {
		e.Contract = s.contract(s.current.Load())
	}
	return e
}
