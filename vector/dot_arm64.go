//go:build !purego

package vector

import "golang.org/x/sys/cpu"

// kernels says whether the vector kernels of dot_arm64.s may run: their
// instructions are in every arm64 CPU (Advanced SIMD).
const kernels = true

// hasDotProd says whether the CPU has the Armv8.2 dot product instructions
// (every Apple silicon Mac does; some older arm64 boards do not).
var hasDotProd = cpu.ARM64.HasASIMDDP

// dotInt8Vector is the dot product of the n int8s at a and b, n a
// positive multiple of dotBlock.
func dotInt8Vector(a, b *int8, n int) int32 {
	if hasDotProd {
		return dotInt8DotProd(a, b, n)
	}
	return dotInt8Widen(a, b, n)
}

// dotInt8DotProd is dotInt8Vector with SDOT (dot_arm64.s).
//
//go:noescape
func dotInt8DotProd(a, b *int8, n int) int32

// dotInt8Widen is dotInt8Vector in Advanced SIMD alone (dot_arm64.s).
//
//go:noescape
func dotInt8Widen(a, b *int8, n int) int32

// prefetchRow asks for the cache lines of the n bytes at p, n > 0.
//
//go:noescape
func prefetchRow(p *int8, n int)

// axpyKernel adds a times the n floats at x to those at y, n a positive
// multiple of axpyBlock (dot_arm64.s).
//
//go:noescape
func axpyKernel(a float32, x, y *float32, n int)

// mulTileKernel sets out to a 4 x 8 tile of P·Q over n > 0 steps: P(i,t)
// at p[i*pr + t*pc], Q(t,j) at q[t*qr + j] (dot_arm64.s).
//
//go:noescape
func mulTileKernel(p *float64, pr, pc int, q *float64, qr, n int, out *[32]float64)
