package vector

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAxpy holds Axpy (the vector kernel where the CPU has one) to the
// plain loop bit for bit: every length up to a few blocks, so each tail is
// covered, from every offset into a slice, with ordinary values, values
// whose products round, overflow to infinity or fall below the normal
// range, and signed zeros.
func TestAxpy(t *testing.T) {
	t.Logf("vector kernel in use: %v", kernels)
	rng := rand.New(rand.NewPCG(9, 9))
	special := []float32{0, float32(math.Copysign(0, -1)), 1, -1, math.MaxFloat32, -math.MaxFloat32,
		math.SmallestNonzeroFloat32, 1e-38, 3.4e38, 1.0000001, float32(math.Inf(1))}
	value := func() float32 {
		if rng.IntN(8) == 0 {
			return special[rng.IntN(len(special))]
		}
		return float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4)))
	}
	buf := make([]float32, 4*axpyBlock+64)
	for n := 0; n <= 4*axpyBlock+7; n++ {
		for off := range 9 {
			if off+n > len(buf) {
				break
			}
			for i := range buf {
				buf[i] = value()
			}
			x := buf[off : off+n]
			y := make([]float32, n+5) // longer: it is cut to x
			for i := range y {
				y[i] = value()
			}
			want := append([]float32(nil), y...)
			a := value()
			for i, v := range x {
				want[i] = want[i] + float32(a*v)
			}
			Axpy(a, x, y)
			for i := range y {
				if math.Float32bits(y[i]) != math.Float32bits(want[i]) && !(isNaN(y[i]) && isNaN(want[i])) {
					t.Fatalf("n=%d off=%d a=%g: y[%d] = %g (%#x), want %g (%#x)", n, off, a, i, y[i], math.Float32bits(y[i]), want[i], math.Float32bits(want[i]))
				}
			}
		}
	}
}

func isNaN(f float32) bool { return f != f }
