package embedding_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/daemon"
	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/secrets"
)

// remoteNovad runs a novad for an openai home (the fake endpoint srv) on
// free loopback ports until the test ends, and returns a Remote embedder
// for its /encode.
func remoteNovad(t *testing.T, srv *fakeServer) *embedding.Remote {
	t.Helper()
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: filepath.Join(t.TempDir(), "home")}
	cfg.Server.Port, cfg.Facade.Port = 0, 0
	cfg.Embedding = config.Embedding{Provider: config.ProviderOpenAI, Endpoint: srv.URL + "/v1", Model: "fake", Dimension: srv.dim, BatchSize: 64, TimeoutSeconds: 30}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	d, err := daemon.New(daemon.Options{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready, stopped := make(chan struct{}), make(chan error, 1)
	go func() { stopped <- d.Run(ctx, ready) }()
	t.Cleanup(func() {
		cancel()
		if err := <-stopped; err != nil {
			t.Error(err)
		}
	})
	<-ready
	tok, err := secrets.ReadToken(cfg.Home.TokenFile())
	if err != nil {
		t.Fatal(err)
	}
	return embedding.NewRemote("http://"+d.DirectAddr().String(), tok, api.EmbeddingProfile{Provider: "openai", Model: "fake", Dimension: srv.dim})
}

// TestRemote_largeTexts: a build embedding through novad sends texts in
// requests /encode takes, however long they are. 256 texts went in one
// request: chunks of a large index.chunkMaxChars in CJK (three bytes a
// character) or markup (JSON writes each <, > and & in six) made it
// larger than /encode's 8 MB, and novad refused every batch (413).
func TestRemote_largeTexts(t *testing.T) {
	srv := newFakeServer(t, 8)
	r := remoteNovad(t, srv)
	in := make([]string, 300)
	for i := range in {
		in[i] = strings.Repeat("部署", 7000) + strings.Repeat("<b>", i%7) // 42 KB each
	}
	vecs, err := r.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(in) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(in))
	}
	for i, v := range vecs {
		want := fakeVector(in[i], 8)
		embedding.Normalize(want)
		if !slices.Equal(v, want) {
			t.Fatalf("vector %d is not text %d's", i, i)
		}
	}
}
