package segment

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"sort"
	"unsafe"

	"github.com/nova-recall/nova/memory"
)

// Columns of facets.bin: one u32 per document each. The string columns
// hold dictionary ids.
const (
	colDate = iota
	colProject
	colAgent
	colRole
	colSourceSet
	colLifecycle
	colWorkType
	colLayer
	colSourceName
	colPath
	colConversation
	numStringColumns
)

// The numeric columns follow the string columns.
const (
	colLine    = numStringColumns + iota // the record's line in its file
	colPart                              // the chunk's part of its record
	colTagsEnd                           // end of the chunk's tags in the tag pool
	colByID                              // document numbers in chunk id order (a permutation)
	numColumns
)

func columnValues(c *memory.Chunk) [numStringColumns]string {
	return [numStringColumns]string{
		colDate: c.Date, colProject: c.Project, colAgent: c.Agent, colRole: c.Role,
		colSourceSet: c.SourceSet, colLifecycle: c.Governance.Lifecycle, colWorkType: c.WorkType,
		colLayer: c.Layer, colSourceName: c.SourceName, colPath: c.SourcePath, colConversation: c.Conversation,
	}
}

// facets.bin: magic "NOVFAC02", docs u32, columns u32, tags u32, then
// each column (docs x u32) and the tag pool (tags x u32 dictionary ids).
const facetsMagic = "NOVFAC02"

func writeFacets(w io.Writer, cols *[numColumns][]uint32, tags []uint32) error {
	le := binary.LittleEndian
	h := append([]byte(facetsMagic), make([]byte, 12)...)
	le.PutUint32(h[8:], uint32(len(cols[0])))
	le.PutUint32(h[12:], numColumns)
	le.PutUint32(h[16:], uint32(len(tags)))
	if _, err := w.Write(h); err != nil {
		return err
	}
	for _, c := range append(cols[:], tags) {
		if len(c) == 0 {
			continue
		}
		if _, err := w.Write(unsafe.Slice((*byte)(unsafe.Pointer(&c[0])), 4*len(c))); err != nil {
			return err
		}
	}
	return nil
}

// facets are a segment's columns read in place.
type facets struct {
	cols [numColumns][]uint32
	tags []uint32
	// idRank is each document's place in chunk id order (the inverse of
	// the colByID permutation): ties in score are broken by comparing two
	// numbers instead of decoding two records.
	idRank []uint32
}

func openFacets(b []byte, docs int, d *dict) (*facets, error) {
	le := binary.LittleEndian
	if len(b) < 20 || string(b[:8]) != facetsMagic {
		return nil, fmt.Errorf("%w: facets: bad magic", ErrCorrupt)
	}
	n, ncols, ntags := int(le.Uint32(b[8:])), int(le.Uint32(b[12:])), int(le.Uint32(b[16:]))
	if n != docs || ncols != numColumns || len(b) != 20+4*(n*ncols+ntags) {
		return nil, fmt.Errorf("%w: facets: sized for %d documents, %d columns, %d tags", ErrCorrupt, n, ncols, ntags)
	}
	f := &facets{}
	body := u32s(b[20:])
	for c := range numColumns {
		f.cols[c] = body[c*n : (c+1)*n : (c+1)*n]
	}
	f.tags = body[numColumns*n:]
	for c := range numStringColumns {
		for _, id := range f.cols[c] {
			if int(id) >= d.n {
				return nil, fmt.Errorf("%w: facets: dictionary id out of range", ErrCorrupt)
			}
		}
	}
	for _, id := range f.tags {
		if int(id) >= d.n {
			return nil, fmt.Errorf("%w: facets: tag id out of range", ErrCorrupt)
		}
	}
	// Ranks start at 1 so that 0 marks a document not yet seen.
	f.idRank = make([]uint32, n)
	for i, d := range f.cols[colByID] {
		if int(d) >= n || f.idRank[d] != 0 {
			return nil, fmt.Errorf("%w: facets: id order is not a permutation", ErrCorrupt)
		}
		f.idRank[d] = uint32(i + 1)
	}
	prev := uint32(0)
	for _, e := range f.cols[colTagsEnd] {
		if e < prev || int(e) > ntags {
			return nil, fmt.Errorf("%w: facets: tag offsets out of order", ErrCorrupt)
		}
		prev = e
	}
	return f, nil
}

func u32s(b []byte) []uint32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
}

func (f *facets) docTags(doc int) []uint32 {
	lo := uint32(0)
	if doc > 0 {
		lo = f.cols[colTagsEnd][doc-1]
	}
	return f.tags[lo:f.cols[colTagsEnd][doc]]
}

// Dead lists the documents of earlier segments (numbered across the
// generation) that a segment retires, and what they contributed to the
// BM25 statistics of each lexical field, so those can be subtracted.
type Dead struct {
	Docs    []uint32
	Text    FieldStats
	Context FieldStats
}

// FieldStats is what some documents contribute to a field's statistics.
type FieldStats struct {
	Len uint64
	DF  map[string]int
}

// AddTerms counts one document's terms.
func (s *FieldStats) AddTerms(terms []string) {
	if s.DF == nil {
		s.DF = map[string]int{}
	}
	s.Len += uint64(len(terms))
	seen := make(map[string]bool, len(terms))
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			s.DF[t]++
		}
	}
}

// dead.bin: magic "NOVDED02", docs u32, then the documents (u32 each,
// ascending), then for the text and the context field: length u64, terms
// u32, and per term (sorted) its byte length u16, bytes and count u32.
const deadMagic = "NOVDED02"

func (d *Dead) bytes() []byte {
	le := binary.LittleEndian
	docs := slices.Clone(d.Docs)
	slices.Sort(docs)
	b := le.AppendUint32([]byte(deadMagic), uint32(len(docs)))
	for _, x := range docs {
		b = le.AppendUint32(b, x)
	}
	for _, f := range []FieldStats{d.Text, d.Context} {
		b = le.AppendUint64(b, f.Len)
		terms := make([]string, 0, len(f.DF))
		for t := range f.DF {
			terms = append(terms, t)
		}
		sort.Strings(terms)
		b = le.AppendUint32(b, uint32(len(terms)))
		for _, t := range terms {
			b = le.AppendUint16(b, uint16(len(t)))
			b = append(b, t...)
			b = le.AppendUint32(b, uint32(f.DF[t]))
		}
	}
	return b
}

// parseDead decodes dead.bin; every retired document must lie before
// limit (the first document of the segment that retires it).
func parseDead(b []byte, limit int) (*Dead, error) {
	le := binary.LittleEndian
	bad := func(what string) error { return fmt.Errorf("%w: dead.bin: %s", ErrCorrupt, what) }
	if len(b) < 12 || string(b[:8]) != deadMagic {
		return nil, bad("bad magic")
	}
	n := int(le.Uint32(b[8:]))
	b = b[12:]
	if len(b) < 4*n {
		return nil, bad("short document list")
	}
	d := &Dead{Docs: make([]uint32, n)}
	for i := range n {
		d.Docs[i] = le.Uint32(b[4*i:])
		if int(d.Docs[i]) >= limit || (i > 0 && d.Docs[i] <= d.Docs[i-1]) {
			return nil, bad("document out of range or order")
		}
	}
	b = b[4*n:]
	for _, f := range []*FieldStats{&d.Text, &d.Context} {
		if len(b) < 12 {
			return nil, bad("short field statistics")
		}
		f.Len = le.Uint64(b)
		terms := int(le.Uint32(b[8:]))
		b = b[12:]
		// Each term takes at least its length and count (6 bytes): a
		// forged count must not size the map beyond what the file holds.
		if terms > len(b)/6 {
			return nil, bad("term count overruns the file")
		}
		f.DF = make(map[string]int, terms)
		for range terms {
			if len(b) < 2 {
				return nil, bad("short term")
			}
			l := int(le.Uint16(b))
			if len(b) < 2+l+4 {
				return nil, bad("short term")
			}
			f.DF[string(b[2:2+l])] = int(le.Uint32(b[2+l:]))
			b = b[2+l+4:]
		}
	}
	if len(b) != 0 {
		return nil, bad("trailing bytes")
	}
	return d, nil
}
