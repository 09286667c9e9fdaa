//go:build purego || !(amd64 || arm64)

package vector

// kernels is false: this build has no vector kernels (dotInt8 and Axpy
// run in Go, and nothing is prefetched).
const kernels = false

func dotInt8Vector(a, b *int8, n int) int32 { panic("vector: no dot kernel in this build") }

func prefetchRow(p *int8, n int) {}

func axpyKernel(a float32, x, y *float32, n int) { panic("vector: no axpy kernel in this build") }

func mulTileKernel(p *float64, pr, pc int, q *float64, qr, n int, out *[32]float64) {
	panic("vector: no tile kernel in this build")
}
