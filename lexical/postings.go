package lexical

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"unsafe"
)

// The field file format (little endian), one per lexical field of a
// segment. It is read in place from a read-only memory mapping, so every
// section is addressed by offsets and nothing is copied at load:
//
//	magic     "NOVLEX02"
//	header    docs u32, terms u32, blockSize u32, reserved u32, totalLen u64,
//	          termBytes u64, postingBytes u64
//	docLens   docs x u32
//	termEnds  terms x u32   end offset of each term in termBytes (sorted terms)
//	termInfo  terms x (df u32, postings offset u64 as two u32)
//	termBytes the sorted terms, concatenated
//	postings  per term: its block table, then its blocks
//
// A term's postings are cut into blocks of blockSize documents. The block
// table holds, per block, the last document and the end offset of the
// block's bytes (both u32, relative to the term's first block). A posting
// is uvarint(document delta << 1 | 1 when the term frequency is 1),
// followed by uvarint(term frequency) only when it is not 1 (most are);
// the first delta of a block is relative to the previous block's last
// document. Blocks let ScoreDocs jump to a document without decoding the
// whole list.
const (
	fieldMagic = "NOVLEX02"
	headerSize = 8 + 4*4 + 8*3
	// BlockSize is how many postings one block holds.
	BlockSize = 128
)

// ErrCorrupt means a serialised index is malformed.
var ErrCorrupt = errors.New("corrupt lexical index")

// FieldWriter accumulates the documents of one field of one segment and
// writes the field file. Documents are numbered in the order they are
// added. It holds the postings in memory, so a segment bounds its size.
// It is not safe for concurrent use.
type FieldWriter struct {
	terms   map[string]uint32
	list    []string
	posts   [][]termPostings // per term id, in pages (post)
	docLens []uint32
	total   uint64
	ids     []uint32 // reused per document
	// counts is per term id the repeats of the document being added,
	// zero outside addIDs; touched lists the ids it counted.
	counts  []uint32
	touched []uint32
	// parts holds the term ids of each part AddParts has met.
	parts map[string][]uint32
	// recent is a small table of term ids (plus one; 0: none) by the
	// address of a term's bytes (recentSlot): the analyzer's stems are the
	// same strings every time (its memo's), so a term whose bytes are
	// those of the term list's own string is that term, and most terms
	// are found without hashing them (intern's map lookups were 5% of a
	// build's CPU). It holds no string, so it keeps none alive.
	recent [recentTerms]uint32
}

// recentTerms is the size of FieldWriter.recent (16 KiB).
const recentTerms = 1 << 12

// recentSlot is the place of term t in FieldWriter.recent: a hash of the
// address of its bytes.
func recentSlot(t string) uint64 {
	return uint64(uintptr(unsafe.Pointer(unsafe.StringData(t)))) * 0x9E3779B97F4A7C15 >> (64 - 12)
}

// termPostings is one term's postings, kept in the file's encoding as
// documents arrive (they arrive in order, so the deltas are final): a
// posting takes one or two bytes instead of eight, and sealing copies the
// bytes instead of encoding them.
type termPostings struct {
	table []byte // the full blocks' table entries: last document, end offset
	data  []byte // the blocks' bytes
	n     uint32 // postings
	last  uint32 // the last posting's document
}

// NewFieldWriter returns an empty writer. terms, when positive, is how many
// distinct terms it is expected to meet (those of the build's previous
// segment): its tables are made that size at once instead of doubling
// their way there, rehashing and copying at every step.
func NewFieldWriter(terms int) *FieldWriter {
	if terms <= 0 {
		return &FieldWriter{terms: make(map[string]uint32, 1<<14)}
	}
	return &FieldWriter{terms: make(map[string]uint32, terms), list: make([]string, 0, terms), counts: make([]uint32, 0, terms)}
}

// postsPage is how many terms' postings a page of FieldWriter.posts holds
// (224 KiB). The postings grow a page at a time, never copied: as one
// slice, a segment's first field writer, which cannot know how many terms
// it will meet, copied 200 000 of them (11 MB) over and over as append
// grew it, while the collector's write barriers were on.
const postsPage = 1 << 12

// post returns the postings of term id.
func (w *FieldWriter) post(id uint32) *termPostings {
	return &w.posts[id/postsPage][id%postsPage]
}

// Terms is the number of distinct terms added.
func (w *FieldWriter) Terms() int { return len(w.list) }

// Docs is the number of documents added.
func (w *FieldWriter) Docs() int { return len(w.docLens) }

// Add appends a document given its terms (with repeats) and returns their
// ids (Vocabulary holds the term of each), valid until the next Add.
func (w *FieldWriter) Add(terms []string) []uint32 {
	ids := w.intern(terms, w.ids[:0])
	w.addIDs(ids)
	return ids
}

// Vocabulary is the distinct terms added, in id order (read only: the
// writer's own list).
func (w *FieldWriter) Vocabulary() []string { return w.list }

// Parts is a text analysed part by part: Terms[i] are the terms of
// Parts[i], and the text's terms are theirs one after the other.
type Parts struct {
	Parts []string
	Terms [][]string
}

// Len is the number of terms.
func (p Parts) Len() int {
	n := 0
	for _, t := range p.Terms {
		n += len(t)
	}
	return n
}

// AddParts appends a document analysed part by part, as Add would its
// terms, and returns their ids as Add does. A part met before in this
// field reuses its term ids instead of looking every term up again: a
// neighbour's words recur in the contexts of each chunk around it.
func (w *FieldWriter) AddParts(p Parts) []uint32 {
	if w.parts == nil {
		w.parts = map[string][]uint32{}
	}
	ids := w.ids[:0]
	for i, part := range p.Parts {
		known, ok := w.parts[part]
		if !ok {
			start := len(ids)
			ids = w.intern(p.Terms[i], ids)
			// A copy of the key: the part is a piece of a chunk's whole
			// context, which the map would otherwise keep alive.
			w.parts[strings.Clone(part)] = slices.Clone(ids[start:])
			continue
		}
		ids = append(ids, known...)
	}
	w.addIDs(ids)
	return ids
}

// intern appends the ids of terms to ids, numbering the terms not seen
// before.
func (w *FieldWriter) intern(terms []string, ids []uint32) []uint32 {
	for _, t := range terms {
		slot := &w.recent[recentSlot(t)]
		if r := *slot; r != 0 {
			// The same bytes as the listed term: the same term.
			if l := w.list[r-1]; len(l) == len(t) && unsafe.StringData(l) == unsafe.StringData(t) {
				ids = append(ids, r-1)
				continue
			}
		}
		id, ok := w.terms[t]
		if !ok {
			id = uint32(len(w.list))
			w.terms[t] = id
			w.list = append(w.list, t)
			if id%postsPage == 0 {
				w.posts = append(w.posts, make([]termPostings, postsPage))
			}
			w.counts = append(w.counts, 0)
		}
		*slot = id + 1
		ids = append(ids, id)
	}
	return ids
}

// addIDs appends a document given its term ids (with repeats). The
// repeats are counted in a table by term id: a map of the document's terms
// cost as much as the lookups, and sorting the ids a tenth of a build's
// postings. Each term's postings are its own list, so the order the
// document's terms are added in does not matter.
func (w *FieldWriter) addIDs(ids []uint32) {
	doc := uint32(len(w.docLens))
	w.docLens = append(w.docLens, uint32(len(ids)))
	w.total += uint64(len(ids))
	touched := w.touched[:0]
	for _, id := range ids {
		if w.counts[id] == 0 {
			touched = append(touched, id)
		}
		w.counts[id]++
	}
	for _, id := range touched {
		w.post(id).add(doc, w.counts[id])
		w.counts[id] = 0
	}
	w.ids, w.touched = ids, touched
}

// add appends the posting of doc, which follows every document before it.
func (p *termPostings) add(doc, tf uint32) {
	delta := uint64(doc - p.last)
	if tf == 1 {
		p.data = binary.AppendUvarint(p.data, delta<<1|1)
	} else {
		p.data = binary.AppendUvarint(p.data, delta<<1)
		p.data = binary.AppendUvarint(p.data, uint64(tf))
	}
	p.last = doc
	p.n++
	if p.n%BlockSize == 0 {
		p.table = p.blockEntry(p.table)
	}
}

// blockEntry appends the table entry of the block that ends here.
func (p *termPostings) blockEntry(table []byte) []byte {
	table = binary.LittleEndian.AppendUint32(table, p.last)
	return binary.LittleEndian.AppendUint32(table, uint32(len(p.data)))
}

// size is the bytes of the term's postings in the file: the block table,
// with the last block's entry when it is not full, then the blocks.
func (p *termPostings) size() uint64 {
	n := len(p.table) + len(p.data)
	if p.n%BlockSize != 0 {
		n += 8
	}
	return uint64(n)
}

// WriteTo writes the field file.
func (w *FieldWriter) WriteTo(out io.Writer) (int64, error) {
	// The terms are sorted with their ids beside them: comparing through
	// the ids reached every compared term in the list at random, which
	// cost most of sealing a segment. Their first bytes beside them too:
	// most comparisons end there, without reading the term's bytes.
	sorted := make([]termID, len(w.list))
	for i, t := range w.list {
		sorted[i] = termID{prefixKey(t), t, uint32(i)}
	}
	slices.SortFunc(sorted, func(a, b termID) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return strings.Compare(a.t, b.t)
	})

	// The header needs the postings' sizes, and the term table their
	// offsets.
	info := make([]uint32, 0, 3*len(sorted))
	var termBytes, postingBytes uint64
	for _, e := range sorted {
		id := e.id
		p := w.post(id)
		info = append(info, p.n, uint32(postingBytes), uint32(postingBytes>>32))
		termBytes += uint64(len(w.list[id]))
		postingBytes += p.size()
	}

	bw := bufio.NewWriterSize(out, 1<<20)
	cw := &countWriter{w: bw}
	le := binary.LittleEndian
	var h [headerSize]byte
	copy(h[:], fieldMagic)
	le.PutUint32(h[8:], uint32(len(w.docLens)))
	le.PutUint32(h[12:], uint32(len(sorted)))
	le.PutUint32(h[16:], BlockSize)
	le.PutUint64(h[24:], w.total)
	le.PutUint64(h[32:], termBytes)
	le.PutUint64(h[40:], postingBytes)
	cw.Write(h[:])
	// Made to its size: grown by append it was copied over and over, a
	// few MB per field of a segment.
	buf := make([]byte, 0, 4*(len(w.docLens)+len(sorted)+len(info)))
	for _, l := range w.docLens {
		buf = le.AppendUint32(buf, l)
	}
	end := uint32(0)
	for _, e := range sorted {
		end += uint32(len(e.t))
		buf = le.AppendUint32(buf, end)
	}
	for _, v := range info {
		buf = le.AppendUint32(buf, v)
	}
	cw.Write(buf)
	for _, e := range sorted {
		cw.writeString(e.t) // not converted to bytes: no copy a term
	}
	var last [8]byte
	for _, e := range sorted {
		id := e.id
		p := w.post(id)
		cw.Write(p.table)
		if p.n%BlockSize != 0 {
			cw.Write(p.blockEntry(last[:0]))
		}
		cw.Write(p.data)
	}
	if cw.err != nil {
		return cw.n, cw.err
	}
	return cw.n, bw.Flush()
}

// Field is one field of one segment, read in place from its file's bytes
// (a read-only mapping). It is immutable and safe for concurrent use.
type Field struct {
	docs, terms int
	total       uint64
	docLens     []byte
	termEnds    []byte
	termInfo    []byte
	termBytes   []byte
	postings    []byte
}

// OpenField checks the layout of a field file and returns a reader over
// b, which must stay valid and unchanged while the field is used. Every
// offset the reader will follow is checked here, so a damaged file is
// refused at open with ErrCorrupt rather than read out of bounds later.
func OpenField(b []byte) (*Field, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
	if len(b) < headerSize || string(b[:8]) != fieldMagic {
		return nil, bad("bad magic or short header")
	}
	le := binary.LittleEndian
	f := &Field{docs: int(le.Uint32(b[8:])), terms: int(le.Uint32(b[12:])), total: le.Uint64(b[24:])}
	if le.Uint32(b[16:]) != BlockSize {
		return nil, bad("block size %d, want %d", le.Uint32(b[16:]), BlockSize)
	}
	termBytes, postBytes := le.Uint64(b[32:]), le.Uint64(b[40:])
	// Each size alone first: two forged ones can sum, wrapped around, to
	// the file's size.
	if termBytes > uint64(len(b)) || postBytes > uint64(len(b)) {
		return nil, bad("sections of %d and %d bytes in a file of %d", termBytes, postBytes, len(b))
	}
	want := uint64(headerSize) + 4*uint64(f.docs) + 4*uint64(f.terms) + 12*uint64(f.terms) + termBytes + postBytes
	if want != uint64(len(b)) {
		return nil, bad("size %d, sections need %d", len(b), want)
	}
	off := uint64(headerSize)
	take := func(n uint64) []byte { s := b[off : off+n : off+n]; off += n; return s }
	f.docLens = take(4 * uint64(f.docs))
	f.termEnds = take(4 * uint64(f.terms))
	f.termInfo = take(12 * uint64(f.terms))
	f.termBytes = take(termBytes)
	f.postings = take(postBytes)
	var sum uint64
	for d := range f.docs {
		sum += uint64(le.Uint32(f.docLens[4*d:]))
	}
	if sum != f.total {
		return nil, bad("document lengths sum to %d, header says %d", sum, f.total)
	}
	prevEnd, prevStart := uint32(0), uint64(0)
	for t := range f.terms {
		end := le.Uint32(f.termEnds[4*t:])
		if end < prevEnd || uint64(end) > termBytes {
			return nil, bad("term table out of order")
		}
		if t > 0 && string(f.termBytes[prevStartTerm(f, t-1):prevEnd]) >= string(f.termBytes[prevEnd:end]) {
			return nil, bad("terms not sorted")
		}
		prevEnd = end
		df, start := f.df(t), f.postingsStart(t)
		if df == 0 || int(df) > f.docs || start < prevStart || start > postBytes {
			return nil, bad("postings of term %d out of range", t)
		}
		prevStart = start
		if err := f.checkBlocks(t, df, start); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func prevStartTerm(f *Field, t int) uint32 {
	if t == 0 {
		return 0
	}
	return binary.LittleEndian.Uint32(f.termEnds[4*(t-1):])
}

// checkBlocks verifies term t's block table: ends increasing within the
// postings, last documents increasing and below the document count.
func (f *Field) checkBlocks(t int, df uint32, start uint64) error {
	le := binary.LittleEndian
	nb := uint64(df+BlockSize-1) / BlockSize
	limit := uint64(len(f.postings))
	if t+1 < f.terms {
		limit = f.postingsStart(t + 1)
	}
	if start+8*nb > limit {
		return fmt.Errorf("%w: block table of term %d overruns", ErrCorrupt, t)
	}
	prevEnd, prevLast := uint32(0), int64(-1)
	for b := uint64(0); b < nb; b++ {
		last := le.Uint32(f.postings[start+8*b:])
		end := le.Uint32(f.postings[start+8*b+4:])
		if int64(last) <= prevLast || int(last) >= f.docs || end <= prevEnd || start+8*nb+uint64(end) > limit {
			return fmt.Errorf("%w: block %d of term %d out of range", ErrCorrupt, b, t)
		}
		prevEnd, prevLast = end, int64(last)
	}
	if start+8*nb+uint64(prevEnd) != limit {
		return fmt.Errorf("%w: postings of term %d do not fill their range", ErrCorrupt, t)
	}
	return nil
}

// Docs is the number of documents.
func (f *Field) Docs() int { return f.docs }

// Terms is the number of distinct terms.
func (f *Field) Terms() int { return f.terms }

// TotalLen is the sum of the documents' lengths.
func (f *Field) TotalLen() uint64 { return f.total }

// DocLen returns document doc's length in terms.
func (f *Field) DocLen(doc int) uint32 { return binary.LittleEndian.Uint32(f.docLens[4*doc:]) }

func (f *Field) df(t int) uint32 { return binary.LittleEndian.Uint32(f.termInfo[12*t:]) }

func (f *Field) postingsStart(t int) uint64 {
	lo := binary.LittleEndian.Uint32(f.termInfo[12*t+4:])
	hi := binary.LittleEndian.Uint32(f.termInfo[12*t+8:])
	return uint64(hi)<<32 | uint64(lo)
}

func (f *Field) term(t int) string { return string(f.termAt(t)) }

// termAt is term t's bytes in the dictionary (read only).
func (f *Field) termAt(t int) []byte {
	start := uint32(0)
	if t > 0 {
		start = binary.LittleEndian.Uint32(f.termEnds[4*(t-1):])
	}
	end := binary.LittleEndian.Uint32(f.termEnds[4*t:])
	return f.termBytes[start:end]
}

// lookup returns the id of term, or -1. The comparisons convert the
// dictionary's bytes without copying them (a comparison's operand needs
// no string of its own): a query looks its terms up in every segment's
// fields, a few hundred comparisons at 1M chunks.
func (f *Field) lookup(term string) int {
	i := sort.Search(f.terms, func(t int) bool { return string(f.termAt(t)) >= term })
	if i < f.terms && string(f.termAt(i)) == term {
		return i
	}
	return -1
}

// HasHan reports whether a term of the field begins with a Chinese
// character (U+3400 to U+9FFF, the basic and first extension blocks). The
// dictionary is in byte order, which for UTF-8 is code point order, so
// one binary search answers.
func (f *Field) HasHan() bool {
	i := sort.Search(f.terms, func(t int) bool { return string(f.termAt(t)) >= "\u3400" })
	return i < f.terms && string(f.termAt(i)) < "\ua000"
}

// DocFreq returns how many documents of this segment contain term.
func (f *Field) DocFreq(term string) int {
	if t := f.lookup(term); t >= 0 {
		return int(f.df(t))
	}
	return 0
}

// EachTerm calls fn with every term of the field and its document
// frequency, in term order (compaction and statistics read it).
func (f *Field) EachTerm(fn func(term string, df int)) {
	for t := range f.terms {
		fn(f.term(t), int(f.df(t)))
	}
}

// postingList is a cursor over one term's postings.
type postingList struct {
	table, data []byte // block table and block bytes
	blocks      int
}

func (f *Field) list(t int) postingList {
	df := f.df(t)
	start := f.postingsStart(t)
	nb := int((df + BlockSize - 1) / BlockSize)
	end := uint64(len(f.postings))
	if t+1 < f.terms {
		end = f.postingsStart(t + 1)
	}
	return postingList{table: f.postings[start : start+8*uint64(nb)], data: f.postings[start+8*uint64(nb) : end], blocks: nb}
}

func (l postingList) blockEnd(b int) uint32 { return binary.LittleEndian.Uint32(l.table[8*b+4:]) }
func (l postingList) blockLast(b int) uint32 {
	return binary.LittleEndian.Uint32(l.table[8*b:])
}

// next decodes one posting from data: the document delta, the term
// frequency and the bytes used (0 when data is damaged: the checksum
// should have refused the file).
func next(data []byte) (delta, tf uint32, n int) {
	v, n := binary.Uvarint(data)
	if n <= 0 {
		return 0, 0, 0
	}
	if v&1 == 1 {
		return uint32(v >> 1), 1, n
	}
	t, m := binary.Uvarint(data[n:])
	if m <= 0 {
		return 0, 0, 0
	}
	return uint32(v >> 1), uint32(t), n + m
}

// each calls fn for every (doc, tf) of the list, in document order.
func (l postingList) each(fn func(doc, tf uint32)) {
	doc := uint32(0)
	data := l.data
	for len(data) > 0 {
		// Most postings are one byte (a small delta, term frequency 1):
		// decoded here, without a call.
		if b := data[0]; b&0x81 == 1 {
			data = data[1:]
			doc += uint32(b >> 1)
			fn(doc, 1)
			continue
		}
		d, tf, n := next(data)
		if n == 0 {
			return
		}
		data = data[n:]
		doc += d
		fn(doc, tf)
	}
}

// find returns the term frequency of doc in the list (0 if absent),
// decoding only the block that may hold it.
func (l postingList) find(doc uint32) uint32 {
	b := sort.Search(l.blocks, func(i int) bool { return l.blockLast(i) >= doc })
	if b == l.blocks {
		return 0
	}
	lo := uint32(0)
	cur := uint32(0)
	if b > 0 {
		lo = l.blockEnd(b - 1)
		cur = l.blockLast(b - 1)
	}
	data := l.data[lo:l.blockEnd(b)]
	for len(data) > 0 {
		d, tf, n := next(data)
		if n == 0 {
			return 0
		}
		data = data[n:]
		cur += d
		if cur == doc {
			return tf
		}
		if cur > doc {
			return 0
		}
	}
	return 0
}

// postingCursor finds the term frequencies of documents asked for in
// ascending order, decoding each block of the list at most once.
type postingCursor struct {
	l     postingList
	block int    // the block being decoded (-1 before the first call)
	data  []byte // what is left of it
	cur   uint32 // the last document decoded, or the previous block's last
	tf    uint32 // cur's term frequency, when decoded
	// decoded: cur is a posting of this block (not the previous block's
	// last document, which only starts the deltas).
	decoded bool
}

func (l postingList) cursor() postingCursor { return postingCursor{l: l, block: -1} }

// find returns doc's term frequency in the list (0 if absent); doc must
// not be below the document of the previous call.
func (c *postingCursor) find(doc uint32) uint32 {
	l := &c.l
	if c.block >= l.blocks {
		return 0 // past the last block: so is every later document
	}
	if c.block < 0 || doc > l.blockLast(c.block) {
		b := max(c.block+1, 0)
		for b < l.blocks && l.blockLast(b) < doc {
			b++
		}
		if b == l.blocks {
			c.block, c.data, c.decoded = l.blocks, nil, false
			return 0
		}
		lo := uint32(0)
		c.cur, c.decoded = 0, false
		if b > 0 {
			lo, c.cur = l.blockEnd(b-1), l.blockLast(b-1)
		}
		c.block, c.data = b, l.data[lo:l.blockEnd(b)]
	}
	for (!c.decoded || c.cur < doc) && len(c.data) > 0 {
		d, tf, n := next(c.data)
		if n == 0 {
			c.data = nil
			return 0
		}
		c.data = c.data[n:]
		c.cur += d
		c.tf, c.decoded = tf, true
	}
	if c.decoded && c.cur == doc {
		return c.tf
	}
	return 0
}

// bm25 is the score of one posting given the term's idf and its
// document's length norm (Index.norm); every caller uses it, so scores are
// bit-identical whichever segment layout holds the document.
func bm25(idf float64, tf uint32, norm float64) float32 {
	t := float64(tf)
	return float32(idf * t * (K1 + 1) / (t + norm))
}

// lengthNorm is BM25's length normalisation, of strength b, of a
// document of docLen terms in a field of average length avgLen.
func lengthNorm(docLen uint32, avgLen, b float64) float64 {
	return K1 * (1 - b + b*float64(docLen)/avgLen)
}

// IDF is the BM25 inverse document frequency of a term that df of n
// documents hold.
func IDF(df, n int) float64 {
	if df <= 0 || n <= 0 {
		return 0
	}
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) writeString(s string) {
	if c.err != nil {
		return
	}
	n, err := io.WriteString(c.w, s)
	c.n += int64(n)
	c.err = err
}

// termID is a term and its id in a FieldWriter, and the term's prefixKey.
type termID struct {
	key uint64
	t   string
	id  uint32
}

// prefixKey is s's first 8 bytes as a big-endian number, short strings
// padded with zero bytes: two keys compare as the strings' first bytes
// do, so strings whose keys differ are in the order of their keys, and
// only equal keys need the strings compared.
func prefixKey(s string) uint64 {
	var b [8]byte
	copy(b[:], s)
	return binary.BigEndian.Uint64(b[:])
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

// Stats returns what the given documents of this field contribute to its
// statistics: their total length and, per term, how many of them hold it.
// It walks every posting list once (compaction uses it for documents
// whose text is no longer analysed).
func (f *Field) Stats(docs map[uint32]bool) (totalLen uint64, df map[string]int) {
	df = map[string]int{}
	for d := range docs {
		if int(d) < f.docs {
			totalLen += uint64(f.DocLen(int(d)))
		}
	}
	for t := range f.terms {
		n := 0
		f.list(t).each(func(doc, _ uint32) {
			if docs[doc] {
				n++
			}
		})
		if n > 0 {
			df[f.term(t)] += n
		}
	}
	return totalLen, df
}
