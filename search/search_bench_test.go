package search_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/bench"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/search"
)

// benchCorpus indexes novactl bench's corpus of n records (seed 1) into a
// home under b's temporary directory and loads its generation as novad
// does: the engine's benchmarks time the same records and queries as the
// bench's in-process "nova" system.
func benchCorpus(b testing.TB, n int) (*bench.Corpus, *generation.Generation) {
	b.Helper()
	dir := b.TempDir()
	corpus := bench.NewCorpus(bench.CorpusOptions{Records: n, Seed: 1, ChineseShare: bench.DefaultChineseShare})
	src := filepath.Join(dir, "corpus.jsonl")
	f, err := os.Create(src)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := corpus.WriteJSONL(f); err != nil {
		b.Fatal(err)
	}
	f.Close()
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: filepath.Join(dir, "home")}
	cfg.Sources = []config.Source{{Name: "corpus", Kind: config.KindJSONL, Path: src}}
	if _, err := index.New(cfg, index.Options{NoRemote: true}).Sync(context.Background()); err != nil {
		b.Fatal(err)
	}
	_, g, err := index.OpenActive(context.Background(), cfg.Home, lexical.NewAnalyzer())
	if err != nil {
		b.Fatal(err)
	}
	return corpus, g
}

// BenchmarkSearch times one search of each of novactl bench's query kinds
// through the default engine, in process: what a search costs beyond its
// two channels (planning, passes, fusion, the levers, the gate and the
// envelope) is what this shows at 10 000 records. One op is one query;
// -benchmem gives the allocations of one. NOVA_BENCH_LARGE=1 for 100 000
// records:
//
//	go test -run '^$' -bench 'Search/' -benchmem -cpuprofile cpu.out ./search
func BenchmarkSearch(b *testing.B) {
	n := 10_000
	if os.Getenv("NOVA_BENCH_LARGE") != "" {
		n = 100_000
	}
	corpus, g := benchCorpus(b, n)
	e := search.New(search.ConfigFor(config.Defaults().Retrieval), lexical.NewAnalyzer())
	snap := &search.Snapshot{Gen: g, Query: g.Model}
	queries := corpus.Queries(50, 1)
	for _, kind := range bench.QueryKinds {
		var reqs []api.SearchRequest
		for _, q := range queries {
			if q.Kind == kind {
				reqs = append(reqs, api.SearchRequest{Query: q.Text, TopK: 10,
					Filters: api.Filters{Project: q.Project, DateFrom: q.DateFrom, DateTo: q.DateTo}})
			}
		}
		b.Run(kind, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.Search(ctx, snap, reqs[i%len(reqs)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
