package daemon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/internal/racebuild"
)

// TestWriteJSON_sameBytesAsEncodingJSON: writeJSON encodes with
// goccy/go-json for speed; what it sends must be byte for byte what
// encoding/json (without HTML escaping) writes, for every field of every
// response type, with and without values, and for the strings an answer
// may hold (HTML, line separators, invalid UTF-8, control characters).
func TestWriteJSON_sameBytesAsEncodingJSON(t *testing.T) {
	// The values novad builds first, then every response type empty and
	// filled seven ways.
	built := []any{
		api.NewContract(map[string]any{"provider": "builtin", "model": "lsa-384", "dimension": 384}),
		api.Unavailable("why <did> the deploy & fail", 10, api.ReasonIndexNotLoaded),
	}
	for _, v := range built {
		sameAsEncodingJSON(t, v, "built")
	}
	strs := []string{"", "a<b>&c", "line\u2028sep\u2029", "bad\xffutf8", "tab\t\x01\x7f", "emoji 😀 中文", `"quote\`}
	floats := []float64{0, 1e21, 1e-7, 0.1, 123456789.123, math.SmallestNonzeroFloat64, 3.0000001, -2.5}
	for _, v := range []any{&api.SearchResponse{}, &api.Error{}, &api.Health{}, &api.Stats{}, &api.FacadeHealth{}, &api.Contract{}} {
		for seed := range 8 {
			if seed > 0 {
				fill(reflect.ValueOf(v).Elem(), seed, strs, floats, 0)
			}
			sameAsEncodingJSON(t, v, fmt.Sprint("seed ", seed))
		}
	}
}

// sameAsEncodingJSON fails t unless writeJSON sends v as encoding/json
// writes it, with a Content-Length that matches.
func sameAsEncodingJSON(t *testing.T, v any, what string) {
	t.Helper()
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	writeJSON(rec, http.StatusOK, v)
	if got := rec.Body.String(); got != want.String() {
		t.Fatalf("%T (%s):\n got %s\nwant %s", v, what, got, want.String())
	}
	if n, _ := strconv.Atoi(rec.Header().Get("Content-Length")); n != want.Len() {
		t.Errorf("%T (%s): Content-Length %d, body %d bytes", v, what, n, want.Len())
	}
}

// TestWriteJSON_unencodable: a value JSON cannot hold is a 500 with the
// generic error body, not a 200 cut short.
func TestWriteJSON_unencodable(t *testing.T) {
	rec := httptest.NewRecorder()
	writeJSON(rec, http.StatusOK, map[string]float64{"score": math.NaN()})
	var e api.Error
	if rec.Code != http.StatusInternalServerError || json.Unmarshal(rec.Body.Bytes(), &e) != nil || e.Code != api.CodeInternal {
		t.Fatalf("got %d %s", rec.Code, rec.Body)
	}
}

// fill sets every settable field under v from seed: strings and floats
// from the lists, pointers, slices and maps non-nil on odd seeds (empty
// ones on seeds divisible by four), so omitempty and null both show.
func fill(v reflect.Value, seed int, strs []string, floats []float64, depth int) {
	if depth > 6 {
		return
	}
	pick := func(n int) int { return (seed*7 + depth*3 + n) % n }
	switch v.Kind() {
	case reflect.String:
		v.SetString(strs[pick(len(strs))])
	case reflect.Float32, reflect.Float64:
		v.SetFloat(floats[pick(len(floats))])
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(seed*1000 - 3))
	case reflect.Bool:
		v.SetBool(seed%2 == 1)
	case reflect.Pointer:
		if seed%2 == 1 {
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem(), seed, strs, floats, depth+1)
		} else {
			v.SetZero()
		}
	case reflect.Slice:
		if seed%2 == 0 && seed%4 != 0 {
			v.SetZero()
			return
		}
		n := 0
		if seed%4 != 0 {
			n = 2
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(s.Index(i), seed+i, strs, floats, depth+1)
		}
		v.Set(s)
	case reflect.Map:
		if seed%2 == 0 && seed%4 != 0 {
			v.SetZero()
			return
		}
		m := reflect.MakeMap(v.Type())
		for i := range 3 * (seed % 4) {
			k := reflect.New(v.Type().Key()).Elem()
			fill(k, seed+i, []string{"b", "a", "ключ", "c<d"}, floats, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			fill(e, seed+i, strs, floats, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), seed+i, strs, floats, depth+1)
			}
		}
	case reflect.Interface:
		if seed%2 == 1 {
			v.Set(reflect.ValueOf(strs[pick(len(strs))]))
		}
	}
}

// TestMux_methodNotAllowedSaysAllow: a 405 names the methods the path
// takes in Allow (RFC 9110 15.5.6 requires it; net/http's own mux sends
// it, and the JSON fallback that replaced its answer dropped it), so a
// client that used the wrong method learns the right one.
func TestMux_methodNotAllowedSaysAllow(t *testing.T) {
	s := &Server{log: slog.New(slog.DiscardHandler)}
	direct, facade := s.directRoutes(), s.facadeRoutes()
	for _, tc := range []struct {
		h            http.Handler
		method, path string
		status       int
		allow        string
	}{
		{direct, http.MethodGet, api.PathSearch, http.StatusMethodNotAllowed, "POST"},
		{direct, http.MethodHead, api.PathSearch, http.StatusMethodNotAllowed, "POST"},
		{direct, http.MethodGet, api.PathEncode, http.StatusMethodNotAllowed, "POST"},
		{direct, http.MethodGet, "/memory/write", http.StatusMethodNotAllowed, "POST"},
		{facade, http.MethodGet, api.PathFacadeSearch, http.StatusMethodNotAllowed, "POST"},
		{facade, http.MethodGet, "/api/rag/external/settings", http.StatusMethodNotAllowed, "PUT"},
		{facade, http.MethodHead, "/api/rag/external/memory/write", http.StatusMethodNotAllowed, "POST"},
		// Not a 405: no Allow.
		{direct, http.MethodGet, "/nope", http.StatusNotFound, ""},
		{direct, http.MethodPost, api.PathHealth, http.StatusForbidden, ""},
		{facade, http.MethodDelete, api.PathFacadeSearch, http.StatusForbidden, ""},
	} {
		rec := httptest.NewRecorder()
		tc.h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
		if rec.Code != tc.status || rec.Header().Get("Allow") != tc.allow {
			t.Errorf("%s %s: %d Allow %q, want %d Allow %q", tc.method, tc.path, rec.Code, rec.Header().Get("Allow"), tc.status, tc.allow)
		}
	}
}

// TestMux_postToReadOnlyRouteIsRefused (reliability.md F13): a POST, the
// one writing method the mux lets through to its routes, to a route that
// only reads (health, stats, contract) is refused as read-only, 403 like
// PUT, PATCH and DELETE anywhere, the facade's with the contract; it was
// a 405. A wrong method that cannot write (GET /search) stays a 405.
func TestMux_postToReadOnlyRouteIsRefused(t *testing.T) {
	s := &Server{log: slog.New(slog.DiscardHandler)}
	direct, facade := s.directRoutes(), s.facadeRoutes()
	for _, tc := range []struct {
		h            http.Handler
		path         string
		withContract bool
	}{
		{direct, api.PathHealth, false},
		{direct, api.PathStats, false},
		{facade, api.PathFacadeHealth, true},
		{facade, api.PathFacadeStats, true},
		{facade, api.PathFacadeContract, true},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, tc.path, strings.NewReader(`{"query":"x"}`))
		req.Header.Set("Content-Type", "application/json")
		tc.h.ServeHTTP(rec, req)
		var e api.Error
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || rec.Code != http.StatusForbidden || e.Code != api.CodeReadOnly ||
			(e.Contract != nil) != tc.withContract {
			t.Errorf("POST %s: %d %s", tc.path, rec.Code, rec.Body)
		}
	}
	rec := httptest.NewRecorder()
	direct.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, api.PathSearch, nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET /search: %d, want 405", rec.Code)
	}
}

// realEnvelope is a search envelope novad sent (a 10k bench home's
// "deploy config rollback", ten results), as its bytes came.
func realEnvelope(t testing.TB) ([]byte, *api.SearchResponse) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "api", "testdata", "search-envelope-10.json"))
	if err != nil {
		t.Fatal(err)
	}
	var resp api.SearchResponse
	if err := json.Unmarshal(b, &resp); err != nil {
		t.Fatal(err)
	}
	// explicitFilters is an any, which decodes to a map: novad sends
	// the struct, whose fields are in its own order.
	var plan struct {
		QueryPlan struct {
			ExplicitFilters api.ExplicitFilters `json:"explicitFilters"`
		} `json:"queryPlan"`
	}
	if err := json.Unmarshal(b, &plan); err != nil {
		t.Fatal(err)
	}
	resp.QueryPlan.ExplicitFilters = plan.QueryPlan.ExplicitFilters
	return b, &resp
}

// discardWriter is a ResponseWriter that keeps the header and drops the
// body, so that what writeJSON allocates is its own.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}

// TestWriteJSON_realEnvelope: a real envelope of ten results is sent
// back byte for byte as novad sent it before, and its encoding reuses a
// buffer rather than allocating the envelope's size for each response
// (twice: the encoding, then a copy with the newline).
func TestWriteJSON_realEnvelope(t *testing.T) {
	want, resp := realEnvelope(t)
	rec := httptest.NewRecorder()
	writeJSON(rec, http.StatusOK, resp)
	if !bytes.Equal(rec.Body.Bytes(), want) {
		t.Fatalf("the envelope's bytes changed:\n got %s\nwant %s", rec.Body, want)
	}
	if racebuild.Enabled {
		t.Skip("the race detector drops a quarter of what a sync.Pool is given (make test runs this in its plain pass: PLAIN_PASS_HTTPJSON)")
	}
	w := &discardWriter{h: http.Header{}}
	var before, after runtime.MemStats
	// Many responses, and no collection to empty the pool: a response
	// whose goroutine has moved to the other core finds that core's pool
	// empty and makes a buffer (about 115 KB as it grows), which a few
	// responses would each be charged a share of. Before the pool, every
	// response allocated 107 KB.
	const n = 200
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	writeJSON(w, http.StatusOK, resp) // fills the pool
	runtime.ReadMemStats(&before)
	for range n {
		writeJSON(w, http.StatusOK, resp)
	}
	runtime.ReadMemStats(&after)
	per := (after.TotalAlloc - before.TotalAlloc) / n
	t.Logf("%d bytes allocated a response of %d", per, len(want))
	if per > uint64(len(want))/8 {
		t.Errorf("writeJSON allocates %d bytes for a %d-byte envelope; want at most an eighth of it", per, len(want))
	}
}

// BenchmarkWriteJSON_envelope encodes a real envelope of ten results.
func BenchmarkWriteJSON_envelope(b *testing.B) {
	_, resp := realEnvelope(b)
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		writeJSON(w, http.StatusOK, resp)
	}
}
