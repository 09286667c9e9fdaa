package vector

import "testing"

// BenchmarkMulTile forms 4 x 8 tiles over 256 steps: from packed
// operands (each step's numbers side by side), and from the strided views
// of a 256 x 396 matrix that a Gram matrix reads (one cache line a step).
func BenchmarkMulTile(b *testing.B) {
	const n, c = 256, 396
	data := make([]float64, n*c)
	for i := range data {
		data[i] = float64(i%97) / 97
	}
	var out [TileRows * TileCols]float64
	b.Run("packed", func(b *testing.B) {
		p := Strided{Data: data, Row: 1, Col: 8}
		q := Strided{Data: data[8*n:], Row: 8, Col: 1}
		for range b.N {
			MulTile(&out, p, q, n, 4, 8)
		}
		b.ReportMetric(float64(32*n*b.N)/b.Elapsed().Seconds()/1e9, "Gmuladd/s")
	})
	b.Run("strided", func(b *testing.B) {
		i := 0
		for range b.N {
			i0, j0 := (i*4)%c, (i*12)%(c-8)
			i++
			p := Strided{Data: data[i0:], Row: 1, Col: c}
			q := Strided{Data: data[j0:], Row: c, Col: 1}
			MulTile(&out, p, q, n, 4, 8)
		}
		b.ReportMetric(float64(32*n*b.N)/b.Elapsed().Seconds()/1e9, "Gmuladd/s")
	})
}
