package embedding_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/lexical"
)

// BenchmarkTrainLSA trains the builtin model at its largest: the 12 000
// sampled documents a large corpus gives it, 60 terms each drawn from a
// Zipfian vocabulary of 100 000 words (so the 40 000-term cap applies),
// 384 dimensions.
//
//	go test -run '^$' -bench TrainLSA -benchtime 3x ./embedding/
func BenchmarkTrainLSA(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 2, 99_999)
	docs := make([][]string, 12_000)
	for i := range docs {
		terms := make([]string, 60)
		for j := range terms {
			terms[j] = fmt.Sprintf("w%d", zipf.Uint64())
		}
		docs[i] = terms
	}
	an := lexical.NewAnalyzer()
	b.ResetTimer()
	for range b.N {
		m, err := embedding.TrainLSATerms(context.Background(), docs, 384, an)
		if err != nil {
			b.Fatal(err)
		}
		if m.Rank() != 384 {
			b.Fatalf("rank %d", m.Rank())
		}
	}
}
