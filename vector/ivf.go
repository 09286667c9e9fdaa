package vector

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"unsafe"

	"github.com/nova-recall/nova/topk"
)

// Cells is the coarse quantizer of an inverted-file index: unit
// centroids in two levels (Groups top centroids, each with PerGroup cells),
// learned by spherical k-means. A vector belongs to the best cell of its
// best group, which costs Groups+PerGroup dot products instead of one per
// cell. A search scores every cell and scans the vectors of the best
// few (Probe). Cells belong to a vector space, like its quantizer.
type Cells struct {
	Dim, Groups, PerGroup int
	// Probe is how many cells a search scans, chosen at build time as the
	// smallest count whose measured recall@10 reached ANNMinRecall.
	Probe int
	top   []float32 // Groups x Dim
	cells []float32 // Groups*PerGroup x Dim, group-major
}

// N is the number of cells.
func (c *Cells) N() int { return c.Groups * c.PerGroup }

// TrainCells learns groups x perGroup cells from sample (rows of dim),
// deterministically for a given sample and seed.
func TrainCells(sample []float32, dim, groups, perGroup int, seed uint64) *Cells {
	rows := len(sample) / dim
	c := &Cells{Dim: dim, Groups: groups, PerGroup: perGroup, Probe: 1}
	all := make([]int, rows)
	for i := range all {
		all[i] = i
	}
	c.top = kmeans(sample, dim, all, groups, seed)
	members := make([][]int, groups)
	for i := range rows {
		g := best(c.top, dim, sample[i*dim:(i+1)*dim])
		members[g] = append(members[g], i)
	}
	c.cells = make([]float32, 0, groups*perGroup*dim)
	for g := range groups {
		sub := kmeans(sample, dim, members[g], perGroup, seed+uint64(g)+1)
		c.cells = append(c.cells, sub...)
	}
	return c
}

// kmeans runs spherical k-means over the rows of sample listed in idx and
// returns k unit centroids. Fewer rows than k repeat rows (their cells
// stay empty or duplicate, which costs nothing but a little probing).
func kmeans(sample []float32, dim int, idx []int, k int, seed uint64) []float32 {
	const iterations = 8
	rng := rand.New(rand.NewPCG(seed, 0x6976662e))
	cent := make([]float32, k*dim)
	if len(idx) == 0 {
		for j := range cent {
			cent[j] = float32(rng.NormFloat64())
		}
		for i := range k {
			normalize(cent[i*dim : (i+1)*dim])
		}
		return cent
	}
	perm := rng.Perm(len(idx))
	for i := range k {
		copy(cent[i*dim:(i+1)*dim], sample[idx[perm[i%len(perm)]]*dim:])
		normalize(cent[i*dim : (i+1)*dim])
	}
	sums := make([]float64, k*dim)
	counts := make([]int, k)
	for range iterations {
		clear(sums)
		clear(counts)
		for _, r := range idx {
			v := sample[r*dim : (r+1)*dim]
			c := best(cent, dim, v)
			counts[c]++
			s := sums[c*dim : (c+1)*dim]
			for j, x := range v {
				s[j] += float64(x)
			}
		}
		for c := range k {
			if counts[c] == 0 {
				continue // keep the previous centroid
			}
			dst := cent[c*dim : (c+1)*dim]
			for j, x := range sums[c*dim : (c+1)*dim] {
				dst[j] = float32(x)
			}
			normalize(dst)
		}
	}
	return cent
}

func normalize(v []float32) {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
}

// best returns the row of cent (rows of dim) with the highest dot product
// with v; ties go to the lower row.
func best(cent []float32, dim int, v []float32) int {
	b, bs := 0, float32(math.Inf(-1))
	for i := 0; i*dim < len(cent); i++ {
		if s := dot(v, cent[i*dim:(i+1)*dim]); s > bs {
			b, bs = i, s
		}
	}
	return b
}

// Assign returns the cell of v.
func (c *Cells) Assign(v []float32) int {
	g := best(c.top, c.Dim, v)
	off := g * c.PerGroup * c.Dim
	return g*c.PerGroup + best(c.cells[off:off+c.PerGroup*c.Dim], c.Dim, v)
}

// probe returns the n cells with the highest dot product with q.
func (c *Cells) probe(q []float32, n int) []int {
	h := topk.New(n, func(a, b Hit) bool {
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		return a.Doc < b.Doc
	})
	for i := range c.N() {
		h.Push(Hit{Doc: i, Score: dot(q, c.cells[i*c.Dim:(i+1)*c.Dim])})
	}
	out := make([]int, 0, n)
	for _, x := range h.Sorted() {
		out = append(out, x.Doc)
	}
	return out
}

// MarshalBinary encodes the cells: dim, groups, perGroup, probe (u32
// each), then the top and cell centroids as float32.
func (c *Cells) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, 16+4*(len(c.top)+len(c.cells)))
	for _, v := range []int{c.Dim, c.Groups, c.PerGroup, c.Probe} {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	for _, x := range c.top {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	for _, x := range c.cells {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b, nil
}

// ParseCells decodes MarshalBinary's output.
func ParseCells(b []byte) (*Cells, error) {
	if len(b) < 16 {
		return nil, fmt.Errorf("%w: short cells", ErrCorrupt)
	}
	le := binary.LittleEndian
	c := &Cells{Dim: int(le.Uint32(b)), Groups: int(le.Uint32(b[4:])), PerGroup: int(le.Uint32(b[8:])), Probe: int(le.Uint32(b[12:]))}
	if c.Dim <= 0 || c.Dim > 1<<16 || c.Groups <= 0 || c.PerGroup <= 0 || c.Groups*c.PerGroup > 1<<20 || c.Probe <= 0 || c.Probe > c.N() {
		return nil, fmt.Errorf("%w: cells header out of range", ErrCorrupt)
	}
	want := 16 + 4*(c.Groups+c.N())*c.Dim
	if len(b) != want {
		return nil, fmt.Errorf("%w: cells size %d, want %d", ErrCorrupt, len(b), want)
	}
	floats := make([]float32, (c.Groups+c.N())*c.Dim)
	for i := range floats {
		floats[i] = math.Float32frombits(le.Uint32(b[16+4*i:]))
	}
	c.top, c.cells = floats[:c.Groups*c.Dim], floats[c.Groups*c.Dim:]
	return c, nil
}

// The lists file of one segment (little endian): magic "NOVIVF02",
// cells u32, rows u32, then the end offset of each cell's list (cells x
// u32) and the lists themselves (rows x u32 local document numbers,
// ascending within a cell).
const listsMagic = "NOVIVF02"

// WriteLists writes the lists file of a segment whose vectors fall in
// the given cells (assign[i] is the cell of row i).
func WriteLists(w io.Writer, cells int, assign []uint32) (int64, error) {
	ends := make([]uint32, cells)
	for _, c := range assign {
		ends[c]++
	}
	for c := 1; c < cells; c++ {
		ends[c] += ends[c-1]
	}
	docs := make([]uint32, len(assign))
	next := make([]uint32, cells)
	for c := 1; c < cells; c++ {
		next[c] = ends[c-1]
	}
	for i, c := range assign {
		docs[next[c]] = uint32(i)
		next[c]++
	}
	bw := bufio.NewWriter(w)
	cw := &countingWriter{w: bw}
	le := binary.LittleEndian
	b := append([]byte(listsMagic), 0, 0, 0, 0, 0, 0, 0, 0)
	le.PutUint32(b[8:], uint32(cells))
	le.PutUint32(b[12:], uint32(len(assign)))
	cw.Write(b)
	for _, v := range [][]uint32{ends, docs} {
		if len(v) > 0 {
			cw.Write(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v)))
		}
	}
	if err := bw.Flush(); err != nil {
		return cw.n, err
	}
	return cw.n, nil
}

// Lists is a segment's lists file read in place.
type Lists struct {
	ends, docs []uint32
}

// OpenLists checks b's layout against the segment's cells and rows.
func OpenLists(b []byte, cells, rows int) (*Lists, error) {
	le := binary.LittleEndian
	if len(b) < 16 || string(b[:8]) != listsMagic {
		return nil, fmt.Errorf("%w: bad lists magic", ErrCorrupt)
	}
	if int(le.Uint32(b[8:])) != cells || int(le.Uint32(b[12:])) != rows || len(b) != 16+4*(cells+rows) {
		return nil, fmt.Errorf("%w: lists sized for other cells or rows", ErrCorrupt)
	}
	l := &Lists{ends: u32s(b[16 : 16+4*cells]), docs: u32s(b[16+4*cells:])}
	prev := uint32(0)
	for _, e := range l.ends {
		if e < prev || int(e) > rows {
			return nil, fmt.Errorf("%w: lists out of order", ErrCorrupt)
		}
		prev = e
	}
	if int(prev) != rows {
		return nil, fmt.Errorf("%w: lists do not cover the rows", ErrCorrupt)
	}
	for _, d := range l.docs {
		if int(d) >= rows {
			return nil, fmt.Errorf("%w: list names row %d of %d", ErrCorrupt, d, rows)
		}
	}
	return l, nil
}

func u32s(b []byte) []uint32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
}

func (l *Lists) cell(c int) []uint32 {
	lo := uint32(0)
	if c > 0 {
		lo = l.ends[c-1]
	}
	return l.docs[lo:l.ends[c]]
}

// ANNMinRecall is the recall@10 (against exact float search) an
// approximate search must reach at build time before a generation may use
// it.
const ANNMinRecall = 0.95

// SearchCells is Index.Search over vectors held elsewhere (a build's
// sample): the members of each cell and each member's codes come from the
// callbacks. It returns the k best members, best first, probing
// cells.Probe cells as a generation's search would.
func SearchCells(cells *Cells, q Quantizer, query []float32, k int, members func(cell int) []int, codes func(i int) []int8) []int {
	p := q.Prepare(query)
	better := func(a, b Hit) bool {
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		return a.Doc < b.Doc
	}
	cands := topk.New(max(rerankFactor*k, 64), better)
	for _, c := range cells.probe(query, cells.Probe) {
		for _, i := range members(c) {
			cands.Push(Hit{Doc: i, Score: p.Fast(codes(i))})
		}
	}
	best := topk.New(k, better)
	for _, h := range cands.Items() {
		best.Push(Hit{Doc: h.Doc, Score: p.Exact(codes(h.Doc))})
	}
	out := make([]int, 0, k)
	for _, h := range best.Sorted() {
		out = append(out, h.Doc)
	}
	return out
}
