package vector

import "unsafe"

// Axpy adds a·x to y, element by element (y is cut to x's length): the
// inner loop of embedding with the builtin model and of its training. Each
// element is rounded after the product and after the sum, never fused, so
// every kernel (dot_amd64.s, dot_arm64.s, axpyGo) gives the same bits as
// the plain loop and a model or vector is the same on every machine.
func Axpy(a float32, x, y []float32) {
	y = y[:len(x)]
	n := 0
	if kernels && len(x) >= axpyBlock {
		n = len(x) &^ (axpyBlock - 1)
		axpyKernel(a, &x[0], &y[0], n)
	}
	axpyGo(a, x[n:], y[n:])
}

// axpyBlock is how many elements one step of the vector kernels takes.
const axpyBlock = 16

// axpyGo is Axpy in Go, for CPUs without the vector kernel and for the
// elements after its last full block. The conversion keeps the compiler
// from fusing the multiply and add (which it does on arm64).
func axpyGo(a float32, x, y []float32) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += float32(a * v)
	}
}

// Prefetch asks for the cache lines of x ahead of their use.
func Prefetch(x []float32) {
	if len(x) > 0 {
		prefetchRow((*int8)(unsafe.Pointer(&x[0])), 4*len(x))
	}
}
