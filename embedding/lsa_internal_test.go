package embedding

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestOrthonormalize: the thin Q is orthonormal and spans a's columns,
// by Cholesky QR and, for a rank-deficient matrix, by Householder QR
// (whose thin Q is the full Q's first columns).
func TestOrthonormalize(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const r, c = 60, 9
	a := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	q := *mat.DenseCopyOf(a)
	orthonormalize(&q)
	if qr, qc := q.Dims(); qr != r || qc != c {
		t.Fatalf("Q is %dx%d, want %dx%d", qr, qc, r, c)
	}
	var hq mat.Dense
	householderQR(a, &hq)
	var full mat.Dense
	var f mat.QR
	f.Factorize(a)
	f.QTo(&full)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if d := math.Abs(hq.At(i, j) - full.At(i, j)); d > 1e-12 {
				t.Fatalf("Householder Q[%d,%d] = %g, full Q has %g", i, j, hq.At(i, j), full.At(i, j))
			}
		}
	}
	// Cholesky QR's Q has R's diagonal positive: the same columns up to
	// sign.
	for j := 0; j < c; j++ {
		sign := 1.0
		if q.At(0, j)*hq.At(0, j) < 0 {
			sign = -1
		}
		for i := 0; i < r; i++ {
			if d := math.Abs(q.At(i, j) - sign*hq.At(i, j)); d > 1e-10 {
				t.Fatalf("Q[%d,%d] = %g, Householder's %g", i, j, q.At(i, j), hq.At(i, j))
			}
		}
	}
	// A rank-deficient matrix falls back to Householder.
	deficient := mat.DenseCopyOf(a)
	for i := 0; i < r; i++ {
		deficient.Set(i, c-1, deficient.At(i, 0))
	}
	before := mat.DenseCopyOf(deficient)
	if choleskyQR(deficient) {
		t.Error("Cholesky QR accepted a rank-deficient matrix")
	}
	if !mat.EqualApprox(deficient, before, 1e-9) {
		t.Error("a refused Cholesky QR changed the matrix")
	}
	checkOrthonormal(t, &q)
	// a = Q R: a's columns lie in Q's span.
	var proj, back mat.Dense
	proj.Mul(q.T(), a)
	back.Mul(&q, &proj)
	if !mat.EqualApprox(&back, a, 1e-10) {
		t.Errorf("Q does not span a's columns")
	}
}

// TestCholeskyQR_illConditioned: columns whose scales span 10⁵ (κ(AᵀA)
// about 10¹⁰) lose about 10⁻⁶ of orthogonality in one pass of Cholesky QR;
// the second pass, taken because of that condition, restores it.
func TestCholeskyQR_illConditioned(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const r, c = 200, 12
	a := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			// Nearly parallel columns of very different lengths.
			a.Set(i, j, (1+1e-3*rng.NormFloat64())*math.Pow(10, -5*float64(j)/(c-1)))
		}
	}
	q := mat.DenseCopyOf(a)
	if !choleskyQR(q) {
		t.Fatal("Cholesky QR refused a full-rank matrix")
	}
	checkOrthonormal(t, q)
}

// checkOrthonormal fails unless QᵀQ is the identity to 1e-12.
func checkOrthonormal(t *testing.T, q *mat.Dense) {
	t.Helper()
	_, c := q.Dims()
	var g mat.Dense
	g.Mul(q.T(), q)
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
}
