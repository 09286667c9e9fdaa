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
