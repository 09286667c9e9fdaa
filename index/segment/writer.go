// Package segment is the on-disk unit of an index generation: a set of
// chunks with everything needed to search them, written once into its own
// directory and then only read, in place, from read-only memory mappings.
// A full build writes one or more segments; an incremental sync writes one
// small delta segment that may also retire documents of the segments
// before it. Generations share segments, so a promotion costs what
// changed, not the corpus.
//
// Files of a segment:
//
//	records.bin  the chunks (compact records, an offset table at the end)
//	facets.bin   per-document columns that filters and statistics read
//	             without decoding a chunk (dates, projects, agents, ...)
//	dict.bin     the strings those columns and records share
//	text.lex     BM25 postings of the chunks' own text
//	context.lex  BM25 postings of their neighbouring context
//	codes.i8     int8 vector codes
//	signs.bin    the codes' sign bits for the prefilter (spaces with a
//	             centre; segments without it compute them when opened)
//	lists.ivf    the inverted-file lists (only in spaces with cells)
//	dead.bin     the documents of earlier segments this one retires, with
//	             what they contributed to the BM25 statistics (deltas only)
//	segment.json counts and formats
//
// Every file is written with mode 0600, fsynced and then made read-only
// (0400) before the segment is listed anywhere; its size and checksum are
// in the manifest and are checked before it is mapped.
package segment

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nova-recall/nova/atomicfile"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/vector"
)

// File names of a segment.
const (
	FileRecords = "records.bin"
	FileFacets  = "facets.bin"
	FileDict    = "dict.bin"
	FileText    = "text.lex"
	FileContext = "context.lex"
	FileCodes   = "codes.i8"
	FileSigns   = "signs.bin"
	FileLists   = "lists.ivf"
	FileDead    = "dead.bin"
	FileMeta    = "segment.json"
)

// FormatVersion is the segment format this build writes and reads.
const FormatVersion = 2

// ErrCorrupt is wrapped by every error caused by a segment's bytes.
var ErrCorrupt = errors.New("segment is corrupt")

// Meta is segment.json.
type Meta struct {
	FormatVersion int    `json:"formatVersion"`
	ID            string `json:"id"`
	Docs          int    `json:"docs"`
	Dim           int    `json:"dim"`
	Analyzer      string `json:"analyzer"`
	// Space is the vector space the codes belong to.
	Space string `json:"space"`
	// Cells is the number of inverted-file cells (0: no lists file).
	Cells int `json:"cells,omitempty"`
	// Retires is how many documents of earlier segments dead.bin lists.
	Retires int `json:"retires,omitempty"`
	// Context is how the chunks' neighbouring context was made (it is
	// derived again from the neighbours when needed, never stored).
	Context memory.ContextParams `json:"context"`
	// Subjects counts the chunks with a subject, the members of version
	// chains: a generation skips the segments without any instead of
	// decoding every chunk to find them. Nil in segments written before
	// it was counted.
	Subjects *int `json:"subjects,omitempty"`
}

// Writer streams chunks into a new segment. Chunks are numbered in the
// order they are added; Seal then writes everything but the vectors,
// freeing the postings. Vectors follow, in the same order (they may need
// a model trained on every segment's chunks first), then Finish. It is
// not safe for concurrent use.
type Writer struct {
	dir   string
	files map[string]manifest.FileSum

	rec     *sumFile
	offsets []uint64
	ids     []string
	enc     encoder

	cols     [numColumns][]uint32
	lastCols [numStringColumns]lastID
	tags     []uint32
	text     *lexical.FieldWriter
	ctx      *lexical.FieldWriter
	sealed   bool
	subjects int
	codes    *vector.CodesWriter
	cfile    *sumFile
	sfile    *sumFile // nil when the space has no centre
}

// Create starts a segment in dir, which must not exist (its parent must).
// textTerms and ctxTerms, when positive, are the distinct terms of the
// text and context of the build's previous segment (Vocabularies): the
// new one sizes its term tables by them.
func Create(dir string, textTerms, ctxTerms int) (*Writer, error) {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create segment: %w", err)
	}
	w := &Writer{dir: dir, files: map[string]manifest.FileSum{}, text: lexical.NewFieldWriter(textTerms), ctx: lexical.NewFieldWriter(ctxTerms)}
	w.enc.dict = newDictBuilder()
	var err error
	if w.rec, err = createFile(filepath.Join(dir, FileRecords)); err != nil {
		return nil, err
	}
	w.rec.write([]byte(recordsMagic))
	return w, nil
}

// Docs is the number of chunks added.
func (w *Writer) Docs() int { return len(w.offsets) }

// sortedByID returns the document numbers ordered by chunk id, the
// column that finds a chunk by id with a binary search.
func sortedByID(ids []string) []uint32 {
	order := make([]uint32, len(ids))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(ids[a], ids[b]) })
	return order
}

// Dir is the segment's directory.
func (w *Writer) Dir() string { return w.dir }

// Add appends a chunk with the terms of its own text and of its context.
// It returns the ids of those terms in the segment's vocabularies
// (Vocabularies), valid until the next Add.
func (w *Writer) Add(c *memory.Chunk, textTerms []string, context lexical.Parts) (textIDs, contextIDs []uint32) {
	w.offsets = append(w.offsets, uint64(w.rec.n))
	w.ids = append(w.ids, c.ID)
	if c.Subject != "" {
		w.subjects++
	}
	w.enc.buf = w.enc.buf[:0]
	w.enc.encode(c)
	w.rec.write(w.enc.buf)
	d := w.enc.dict
	for col, s := range columnValues(c) {
		w.cols[col] = append(w.cols[col], w.lastCols[col].lookup(d, s))
	}
	for _, t := range c.Tags {
		w.tags = append(w.tags, d.id(t))
	}
	w.cols[colTagsEnd] = append(w.cols[colTagsEnd], uint32(len(w.tags)))
	w.cols[colLine] = append(w.cols[colLine], uint32(c.LineNumber))
	w.cols[colPart] = append(w.cols[colPart], uint32(c.Part))
	return w.text.Add(textTerms), w.ctx.AddParts(context)
}

// Vocabularies are the distinct terms of the chunks' text and of their
// context, each in id order (read only); Seal drops them.
func (w *Writer) Vocabularies() (text, context []string) {
	return w.text.Vocabulary(), w.ctx.Vocabulary()
}

// Seal writes the chunks' records, columns, dictionary and postings and
// frees what held them. No chunk can be added after it.
func (w *Writer) Seal() error {
	if w.sealed {
		return errors.New("segment: sealed twice")
	}
	w.sealed = true
	// records.bin ends with the offset table: offsets (n+1 u64), n u64,
	// magic.
	var tail []byte
	for _, o := range append(w.offsets, uint64(w.rec.n)) {
		tail = binary.LittleEndian.AppendUint64(tail, o)
	}
	tail = binary.LittleEndian.AppendUint64(tail, uint64(len(w.offsets)))
	w.rec.write(append(tail, recordsMagic...))
	if err := w.rec.close(FileRecords, w.files); err != nil {
		return err
	}
	w.rec = nil
	w.cols[colByID] = sortedByID(w.ids)
	if err := w.put(FileFacets, func(out io.Writer) error { return writeFacets(out, &w.cols, w.tags) }); err != nil {
		return err
	}
	if err := w.put(FileDict, func(out io.Writer) error { _, err := out.Write(w.enc.dict.bytes()); return err }); err != nil {
		return err
	}
	if err := w.put(FileText, func(out io.Writer) error { _, err := w.text.WriteTo(out); return err }); err != nil {
		return err
	}
	if err := w.put(FileContext, func(out io.Writer) error { _, err := w.ctx.WriteTo(out); return err }); err != nil {
		return err
	}
	w.text, w.ctx, w.ids, w.tags, w.enc = nil, nil, nil, nil, encoder{}
	w.cols, w.lastCols = [numColumns][]uint32{}, [numStringColumns]lastID{}
	return nil
}

// Vectors returns the writer of the segment's vector codes, quantized by
// q; call it once, after Seal, and add one vector per chunk.
func (w *Writer) Vectors(q vector.Quantizer) (*vector.CodesWriter, error) {
	if w.codes != nil || !w.sealed {
		return nil, errors.New("segment: Vectors called twice or before Seal")
	}
	f, err := createFile(filepath.Join(w.dir, FileCodes))
	if err != nil {
		return nil, err
	}
	w.cfile = f
	w.codes = vector.NewCodesWriter(f, q)
	if q.Centre != nil {
		if w.sfile, err = createFile(filepath.Join(w.dir, FileSigns)); err != nil {
			return nil, err
		}
		if !w.codes.SignsTo(w.sfile) {
			return nil, errors.New("segment: the codes writer refused the sign bits")
		}
	}
	return w.codes, nil
}

// EndVectors closes the codes file (after one vector per chunk), so it
// can be read back before Finish.
func (w *Writer) EndVectors() error {
	if w.codes == nil {
		return errors.New("segment: no vectors were written")
	}
	if w.codes.Rows() != w.Docs() {
		return fmt.Errorf("segment: %d vectors for %d chunks", w.codes.Rows(), w.Docs())
	}
	if _, err := w.codes.Close(); err != nil {
		// The codes writer writes the signs file too: the error's own
		// file says which of the two failed.
		path := w.cfile.f.Name()
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			path = pe.Path
		}
		return writeError(path, err)
	}
	if err := w.cfile.close(FileCodes, w.files); err != nil {
		return err
	}
	w.cfile = nil
	if w.sfile != nil {
		if err := w.sfile.close(FileSigns, w.files); err != nil {
			return err
		}
		w.sfile = nil
	}
	return nil
}

// Finish writes the remaining files and returns the segment's file sums.
// meta's Docs, FormatVersion and Dim are filled in. assign, when the space
// has cells, is the cell of each chunk's vector; dead lists what this
// segment retires.
func (w *Writer) Finish(meta Meta, cells int, assign []uint32, dead *Dead) (map[string]manifest.FileSum, error) {
	if _, ended := w.files[FileCodes]; !ended {
		return nil, errors.New("segment: vectors not ended")
	}
	if cells > 0 {
		if len(assign) != w.Docs() {
			return nil, fmt.Errorf("segment: %d cell assignments for %d chunks", len(assign), w.Docs())
		}
		if err := w.put(FileLists, func(out io.Writer) error { _, err := vector.WriteLists(out, cells, assign); return err }); err != nil {
			return nil, err
		}
	}
	if dead != nil && len(dead.Docs) > 0 {
		if err := w.put(FileDead, func(out io.Writer) error { _, err := out.Write(dead.bytes()); return err }); err != nil {
			return nil, err
		}
		meta.Retires = len(dead.Docs)
	}
	meta.FormatVersion, meta.Docs, meta.Cells = FormatVersion, len(w.offsets), cells
	meta.Subjects = &w.subjects
	if err := w.put(FileMeta, func(out io.Writer) error {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(meta)
	}); err != nil {
		return nil, err
	}
	if err := manifest.SyncDir(w.dir); err != nil {
		return nil, err
	}
	return w.files, nil
}

// Abort removes a segment that will not be finished.
func (w *Writer) Abort() {
	if w.rec != nil {
		w.rec.f.Close()
	}
	w.text, w.ctx, w.ids = nil, nil, nil
	for _, f := range []*sumFile{w.cfile, w.sfile} {
		if f != nil {
			f.f.Close()
		}
	}
	os.RemoveAll(w.dir)
}

func (w *Writer) put(name string, write func(io.Writer) error) error {
	f, err := createFile(filepath.Join(w.dir, name))
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.f.Close()
		return writeError(f.f.Name(), err)
	}
	return f.close(name, w.files)
}

// writeError is the error of a write of the segment file at path: it
// names the file once, with its folder, and keeps the errno that
// index.DiskFullError looks for (atomicfile.WriteError).
func writeError(path string, err error) error { return atomicfile.WriteError(path, path, err) }

// sumFile is a file being written, buffered, with its running checksum.
type sumFile struct {
	f   *os.File
	bw  *bufio.Writer
	h   *manifest.Hasher
	n   int64
	err error
}

func createFile(path string) (*sumFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	h := manifest.NewHasher()
	return &sumFile{f: f, bw: bufio.NewWriterSize(io.MultiWriter(f, h), 1<<20), h: h}, nil
}

func (s *sumFile) Write(p []byte) (int, error) {
	s.write(p)
	return len(p), s.err
}

func (s *sumFile) write(p []byte) {
	if s.err != nil {
		return
	}
	n, err := s.bw.Write(p)
	s.n += int64(n)
	s.err = err
}

// close flushes and seals the file (manifest.Seal), and records its sum.
func (s *sumFile) close(name string, files map[string]manifest.FileSum) error {
	err := s.err
	if err == nil {
		err = s.bw.Flush()
	}
	if err == nil {
		err = manifest.Seal(s.f)
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return writeError(s.f.Name(), err)
	}
	files[name] = s.h.Sum()
	return nil
}
