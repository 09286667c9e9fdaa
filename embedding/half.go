package embedding

import (
	"math"

	"github.com/x448/float16"
)

// The model's basis is stored as float16. Converting its tens of millions
// of values one by one through float16.Fromfloat32 was a sixth of a
// training's CPU, on one core (rounding the basis, then hashing it). For
// the values a basis holds, float16 normals, rounding is a carry into the
// float32's 13 dropped bits; the rest (subnormals, overflow, NaN) goes
// through the library, which these functions match bit for bit.
const (
	signBit = 0x8000_0000
	// halfMinNormal is the float32 bits of 2⁻¹⁴, float16's smallest
	// normal, and halfMax those of 65504, its largest finite value.
	halfMinNormal = 0x3880_0000
	halfMax       = 0x477F_E000
)

// roundedHalf returns the float32 bits of x rounded to float16 precision
// (to nearest, ties to even), and whether x is in the range where that is
// a float16 normal.
func roundedHalf(x float32) (uint32, bool) {
	b := math.Float32bits(x)
	if a := b &^ signBit; a < halfMinNormal || a >= halfMax {
		return 0, false
	}
	return (b + 0x0FFF + ((b >> 13) & 1)) &^ 0x1FFF, true
}

// halfBits returns the float16 nearest x.
func halfBits(x float32) uint16 {
	if r, ok := roundedHalf(x); ok {
		// float32's exponent bias is 127, float16's 15.
		return uint16(r>>16&0x8000) | uint16((r&^signBit)>>13-112<<10)
	}
	return float16.Fromfloat32(x).Bits()
}

// halfValue returns the float32 value of the float16 bits h.
func halfValue(h uint16) float32 {
	if e := h >> 10 & 0x1F; e == 0 || e == 0x1F {
		return float16.Frombits(h).Float32()
	}
	return math.Float32frombits(uint32(h&0x8000)<<16 | (uint32(h&0x7FFF)+112<<10)<<13)
}
