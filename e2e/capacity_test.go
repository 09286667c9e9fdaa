package e2e

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/contracttest"
	"github.com/nova-recall/nova/internal/novatest"
)

// fakeEmbedder is an OpenAI-compatible /embeddings server on loopback
// whose answers can be delayed, to make searches slow on purpose. A test
// learns whether a delayed answer was sent from answered, rather than
// from a clock, and ends every delay at once by closing release.
type fakeEmbedder struct {
	srv      *httptest.Server
	delay    atomic.Int64 // nanoseconds
	requests atomic.Int64
	answered atomic.Int64 // delayed requests answered
	release  chan struct{}
	once     sync.Once
}

// releaseAll ends every delay, now and from now on.
func (f *fakeEmbedder) releaseAll() { f.once.Do(func() { close(f.release) }) }

const fakeDim = 16

func newFakeEmbedder(t *testing.T) *fakeEmbedder {
	f := &fakeEmbedder{release: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.requests.Add(1)
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad", 400)
			return
		}
		if d := time.Duration(f.delay.Load()); d > 0 {
			select {
			case <-time.After(d):
			case <-f.release:
			case <-r.Context().Done():
				return
			}
			defer f.answered.Add(1)
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		out := struct {
			Data []item `json:"data"`
		}{}
		for i, text := range req.Input {
			v := make([]float32, fakeDim)
			for _, w := range strings.Fields(strings.ToLower(text)) {
				h := fnv.New32a()
				h.Write([]byte(w))
				v[h.Sum32()%fakeDim]++
			}
			out.Data = append(out.Data, item{Index: i, Embedding: v})
		}
		_ = json.NewEncoder(w).Encode(out) // the client under test reports a broken answer
	}))
	t.Cleanup(f.srv.Close)
	t.Cleanup(f.releaseAll) // first: Close waits for held requests
	return f
}

func (f *fakeEmbedder) config(extra string) string {
	return fmt.Sprintf("embedding: {provider: openai, endpoint: %q, model: fake-embed, dimension: %d}\n%s", f.srv.URL, fakeDim, extra)
}

func TestCapacityAndTimeoutTelemetry(t *testing.T) {
	t.Parallel()
	fake := newFakeEmbedder(t)
	h := novatest.NewHome(t, fake.config("retrieval: {maxConcurrentSearches: 1}\n"))
	h.Sync()
	d := h.Start()
	if r := search(t, d.Facade, `{"query":"dashboard port"}`); r.status != 200 || r.json(t)["available"] != true {
		t.Fatalf("baseline search with the openai provider: %d %s", r.status, r.body)
	}

	// Make query embedding hang: one search holds the only permit until
	// its budget runs out.
	fake.delay.Store(int64(time.Hour))
	base := fake.requests.Load()
	var wg sync.WaitGroup
	var slow reply
	wg.Add(1)
	go func() {
		defer wg.Done()
		slow = search(t, d.Facade, `{"query":"dashboard port","remainingBudgetMs":1200}`)
	}()
	waitFor(t, 5*time.Second, "the slow search to reach the embedder", func() bool { return fake.requests.Load() > base })
	busy := search(t, d.Facade, `{"query":"release"}`)
	if busy.status != http.StatusTooManyRequests {
		t.Fatalf("second search while saturated: %d %.300s", busy.status, busy.body)
	}
	if got := busy.header.Get("Retry-After"); got != "1" {
		t.Errorf("429 Retry-After %q, want 1 (a client must know when to come back)", got)
	}
	if err := contracttest.Validate(contracttest.SearchResponse, busy.body, true); err != nil {
		t.Fatal(err)
	}
	var b api.SearchResponse
	novatest.Must(t, json.Unmarshal(busy.body, &b))
	if *b.Reason != api.ReasonCapacityExhausted || b.Error != "busy" || b.WorkerTelemetry.WorkerState != api.WorkerNotStarted || b.WorkerTelemetry.CapacityPermitHeld {
		t.Errorf("429 envelope: %s", busy.body)
	}
	wg.Wait()
	// The budget, not the embedder, ended the search: the embedder has
	// not answered it yet (no clock: a loaded machine makes both late).
	if n := fake.answered.Load(); n != 0 {
		t.Errorf("the embedder answered %d held requests before the timeout did", n)
	}
	if slow.status != http.StatusServiceUnavailable {
		t.Fatalf("slow search: %d %s", slow.status, slow.body)
	}
	if err := contracttest.Validate(contracttest.SearchResponse, slow.body, true); err != nil {
		t.Fatal(err)
	}
	var s api.SearchResponse
	novatest.Must(t, json.Unmarshal(slow.body, &s))
	wt := s.WorkerTelemetry
	if *s.Reason != api.ReasonTimeout || s.Error != "timeout" || wt == nil || s.RetrievalController.StopReason != "local-worker-timeout" || !s.RetrievalController.Degraded {
		t.Fatalf("timeout envelope: %s", slow.body)
	}
	if wt.CapacityPermitHeld != (wt.WorkerState == api.WorkerRunningAfterTimeout) {
		t.Errorf("capacityPermitHeld %v does not match workerState %s", wt.CapacityPermitHeld, wt.WorkerState)
	}
	// Once the worker has really ended, capacity is free again.
	fake.delay.Store(0)
	fake.releaseAll()
	waitFor(t, 5*time.Second, "capacity to be released", func() bool {
		return search(t, d.Facade, `{"query":"release"}`).status == 200
	})
}

func TestShutdownUnderLoad(t *testing.T) {
	t.Parallel()
	fake := newFakeEmbedder(t)
	h := novatest.NewHome(t, fake.config("retrieval: {maxConcurrentSearches: 2}\n"))
	h.Sync()
	d := h.Start()
	fake.delay.Store(int64(time.Hour))
	base := fake.requests.Load()
	var wg sync.WaitGroup
	statuses := make(chan int, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, d.Facade+api.PathFacadeSearch, strings.NewReader(`{"query":"dashboard port"}`))
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				statuses <- -1
				return
			}
			resp.Body.Close()
			statuses <- resp.StatusCode
		}()
	}
	waitFor(t, 5*time.Second, "searches to be in flight", func() bool { return fake.requests.Load() >= base+2 })
	code, _ := d.Stop()
	if code != 0 {
		t.Errorf("exit code %d after SIGTERM under load:\n%s", code, d.Logs.String())
	}
	// novad stopped without waiting for the embedder, which never answers
	// (Stop fails after 15 s): the searches' embed requests were cancelled.
	if n := fake.answered.Load(); n != 0 {
		t.Errorf("the embedder answered %d held requests before novad stopped", n)
	}
	wg.Wait()
	close(statuses)
	for st := range statuses {
		if st == 200 {
			t.Errorf("a search blocked on a held embedding completed during shutdown")
		}
	}
}
