package index

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/parallel"
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
	// lead, on the first chunk of a record of a conversation, is the
	// words the record lends its neighbours' context (see
	// contextAnalyzer.own); empty on any other.
	lead string
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
	// terms are the distinct terms of the last segment's text and
	// context, which size the next one's tables.
	terms [2]int
	// termSample feeds the training of a new builtin model; vecSample the
	// quantizer and the cells of a new space; probeSample the queries
	// that measure the cells' recall.
	termSample  *reservoir[[]string]
	vecSample   *reservoir[[]float32]
	probeSample *reservoir[[]string]
	dead        *segment.Dead
	// space is a new space being written (beginSpace), once the model is
	// final.
	space *spaceWrite
	// adding carries batches, in order, to the adder goroutine (nil
	// until the first batch) as they are being analysed; added reports
	// its end; addFailed holds its first error so that reading stops
	// early.
	adding    chan *analysedBatch
	added     chan error
	addFailed atomic.Pointer[error]
	// spent takes back from the adder the batches it is done with,
	// emptied, for flush to fill again (spentSlices).
	spent chan *analysedBatch
	// vecBuf holds the vectors of the batch being embedded (vectors),
	// codesBuf their codes (embed).
	vecBuf   []float32
	codesBuf []int8
	// counts are what embedding did, kept apart from the result (which the
	// reading goroutine updates) until finish adds them.
	counts struct{ embedded, cached, carried, done int }
}

// analysedBatch is a batch of chunks with their terms, which a goroutine
// of its own fills in; analysed is closed when they are.
type analysedBatch struct {
	chunks   []pendingChunk
	terms    []analysed
	analysed chan struct{}
}

// analysing is how many batches may wait for the adder (analysed, or
// being analysed) while the reader goes on.
const analysing = 3

type newSegment struct {
	id       string
	w        *segment.Writer
	fwd      *os.File
	fwdW     *bufio.Writer
	postings int
	// recordsEnd is where the records of the sealed segment's
	// vector-input file end; in builtin spaces its vocabularies follow
	// them.
	recordsEnd int64
	embedded   bool
	assign     []uint32
	files      map[string]manifest.FileSum
	// sealed reports the end of a seal in the background (nil when
	// there is none to wait for).
	sealed chan error
}

func (x *Indexer) newSink(ctx context.Context, sp *space, first int, res *BuildResult) *segmentSink {
	s := &segmentSink{x: x, ctx: ctx, sp: sp, res: res, first: first}
	if !sp.reused {
		s.termSample = newReservoir[[]string](lsaTrainSample, 0x6e6f7661)
		s.vecSample = newReservoir[[]float32](annSample, annSeed)
		s.probeSample = newReservoir[[]string](annQueries, annSeed+1)
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
	text    []string
	context lexical.Parts
	// The dense channel embeds the text's terms and then those of the
	// words of the records before (memory.Chunk.IndexText), when dense is
	// set. Those words lead the context: the first beforeParts of its
	// parts are theirs, and before holds the terms of any part of them
	// the context does not hold as it is (contextAnalyzer.before).
	beforeParts int
	before      []string
	dense       bool
}

// denseTerms returns the terms the dense channel embeds (joined only for
// a chunk the model's sample keeps).
func (a *analysed) denseTerms() []string {
	n := len(a.text) + len(a.before)
	for _, p := range a.context.Terms[:a.beforeParts] {
		n += len(p)
	}
	t := append(make([]string, 0, n), a.text...)
	for _, p := range a.context.Terms[:a.beforeParts] {
		t = append(t, p...)
	}
	return append(t, a.before...)
}

// denseInput returns the chunk's dense input given the ids Add returned
// for its text and context.
func (a *analysed) denseInput(textIDs, contextIDs []uint32) denseInput {
	n := 0 // the terms of the context parts that are words before
	for _, p := range a.context.Terms[:a.beforeParts] {
		n += len(p)
	}
	return denseInput{text: wordIDs(a.text, textIDs), context: contextIDs[:n], terms: a.before}
}

// wordIDs returns the ids (one per term, in order) of the terms that are
// not a Chinese word's characters, which the builtin model holds none of:
// written to the vector input and looked up there for nothing, they cost
// the 100k build a few percent. It returns ids itself when all are words.
func wordIDs(terms []string, ids []uint32) []uint32 {
	if !slices.ContainsFunc(terms, lexical.IsCharTerm) {
		return ids
	}
	out := make([]uint32, 0, len(ids))
	for i, t := range terms {
		if !lexical.IsCharTerm(t) {
			out = append(out, ids[i])
		}
	}
	return out
}

// flush hands the queued batch to a goroutine that analyses it and to the
// adder goroutine, which adds batches to the segments in order once they
// are analysed, while the caller reads the next one: reading and adding
// are each serial, and they overlap with each other and with the
// analyses. A batch is analysed by one goroutine, not split over the
// cores: the reader no longer waits for the slower half of every batch,
// and a neighbour's words are analysed once a batch, not once a half.
func (s *segmentSink) flush() error {
	if len(s.batch) == 0 {
		return nil
	}
	if err := s.ctx.Err(); err != nil {
		return err
	}
	if err := s.addFailed.Load(); err != nil {
		return *err
	}
	next, terms := s.spentSlices()
	n := len(s.batch)
	b := &analysedBatch{chunks: s.batch, terms: slices.Grow(terms, n)[:n], analysed: make(chan struct{})}
	if s.adding == nil {
		s.adding, s.added = make(chan *analysedBatch, analysing), make(chan error, 1)
		s.spent = make(chan *analysedBatch, analysing+1)
		go s.adder()
	}
	go func() {
		defer close(b.analysed)
		s.analyse(b)
	}()
	s.adding <- b
	s.res.progress.analysed += n
	if s.res.progress.total > 0 {
		// A full build analyses as it reads, and says so by its reading;
		// a delta or a compaction knows its chunks in advance.
		s.x.opts.Progress(Progress{Stage: "analyze", Done: s.res.progress.analysed, Total: s.res.progress.total})
	}
	s.batch = next
	return nil
}

// spentSlices returns the emptied slices of a batch the adder is done
// with, or new ones: a batch's chunks are 250 KB, and making them anew
// for each batch was 3% of a 100k build's allocation, each a large
// allocation that, near the memory limit, had the runtime give memory
// back to the system first.
func (s *segmentSink) spentSlices() ([]pendingChunk, []analysed) {
	select {
	case b := <-s.spent: // nil until the adder starts: never ready
		return b.chunks[:0], b.terms[:0]
	default:
		return make([]pendingChunk, 0, sinkBatch), make([]analysed, 0, sinkBatch)
	}
}

// analyse fills in a batch's terms.
func (s *segmentSink) analyse(b *analysedBatch) {
	an := s.x.analyzer
	// A neighbour's words appear in the context of up to four chunks
	// near it in the batch: analyse each part once.
	parts := newContextAnalyzer(an)
	for i := range b.chunks {
		c := &b.chunks[i].c
		a := &b.terms[i]
		a.text = parts.own(c, b.chunks[i].lead)
		a.context = parts.parts(c.Context)
		if b.chunks[i].codes == nil && s.sp.builtin() {
			a.beforeParts, a.before = parts.before(c.Before, a.context)
			a.dense = true
		}
	}
}

// adder adds the batches flush hands it, each once it is analysed; after
// an error it only drains.
func (s *segmentSink) adder() {
	var err error
	for b := range s.adding {
		<-b.analysed
		for i := 0; err == nil && i < len(b.chunks); i++ {
			if err = s.addOne(&b.chunks[i], &b.terms[i]); err != nil {
				s.addFailed.Store(&err)
			}
		}
		// Emptied, so that they keep no chunk alive, and handed back:
		// nothing added keeps a pointer into them.
		clear(b.chunks)
		clear(b.terms)
		select {
		case s.spent <- b:
		default:
		}
	}
	s.added <- err
}

// drain waits until every batch handed to the adder is in a segment.
func (s *segmentSink) drain() error {
	if s.adding == nil {
		return nil
	}
	close(s.adding)
	err := <-s.added
	s.adding = nil
	return err
}

func (s *segmentSink) addOne(pc *pendingChunk, a *analysed) error {
	if s.cur == nil {
		if err := s.start(); err != nil {
			return err
		}
	}
	cur := s.cur
	textIDs, contextIDs := cur.w.Add(&pc.c, a.text, a.context)
	cur.postings += len(a.text) + a.context.Len()
	var dense *denseInput
	if a.dense {
		d := a.denseInput(textIDs, contextIDs)
		dense = &d
	}
	if err := writeForward(cur.fwdW, pc, dense); err != nil {
		return err
	}
	if s.termSample != nil && a.dense {
		var dense []string // joined once, if a sample keeps it
		terms := func() []string {
			if dense == nil {
				dense = a.denseTerms()
			}
			return dense
		}
		s.termSample.addLazy(terms)
		s.probeSample.addLazy(terms)
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
	w, err := segment.Create(filepath.Join(root, id), s.terms[0], s.terms[1])
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
	s.cur = &newSegment{id: id, w: w, fwd: f, fwdW: bufio.NewWriterSize(tempWriter(f), 1<<20)}
	s.segs = append(s.segs, s.cur)
	return nil
}

// tempWriter is where a segment's temporary vector input is written: the
// file itself, except in tests that make the disk fill up there.
var tempWriter = func(f *os.File) io.Writer { return f }

// roll seals the current segment and, when the space can already embed,
// writes its vectors at once (bounding the temporary files). A new space
// embeds only once every segment is read: the segment is then sealed in
// the background (waitSealed), while the adder goes on with the next
// one. Sealing 6 million postings on the adder, which bounds how fast a
// build reads, held it up for a third of a second at each roll.
func (s *segmentSink) roll() error {
	cur := s.cur
	s.cur = nil
	if err := cur.fwdW.Flush(); err != nil {
		return err
	}
	end, err := cur.fwd.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	cur.recordsEnd = end
	var v vocabularies[string]
	v.text, v.context = cur.w.Vocabularies()
	s.terms = [2]int{len(v.text), len(v.context)}
	if s.sp.builtin() {
		// The records' term ids are numbers in the lexical fields'
		// vocabularies, which sealing drops: they follow them in the file.
		if err := writeVocabularies(cur.fwdW, v); err != nil {
			return err
		}
		if err := cur.fwdW.Flush(); err != nil {
			return err
		}
	}
	// Its 1 MiB buffer is not needed again: a 1M-record build keeps 25
	// sealed segments until the model is trained.
	cur.fwdW = nil
	if !s.sp.reused {
		cur.sealed = make(chan error, 1)
		go func() {
			err := cur.w.Seal()
			if err != nil {
				s.addFailed.CompareAndSwap(nil, &err) // reading stops early
			}
			cur.sealed <- err
		}()
		return nil
	}
	if err := cur.w.Seal(); err != nil {
		return err
	}
	return s.embed(cur)
}

// waitSealed waits for the segments being sealed in the background and
// returns the first error.
func (s *segmentSink) waitSealed() error {
	var first error
	for _, seg := range s.segs {
		if seg.sealed != nil {
			if err := <-seg.sealed; err != nil && first == nil {
				first = err
			}
			seg.sealed = nil
		}
	}
	return first
}

// finish writes everything that is left and returns the new segments'
// manifest parts, in order.
func (s *segmentSink) finish() ([]manifest.Part, error) {
	if err := s.flush(); err != nil {
		return nil, err
	}
	if err := s.drain(); err != nil {
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
		// In a new space the last segment is sealed while the model
		// learns (roll): the training's sample is complete, and it
		// leaves a core idle at times (the eigenproblem, the
		// vocabulary's sort).
		if err := s.roll(); err != nil {
			return nil, err
		}
	}
	t0 := time.Now()
	if !s.sp.reused && s.sp.builtin() {
		err := s.trainSpace()
		if serr := s.waitSealed(); err == nil {
			err = serr
		}
		if err != nil {
			return nil, err
		}
		s.res.Timings["train"] = time.Since(t0).Milliseconds()
	}
	if err := s.waitSealed(); err != nil {
		return nil, err
	}
	// The model is final (trained, reused or none): its file is written
	// while the segments are embedded.
	sw, err := s.x.beginSpace(s.sp)
	if err != nil {
		return nil, err
	}
	s.space = sw
	t0 = time.Now()
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
		sample := make([]float32, 0, len(s.vecSample.items)*s.sp.prof.Dimension)
		for _, v := range s.vecSample.items {
			sample = append(sample, v...)
		}
		var queries [][]float32
		if s.sp.model != nil {
			queries = probeQueries(s.sp.model, s.probeSample.items)
		}
		if err := s.x.chooseCells(s.ctx, s.sp, sample, queries, total); err != nil {
			return nil, err
		}
		if s.sp.cells != nil {
			for _, seg := range s.segs {
				if err := s.assignCells(seg); err != nil {
					return nil, err
				}
			}
		}
	}
	s.res.Timings["embed"] = time.Since(t0).Milliseconds()
	t0 = time.Now()
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.x.writeSpace(s.sp, s.space); err != nil {
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
		meta := segment.Meta{ID: seg.id, Dim: s.sp.prof.Dimension, Analyzer: s.x.analyzer.Version(), Space: s.sp.part.ID, Context: s.x.contextParams()}
		if err := s.ctx.Err(); err != nil {
			return nil, err
		}
		files, err := seg.w.Finish(meta, cells, seg.assign, dead)
		if err != nil {
			return nil, err
		}
		parts = append(parts, manifest.Part{ID: seg.id, Docs: seg.w.Docs(), Files: files})
	}
	s.res.Timings["segments"] = time.Since(t0).Milliseconds()
	s.res.Embedded += s.counts.embedded
	s.res.Cached += s.counts.cached
	s.res.Carried += s.counts.carried
	s.x.opts.Progress(Progress{Stage: "write", Done: len(parts), Total: len(parts)})
	return parts, nil
}

// trainSpace trains a new builtin model on the sample and, unless the
// space has one, the quantizer on the sample's vectors.
func (s *segmentSink) trainSpace() error {
	if err := s.x.train(s.ctx, s.sp, s.termSample.items, s.res); err != nil {
		return err
	}
	if s.sp.quant == nil {
		// The quantizer's scales come from the vectors of the
		// training sample: the chunks the model learned from.
		dim, items := s.sp.prof.Dimension, s.termSample.items
		sample := make([]float32, len(items)*dim)
		m := s.sp.model
		parallel.Shared(len(items), 64, func(lo, hi int) {
			var rows [128]int32 // most texts: no allocation for the rows
			for i := lo; i < hi; i++ {
				// EmbedTerms, into the sample: not a new vector each.
				m.EmbedRowsTo(sample[i*dim:(i+1)*dim], m.AppendRows(rows[:0], items[i]))
			}
		})
		q := vector.TrainQuantizer(sample, dim)
		s.sp.quant = &q
	}
	s.termSample = nil
	return nil
}

// abort removes every segment this sink started.
func (s *segmentSink) abort() {
	_ = s.drain() // the adder may be writing to a segment; its error is the caller's already
	_ = s.waitSealed()
	_ = s.space.wait() // a space left unfinished is removed as garbage, like one a crash leaves
	for _, seg := range s.segs {
		seg.w.Abort()
		if seg.fwd != nil {
			seg.fwd.Close()
			os.Remove(seg.fwd.Name())
		}
	}
}

// contextAnalyzer analyses neighbouring context part by part (the parts
// are the neighbours' words, joined by " … "), remembering each part: the
// terms of a context are its parts' terms one after the other, however
// the analyzer treats the joins, so every reader of the field agrees.
type contextAnalyzer struct {
	an   *lexical.Analyzer
	seen map[string]partTerms // nil: nothing remembered
}

// partTerms are the terms of one part as the text field holds them and as
// the context field does. The context holds no characters of Chinese words
// (lexical.IsCharTerm): searched there as well as in the text, they found
// no more evidence on the Chinese recall sets, and cost a generation at
// 100k records 1.6 MB (BENCHMARKS.md).
type partTerms struct{ text, context []string }

// newContextAnalyzer returns a contextAnalyzer that remembers each part.
func newContextAnalyzer(an *lexical.Analyzer) contextAnalyzer {
	return contextAnalyzer{an: an, seen: map[string]partTerms{}}
}

// parts returns the context's parts and their terms (shared with the
// cache: read only).
func (c contextAnalyzer) parts(ctx string) lexical.Parts {
	// The parts are gathered on the stack and copied once to their size:
	// counting the separators first read the context twice.
	var found [16]string
	parts := found[:0]
	for part := range strings.SplitSeq(ctx, memory.ContextSeparator) {
		parts = append(parts, part)
	}
	p := lexical.Parts{Parts: slices.Clone(parts), Terms: make([][]string, len(parts))}
	for i, part := range p.Parts {
		p.Terms[i] = c.analysed(part).context
	}
	return p
}

// part returns the terms of one part as text (shared with the cache: read
// only).
func (c contextAnalyzer) part(part string) []string { return c.analysed(part).text }

// analysed returns the terms of one part (shared with the cache: read
// only).
func (c contextAnalyzer) analysed(part string) partTerms {
	t, ok := c.seen[part]
	if !ok {
		t.text = c.an.Terms(part)
		t.context = t.text
		if slices.ContainsFunc(t.text, lexical.IsCharTerm) {
			t.context = slices.DeleteFunc(slices.Clone(t.text), lexical.IsCharTerm)
		}
		if c.seen != nil {
			c.seen[part] = t
		}
	}
	return t
}

// own returns the terms of a chunk's own text. The words the chunk's
// record lends its neighbours (lead, LeadWords of its text) are most of
// a short record and a part of the neighbours' context, which analyses
// and remembers them: when they are a piece of the text between ASCII
// white space, the text's terms are those of the text before them, the
// lead's own (analysed once for both) and those of the text after them.
// That is what analysing the whole text gives: no term spans ASCII white
// space, and normalising does not join characters across it (NFKC
// composes no character with a space before it, and a space with
// nothing after it; lower-casing and the Chinese fold go character by
// character).
func (c contextAnalyzer) own(ch *memory.Chunk, lead string) []string {
	text := ch.OwnText()
	at, ok := leadAt(text, len(text)-len(ch.Text), lead)
	if !ok || c.seen == nil {
		return c.an.Terms(text)
	}
	end := at + len(lead)
	mid := c.part(lead) // shared with the cache: copied below
	out := make([]string, 0, len(mid)+(len(text)-len(lead))/7+1)
	out = c.an.AppendTerms(out, text[:at])
	out = append(out, mid...)
	return c.an.AppendTerms(out, text[end:])
}

// leadAt returns where lead stands in text as the first words of the
// text from offset from on (after ASCII white space), with ASCII white
// space or the text's start and end around it; ok is false when it does
// not, or when lead is empty.
func leadAt(text string, from int, lead string) (at int, ok bool) {
	if lead == "" || from < 0 || from > len(text) {
		return 0, false
	}
	at = from
	for at < len(text) && asciiSpace(text[at]) {
		at++
	}
	end := at + len(lead)
	if !strings.HasPrefix(text[at:], lead) || (at > 0 && !asciiSpace(text[at-1])) || (end < len(text) && !asciiSpace(text[end])) {
		return 0, false
	}
	return at, true
}

// asciiSpace reports the ASCII white space (LeadWords skips it).
func asciiSpace(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}

// before tells how the words of the records before a chunk (memory.Chunk
// Before, which lead its context) are in the context's parts: n is how
// many of its leading parts are theirs, and rest the terms of their parts
// that the context does not hold as they are (the context is trimmed at
// its ends). The terms of the first n parts, then rest, are before's.
func (c contextAnalyzer) before(before string, context lexical.Parts) (n int, rest []string) {
	if before == "" {
		return 0, nil
	}
	matching := true
	for part := range strings.SplitSeq(before, memory.ContextSeparator) {
		if matching && n < len(context.Parts) && context.Parts[n] == part {
			n++
			continue
		}
		matching = false
		rest = append(rest, c.analysed(part).context...)
	}
	return n, rest
}

// terms returns the context's terms, the parts' one after the other.
func (c contextAnalyzer) terms(ctx string) []string {
	p := c.parts(ctx)
	if len(p.Terms) == 1 {
		return slices.Clip(p.Terms[0]) // shared with the cache: an append copies
	}
	return slices.Concat(p.Terms...)
}

// contextTerms returns the terms a context is indexed with.
func contextTerms(an *lexical.Analyzer, ctx string) []string {
	return contextAnalyzer{an: an}.terms(ctx)
}

// addLazy is reservoir.add for an item made only if the sample keeps it:
// the same draws, so the same sample.
func (r *reservoir[T]) addLazy(x func() T) { r.addMade(func(T) T { return x() }) }
