package lazy_test

import (
	"sync"
	"testing"

	"github.com/nova-recall/nova/internal/lazy"
)

// TestOnce_retriesAfterPanic: a run that panics leaves the Once unrun, and
// a run that returns is the last.
func TestOnce_retriesAfterPanic(t *testing.T) {
	var o lazy.Once
	calls := 0
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic did not reach the caller")
			}
		}()
		o.Do(func() { calls++; panic("fault") })
	}()
	o.Do(func() { calls++ })
	o.Do(func() { calls++ })
	if calls != 2 {
		t.Errorf("f ran %d times, want 2 (the panicking run and one more)", calls)
	}
}

// TestOnce_concurrent: many first callers run f once and all see its
// result (the race detector checks the publication).
func TestOnce_concurrent(t *testing.T) {
	var o lazy.Once
	var calls, value int
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			o.Do(func() { calls++; value = 42 })
			if value != 42 {
				t.Error("Do returned before f's result was visible")
			}
		})
	}
	wg.Wait()
	if calls != 1 {
		t.Errorf("f ran %d times", calls)
	}
}
