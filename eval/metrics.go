// Package eval measures recall: the LoCoMo protocol (one memory per
// dialogue turn, recall@k of the evidence turns) with a plain BM25 baseline
// in the same run, and user-written recall cases run against a live facade.
package eval

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// RecallAt returns the share of relevant ids found in the first k of
// ranked; an id ranked twice is found once.
func RecallAt(ranked []string, relevant map[string]bool, k int) float64 {
	if len(relevant) == 0 {
		return 1
	}
	return float64(len(hitRanks(ranked, relevant, k))) / float64(len(relevant))
}

// hitRanks returns the ranks (from 0) at which the relevant ids first
// stand in the first k of ranked, in order: an id ranked twice is found
// once, at its better rank.
func hitRanks(ranked []string, relevant map[string]bool, k int) []int {
	var ranks []int
	seen := map[string]bool{}
	for i, id := range ranked {
		if i == k {
			break
		}
		if relevant[id] && !seen[id] {
			seen[id] = true
			ranks = append(ranks, i)
		}
	}
	return ranks
}

// MRR returns 1/rank of the first relevant id (0 if none).
func MRR(ranked []string, relevant map[string]bool) float64 {
	for i, id := range ranked {
		if relevant[id] {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// NDCG returns nDCG@k with binary relevance; each relevant id counts once.
func NDCG(ranked []string, relevant map[string]bool, k int) float64 {
	if len(relevant) == 0 {
		return 0
	}
	dcg := 0.0
	for _, i := range hitRanks(ranked, relevant, k) {
		dcg += 1 / math.Log2(float64(i+2))
	}
	ideal := 0.0
	for i := 0; i < min(k, len(relevant)); i++ {
		ideal += 1 / math.Log2(float64(i+2))
	}
	return math.Min(1, dcg/ideal)
}

// Percentile returns the nearest-rank p-quantile (0..1) of values
// (gonum's empirical quantile), 0 for none. values is not changed.
func Percentile(values []float64, p float64) float64 {
	if len(values) == 0 {
		return 0
	}
	s := slices.Clone(values)
	slices.Sort(s)
	return stat.Quantile(p, stat.Empirical, s, nil)
}
