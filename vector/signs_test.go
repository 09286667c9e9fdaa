package vector

import (
	"math/rand"
	"slices"
	"testing"
)

// TestSignPrefilter: above signMinDocs a search goes through the sign
// prefilter and still finds the true neighbours (against the exact scan);
// a filter is honoured before the prefilter keeps anything; below the
// threshold, and for Exact, every vector is scanned. Prepare computes the
// bits before any search, once per segment: an index that shares a
// segment with an earlier one reuses its bits.
func TestSignPrefilter(t *testing.T) {
	const n, dim = signMinDocs + 5000, 64
	s := clustered(t, n, dim, 7)
	q := TrainQuantizer(s.data, dim)
	ix, err := NewIndex(Space{Quantizer: q}, []*Codes{codesOf(t, s, q, 0, n/2), codesOf(t, s, q, n/2, n)}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ix.Approximate() || ix.Exact().Approximate() {
		t.Fatalf("approximate: %v, exact copy: %v", ix.Approximate(), ix.Exact().Approximate())
	}
	if ix.Prepare(); ix.segs[0].signBits == nil || ix.segs[1].signBits == nil {
		t.Fatal("Prepare left the sign bits to the first search")
	}
	shared, added := ix.segs[1], codesOf(t, s, q, 0, 100)
	next, err := NewIndex(Space{Quantizer: q}, []*Codes{ix.segs[0], shared, added}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := &shared.signBits[0]
	if next.Prepare(); &shared.signBits[0] != before || added.signBits == nil {
		t.Error("a shared segment computed its bits again, or a new one did not")
	}
	exact := ix.Exact()
	rng := rand.New(rand.NewSource(3))
	var found, want int
	for range 50 {
		// A query between neighbours, as a typed query is.
		a, b := s.Row(rng.Intn(n)), s.Row(rng.Intn(n))
		v := make([]float32, dim)
		for j := range v {
			v[j] = a[j] + 0.3*b[j]
		}
		truth := docs(t, exact, v, 10, nil)
		got := docs(t, ix, v, 10, nil)
		for _, d := range got {
			if slices.Contains(truth, d) {
				found++
			}
		}
		want += len(truth)

		even := func(d int) bool { return d%2 == 0 }
		for _, d := range docs(t, ix, v, 10, even) {
			if d%2 != 0 {
				t.Fatalf("the filter let document %d through", d)
			}
		}
	}
	if r := float64(found) / float64(want); r < 0.9 {
		t.Errorf("recall@10 through the prefilter %.3f, want at least 0.9", r)
	} else {
		t.Logf("recall@10 through the prefilter: %.3f", r)
	}

	small, err := NewIndex(Space{Quantizer: q}, []*Codes{codesOf(t, s, q, 0, signMinDocs-1)}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if small.Approximate() {
		t.Error("a small index does not scan every vector")
	}
}

// TestNearestKeepsTheNearest: the prefilter keeps every document nearer
// than its cut-off and exactly keep documents in all, across segments.
func TestNearestKeepsTheNearest(t *testing.T) {
	const dim = 64
	var segs []*Codes
	for range 2 {
		c := &Codes{rows: 50, dim: dim, data: make([]int8, 50*dim)}
		segs = append(segs, c)
	}
	for d := range 100 {
		// Document d has d%10 components above zero: distance d%10 from a
		// query whose bits are all 0.
		row := segs[d/50].Row(d % 50)
		for j := range d % 10 {
			row[j] = int8(1 + j)
		}
		row[dim-1] = -5
	}
	ix, err := NewIndex(Space{Quantizer: Quantizer{Scale: make([]float32, dim)}}, segs, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := make([]float32, dim)
	got := ix.nearest(q, 25, nil)
	if len(got) != 25 {
		t.Fatalf("kept %d, want 25", len(got))
	}
	for _, d := range got {
		if d%10 > 2 {
			t.Errorf("kept document %d at distance %d; 30 documents are nearer than 3", d, d%10)
		}
	}
	if got := ix.nearest(q, 500, func(d int) bool { return d < 7 || d == 60 }); !slices.Equal(got, []int{0, 1, 2, 3, 4, 5, 6, 60}) {
		t.Errorf("with 8 documents accepted, kept %v", got)
	}
}

// TestSignBits: the branch-free bits are code > 0, at every position of
// a dimension that is not a multiple of 64, for the ends of the code range.
func TestSignBits(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	const dim = 150
	for range 200 {
		codes := make([]int8, dim)
		for j := range codes {
			codes[j] = int8([]int{-128, -127, -1, 0, 1, 127, rng.Intn(256) - 128}[rng.Intn(7)])
		}
		got := make([]uint64, signWords(dim))
		signBits(codes, got)
		for j, c := range codes {
			if set := got[j/64]&(1<<(j%64)) != 0; set != (c > 0) {
				t.Fatalf("code %d: bit %v", c, set)
			}
		}
		if got[2]>>(dim-128) != 0 {
			t.Fatalf("bits beyond the dimension set: %b", got[2])
		}
	}
}

// BenchmarkSigns: a segment's first prefiltered search (or Prepare)
// computes every vector's sign bits.
func BenchmarkSigns(b *testing.B) {
	const n, dim = 100_000, 384
	rng := rand.New(rand.NewSource(1))
	data := make([]int8, n*dim)
	for i := range data {
		data[i] = int8(rng.Intn(255) - 127)
	}
	b.ResetTimer()
	for range b.N {
		(&Codes{dim: dim, rows: n, data: data}).signs()
	}
}
