package embedding

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestOrthonormalize: the thin Q is the first columns of the full Q of
// the same factorisation, and orthonormal.
func TestOrthonormalize(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const r, c = 60, 9
	a := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var q mat.Dense
	orthonormalize(a, &q)
	if qr, qc := q.Dims(); qr != r || qc != c {
		t.Fatalf("Q is %dx%d, want %dx%d", qr, qc, r, c)
	}
	var full mat.Dense
	var f mat.QR
	f.Factorize(a)
	f.QTo(&full)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if d := math.Abs(q.At(i, j) - full.At(i, j)); d > 1e-12 {
				t.Fatalf("Q[%d,%d] = %g, full Q has %g", i, j, q.At(i, j), full.At(i, j))
			}
		}
	}
	var g mat.Dense
	g.Mul(q.T(), &q)
	for i := 0; i < c; i++ {
		for j := 0; j < c; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(g.At(i, j)-want) > 1e-12 {
				t.Fatalf("QᵀQ[%d,%d] = %g", i, j, g.At(i, j))
			}
		}
	}
	// a = Q R: a's columns lie in Q's span.
	var proj, back mat.Dense
	proj.Mul(q.T(), a)
	back.Mul(&q, &proj)
	if !mat.EqualApprox(&back, a, 1e-10) {
		t.Errorf("Q does not span a's columns")
	}
}
