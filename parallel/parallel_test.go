package parallel

import (
	"sync/atomic"
	"testing"
)

// TestEveryIndexOnce: whatever the range and span, each index is visited
// exactly once and spans neither overlap nor leave gaps.
func TestEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 65, 1000, 4099} {
		for _, minSpan := range []int{0, 1, 64, 5000} {
			seen := make([]atomic.Int32, n)
			For(n, minSpan, func(i int) { seen[i].Add(1) })
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("n %d minSpan %d: index %d visited %d times", n, minSpan, i, c)
				}
			}
			var spans atomic.Int32
			Spans(n, minSpan, func(lo, hi int) {
				if lo >= hi {
					t.Errorf("empty span [%d, %d)", lo, hi)
				}
				spans.Add(1)
			})
			if n > 0 && n < 2*minSpan && spans.Load() != 1 {
				t.Errorf("n %d minSpan %d: %d spans for a short range", n, minSpan, spans.Load())
			}
		}
	}
}
