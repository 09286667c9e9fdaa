// Package lazy holds Once, the first-use initialisation of what a
// generation derives from its memory-mapped files.
package lazy

import (
	"sync"
	"sync/atomic"
)

// Once runs a function once, as sync.Once does, except that a run that
// panics does not count: the next Do runs the function again. What a
// generation derives on first use (facet counts, id fences, version
// chains, sign bits) is read from mapped files, and a fault in one (a
// file truncated or unreadable under the mapping) is a panic that novad
// turns into one failed request. sync.Once would keep the half-built
// value for the generation's whole life, and every later search would
// read it.
//
// The zero Once is ready to use; it must not be copied after first use.
type Once struct {
	done atomic.Bool
	mu   sync.Mutex
}

// Do calls f unless a call of f has returned; concurrent callers wait
// for the call in progress. If f panics, the panic goes on to Do's
// caller and the next Do calls f again.
func (o *Once) Do(f func()) {
	if o.done.Load() {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.done.Load() {
		f()
		o.done.Store(true)
	}
}
