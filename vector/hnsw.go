package vector

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand"

	"github.com/coder/hnsw"
)

// HNSW is an approximate index over a Store built with github.com/coder/hnsw.
// It is immutable once built and safe for concurrent searches.
type HNSW struct {
	g *hnsw.Graph[uint32]
}

// HNSWOptions tune the graph.
type HNSWOptions struct {
	M              int   // neighbours per node; default 16
	EfConstruction int   // candidate list size while inserting; default EfSearch
	EfSearch       int   // candidate list size of a search; default 200
	Seed           int64 // the graph's RNG seed, so builds are reproducible
}

// BuildHNSW builds a graph over rows of s (all rows when rows is nil).
func BuildHNSW(s *Store, rows []int, o HNSWOptions) *HNSW {
	if o.M <= 0 {
		o.M = 16
	}
	if o.EfSearch <= 0 {
		o.EfSearch = 200
	}
	if o.EfConstruction <= 0 {
		o.EfConstruction = o.EfSearch
	}
	g := hnsw.NewGraph[uint32]()
	// coder/hnsw inserts with its search list size: efConstruction is
	// EfSearch while adding.
	g.M, g.EfSearch = o.M, o.EfConstruction
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
	g.EfSearch = o.EfSearch
	return &HNSW{g: g}
}

// Candidates returns up to n rows near q, best first.
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

// SetEfSearch sets the candidate list size of later searches (not safe
// during searches).
func (h *HNSW) SetEfSearch(ef int) { h.g.EfSearch = ef }
