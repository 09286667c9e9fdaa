package embedding

import (
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/nova-recall/nova/parallel"
	"github.com/nova-recall/nova/vector"
)

// The dense float64 steps of the training: orthonormalising the sketch,
// the Gram matrices of the eigenproblem and the product that turns the
// eigenvectors into the basis. Their products go through vector.MulTile,
// tiles summed in registers from operands copied into panels; gonum's
// BLAS ran them as one axpy of two numbers a step per pair of rows, and
// they were half of the training (-bench 'TrainLSA$': 3.56-3.71 → 2.37-2.49 s
// for 12 000 documents, the same model to the last decimal of the golden
// files).

// orthonormalize replaces a's columns (a is r x c with r >= c) by an
// orthonormal basis of their span: the thin Q of a QR factorisation. Only
// the c columns are formed; the full r x r Q (mat.QR.QTo) of 12 000
// sampled documents or a 40 000-term vocabulary would take gigabytes.
func orthonormalize(a *mat.Dense) {
	if choleskyQR(a) {
		return
	}
	householderQR(a, a)
}

// choleskyQR orthonormalizes a in place with one or two passes of Cholesky
// QR (Q = A R⁻¹ with RᵀR = AᵀA): matrix products that block well, several
// times faster here than Householder's column-at-a-time reflections. The
// second pass restores the orthogonality the first loses on an
// ill-conditioned matrix. It reports false (a untouched) when AᵀA is not
// positive definite: a rank-deficient sketch of a small corpus.
func choleskyQR(a *mat.Dense) bool {
	rs := make([]mat.TriDense, 2)
	for pass := range 2 {
		g := gram(a)
		var ch mat.Cholesky
		if !ch.Factorize(g) {
			// Undo the first pass, so a is as it was.
			if pass == 1 {
				blas64.Trmm(blas.Right, blas.NoTrans, 1, rs[0].RawTriangular(), a.RawMatrix())
			}
			return false
		}
		ch.UTo(&rs[pass])
		solveUpperRight(a.RawMatrix(), rs[pass].RawTriangular())
		// One pass leaves the columns orthogonal to about κ(AᵀA)·ε. The
		// second pass is only needed when that exceeds the float32 products'
		// own rounding, as on a tiny corpus whose sketch is nearly rank
		// deficient (κ 10¹³ on the Chinese set). κ was 5·10⁶ on a
		// 12 000-document sample and 9·10⁷ on LoCoMo, where the second pass
		// would be a quarter of the training's dense work.
		if pass == 0 && ch.Cond() < cholQROnePassCond {
			return true
		}
	}
	return true
}

// cholQROnePassCond is the condition number of AᵀA under which one pass of
// Cholesky QR is orthogonal enough: 10⁸·ε ≈ 10⁻⁸, below float32's 10⁻⁷.
const cholQROnePassCond = 1e8

// solveUpperRight replaces a by a R⁻¹, R upper triangular and c x c for
// an r x c a: each row x of the result solves x R = y by substitution,
// x_j = (y_j − Σ_{t<j} x_t R_tj) / R_jj. A tile of rows and columns
// (vector.TileRows x TileCols) goes at a time: the sum over the columns
// solved before the block is one tile of x·R; those within it follow one
// by one. Rows are independent, so the cores share them in pieces
// (parallel.Shared: the last segment is sealed on another goroutine while
// the model trains, and fixed halves waited for the core it slowed) and
// give the same bits as one loop.
func solveUpperRight(a blas64.General, r blas64.Triangular) {
	c := a.Cols
	rp := panels(dense[float64]{Rows: c, Cols: c, Stride: r.Stride, Data: r.Data}, 0, c, nil)
	parallel.Shared(a.Rows, 512, func(lo, hi int) {
		var tile [vector.TileRows * vector.TileCols]float64
		for r0 := lo; r0 < hi; r0 += vector.TileRows {
			nr := min(vector.TileRows, hi-r0)
			rows := a.Data[r0*a.Stride:]
			for j0 := 0; j0 < c; j0 += vector.TileCols {
				nc := min(vector.TileCols, c-j0)
				vector.MulTile(&tile,
					vector.Strided{Data: rows, Row: a.Stride, Col: 1},
					panel(rp, c, j0), j0, nr, nc)
				for jj := range nc {
					j := j0 + jj
					for i := range nr {
						row := rows[i*a.Stride:]
						x := row[j] - tile[i*vector.TileCols+jj]
						for t := j0; t < j; t++ {
							x -= float64(row[t] * r.Data[t*r.Stride+j])
						}
						row[j] = x / r.Data[j*r.Stride+j]
					}
				}
			}
		}
	})
}

// gramBlock is how many rows of a each share of AᵀA covers: small enough
// that the shares of a 12 000-row sample balance over the cores. It is fixed,
// not one share per core, so that the sum, and so the trained model, is
// the same on every machine.
const gramBlock = 2048

// gram returns AᵀA, summed over blocks of rows computed on every core.
func gram(a *mat.Dense) *mat.SymDense {
	return crossGram(a, denseOf(a))
}

// dense is a row-major matrix of float64s or float32s: element (i, j) is
// Data[i*Stride+j]. A product whose result is float32 to begin with (a
// float32 sum) is kept as one, at half the memory: the training's large
// matrices are fresh pages, and faulting them in was as costly as their
// products in a build.
type dense[T float32 | float64] struct {
	Rows, Cols, Stride int
	Data               []T
}

// denseOf is m's own data as a dense.
func denseOf(m *mat.Dense) dense[float64] {
	r := m.RawMatrix()
	return dense[float64]{Rows: r.Rows, Cols: r.Cols, Stride: r.Stride, Data: r.Data}
}

// crossGram returns AᵀB for A and B r x c whose product is symmetric (B
// = M A with M symmetric, or B = A): only its upper triangle, the part
// Cholesky and EigenSym read, is computed. The shares of the fixed blocks
// of rows are summed in order. B's float32 values enter the sums as the
// float64s they are exactly.
func crossGram[T float32 | float64](a *mat.Dense, b dense[T]) *mat.SymDense {
	r, c := a.Dims()
	parts := make([][]float64, max(1, (r+gramBlock-1)/gramBlock))
	parallel.Shared(len(parts), 1, func(i, _ int) {
		parts[i] = takeFloats(&gramParts, c*c)
		clear(parts[i])
		addUpperAtB(parts[i], a.RawMatrix(), b, i*gramBlock, min(r, (i+1)*gramBlock))
	})
	g := parts[0] // the result's, not given back
	for _, p := range parts[1:] {
		for i := range c {
			for j := i; j < c; j++ {
				g[i*c+j] += p[i*c+j]
			}
		}
		giveFloats(&gramParts, p)
	}
	return mat.NewSymDense(c, g)
}

// gramParts and gramPanels hold the scratch of the Gram matrices for
// reuse: each block's share, and the panels each run of rows is copied
// into. A build trains once in its process, so a fresh buffer is fresh
// pages, and faulting those in cost as much as the products that fill
// them.
var gramParts, gramPanels sync.Pool

// takeFloats returns a buffer of n float64s from p (contents arbitrary),
// or a new one.
func takeFloats(p *sync.Pool, n int) []float64 {
	if b, ok := p.Get().(*[]float64); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]float64, n)
}

// giveFloats puts b back in p for another takeFloats.
func giveFloats(p *sync.Pool, b []float64) { p.Put(&b) }

// addUpperAtB adds the upper triangle of AᵀB over rows [lo, hi) to dst
// (c x c, row-major), in runs of atbRun rows whose columns are copied
// into panels (B's too, unless it is A) and stay in cache while every
// tile of the triangle is formed.
func addUpperAtB[T float32 | float64](dst []float64, a blas64.General, b dense[T], lo, hi int) {
	c := a.Cols
	var tile [vector.TileRows * vector.TileCols]float64
	b64, same := any(b.Data).([]float64)
	same = same && &a.Data[0] == &b64[0]
	pa := takeFloats(&gramPanels, 0)
	defer func() { giveFloats(&gramPanels, pa) }()
	var pb []float64
	if !same {
		pb = takeFloats(&gramPanels, 0)
		defer func() { giveFloats(&gramPanels, pb) }()
	}
	for r0 := lo; r0 < hi; r0 += atbRun {
		n := min(atbRun, hi-r0)
		pa = panels(dense[float64]{Rows: a.Rows, Cols: a.Cols, Stride: a.Stride, Data: a.Data}, r0, r0+n, pa)
		if same {
			pb = pa
		} else {
			// Its own buffer: B's panels must not overwrite A's.
			pb = panels(b, r0, r0+n, pb)
		}
		for i0 := 0; i0 < c; i0 += vector.TileRows {
			nr := min(vector.TileRows, c-i0)
			// P(i,t) = A(r0+t, i0+i): four columns of A's panel as rows.
			pp := panel(pa, n, i0)
			p := vector.Strided{Data: pp.Data[i0%vector.TileCols:], Row: 1, Col: vector.TileCols}
			for j0 := i0 &^ (vector.TileCols - 1); j0 < c; j0 += vector.TileCols {
				nc := min(vector.TileCols, c-j0)
				vector.MulTile(&tile, p, panel(pb, n, j0), n, nr, nc)
				for i := range nr {
					out := dst[(i0+i)*c+j0:]
					for j := range nc {
						out[j] += tile[i*vector.TileCols+j]
					}
				}
			}
		}
	}
}

// atbRun is how many rows addUpperAtB takes at a time: 256 rows of a
// 396-column sketch, both matrices, are 1.6 MB.
const atbRun = 256

// panels copies the rows [lo, hi) of m into panels vector.TileCols
// columns wide, one after another, each (hi-lo) x TileCols and row-major,
// zero past m's last column: MulTile then reads one cache line a step, in
// order, where m's own rows would be a cache line a stride apart (and
// strides over 2 KB defeat the prefetcher). It reuses buf when it is big
// enough.
func panels[T float32 | float64](m dense[T], lo, hi int, buf []float64) []float64 {
	const w = vector.TileCols
	n := hi - lo
	size := (m.Cols + w - 1) / w * w * n
	if cap(buf) < size {
		buf = make([]float64, size)
	}
	buf = buf[:size]
	for j0 := 0; j0 < m.Cols; j0 += w {
		dst := buf[j0*n:]
		nc := min(w, m.Cols-j0)
		for t := range n {
			row := dst[t*w : t*w+w]
			src := m.Data[(lo+t)*m.Stride+j0:][:nc]
			if s, ok := any(src).([]float64); ok {
				copy(row, s)
			} else {
				for j, x := range src {
					row[j] = float64(x)
				}
			}
			clear(row[nc:])
		}
	}
	return buf
}

// panel is the view of the panel of ps (each n rows) that holds column j.
func panel(ps []float64, n, j int) vector.Strided {
	return vector.Strided{Data: ps[j/vector.TileCols*vector.TileCols*n:], Row: vector.TileCols, Col: 1}
}

// householderQR sets dst to the thin Q of a Householder QR factorisation
// of a (dst may be a).
func householderQR(a *mat.Dense, dst *mat.Dense) {
	q := mat.DenseCopyOf(a)
	raw := q.RawMatrix()
	_, c := a.Dims()
	tau := make([]float64, c)
	work := []float64{0}
	lapack64.Geqrf(raw, tau, work, -1)
	work = make([]float64, max(1, int(work[0])))
	lapack64.Geqrf(raw, tau, work, len(work))
	work = []float64{0}
	lapack64.Orgqr(raw, tau, work, -1)
	work = make([]float64, max(c, int(work[0])))
	lapack64.Orgqr(raw, tau, work, len(work))
	*dst = *q
}

// mulDense sets dst (row-major, a.Rows x b.Cols) to A·B, rounded to
// float32, a tile of four rows and four columns at a time; the cores
// share the rows in pieces (as in solveUpperRight).
func mulDense(dst []float32, a, b blas64.General) {
	k := b.Cols
	bp := panels(dense[float64]{Rows: b.Rows, Cols: b.Cols, Stride: b.Stride, Data: b.Data}, 0, b.Rows, nil)
	parallel.Shared(a.Rows, 256, func(lo, hi int) {
		var tile [vector.TileRows * vector.TileCols]float64
		for r0 := lo; r0 < hi; r0 += vector.TileRows {
			nr := min(vector.TileRows, hi-r0)
			p := vector.Strided{Data: a.Data[r0*a.Stride:], Row: a.Stride, Col: 1}
			for j0 := 0; j0 < k; j0 += vector.TileCols {
				nc := min(vector.TileCols, k-j0)
				vector.MulTile(&tile, p, panel(bp, b.Rows, j0), a.Cols, nr, nc)
				for i := range nr {
					out := dst[(r0+i)*k+j0:]
					for j := range nc {
						out[j] = float32(tile[i*vector.TileCols+j])
					}
				}
			}
		}
	})
}
