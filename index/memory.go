package index

import (
	"math"
	"runtime/debug"
)

// DefaultMemoryLimit is the Go heap's soft limit while a build runs, when
// neither Options.MemoryLimit nor GOMEMLIMIT sets one. A build's live data
// is bounded by design (segments flush at a fixed size, reading streams),
// but without a limit the collector lets garbage grow to twice the live
// heap; the limit makes it collect sooner so peak memory stays within what
// a background tool on a laptop may take.
const DefaultMemoryLimit = 512 << 20

// limitMemory applies the build's soft memory limit and returns the undo.
// GOMEMLIMIT, read by the runtime at start, wins: a user who set it meant
// it. The limit is soft: a build whose live data exceeds it runs with the
// collector capped at half the CPU instead of failing.
func (x *Indexer) limitMemory() (restore func()) {
	limit := x.opts.MemoryLimit
	if limit == 0 {
		limit = DefaultMemoryLimit
	}
	before := debug.SetMemoryLimit(-1)
	if limit < 0 || before != math.MaxInt64 {
		return func() {}
	}
	debug.SetMemoryLimit(limit)
	// Under the limit the collector may let garbage grow further between
	// cycles: the limit still bounds the peak, and the build collects less
	// often (a 100k build: 6% less CPU at the same peak). A GOGC the user
	// set stays.
	gc := debug.SetGCPercent(buildGCPercent)
	if gc != defaultGCPercent {
		debug.SetGCPercent(gc)
	}
	return func() {
		debug.SetGCPercent(gc)
		debug.SetMemoryLimit(before)
	}
}

// buildGCPercent is the collector's GOGC while a build runs under its
// memory limit, and defaultGCPercent the runtime's own.
const (
	buildGCPercent   = 400
	defaultGCPercent = 100
)
