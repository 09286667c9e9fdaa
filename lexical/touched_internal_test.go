package lexical

import (
	"testing"

	"github.com/nova-recall/nova/internal/racebuild"
)

// TestSearchQuery_reusesItsDocumentList: the list of documents a search
// has scored is taken from a pool, not grown anew by each search (a
// common term touches thousands; its growth was a seventh of what a
// search allocated at 100 000 chunks).
func TestSearchQuery_reusesItsDocumentList(t *testing.T) {
	if racebuild.Enabled {
		t.Skip("the race detector drops a quarter of what a sync.Pool is given (make test runs this in its plain pass: PLAIN_PASS_LEXICAL)")
	}
	docs := make([][]string, 5000)
	for i := range docs {
		docs[i] = []string{"common", "word"}
		if i%7 == 0 {
			docs[i] = append(docs[i], "rare")
		}
	}
	ix := Build(docs, B)
	q := ix.Resolve([]string{"common", "rare"})
	ix.SearchQuery(q, 10, nil) // fills the pools
	allocs := testing.AllocsPerRun(20, func() { ix.SearchQuery(q, 10, nil) })
	t.Logf("%.1f allocations a search", allocs)
	if allocs > 5 {
		t.Errorf("a search allocates %.1f times; want at most 5 (its bounds, its heap and the sorted result)", allocs)
	}
}
