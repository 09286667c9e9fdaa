package vector

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkDotInt8 is one int8 dot product of 384 dimensions, the inner
// loop of the dense channel's scan: as the scan runs it (with the vector
// kernel where the CPU has one) and in Go alone.
//
//	go test -run '^$' -bench DotInt8 ./vector/
func BenchmarkDotInt8(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	a, c := make([]int8, 384), make([]int8, 384*1024)
	for i := range a {
		a[i] = int8(rng.IntN(255) - 127)
	}
	for i := range c {
		c[i] = int8(rng.IntN(255) - 127)
	}
	for _, k := range []struct {
		name string
		dot  func(a, b []int8) int32
	}{{"scan", dotInt8}, {"go", dotInt8Go}} {
		b.Run(k.name, func(b *testing.B) {
			var s int32
			for i := range b.N {
				j := (i % 1024) * 384
				s += k.dot(a, c[j:j+384])
			}
			sink = s
		})
	}
}

var sink int32

// BenchmarkAxpy adds a multiple of one 384-float row to another, the
// inner loop of embedding with the builtin model: with the vector kernel
// where the CPU has one, and in Go alone.
//
//	go test -run '^$' -bench Axpy ./vector/
func BenchmarkAxpy(b *testing.B) {
	x, y := make([]float32, 384), make([]float32, 384)
	for i := range x {
		x[i] = float32(i) / 384
	}
	for _, k := range []struct {
		name string
		axpy func(a float32, x, y []float32)
	}{{"kernel", Axpy}, {"go", axpyGo}} {
		b.Run(k.name, func(b *testing.B) {
			for range b.N {
				k.axpy(0.5, x, y)
			}
		})
	}
}

// BenchmarkDotScaled is one exact re-scoring of 384 dimensions: a float
// query against a document's int8 codes, 320 of which a 10k search's
// dense channel re-scores.
//
//	go test -run '^$' -bench DotScaled ./vector/
func BenchmarkDotScaled(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	a, c := make([]float32, 384), make([]int8, 384*1024)
	for i := range a {
		a[i] = rng.Float32() - 0.5
	}
	for i := range c {
		c[i] = int8(rng.IntN(255) - 127)
	}
	var s float32
	for i := range b.N {
		j := (i % 1024) * 384
		s += dotScaled(a, c[j:j+384])
	}
	sinkFloat = s
}

var sinkFloat float32
