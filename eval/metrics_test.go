package eval

import (
	"math"
	"slices"
	"testing"
)

func set(ids ...string) map[string]bool {
	m := map[string]bool{}
	for _, id := range ids {
		m[id] = true
	}
	return m
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// The expected values are worked out by hand in the comments.
func TestMetrics(t *testing.T) {
	ranked := []string{"x", "a", "b", "y"}
	rel := set("a", "b", "c")
	for k, want := range map[int]float64{1: 0, 2: 1.0 / 3, 3: 2.0 / 3, 10: 2.0 / 3} {
		if got := RecallAt(ranked, rel, k); !near(got, want) {
			t.Errorf("RecallAt k=%d = %v, want %v", k, got, want)
		}
	}
	// A relevant id ranked twice is found once: recall is a share.
	if got := RecallAt([]string{"a", "a", "b"}, set("a", "b"), 3); !near(got, 1) {
		t.Errorf("RecallAt with a repeated id = %v, want 1", got)
	}
	if RecallAt(ranked, set(), 5) != 1 {
		t.Error("recall with nothing relevant is not 1")
	}
	if got := MRR(ranked, rel); got != 0.5 { // first relevant at rank 2
		t.Errorf("MRR = %v", got)
	}
	if MRR(ranked, set("z")) != 0 {
		t.Error("MRR with no hit is not 0")
	}
	// Relevant at ranks 2 and 3: DCG = 1/log2(3) + 1/log2(4). Three ids are
	// relevant, so the ideal DCG at k=3 is 1 + 1/log2(3) + 1/log2(4).
	dcg := 1/math.Log2(3) + 0.5
	if got, want := NDCG(ranked, rel, 3), dcg/(1+1/math.Log2(3)+0.5); !near(got, want) {
		t.Errorf("NDCG@3 = %v, want %v", got, want)
	}
	// With fewer places than relevant ids the ideal list holds k of them:
	// a relevant id at rank 1 is a perfect nDCG@1.
	if got := NDCG([]string{"a", "x"}, rel, 1); !near(got, 1) {
		t.Errorf("NDCG@1 with the first result relevant = %v, want 1", got)
	}
	// A relevant id counted twice is counted once.
	if got, want := NDCG([]string{"a", "a"}, set("a"), 10), 1.0; !near(got, want) {
		t.Errorf("NDCG with a repeated id = %v, want %v", got, want)
	}
	if NDCG(ranked, set(), 10) != 0 {
		t.Error("NDCG with nothing relevant is not 0")
	}
}

func TestPercentile(t *testing.T) {
	values := []float64{5, 1, 3, 2, 4}
	// Nearest rank: the ceil(p*n)-th smallest value.
	for p, want := range map[float64]float64{0: 1, 0.2: 1, 0.5: 3, 0.95: 5, 1: 5, 0.41: 3} {
		if got := Percentile(values, p); got != want {
			t.Errorf("Percentile(%v) = %v, want %v", p, got, want)
		}
	}
	if !slices.Equal(values, []float64{5, 1, 3, 2, 4}) {
		t.Errorf("Percentile sorted its input: %v", values)
	}
	if Percentile(nil, 0.5) != 0 {
		t.Error("Percentile of nothing is not 0")
	}
}
