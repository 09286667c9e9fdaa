package vector

import (
	"bytes"
	"math"
	"math/rand"
	"testing"
)

func randomStore(t testing.TB, n, dim int, seed int64) *Store {
	rng := rand.New(rand.NewSource(seed))
	data := make([]float32, n*dim)
	for i := 0; i < n; i++ {
		v := data[i*dim : (i+1)*dim]
		var s float64
		for j := range v {
			v[j] = float32(rng.NormFloat64())
			s += float64(v[j] * v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(s))
		}
	}
	st, err := NewStore(dim, data)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// bruteForce is the reference: every row scored, sorted.
func bruteForce(s *Store, q []float32, k int, accept func(int) bool) []int {
	type p struct {
		i int
		v float64
	}
	var all []p
	for i := 0; i < s.Len(); i++ {
		if accept != nil && !accept(i) {
			continue
		}
		var d float64
		for j, x := range q {
			d += float64(x) * float64(s.Row(i)[j])
		}
		all = append(all, p{i, d})
	}
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && (all[j].v > all[j-1].v || (all[j].v == all[j-1].v && all[j].i < all[j-1].i)); j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	var out []int
	for i := 0; i < k && i < len(all); i++ {
		out = append(out, all[i].i)
	}
	return out
}

func TestSearchIsExact(t *testing.T) {
	for _, n := range []int{50, 20_000} { // serial and parallel scans
		s := randomStore(t, n, 24, int64(n))
		q := s.Row(7)
		even := func(i int) bool { return i%2 == 0 }
		for _, accept := range []func(int) bool{nil, even} {
			hits, err := s.Search(q, 10, accept)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteForce(s, q, 10, accept)
			for i := range want {
				if hits[i].Doc != want[i] {
					t.Fatalf("n=%d rank %d: got %d want %d", n, i, hits[i].Doc, want[i])
				}
			}
		}
	}
	if _, err := randomStore(t, 10, 4, 1).Search(make([]float32, 3), 5, nil); err != ErrDimension {
		t.Errorf("wrong dimension: %v", err)
	}
}

// TestHNSWRecallIsMeasured records what coder/hnsw v0.6.1 achieves: the
// build-time check exists because it falls far short of 0.95 here.
func TestHNSWRecallIsMeasured(t *testing.T) {
	s := randomStore(t, 3000, 32, 11)
	h := BuildHNSW(s, nil, HNSWOptions{Seed: 1})
	r := Recall(s, func(q []float32, k int) []int {
		cands := h.Candidates(q, max(k*40, 200))
		return rerank(s, q, cands, k)
	}, RowQueries(s, 100, 2), 10)
	t.Logf("coder/hnsw recall@10 with exact re-ranking on 3000 random 32-d vectors: %.3f", r)
	if r < 0 || r > 1 {
		t.Fatalf("recall %v", r)
	}
	var buf bytes.Buffer
	if _, err := h.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	h2, err := ReadHNSW(&buf, 32)
	if err != nil {
		t.Fatal(err)
	}
	if len(h2.Candidates(s.Row(1), 5)) == 0 {
		t.Error("imported graph returns nothing")
	}
	if _, err := ReadHNSW(bytes.NewReader([]byte("junk")), 32); err == nil {
		t.Error("junk accepted")
	}
}

// rerank orders cands by exact dot product with q and keeps k.
func rerank(s *Store, q []float32, cands []int, k int) []int {
	type p struct {
		d int
		v float32
	}
	var all []p
	for _, d := range cands {
		all = append(all, p{d, s.Dot(q, d)})
	}
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && all[j].v > all[j-1].v; j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	var out []int
	for i := 0; i < k && i < len(all); i++ {
		out = append(out, all[i].d)
	}
	return out
}
