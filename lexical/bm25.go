package lexical

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"sync"
	"unsafe"

	"github.com/nova-recall/nova/topk"
)

// BM25 parameters (the usual Robertson/Lucene defaults).
const (
	K1 = 1.2
	B  = 0.75
)

// Builder accumulates documents into a BM25 index. Documents are numbered
// in the order they are added. It is not safe for concurrent use.
type Builder struct {
	terms    map[string]uint32
	termList []string
	posts    [][]uint64 // per term: doc<<16 | tf
	docLens  []uint32
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{terms: make(map[string]uint32, 1<<14)}
}

// Add appends a document given its terms (with repeats).
func (b *Builder) Add(terms []string) {
	doc := uint64(len(b.docLens))
	b.docLens = append(b.docLens, uint32(len(terms)))
	counts := make(map[string]uint32, len(terms))
	for _, t := range terms {
		counts[t]++
	}
	for t, c := range counts {
		id, ok := b.terms[t]
		if !ok {
			id = uint32(len(b.termList))
			b.terms[t] = id
			b.termList = append(b.termList, t)
			b.posts = append(b.posts, nil)
		}
		if c > math.MaxUint16 {
			c = math.MaxUint16
		}
		b.posts[id] = append(b.posts[id], doc<<16|uint64(c))
	}
}

// Build freezes the builder into an index.
func (b *Builder) Build() *Index {
	ix := &Index{
		terms:   b.terms,
		docLens: b.docLens,
		offsets: make([]uint32, len(b.termList)+1),
	}
	total := 0
	for _, p := range b.posts {
		total += len(p)
	}
	ix.docs = make([]uint32, 0, total)
	ix.tfs = make([]uint16, 0, total)
	for id, p := range b.posts {
		ix.offsets[id] = uint32(len(ix.docs))
		for _, v := range p {
			ix.docs = append(ix.docs, uint32(v>>16))
			ix.tfs = append(ix.tfs, uint16(v&0xffff))
		}
	}
	ix.offsets[len(b.termList)] = uint32(len(ix.docs))
	ix.termList = b.termList
	ix.finish()
	return ix
}

// Index is an immutable BM25 index. It is safe for concurrent use.
type Index struct {
	terms    map[string]uint32
	termList []string
	offsets  []uint32
	docs     []uint32
	tfs      []uint16
	docLens  []uint32
	avgLen   float64
	pool     sync.Pool
}

func (ix *Index) finish() {
	var sum float64
	for _, l := range ix.docLens {
		sum += float64(l)
	}
	if len(ix.docLens) > 0 {
		ix.avgLen = sum / float64(len(ix.docLens))
	}
	if ix.avgLen == 0 {
		ix.avgLen = 1
	}
	n := len(ix.docLens)
	ix.pool.New = func() any { s := make([]float32, n); return &s }
}

// Len is the number of documents.
func (ix *Index) Len() int { return len(ix.docLens) }

// Terms is the number of distinct terms.
func (ix *Index) Terms() int { return len(ix.termList) }

// DocFreq returns how many documents contain term.
func (ix *Index) DocFreq(term string) int {
	id, ok := ix.terms[term]
	if !ok {
		return 0
	}
	return int(ix.offsets[id+1] - ix.offsets[id])
}

// IDF returns the BM25 inverse document frequency of term (0 if absent).
func (ix *Index) IDF(term string) float64 {
	df := ix.DocFreq(term)
	if df == 0 {
		return 0
	}
	n := float64(ix.Len())
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// Hit is a scored document.
type Hit struct {
	Doc   int
	Score float64
}

// Search scores the documents matching any of terms (duplicates ignored)
// and returns the best k, best first, ties broken by document order.
// accept, when non-nil, is the hard filter.
func (ix *Index) Search(terms []string, k int, accept func(doc int) bool) []Hit {
	if k <= 0 || ix.Len() == 0 {
		return nil
	}
	sp := ix.pool.Get().(*[]float32)
	scores := *sp
	touched := make([]uint32, 0, 256)
	for _, pl := range ix.postings(terms) {
		idf := pl.idf
		for p := pl.lo; p < pl.hi; p++ {
			d := ix.docs[p]
			tf := float64(ix.tfs[p])
			norm := K1 * (1 - B + B*float64(ix.docLens[d])/ix.avgLen)
			s := float32(idf * tf * (K1 + 1) / (tf + norm))
			if scores[d] == 0 {
				touched = append(touched, d)
			}
			scores[d] += s
		}
	}
	best := topk.New(k, better)
	for _, d := range touched {
		s := scores[d]
		scores[d] = 0
		if accept != nil && !accept(int(d)) {
			continue
		}
		best.Push(Hit{Doc: int(d), Score: float64(s)})
	}
	ix.pool.Put(sp)
	return best.Sorted()
}

// postingRange is one query term's slice of the posting arrays.
type postingRange struct {
	lo, hi uint32
	idf    float64
}

// postings returns the posting range of each distinct indexed term of
// terms; a repeated query term counts once, as the contract's BM25 does.
func (ix *Index) postings(terms []string) []postingRange {
	out := make([]postingRange, 0, len(terms))
	seen := make(map[string]bool, len(terms))
	for _, t := range terms {
		if seen[t] {
			continue
		}
		seen[t] = true
		if id, ok := ix.terms[t]; ok {
			out = append(out, postingRange{lo: ix.offsets[id], hi: ix.offsets[id+1], idf: ix.IDF(t)})
		}
	}
	return out
}

func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Doc < b.Doc
}

const magic = "NOVLEX01"

// WriteTo serialises the index.
func (ix *Index) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := &countWriter{w: bw}
	le := binary.LittleEndian
	put32 := func(v uint32) { var b [4]byte; le.PutUint32(b[:], v); cw.Write(b[:]) }
	cw.Write([]byte(magic))
	put32(uint32(len(ix.docLens)))
	put32(uint32(len(ix.termList)))
	put32(uint32(len(ix.docs)))
	writeU32s(cw, ix.docLens)
	for _, t := range ix.termList {
		var b [2]byte
		le.PutUint16(b[:], uint16(len(t)))
		cw.Write(b[:])
		cw.Write([]byte(t))
	}
	writeU32s(cw, ix.offsets)
	writeU32s(cw, ix.docs)
	writeU16s(cw, ix.tfs)
	if cw.err != nil {
		return cw.n, cw.err
	}
	return cw.n, bw.Flush()
}

// ErrCorrupt means a serialised index is malformed.
var ErrCorrupt = errors.New("corrupt lexical index")

// Read loads an index written by WriteTo.
func Read(r io.Reader) (*Index, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	head := make([]byte, len(magic)+12)
	if _, err := io.ReadFull(br, head); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrCorrupt, err)
	}
	if string(head[:len(magic)]) != magic {
		return nil, fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	le := binary.LittleEndian
	n := int(le.Uint32(head[8:]))
	t := int(le.Uint32(head[12:]))
	p := int(le.Uint32(head[16:]))
	const limit = 1 << 30
	if n > limit || t > limit || p > limit {
		return nil, fmt.Errorf("%w: sizes out of range", ErrCorrupt)
	}
	ix := &Index{terms: make(map[string]uint32, t), termList: make([]string, t)}
	var err error
	if ix.docLens, err = readU32s(br, n); err != nil {
		return nil, err
	}
	var lb [2]byte
	for i := 0; i < t; i++ {
		if _, err := io.ReadFull(br, lb[:]); err != nil {
			return nil, fmt.Errorf("%w: term: %v", ErrCorrupt, err)
		}
		buf := make([]byte, le.Uint16(lb[:]))
		if _, err := io.ReadFull(br, buf); err != nil {
			return nil, fmt.Errorf("%w: term: %v", ErrCorrupt, err)
		}
		s := string(buf)
		ix.termList[i] = s
		ix.terms[s] = uint32(i)
	}
	if ix.offsets, err = readU32s(br, t+1); err != nil {
		return nil, err
	}
	if ix.docs, err = readU32s(br, p); err != nil {
		return nil, err
	}
	if ix.tfs, err = readU16s(br, p); err != nil {
		return nil, err
	}
	for i := 0; i < t; i++ {
		if ix.offsets[i] > ix.offsets[i+1] {
			return nil, fmt.Errorf("%w: offsets not monotonic", ErrCorrupt)
		}
	}
	if ix.offsets[t] != uint32(p) {
		return nil, fmt.Errorf("%w: offsets do not cover postings", ErrCorrupt)
	}
	for _, d := range ix.docs {
		if int(d) >= n {
			return nil, fmt.Errorf("%w: posting names document %d of %d", ErrCorrupt, d, n)
		}
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("%w: trailing data", ErrCorrupt)
	}
	ix.finish()
	return ix, nil
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

// The on-disk format is little-endian; the slices are written and read as
// raw bytes, which is exact on the little-endian machines Nova runs on
// (amd64, arm64).
func writeU32s(w io.Writer, v []uint32) {
	if len(v) > 0 {
		w.Write(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*4))
	}
}

func writeU16s(w io.Writer, v []uint16) {
	if len(v) > 0 {
		w.Write(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*2))
	}
}

func readU32s(r io.Reader, n int) ([]uint32, error) {
	v := make([]uint32, n)
	if n == 0 {
		return v, nil
	}
	if _, err := io.ReadFull(r, unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), n*4)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return v, nil
}

func readU16s(r io.Reader, n int) ([]uint16, error) {
	v := make([]uint16, n)
	if n == 0 {
		return v, nil
	}
	if _, err := io.ReadFull(r, unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), n*2)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return v, nil
}

// ScoreDocs returns the BM25 score of each of docs for terms (duplicates
// ignored), for documents another channel found.
func (ix *Index) ScoreDocs(terms []string, docs []int) []float64 {
	out := make([]float64, len(docs))
	for _, pl := range ix.postings(terms) {
		lo, hi, idf := int(pl.lo), int(pl.hi), pl.idf
		posting := ix.docs[lo:hi]
		for i, d := range docs {
			j := sort.Search(len(posting), func(k int) bool { return posting[k] >= uint32(d) })
			if j < len(posting) && posting[j] == uint32(d) {
				tf := float64(ix.tfs[lo+j])
				norm := K1 * (1 - B + B*float64(ix.docLens[d])/ix.avgLen)
				out[i] += idf * tf * (K1 + 1) / (tf + norm)
			}
		}
	}
	return out
}
