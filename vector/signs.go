package vector

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"sync"
	"unsafe"

	"github.com/nova-recall/nova/parallel"
)

// The sign prefilter: from signMinDocs vectors a search first compares
// one bit per dimension (is the component above the space's centre?) by
// Hamming distance, a few popcounts per vector, and scores only the
// nearest signKeep(n) with int8 arithmetic. Below that, the int8 scan of
// every vector (vector kernels, dot_*.s) is faster and exact. Where the
// two meet depends on how much of the codes the caches hold
// (BenchmarkDenseMethods; figures in BENCHMARKS.md): near 130 000 on the
// AMD EPYC of the first runs, under 100 000 on the later Intel Xeon, where
// the prefilter made the bench's 100k p50 30% faster with the same hits.
// 50 000 is the low end measured: a laptop's caches hold less than either
// server's.
//
// The centre is the quantizer's: fixed for the space, so a segment's bits
// are the same in every generation that shares it and are computed once
// (Codes.signs). Zero would do as well for the builtin model's vectors,
// but an embedding endpoint's are often all on one side of zero in some
// dimensions, where every vector would get the same bit.
const (
	signMinDocs   = 50_000
	signKeepMin   = 8_000
	signKeepShare = 100 // keep at least n/signKeepShare
)

// signKeep is how many candidates the prefilter keeps out of n (at least
// signMinDocs): signKeepMin, and a hundredth from 800 000.
func signKeep(n int) int { return max(signKeepMin, n/signKeepShare) }

// signWords is the number of uint64 words of one vector's sign bits.
func signWords(dim int) int { return (dim + 63) / 64 }

// signs holds the sign bits of a generation's vectors.
type signs struct {
	words  int        // uint64 words per vector
	segs   [][]uint64 // per segment: words per row, rows in order
	bases  []int      // the first document of each segment
	n      int        // documents in all
	centre []float32  // a query's bits compare with it
}

// signsOf gathers the sign bits of ix's segments, computing those a
// segment does not hold yet for this centre.
func signsOf(ix *Index) *signs {
	dim, scale := ix.Dim(), ix.space.Quantizer.Scale
	// The centre in code units: a code c is above it exactly when c is
	// above its floor, so the comparison runs on integers.
	centre := ix.space.Quantizer.Centre
	var floor []int32
	if centre == nil {
		mean := meanCodes(ix)
		centre = make([]float32, dim)
		for j, m := range mean {
			centre[j] = float32(m) * scale[j]
		}
		floor = floorOf(mean)
	} else {
		floor = ix.space.Quantizer.signFloor()
	}
	s := &signs{words: signWords(dim), bases: ix.bases, n: ix.n, centre: centre}
	for _, seg := range ix.segs {
		s.segs = append(s.segs, seg.signs(floor))
	}
	return s
}

// signFloor is the quantizer's centre in code units, rounded down: a code
// is above the centre exactly when it is above the floor. Nil without a
// centre.
func (q Quantizer) signFloor() []int32 {
	if q.Centre == nil {
		return nil
	}
	inCodes := make([]float64, len(q.Centre))
	for j, c := range q.Centre {
		inCodes[j] = float64(c / q.Scale[j])
	}
	return floorOf(inCodes)
}

// floorOf rounds a centre in code units down, within the codes' range.
func floorOf(inCodes []float64) []int32 {
	floor := make([]int32, len(inCodes))
	for j, m := range inCodes {
		floor[j] = int32(max(-128, min(127, math.Floor(m))))
	}
	return floor
}

// meanCodes is the mean of every vector's codes: the centre of a space
// whose quantizer has none (written before it), per generation.
func meanCodes(ix *Index) []float64 {
	dim := ix.Dim()
	var mu sync.Mutex
	sums := make([]int64, dim)
	parallel.Spans(ix.n, 16_384, func(lo, hi int) {
		local := make([]int64, dim)
		for d := lo; d < hi; d++ {
			for j, c := range ix.row(d) {
				local[j] += int64(c)
			}
		}
		mu.Lock()
		for j, x := range local {
			sums[j] += x
		}
		mu.Unlock()
	})
	mean := make([]float64, dim)
	for j, x := range sums {
		if ix.n > 0 {
			mean[j] = float64(x) / float64(ix.n)
		}
	}
	return mean
}

// signs returns every row's sign bits against floor (signWords(dim)
// words a row), computed on every core the first time and kept: a segment
// that successive generations share computes them once.
func (c *Codes) signs(floor []int32) []uint64 {
	c.signMu.Lock()
	defer c.signMu.Unlock()
	if c.signBits != nil && slices.Equal(c.signFloor, floor) {
		return c.signBits
	}
	words := signWords(c.dim)
	out := make([]uint64, c.rows*words)
	parallel.Spans(c.rows, 16_384, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			signBits(c.Row(r), floor, out[r*words:(r+1)*words])
		}
	})
	c.signFloor, c.signBits = slices.Clone(floor), out
	return out
}

// The sign bits file of one segment (little endian): magic "NOVSGN01",
// dim u32 and a zero u32, the floor the codes were compared with (dim i32,
// zero-padded to a multiple of 8 bytes), every row's bits (signWords(dim)
// u64 each), then rows u32 and words u32. The build writes it beside the
// codes when the space has a centre, so novad reads the bits in place
// instead of computing them, and keeps them as file pages the kernel can
// drop rather than as heap. The bits start 8-byte aligned in the file, and
// a mapping starts on a page.
const (
	signsMagic      = "NOVSGN01"
	signsFooterSize = 8
)

// signsHeaderSize is the size of a signs file's header at dimension dim.
func signsHeaderSize(dim int) int { return 16 + (4*dim+7)/8*8 }

// signsWriter streams a segment's sign bits.
type signsWriter struct {
	bw    *bufio.Writer
	floor []int32
	row   []uint64
	rows  uint32
}

// SignsTo makes w also write the rows' sign bits to out, against the
// quantizer's centre; call it before the first row. A quantizer without a
// centre has no bits to write: it returns false and writes nothing.
func (w *CodesWriter) SignsTo(out io.Writer) bool {
	floor := w.q.signFloor()
	if floor == nil || w.rows > 0 {
		return false
	}
	s := &signsWriter{bw: bufio.NewWriterSize(out, 1<<16), floor: floor, row: make([]uint64, signWords(len(floor)))}
	head := make([]byte, signsHeaderSize(len(floor)))
	copy(head, signsMagic)
	binary.LittleEndian.PutUint32(head[8:], uint32(len(floor)))
	for j, f := range floor {
		binary.LittleEndian.PutUint32(head[16+4*j:], uint32(f))
	}
	if _, err := s.bw.Write(head); err != nil {
		w.err = err
	}
	w.signs = s
	return true
}

func (s *signsWriter) add(codes []int8) error {
	signBits(codes, s.floor, s.row)
	var b [8]byte
	for _, x := range s.row {
		binary.LittleEndian.PutUint64(b[:], x)
		if _, err := s.bw.Write(b[:]); err != nil {
			return err
		}
	}
	s.rows++
	return nil
}

func (s *signsWriter) close() error {
	foot := binary.LittleEndian.AppendUint32(nil, s.rows)
	foot = binary.LittleEndian.AppendUint32(foot, uint32(len(s.row)))
	if _, err := s.bw.Write(foot); err != nil {
		return err
	}
	return s.bw.Flush()
}

// OpenSigns checks a signs file b against the segment's codes c and gives
// c its bits, read in place: b must stay valid and unchanged while c is
// used. A search asks for bits against the space's floor; bits stored
// against another floor are recomputed (Codes.signs).
func OpenSigns(b []byte, c *Codes) error {
	dim := c.dim
	head, words := signsHeaderSize(dim), signWords(dim)
	if len(b) < head+signsFooterSize || string(b[:8]) != signsMagic {
		return fmt.Errorf("%w: bad magic or short file", ErrCorrupt)
	}
	if d := int(binary.LittleEndian.Uint32(b[8:])); d != dim {
		return fmt.Errorf("%w: dimension %d, want %d", ErrCorrupt, d, dim)
	}
	foot := b[len(b)-signsFooterSize:]
	rows, w := int(binary.LittleEndian.Uint32(foot)), int(binary.LittleEndian.Uint32(foot[4:]))
	if rows != c.rows || w != words || len(b) != head+rows*words*8+signsFooterSize {
		return fmt.Errorf("%w: size %d for %d rows of %d words (codes: %d rows)", ErrCorrupt, len(b), rows, w, c.rows)
	}
	floor := make([]int32, dim)
	for j := range floor {
		floor[j] = int32(binary.LittleEndian.Uint32(b[16+4*j:]))
		if floor[j] < -128 || floor[j] > 127 {
			return fmt.Errorf("%w: floor %d is %d", ErrCorrupt, j, floor[j])
		}
	}
	var bits []uint64
	switch body := b[head : len(b)-signsFooterSize]; {
	case rows == 0:
		bits = []uint64{}
	case littleEndian:
		bits = unsafe.Slice((*uint64)(unsafe.Pointer(&body[0])), rows*words)
	default:
		bits = make([]uint64, rows*words)
		for i := range bits {
			bits[i] = binary.LittleEndian.Uint64(body[8*i:])
		}
	}
	c.signMu.Lock()
	c.signFloor, c.signBits = floor, bits
	c.signMu.Unlock()
	return nil
}

// littleEndian reports the machine's byte order: the bits are read in
// place only where it is the file's.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// signBits sets bit j of out when codes[j] > floor[j], without a branch
// per component (the comparisons are data-dependent coin flips).
func signBits(codes []int8, floor []int32, out []uint64) {
	for w := range out {
		lo, hi := w*64, min(w*64+64, len(codes))
		c, f := codes[lo:hi], floor[lo:hi]
		var x uint64
		for b := range c {
			// floor - code is negative exactly when code > floor.
			x |= uint64(uint32(f[b]-int32(c[b]))>>31) << b
		}
		out[w] = x
	}
}

// query returns q's sign bits.
func (s *signs) query(q []float32) []uint64 {
	out := make([]uint64, s.words)
	for j, x := range q {
		if x > s.centre[j] {
			out[j/64] |= 1 << (j % 64)
		}
	}
	return out
}

// farAway marks a document the filter refused: no distance reaches it.
const farAway = ^uint16(0)

// distances pools the per-query distance arrays (two bytes a vector).
var distances sync.Pool

// nearest returns the (about) keep accepted documents whose bits are
// nearest q's, in document order: every one nearer than the cut-off
// distance and, at the cut-off, the first in document order.
func (s *signs) nearest(q []float32, keep int, accept func(int) bool) []int {
	n, qb := s.n, s.query(q)
	dist, _ := distances.Get().([]uint16)
	if cap(dist) < n {
		dist = make([]uint16, n)
	}
	dist = dist[:n]
	defer distances.Put(dist) //nolint:staticcheck // a slice header is small next to what it saves
	// The distances are small integers: a histogram of them, counted as
	// they are computed, finds the cut-off.
	hist := make([]int, s.words*64+1)
	var mu sync.Mutex
	parallel.Spans(n, 16_384, func(lo, hi int) {
		local := make([]int, len(hist))
		for i, bits := range s.segs {
			base := s.bases[i]
			from, to := max(lo, base), min(hi, base+len(bits)/s.words)
			if from >= to {
				continue
			}
			rows := bits[(from-base)*s.words : (to-base)*s.words]
			if accept == nil {
				hammingRows(rows, qb, dist[from:to], local)
				continue
			}
			for d := from; d < to; d++ {
				if !accept(d) {
					dist[d] = farAway
					continue
				}
				h := hamming(rows[(d-from)*s.words:(d-from+1)*s.words], qb)
				dist[d] = uint16(h)
				local[h]++
			}
		}
		mu.Lock()
		for h, c := range local {
			hist[h] += c
		}
		mu.Unlock()
	})
	cut, below := 0, 0
	for cut < len(hist) && below+hist[cut] < keep {
		below += hist[cut]
		cut++
	}
	atCut := keep - below // how many at the cut-off distance to take
	// Every document at or below the cut-off, gathered without a branch
	// per document (which one is kept is a coin flip the predictor loses
	// about once in ten); the histogram says how many there are.
	within := below
	if cut < len(hist) {
		within += hist[cut]
	}
	out := make([]int, within+1) // one spare slot: each document is written before it is counted
	got := 0
	for d, h := range dist {
		out[got] = d
		// cut-h is negative, and its sign bit set, exactly when h > cut
		// (a refused document's farAway included).
		got += 1 + (cut-int(h))>>63
	}
	out = out[:got]
	if atCut >= within-below {
		return out // every document at the cut-off is kept
	}
	// Keep the first atCut documents at the cut-off, in document order.
	kept := out[:0]
	for _, d := range out {
		if int(dist[d]) < cut {
			kept = append(kept, d)
		} else if atCut > 0 {
			kept = append(kept, d)
			atCut--
		}
	}
	return kept
}

// hammingRows sets dist[r] to the distance of row r of rows (len(q) words
// each) from q and counts it in hist. The default 384 dimensions (six
// words) have a loop of their own, unrolled: it is most of a search's
// prefilter time.
func hammingRows(rows, q []uint64, dist []uint16, hist []int) {
	if len(q) != 6 {
		for r := range dist {
			h := hamming(rows[r*len(q):(r+1)*len(q)], q)
			dist[r] = uint16(h)
			hist[h]++
		}
		return
	}
	q0, q1, q2, q3, q4, q5 := q[0], q[1], q[2], q[3], q[4], q[5]
	for r := range dist {
		b := rows[r*6 : r*6+6 : r*6+6]
		h := bits.OnesCount64(b[0]^q0) + bits.OnesCount64(b[1]^q1) + bits.OnesCount64(b[2]^q2) +
			bits.OnesCount64(b[3]^q3) + bits.OnesCount64(b[4]^q4) + bits.OnesCount64(b[5]^q5)
		dist[r] = uint16(h)
		hist[h]++
	}
}

// hamming is the number of bits in which a and b differ.
func hamming(a, b []uint64) int {
	h := 0
	for w, x := range a {
		h += bits.OnesCount64(x ^ b[w])
	}
	return h
}
