package vector

import "testing"

// BenchmarkIndexSearch is one dense search of 10 000 vectors of 384
// dimensions for the 80 best, as a 10k search's pass asks: the int8 scan
// of every vector, the pick of the 320 best estimates and their exact
// re-scoring; "filtered" accepts every third vector.
//
//	go test -run '^$' -bench IndexSearch -benchmem ./vector/
func BenchmarkIndexSearch(b *testing.B) {
	const n, dim, k = 10_000, 384, 80
	s := clustered(b, n, dim, 3)
	q := TrainQuantizer(s.data, dim)
	ix, err := NewIndex(Space{Quantizer: q}, []*Codes{codesOf(b, s, q, 0, n)}, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	queries := RowQueries(s, 64, 5)
	for _, c := range []struct {
		name   string
		accept func(int) bool
	}{{"all", nil}, {"filtered", func(d int) bool { return d%3 == 0 }}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := range b.N {
				if _, err := ix.Search(queries[i%len(queries)], k, c.accept); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExactNeighbours is the exact answer a build's inverted-file
// check judges each probe count against: 200 queries over a sample of
// 20 000 vectors of 384 dimensions (index/space.go). It is found once per
// build; before, once per probe count tried (up to nine at 1M chunks).
//
//	go test -run '^$' -bench ExactNeighbours ./vector/
func BenchmarkExactNeighbours(b *testing.B) {
	const n, dim = 20_000, 384
	s := clustered(b, n, dim, 3)
	queries := RowQueries(s, 200, 5)
	for range b.N {
		ExactNeighbours(s, queries, 10)
	}
}
