package vector

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMulTile holds MulTile (the vector kernel where the CPU has one) to
// a plain triple loop bit for bit: P read along rows and down columns (a
// Gram matrix reads a transposed view), every tile shape at a matrix's
// edge (with and without room past the last row), lengths from one step up, and values whose products round,
// overflow or fall below the normal range.
func TestMulTile(t *testing.T) {
	t.Logf("vector kernel in use: %v", kernels)
	rng := rand.New(rand.NewPCG(4, 4))
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.MaxFloat64, 1e-308, 5e-324, 1.0000000000000002, math.Inf(-1)}
	value := func() float64 {
		if rng.IntN(10) == 0 {
			return special[rng.IntN(len(special))]
		}
		return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(13)-6))
	}
	const stride = 11 // the matrices are n x 11 and 11 x n, row-major
	for _, n := range []int{1, 2, 3, 4, 5, 8, 17, 64} {
		a := make([]float64, n*stride+3)
		b := make([]float64, n*stride+3)
		for i := range a {
			a[i], b[i] = value(), value()
		}
		views := map[string]Strided{
			"rows":       {Data: a[1:], Row: n, Col: 1},      // P is 11 x n, row-major (n columns)
			"transposed": {Data: a[2:], Row: 1, Col: stride}, // P(i,t) = A(t,i) of an n x 11 A
		}
		for name, p := range views {
			for rows := 1; rows <= 4; rows++ {
				for cols := 1; cols <= TileCols; cols++ {
					// Q has room for a full row at every step but, every
					// other time, the last, as at a matrix's end.
					q := Strided{Data: b[3:], Row: stride, Col: 1}
					if cols%2 == 1 {
						q.Data = q.Data[:(n-1)*stride+cols]
					}
					got := [TileRows * TileCols]float64{}
					for i := range got {
						got[i] = 7 // outside rows x cols: left alone
					}
					MulTile(&got, p, q, n, rows, cols)
					for i := range 4 {
						for j := range TileCols {
							want := 7.0
							if i < rows && j < cols {
								want = 0
								for k := range n {
									// The conversion rounds the product (no fusing).
									want += float64(p.Data[i*p.Row+k*p.Col] * q.Data[k*q.Row+j])
								}
							}
							g := got[i*TileCols+j]
							if math.Float64bits(g) != math.Float64bits(want) && !(math.IsNaN(g) && math.IsNaN(want)) {
								t.Fatalf("%s n=%d %dx%d: out[%d][%d] = %v, want %v", name, n, rows, cols, i, j, g, want)
							}
						}
					}
				}
			}
		}
	}
}

// TestMulTileShortView checks that a view too short for the tile panics
// before any element is read, instead of the kernel reading past it.
func TestMulTileShortView(t *testing.T) {
	p := Strided{Data: make([]float64, 4*8-1), Row: 8, Col: 1}
	q := Strided{Data: make([]float64, 8*4), Row: 4, Col: 1}
	defer func() {
		if recover() == nil {
			t.Fatal("a P view one element short did not panic")
		}
	}()
	var out [TileRows * TileCols]float64
	MulTile(&out, p, q, 8, 4, 4)
}
