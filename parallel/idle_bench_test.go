package parallel

import (
	"math"
	"testing"
	"time"
)

// BenchmarkSpansAfterIdle times a split of about a millisecond of work
// three ways: on the calling goroutine alone, split back to back (the
// cores stay awake, as in an in-process benchmark loop), and split after
// the process was idle for a millisecond (as novad is between two
// requests). Where the third is no faster than the first, the machine's
// scheduler puts the woken worker thread on the caller's own CPU and it
// waits there; BENCHMARKS.md records what this 2-vCPU VM does:
//
//	go test -run '^$' -bench SpansAfterIdle -benchtime=300x ./parallel
func BenchmarkSpansAfterIdle(b *testing.B) {
	xs := make([]float64, 1<<16)
	for i := range xs {
		xs[i] = float64(i)
	}
	sums := make([]float64, 64)
	work := func(lo, hi int) {
		s := 0.0
		for _, x := range xs[lo:hi] {
			s += math.Sqrt(x) * math.Log1p(x)
		}
		sums[lo*len(sums)/len(xs)] += s // keeps the loop from being dropped
	}
	b.Run("one-goroutine", func(b *testing.B) {
		for b.Loop() {
			work(0, len(xs))
		}
	})
	b.Run("split-back-to-back", func(b *testing.B) {
		for b.Loop() {
			Spans(len(xs), 1024, work)
		}
	})
	b.Run("split-after-idle", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			time.Sleep(time.Millisecond)
			b.StartTimer()
			Spans(len(xs), 1024, work)
		}
	})
}
