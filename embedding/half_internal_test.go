package embedding

import (
	"math"
	"testing"

	"github.com/x448/float16"
)

// TestHalfMatchesLibrary holds halfBits, and the rounded value the
// model keeps (halfValue of those bits), to the float16 library over a spread of float32 bit patterns (every 251st, so every
// exponent and sign with many mantissas) and around each boundary and tie.
func TestHalfMatchesLibrary(t *testing.T) {
	check := func(b uint32) {
		x := math.Float32frombits(b)
		want := float16.Fromfloat32(x)
		if got := halfBits(x); got != want.Bits() {
			t.Fatalf("halfBits(%g = %#08x) = %#04x, want %#04x", x, b, got, want.Bits())
		}
		got, w := halfValue(halfBits(x)), want.Float32()
		if math.Float32bits(got) != math.Float32bits(w) && !(got != got && w != w) {
			t.Fatalf("halfValue(halfBits(%g = %#08x)) = %g, want %g", x, b, got, w)
		}
	}
	for b := uint64(0); b < 1<<32; b += 251 {
		check(uint32(b))
	}
	for _, edge := range []uint32{halfMinNormal, halfMax, 0x3F80_0000, 0x7F80_0000} {
		for _, sign := range []uint32{0, signBit} {
			// Ties and their neighbours sit at multiples of 0x1000 in the
			// dropped bits.
			for d := int64(-0x6000); d <= 0x6000; d++ {
				check(uint32(int64(edge)+d) | sign)
			}
		}
	}
}

// TestHalfValueMatchesLibrary holds halfValue to the library on every
// float16.
func TestHalfValueMatchesLibrary(t *testing.T) {
	for h := range 1 << 16 {
		got, want := halfValue(uint16(h)), float16.Frombits(uint16(h)).Float32()
		if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
			t.Fatalf("halfValue(%#04x) = %g, want %g", h, got, want)
		}
	}
}
