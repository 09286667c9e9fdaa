package parallel

import (
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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

// TestSharedEveryIndexOnce: Shared's pieces cover the range exactly once,
// each no longer than piece, whatever the range and the piece.
func TestSharedEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 31, 32, 33, 1000, 4099} {
		for _, piece := range []int{0, 1, 32, 5000} {
			seen := make([]atomic.Int32, n)
			Shared(n, piece, func(lo, hi int) {
				if lo >= hi || hi-lo > max(piece, 1) {
					t.Errorf("n %d piece %d: span [%d, %d)", n, piece, lo, hi)
				}
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
			})
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("n %d piece %d: index %d visited %d times", n, piece, i, c)
				}
			}
		}
	}
}

// TestSharedPiecesGoToTheFreeCore: while one worker is held up in its
// first piece, the others take every other piece, instead of each core
// waiting on a fixed half (what Spans does: there the held piece would
// wait in vain). Needs two cores.
func TestSharedPiecesGoToTheFreeCore(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS >= 2")
	}
	var held atomic.Bool
	var done, seen atomic.Int32
	Shared(64, 1, func(lo, hi int) {
		if held.CompareAndSwap(false, true) {
			// The first piece taken waits for every other one.
			deadline := time.Now().Add(10 * time.Second)
			for done.Load() < 63 && time.Now().Before(deadline) {
				runtime.Gosched()
			}
			seen.Store(done.Load())
			return
		}
		done.Add(1)
	})
	if n := seen.Load(); n != 63 {
		t.Fatalf("the held piece saw %d of the 63 other pieces done in 10 s", n)
	}
}

// TestWorkerPanicReachesTheCaller: a panic in a span run on another
// goroutine is raised in the caller after every span ended, where its
// recover sees it with the worker's stack; without this, one bad record
// in a search's parallel scoring killed novad.
func TestWorkerPanicReachesTheCaller(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var ended atomic.Int32
	got := func() (v any) {
		defer func() { v = recover() }()
		Spans(400, 1, func(lo, hi int) {
			defer ended.Add(1)
			if lo == 0 { // the first span runs on a worker, never the caller
				panic("bad record")
			}
		})
		return nil
	}()
	p, ok := got.(*WorkerPanic)
	if !ok || p.Value != "bad record" || !strings.Contains(string(p.Stack), "parallel_test.go") {
		t.Fatalf("recovered %v, want the worker's panic", got)
	}
	if ended.Load() != 4 {
		t.Errorf("%d spans ended before the panic reached the caller, want 4", ended.Load())
	}
}

// TestWorkersFaultAsTheCaller: a worker takes the caller's
// SetPanicOnFault, so that reading a truncated memory-mapped file panics
// (and is recovered by the caller) instead of killing the process.
func TestWorkersFaultAsTheCaller(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, want := range []bool{true, false} {
		prev := debug.SetPanicOnFault(want)
		var wrong atomic.Int32
		Spans(400, 1, func(lo, hi int) {
			v := debug.SetPanicOnFault(want)
			if v != want {
				wrong.Add(1)
			}
		})
		debug.SetPanicOnFault(prev)
		if wrong.Load() != 0 {
			t.Errorf("SetPanicOnFault(%v) in the caller: %d spans ran with the other setting", want, wrong.Load())
		}
	}
}
