// Package vector is Nova's dense channel. A generation's vectors are
// stored as int8 codes (one scale per dimension, Quantizer) in one codes
// file per segment, read in place from a memory mapping; Index searches
// them with int8 arithmetic and re-scores the best candidates exactly.
// Large generations add an inverted-file index (Cells, Lists): a search
// scans only the vectors of the cells nearest the query, with the number
// of cells chosen at build time by a measured recall check. Store is the
// exact float32 reference those checks measure against; HNSW is the
// github.com/coder/hnsw graph the benchmarks compare with.
package vector

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/nova-recall/nova/topk"
)

// Store holds n float32 vectors of dimension dim, row-major. It is immutable and
// safe for concurrent use.
type Store struct {
	dim  int
	data []float32
}

// NewStore wraps data (n*dim values, each row unit length or zero).
func NewStore(dim int, data []float32) (*Store, error) {
	if dim <= 0 || len(data)%dim != 0 {
		return nil, fmt.Errorf("vector store: %d values do not form rows of %d", len(data), dim)
	}
	return &Store{dim: dim, data: data}, nil
}

// Dim is the vector dimension.
func (s *Store) Dim() int { return s.dim }

// Len is the number of vectors.
func (s *Store) Len() int { return len(s.data) / s.dim }

// Row returns vector i (do not modify).
func (s *Store) Row(i int) []float32 { return s.data[i*s.dim : (i+1)*s.dim] }

// Dot returns the dot product of q with vector i.
func (s *Store) Dot(q []float32, i int) float32 { return dot(q, s.Row(i)) }

func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// parallelMin is the store size above which the scan is split across
// cores.
const parallelMin = 16_384

// Search returns the k vectors with the highest dot product with q, best
// first, ties by index, considering only rows accept allows (nil: all).
// It is exact.
func (s *Store) Search(q []float32, k int, accept func(int) bool) ([]Hit, error) {
	if len(q) != s.dim {
		return nil, ErrDimension
	}
	n := s.Len()
	if k <= 0 || n == 0 {
		return nil, nil
	}
	workers := 1
	if n >= parallelMin {
		workers = min(runtime.GOMAXPROCS(0), 8)
	}
	if workers == 1 {
		return s.scan(q, k, 0, n, accept).Sorted(), nil
	}
	parts := make([]*topk.Heap[Hit], workers)
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min(n, (w+1)*chunk)
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[w] = s.scan(q, k, lo, hi, accept)
		}()
	}
	wg.Wait()
	best := topk.New(k, better)
	for _, p := range parts {
		for _, h := range p.Items() {
			best.Push(h)
		}
	}
	return best.Sorted(), nil
}

func (s *Store) scan(q []float32, k, lo, hi int, accept func(int) bool) *topk.Heap[Hit] {
	h := topk.New(k, better)
	for i := lo; i < hi; i++ {
		if accept != nil && !accept(i) {
			continue
		}
		h.Push(Hit{Doc: i, Score: dot(q, s.data[i*s.dim:(i+1)*s.dim])})
	}
	return h
}

func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Doc < b.Doc
}
