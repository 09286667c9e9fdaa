package vector

// Strided is a matrix of float64s seen through a slice: element (i, j) is
// Data[i*Row + j*Col]. A row-major matrix with c columns is {Row: c,
// Col: 1}; its transpose is {Row: 1, Col: c}.
type Strided struct {
	Data     []float64
	Row, Col int
}

// at is element (i, j).
func (m Strided) at(i, j int) float64 { return m.Data[i*m.Row+j*m.Col] }

// Tile is the largest tile MulTile forms: TileRows x TileCols.
const (
	TileRows = 4
	TileCols = 8
)

// MulTile sets out[i*TileCols+j], for i < rows and j < cols (at most
// TileRows and TileCols), to Σ_{t<n} P(i,t)·Q(t,j): one tile of the product
// P·Q, the inner step of the builtin model's training (its Gram matrices,
// triangular solves and products). Each sum runs in order of t, every
// product and every sum rounded on its own (never fused), so the vector
// kernel (dot_amd64.s, dot_arm64.s) and the plain loop give the same bits
// and a trained model is the same on every machine. Elements of out
// outside rows x cols are left as they are. It panics when a view is too
// short for the tile.
func MulTile(out *[TileRows * TileCols]float64, p, q Strided, n, rows, cols int) {
	if n <= 0 || rows <= 0 || cols <= 0 {
		for i := range rows {
			for j := range cols {
				out[i*TileCols+j] = 0
			}
		}
		return
	}
	// The last element each view is read at: a short view panics here,
	// before the kernel could read past it.
	_ = p.at(rows-1, n-1)
	_ = q.at(n-1, cols-1)
	if !kernels || rows != TileRows || q.Col != 1 {
		mulTileGo(out, p, q, n, rows, cols)
		return
	}
	if cols == TileCols {
		mulTileKernel(&p.Data[0], p.Row, p.Col, &q.Data[0], q.Row, n, out)
		return
	}
	// A narrower tile at a matrix's right edge: the kernel reads a full
	// row of Q at each step where the view holds one (the rest of the row
	// and the start of the next), and only the tile's columns are kept.
	if (n-1)*q.Row+TileCols > len(q.Data) {
		mulTileGo(out, p, q, n, rows, cols)
		return
	}
	var full [TileRows * TileCols]float64
	mulTileKernel(&p.Data[0], p.Row, p.Col, &q.Data[0], q.Row, n, &full)
	for i := range rows {
		copy(out[i*TileCols:i*TileCols+cols], full[i*TileCols:])
	}
}

// mulTileGo is MulTile in Go, for CPUs without the vector kernel and for
// tiles at a matrix's edge. The conversion keeps the compiler from fusing
// the multiply and add (which it does on arm64).
func mulTileGo(out *[TileRows * TileCols]float64, p, q Strided, n, rows, cols int) {
	for i := range rows {
		for j := range cols {
			var s float64
			for t := range n {
				s += float64(p.at(i, t) * q.at(t, j))
			}
			out[i*TileCols+j] = s
		}
	}
}
