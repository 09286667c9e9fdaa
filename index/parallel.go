package index

import (
	"runtime"
	"sync"
)

// parallelSpans calls fn on contiguous spans of [0, n), one per core.
func parallelSpans(n int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/64))
	var wg sync.WaitGroup
	step := (n + workers - 1) / workers
	for w := range workers {
		lo, hi := w*step, min(n, (w+1)*step)
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// parallelRange calls fn for every i in [0, n) on all cores.
func parallelRange(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/64))
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	step := (n + workers - 1) / workers
	for w := range workers {
		lo, hi := w*step, min(n, (w+1)*step)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				fn(i)
			}
		}()
	}
	wg.Wait()
}
