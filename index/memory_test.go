package index

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/nova-recall/nova/config"
)

// TestBuildMemoryLimit: a build sets its soft limit only while it runs and
// never overrides one the user set.
func TestBuildMemoryLimit(t *testing.T) {
	if debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Skip("GOMEMLIMIT is set for this test process")
	}
	for _, tc := range []struct {
		opt, want int64
	}{{0, DefaultMemoryLimit}, {300 << 20, 300 << 20}, {-1, math.MaxInt64}} {
		x := New(config.Config{}, Options{MemoryLimit: tc.opt})
		restore := x.limitMemory()
		if got := debug.SetMemoryLimit(-1); got != tc.want {
			t.Errorf("option %d: limit %d during the build, want %d", tc.opt, got, tc.want)
		}
		// A limit already in force (GOMEMLIMIT) is left alone.
		inner := New(config.Config{}, Options{MemoryLimit: 100 << 20}).limitMemory()
		if got := debug.SetMemoryLimit(-1); got != tc.want && tc.opt >= 0 {
			t.Errorf("a nested build replaced the limit %d with %d", tc.want, got)
		}
		inner()
		restore()
		if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
			t.Fatalf("option %d: limit %d after the build", tc.opt, got)
		}
	}
}
