//go:build !purego

package vector

import "golang.org/x/sys/cpu"

// kernels says whether the vector kernels of dot_amd64.s may run: AVX2
// (which implies AVX), which every x86 Mac since 2013 has.
var kernels = cpu.X86.HasAVX2

// dotInt8Vector is the dot product of the n int8s at a and b, n a
// positive multiple of dotBlock (dot_amd64.s).
//
//go:noescape
func dotInt8Vector(a, b *int8, n int) int32

// prefetchRow asks for the cache lines of the n bytes at p, n > 0.
//
//go:noescape
func prefetchRow(p *int8, n int)

// axpyKernel adds a times the n floats at x to those at y, n a positive
// multiple of axpyBlock (dot_amd64.s).
//
//go:noescape
func axpyKernel(a float32, x, y *float32, n int)

// mulTileKernel sets out to a 4 x 8 tile of P·Q over n > 0 steps: P(i,t)
// at p[i*pr + t*pc], Q(t,j) at q[t*qr + j] (dot_amd64.s).
//
//go:noescape
func mulTileKernel(p *float64, pr, pc int, q *float64, qr, n int, out *[32]float64)
