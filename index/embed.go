package index

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/parallel"
	"github.com/nova-recall/nova/vector"
)

// embedBatch is how many chunks are embedded together.
const embedBatch = 1024

// embed computes the vectors of a sealed segment from its vector-input
// file and writes them as codes. The next batch is read from the file
// while the cores embed the current one.
func (s *segmentSink) embed(seg *newSegment) error {
	dim := s.sp.prof.Dimension
	var rows vocabularies[int32]
	if s.sp.builtin() {
		var err error
		if rows, err = s.vocabularyRows(seg); err != nil {
			return fmt.Errorf("segment %s: %w", seg.id, err)
		}
	}
	r := bufio.NewReaderSize(io.NewSectionReader(seg.fwd, 0, seg.recordsEnd), 1<<20)
	pending := readForwardBatch(r, dim, rows)
	defer func() {
		if pending != nil {
			<-pending // the reader is done with the file before it closes
		}
	}()
	var cw *vector.CodesWriter
	for pending != nil {
		b := <-pending
		pending = nil
		if err := s.ctx.Err(); err != nil {
			return err // Ctrl-C: the build is dropped, not finished
		}
		if b.err != nil {
			return fmt.Errorf("segment %s: %w", seg.id, b.err)
		}
		if !b.last {
			pending = readForwardBatch(r, dim, rows)
		}
		entries := b.entries
		vecs, err := s.vectors(entries, rows)
		if err != nil {
			return err
		}
		if s.sp.quant == nil {
			// A new openai space: the first vectors set the scales.
			var sample []float32
			for _, v := range vecs {
				sample = append(sample, v...)
			}
			q := vector.TrainQuantizer(sample, dim)
			s.sp.quant = &q
		}
		if cw == nil {
			if cw, err = seg.w.Vectors(*s.sp.quant); err != nil {
				return err
			}
		}
		// One buffer for the codes of every batch: they are written
		// before the next batch, and a new one each (384 KB) was a large
		// allocation that, near the memory limit, had the runtime return
		// memory to the system first.
		if n := len(entries) * dim; cap(s.codesBuf) < n {
			s.codesBuf = make([]int8, n)
		}
		codes := s.codesBuf[:len(entries)*dim]
		clear(codes) // as a new buffer was
		parallel.Shared(len(entries), 128, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if entries[i].codes == nil {
					entries[i].codes = codes[i*dim : (i+1)*dim : (i+1)*dim]
					s.sp.quant.Encode(vecs[i], entries[i].codes)
				}
			}
		})
		decoded := make([]float32, dim)
		for i, e := range entries {
			if vecs[i] != nil && s.vecSample != nil {
				// A copy: the vector's buffer is the next batch's.
				addVector(s.vecSample, vecs[i])
			}
			if err := cw.AddCodes(e.codes); err != nil {
				return err
			}
			if s.sp.reused && s.sp.cells != nil {
				s.sp.quant.Decode(e.codes, decoded)
				seg.assign = append(seg.assign, uint32(s.sp.cells.Assign(decoded)))
			}
		}
		s.counts.done += len(entries)
		s.x.opts.Progress(Progress{Stage: "embed", Done: s.counts.done, Total: s.res.progress.total})
	}
	if cw == nil { // an empty segment still has a (header-only) codes file
		var err error
		if s.sp.quant == nil {
			return errors.New("no vectors to set the quantizer from")
		}
		if _, err = seg.w.Vectors(*s.sp.quant); err != nil {
			return err
		}
	}
	if err := seg.w.EndVectors(); err != nil {
		return err
	}
	seg.embedded = true
	seg.fwd.Close()
	os.Remove(seg.fwd.Name())
	seg.fwd = nil
	return nil
}

// forwardBatch is up to embedBatch entries of a vector-input file; last
// says the file ends with them.
type forwardBatch struct {
	entries []forwardEntry
	last    bool
	err     error
}

// vocabularyRows reads a sealed segment's vocabularies from its
// vector-input file and returns the model's row of each term (-1: the
// model does not know it).
func (s *segmentSink) vocabularyRows(seg *newSegment) (vocabularies[int32], error) {
	v, err := readVocabularies(bufio.NewReaderSize(io.NewSectionReader(seg.fwd, seg.recordsEnd, math.MaxInt64-seg.recordsEnd), 1<<20))
	if err != nil {
		return vocabularies[int32]{}, err
	}
	rowsOf := func(terms []string) []int32 {
		rows := make([]int32, len(terms))
		for i, t := range terms {
			row, ok := s.sp.model.Row(t)
			if !ok {
				row = -1
			}
			rows[i] = row
		}
		return rows
	}
	return vocabularies[int32]{text: rowsOf(v.text), context: rowsOf(v.context)}, nil
}

// embedTerms embeds a dense input: its ids through rows (vocabularyRows),
// its terms through the model.
func embedTerms(m *embedding.LSA, rows vocabularies[int32], d *denseInput, into []float32) []float32 {
	var buf [128]int32 // most texts: no allocation for the rows
	r := buf[:0]
	for _, id := range d.text {
		if row := rows.text[id]; row >= 0 {
			r = append(r, row)
		}
	}
	for _, id := range d.context {
		if row := rows.context[id]; row >= 0 {
			r = append(r, row)
		}
	}
	return m.EmbedRowsTo(into, m.AppendRows(r, d.terms))
}

// readForwardBatch reads the next batch from r in its own goroutine; rows
// are the model's rows of the segment's vocabularies.
func readForwardBatch(r *bufio.Reader, dim int, rows vocabularies[int32]) <-chan forwardBatch {
	out := make(chan forwardBatch, 1)
	go func() {
		b := forwardBatch{entries: make([]forwardEntry, 0, embedBatch)}
		for len(b.entries) < embedBatch {
			e, err := readForward(r, dim, rows)
			if errors.Is(err, io.EOF) {
				b.last = true
				break
			}
			if err != nil {
				b.err = err
				break
			}
			b.entries = append(b.entries, e)
		}
		out <- b
	}()
	return out
}

// vectors returns the float vectors of entries that need embedding (nil
// for entries that carry codes). rows are the builtin model's rows of the
// segment's vocabularies (vocabularyRows).
func (s *segmentSink) vectors(entries []forwardEntry, rows vocabularies[int32]) ([][]float32, error) {
	vecs := make([][]float32, len(entries))
	if s.sp.builtin() {
		// One buffer for the batch's vectors, used again by the next
		// batch (embed is done with them before it asks for more, and
		// the ANN sample copies those it keeps): 100k builds allocated
		// and cleared 150 MB of vectors one by one.
		dim := s.sp.prof.Dimension
		if n := len(entries) * dim; cap(s.vecBuf) < n {
			s.vecBuf = make([]float32, n)
		}
		// In shared pieces, not halves: the next batch is read on a third
		// goroutine meanwhile, and chunks differ in length, so a core with
		// a fixed half kept the other waiting (a 100k build: a third of
		// the embed stage on one core).
		parallel.Shared(len(entries), 16, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if entries[i].kind == fwdTerms {
					vecs[i] = embedTerms(s.sp.model, rows, &entries[i].dense, s.vecBuf[i*dim:(i+1)*dim:(i+1)*dim])
				}
			}
		})
		s.counts.embedded += countKind(entries, fwdTerms)
		s.counts.carried += countKind(entries, fwdCodes)
		return vecs, nil
	}
	var missing []int
	for i, e := range entries {
		switch e.kind {
		case fwdText:
			if v, ok := s.sp.cache.Get(embedding.KeyOf(e.text)); ok {
				vecs[i] = v
				s.counts.cached++
				continue
			}
			missing = append(missing, i)
		case fwdCodes:
			s.counts.carried++
		}
	}
	batch := max(1, s.x.cfg.Embedding.BatchSize)
	for lo := 0; lo < len(missing); lo += batch {
		idx := missing[lo:min(len(missing), lo+batch)]
		texts := make([]string, len(idx))
		for j, i := range idx {
			texts[j] = entries[i].text
		}
		out, err := s.sp.texts.Embed(s.ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("embed: %w", err)
		}
		if err := embedding.CheckVectors(out, len(texts), s.sp.prof.Dimension); err != nil {
			return nil, fmt.Errorf("embed: %w", err)
		}
		for j, i := range idx {
			vecs[i] = out[j]
			s.sp.cache.Put(embedding.KeyOf(texts[j]), out[j])
		}
		s.counts.embedded += len(idx)
	}
	return vecs, nil
}

func countKind(entries []forwardEntry, k byte) int {
	n := 0
	for _, e := range entries {
		if e.kind == k {
			n++
		}
	}
	return n
}

// assignCells reads a segment's codes back and places each in its cell
// (a new space's cells are known only once every vector is).
func (s *segmentSink) assignCells(seg *newSegment) error {
	dim := s.sp.prof.Dimension
	f, err := os.Open(filepath.Join(seg.w.Dir(), segment.FileCodes))
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	if _, err := r.Discard(8); err != nil { // magic
		return err
	}
	buf := make([]byte, dim)
	codes := make([]int8, dim)
	decoded := make([]float32, dim)
	seg.assign = make([]uint32, 0, seg.w.Docs())
	for range seg.w.Docs() {
		if _, err := io.ReadFull(r, buf); err != nil {
			return err
		}
		for i, b := range buf {
			codes[i] = int8(b)
		}
		s.sp.quant.Decode(codes, decoded)
		seg.assign = append(seg.assign, uint32(s.sp.cells.Assign(decoded)))
	}
	return nil
}
