package vector

import (
	"math/rand"

	"github.com/nova-recall/nova/parallel"
)

// Recall measures recall@k of search (an approximate search returning
// document numbers, best first) against exact search over ref: the share
// of each query's true k nearest that search also returns.
func Recall(ref *Store, search func(q []float32, k int) []int, queries [][]float32, k int) float64 {
	return ExactNeighbours(ref, queries, k).Recall(search)
}

// Neighbours holds the exact k nearest vectors of each of a set of
// queries, found once so that several settings of an approximate search
// (a build tries probe counts one after another) are judged against the
// same answers without scanning the reference again for each.
type Neighbours struct {
	queries [][]float32
	k       int
	want    []map[int]bool
	total   int
}

// ExactNeighbours finds the exact k nearest rows of ref for each query,
// the queries split over the cores.
func ExactNeighbours(ref *Store, queries [][]float32, k int) *Neighbours {
	n := &Neighbours{queries: queries, k: k, want: make([]map[int]bool, len(queries))}
	parallel.For(len(queries), 8, func(i int) {
		exact, _ := ref.Search(queries[i], k, nil)
		want := make(map[int]bool, len(exact))
		for _, h := range exact {
			want[h.Doc] = true
		}
		n.want[i] = want
	})
	for _, w := range n.want {
		n.total += len(w)
	}
	return n
}

// Recall is the share of the queries' exact neighbours that search also
// returns among its first k.
func (n *Neighbours) Recall(search func(q []float32, k int) []int) float64 {
	if n.total == 0 {
		return 0
	}
	found := 0
	for i, q := range n.queries {
		for _, d := range search(q, n.k) {
			if n.want[i][d] {
				found++
			}
		}
	}
	return float64(found) / float64(n.total)
}

// RowQueries returns n rows of ref, chosen with seed, as queries: stored
// vectors are queries of the same distribution (each finds itself, so
// recall on them is optimistic next to short typed queries).
func RowQueries(ref *Store, n int, seed int64) [][]float32 {
	if ref.Len() == 0 {
		return nil
	}
	rng := rand.New(rand.NewSource(seed))
	out := make([][]float32, n)
	for i := range out {
		out[i] = ref.Row(rng.Intn(ref.Len()))
	}
	return out
}
