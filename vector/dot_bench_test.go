package vector

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkDotInt8 is one int8 dot product of 384 dimensions, the inner
// loop of the dense channel's candidate scoring.
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
	b.ResetTimer()
	var s int32
	for i := range b.N {
		j := (i % 1024) * 384
		s += dotInt8(a, c[j:j+384])
	}
	sink = s
}

// BenchmarkDotInt8Go is BenchmarkDotInt8 without the vector kernel.
func BenchmarkDotInt8Go(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	a, c := make([]int8, 384), make([]int8, 384*1024)
	for i := range a {
		a[i] = int8(rng.IntN(255) - 127)
	}
	for i := range c {
		c[i] = int8(rng.IntN(255) - 127)
	}
	b.ResetTimer()
	var s int32
	for i := range b.N {
		j := (i % 1024) * 384
		s += dotInt8Go(a, c[j:j+384])
	}
	sink = s
}

var sink int32
