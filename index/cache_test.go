package index_test

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// fakeOpenAI is an OpenAI-compatible embeddings endpoint whose vectors
// are a hash of each text, so the same text has the same vector.
func fakeOpenAI(t *testing.T, dim int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		out := struct {
			Data []item `json:"data"`
		}{}
		for i, text := range req.Input {
			v := make([]float32, dim)
			for d := range v {
				h := fnv.New32a()
				fmt.Fprintf(h, "%d\x00%s", d, text)
				v[d] = float32(h.Sum32()%2001)/1000 - 1
			}
			out.Data = append(out.Data, item{i, v})
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestSync_embeddingCacheOutlivesSyncs: with an openai embedder, the
// vectors of text a sync did not touch stay in the cache, so a retrained
// space embeds only what changed; once a complete build into a new space
// no longer holds most of the cached text, the cache drops it.
func TestSync_embeddingCacheOutlivesSyncs(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	var recs []rec
	for i := range 1200 {
		recs = append(recs, rec{ID: fmt.Sprintf("r%d", i), Text: fmt.Sprintf("note %d: the deploy of service %d moved to port %d", i, i, 2000+i), Session: fmt.Sprintf("s%d", i)})
	}
	writeFile(t, src, jsonlLines(t, recs...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	cfg.Embedding.Provider, cfg.Embedding.Endpoint = config.ProviderOpenAI, fakeOpenAI(t, 8).URL+"/v1"
	cfg.Embedding.Model, cfg.Embedding.Dimension = "fake", 8
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	sync := func(name string, retrain bool, wantEmbedded int) {
		t.Helper()
		r, err := index.New(cfg, index.Options{NoRemote: true, Retrain: retrain}).Sync(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.Build.Embedded != wantEmbedded {
			t.Errorf("%s: embedded %d (cached %d), want %d", name, r.Build.Embedded, r.Build.Cached, wantEmbedded)
		}
	}
	sync("first build", false, 1200)
	recs[7].Text += " It moved back the next day."
	writeFile(t, src, jsonlLines(t, recs...))
	sync("a sync of one edit", false, 1)
	sync("a retrained space", true, 0)

	writeFile(t, src, jsonlLines(t, recs[:100]...))
	sync("a retrained space of a tenth of the text", true, 0)
	writeFile(t, src, jsonlLines(t, recs...))
	sync("the rest back, retrained", true, 1100)
}
