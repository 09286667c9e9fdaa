//go:build !purego

package vector

// dotVector says whether dotInt8Vector may run: its instructions are in
// every arm64 CPU (Advanced SIMD).
const dotVector = true

// dotInt8Vector is the dot product of the n int8s at a and b, n a
// positive multiple of dotBlock (dot_arm64.s).
//
//go:noescape
func dotInt8Vector(a, b *int8, n int) int32

// prefetchRow asks for the cache lines of the n bytes at p, n > 0.
//
//go:noescape
func prefetchRow(p *int8, n int)

// axpyVector says whether axpyKernel may run: Advanced SIMD, in every
// arm64 CPU.
const axpyVector = true

// axpyKernel adds a times the n floats at x to those at y, n a positive
// multiple of axpyBlock (dot_arm64.s).
//
//go:noescape
func axpyKernel(a float32, x, y *float32, n int)
