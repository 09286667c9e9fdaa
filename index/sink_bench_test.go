package index

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/memory"
)

// BenchmarkContextParts analyses the contexts of 512 chunks of one
// conversation as a batch does (each neighbour's words recur in the
// contexts around it): two turns before and after, 30 words each.
//
//	go test -run '^$' -bench ContextParts ./index/
func BenchmarkContextParts(b *testing.B) {
	turns := make([]string, 516)
	for i := range turns {
		words := make([]string, 30)
		for j := range words {
			words[j] = fmt.Sprintf("w%d", (i*7+j*13)%997)
		}
		turns[i] = strings.Join(words, " ")
	}
	contexts := make([]string, 512)
	for i := range contexts {
		contexts[i], _ = memory.NeighbourContext(turns[i:i+2], turns[i+3:i+5])
	}
	an := lexical.NewAnalyzer()
	for b.Loop() {
		ca := newContextAnalyzer(an)
		for _, c := range contexts {
			ca.parts(c)
		}
	}
}
