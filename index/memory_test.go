package index

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/nova-recall/nova/config"
)

// gcPercent reads the collector's GOGC.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestBuildMemoryLimit: a build sets its soft limit, and a higher GOGC
// under it, only while it runs and never overrides a limit or a GOGC the
// user set.
func TestBuildMemoryLimit(t *testing.T) {
	if debug.SetMemoryLimit(-1) != math.MaxInt64 || gcPercent() != defaultGCPercent {
		t.Skip("GOMEMLIMIT or GOGC is set for this test process")
	}
	for _, tc := range []struct {
		opt, want int64
	}{{0, DefaultMemoryLimit}, {300 << 20, 300 << 20}, {-1, math.MaxInt64}} {
		x := New(config.Config{}, Options{MemoryLimit: tc.opt})
		restore := x.limitMemory()
		if got := debug.SetMemoryLimit(-1); got != tc.want {
			t.Errorf("option %d: limit %d during the build, want %d", tc.opt, got, tc.want)
		}
		wantGC := buildGCPercent
		if tc.opt < 0 {
			wantGC = defaultGCPercent // no limit to bound the garbage
		}
		if got := gcPercent(); got != wantGC {
			t.Errorf("option %d: GOGC %d during the build, want %d", tc.opt, got, wantGC)
		}
		// A limit already in force (GOMEMLIMIT) is left alone.
		inner := New(config.Config{}, Options{MemoryLimit: 100 << 20}).limitMemory()
		if got := debug.SetMemoryLimit(-1); got != tc.want && tc.opt >= 0 {
			t.Errorf("a nested build replaced the limit %d with %d", tc.want, got)
		}
		inner()
		restore()
		if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 || gcPercent() != defaultGCPercent {
			t.Fatalf("option %d: limit %d and GOGC %d after the build", tc.opt, got, gcPercent())
		}
	}
	// A GOGC the user chose stays, limit or not.
	defer debug.SetGCPercent(debug.SetGCPercent(250))
	restore := New(config.Config{}, Options{}).limitMemory()
	if got := gcPercent(); got != 250 {
		t.Errorf("the build replaced the user's GOGC 250 with %d", got)
	}
	restore()
}
