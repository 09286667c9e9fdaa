// Package parallel splits a range of independent work over the machine's
// cores: the build's analysis and embedding and the vector scan use it.
package parallel

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// Spans calls fn on contiguous spans of [0, n), one per core, each at least
// minSpan long: a range too short to be worth a goroutine runs as one span
// on the calling goroutine. It returns when every span is done. A panic in
// any span is raised again in the caller, once every span has ended, so
// that the caller's recover sees it (a search's does, in novad) rather than
// the process dying in a worker; the workers fault as the caller does
// (debug.SetPanicOnFault).
func Spans(n, minSpan int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/max(minSpan, 1)))
	if workers <= 1 {
		if n > 0 {
			fn(0, n)
		}
		return
	}
	onFault := debug.SetPanicOnFault(true)
	debug.SetPanicOnFault(onFault)
	// The calling goroutine takes the last span itself: one goroutine
	// fewer to start and wake, which a search's short scans notice.
	var (
		wg       sync.WaitGroup
		panicked atomic.Pointer[WorkerPanic]
	)
	step := (n + workers - 1) / workers
	lo := 0
	for ; lo+step < n; lo += step {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					panicked.CompareAndSwap(nil, &WorkerPanic{Value: v, Stack: debug.Stack()})
				}
			}()
			debug.SetPanicOnFault(onFault)
			fn(lo, hi)
		}(lo, lo+step)
	}
	func() {
		defer wg.Wait() // the workers may still use what the caller owns
		fn(lo, n)
	}()
	if p := panicked.Load(); p != nil {
		panic(p)
	}
}

// WorkerPanic is what Spans panics with when a span on another goroutine
// panicked: that panic's value and the stack where it happened.
type WorkerPanic struct {
	Value any
	Stack []byte
}

func (p *WorkerPanic) String() string {
	return fmt.Sprintf("%v [in a parallel span]\n%s", p.Value, p.Stack)
}

// Shared calls fn on spans of [0, n) of piece indices each (the last may
// be shorter), taken in turn from a shared counter by one goroutine a core
// (the caller's among them), and returns when every span is done. Where
// Spans gives each core one fixed share, here a core that is held up (by
// another goroutine of the process, or by costlier items) takes fewer
// pieces instead of leaving the others waiting for it at the end. For
// work with no state kept across a span; panics reach the caller as in
// Spans.
func Shared(n, piece int, fn func(lo, hi int)) {
	piece = max(piece, 1)
	var next atomic.Int64
	workers := min(runtime.GOMAXPROCS(0), (n+piece-1)/piece)
	Spans(workers, 1, func(int, int) {
		for {
			hi := int(next.Add(int64(piece)))
			lo := hi - piece
			if lo >= n {
				return
			}
			fn(lo, min(hi, n))
		}
	})
}

// For calls fn for every i in [0, n), split as Spans splits.
func For(n, minSpan int, fn func(i int)) {
	Spans(n, minSpan, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			fn(i)
		}
	})
}
