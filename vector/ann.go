package vector

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"sort"

	"github.com/coder/hnsw"

	"github.com/nova-recall/nova/topk"
)

// Neighbors proposes candidate rows for a query: an approximate index.
// Store only uses it to shortlist candidates, which it then re-ranks by
// exact dot product.
type Neighbors interface {
	Candidates(q []float32, n int) []int
}

// ANNMinRecall is the recall@10 (of the accelerated search, re-ranking
// included, against exact search) an approximate index must reach at build
// time before a generation may use it.
const ANNMinRecall = 0.95

// annCandidates is how many candidates the index proposes per result.
const annCandidates = 40

// WithANN returns a copy of s that shortlists with n for unfiltered
// searches. Filtered searches stay exact: a shortlist cut before the
// filter could miss every row the filter allows.
func (s *Store) WithANN(n Neighbors) *Store {
	cp := *s
	cp.ann = n
	return &cp
}

// HasANN reports whether s shortlists with an approximate index.
func (s *Store) HasANN() bool { return s.ann != nil }

// searchANN shortlists with the index and re-ranks exactly.
func (s *Store) searchANN(q []float32, k int) []Hit {
	cands := s.ann.Candidates(q, max(k*annCandidates, 200))
	best := topk.New(k, better)
	seen := make(map[int]bool, len(cands))
	for _, d := range cands {
		if d < 0 || d >= s.Len() || seen[d] {
			continue
		}
		seen[d] = true
		best.Push(Hit{Doc: d, Score: dot(q, s.Row(d))})
	}
	return best.Sorted()
}

// HNSW is an approximate index over a Store built with github.com/coder/hnsw.
// It is immutable once built and safe for concurrent searches.
type HNSW struct {
	g *hnsw.Graph[uint32]
}

// HNSWOptions tune the graph.
type HNSWOptions struct {
	M        int   // neighbours per node; default 16
	EfSearch int   // candidate list size; default 200
	Seed     int64 // the graph's RNG seed, so builds are reproducible
}

// BuildHNSW builds a graph over rows of s (all rows when rows is nil).
func BuildHNSW(s *Store, rows []int, o HNSWOptions) *HNSW {
	if o.M <= 0 {
		o.M = 16
	}
	if o.EfSearch <= 0 {
		o.EfSearch = 200
	}
	g := hnsw.NewGraph[uint32]()
	g.M, g.EfSearch = o.M, o.EfSearch
	g.Rng = rand.New(rand.NewSource(o.Seed))
	if rows == nil {
		for i := 0; i < s.Len(); i++ {
			g.Add(hnsw.MakeNode(uint32(i), s.Row(i)))
		}
	} else {
		for _, i := range rows {
			g.Add(hnsw.MakeNode(uint32(i), s.Row(i)))
		}
	}
	return &HNSW{g: g}
}

// Candidates implements Neighbors.
func (h *HNSW) Candidates(q []float32, n int) []int {
	if h.g.Len() == 0 || len(q) != h.g.Dims() {
		return nil
	}
	nodes := h.g.Search(q, n)
	out := make([]int, len(nodes))
	for i, nd := range nodes {
		out[i] = int(nd.Key)
	}
	return out
}

// WriteTo serialises the graph.
func (h *HNSW) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	err := h.g.Export(cw)
	return cw.n, err
}

// ReadHNSW loads a graph written by WriteTo, for vectors of dimension dim.
// It reads from r; it never opens (or creates) a file by name.
func ReadHNSW(r io.Reader, dim int) (*HNSW, error) {
	g := hnsw.NewGraph[uint32]()
	if err := g.Import(bufio.NewReader(r)); err != nil {
		return nil, fmt.Errorf("read hnsw graph: %w", err)
	}
	if g.Len() > 0 && g.Dims() != dim {
		return nil, errors.New("read hnsw graph: dimension does not match the vectors")
	}
	return &HNSW{g: g}, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Recall measures recall@k of the accelerated search (shortlist by n,
// exact re-rank) against exact search, with queries taken from rows of s
// (a stored vector is a realistic query of the same distribution). rows
// restricts both the queries and the exact ground truth to a subset (nil:
// all rows).
func Recall(s *Store, n Neighbors, rows []int, queries, k int, seed int64) float64 {
	if s.Len() == 0 || queries <= 0 {
		return 0
	}
	rng := rand.New(rand.NewSource(seed))
	pick := func() int {
		if rows != nil {
			return rows[rng.Intn(len(rows))]
		}
		return rng.Intn(s.Len())
	}
	var allow func(int) bool
	if rows != nil {
		in := make(map[int]bool, len(rows))
		for _, r := range rows {
			in[r] = true
		}
		allow = func(i int) bool { return in[i] }
	}
	acc := s.WithANN(n)
	found, total := 0, 0
	for i := 0; i < queries; i++ {
		q := s.Row(pick())
		exact, _ := s.Search(q, k, allow)
		approx := acc.searchANN(q, k)
		want := make(map[int]bool, len(exact))
		for _, h := range exact {
			want[h.Doc] = true
		}
		for _, h := range approx {
			if want[h.Doc] {
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

// SampleRows returns up to n distinct row numbers of s, chosen with seed,
// sorted.
func SampleRows(s *Store, n int, seed int64) []int {
	if n >= s.Len() {
		return nil
	}
	rng := rand.New(rand.NewSource(seed))
	rows := rng.Perm(s.Len())[:n]
	sort.Ints(rows)
	return rows
}
