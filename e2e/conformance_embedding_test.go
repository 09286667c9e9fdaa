package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
)

// embedStub is a loopback OpenAI-compatible /v1/embeddings that records
// each request's texts and answers with novatest.FakeEmbeddings' vectors,
// unless fault answers first (it returns true when it has answered).
type embedStub struct {
	URL string // base URL, ending in /v1

	mu    sync.Mutex
	calls [][]string
	fault func(w http.ResponseWriter, r *http.Request) bool
}

func newEmbedStub(t *testing.T) *embedStub {
	t.Helper()
	fake := novatest.FakeEmbeddings(t)
	s := &embedStub{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.calls = append(s.calls, req.Input)
		fault := s.fault
		s.mu.Unlock()
		if fault != nil && fault(w, r) {
			return
		}
		resp, err := http.Post(fake+"/embeddings", "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/v1"
	return s
}

// take returns the requests recorded since the last take and forgets them.
func (s *embedStub) take() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.calls
	s.calls = nil
	return c
}

// setFault makes every later request answered by f (nil: the vectors).
func (s *embedStub) setFault(f func(w http.ResponseWriter, r *http.Request) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault = f
}

// stubConfig is config.yaml's embedding section for s.
func stubConfig(s *embedStub, extra string) string {
	return fmt.Sprintf("embedding: {provider: openai, endpoint: %q, model: fake, dimension: 8%s}\n", s.URL, extra)
}

// TestConformance_embeddingCalls counts, on a stub embedding endpoint,
// the requests one direct search makes: a query the baseline answers well
// embeds once, one text, and stops (conformance 4.3); a weak one embeds
// its follow-up passes' queries in a single batched second request and
// says so in embeddingTelemetry (4.4).
func TestConformance_embeddingCalls(t *testing.T) {
	t.Parallel()
	stub := newEmbedStub(t)
	h := novatest.NewHome(t, stubConfig(stub, ""))
	h.Sync()
	d := h.Start()
	stub.take() // the build's and the start's

	t.Run("strong", func(t *testing.T) {
		r := do(t, http.MethodPost, d.Direct+"/search", `{"query":"invoice rounding banker's rounding decision","top_k":2}`, nil)
		m := r.json(t)
		calls := stub.take()
		rc, _ := m["retrievalController"].(map[string]any)
		if r.status != http.StatusOK || m["available"] != true || rc == nil {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		if len(calls) != 1 || len(calls[0]) != 1 {
			t.Errorf("conformance 4.3: embedding requests %q, want one of one text", calls)
		}
		if rc["stopReason"] != "quality-strong-after-baseline" {
			t.Fatalf("fixture: stopReason %v, quality %v: the query is not strong after the baseline", rc["stopReason"], m["quality"])
		}
		if tel, _ := rc["passTelemetry"].([]any); len(tel) != 1 {
			t.Errorf("conformance 4.3: passTelemetry %v, want the baseline's alone", rc["passTelemetry"])
		}
		if run, _ := rc["passesRun"].([]any); len(run) == 0 || run[0] != "baseline-hybrid" {
			t.Errorf("conformance 4.3: passesRun %v", rc["passesRun"])
		}
		plan, _ := m["queryPlan"].(map[string]any)
		if stages, _ := plan["stages"].([]any); !contains(stages, "server-side-requery") {
			t.Errorf("conformance 4.3: queryPlan.stages %v, want server-side-requery", plan["stages"])
		}
	})

	t.Run("weak", func(t *testing.T) {
		r := do(t, http.MethodPost, d.Direct+"/search", `{"query":"xylophone calibration QX-9931 after the RC-204 migration","top_k":2}`, nil)
		m := r.json(t)
		calls := stub.take()
		rc, _ := m["retrievalController"].(map[string]any)
		if r.status != http.StatusOK || m["available"] != true || rc == nil {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		if rc["stopReason"] == "quality-strong-after-baseline" {
			t.Fatalf("fixture: the weak query is strong after the baseline")
		}
		if len(calls) != 2 || len(calls[0]) != 1 || len(calls[1]) < 1 {
			t.Errorf("conformance 4.4: embedding requests %q, want one of one text, then one batch", calls)
		}
		tel, _ := rc["embeddingTelemetry"].([]any)
		var batches []any
		for _, x := range tel {
			e := x.(map[string]any)
			batches = append(batches, e["batch"])
			if _, ok := e["queryCount"]; !ok {
				t.Errorf("conformance 4.4: embeddingTelemetry entry %v has no queryCount", e)
			}
			if _, ok := e["elapsedMs"]; !ok {
				t.Errorf("conformance 4.4: embeddingTelemetry entry %v has no elapsedMs", e)
			}
			if e["batch"] == "optional-passes" && e["status"] != "ready" {
				t.Errorf("conformance 4.4: optional batch %v, want status ready", e)
			}
		}
		if !reflect.DeepEqual(batches, []any{"baseline", "optional-passes"}) {
			t.Errorf("conformance 4.4: embeddingTelemetry batches %v", batches)
		}
		if rc["batchedOptionalEmbeddings"] != true || rc["embeddingDimension"] != 8.0 || rc["slowQuery"] != false ||
			rc["slowQueryThresholdMs"] != 30000.0 || rc["latencyBudgetMs"] == nil {
			t.Errorf("conformance 4.4: batchedOptionalEmbeddings %v embeddingDimension %v slowQuery %v slowQueryThresholdMs %v latencyBudgetMs %v",
				rc["batchedOptionalEmbeddings"], rc["embeddingDimension"], rc["slowQuery"], rc["slowQueryThresholdMs"], rc["latencyBudgetMs"])
		}
	})
}

func contains(l []any, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// TestConformance_secretHygieneUnderFaults: an embedding endpoint that
// echoes its key and a secret in its error, or that does not answer in
// time, degrades the search; the key and the secret reach neither the
// answer nor novad's log nor any file under NOVA_HOME (conformance 2.15).
func TestConformance_secretHygieneUnderFaults(t *testing.T) {
	const key, secret = "sk-contract2-KEY-4f1e9a", "secret=contract2-SECRET-77b0"
	t.Setenv("CONTRACT2_EMBED_KEY", key)
	stub := newEmbedStub(t)
	h := novatest.NewHome(t, stubConfig(stub, ", apiKeyEnv: CONTRACT2_EMBED_KEY, timeoutSeconds: 1"))
	h.Sync()
	d := h.Start()

	release := make(chan struct{})
	defer close(release)
	faults := map[string]func(w http.ResponseWriter, r *http.Request) bool{
		"error": func(w http.ResponseWriter, _ *http.Request) bool {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":{"message":"Incorrect api_key provided: %s (%s)","type":"invalid_request_error","code":"invalid_api_key %s"}}`, key, secret, secret)
			return true
		},
		"timeout": func(http.ResponseWriter, *http.Request) bool {
			<-release
			return true
		},
	}
	for _, name := range []string{"error", "timeout"} {
		t.Run(name, func(t *testing.T) {
			stub.setFault(faults[name])
			defer stub.setFault(nil)
			for _, url := range []string{d.Direct + "/search", d.Facade + "/api/rag/external/search"} {
				r := do(t, http.MethodPost, url, `{"query":"why was the dashboard port unavailable","top_k":3}`, nil)
				if r.status != http.StatusOK && r.status != http.StatusServiceUnavailable {
					t.Errorf("%s: status %d: %s", url, r.status, r.body)
				}
				for _, s := range []string{key, secret, "api_key", "contract2-SECRET"} {
					if strings.Contains(string(r.body), s) {
						t.Errorf("conformance 2.15: %s answer holds %q: %s", url, s, r.body)
					}
				}
				rc, _ := r.json(t)["retrievalController"].(map[string]any)
				if rc == nil || rc["degraded"] != true {
					t.Errorf("conformance 2.15: %s: the fault did not degrade the search: %v", url, rc)
				}
			}
		})
	}
	if calls := stub.take(); len(calls) == 0 {
		t.Fatalf("fixture: the searches sent the stub nothing")
	}
	for _, s := range []string{key, "contract2-SECRET"} {
		if strings.Contains(d.Logs.String(), s) {
			t.Errorf("conformance 2.15: novad's log holds %q:\n%s", s, d.Logs.String())
		}
		eachWrittenFile(t, h, func(p string, b []byte) {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("conformance 2.15: %s holds %q", p, s)
			}
		})
	}
}
