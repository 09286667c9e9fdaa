package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/internal/novatest"
)

// TestSyncEmbedsThroughRunningNovad: with an embedding endpoint (openai
// provider), index sync asks a running novad for embeddings through
// /encode with the token from the 0600 file; with an unsafe token file it
// refuses; without novad it calls the endpoint itself. The builtin model
// travels with the generation, so a builtin build always embeds in its own
// process.
func TestSyncEmbedsThroughRunningNovad(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, fmt.Sprintf("embedding: {provider: openai, endpoint: %q, model: fake, dimension: 8}\n", novatest.FakeEmbeddings(t)))
	h.Sync()
	d := h.Start()
	add := func(id string) {
		f, err := os.OpenFile(filepath.Join(h.Data, "records.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
		novatest.Must(t, err)
		fmt.Fprintf(f, `{"id":%q,"text":"A fresh note about the canary deploy %s.","session":%q}`+"\n", id, id, id)
		novatest.Must(t, f.Close())
	}
	source := func(args ...string) (string, int) {
		out, errs, code := h.Novactl(append([]string{"index", "sync", "--json"}, args...)...)
		var r struct {
			Error  string `json:"error"`
			Result struct {
				Build struct {
					EmbeddingSource string `json:"embeddingSource"`
					Embedded        int    `json:"embedded"`
				} `json:"build"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("sync output: %v\n%s%s", err, out, errs)
		}
		if code != 0 {
			return r.Error, code
		}
		if r.Result.Build.Embedded != 1 {
			t.Errorf("embedded %d, want 1", r.Result.Build.Embedded)
		}
		return r.Result.Build.EmbeddingSource, code
	}
	add("n1")
	if src, code := source(); code != 0 || src != "novad" {
		t.Fatalf("with novad running the build must embed through /encode: %q (exit %d)", src, code)
	}
	add("n2")
	if src, code := source("--in-process"); code != 0 || src != "in-process" {
		t.Fatalf("--in-process: %q (exit %d)", src, code)
	}
	// An unsafe token file: the build refuses to talk to novad.
	tok := filepath.Join(h.Dir, "state", "internal-token")
	novatest.Must(t, os.Chmod(tok, 0o644))
	add("n3")
	if msg, code := source(); code == 0 || !strings.Contains(msg, "rag-internal-authorization-unavailable") {
		t.Fatalf("unsafe token: exit %d %q", code, msg)
	}
	novatest.Must(t, os.Chmod(tok, 0o600))
	d.Stop()
	if src, code := source(); code != 0 || src != "in-process" {
		t.Fatalf("without novad: %q (exit %d)", src, code)
	}
}

// TestFirstOpenAISyncWithNovadRunning: in an openai home where novad
// already runs but nothing was indexed yet, the first sync embeds through
// novad's /encode, which uses the configured endpoint before any
// generation is served (it answered 503 encoder-unavailable, and every
// first sync failed while novad ran).
func TestFirstOpenAISyncWithNovadRunning(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, fmt.Sprintf("embedding: {provider: openai, endpoint: %q, model: fake, dimension: 8}\n", novatest.FakeEmbeddings(t)))
	d := h.Start()
	out, errs, code := h.Novactl("index", "sync", "--json")
	if code != 0 {
		t.Fatalf("first sync with novad running (exit %d): %s%s", code, out, errs)
	}
	var r struct {
		Result struct {
			Build struct {
				EmbeddingSource string `json:"embeddingSource"`
			} `json:"build"`
		} `json:"result"`
	}
	novatest.Must(t, json.Unmarshal([]byte(out), &r))
	if r.Result.Build.EmbeddingSource != "novad" {
		t.Errorf("first sync embedded %q, want through novad", r.Result.Build.EmbeddingSource)
	}
	waitFor(t, 15*time.Second, "the first generation to be served", func() bool {
		return search(t, d.Facade, `{"query":"dashboard port"}`).json(t)["available"] == true
	})
}
