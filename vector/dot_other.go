//go:build purego || !(amd64 || arm64)

package vector

// dotVector is false: this build has no vector kernel for dotInt8.
const dotVector = false

func dotInt8Vector(a, b *int8, n int) int32 { panic("vector: no dot kernel in this build") }

func prefetchRow(p *int8, n int) {}

// axpyVector is false: this build has no vector kernel for Axpy.
const axpyVector = false

func axpyKernel(a float32, x, y *float32, n int) { panic("vector: no axpy kernel in this build") }
