package segment

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"

	"github.com/edsrzf/mmap-go"

	"github.com/nova-recall/nova/internal/lazy"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/vector"
)

// records.bin: magic, the records, then (n+1) u64 offsets, n u64, magic.
const recordsMagic = "NOVREC02"

// Reader is one opened segment. It is immutable and safe for concurrent
// use. Its files stay mapped until the Reader is unreachable.
type Reader struct {
	Meta  Meta
	Dir   string
	Files map[string]manifest.FileSum

	maps    []mmap.MMap
	records []byte
	offsets []byte
	dict    *dict
	facets  *facets
	// Text and Context are the lexical fields; Codes the vector codes;
	// Lists the inverted-file lists (nil without cells); Dead what this
	// segment retires (nil for none).
	Text    *lexical.Field
	Context *lexical.Field
	Codes   *vector.Codes
	Lists   *vector.Lists
	Dead    *Dead

	// fences are IDFences', read on first use.
	fencesOnce lazy.Once
	fences     []string
}

// FileError names the file of a segment that failed to open.
type FileError struct {
	File string
	Err  error
}

func (e *FileError) Error() string { return e.File + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// Open maps the segment in dir after checking that its files are exactly
// the ones listed in files: the same names, sizes and (when verify is
// set) checksums. A file whose size differs is never mapped. first is the
// generation-wide number of the segment's first document (dead.bin may
// only retire documents before it). A cancelled ctx stops the checks
// with ctx's error, which is no FileError: nothing was found wrong.
func Open(ctx context.Context, dir string, files map[string]manifest.FileSum, first int, verify bool) (*Reader, error) {
	r := &Reader{Dir: dir, Files: files}
	ok := false
	defer func() {
		if !ok {
			r.unmap()
		}
	}()
	fail := func(name string, err error) error {
		if errors.Is(err, os.ErrNotExist) {
			err = fmt.Errorf("%w: file is missing", ErrCorrupt)
		}
		return &FileError{File: name, Err: err}
	}
	for _, name := range []string{FileMeta, FileRecords, FileFacets, FileDict, FileText, FileContext, FileCodes} {
		if _, listed := files[name]; !listed {
			return nil, fail(name, fmt.Errorf("%w: not listed", ErrCorrupt))
		}
	}
	for _, name := range manifest.SortedFiles(files) {
		switch name {
		case FileMeta, FileRecords, FileFacets, FileDict, FileText, FileContext, FileCodes, FileSigns, FileLists, FileDead:
		default:
			return nil, fail(name, fmt.Errorf("%w: not a segment file", ErrCorrupt))
		}
	}
	mapped := map[string][]byte{}
	for _, name := range manifest.SortedFiles(files) {
		b, err := r.mapFile(ctx, filepath.Join(dir, name), files[name], verify)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		if err != nil {
			return nil, fail(name, err)
		}
		mapped[name] = b
	}
	if err := r.parse(mapped, first); err != nil {
		return nil, err
	}
	ok = true
	r.ReleaseResident()
	// The mappings outlive every use: searches hold the Reader (through
	// their generation) while they read.
	runtime.AddCleanup(r, func(ms []mmap.MMap) {
		for _, m := range ms {
			_ = m.Unmap()
		}
	}, r.maps)
	return r, nil
}

// parse reads the segment's files, mapped (or, in tests, held) by name,
// checking every offset, count and id they hold against their sizes.
func (r *Reader) parse(mapped map[string][]byte, first int) error {
	fail := func(name string, err error) error { return &FileError{File: name, Err: err} }
	if err := json.Unmarshal(mapped[FileMeta], &r.Meta); err != nil {
		return fail(FileMeta, fmt.Errorf("%w: %v", ErrCorrupt, err))
	}
	m := r.Meta
	if m.FormatVersion > FormatVersion {
		return fail(FileMeta, &manifest.NewerFormatError{What: "segment " + m.ID, Format: m.FormatVersion, Reads: FormatVersion})
	}
	if m.FormatVersion != FormatVersion || m.Docs < 0 || m.Dim <= 0 || m.Cells < 0 {
		return fail(FileMeta, fmt.Errorf("%w: format %d, %d docs, dimension %d", ErrCorrupt, m.FormatVersion, m.Docs, m.Dim))
	}
	var err error
	if r.dict, err = openDict(mapped[FileDict]); err != nil {
		return fail(FileDict, err)
	}
	if err := r.openRecords(mapped[FileRecords]); err != nil {
		return fail(FileRecords, err)
	}
	if r.facets, err = openFacets(mapped[FileFacets], m.Docs, r.dict); err != nil {
		return fail(FileFacets, err)
	}
	for _, f := range []struct {
		name string
		dst  **lexical.Field
	}{{FileText, &r.Text}, {FileContext, &r.Context}} {
		if *f.dst, err = lexical.OpenField(mapped[f.name]); err != nil {
			return fail(f.name, err)
		}
		if (*f.dst).Docs() != m.Docs {
			return fail(f.name, fmt.Errorf("%w: %d documents, segment has %d", ErrCorrupt, (*f.dst).Docs(), m.Docs))
		}
	}
	if r.Codes, err = vector.OpenCodes(mapped[FileCodes], m.Dim); err != nil {
		return fail(FileCodes, err)
	}
	if r.Codes.Len() != m.Docs {
		return fail(FileCodes, fmt.Errorf("%w: %d vectors, segment has %d", ErrCorrupt, r.Codes.Len(), m.Docs))
	}
	if b, listed := mapped[FileSigns]; listed {
		if err := vector.OpenSigns(b, r.Codes); err != nil {
			return fail(FileSigns, err)
		}
	}
	if m.Cells > 0 {
		b, listed := mapped[FileLists]
		if !listed {
			return fail(FileLists, fmt.Errorf("%w: cells without lists", ErrCorrupt))
		}
		if r.Lists, err = vector.OpenLists(b, m.Cells, m.Docs); err != nil {
			return fail(FileLists, err)
		}
	}
	if b, listed := mapped[FileDead]; listed {
		if r.Dead, err = parseDead(b, first); err != nil {
			return fail(FileDead, err)
		}
		if len(r.Dead.Docs) != m.Retires {
			return fail(FileDead, fmt.Errorf("%w: retires %d documents, meta says %d", ErrCorrupt, len(r.Dead.Docs), m.Retires))
		}
	} else if m.Retires != 0 {
		return fail(FileDead, fmt.Errorf("%w: not listed", ErrCorrupt))
	}
	return nil
}

// ReleaseResident releases this process's hold on the pages of the
// segment's files after a pass that read them all (opening validates
// every term's block table; a generation's Prepare reads every facet and
// vector code). Such a pass would otherwise leave most of the files
// resident in novad, and counted in its memory, though searches touch a
// small part of them. The pages stay in the page cache: a later read
// maps them back without touching the disk.
func (r *Reader) ReleaseResident() {
	for _, m := range r.maps {
		manifest.DropResident(m)
	}
}

// mapFile checks path's size (and checksum) and maps it read-only.
func (r *Reader) mapFile(ctx context.Context, path string, want manifest.FileSum, verify bool) ([]byte, error) {
	m, err := manifest.MapFile(ctx, path, want, verify, ErrCorrupt)
	if err != nil {
		return nil, err
	}
	if len(m) > 0 {
		r.maps = append(r.maps, m)
	}
	return m, nil
}

func (r *Reader) unmap() {
	for _, m := range r.maps {
		_ = m.Unmap()
	}
	r.maps = nil
}

func (r *Reader) openRecords(b []byte) error {
	le := binary.LittleEndian
	m := len(recordsMagic)
	if len(b) < 2*m+16 || string(b[:m]) != recordsMagic || string(b[len(b)-m:]) != recordsMagic {
		return fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	n := le.Uint64(b[len(b)-m-8:])
	// The table's size is compared by division: 8*(n+1) of a forged n
	// wraps around.
	if n != uint64(r.Meta.Docs) || n >= uint64(len(b)-2*m-8)/8 {
		return fmt.Errorf("%w: %d records, segment has %d", ErrCorrupt, n, r.Meta.Docs)
	}
	tableStart := uint64(len(b)-m-8) - 8*(n+1)
	r.offsets = b[tableStart : tableStart+8*(n+1)]
	r.records = b[:tableStart]
	prev := uint64(m)
	for i := uint64(0); i <= n; i++ {
		o := le.Uint64(r.offsets[8*i:])
		if o < prev || o > tableStart {
			return fmt.Errorf("%w: record offsets out of order", ErrCorrupt)
		}
		prev = o
	}
	if prev != tableStart {
		return fmt.Errorf("%w: records do not fill the file", ErrCorrupt)
	}
	return nil
}

// Docs is the number of documents.
func (r *Reader) Docs() int { return r.Meta.Docs }

func (r *Reader) record(doc int) []byte {
	le := binary.LittleEndian
	return r.records[le.Uint64(r.offsets[8*doc:]):le.Uint64(r.offsets[8*doc+8:])]
}

// Chunk decodes document doc.
func (r *Reader) Chunk(doc int) (*memory.Chunk, error) {
	c := &memory.Chunk{}
	d := decoder{dict: r.dict, b: r.record(doc)}
	if err := d.decode(c, fieldsAll); err != nil {
		return nil, err
	}
	return c, nil
}

// ChunkStored is Chunk without the hashes the record does not store, and
// which those are: Derive fills them in.
func (r *Reader) ChunkStored(doc int) (*memory.Chunk, Hashes, error) {
	c := &memory.Chunk{}
	d := decoder{dict: r.dict, b: r.record(doc)}
	if err := d.decode(c, fieldsStored); err != nil {
		return nil, 0, err
	}
	return c, d.missing, nil
}

// ChunkMeta decodes what scoring document doc reads of it: the fields
// its segment keeps in the dictionary, the numbers and the tags. The
// chunk's text, ids, hashes, heading path and warnings are left empty;
// textIs is what text (which may be nil) reports of the text's bytes,
// which it must not keep or modify: they are the mapped file's. Most
// candidates of a search are scored and dropped, and the text is most of
// a record.
func (r *Reader) ChunkMeta(doc int, text func([]byte) bool) (c *memory.Chunk, textIs bool, err error) {
	c = &memory.Chunk{}
	d := decoder{dict: r.dict, b: r.record(doc), textOf: text}
	err = d.decode(c, fieldsMeta)
	// The bytes text read are mapped while r is reachable: keep r so
	// until the decode returns.
	runtime.KeepAlive(r)
	if err != nil {
		return nil, false, err
	}
	return c, d.textIs, nil
}

// ChunkStoredInto is ChunkStored decoding into c, which must be the zero
// chunk: a caller that keeps only some of the fields need not allocate one.
func (r *Reader) ChunkStoredInto(doc int, c *memory.Chunk) (Hashes, error) {
	d := decoder{dict: r.dict, b: r.record(doc)}
	if err := d.decode(c, fieldsStored); err != nil {
		return 0, err
	}
	return d.missing, nil
}

// Complete copies into meta, a chunk ChunkMeta decoded, the fields
// ChunkMeta leaves out, from stored, the same document's ChunkStored chunk:
// meta is then stored's equal. It writes no field ChunkMeta decodes.
func Complete(meta, stored *memory.Chunk) {
	meta.Text, meta.ID, meta.SourceID, meta.HeadingPath = stored.Text, stored.ID, stored.SourceID, stored.HeadingPath
	meta.TextHash, meta.DedupeKey = stored.TextHash, stored.DedupeKey
	meta.Governance.DuplicateGroupKey, meta.Governance.Warnings = stored.Governance.DuplicateGroupKey, stored.Governance.Warnings
}

// ChunkText returns document doc's text, decoding nothing else of the
// record; "" for a record that does not decode.
func (r *Reader) ChunkText(doc int) string { return r.only(doc, fieldsText).Text }

// ID returns document doc's chunk id, decoding only what it is made of;
// "" for a record that does not decode.
func (r *Reader) ID(doc int) string { return r.only(doc, fieldsID).ID }

// only decodes the fields want names of document doc's record; a record
// that does not decode yields the zero chunk.
func (r *Reader) only(doc int, want fields) memory.Chunk {
	var c memory.Chunk
	d := decoder{dict: r.dict, b: r.record(doc)}
	if err := d.decode(&c, want); err != nil {
		return memory.Chunk{}
	}
	return c
}

// IDRank returns document doc's place in chunk id order within this
// segment: IDRank(a) < IDRank(b) exactly when ID(a) < ID(b).
func (r *Reader) IDRank(doc int) uint32 { return r.facets.idRank[doc] }

// ByIDRank returns the document whose IDRank is rank (1 to Docs()).
func (r *Reader) ByIDRank(rank uint32) int { return int(r.facets.cols[colByID][rank-1]) }

// IDFenceStep is how many places of a segment's id order lie between two
// of its id fences.
const IDFenceStep = 32

// IDFences returns the chunk ids at every IDFenceStep-th place of the
// segment's id order (IDRank 1, 1+IDFenceStep, ...) and at its last
// place: a decode of one id in IDFenceStep, faulting in pages across the
// whole records file, done once for the segment and kept with it, so that
// a generation that shares the segment with the one before does not read
// them again.
func (r *Reader) IDFences() []string {
	r.fencesOnce.Do(func() {
		n := r.Docs()
		var f []string
		for rank := 1; rank <= n; rank += IDFenceStep {
			f = append(f, r.ID(r.ByIDRank(uint32(rank))))
		}
		if n > 0 && (n-1)%IDFenceStep != 0 {
			f = append(f, r.ID(r.ByIDRank(uint32(n))))
		}
		r.fences = f
	})
	return r.fences
}

// Find returns the document holding chunk id, if any (live or not: the
// caller knows which documents later segments retired).
func (r *Reader) Find(id string) (int, bool) { return r.FindIn(id, 0, r.Docs()) }

// FindIn is Find for a caller that knows id can only be at places from
// to to-1 of the id order (IDRank from+1 to to).
func (r *Reader) FindIn(id string, from, to int) (int, bool) {
	order := r.facets.cols[colByID][from:to]
	i := sort.Search(len(order), func(i int) bool { return r.ID(int(order[i])) >= id })
	if i < len(order) && r.ID(int(order[i])) == id {
		return int(order[i]), true
	}
	return 0, false
}

// Facet names a per-document column that can be read without decoding
// the chunk.
type Facet int

// Facets of a document.
const (
	FacetDate         Facet = colDate
	FacetProject      Facet = colProject
	FacetAgent        Facet = colAgent
	FacetRole         Facet = colRole
	FacetSourceSet    Facet = colSourceSet
	FacetLifecycle    Facet = colLifecycle // governance lifecycle
	FacetWorkType     Facet = colWorkType
	FacetLayer        Facet = colLayer
	FacetSourceName   Facet = colSourceName
	FacetPath         Facet = colPath
	FacetConversation Facet = colConversation
)

// Facet returns document doc's value of f.
func (r *Reader) Facet(f Facet, doc int) string { return r.dict.str(r.facets.cols[f][doc]) }

// Line and Part are document doc's line in its file and part of its
// record.
func (r *Reader) Line(doc int) int { return int(r.facets.cols[colLine][doc]) }
func (r *Reader) Part(doc int) int { return int(r.facets.cols[colPart][doc]) }

// Tags returns document doc's tags.
func (r *Reader) Tags(doc int) []string {
	ids := r.facets.docTags(doc)
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = r.dict.str(id)
	}
	return out
}

// TagMatcher returns a function that reports whether document doc has
// any of tags, comparing dictionary ids: the tags are looked up once, not
// compared as strings with every tag of every document (a request may
// list thousands, each compared with every document's).
func (r *Reader) TagMatcher(tags []string) func(doc int) bool {
	want := r.idsOf(tags)
	return func(doc int) bool {
		for _, id := range r.facets.docTags(doc) {
			if want.has(id) {
				return true
			}
		}
		return false
	}
}

// ValueMatcher returns a function that reports whether match accepts
// document doc's value of f. Consecutive documents mostly share a value
// (a session's turns, a day's records), so the verdict on the last
// dictionary id is kept: a date range over 100 000 documents then costs
// an id comparison each, not a string's. The function is for one
// goroutine's scan.
func (r *Reader) ValueMatcher(f Facet, match func(value string) bool) func(doc int) bool {
	column := r.facets.cols[f]
	lastID, last := uint32(0), match(r.dict.str(0))
	return func(doc int) bool {
		if id := column[doc]; id != lastID {
			lastID, last = id, match(r.dict.str(id))
		}
		return last
	}
}

// Matcher returns a function that reports whether document doc's value
// of f is one of values, comparing dictionary ids (values absent from the
// dictionary match nothing).
func (r *Reader) Matcher(f Facet, values []string) func(doc int) bool {
	ids := r.idsOf(values)
	column := r.facets.cols[f]
	return func(doc int) bool { return ids.has(column[doc]) }
}

// idSet is a set of dictionary ids: a list while it is short, where a
// scan is cheaper than hashing, a map beyond.
type idSet struct {
	few  []uint32
	many map[uint32]struct{}
}

// idSetList is the most ids an idSet scans.
const idSetList = 8

// idsOf returns the ids of the values the dictionary holds (values absent
// from it match nothing).
func (r *Reader) idsOf(values []string) idSet {
	var s idSet
	for _, v := range values {
		id, ok := r.dict.lookup(v)
		switch {
		case !ok:
		case s.many != nil:
			s.many[id] = struct{}{}
		case len(s.few) < idSetList:
			s.few = append(s.few, id)
		default:
			s.many = make(map[uint32]struct{}, len(values))
			for _, f := range s.few {
				s.many[f] = struct{}{}
			}
			s.many[id] = struct{}{}
			s.few = nil
		}
	}
	return s
}

func (s idSet) has(id uint32) bool {
	if s.many != nil {
		_, ok := s.many[id]
		return ok
	}
	return slices.Contains(s.few, id)
}

// maxMetaBytes bounds the segment.json ReadAnalyzer reads (a few hundred
// bytes when well formed).
const maxMetaBytes = 1 << 16

// ReadAnalyzer returns the analyzer version a segment's terms come from
// (Meta.Analyzer), reading only its segment.json: what doctor reports
// without loading the generation.
func ReadAnalyzer(dir string) (string, error) {
	// Only a regular file: a named pipe would block the open, and doctor
	// with it.
	f, _, err := paths.OpenRegular(filepath.Join(dir, FileMeta))
	if err != nil {
		return "", err
	}
	defer f.Close()
	var m Meta
	if err := json.NewDecoder(io.LimitReader(f, maxMetaBytes)).Decode(&m); err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrCorrupt, FileMeta, err)
	}
	return m.Analyzer, nil
}
