package vector

import (
	"math/rand"
	"slices"
	"testing"
)

// TestSignPrefilter: above signMinDocs a search goes through the sign
// prefilter and still finds the true neighbours (against the exact scan);
// a filter is honoured before the prefilter keeps anything; below the
// threshold, and for Exact, every vector is scanned.
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
// than its cut-off and exactly keep documents in all.
func TestNearestKeepsTheNearest(t *testing.T) {
	s := &signs{words: 1, center: make([]float32, 64)}
	q := make([]float32, 64) // all bits 0
	for d := range 100 {
		// Document d has d%10 bits set: distance d%10 from q.
		s.bits = append(s.bits, uint64(1)<<(d%10)-1)
	}
	got := s.nearest(q, 100, 25, nil)
	if len(got) != 25 {
		t.Fatalf("kept %d, want 25", len(got))
	}
	for _, d := range got {
		if d%10 > 2 {
			t.Errorf("kept document %d at distance %d; 30 documents are nearer than 3", d, d%10)
		}
	}
	if got := s.nearest(q, 100, 500, func(d int) bool { return d < 7 }); len(got) != 7 {
		t.Errorf("with 7 documents accepted, kept %d", len(got))
	}
}
