package segment

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"

	"github.com/nova-recall/nova/memory"
)

// A chunk is stored as a record: a sequence of (tag uvarint, value)
// pairs, empty fields left out, so fields can be added without a new
// format version (an old reader refuses a tag it does not know). Values:
//
//	str   uvarint length, bytes        (text, ids: unique per chunk)
//	dict  uvarint id into the segment's dictionary (repeated values)
//	list  uvarint count, then dict ids
//	int   zigzag varint
//	f64   8 bytes, IEEE 754
//	hash  32 bytes (a SHA-256 kept as hex in memory)
//
// A chunk's neighbouring context (Context, Before) is not stored: it is
// derived from the neighbours' texts (generation.Context), which keeps
// the records at half their size. Nor are the fields the build derives
// from the others (the chunk id, the text hash, the dedupe key, the
// duplicate group key) unless they differ from what deriving gives: the
// reader derives them again.
const (
	tagID = iota + 1
	tagText
	tagContext   // reserved: context is derived, not stored
	tagBeforeLen // reserved
	tagTitle
	tagDate
	tagTime
	tagAgent
	tagRole
	tagProject
	tagTags
	tagWorkType
	tagLayer
	tagSourceName
	tagSourceSet
	tagSourceType
	tagSourceID
	tagSourcePath
	tagLine
	tagSession
	tagHeadingPath
	tagPart
	tagParts
	tagTextHash
	tagDedupeKey
	tagConversation
	tagGovVersion
	tagGovSourceSet
	tagGovAuthorityRank
	tagGovLifecycle
	tagGovRetention
	tagGovCanonicalEligible
	tagGovProvenance
	tagGovWeight
	tagGovDuplicateKey
	tagGovCanonicalCandidate
	tagGovScope
	tagGovWarnings
	tagBefore       // Before when it is not the start of Context
	tagTextHashStr  // a text hash that is not 64 hex digits, kept verbatim
	tagDedupeKeyStr // likewise for the dedupe key
	tagSubject      // the version-chain key (memory.Chunk.Subject)
)

// encoder appends records, interning repeated strings in dict.
type encoder struct {
	dict *dictBuilder
	buf  []byte
	// last is per tag the previous record's string and its id:
	// consecutive chunks mostly share them (a record's pieces, a file's
	// records), and comparing costs less than the dictionary's lookup.
	last [tagSubject + 1]lastID
}

func (e *encoder) uv(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *encoder) tag(t int)   { e.uv(uint64(t)) }
func (e *encoder) str(t int, s string) {
	if s != "" {
		e.tag(t)
		e.uv(uint64(len(s)))
		e.buf = append(e.buf, s...)
	}
}
func (e *encoder) dictStr(t int, s string) {
	if s != "" {
		e.tag(t)
		e.uv(uint64(e.last[t].lookup(e.dict, s)))
	}
}
func (e *encoder) list(t int, l []string) {
	if len(l) > 0 {
		e.tag(t)
		e.uv(uint64(len(l)))
		for _, s := range l {
			e.uv(uint64(e.dict.id(s)))
		}
	}
}
func (e *encoder) int(t int, v int64) {
	if v != 0 {
		e.tag(t)
		e.buf = binary.AppendVarint(e.buf, v)
	}
}
func (e *encoder) f64(t int, v float64) {
	if v != 0 {
		e.tag(t)
		e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v))
	}
}
func (e *encoder) bool(t int, v bool) {
	if v {
		e.int(t, 1)
	}
}
func (e *encoder) hash(t, verbatim int, h string) {
	if h == "" {
		return
	}
	var raw [32]byte
	if len(h) != 64 {
		e.str(verbatim, h) // never produced by the build
		return
	}
	if _, err := hex.Decode(raw[:], []byte(h)); err != nil || hex.EncodeToString(raw[:]) != h {
		e.str(verbatim, h) // upper-case or not hex: keep the exact text
		return
	}
	e.tag(t)
	e.buf = append(e.buf, raw[:]...)
}

// rawStr writes a string field even when it is empty (a field whose
// empty value differs from the derived one).
func (e *encoder) rawStr(t int, s string) {
	e.tag(t)
	e.uv(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// encode appends c's record to e.buf. The order of the fields is what
// decode relies on to stop early: the id, then the text, and the fields
// an id is derived from no later than the parts. The derivable fields
// are compared with what deriving gives without making those strings,
// but for the two hashes.
func (e *encoder) encode(c *memory.Chunk) {
	textHash, dedupeKey := memory.HashText(c.Text), memory.DedupeKey(c)
	if !memory.IsChunkID(c.ID, c.SourceName, c.SourceID, c.Part, c.Parts) {
		e.rawStr(tagID, c.ID)
	}
	e.str(tagText, c.Text)
	e.dictStr(tagTitle, c.Title)
	e.dictStr(tagDate, c.Date)
	e.dictStr(tagTime, c.Time)
	e.dictStr(tagAgent, c.Agent)
	e.dictStr(tagRole, c.Role)
	e.dictStr(tagProject, c.Project)
	e.list(tagTags, c.Tags)
	e.dictStr(tagWorkType, c.WorkType)
	e.dictStr(tagLayer, c.Layer)
	e.dictStr(tagSourceName, c.SourceName)
	e.dictStr(tagSourceSet, c.SourceSet)
	e.dictStr(tagSourceType, c.SourceType)
	e.str(tagSourceID, c.SourceID)
	e.dictStr(tagSourcePath, c.SourcePath)
	e.int(tagLine, int64(c.LineNumber))
	e.dictStr(tagSession, c.SessionID)
	e.list(tagHeadingPath, c.HeadingPath)
	e.int(tagPart, int64(c.Part))
	e.int(tagParts, int64(c.Parts))
	if c.TextHash != textHash {
		if c.TextHash == "" {
			e.rawStr(tagTextHashStr, "")
		} else {
			e.hash(tagTextHash, tagTextHashStr, c.TextHash)
		}
	}
	if c.DedupeKey != dedupeKey {
		if c.DedupeKey == "" {
			e.rawStr(tagDedupeKeyStr, "")
		} else {
			e.hash(tagDedupeKey, tagDedupeKeyStr, c.DedupeKey)
		}
	}
	e.dictStr(tagConversation, c.Conversation)
	e.dictStr(tagSubject, c.Subject)
	g := &c.Governance
	e.int(tagGovVersion, int64(g.Version))
	e.dictStr(tagGovSourceSet, g.SourceSet)
	e.int(tagGovAuthorityRank, int64(g.AuthorityRank))
	e.dictStr(tagGovLifecycle, g.Lifecycle)
	e.dictStr(tagGovRetention, g.Retention)
	e.bool(tagGovCanonicalEligible, g.CanonicalEligible)
	e.f64(tagGovProvenance, g.ProvenanceScore)
	e.f64(tagGovWeight, g.RetrievalWeight)
	// The reader derives the duplicate key from the text hash it ends up
	// with (stored, or derived): compare against that.
	if !memory.IsDuplicateGroupKey(g.DuplicateGroupKey, c, c.TextHash) {
		e.rawStr(tagGovDuplicateKey, g.DuplicateGroupKey)
	}
	e.bool(tagGovCanonicalCandidate, g.CanonicalCandidate)
	if g.SupersessionScope != nil {
		// An empty scope is distinct from none: store it with a marker.
		e.tag(tagGovScope)
		e.uv(uint64(e.dict.id(*g.SupersessionScope)))
	}
	e.list(tagGovWarnings, g.Warnings)
}

// decoder reads records against a segment's dictionary.
type decoder struct {
	dict *dict
	b    []byte
	err  error
	// missing names the hashes a fieldsStored decode left to Derive.
	missing Hashes
	// textOf is what a fieldsMeta decode asks of the text's bytes in
	// place of copying them out; textIs is its answer (false without a
	// text).
	textOf func(text []byte) bool
	textIs bool
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: record: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
	d.b = nil
}

func (d *decoder) uv() uint64 {
	// Tags, dictionary ids and most lengths are one byte: read here, as
	// binary.Uvarint's loop cost a third of decoding a record's metadata.
	if len(d.b) > 0 && d.b[0] < 0x80 {
		v := uint64(d.b[0])
		d.b = d.b[1:]
		return v
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string {
	n := d.uv()
	if n > uint64(len(d.b)) {
		d.fail("string overruns the record")
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// skip passes over a length-prefixed value (a string).
func (d *decoder) skip() {
	n := d.uv()
	if n > uint64(len(d.b)) {
		d.fail("string overruns the record")
		return
	}
	d.b = d.b[n:]
}

// textBytes passes over a length-prefixed value and returns what of
// reports of its bytes (false when of is nil or the value overruns the
// record).
func (d *decoder) textBytes(of func([]byte) bool) bool {
	n := d.uv()
	if n > uint64(len(d.b)) {
		d.fail("string overruns the record")
		return false
	}
	b := d.b[:n:n]
	d.b = d.b[n:]
	return of != nil && of(b)
}

// skipList passes over a list of dictionary ids.
func (d *decoder) skipList() {
	n := d.uv()
	if n > uint64(len(d.b)) {
		d.fail("list overruns the record")
		return
	}
	for range n {
		d.uv()
	}
}

func (d *decoder) dictStr() string {
	id := d.uv()
	if id >= uint64(d.dict.n) {
		d.fail("dictionary id %d out of range", id)
		return ""
	}
	return d.dict.str(uint32(id))
}

func (d *decoder) list() []string {
	n := d.uv()
	if n > uint64(len(d.b)) {
		d.fail("list overruns the record")
		return nil
	}
	out := make([]string, 0, n)
	for range n {
		out = append(out, d.dictStr())
	}
	return out
}

func (d *decoder) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) f64() float64 {
	if len(d.b) < 8 {
		d.fail("short float")
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return v
}

// skipHash passes over a hash.
func (d *decoder) skipHash() {
	if len(d.b) < 32 {
		d.fail("short hash")
		return
	}
	d.b = d.b[32:]
}

func (d *decoder) hash() string {
	if len(d.b) < 32 {
		d.fail("short hash")
		return ""
	}
	s := hex.EncodeToString(d.b[:32])
	d.b = d.b[32:]
	return s
}

// fields is what a decode fills in.
type fields int

const (
	// fieldsAll is the whole chunk, with the hashes a record does not
	// store derived.
	fieldsAll fields = iota
	// fieldsID is the chunk id only: the tie-break of equal scores
	// compares ids of documents in different segments.
	fieldsID
	// fieldsText is the text only: a neighbour's words in a context.
	fieldsText
	// fieldsStored is the whole chunk without the hashes a record does
	// not store (decoder.missing names them).
	fieldsStored
	// fieldsMeta is what scoring a candidate reads: the fields held in
	// the dictionary, the numbers and the tags. The text, which is most
	// of a record, is read where it lies (decoder.textOf); the ids, the
	// hashes, the heading path and the warnings are left out (each a
	// string or list to allocate).
	fieldsMeta
)

// Hashes names the chunk fields a record stores only when they differ from
// what its other fields derive: the text hash, the dedupe key and the
// duplicate group key. Deriving them is two SHA-256 sums a chunk, which a
// search needs only for the chunks it deduplicates and returns.
type Hashes uint8

// The hashes, as Hashes bits.
const (
	TextHash Hashes = 1 << iota
	DedupeKey
	DuplicateGroupKey
)

// Derive fills in the hashes missing names, from the chunk's other fields.
func Derive(c *memory.Chunk, missing Hashes) {
	// The group key is made of the text hash: derive that first.
	if missing&TextHash != 0 {
		c.TextHash = memory.HashText(c.Text)
	}
	if missing&DedupeKey != 0 {
		c.DedupeKey = memory.DedupeKey(c)
	}
	if missing&DuplicateGroupKey != 0 {
		c.Governance.DuplicateGroupKey = memory.DuplicateGroupKey(c)
	}
}

// decode reads a record into c: the fields want names (the others are
// skipped, and may be left unchecked).
func (d *decoder) decode(c *memory.Chunk, want fields) error {
	g := &c.Governance
	var has struct{ id, textHash, dedupeKey, duplicateKey bool }
	all := want == fieldsAll || want == fieldsStored
	meta := want == fieldsMeta
	for len(d.b) > 0 && d.err == nil {
		switch t := d.uv(); t {
		case tagID:
			if want == fieldsText || meta {
				d.skip()
				continue
			}
			c.ID, has.id = d.str(), true
			if want == fieldsID {
				return d.err // a stored id is all this decode needs
			}
		case tagText:
			if want == fieldsID {
				d.skip()
				continue
			}
			if meta {
				d.textIs = d.textBytes(d.textOf)
				continue
			}
			c.Text = d.str()
			if want == fieldsText {
				return d.err
			}
		case tagTitle:
			c.Title = d.dictStr()
		case tagDate:
			c.Date = d.dictStr()
		case tagTime:
			c.Time = d.dictStr()
		case tagAgent:
			c.Agent = d.dictStr()
		case tagRole:
			c.Role = d.dictStr()
		case tagProject:
			c.Project = d.dictStr()
		case tagTags:
			if !all && !meta {
				d.skipList()
				continue
			}
			c.Tags = d.list()
		case tagWorkType:
			c.WorkType = d.dictStr()
		case tagLayer:
			c.Layer = d.dictStr()
		case tagSourceName:
			c.SourceName = d.dictStr()
		case tagSourceSet:
			c.SourceSet = d.dictStr()
		case tagSourceType:
			c.SourceType = d.dictStr()
		case tagSourceID:
			if meta {
				d.skip()
				continue
			}
			c.SourceID = d.str()
		case tagSourcePath:
			c.SourcePath = d.dictStr()
		case tagLine:
			c.LineNumber = int(d.int())
		case tagSession:
			c.SessionID = d.dictStr()
		case tagHeadingPath:
			if !all {
				d.skipList()
				continue
			}
			c.HeadingPath = d.list()
		case tagPart:
			c.Part = int(d.int())
		case tagParts:
			c.Parts = int(d.int())
			if want == fieldsID {
				// The fields an id is derived from are written before the
				// parts (encode): nothing after them changes it.
				c.ID = memory.ChunkID(c.SourceName, c.SourceID, c.Part, c.Parts)
				return d.err
			}
		case tagTextHash, tagDedupeKey:
			if meta {
				d.skipHash()
				continue
			}
			if t == tagTextHash {
				c.TextHash, has.textHash = d.hash(), true
			} else {
				c.DedupeKey, has.dedupeKey = d.hash(), true
			}
		case tagTextHashStr, tagDedupeKeyStr:
			if meta {
				d.skip()
				continue
			}
			if t == tagTextHashStr {
				c.TextHash, has.textHash = d.str(), true
			} else {
				c.DedupeKey, has.dedupeKey = d.str(), true
			}
		case tagConversation:
			c.Conversation = d.dictStr()
		case tagSubject:
			c.Subject = d.dictStr()
		case tagGovVersion:
			g.Version = int(d.int())
		case tagGovSourceSet:
			g.SourceSet = d.dictStr()
		case tagGovAuthorityRank:
			g.AuthorityRank = int(d.int())
		case tagGovLifecycle:
			g.Lifecycle = d.dictStr()
		case tagGovRetention:
			g.Retention = d.dictStr()
		case tagGovCanonicalEligible:
			g.CanonicalEligible = d.int() != 0
		case tagGovProvenance:
			g.ProvenanceScore = d.f64()
		case tagGovWeight:
			g.RetrievalWeight = d.f64()
		case tagGovDuplicateKey:
			if meta {
				d.skip()
				continue
			}
			g.DuplicateGroupKey, has.duplicateKey = d.str(), true
		case tagGovCanonicalCandidate:
			g.CanonicalCandidate = d.int() != 0
		case tagGovScope:
			s := d.dictStr()
			g.SupersessionScope = &s
		case tagGovWarnings:
			if !all {
				d.skipList()
				continue
			}
			g.Warnings = d.list()
		default:
			d.fail("unknown field tag %d (written by a newer Nova?)", t)
		}
	}
	if d.err != nil {
		return d.err
	}
	if want == fieldsText {
		return nil
	}
	if meta {
		if c.Tags == nil {
			c.Tags = []string{} // as the whole chunk has them
		}
		return nil
	}
	if !has.id {
		c.ID = memory.ChunkID(c.SourceName, c.SourceID, c.Part, c.Parts)
	}
	if !all {
		return nil
	}
	d.missing = 0
	if !has.textHash {
		d.missing |= TextHash
	}
	if !has.dedupeKey {
		d.missing |= DedupeKey
	}
	if !has.duplicateKey {
		d.missing |= DuplicateGroupKey
	}
	if want == fieldsAll {
		Derive(c, d.missing)
	}
	// The build always writes these as lists (never nil), as the JSON
	// envelope expects.
	if c.Tags == nil {
		c.Tags = []string{}
	}
	if g.Warnings == nil {
		g.Warnings = []string{}
	}
	return nil
}
