package vector

import "math/rand"

// Recall measures recall@k of search (an approximate search returning
// document numbers, best first) against exact search over ref: the share
// of each query's true k nearest that search also returns.
func Recall(ref *Store, search func(q []float32, k int) []int, queries [][]float32, k int) float64 {
	found, total := 0, 0
	for _, q := range queries {
		exact, _ := ref.Search(q, k, nil)
		want := make(map[int]bool, len(exact))
		for _, h := range exact {
			want[h.Doc] = true
		}
		for _, d := range search(q, k) {
			if want[d] {
				found++
			}
		}
		total += len(exact)
	}
	if total == 0 {
		return 0
	}
	return float64(found) / float64(total)
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
