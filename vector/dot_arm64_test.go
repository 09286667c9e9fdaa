//go:build !purego

package vector

import "testing"

// TestDotInt8BothKernels runs the dot tests with each arm64 kernel: SDOT
// where the CPU has it (qemu-aarch64 emulates it), and the widening one
// older CPUs use.
func TestDotInt8BothKernels(t *testing.T) {
	defer func(had bool) { hasDotProd = had }(hasDotProd)
	t.Logf("the CPU has SDOT: %v", hasDotProd)
	for _, dp := range []bool{false, hasDotProd} {
		hasDotProd = dp
		t.Run(map[bool]string{true: "sdot", false: "widen"}[dp], func(t *testing.T) {
			TestDotInt8(t)
			TestDotInt8Unaligned(t)
		})
	}
}
