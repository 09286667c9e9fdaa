package vector

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDotInt8 compares dotInt8 (the vector kernel where the CPU has one)
// with the plain loop: every length up to a few blocks, so each tail is
// covered, random codes, and the extremes, whose products are largest.
func TestDotInt8(t *testing.T) {
	t.Logf("vector kernel in use: %v", kernels)
	rng := rand.New(rand.NewPCG(7, 7))
	for n := 0; n <= 4*dotBlock+7; n++ {
		a, b := make([]int8, n), make([]int8, n+3) // b longer: it is cut to a
		for i := range a {
			a[i] = int8(rng.IntN(256) - 128)
		}
		for i := range b {
			b[i] = int8(rng.IntN(256) - 128)
		}
		if got, want := dotInt8(a, b), naiveDot(a, b); got != want {
			t.Fatalf("n=%d: dotInt8 = %d, want %d", n, got, want)
		}
	}
	for _, c := range []struct{ x, y int8 }{{-128, -128}, {127, 127}, {-128, 127}, {127, -128}} {
		const n = 1024
		a, b := make([]int8, n), make([]int8, n)
		for i := range a {
			a[i], b[i] = c.x, c.y
		}
		if got, want := dotInt8(a, b), naiveDot(a, b); got != want {
			t.Fatalf("%d·%d over %d: dotInt8 = %d, want %d", c.x, c.y, n, got, want)
		}
	}
}

// TestDotInt8Unaligned runs the kernel from every offset into a slice:
// the dense scan's rows start wherever the previous row ended.
func TestDotInt8Unaligned(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	buf := make([]int8, 512)
	for i := range buf {
		buf[i] = int8(rng.IntN(256) - 128)
	}
	for off := range 40 {
		a, b := buf[off:off+256], buf[256-off:512-off]
		if got, want := dotInt8(a, b), naiveDot(a, b); got != want {
			t.Fatalf("offset %d: dotInt8 = %d, want %d", off, got, want)
		}
	}
}

func naiveDot(a, b []int8) int32 {
	var s int32
	for i := range a {
		s += int32(a[i]) * int32(b[i])
	}
	return s
}

// FuzzDotInt8: the kernel agrees with the plain sum for any codes.
func FuzzDotInt8(f *testing.F) {
	f.Add(make([]byte, 64), make([]byte, 64))
	f.Add([]byte{0x80, 0x7f, 1, 2, 3}, []byte{0x80, 0x80, 0xff, 0xfe, 0x7f})
	f.Fuzz(func(t *testing.T, x, y []byte) {
		n := min(len(x), len(y))
		a, b := make([]int8, n), make([]int8, n)
		for i := range n {
			a[i], b[i] = int8(x[i]), int8(y[i])
		}
		if got, want := dotInt8(a, b), naiveDot(a, b); got != want {
			t.Fatalf("n=%d: dotInt8 = %d, want %d", n, got, want)
		}
	})
}

// dotScaledRef is dotScaled as it was written first, an indexed loop: the
// order of additions every stored dense score was computed in.
func dotScaledRef(a []float32, b []int8) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * float32(b[i])
		s1 += a[i+1] * float32(b[i+1])
		s2 += a[i+2] * float32(b[i+2])
		s3 += a[i+3] * float32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += a[i] * float32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// TestDotScaledSameBits: dotScaled gives the reference's float32 to the
// bit, for every length up to a few unrolled steps (each tail), every
// code (the lookup table's 256 entries) and query values across many
// magnitudes, where a changed order of additions would round otherwise.
func TestDotScaledSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := range 4000 {
		n := trial % 70
		if trial%10 == 0 {
			n = 384
		}
		a, b := make([]float32, n), make([]int8, n+2) // b longer: it is cut to a
		for i := range a {
			a[i] = float32((rng.Float64() - 0.5) * math.Pow(2, float64(rng.IntN(40)-20)))
		}
		for i := range b {
			b[i] = int8(rng.IntN(256) - 128)
		}
		got, want := dotScaled(a, b), dotScaledRef(a, b)
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("trial %d (n %d): %v, reference %v", trial, n, got, want)
		}
	}
	for c := range 256 {
		a, b := []float32{0.3}, []int8{int8(c)}
		if got, want := dotScaled(a, b), dotScaledRef(a, b); got != want {
			t.Fatalf("code %d: %v, reference %v", int8(c), got, want)
		}
	}
}

// FuzzDotScaledSameBits: dotScaled and the reference agree to the bit for
// any query floats and codes.
func FuzzDotScaledSameBits(f *testing.F) {
	f.Add(make([]byte, 64), make([]byte, 16))
	f.Add([]byte{0, 0, 0x80, 0x3f, 0xcd, 0xcc, 0xcc, 0xbd}, []byte{0x80, 0x7f})
	f.Fuzz(func(t *testing.T, x, y []byte) {
		n := min(len(x)/4, len(y))
		a, b := make([]float32, n), make([]int8, n)
		for i := range n {
			a[i] = math.Float32frombits(binary.LittleEndian.Uint32(x[4*i:]))
			b[i] = int8(y[i])
		}
		got, want := dotScaled(a, b), dotScaledRef(a, b)
		if math.Float32bits(got) != math.Float32bits(want) && !(math.IsNaN(float64(got)) && math.IsNaN(float64(want))) {
			t.Fatalf("n=%d: %v, reference %v", n, got, want)
		}
	})
}

// TestFastRowsIsFast: scoring consecutive rows at once gives each row's
// Fast estimate, with the kernel called directly or not (dimensions that
// are and are not whole kernel blocks).
func TestFastRowsIsFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	for _, dim := range []int{1, 7, dotBlock, 3 * dotBlock, 3*dotBlock + 5, 384} {
		const rows = 9
		q := Quantizer{Scale: make([]float32, dim)}
		v := make([]float32, dim)
		for j := range dim {
			q.Scale[j] = 0.01 + rng.Float32()/50
			v[j] = rng.Float32() - 0.5
		}
		p := q.Prepare(v)
		codes := make([]int8, rows*dim+3)
		for i := range codes {
			codes[i] = int8(rng.IntN(255) - 127)
		}
		out := make([]float32, rows)
		p.fastRows(codes, out)
		for i, got := range out {
			if want := p.Fast(codes[i*dim : (i+1)*dim]); got != want {
				t.Fatalf("dim %d row %d: %v, Fast %v", dim, i, got, want)
			}
		}
	}
}
