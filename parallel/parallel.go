// Package parallel splits a range of independent work over the machine's
// cores: the build's analysis and embedding and the vector scan use it.
package parallel

import (
	"runtime"
	"sync"
)

// Spans calls fn on contiguous spans of [0, n), one per core, each at least
// minSpan long: a range too short to be worth a goroutine runs as one span
// on the calling goroutine. It returns when every span is done.
func Spans(n, minSpan int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/max(minSpan, 1)))
	if workers <= 1 {
		if n > 0 {
			fn(0, n)
		}
		return
	}
	// The calling goroutine takes the last span itself: one goroutine
	// fewer to start and wake, which a search's short scans notice.
	var wg sync.WaitGroup
	step := (n + workers - 1) / workers
	lo := 0
	for ; lo+step < n; lo += step {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, lo+step)
	}
	fn(lo, n)
	wg.Wait()
}

// For calls fn for every i in [0, n), split as Spans splits.
func For(n, minSpan int, fn func(i int)) {
	Spans(n, minSpan, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			fn(i)
		}
	})
}
