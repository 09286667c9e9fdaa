package embedding_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

const testKey = "sk-test-0123456789abcdefSECRET"

// fakeServer is an OpenAI-compatible embedding endpoint on 127.0.0.1.
// Its vectors are a deterministic function of the text.
type fakeServer struct {
	*httptest.Server
	dim int

	mu       sync.Mutex
	batches  [][]string
	models   []string
	auth     []string
	respond  func(w http.ResponseWriter, r *http.Request, input []string) bool // true: handled
	reversed bool                                                              // answer data in reverse order
}

func newFakeServer(t *testing.T, dim int) *fakeServer {
	t.Helper()
	f := &fakeServer{dim: dim}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	if !strings.HasPrefix(f.URL, "http://127.0.0.1:") {
		t.Fatalf("fake server on %s, want 127.0.0.1", f.URL)
	}
	return f
}

func fakeVector(text string, dim int) []float32 {
	sum := sha256.Sum256([]byte(text))
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(int(sum[i%32])-128) + float32(i)
	}
	return v
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" || r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.batches = append(f.batches, req.Input)
	f.models = append(f.models, req.Model)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	respond, reversed := f.respond, f.reversed
	f.mu.Unlock()
	if respond != nil && respond(w, r, req.Input) {
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var data []item
	for i, text := range req.Input {
		data = append(data, item{"embedding", i, fakeVector(text, f.dim)})
	}
	if reversed {
		slices.Reverse(data)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": req.Model, "data": data})
}

func (f *fakeServer) requests() [][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.batches)
}

func (f *fakeServer) authHeaders() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.auth)
}

func (f *fakeServer) set(respond func(w http.ResponseWriter, r *http.Request, input []string) bool) {
	f.mu.Lock()
	f.respond = respond
	f.mu.Unlock()
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("memory %d: the deploy moved to port %d", i, 8000+i)
	}
	return out
}

func TestOpenAI_batching(t *testing.T) {
	srv := newFakeServer(t, 8)
	srv.reversed = true // (before any request) servers may answer in any order; index says which is which
	e := embedding.NewOpenAI(embedding.OpenAIOptions{Endpoint: srv.URL + "/v1/", Model: "fake-embed", Dimension: 8, APIKey: testKey, BatchSize: 3})
	if p := e.Profile(); p != (api.EmbeddingProfile{Provider: "openai", Model: "fake-embed", Dimension: 8}) {
		t.Errorf("profile %+v", p)
	}
	in := texts(10)
	in[4] = "   " // blank input is sent as a placeholder
	vecs, err := e.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests()
	var sizes []int
	for _, r := range reqs {
		sizes = append(sizes, len(r))
	}
	if !slices.Equal(sizes, []int{3, 3, 3, 1}) {
		t.Errorf("batch sizes %v, want [3 3 3 1]", sizes)
	}
	if reqs[1][1] != "empty" {
		t.Errorf("blank text sent as %q", reqs[1][1])
	}
	auth := srv.authHeaders()
	srv.mu.Lock()
	models := slices.Clone(srv.models)
	srv.mu.Unlock()
	for i, m := range models {
		if m != "fake-embed" || auth[i] != "Bearer "+testKey {
			t.Errorf("request %d: model %q auth %q", i, m, auth[i])
		}
	}
	if len(vecs) != 10 {
		t.Fatalf("%d vectors for 10 texts", len(vecs))
	}
	for i, v := range vecs {
		want := fakeVector(in[i], 8)
		if i == 4 {
			want = fakeVector("empty", 8)
		}
		embedding.Normalize(want)
		if !slices.Equal(v, want) {
			t.Errorf("vector %d is not the normalised vector of text %d (order lost?)", i, i)
		}
	}
	// No key, no Authorization header.
	if _, err := embedding.NewOpenAI(embedding.OpenAIOptions{Endpoint: srv.URL + "/v1", Model: "m", Dimension: 8}).Embed(context.Background(), texts(1)); err != nil {
		t.Fatal(err)
	}
	if auth := srv.authHeaders(); auth[len(auth)-1] != "" {
		t.Errorf("Authorization %q sent without a key", auth[len(auth)-1])
	}
	// Nothing to embed, no request.
	n := len(srv.requests())
	if v, err := e.Embed(context.Background(), nil); err != nil || len(v) != 0 || len(srv.requests()) != n {
		t.Errorf("empty input: %v %v, %d requests", v, err, len(srv.requests())-n)
	}
}

// TestOpenAI_extremeMagnitudes: a vector whose components are all far
// from 1 (float32 subnormals, or near its largest value) is returned at
// unit length, every component finite. Normalising took the inverse of
// the norm in float32, which a subnormal vector's overflows: it came back
// as +Inf and NaN components, with no error.
func TestOpenAI_extremeMagnitudes(t *testing.T) {
	srv := newFakeServer(t, 4)
	srv.set(func(w http.ResponseWriter, r *http.Request, input []string) bool {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":[{"index":0,"embedding":[3e-42,0,-4e-42,0]},{"index":1,"embedding":[3e38,3e38,-3e38,3e38]}]}`))
		return true
	})
	e := embedding.NewOpenAI(embedding.OpenAIOptions{Endpoint: srv.URL + "/v1", Model: "fake", Dimension: 4, Timeout: 10 * time.Second})
	vecs, err := e.Embed(context.Background(), texts(2))
	if err != nil {
		t.Fatal(err)
	}
	if err := embedding.CheckVectors(vecs, 2, 4); err != nil {
		t.Fatalf("%v: %v", err, vecs)
	}
	for i, v := range vecs {
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if math.Abs(norm-1) > 1e-5 {
			t.Errorf("vector %d %v has norm² %v, want 1", i, v, norm)
		}
	}
	if want := []float32{0.6, 0, -0.8, 0}; !slices.EqualFunc(vecs[0], want, func(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-3 }) {
		t.Errorf("subnormal vector normalised to %v, want about %v", vecs[0], want)
	}
}

// TestOpenAI_noRedirect: an endpoint that redirects does not get the
// memory text sent on to where it points, nor the key.
func TestOpenAI_noRedirect(t *testing.T) {
	var reached atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
	}))
	defer elsewhere.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/v1/embeddings", http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	e := embedding.NewOpenAI(embedding.OpenAIOptions{Endpoint: redirector.URL + "/v1", Model: "fake", Dimension: 8, APIKey: testKey, Timeout: 10 * time.Second})
	if _, err := e.Embed(context.Background(), []string{"the deploy key lives in vault"}); err == nil {
		t.Error("a redirected request succeeded")
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the redirect target got %d requests", n)
	}
}

func TestOpenAI_errors(t *testing.T) {
	srv := newFakeServer(t, 8)
	opts := embedding.OpenAIOptions{Endpoint: srv.URL + "/v1", Model: "fake", Dimension: 8, APIKey: testKey, BatchSize: 4, Timeout: 10 * time.Second}
	e := embedding.NewOpenAI(opts)
	write := func(status int, body string) func(w http.ResponseWriter, r *http.Request, input []string) bool {
		return func(w http.ResponseWriter, r *http.Request, input []string) bool {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
			return true
		}
	}
	vectors := func(vecs ...string) string {
		var items []string
		for i, v := range vecs {
			items = append(items, fmt.Sprintf(`{"index":%d,"embedding":%s}`, i, v))
		}
		return `{"data":[` + strings.Join(items, ",") + `]}`
	}
	ok8 := "[1,2,3,4,5,6,7,8]"
	tests := []struct {
		name    string
		respond func(w http.ResponseWriter, r *http.Request, input []string) bool
		n       int
		timeout time.Duration
		check   func(t *testing.T, err error)
	}{
		{"server error", write(404, `{"error":{"message":"The model fake does not exist","type":"invalid_request_error","code":"model_not_found"}}`), 2, 0, func(t *testing.T, err error) {
			if err.Error() != "embedding endpoint answered 404 (invalid_request_error, model_not_found)" {
				t.Errorf("error %q does not say what the server answered", err)
			}
		}},
		{"unauthorized echoing the key", write(401, `{"error":{"message":"Incorrect API key provided: `+testKey+`","code":401}}`), 1, 0, func(t *testing.T, err error) {
			if err.Error() != "embedding endpoint answered 401 (401)" {
				t.Errorf("error %q does not give the status alone", err)
			}
		}},
		// The memory text being embedded must not reach the log through
		// the error.
		{"bad request echoing the input", func(w http.ResponseWriter, r *http.Request, input []string) bool {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			_, _ = fmt.Fprintf(w, `{"error":{"message":"Invalid input %q"}}`, input)
			return true
		}, 1, 0, func(t *testing.T, err error) {
			if err.Error() != "embedding endpoint answered 400" {
				t.Errorf("error %q", err)
			}
		}},
		{"long error body", write(503, strings.Repeat("overloaded ", 1000)), 1, 0, func(t *testing.T, err error) {
			if len(err.Error()) > 400 {
				t.Errorf("error of %d bytes: the body is not cut", len(err.Error()))
			}
		}},
		{"timeout", func(w http.ResponseWriter, r *http.Request, input []string) bool {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return true
		}, 1, 300 * time.Millisecond, func(t *testing.T, err error) {
			if !errors.Is(err, embedding.ErrUnavailable) || !strings.Contains(err.Error(), "did not answer within 300ms") {
				t.Errorf("timeout error %q", err)
			}
		}},
		{"wrong dimension", write(200, vectors("[1,2,3,4,5,6,7]")), 1, 0, func(t *testing.T, err error) {
			de, ok := errors.AsType[*embedding.DimensionError](err)
			if !ok || de.Want != 8 || de.Got != 7 {
				t.Errorf("error %v, want DimensionError{8, 7}", err)
			}
		}},
		{"too few vectors", write(200, vectors(ok8, ok8)), 3, 0, func(t *testing.T, err error) {
			if !strings.Contains(err.Error(), "2 vectors for 3 texts") {
				t.Errorf("count error %q", err)
			}
		}},
		{"too many vectors", write(200, vectors(ok8, ok8, ok8)), 2, 0, func(t *testing.T, err error) {
			if err == nil || !strings.Contains(err.Error(), "0..1") && !strings.Contains(err.Error(), "3 vectors for 2 texts") {
				t.Errorf("count error %q", err)
			}
		}},
		{"duplicate indexes", write(200, `{"data":[{"index":0,"embedding":`+ok8+`},{"index":0,"embedding":`+ok8+`}]}`), 2, 0, func(t *testing.T, err error) {
			if !strings.Contains(err.Error(), "indexes") {
				t.Errorf("index error %q", err)
			}
		}},
		{"overflowing component", write(200, vectors("[1,2,3,4,5,6,7,1e39]")), 1, 0, func(t *testing.T, err error) {
			if err == nil {
				t.Errorf("a component beyond float32 was accepted")
			}
		}},
		{"NaN component", write(200, vectors("[1,2,3,4,5,6,7,NaN]")), 1, 0, func(t *testing.T, err error) {}},
		{"not JSON", write(200, `<html>proxy login</html>`), 1, 0, func(t *testing.T, err error) {
			if !strings.Contains(err.Error(), "not OpenAI-shaped JSON") {
				t.Errorf("error %q", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.set(tt.respond)
			e := e
			if tt.timeout > 0 {
				o := opts
				o.Timeout = tt.timeout
				e = embedding.NewOpenAI(o)
			}
			start := time.Now()
			vecs, err := e.Embed(context.Background(), texts(tt.n))
			if err == nil {
				t.Fatalf("Embed succeeded with %d vectors", len(vecs))
			}
			if strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), "SECRET") {
				t.Errorf("the API key leaked into the error: %q", err)
			}
			if time.Since(start) > 3*time.Second {
				t.Errorf("Embed took %s", time.Since(start))
			}
			tt.check(t, err)
		})
	}

	t.Run("unreachable", func(t *testing.T) {
		dead := httptest.NewServer(http.NotFoundHandler())
		url := dead.URL
		dead.Close()
		_, err := embedding.NewOpenAI(embedding.OpenAIOptions{Endpoint: url + "/v1", Model: "m", Dimension: 8, APIKey: testKey}).Embed(context.Background(), texts(1))
		if !errors.Is(err, embedding.ErrUnavailable) || strings.Contains(err.Error(), testKey) {
			t.Errorf("unreachable endpoint: %v", err)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		srv.set(nil)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := e.Embed(ctx, texts(1)); !errors.Is(err, embedding.ErrUnavailable) && !errors.Is(err, context.Canceled) {
			t.Errorf("canceled: %v", err)
		}
	})
}

func TestCheckVectors(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	tests := []struct {
		name string
		vecs [][]float32
		n    int
		ok   bool
	}{
		{"ok", [][]float32{{1, 0}, {0, 1}}, 2, true},
		{"count", [][]float32{{1, 0}}, 2, false},
		{"dimension", [][]float32{{1, 0, 0}}, 1, false},
		{"NaN", [][]float32{{nan, 0}}, 1, false},
		{"Inf", [][]float32{{0, inf}}, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := embedding.CheckVectors(tt.vecs, tt.n, 2); (err == nil) != tt.ok {
				t.Errorf("CheckVectors: %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// TestConfig_openaiEndpoint: configuration refuses a non-loopback
// embedding endpoint unless the operator allows it.
func TestConfig_openaiEndpoint(t *testing.T) {
	tests := []struct {
		endpoint    string
		allowRemote bool
		ok          bool
	}{
		{"http://127.0.0.1:11434/v1", false, true},
		{"http://localhost:1234/v1", false, true},
		{"http://[::1]:8080/v1", false, true},
		{"https://api.openai.com/v1", false, false},
		{"http://10.0.0.5:11434/v1", false, false},
		{"http://192.168.1.20/v1", false, false},
		{"http://0.0.0.0:11434/v1", false, false},
		{"ftp://127.0.0.1/v1", false, false},
		{"127.0.0.1:11434", false, false},
		{"https://api.openai.com/v1", true, true},
		// The host is evil.example; 127.0.0.1:80 is the user info.
		{"http://127.0.0.1:80@evil.example/v1", false, false},
		{"http://[::1]@evil.example/v1", false, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s allow=%v", tt.endpoint, tt.allowRemote), func(t *testing.T) {
			cfg := config.Defaults()
			cfg.Embedding.Provider, cfg.Embedding.Endpoint, cfg.Embedding.Model = config.ProviderOpenAI, tt.endpoint, "nomic-embed-text"
			cfg.Embedding.AllowRemoteEndpoint = tt.allowRemote
			err := cfg.Validate()
			if tt.ok {
				if err != nil {
					t.Errorf("Validate: %v", err)
				}
				return
			}
			fe, ok := errors.AsType[*config.FieldError](err)
			if !ok || fe.Field != "embedding.endpoint" || !errors.Is(err, config.ErrInvalid) {
				t.Errorf("Validate: %v, want a field error on embedding.endpoint", err)
			}
		})
	}
}

// TestSync_openai runs a whole sync with the openai provider against the
// fake server: the generation carries the openai profile and no builtin
// model, and a second sync asks the server for nothing.
func TestSync_openai(t *testing.T) {
	srv := newFakeServer(t, 8)
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	var lines []string
	for i := 0; i < 10; i++ {
		b, _ := json.Marshal(map[string]any{
			"id": fmt.Sprintf("m-%02d", i), "text": fmt.Sprintf("Note %d: service %d listens on port %d.", i, i, 9000+i),
			"date": "2026-02-10", "session": fmt.Sprintf("s-%d", i),
		})
		lines = append(lines, string(b))
	}
	if err := writeText(src, strings.Join(lines, "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: filepath.Join(dir, "home")}
	cfg.Embedding = config.Embedding{Provider: config.ProviderOpenAI, Endpoint: srv.URL + "/v1", Model: "fake", Dimension: 8, BatchSize: 4, TimeoutSeconds: 5, APIKeyEnv: "NOVA_TEST_EMBED_KEY"}
	cfg.Sources = []config.Source{{Name: "notes", Kind: config.KindJSONL, Path: src}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ix := index.New(cfg, index.Options{NoRemote: true, Environ: []string{"NOVA_TEST_EMBED_KEY=" + testKey}})
	r, err := ix.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Build.Embedded != 10 || r.Build.Cached != 0 || r.Build.ModelTrained {
		t.Errorf("first sync: embedded %d cached %d trained %v", r.Build.Embedded, r.Build.Cached, r.Build.ModelTrained)
	}
	reqs := srv.requests()
	if auth := srv.authHeaders(); len(reqs) != 3 || auth[0] != "Bearer "+testKey {
		t.Errorf("%d requests (want 3 of at most 4 texts), auth %q", len(reqs), auth)
	}
	m, _, err := manifest.Read(cfg.Home.Manifest())
	if err != nil {
		t.Fatal(err)
	}
	if m.EmbeddingProfile != (api.EmbeddingProfile{Provider: "openai", Model: "fake", Dimension: 8}) {
		t.Errorf("profile %+v", m.EmbeddingProfile)
	}
	if _, ok := m.Space.Files[generation.FileModel]; ok {
		t.Errorf("an openai generation has a builtin model")
	}
	g, err := generation.Open(context.Background(), cfg.Home.IndexDir(), m, lexical.NewAnalyzer(), generation.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Dim() != 8 || g.Count() != 10 || g.Model != nil {
		t.Errorf("generation vectors %dx%d model %v", g.Count(), g.Dim(), g.Model)
	}
	for i, c := range g.All() {
		want := fakeVector(c.IndexText(), 8)
		embedding.Normalize(want)
		// Stored as int8 codes: the decoded vector is the server's
		// within quantization.
		var dot float64
		for j, x := range g.Vector(i) {
			dot += float64(x) * float64(want[j])
		}
		if dot < 0.995 {
			t.Errorf("vector of %s is not the server's (cosine %.4f)", c.ID, dot)
		}
	}
	r2, err := ix.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r2.Build.Mode != index.ModeUnchanged || len(srv.requests()) != 3 {
		t.Errorf("second sync: %s, %d requests in all", r2.Build.Mode, len(srv.requests()))
	}
	// A full rebuild finds every vector in the embedding cache.
	full := index.New(cfg, index.Options{NoRemote: true, Full: true, Environ: []string{"NOVA_TEST_EMBED_KEY=" + testKey}})
	r3, err := full.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r3.Build.Embedded != 0 || r3.Build.Cached != 10 || len(srv.requests()) != 3 {
		t.Errorf("full rebuild: embedded %d cached %d, %d requests in all", r3.Build.Embedded, r3.Build.Cached, len(srv.requests()))
	}

	// A server gone wrong fails the build; the active generation stays.
	srv.set(func(w http.ResponseWriter, r *http.Request, input []string) bool {
		_ = json.NewEncoder(w).Encode(map[string]any{"data": []map[string]any{{"index": 0, "embedding": []float32{1, 2, 3}}}})
		return true
	})
	if err := writeText(src, strings.Join(lines, "\n")+"\n"+`{"id":"m-new","text":"a new note"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Sync(context.Background()); !errors.As(err, new(*embedding.DimensionError)) {
		t.Errorf("sync against a wrong-dimension server: %v, want a DimensionError", err)
	}
	if m3, _, err := manifest.Read(cfg.Home.Manifest()); err != nil || m3.RunID != r3.Build.RunID {
		t.Errorf("the failed sync changed the manifest: %v", err)
	}
}

func writeText(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }
