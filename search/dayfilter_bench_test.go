package search_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/bench"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/search"
)

// BenchmarkDateFilter times the benchmark corpus' filtered queries (a
// project and a date range) against the same queries with the project
// alone: the difference is what judging memories by their local day
// costs. Memories carry exact times, so those near a bound are judged by
// their day in Tokyo. "cold" searches a new snapshot each time (the first
// query after novad loads a generation); "warm" one snapshot throughout.
// "date-led" asks "what happened" with the same filters.
// 10 000 records; NOVA_BENCH_LARGE=1 for 100 000:
//
//	NOVA_BENCH_LARGE=1 go test -run '^$' -bench DateFilter -benchtime=20x ./search
func BenchmarkDateFilter(b *testing.B) {
	n := 10_000
	if os.Getenv("NOVA_BENCH_LARGE") != "" {
		n = 100_000
	}
	corpus, g := benchCorpus(b, n)
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		b.Skip("no time zone database:", err)
	}
	e := search.New(search.Config{HalfLifeDays: 7, Dense: true, Location: tokyo}, lexical.NewAnalyzer())
	var reqs []api.SearchRequest
	for _, q := range corpus.Queries(20, 1) {
		if q.Kind == bench.KindFiltered && q.DateFrom != "" {
			reqs = append(reqs, api.SearchRequest{Query: q.Text, TopK: 10,
				Filters: api.Filters{Project: q.Project, DateFrom: q.DateFrom, DateTo: q.DateTo}})
		}
	}
	if len(reqs) == 0 {
		b.Fatal("the corpus made no date-filtered query")
	}
	warm := &search.Snapshot{Gen: g, Query: g.Model}
	run := func(b *testing.B, dates, cold bool, query string) {
		ctx := context.Background()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			req := reqs[i%len(reqs)]
			if query != "" {
				req.Query = query
			}
			if !dates {
				req.Filters.DateFrom, req.Filters.DateTo = "", ""
			}
			snap := warm
			if cold {
				snap = &search.Snapshot{Gen: g, Query: g.Model}
			}
			if _, err := e.Search(ctx, snap, req); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("filter-only", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			e.DayFilterRefused(warm, reqs[i%len(reqs)].Filters)
		}
	})
	b.Run("project-only", func(b *testing.B) { run(b, false, false, "") })
	b.Run("dates/warm", func(b *testing.B) { run(b, true, false, "") })
	b.Run("dates/cold", func(b *testing.B) { run(b, true, true, "") })
	// The same filters with nothing else asked: every memory they keep
	// is a candidate, weighed by what it says (dateLed).
	b.Run("date-led/warm", func(b *testing.B) { run(b, true, false, "what happened") })
}
