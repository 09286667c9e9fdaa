package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/memory"
)

// full builds every segment from the sources, streaming: files are read a
// few at a time, each record is chunked and, once the records after it in
// its conversation are known, written to the current segment. Memory that
// the previous generation holds for files that disappeared is carried
// forward (unless pruned).
func (x *Indexer) full(ctx context.Context, prev *previous, res *BuildResult) (*manifest.Manifest, *sourceStates, error) {
	res.Mode = ModeFull
	t0 := time.Now()
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
	defer x.flushCache(sp)
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
	states := &sourceStates{}
	seen := map[uint64]bool{}      // first chunk ids of the records written
	present := map[stateKey]bool{} // read this time
	kept := map[stateKey]bool{}    // could not be read: earlier memory kept
	var windows *conversations
	source := -1
	records := 0
	err := x.readAll(ctx, jobs, func(r *fileRead) error {
		if r.src != source {
			if err := windows.flush(); err != nil {
				return err
			}
			source = r.src
			windows = x.newConversations(sink)
		}
		src := x.cfg.Sources[r.src]
		sum := &res.Sources[r.src]
		key := stateKey{src.Name, r.file.Path}
		present[key] = true
		x.opts.Progress(Progress{Stage: "read", Done: len(states.Files), Total: len(jobs), Note: r.file.Path})
		if r.err != nil || r.unstable {
			reason := "the file kept changing while it was read; its earlier memory is kept and it will be read again"
			if r.err != nil {
				reason = r.err.Error()
			}
			res.problem(ingest.Problem{Source: src.Name, Path: r.file.Path, Reason: reason})
			sum.Problems++
			present[key] = false
			if p := prevStates[key]; p != nil {
				kept[key] = true // its memory is carried forward below
				states.Files = append(states.Files, *p)
			}
			return nil
		}
		for _, p := range r.problems {
			res.problem(p)
		}
		sum.Problems += r.count
		res.ProblemCount += r.count - len(r.problems)
		st := r.state
		for _, rec := range r.records {
			chunks := x.chunkRecord(src, rec)
			if len(chunks) == 0 {
				continue
			}
			id := xxh3.HashString(chunks[0].ID)
			if seen[id] {
				res.DuplicateIDs++
				res.problem(ingest.Problem{Source: src.Name, Path: rec.Path, Line: rec.Line, Reason: fmt.Sprintf("duplicate id %q: kept the first record with this id", rec.ID)})
				st.Dropped = append(st.Dropped, chunks[0].ID)
				continue
			}
			seen[id] = true
			records++
			sum.Records++
			sum.Chunks += len(chunks)
			res.Added += len(chunks)
			if err := windows.add(rec.Conversation, chunks); err != nil {
				return err
			}
		}
		sum.Files++
		res.FilesRead++
		if t := time.Unix(0, st.ModTime); t.After(sum.NewestModTime) {
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
	carried, err := x.carryForward(prev, present, kept, seen, states, sink, res)
	if err != nil {
		return nil, nil, err
	}
	records += carried
	if res.Added == 0 {
		return nil, nil, ErrNothingToIndex
	}
	t0 = time.Now()
	parts, err := x.finishSegments(sink, res)
	if err != nil {
		return nil, nil, err
	}
	res.Timings["write"] = time.Since(t0).Milliseconds()
	ok = true
	return x.candidate(sp, parts, res.Added, records), states, nil
}

// listFiles lists every file of every source, in build order.
func (x *Indexer) listFiles(prevStates map[stateKey]*FileState, res *BuildResult) ([]readJob, []SourceSummary) {
	var jobs []readJob
	summaries := make([]SourceSummary, len(x.cfg.Sources))
	for i, src := range x.cfg.Sources {
		summaries[i] = SourceSummary{Name: src.Name, Kind: src.Kind, Path: src.Path}
		listing, err := ingest.List(src)
		if err != nil {
			summaries[i].Error = err.Error()
			summaries[i].Missing = errors.Is(err, ingest.ErrSourceMissing)
			res.problem(ingest.Problem{Source: src.Name, Path: src.Path, Reason: err.Error()})
			continue
		}
		// A folder that cannot be read is reported; the memory of its
		// files is carried forward like that of any file not read.
		for _, p := range listing.Problems {
			summaries[i].Problems++
			res.problem(p)
		}
		for _, f := range listing.Files {
			jobs = append(jobs, readJob{src: i, file: f, prev: prevStates[stateKey{src.Name, f.Path}]})
		}
	}
	return jobs, summaries
}

// carryForward adds the previous generation's memory of files that are
// no longer read (they disappeared, or could not be read this time),
// unless the operator prunes it. It returns how many records it carried.
func (x *Indexer) carryForward(prev *previous, present, kept map[stateKey]bool, seen map[uint64]bool, states *sourceStates, sink *segmentSink, res *BuildResult) (int, error) {
	if prev == nil {
		return 0, nil
	}
	configured := map[string]int{}
	for i, s := range x.cfg.Sources {
		configured[s.Name] = i
	}
	vanished := map[stateKey]bool{}
	carry := func(c *memory.Chunk) bool {
		key := stateKey{c.SourceName, c.SourcePath}
		if _, ok := configured[c.SourceName]; !ok || c.SourcePath == "" || present[key] {
			return false
		}
		if kept[key] {
			return true
		}
		gone, known := vanished[key]
		if !known {
			_, err := os.Lstat(c.SourcePath)
			gone = errors.Is(err, os.ErrNotExist)
			vanished[key] = gone
		}
		return gone && !x.opts.PruneMissing
	}
	var chunks []memory.Chunk
	var codes [][]int8
	if prev.legacy {
		old, err := generation.LegacyChunks(x.home.IndexDir())
		if err != nil {
			x.log.Warn("Cannot read the index of the older format to carry vanished memory forward", "err", err)
			return 0, nil
		}
		for _, c := range old {
			if carry(&c) {
				chunks = append(chunks, c)
			}
		}
	} else {
		for d, c := range prev.gen.All() {
			if carry(c) {
				chunks = append(chunks, *c)
				codes = append(codes, prev.gen.Codes(d))
			}
		}
	}
	records := 0
	listed := map[stateKey]bool{}
	var prevStates map[stateKey]*FileState
	if !prev.legacy {
		prevStates = prev.states.index()
	}
	for i, c := range chunks {
		id := xxh3.HashString(c.ID)
		if c.Part <= 1 && seen[id] {
			continue // another file now holds this record
		}
		pc := pendingChunk{c: c}
		if codes != nil && sink.sp.reused {
			pc.codes = codes[i]
		}
		if err := sink.add(pc); err != nil {
			return 0, err
		}
		res.Added++
		if c.Part <= 1 {
			records++
			seen[id] = true
		}
		si := configured[c.SourceName]
		res.Sources[si].Chunks++
		key := stateKey{c.SourceName, c.SourcePath}
		if vanished[key] && !listed[key] {
			listed[key] = true
			res.Sources[si].Gone = append(res.Sources[si].Gone, c.SourcePath)
			st := FileState{Source: key.source, Path: key.path, Gone: x.opts.Now().UTC()}
			if p := prevStates[key]; p != nil {
				st = *p
				if st.Gone.IsZero() {
					st.Gone = x.opts.Now().UTC()
				}
			}
			states.Files = append(states.Files, st)
		}
	}
	return records, nil
}

// conversations holds, per conversation of one source, the records whose
// neighbouring context is not known yet: a record's context needs the
// contextTurns records after it. A record without a conversation is
// written at once.
type conversations struct {
	x     *Indexer
	sink  *segmentSink
	turns int
	open  map[string]*window
	order []string
}

type window struct {
	recs []*windowRecord
	next int // first record whose context is not yet written
}

type windowRecord struct {
	words  string
	chunks []memory.Chunk
}

func (x *Indexer) newConversations(sink *segmentSink) *conversations {
	return &conversations{x: x, sink: sink, turns: x.contextTurns(), open: map[string]*window{}}
}

// add appends a record's chunks to its conversation.
func (cs *conversations) add(conversation string, chunks []memory.Chunk) error {
	if conversation == "" {
		return cs.emit(&windowRecord{chunks: chunks}, nil, nil)
	}
	w := cs.open[conversation]
	if w == nil {
		w = &window{}
		cs.open[conversation] = w
		cs.order = append(cs.order, conversation)
	}
	w.recs = append(w.recs, &windowRecord{words: cs.x.neighbourWords(chunks[0].Text), chunks: chunks})
	for w.next < len(w.recs)-cs.turns {
		if err := cs.finish(w); err != nil {
			return err
		}
	}
	// Keep only the records later ones still need as predecessors.
	for w.next > cs.turns {
		w.recs = w.recs[1:]
		w.next--
	}
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
	return cs.emit(w.recs[i], before, after)
}

func (cs *conversations) emit(r *windowRecord, before, after []string) error {
	ctx, bef := neighbourContext(before, after)
	for i := range r.chunks {
		c := r.chunks[i]
		c.Context, c.Before = ctx, bef
		if err := cs.sink.add(pendingChunk{c: c}); err != nil {
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

func (x *Indexer) flushCache(sp *space) {
	if sp.cache == nil {
		return
	}
	if err := sp.cache.Flush(); err != nil {
		x.log.Warn("Cannot save the embedding cache; the next build will embed again", "err", err)
	}
}
