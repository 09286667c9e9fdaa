package embedding

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestMatrixProducts holds the training's tiled products to gonum's: the
// upper triangle of AᵀA and AᵀB (over more rows than a run and a block,
// with columns that are no multiple of a tile), the triangular solve and
// the product rounded to float32.
func TestMatrixProducts(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	random := func(r, c int) *mat.Dense {
		m := mat.NewDense(r, c, nil)
		for i := range r {
			for j := range c {
				m.Set(i, j, rng.NormFloat64())
			}
		}
		return m
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("%s = %v, want %v", what, got, want)
		}
	}
	for _, size := range []struct{ r, c int }{{3, 3}, {17, 5}, {gramBlock + atbRun + 3, 13}, {300, 21}} {
		a, b := random(size.r, size.c), random(size.r, size.c)
		var want mat.Dense
		for _, pair := range []struct {
			name string
			got  *mat.SymDense
			b    *mat.Dense
		}{{"AᵀA", gram(a), a}, {"AᵀB", crossGram(a, denseOf(b)), b}} {
			want.Mul(a.T(), pair.b)
			for i := range size.c {
				for j := i; j < size.c; j++ {
					near(pair.name, pair.got.At(i, j), want.At(i, j))
				}
			}
		}

		// x R = a, R upper triangular and well conditioned.
		rt := mat.NewTriDense(size.c, mat.Upper, nil)
		for i := range size.c {
			for j := i; j < size.c; j++ {
				rt.SetTri(i, j, rng.NormFloat64()/4)
			}
			rt.SetTri(i, i, 2+rng.Float64())
		}
		x := mat.DenseCopyOf(a)
		solveUpperRight(x.RawMatrix(), rt.RawTriangular())
		var back mat.Dense
		back.Mul(x, rt)
		for i := range size.r {
			for j := range size.c {
				near("x R", back.At(i, j), a.At(i, j))
			}
		}

		u := random(size.c, size.c+3)
		got := make([]float32, size.r*(size.c+3))
		mulDense(got, a.RawMatrix(), u.RawMatrix())
		var au mat.Dense
		au.Mul(a, u)
		for i := range size.r {
			for j := range size.c + 3 {
				if g, w := float64(got[i*(size.c+3)+j]), au.At(i, j); math.Abs(g-w) > 1e-6*(1+math.Abs(w)) {
					t.Fatalf("A·U [%d][%d] = %v, want %v", i, j, g, w)
				}
			}
		}
	}
}
