package index

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/vector"
)

// segmentPostings bounds a segment by the postings it holds in memory
// while it is built (about 12 bytes each), which bounds a build's memory
// whatever the corpus size: a large corpus becomes several segments.
const segmentPostings = 6_000_000

// sinkBatch is how many chunks are analysed together (in parallel).
const sinkBatch = 512

// pendingChunk is a chunk on its way into a segment: with the codes of
// its vector when an earlier segment of the same space already holds them
// (the chunk moved, or only its neighbouring context changed), or none
// when it must be embedded.
type pendingChunk struct {
	c     memory.Chunk
	codes []int8
}

// segmentSink writes chunks into new segments: it analyses them in
// parallel, adds them to the current segment, starts a new one when the
// current one is full, and records what each chunk's vector is made from
// in a temporary file. Vectors are computed per segment once the space
// can embed (a new builtin model is trained on a sample of every
// segment's chunks first), then written as codes.
type segmentSink struct {
	x   *Indexer
	ctx context.Context
	sp  *space
	res *BuildResult
	// first is the generation-wide number of the first new document.
	first int
	segs  []*newSegment
	cur   *newSegment
	batch []pendingChunk
	// termSample feeds the training of a new builtin model; vecSample the
	// quantizer and the cells of a new space.
	termSample *reservoir[[]string]
	vecSample  *reservoir[[]float32]
	dead       *segment.Dead
}

type newSegment struct {
	id       string
	w        *segment.Writer
	fwd      *os.File
	fwdW     *bufio.Writer
	postings int
	embedded bool
	assign   []uint32
	files    map[string]manifest.FileSum
}

func (x *Indexer) newSink(ctx context.Context, sp *space, first int, res *BuildResult) *segmentSink {
	s := &segmentSink{x: x, ctx: ctx, sp: sp, res: res, first: first}
	if !sp.reused {
		s.termSample = newReservoir[[]string](lsaTrainSample, 0x6e6f7661)
		s.vecSample = newReservoir[[]float32](annSample, annSeed)
	}
	return s
}

// lsaTrainSample is how many chunks a new builtin model learns from (the
// model samples at most this many itself).
const lsaTrainSample = 12_000

// add queues a chunk.
func (s *segmentSink) add(pc pendingChunk) error {
	s.batch = append(s.batch, pc)
	if len(s.batch) >= sinkBatch {
		return s.flush()
	}
	return nil
}

// analysed is a batch entry's terms.
type analysed struct {
	text, context, dense []string
}

func (s *segmentSink) flush() error {
	if len(s.batch) == 0 {
		return nil
	}
	if err := s.ctx.Err(); err != nil {
		return err
	}
	out := make([]analysed, len(s.batch))
	an := s.x.analyzer
	parallelSpans(len(s.batch), func(lo, hi int) {
		// A neighbour's words appear in the context of up to four chunks
		// near it in the batch: analyse each part once.
		parts := contextAnalyzer{an: an, seen: map[string][]string{}}
		for i := lo; i < hi; i++ {
			c := &s.batch[i].c
			a := &out[i]
			a.text = an.Terms(c.OwnText())
			a.context = parts.terms(c.Context)
			if s.batch[i].codes == nil && s.sp.builtin() {
				// The dense channel embeds the text and the words before it
				// (memory.Chunk.IndexText).
				a.dense = append(slices.Clip(a.text), parts.terms(c.Before)...)
			}
		}
	})
	for i := range s.batch {
		if err := s.addOne(&s.batch[i], &out[i]); err != nil {
			return err
		}
	}
	s.res.progress.analysed += len(s.batch)
	s.x.opts.Progress(Progress{Stage: "analyze", Done: s.res.progress.analysed, Total: s.res.progress.total})
	s.batch = s.batch[:0]
	return nil
}

func (s *segmentSink) addOne(pc *pendingChunk, a *analysed) error {
	if s.cur == nil {
		if err := s.start(); err != nil {
			return err
		}
	}
	cur := s.cur
	cur.w.Add(&pc.c, a.text, a.context)
	cur.postings += len(a.text) + len(a.context)
	if err := writeForward(cur.fwdW, pc, a.dense); err != nil {
		return err
	}
	if s.termSample != nil && a.dense != nil {
		s.termSample.add(a.dense)
	}
	if cur.postings >= segmentPostings {
		return s.roll()
	}
	return nil
}

// start opens a new segment and its temporary vector-input file.
func (s *segmentSink) start() error {
	id := manifest.NewRunID(s.x.opts.Now())
	root := filepath.Join(s.x.home.IndexDir(), "segments")
	if err := paths.MkdirPrivate(root); err != nil {
		return err
	}
	w, err := segment.Create(filepath.Join(root, id))
	if err != nil {
		return err
	}
	tmp := s.x.tmpDir()
	if err := paths.MkdirPrivate(tmp); err != nil {
		w.Abort()
		return err
	}
	f, err := os.OpenFile(filepath.Join(tmp, id+".vecin"), os.O_RDWR|os.O_CREATE|os.O_TRUNC, paths.FileMode)
	if err != nil {
		w.Abort()
		return err
	}
	s.cur = &newSegment{id: id, w: w, fwd: f, fwdW: bufio.NewWriterSize(f, 1<<20)}
	s.segs = append(s.segs, s.cur)
	return nil
}

// roll seals the current segment and, when the space can already embed,
// writes its vectors at once (bounding the temporary files).
func (s *segmentSink) roll() error {
	cur := s.cur
	s.cur = nil
	if err := cur.w.Seal(); err != nil {
		return err
	}
	if err := cur.fwdW.Flush(); err != nil {
		return err
	}
	if s.sp.reused {
		return s.embed(cur)
	}
	return nil
}

// finish writes everything that is left and returns the new segments'
// manifest parts, in order.
func (s *segmentSink) finish() ([]manifest.Part, error) {
	if err := s.flush(); err != nil {
		return nil, err
	}
	if s.cur == nil && len(s.segs) == 0 && s.dead != nil && len(s.dead.Docs) > 0 {
		// Nothing to add but documents to retire: an empty delta
		// carries the retirements.
		if err := s.start(); err != nil {
			return nil, err
		}
	}
	if s.cur != nil {
		if err := s.roll(); err != nil {
			return nil, err
		}
	}
	if !s.sp.reused && s.sp.builtin() {
		if err := s.x.train(s.ctx, s.sp, s.termSample.items, s.res); err != nil {
			return nil, err
		}
		if s.sp.quant == nil {
			// The quantizer's scales come from the vectors of the
			// training sample: the chunks the model learned from.
			var sample []float32
			for _, terms := range s.termSample.items {
				sample = append(sample, s.sp.model.EmbedTerms(terms)...)
			}
			q := vector.TrainQuantizer(sample, s.sp.prof.Dimension)
			s.sp.quant = &q
		}
		s.termSample = nil
	}
	total := 0
	for _, seg := range s.segs {
		if !seg.embedded {
			if err := s.embed(seg); err != nil {
				return nil, err
			}
		}
		total += seg.w.Docs()
	}
	if !s.sp.reused {
		var sample []float32
		for _, v := range s.vecSample.items {
			sample = append(sample, v...)
		}
		s.x.chooseCells(s.sp, sample, total)
		if s.sp.cells != nil {
			for _, seg := range s.segs {
				if err := s.assignCells(seg); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := s.x.writeSpace(s.sp); err != nil {
		return nil, err
	}
	parts := make([]manifest.Part, 0, len(s.segs))
	cells := 0
	if s.sp.cells != nil {
		cells = s.sp.cells.N()
	}
	for i, seg := range s.segs {
		var dead *segment.Dead
		if i == 0 {
			dead = s.dead
		}
		meta := segment.Meta{ID: seg.id, Dim: s.sp.prof.Dimension, Analyzer: generation.AnalyzerVersion, Space: s.sp.part.ID, Context: s.x.contextParams()}
		files, err := seg.w.Finish(meta, cells, seg.assign, dead)
		if err != nil {
			return nil, err
		}
		parts = append(parts, manifest.Part{ID: seg.id, Docs: seg.w.Docs(), Files: files})
	}
	s.x.opts.Progress(Progress{Stage: "write", Done: len(parts), Total: len(parts)})
	return parts, nil
}

// abort removes every segment this sink started.
func (s *segmentSink) abort() {
	for _, seg := range s.segs {
		seg.w.Abort()
		if seg.fwd != nil {
			seg.fwd.Close()
			os.Remove(seg.fwd.Name())
		}
	}
}

// Records of the temporary vector-input file: a kind byte, then the
// codes to carry (dim bytes), the dense terms (count, then each as
// length and bytes) or the text to embed (length and bytes).
const (
	fwdCodes byte = iota
	fwdTerms
	fwdText
)

func writeForward(w *bufio.Writer, pc *pendingChunk, dense []string) error {
	var b []byte
	switch {
	case pc.codes != nil:
		b = append([]byte{fwdCodes}, int8Bytes(pc.codes)...)
	case dense != nil:
		b = binary.AppendUvarint([]byte{fwdTerms}, uint64(len(dense)))
		for _, t := range dense {
			b = binary.AppendUvarint(b, uint64(len(t)))
			b = append(b, t...)
		}
	default:
		t := pc.c.IndexText()
		b = binary.AppendUvarint([]byte{fwdText}, uint64(len(t)))
		b = append(b, t...)
	}
	_, err := w.Write(b)
	return err
}

func int8Bytes(c []int8) []byte {
	b := make([]byte, len(c))
	for i, v := range c {
		b[i] = byte(v)
	}
	return b
}

// forwardEntry is one decoded vector input.
type forwardEntry struct {
	kind  byte
	codes []int8
	terms []string
	text  string
}

func readForward(r *bufio.Reader, dim int) (forwardEntry, error) {
	var e forwardEntry
	k, err := r.ReadByte()
	if err != nil {
		return e, err
	}
	e.kind = k
	str := func() (string, error) {
		n, err := binary.ReadUvarint(r)
		if err != nil {
			return "", err
		}
		b := make([]byte, n)
		_, err = io.ReadFull(r, b)
		return string(b), err
	}
	switch k {
	case fwdCodes:
		b := make([]byte, dim)
		if _, err := io.ReadFull(r, b); err != nil {
			return e, err
		}
		e.codes = make([]int8, dim)
		for i, v := range b {
			e.codes[i] = int8(v)
		}
	case fwdTerms:
		n, err := binary.ReadUvarint(r)
		if err != nil {
			return e, err
		}
		e.terms = make([]string, 0, n)
		for range n {
			t, err := str()
			if err != nil {
				return e, err
			}
			e.terms = append(e.terms, t)
		}
	case fwdText:
		if e.text, err = str(); err != nil {
			return e, err
		}
	default:
		return e, fmt.Errorf("vector input: unknown record kind %d", k)
	}
	return e, nil
}

// embedBatch is how many chunks are embedded together.
const embedBatch = 1024

// embed computes the vectors of a sealed segment from its vector-input
// file and writes them as codes.
func (s *segmentSink) embed(seg *newSegment) error {
	dim := s.sp.prof.Dimension
	if _, err := seg.fwd.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(seg.fwd, 1<<20)
	var cw *vector.CodesWriter
	entries := make([]forwardEntry, 0, embedBatch)
	for done := false; !done; {
		entries = entries[:0]
		for len(entries) < embedBatch {
			e, err := readForward(r, dim)
			if errors.Is(err, io.EOF) {
				done = true
				break
			}
			if err != nil {
				return fmt.Errorf("segment %s: %w", seg.id, err)
			}
			entries = append(entries, e)
		}
		vecs, err := s.vectors(entries)
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
		decoded := make([]float32, dim)
		for i, e := range entries {
			codes := e.codes
			if codes == nil {
				codes = make([]int8, dim)
				s.sp.quant.Encode(vecs[i], codes)
				if s.vecSample != nil {
					s.vecSample.add(vecs[i])
				}
			}
			if err := cw.AddCodes(codes); err != nil {
				return err
			}
			if s.sp.reused && s.sp.cells != nil {
				s.sp.quant.Decode(codes, decoded)
				seg.assign = append(seg.assign, uint32(s.sp.cells.Assign(decoded)))
			}
		}
		s.res.progress.embedded += len(entries)
		s.x.opts.Progress(Progress{Stage: "embed", Done: s.res.progress.embedded, Total: s.res.progress.total})
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

// vectors returns the float vectors of entries that need embedding (nil
// for entries that carry codes).
func (s *segmentSink) vectors(entries []forwardEntry) ([][]float32, error) {
	vecs := make([][]float32, len(entries))
	if s.sp.builtin() {
		parallelRange(len(entries), func(i int) {
			if entries[i].kind == fwdTerms {
				vecs[i] = s.sp.model.EmbedTerms(entries[i].terms)
			}
		})
		s.res.Embedded += countKind(entries, fwdTerms)
		s.res.Carried += countKind(entries, fwdCodes)
		return vecs, nil
	}
	var missing []int
	for i, e := range entries {
		switch e.kind {
		case fwdText:
			if v, ok := s.sp.cache.Get(embedding.KeyOf(e.text)); ok {
				vecs[i] = v
				s.res.Cached++
				continue
			}
			missing = append(missing, i)
		case fwdCodes:
			s.res.Carried++
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
		s.res.Embedded += len(idx)
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

// contextAnalyzer analyses neighbouring context part by part (the parts
// are the neighbours' words, joined by " … "), remembering each part: the
// terms of a context are its parts' terms one after the other, however
// the analyzer treats the joins, so every reader of the field agrees.
type contextAnalyzer struct {
	an   *lexical.Analyzer
	seen map[string][]string
}

func (c contextAnalyzer) terms(ctx string) []string {
	var out []string
	for part := range strings.SplitSeq(ctx, memory.ContextSeparator) {
		t, ok := c.seen[part]
		if !ok {
			t = c.an.Terms(part)
			if c.seen != nil {
				c.seen[part] = t
			}
		}
		out = append(out, t...)
	}
	return out
}

// contextTerms returns the terms a context is indexed with.
func contextTerms(an *lexical.Analyzer, ctx string) []string {
	return contextAnalyzer{an: an}.terms(ctx)
}

// parallelSpans calls fn on contiguous spans of [0, n), one per core.
func parallelSpans(n int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/64))
	var wg sync.WaitGroup
	step := (n + workers - 1) / workers
	for w := range workers {
		lo, hi := w*step, min(n, (w+1)*step)
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// parallelRange calls fn for every i in [0, n) on all cores.
func parallelRange(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/64))
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	step := (n + workers - 1) / workers
	for w := range workers {
		lo, hi := w*step, min(n, (w+1)*step)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				fn(i)
			}
		}()
	}
	wg.Wait()
}
