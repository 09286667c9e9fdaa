package index_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestSync_embeddingCacheOutlivesSyncs: with an openai embedder, the
// vectors of text a sync did not touch stay in the cache, so a retrained
// space embeds only what changed; once a complete build into a new space
// no longer holds most of the cached text, the cache drops it.
func TestSync_embeddingCacheOutlivesSyncs(t *testing.T) {
	t.Parallel() // its own home and embeddings server; it mostly waits for its rewrites to settle
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	var recs []rec
	for i := range 1200 {
		recs = append(recs, rec{ID: fmt.Sprintf("r%d", i), Text: fmt.Sprintf("note %d: the deploy of service %d moved to port %d", i, i, 2000+i), Session: fmt.Sprintf("s%d", i)})
	}
	writeFile(t, src, jsonlLines(t, recs...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	cfg.Embedding.Provider, cfg.Embedding.Endpoint = config.ProviderOpenAI, novatest.FakeEmbeddings(t)
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
