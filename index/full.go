package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/redact"
)

// full builds every segment from the sources, streaming: files are read a
// few at a time, each record is chunked and, once the records after it in
// its conversation are known, written to the current segment. Memory that
// the previous generation holds for files that disappeared is carried
// forward (unless pruned).
func (x *Indexer) full(ctx context.Context, prev *previous, res *BuildResult) (*manifest.Manifest, *sourceStates, error) {
	res.Mode = ModeFull
	t0 := time.Now()
	if prev != nil && prev.gen != nil && res.Recovery == nil {
		// The active generation was opened with quick checks, enough for
		// a delta (its verification hashes the files it shares); a full
		// build copies chunks and vectors out of it into files of its
		// own, and bit rot (a file's bytes changed, its size and time
		// not) would become memory that verifies clean. A full build is
		// rare and reads every source: it hashes what it carries from.
		if err := CheckGeneration(ctx, x.home, prev.manifest, Deep); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				// Interrupted while hashing: nothing was found damaged,
				// and nothing is written yet.
				return nil, nil, ctxErr
			}
			if prev, err = x.buildPastDamage(ctx, err, res); err != nil {
				return nil, nil, err
			}
		}
	}
	prevCount := 0
	if prev != nil && prev.gen != nil {
		prevCount = prev.gen.Count()
	}
	sp := x.reuseSpace(prev, prevCount)
	if sp == nil {
		sp = x.newSpace()
	}
	if err := x.openCache(sp); err != nil {
		return nil, nil, err
	}
	// A build into a new space looks up every text it holds, so once it
	// has written every segment the cache can drop what none of them uses.
	everyText := false
	defer func() { x.flushCache(sp, everyText) }()
	defer sp.release()
	if err := x.preferNovad(ctx, sp, res); err != nil {
		return nil, nil, err
	}
	sink := x.newSink(ctx, sp, 0, res)
	ok := false
	defer func() {
		if !ok {
			sink.abort()
		}
	}()
	var prevStates map[stateKey]*FileState
	if prev != nil {
		prevStates = prev.states.index()
	}
	jobs, summaries := x.listFiles(prevStates, res)
	res.Sources = summaries
	carry := x.carriedMemory(ctx, prev, jobs, sp.reused)
	jobs = x.withCarried(jobs, carry)
	states := &sourceStates{}
	// First chunk ids of the records written: a set of a million entries
	// at 1M records, so without values (half the size of a map to bool).
	seen := map[uint64]struct{}{}
	var windows *conversations
	waiting := &waitingFile{dir: x.tmpDir()}
	defer waiting.close()
	source := -1
	records := 0
	var dropped []string // of the file being read, across its pieces
	limit := x.opts.PieceBytes
	if limit <= 0 {
		limit = pieceBytes
	}
	err := x.readAll(ctx, jobs, limit, func(r *fileRead) error {
		if r.src != source {
			if err := windows.flush(); err != nil {
				return err
			}
			source = r.src
			windows = x.newConversations(sink, waiting)
		}
		src := x.cfg.Sources[r.src]
		sum := &res.Sources[r.src]
		key := stateKey{src.Name, r.file.Path}
		note := r.file.Path
		if r.more || r.piece > 0 {
			note = fmt.Sprintf("%s (%d MiB read)", r.file.Path, r.state.Cursor.Offset>>20)
		}
		x.opts.Progress(Progress{Stage: "read", Done: len(states.Files), Total: len(jobs), Note: note})
		old := carry.files[key]
		if r.carried || r.err != nil || r.unstable {
			if !r.carried {
				reason := "the file kept changing while it was read; its earlier memory is kept and it will be read again"
				switch {
				case r.passing() && old != nil:
					res.Unsettled++
					reason = r.err.Error() + "; its earlier memory is kept and it will be read again"
				case r.passing():
					res.Unsettled++
					reason = r.err.Error() + "; it will be read again"
				case r.err != nil:
					reason = r.err.Error()
				default:
					res.Unsettled++
				}
				res.problem(ingest.Problem{Source: src.Name, Path: r.file.Path, Reason: reason})
				sum.Problems++
				sum.Files++ // listed, as a delta counts it
			}
			if old == nil {
				if r.lasting() {
					states.Files = append(states.Files, unreadableState(src.Name, nil, r, 0))
				}
				return nil
			}
			// The earlier memory of the file is kept, in its place among
			// the neighbours.
			held := 0
			for _, recChunks := range old.records() {
				for i := range recChunks {
					redactAgain(&recChunks[i])
				}
				id := xxh3.HashString(recChunks[0].c.ID)
				if _, dup := seen[id]; dup {
					continue // another file now holds this record
				}
				seen[id] = struct{}{}
				held++
				records++
				sum.Records++
				sum.Chunks += len(recChunks)
				res.Added += len(recChunks)
				res.Carried += len(recChunks)
				if err := windows.add(recChunks[0].c.Conversation, recChunks); err != nil {
					return err
				}
			}
			if r.carried && held == 0 {
				// Gone, and other files hold all it gave: no memory of it
				// is left to keep.
				return nil
			}
			if st := prevStates[key]; st != nil {
				kept := *st
				switch {
				case r.carried:
					kept.markGone(x.opts.Now().UTC())
				case r.lasting():
					kept = unreadableState(src.Name, st, r, held)
				}
				states.Files = append(states.Files, kept)
			} else if r.lasting() {
				states.Files = append(states.Files, unreadableState(src.Name, nil, r, held))
			} else {
				states.Files = append(states.Files, FileState{Source: src.Name, Path: r.file.Path, Gone: x.opts.Now().UTC()})
			}
			if r.carried {
				sum.Gone = append(sum.Gone, r.file.Path)
			}
			return nil
		}
		for _, p := range r.problems {
			res.problem(p)
		}
		sum.Problems += r.count
		res.ProblemCount += r.count - len(r.problems)
		if r.piece == 0 {
			dropped = nil
		}
		for ri, rec := range r.records {
			chunks := r.chunks[ri]
			if len(chunks) == 0 {
				continue
			}
			id := xxh3.HashString(chunks[0].c.ID)
			if _, dup := seen[id]; dup {
				res.DuplicateIDs++
				res.problem(ingest.Problem{Source: src.Name, Path: rec.Path, Line: rec.Line, Reason: fmt.Sprintf("duplicate id %q: kept the first record with this id", rec.ID)})
				dropped = append(dropped, chunks[0].c.ID)
				continue
			}
			seen[id] = struct{}{}
			records++
			sum.Records++
			sum.Chunks += len(chunks)
			res.Added += len(chunks)
			if err := windows.add(rec.Conversation, chunks); err != nil {
				return err
			}
		}
		if r.more {
			return nil // the file's state comes with its last piece
		}
		st := r.state
		st.Dropped = dropped
		sum.Files++
		res.FilesRead++
		if t := ingest.LastChange(src.Kind, st.Path, time.Unix(0, st.ModTime)); t.After(sum.NewestModTime) {
			sum.NewestModTime = t
		}
		states.Files = append(states.Files, st)
		return nil
	})
	if err == nil {
		err = windows.flush()
	}
	if err != nil {
		return nil, nil, err
	}
	res.Timings["read"] = time.Since(t0).Milliseconds()
	if res.Added == 0 {
		return nil, nil, &NothingToIndexError{Result: res, Config: x.cfg.File}
	}
	t0 = time.Now()
	parts, err := x.finishSegments(sink, res)
	if err != nil {
		return nil, nil, err
	}
	res.Timings["write"] = time.Since(t0).Milliseconds()
	ok = true
	everyText = !sp.reused
	return x.candidate(sp, parts, res.Added, records), states, nil
}

// listFiles lists every file of every source, in build order.
func (x *Indexer) listFiles(prevStates map[stateKey]*FileState, res *BuildResult) ([]readJob, []SourceSummary) {
	var jobs []readJob
	summaries := make([]SourceSummary, len(x.cfg.Sources))
	for i, src := range x.cfg.Sources {
		summaries[i] = SourceSummary{Name: src.Name, Kind: src.Kind, Path: src.Path}
		listing, err := x.opts.listSource(src)
		if err != nil {
			summaries[i].Error = err.Error()
			summaries[i].Missing = errors.Is(err, ingest.ErrSourceMissing)
			reason := err.Error()
			if ingest.Passing(err) {
				res.Unsettled++
				reason += "; it will be listed again"
			}
			res.problem(ingest.Problem{Source: src.Name, Path: src.Path, Reason: reason})
			continue
		}
		summaries[i].NotDownloaded = len(listing.NotDownloaded)
		// A folder that cannot be read is reported; the memory of its
		// files is carried forward like that of any file not read.
		for _, p := range listing.Problems {
			summaries[i].Problems++
			if p.Passing {
				res.Unsettled++
				p.Reason += "; it will be listed again"
			}
			res.problem(p)
		}
		for _, f := range listing.Files {
			jobs = append(jobs, readJob{src: i, file: f, prev: prevStates[stateKey{src.Name, f.Path}]})
		}
	}
	return jobs, summaries
}

// carried is the previous generation's memory that a full build keeps:
// that of files that disappeared (unless pruned) and of files that cannot
// be read this time, by file, as records in order.
type carried struct {
	files map[stateKey]*carriedFile
}

type carriedFile struct {
	src int
	// decoded holds each record's pieces, by line; when gen is set they
	// are decoded from docs only if asked for: a full rebuild keeps the
	// previous memory of every file it reads in case the read fails, and
	// decoding it all up front held the whole corpus in memory.
	decoded [][]pendingChunk
	gen     *generation.Generation
	docs    []carriedDoc // in line order, then document order
	codes   bool         // carried chunks keep their vectors' codes
}

// carriedDoc is a document of the previous generation to carry forward.
type carriedDoc struct{ doc, line, part int }

// records returns the file's previous records, decoding them on first use.
func (f *carriedFile) records() [][]pendingChunk {
	if f.decoded != nil || f.gen == nil {
		return f.decoded
	}
	for _, d := range f.docs {
		pc := pendingChunk{c: *f.gen.Chunk(d.doc)}
		if f.codes {
			pc.codes = f.gen.Codes(d.doc)
		}
		f.decoded = appendPiece(f.decoded, pc)
	}
	return f.decoded
}

// redactAgain applies today's redaction rules to a chunk carried from a
// file that cannot be read again (gone, or failing now). Rules added since
// it was indexed must reach it too, or a secret they catch would stay
// searchable for as long as the memory is kept. A changed chunk is
// embedded again: its vector was made from the secret.
func redactAgain(pc *pendingChunk) {
	if redact.Chunk(&pc.c) {
		pc.codes = nil
	}
}

// appendPiece adds a chunk to recs, records in line order: to the last
// record when it is another piece of it, else as a record of its own
// (records may share a line: the elements of a JSON array on one line).
func appendPiece(recs [][]pendingChunk, pc pendingChunk) [][]pendingChunk {
	if n := len(recs); n > 0 && recs[n-1][0].c.LineNumber == pc.c.LineNumber && recs[n-1][0].c.SourceID == pc.c.SourceID {
		recs[n-1] = append(recs[n-1], pc)
		return recs
	}
	return append(recs, []pendingChunk{pc})
}

// carriedMemory collects the previous generation's chunks by file, for
// files of configured sources. When this build reuses prev's vector space
// (reused), they keep their vectors; in a new space they are embedded
// again.
func (x *Indexer) carriedMemory(ctx context.Context, prev *previous, jobs []readJob, reused bool) *carried {
	out := &carried{files: map[stateKey]*carriedFile{}}
	if prev == nil {
		return out
	}
	configured := map[string]int{}
	for i, s := range x.cfg.Sources {
		configured[s.Name] = i
	}
	listed := map[stateKey]bool{}
	for _, j := range jobs {
		listed[stateKey{x.cfg.Sources[j.src].Name, j.file.Path}] = true
	}
	// A file renamed since (and perhaps appended to) is read under its
	// new name: its old name's memory is not carried beside it.
	gone := map[stateKey]*FileState{}
	for key, st := range prev.states.index() {
		if _, ok := configured[key.source]; ok && !listed[key] {
			gone[key] = st
		}
	}
	moved := map[stateKey]bool{}
	for _, from := range x.renames(ctx, jobs, gone, prev.gen) {
		moved[from] = true
	}
	keep := func(key stateKey) bool {
		if _, ok := configured[key.source]; !ok || key.path == "" {
			return false
		}
		if listed[key] {
			return true // read now; kept only if the read fails
		}
		if x.opts.PruneMissing || moved[key] {
			return false
		}
		// A plain Codex rollout gone since it was compressed is read from
		// its compressed copy, listed: its memory is that copy's now.
		if i := configured[key.source]; listed[stateKey{key.source, key.path + ".zst"}] &&
			ingest.PlainRollout(x.cfg.Sources[i].Kind, key.path+".zst") == key.path {
			return false
		}
		// Gone: kept, unless it still exists (excluded by its globs now).
		// A link whose target is gone (a volume not mounted) counts as
		// gone, as does a path that is a folder now, and a file in a
		// folder that cannot be read (listFiles) as not read: their
		// memory is kept, as a delta keeps it.
		fi, err := os.Stat(key.path)
		return err != nil || !fi.Mode().IsRegular()
	}
	if prev.legacy {
		old, err := generation.LegacyChunks(x.home.IndexDir())
		if err != nil {
			x.log.Warn("Cannot read the index of the older format to carry vanished memory forward", "err", err)
			return out
		}
		sortChunks(old)
		for _, c := range old {
			key := stateKey{c.SourceName, c.SourcePath}
			if !keep(key) {
				continue
			}
			f := out.files[key]
			if f == nil {
				f = &carriedFile{src: configured[c.SourceName]}
				out.files[key] = f
			}
			f.decoded = appendPiece(f.decoded, pendingChunk{c: c})
		}
		return out
	}
	// The facet columns say where each document comes from without
	// decoding it.
	g := prev.gen
	codes := reused
	dropped := map[stateKey]bool{}
	for d := range g.Len() {
		if !g.Live(d) {
			continue
		}
		key := stateKey{g.Facet(segment.FacetSourceName, d), g.Facet(segment.FacetPath, d)}
		f := out.files[key]
		if f == nil {
			if dropped[key] || !keep(key) {
				dropped[key] = true
				continue
			}
			f = &carriedFile{src: configured[key.source], gen: g, codes: codes}
			out.files[key] = f
		}
		line, part := g.Position(d)
		f.docs = append(f.docs, carriedDoc{d, line, part})
	}
	// The documents of one line keep their document order, as the
	// generation's conversations do: a record's pieces, and the records
	// that share a line, were written together in the order read.
	for _, f := range out.files {
		slices.SortStableFunc(f.docs, func(a, b carriedDoc) int { return cmp.Compare(a.line, b.line) })
	}
	return out
}

func sortChunks(cs []memory.Chunk) {
	slices.SortFunc(cs, func(a, b memory.Chunk) int { return compareChunks(&a, &b) })
}

func compareChunks(a, b *memory.Chunk) int {
	return cmp.Or(strings.Compare(a.SourcePath, b.SourcePath), cmp.Compare(a.LineNumber, b.LineNumber), cmp.Compare(a.Part, b.Part))
}

// withCarried inserts a job for every carried file that is not listed,
// in its place in build order (by path within its source).
func (x *Indexer) withCarried(jobs []readJob, c *carried) []readJob {
	listed := map[stateKey]bool{}
	for _, j := range jobs {
		listed[stateKey{x.cfg.Sources[j.src].Name, j.file.Path}] = true
	}
	var extra []readJob
	for key, f := range c.files {
		if !listed[key] {
			extra = append(extra, readJob{src: f.src, file: ingest.File{Path: key.path}, carried: true})
		}
	}
	if len(extra) == 0 {
		return jobs
	}
	out := append(slices.Clone(jobs), extra...)
	slices.SortStableFunc(out, func(a, b readJob) int {
		return cmp.Or(cmp.Compare(a.src, b.src), strings.Compare(a.file.Path, b.file.Path))
	})
	return out
}

// conversations holds, per conversation of one source, the records whose
// neighbouring context is not known yet: a record's context needs the
// contextTurns records after it. A record without a conversation is
// written at once.
type conversations struct {
	sink   *segmentSink
	turns  int
	params memory.ContextParams
	open   map[string]*window
	order  []string
	// Waiting records beyond maxHeld move to the waiting file (held
	// lists the windows that may hold some in memory).
	file    *waitingFile
	maxHeld int
	nHeld   int
	held    []*window
}

// A window's records are values, and the records no longer needed are
// shifted out in place: every conversation of a source keeps a window until
// the source is read (84 000 of them in a 1M-record file), and one object
// per record less is that much less for the collector to mark while the
// build allocates.
type window struct {
	recs []windowRecord
	next int  // first record whose context is not yet written
	held bool // listed in conversations.held
}

type windowRecord struct {
	words  string
	chunks []pendingChunk
	at     spilled // where chunks wait on disk (at.n > 0)
}

func (x *Indexer) newConversations(sink *segmentSink, file *waitingFile) *conversations {
	p := x.contextParams()
	maxHeld := x.opts.WaitingInMemory
	if maxHeld <= 0 {
		maxHeld = defaultWaitingInMemory
	}
	return &conversations{sink: sink, turns: p.Turns, params: p, open: map[string]*window{}, file: file, maxHeld: maxHeld}
}

// add appends a record's chunks to its conversation.
func (cs *conversations) add(conversation string, chunks []pendingChunk) error {
	if conversation == "" {
		return cs.emit(&windowRecord{chunks: chunks}, nil, nil)
	}
	w := cs.open[conversation]
	if w == nil {
		w = &window{}
		cs.open[conversation] = w
		cs.order = append(cs.order, conversation)
	}
	w.recs = append(w.recs, windowRecord{words: cs.params.LeadWords(chunks[0].c.Text), chunks: chunks})
	cs.nHeld++
	if !w.held {
		w.held = true
		cs.held = append(cs.held, w)
	}
	for w.next < len(w.recs)-cs.turns {
		if err := cs.finish(w); err != nil {
			return err
		}
	}
	// Keep only the records later ones still need as predecessors.
	if drop := w.next - cs.turns; drop > 0 {
		n := copy(w.recs, w.recs[drop:])
		clear(w.recs[n:])
		w.recs = w.recs[:n]
		w.next -= drop
	}
	if cs.nHeld > cs.maxHeld {
		return cs.moveToFile(w)
	}
	return nil
}

// moveToFile writes the waiting records of every window but the current
// one to the waiting file: the current conversation is the one likely to
// go on.
func (cs *conversations) moveToFile(current *window) error {
	for _, w := range cs.held {
		if w == current {
			continue
		}
		for i := w.next; i < len(w.recs); i++ {
			r := &w.recs[i]
			if r.chunks == nil {
				continue
			}
			at, err := cs.file.put(r.chunks)
			if err != nil {
				return err
			}
			r.chunks, r.at = nil, at
			cs.nHeld--
		}
		w.held = false
	}
	cs.held = append(cs.held[:0], current)
	return nil
}

// finish writes the next record of w, whose following records are known
// (or will never come).
func (cs *conversations) finish(w *window) error {
	i := w.next
	before := make([]string, 0, cs.turns)
	for _, r := range w.recs[max(0, i-cs.turns):i] {
		before = append(before, r.words)
	}
	after := make([]string, 0, cs.turns)
	for _, r := range w.recs[i+1 : min(len(w.recs), i+1+cs.turns)] {
		after = append(after, r.words)
	}
	w.next++
	r := &w.recs[i]
	if r.at.n > 0 {
		chunks, err := cs.file.get(r.at)
		if err != nil {
			return err
		}
		r.chunks, r.at = chunks, spilled{}
	} else {
		cs.nHeld--
	}
	return cs.emit(r, before, after)
}

func (cs *conversations) emit(r *windowRecord, before, after []string) error {
	ctx, bef := memory.NeighbourContext(before, after)
	for i, pc := range r.chunks {
		if pc.codes != nil && pc.c.Before != bef {
			pc.codes = nil // the words before changed: embed again
		}
		pc.c.Context, pc.c.Before = ctx, bef
		if i == 0 {
			pc.lead = r.words // LeadWords of this chunk's text
		}
		if err := cs.sink.add(pc); err != nil {
			return err
		}
	}
	r.chunks = nil // written; only the words stay for the neighbours
	return nil
}

// flush writes every record still waiting: its conversation has ended
// (the source is read).
func (cs *conversations) flush() error {
	if cs == nil {
		return nil
	}
	for _, key := range cs.order {
		w := cs.open[key]
		for w.next < len(w.recs) {
			if err := cs.finish(w); err != nil {
				return err
			}
		}
	}
	cs.open, cs.order = map[string]*window{}, nil
	cs.held, cs.nHeld = nil, 0
	cs.file.close() // everything in it was read back
	return nil
}

// openCache opens the embedding cache of a space that embeds texts.
func (x *Indexer) openCache(sp *space) error {
	if sp.builtin() {
		return nil
	}
	c, err := embedding.OpenCache(x.home.EmbeddingCache(), manifest.ProfileHash(sp.prof), sp.prof.Dimension)
	if err != nil {
		return err
	}
	sp.cache = c
	return nil
}

// flushCache saves the vectors a build embedded; everyText (a complete
// build that looked up every text it holds) lets it drop the rest.
func (x *Indexer) flushCache(sp *space, everyText bool) {
	if sp.cache == nil {
		return
	}
	save := sp.cache.Flush
	if everyText {
		save = sp.cache.Compact
	}
	if err := save(); err != nil {
		x.log.Warn("Cannot save the embedding cache; the next build will embed again", "err", err)
	}
}
