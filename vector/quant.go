package vector

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Quantizer maps float vectors to int8 codes with one scale per
// dimension: component j is stored as round(v[j]/Scale[j]), clamped to
// ±127. Unit vectors from a corpus model use a small part of [-1, 1] in
// most dimensions, so a per-dimension scale keeps far more precision than
// one global scale. A quantizer belongs to a vector space: every segment
// of that space uses the same one, so a document gets the same codes
// whether a full build or an incremental one wrote it.
type Quantizer struct {
	Scale []float32
	// Centre is the mean of the training sample. The sign prefilter's one
	// bit per dimension says which side of it a component lies: fixed for
	// the space, so a segment's bits are the same in every generation
	// that holds it. Nil in quantizers written before it (space format
	// NOVSPC02): those generations compare with their own mean.
	Centre []float32
}

// quantHeadroom leaves room above the largest component seen in training
// for vectors embedded later; larger components are clamped.
const quantHeadroom = 1.25

// quantFewRows is the number of (non-zero) sample vectors below which a
// dimension's largest component says little of its range, and
// quantTailSpread how many times the sample's root mean square component
// a dimension then covers at least (never more than the largest component
// of the sample: a few dimensions of large components would otherwise
// coarsen every other).
// An openai space's scales come from the first vectors its first build
// embeds, and the space is kept while the corpus grows: scales from one
// vector clamped about 40% of the components of later ones (recall@10 of
// an exact scan 0.43), from 30 about 1% (0.88). From a few hundred
// vectors the largest components are a good measure, and larger samples
// (every builtin model's but the smallest) are coded as before.
const (
	quantFewRows    = 256
	quantTailSpread = 4
)

// TrainQuantizer derives the scales and the centre from sample vectors
// (rows of dim).
func TrainQuantizer(sample []float32, dim int) Quantizer {
	q := Quantizer{Scale: make([]float32, dim), Centre: make([]float32, dim)}
	sum := make([]float64, dim)
	rows, nonZero := 0, 0
	var squares float64
	var largest float32
	for i := 0; i+dim <= len(sample); i += dim {
		row := sample[i : i+dim]
		for j, v := range row {
			a := float32(math.Abs(float64(v)))
			q.Scale[j] = max(q.Scale[j], a)
			largest = max(largest, a)
			sum[j] += float64(v)
			squares += float64(v) * float64(v)
		}
		rows++
		if !IsZero(row) {
			nonZero++ // an empty chunk's vector says nothing of the range
		}
	}
	if rows > 0 {
		for j, x := range sum {
			q.Centre[j] = float32(x / float64(rows))
		}
	}
	if nonZero > 0 && nonZero < quantFewRows {
		floor := min(largest, float32(quantTailSpread*math.Sqrt(squares/float64(nonZero*dim))))
		for j, m := range q.Scale {
			q.Scale[j] = max(m, floor)
		}
	}
	for j, m := range q.Scale {
		if m == 0 {
			m = 1.0 / quantHeadroom // an unseen dimension: the unit range
		}
		q.Scale[j] = m * quantHeadroom / 127
	}
	return q
}

// Dim is the dimension the quantizer encodes.
func (q Quantizer) Dim() int { return len(q.Scale) }

// Encode writes the codes of v into dst (both of length Dim).
func (q Quantizer) Encode(v []float32, dst []int8) {
	for j, x := range v {
		c := math.Round(float64(x / q.Scale[j]))
		dst[j] = int8(max(-127, min(127, c)))
	}
}

// Decode writes the approximate float vector of codes into dst.
func (q Quantizer) Decode(codes []int8, dst []float32) {
	for j, c := range codes {
		dst[j] = float32(c) * q.Scale[j]
	}
}

// Query is a query vector prepared for one quantizer: the float form for
// exact re-scoring and an int8 form for the fast scan.
type Query struct {
	// scaled is q[j]*Scale[j]: the dot product with a document's codes is
	// the dot product with its decoded vector.
	scaled []float32
	codes  []int8
	unit   float32 // the value of one step of codes
}

// Prepare readies q (of dimension Dim) for scoring against codes.
func (q Quantizer) Prepare(v []float32) Query {
	p := Query{scaled: make([]float32, len(v)), codes: make([]int8, len(v))}
	var m float32
	for j, x := range v {
		p.scaled[j] = x * q.Scale[j]
		m = max(m, float32(math.Abs(float64(p.scaled[j]))))
	}
	if m == 0 {
		return p
	}
	p.unit = m / 127
	for j, x := range p.scaled {
		p.codes[j] = int8(math.Round(float64(x / p.unit)))
	}
	return p
}

// Fast returns the int8-arithmetic estimate of the dot product with a
// document's codes (scan).
func (p Query) Fast(codes []int8) float32 { return float32(dotInt8(p.codes, codes)) * p.unit }

// fastRows writes into out the estimates (Fast) of the consecutive rows
// of codes, each as long as the query. Where the kernel takes the whole
// dimension it is called directly, without dotInt8's checks and call for
// every row: the unfiltered scan scores every vector of a generation.
func (p Query) fastRows(codes []int8, out []float32) {
	dim := len(p.codes)
	codes = codes[:len(out)*dim]
	if kernels && dim >= dotBlock && dim%dotBlock == 0 {
		for i := range out {
			row := codes[i*dim : (i+1)*dim]
			out[i] = float32(dotInt8Vector(&p.codes[0], &row[0], dim)) * p.unit
		}
		return
	}
	for i := range out {
		out[i] = p.Fast(codes[i*dim : (i+1)*dim])
	}
}

// Exact returns the dot product with the document's decoded vector, in
// float arithmetic (re-scoring the best candidates).
func (p Query) Exact(codes []int8) float32 { return dotScaled(p.scaled, codes) }

// dotScaled is the exact dot product of a float query with a document's
// codes. The order of its float additions is part of every dense score
// (changing it moves scores in their last bits, and rankings with them):
// four sums, s[k] taking the products of the dimensions k, k+4, k+8, ...
// in turn, then the dimensions after the last multiple of four into s0,
// then s0+s1+s2+s3. This runs in that order without the bounds checks,
// the per-dimension conversion (int8Floats) or the register shuffling the
// compiler gave an indexed loop.
func dotScaled(a []float32, b []int8) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	for len(a) >= 8 {
		x, y := a[:8:8], b[:8:8]
		s0 += x[0] * int8Floats[uint8(y[0])]
		s1 += x[1] * int8Floats[uint8(y[1])]
		s2 += x[2] * int8Floats[uint8(y[2])]
		s3 += x[3] * int8Floats[uint8(y[3])]
		s0 += x[4] * int8Floats[uint8(y[4])]
		s1 += x[5] * int8Floats[uint8(y[5])]
		s2 += x[6] * int8Floats[uint8(y[6])]
		s3 += x[7] * int8Floats[uint8(y[7])]
		a, b = a[8:], b[8:]
	}
	if len(a) >= 4 {
		x, y := a[:4:4], b[:4:4]
		s0 += x[0] * int8Floats[uint8(y[0])]
		s1 += x[1] * int8Floats[uint8(y[1])]
		s2 += x[2] * int8Floats[uint8(y[2])]
		s3 += x[3] * int8Floats[uint8(y[3])]
		a, b = a[4:], b[4:]
	}
	for i, x := range a {
		s0 += x * int8Floats[uint8(b[i])]
	}
	return s0 + s1 + s2 + s3
}

// int8Floats[uint8(c)] is float32(c) for every int8 c: one load instead
// of a sign extension and an integer-to-float conversion per dimension.
// The values are the same, so is every product.
var int8Floats = func() (t [256]float32) {
	for i := range t {
		t[i] = float32(int8(uint8(i)))
	}
	return t
}()

// MarshalBinary encodes the quantizer: dim u32, the scales, then the
// centre (zeros for a quantizer without one).
func (q Quantizer) MarshalBinary() ([]byte, error) {
	dim := len(q.Scale)
	b := binary.LittleEndian.AppendUint32(nil, uint32(dim))
	for _, s := range q.Scale {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(s))
	}
	for j := range dim {
		var c float32
		if q.Centre != nil {
			c = q.Centre[j]
		}
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(c))
	}
	return b, nil
}

// ParseQuantizer decodes MarshalBinary's output and returns the bytes
// that follow it. withCentre is false for the layout written before the
// centre (dim and scales only).
func ParseQuantizer(b []byte, withCentre bool) (Quantizer, []byte, error) {
	if len(b) < 4 {
		return Quantizer{}, nil, errors.New("quantizer: short")
	}
	dim := int(binary.LittleEndian.Uint32(b))
	size := 4 + 4*dim
	if withCentre {
		size += 4 * dim
	}
	if dim <= 0 || dim > 1<<16 || len(b) < size {
		return Quantizer{}, nil, fmt.Errorf("quantizer: dimension %d out of range", dim)
	}
	float := func(i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[4+4*i:])) }
	q := Quantizer{Scale: make([]float32, dim)}
	for j := range q.Scale {
		s := float(j)
		if !(s > 0) || math.IsInf(float64(s), 0) {
			return Quantizer{}, nil, fmt.Errorf("quantizer: scale %d is %v", j, s)
		}
		q.Scale[j] = s
	}
	if withCentre {
		q.Centre = make([]float32, dim)
		for j := range q.Centre {
			c := float(dim + j)
			if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
				return Quantizer{}, nil, fmt.Errorf("quantizer: centre %d is %v", j, c)
			}
			q.Centre[j] = c
		}
	}
	return q, b[size:], nil
}
