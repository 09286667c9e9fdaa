package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/search"
)

// Systems compared in one run.
const (
	// SystemNova is Nova's full multi-pass pipeline (search.Engine) in
	// process, default configuration.
	SystemNova = "nova"
	// SystemBM25 is Nova's BM25 index alone (the chunk's own text, the
	// query's analyzer terms), no planning, fusion or evidence layer.
	SystemBM25 = "bm25"
	// SystemVector is the dense channel alone: embed the query with the
	// generation's builtin model and search its vectors as novad does
	// (an int8 scan, or the inverted file when the generation has one).
	SystemVector = "vector"
	// SystemFTS5 is SQLite FTS5 bm25 over the same records.
	SystemFTS5 = "fts5"
	// SystemNovad is the real novad answering POST
	// /api/rag/external/search on loopback, one client.
	SystemNovad = "novad-http"
)

// DefaultSystems are the systems a run compares unless told otherwise:
// every system, in report order.
var DefaultSystems = systemNames(systems)

// system is one compared search system. It searches either Nova's loaded
// generation (overGeneration) or an index of its own that it builds from
// the corpus file once the generation is released (overCorpus), so that
// its build and memory are measured apart from Nova's.
type system struct {
	name string
	// overGeneration returns the search function, or why the system
	// cannot run on this generation.
	overGeneration func(e genEnv) (fn searchFunc, skip string)
	// overCorpus builds the system's index, records its build in sr and
	// returns the search function and what releases the index.
	overCorpus func(ctx context.Context, e corpusEnv, sr *SizeReport) (fn searchFunc, release func(), err error)
}

// genEnv is what the systems over Nova's generation share at one size.
type genEnv struct {
	g        *generation.Generation
	analyzer *lexical.Analyzer
	engine   *search.Engine
	snap     *search.Snapshot
	k        int
}

// corpusEnv is what a system that indexes the corpus itself is given.
type corpusEnv struct {
	// dir is the size's work directory; keep says whether it outlives
	// the run.
	dir        string
	keep       bool
	corpusPath string
	// records is the corpus size, for progress.
	records int
	k       int
	say     func(string, ...any)
}

// systems lists every system this binary can time, in report order.
var systems = append([]system{
	{name: SystemNova, overGeneration: func(e genEnv) (searchFunc, string) {
		return novaSearch(e.engine, e.snap, e.k), ""
	}},
	{name: SystemBM25, overGeneration: func(e genEnv) (searchFunc, string) {
		return bm25Search(e.g, e.analyzer, e.k), ""
	}},
	{name: SystemVector, overGeneration: func(e genEnv) (searchFunc, string) {
		if e.g.Model == nil {
			return nil, "the generation has no builtin model"
		}
		return vectorSearch(e.g, e.k), ""
	}},
}, corpusSystems...)

func systemNames(ss []system) []string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = s.name
	}
	return names
}

func lookupSystem(name string) (system, bool) {
	i := slices.IndexFunc(systems, func(s system) bool { return s.name == name })
	if i < 0 {
		return system{}, false
	}
	return systems[i], true
}

// CheckSystems reports the first name that is not a system a run can
// time, or that is named twice (it would be timed twice, into two rows
// of one name).
func CheckSystems(names []string) error {
	for i, s := range names {
		if _, ok := lookupSystem(s); !ok {
			return fmt.Errorf("unknown system %q (known: %s)", s, strings.Join(DefaultSystems, ", "))
		}
		if slices.Contains(names[:i], s) {
			return fmt.Errorf("system %q is named twice", s)
		}
	}
	return nil
}

// outcome is what one search returned.
type outcome struct {
	ids []string // record ids, best first
	// passes is the number of retrieval passes Nova ran (0: not Nova).
	passes int
}

type searchFunc func(ctx context.Context, q Query) (outcome, error)

func filtersOf(q Query) api.Filters {
	return api.Filters{Project: q.Project, DateFrom: q.DateFrom, DateTo: q.DateTo}
}

func novaSearch(engine *search.Engine, snap *search.Snapshot, k int) searchFunc {
	return func(ctx context.Context, q Query) (outcome, error) {
		ctx, cancel := context.WithTimeout(ctx, api.MaxServerBudgetMs*time.Millisecond)
		defer cancel()
		resp, err := engine.Search(ctx, snap, api.SearchRequest{Query: q.Text, TopK: k, Filters: filtersOf(q)})
		if err != nil {
			return outcome{}, err
		}
		return envelopeOutcome(resp), nil
	}
}

func envelopeOutcome(resp *api.SearchResponse) outcome {
	o := outcome{ids: make([]string, len(resp.Results)), passes: len(resp.RetrievalController.PassTelemetry)}
	for i, r := range resp.Results {
		o.ids[i] = r.Provenance.SourceID
	}
	return o
}

// accept returns the hard filter of q over g's chunks (nil: none).
func accept(g *generation.Generation, q Query) func(int) bool {
	if !q.Filtered() {
		return nil
	}
	// The facet columns, as the engine filters: decoding every chunk
	// would time the bench, not the search.
	return g.Filter(api.Filters{Project: q.Project, DateFrom: q.DateFrom, DateTo: q.DateTo}, nil)
}

func bm25Search(g *generation.Generation, analyzer *lexical.Analyzer, k int) searchFunc {
	return func(_ context.Context, q Query) (outcome, error) {
		hits := g.SearchText(g.Resolve(analyzer.Terms(q.Text)), k, accept(g, q))
		o := outcome{ids: make([]string, len(hits))}
		for i, h := range hits {
			o.ids[i] = g.Chunk(h.Doc).SourceID
		}
		return o, nil
	}
}

func vectorSearch(g *generation.Generation, k int) searchFunc {
	return func(ctx context.Context, q Query) (outcome, error) {
		vecs, err := g.Model.Embed(ctx, []string{q.Text})
		if err != nil {
			return outcome{}, err
		}
		hits, err := g.SearchVectors(vecs[0], k, accept(g, q))
		if err != nil {
			return outcome{}, err
		}
		o := outcome{ids: make([]string, 0, len(hits))}
		for _, h := range hits {
			o.ids = append(o.ids, g.Chunk(h.Doc).SourceID)
		}
		return o, nil
	}
}
