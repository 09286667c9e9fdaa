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
	docs := zipfDocs(12_000)
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

// zipfDocs returns n documents of 60 terms drawn from a Zipfian
// vocabulary of 100 000 words.
func zipfDocs(n int) [][]string {
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 2, 99_999)
	docs := make([][]string, n)
	for i := range docs {
		terms := make([]string, 60)
		for j := range terms {
			terms[j] = fmt.Sprintf("w%d", zipf.Uint64())
		}
		docs[i] = terms
	}
	return docs
}

// BenchmarkEmbedTerms embeds one 60-term document with a model of 384
// dimensions trained on 2 000 of them.
//
//	go test -run '^$' -bench EmbedTerms ./embedding/
func BenchmarkEmbedTerms(b *testing.B) {
	docs := zipfDocs(2_000)
	m, err := embedding.TrainLSATerms(context.Background(), docs, 384, lexical.NewAnalyzer())
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		m.EmbedTerms(docs[i%len(docs)])
	}
}
