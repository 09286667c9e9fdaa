package search_test

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/internal/racebuild"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/search"
)

// largeAllocs is how many objects of over 32 KiB the program has
// allocated (the runtime's last size bucket).
func largeAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs-by-size:bytes"}}
	metrics.Read(s)
	h := s[0].Value.Float64Histogram()
	var n uint64
	for i, c := range h.Counts {
		if h.Buckets[i] >= 32<<10 {
			n += c
		}
	}
	return n
}

// TestSearchReusesCandidateLists: once a search has run, the next ones
// make almost no candidate list (each is tens of kilobytes of score components,
// novad collects at GOGC 50): the lists a search was lent come back when it
// returns. A list of a pass's candidates is the only object of over 32 KiB
// a search of these 3 000 records made. Skipped under -race, whose
// sync.Pool drops some of what it is given.
func TestSearchReusesCandidateLists(t *testing.T) {
	if racebuild.Enabled {
		t.Skip("sync.Pool drops items at random under -race")
	}
	corpus, g := benchCorpus(t, 3_000)
	e := search.New(search.ConfigFor(config.Defaults().Retrieval), lexical.NewAnalyzer())
	snap := &search.Snapshot{Gen: g, Query: g.Model}
	var reqs []api.SearchRequest
	for _, q := range corpus.Queries(20, 1) {
		reqs = append(reqs, api.SearchRequest{Query: q.Text, TopK: 10,
			Filters: api.Filters{Project: q.Project, DateFrom: q.DateFrom, DateTo: q.DateTo}})
	}
	ctx := context.Background()
	search1 := func() {
		for _, r := range reqs {
			if _, err := e.Search(ctx, snap, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	search1() // the snapshot's lazy state and the first lists
	// No collection empties the pool while the searches run.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.GC()
	search1()
	before := largeAllocs()
	search1()
	// A pooled list smaller than a pass needs is dropped and one made
	// (which list a search gets depends on the core it runs on), so a
	// few are: making every list anew was 197 for these searches.
	if n := largeAllocs() - before; n > uint64(len(reqs)/20) {
		t.Errorf("%d searches allocated %d objects of over 32 KiB; want at most %d once lists are reused", len(reqs), n, len(reqs)/20)
	}
}
