// Package topk keeps the best k items of a stream in a bounded min-heap:
// the selection step both retrieval channels (BM25 and the vector scan)
// share.
package topk

import "sort"

// Heap keeps at most k items, the best by Better. The zero value is not
// usable; use New. It is not safe for concurrent use.
type Heap[T any] struct {
	k      int
	better func(a, b T) bool
	items  []T
}

// New returns a heap that keeps the k best items; better(a, b) reports
// whether a ranks before b (it must be a strict total order for stable,
// deterministic results).
func New[T any](k int, better func(a, b T) bool) *Heap[T] {
	return &Heap[T]{k: k, better: better, items: make([]T, 0, min(k, 1024))}
}

// Push offers x.
func (h *Heap[T]) Push(x T) {
	if h.k <= 0 {
		return
	}
	if len(h.items) < h.k {
		h.items = append(h.items, x)
		h.up(len(h.items) - 1)
		return
	}
	// The root is the worst kept item.
	if !h.better(x, h.items[0]) {
		return
	}
	h.items[0] = x
	h.down(0)
}

// Worst returns the worst item kept once the heap holds k of them: an
// item that is not better is refused, so a scan can skip offering it.
func (h *Heap[T]) Worst() (T, bool) {
	if len(h.items) < h.k || h.k <= 0 {
		var zero T
		return zero, false
	}
	return h.items[0], true
}

// Len is the number of items kept.
func (h *Heap[T]) Len() int { return len(h.items) }

// Items returns the kept items in no particular order (do not modify).
func (h *Heap[T]) Items() []T { return h.items }

// Sorted returns the kept items best first and empties the heap.
func (h *Heap[T]) Sorted() []T {
	out := h.items
	sort.Slice(out, func(i, j int) bool { return h.better(out[i], out[j]) })
	h.items = nil
	return out
}

func (h *Heap[T]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.better(h.items[p], h.items[i]) {
			return
		}
		h.items[p], h.items[i] = h.items[i], h.items[p]
		i = p
	}
}

func (h *Heap[T]) down(i int) {
	n := len(h.items)
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h.better(h.items[m], h.items[l]) {
			m = l
		}
		if r < n && h.better(h.items[m], h.items[r]) {
			m = r
		}
		if m == i {
			return
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}
