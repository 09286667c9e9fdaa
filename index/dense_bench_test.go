package index_test

import (
	"cmp"
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/vector"
)

// BenchmarkDenseMethods compares the ways the dense channel could find a
// query's nearest chunks, over the vectors of a real generation (the one
// active in NOVA_BENCH_HOME, e.g. a home BenchmarkSync100k or
// "novactl bench --keep" built) and queries embedded from eight words of
// random chunks:
//
//	f32-scan     every vector decoded to float32 and scanned, as before
//	             format v2 (the reference for recall@10)
//	int8-scan    every vector's int8 codes, the top re-scored (small generations)
//	approximate  the generation's own search when it is approximate: its
//	             inverted file, or the sign prefilter
//	hnsw-*       coder/hnsw over the float32 vectors, M 16, efConstruction
//	             100: at two efSearch values, and asked for 100 or 400
//	             candidates re-scored exactly; built only up to
//	             NOVA_BENCH_HNSW_MAX vectors (default 200 000)
//
// Each reports ns/op per query, recall@10 against f32-scan, and the
// build's seconds and the heap it added. Run it once per size:
//
//	NOVA_BENCH_HOME=/tmp/h100k go test -run '^$' -bench BenchmarkDenseMethods -benchtime=400x ./index/
func BenchmarkDenseMethods(b *testing.B) {
	root := os.Getenv("NOVA_BENCH_HOME")
	if root == "" {
		b.Skip("set NOVA_BENCH_HOME to a home with an active generation")
	}
	_, g, err := index.OpenActive(context.Background(), paths.Home{Root: root}, lexical.NewAnalyzer())
	if err != nil {
		b.Fatal(err)
	}
	if g.Model == nil {
		b.Skip("the generation has no builtin model")
	}
	n := g.Len()
	dim := len(g.Vector(0))
	b.Logf("%d vectors of %d dimensions; generation ANN %+v", n, dim, g.Meta.ANN)

	queries := denseQueries(b, g, 200)
	var f32 *vector.Store
	build := func(name string, fn func()) {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		t0 := time.Now()
		fn()
		took := time.Since(t0)
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.Logf("%s: built in %s, heap +%.1f MB", name, took.Round(time.Millisecond), float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20))
	}
	build("f32-scan", func() {
		data := make([]float32, 0, n*dim)
		for d := range n {
			data = append(data, g.Vector(d)...)
		}
		f32, err = vector.NewStore(dim, data)
		if err != nil {
			b.Fatal(err)
		}
	})
	truth := make([]map[int]bool, len(queries))
	for i, q := range queries {
		hits, _ := f32.Search(q, 10, nil)
		truth[i] = map[int]bool{}
		for _, h := range hits {
			truth[i][h.Doc] = true
		}
	}
	run := func(name string, search func(q []float32) []int) {
		var found, want int
		for i, q := range queries {
			for _, d := range search(q) {
				if truth[i][d] {
					found++
				}
			}
			want += len(truth[i])
		}
		b.Run(name, func(b *testing.B) {
			for i := range b.N {
				search(queries[i%len(queries)])
			}
			b.ReportMetric(float64(found)/float64(max(want, 1)), "recall@10")
		})
	}
	docs := func(hs []vector.Hit, err error) []int {
		if err != nil {
			b.Fatal(err)
		}
		out := make([]int, len(hs))
		for i, h := range hs {
			out[i] = h.Doc
		}
		return out
	}
	run("f32-scan", func(q []float32) []int { return docs(f32.Search(q, 10, nil)) })
	run("int8-scan", func(q []float32) []int { return docs(g.SearchVectorsExact(q, 10, nil)) })
	if g.HasANN() {
		// The generation's own search: its inverted file, or the sign
		// prefilter.
		run("approximate", func(q []float32) []int { return docs(g.SearchVectors(q, 10, nil)) })
	}

	hnswMax := 200_000
	if v, err := strconv.Atoi(os.Getenv("NOVA_BENCH_HNSW_MAX")); err == nil {
		hnswMax = v
	}
	if n > hnswMax {
		b.Logf("hnsw: not built over %d vectors (NOVA_BENCH_HNSW_MAX %d)", n, hnswMax)
		return
	}
	var h *vector.HNSW
	build("hnsw M16 efConstruction100", func() {
		h = vector.BuildHNSW(f32, nil, vector.HNSWOptions{M: 16, EfConstruction: 100, EfSearch: 64, Seed: 1})
	})
	// coder/hnsw keeps only k results while it walks layer 0 and stops at
	// the first node that improves on none of them, so efSearch hardly
	// matters: asking for more candidates and re-scoring them exactly is
	// the lever that does.
	for _, ef := range []int{64, 200} {
		h.SetEfSearch(ef)
		run("hnsw-ef"+strconv.Itoa(ef), func(q []float32) []int { return h.Candidates(q, 10) })
	}
	for _, wide := range []int{100, 400} {
		run("hnsw-wide"+strconv.Itoa(wide)+"-rescored", func(q []float32) []int {
			return rescore(f32, q, h.Candidates(q, wide), 10)
		})
	}
}

// rescore returns the k of cands nearest q by exact dot product.
func rescore(s *vector.Store, q []float32, cands []int, k int) []int {
	slices.SortFunc(cands, func(a, b int) int { return cmp.Compare(s.Dot(q, b), s.Dot(q, a)) })
	return cands[:min(k, len(cands))]
}

// denseQueries embeds eight words of random chunks with g's model.
func denseQueries(b *testing.B, g *generation.Generation, n int) [][]float32 {
	rng := rand.New(rand.NewPCG(7, 7))
	texts := make([]string, 0, n)
	for len(texts) < n {
		words := strings.Fields(g.Chunk(rng.IntN(g.Len())).Text)
		if len(words) < 4 {
			continue
		}
		start := rng.IntN(max(len(words)-8, 1))
		texts = append(texts, strings.Join(words[start:min(start+8, len(words))], " "))
	}
	vs, err := g.Model.Embed(context.Background(), texts)
	if err != nil {
		b.Fatal(err)
	}
	return vs
}
