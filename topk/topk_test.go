package topk

import (
	"math/rand"
	"sort"
	"testing"
)

func TestHeapKeepsTheBest(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, k := range []int{0, 1, 5, 100} {
		h := New(k, func(a, b int) bool { return a > b })
		var all []int
		for i := 0; i < 500; i++ {
			v := rng.Intn(1000)
			all = append(all, v)
			h.Push(v)
		}
		sort.Sort(sort.Reverse(sort.IntSlice(all)))
		got := h.Sorted()
		if len(got) != min(k, len(all)) {
			t.Fatalf("k=%d: %d items", k, len(got))
		}
		for i := range got {
			if got[i] != all[i] {
				t.Fatalf("k=%d rank %d: %d want %d", k, i, got[i], all[i])
			}
		}
	}
}

// TestWorst: the worst item is known only once k are kept, and it is the
// one the next better item replaces.
func TestWorst(t *testing.T) {
	h := New(3, func(a, b int) bool { return a > b })
	for _, x := range []int{5, 1} {
		h.Push(x)
		if _, ok := h.Worst(); ok {
			t.Fatalf("Worst reported with %d of 3 items", h.Len())
		}
	}
	h.Push(9)
	if w, ok := h.Worst(); !ok || w != 1 {
		t.Fatalf("Worst = %d, %v; want 1, true", w, ok)
	}
	h.Push(7)
	if w, _ := h.Worst(); w != 5 {
		t.Fatalf("after pushing 7, Worst = %d; want 5", w)
	}
}
