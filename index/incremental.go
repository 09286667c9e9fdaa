package index

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/memory"
)

// incremental builds the delta from the active generation: it reads the
// files that changed since, and writes one segment with the chunks that
// are new or changed, retiring the documents they replace. Unchanged
// chunks stay where they are. It returns a nil candidate when nothing
// changed.
func (x *Indexer) incremental(ctx context.Context, prev *previous, res *BuildResult) (*manifest.Manifest, *sourceStates, error) {
	g := prev.gen
	sp := x.reuseSpace(prev, g.Count())
	if sp == nil {
		// The vector space must change (a model trained on a much smaller
		// corpus): every vector changes, so rebuild.
		return x.full(ctx, prev, res)
	}
	d := &delta{x: x, g: g, prev: prev, res: res, prevStates: prev.states.index()}
	d.sourceIndex = map[string]int{}
	for i, s := range x.cfg.Sources {
		d.sourceIndex[s.Name] = i
	}
	t0 := time.Now()
	jobs, summaries := x.listFiles(d.prevStates, res)
	res.Sources = summaries
	d.plan(ctx, jobs)
	if n := d.bytesToRead(); n > maxDeltaBytes {
		// A delta holds what it reads at once; this much is built in
		// full, which reads in pieces.
		x.log.Info("Building in full: the changes are large", "bytes", n)
		*res = BuildResult{Timings: map[string]int64{}, Problems: []ingest.Problem{}}
		return x.full(ctx, prev, res)
	}
	res.Mode = ModeIncremental
	if err := x.openCache(sp); err != nil {
		return nil, nil, err
	}
	defer x.flushCache(sp, false)
	defer sp.release()
	if err := x.preferNovad(ctx, sp, res); err != nil {
		return nil, nil, err
	}
	// A record that disappears may uncover a duplicate another file held
	// back; that file is read again, as a full rebuild would read it.
	for round := 0; ; round++ {
		if err := d.read(ctx); err != nil {
			return nil, nil, err
		}
		d.diff()
		more := d.uncovered()
		if len(more) == 0 || round == 2 {
			break
		}
		d.reread(more)
	}
	res.Timings["read"] = time.Since(t0).Milliseconds()
	d.forgetMoved()
	d.context()
	states := d.states()
	if len(d.adds) == 0 && len(d.retired) == 0 {
		if sameStates(prev.states, states) {
			// Nothing to build, but the sources are still described as
			// they stand, gone files included: a watcher takes that list
			// as the whole truth, and an empty one would forget them.
			d.summarize(states)
			return nil, nil, nil
		}
		// Only what is known of the files changed (a touched file): the
		// same segments, new source states.
		cand := x.candidate(sp, slices.Clone(prev.manifest.Segments), g.Count(), prev.manifest.RecordCount)
		d.summarize(states)
		if err := x.rebase(states); err != nil {
			return nil, nil, err
		}
		return cand, states, nil
	}
	if g.Count()-len(d.retired)+len(d.adds) == 0 {
		d.summarize(states)
		return nil, nil, &NothingToIndexError{Result: res, Config: x.cfg.File}
	}
	t0 = time.Now()
	sink := x.newSink(ctx, sp, g.Len(), res)
	sink.dead = d.dead()
	res.progress.total = len(d.adds)
	slices.SortStableFunc(d.adds, func(a, b *addition) int { return a.order.compare(b.order) })
	for _, a := range d.adds {
		if err := sink.add(pendingChunk{c: a.chunk, codes: a.codes}); err != nil {
			sink.abort()
			return nil, nil, err
		}
	}
	parts, err := x.finishSegments(sink, res)
	if err != nil {
		sink.abort()
		return nil, nil, err
	}
	res.Timings["write"] = time.Since(t0).Milliseconds()
	res.Added, res.Retired = len(d.adds), len(d.retired)
	segs := append(slices.Clone(prev.manifest.Segments), parts...)
	chunks := g.Count() - len(d.retired) + len(d.adds)
	records := prev.manifest.RecordCount - d.retiredRecords + d.addedRecords
	d.summarize(states)
	if err := x.rebase(states); err != nil {
		return nil, nil, err
	}
	return x.candidate(sp, segs, chunks, records), states, nil
}

// delta is the work of one incremental build.
type delta struct {
	x           *Indexer
	g           *generation.Generation
	prev        *previous
	res         *BuildResult
	prevStates  map[stateKey]*FileState
	sourceIndex map[string]int

	// Files: listed now, to read, read, and gone.
	listed  []readJob
	toRead  map[stateKey]readJob
	reads   map[stateKey]*fileRead
	gone    map[stateKey]*FileState
	renamed map[stateKey]stateKey // new path -> the gone path it was renamed from
	// births are the birth times of unchanged files whose states have
	// none (recorded before birth times were): their states take them,
	// so that an edit and a move of these files is told from a new file.
	births map[stateKey]int64

	// The outcome of diff: documents retired, chunks added, states.
	retired        map[int]bool
	adds           []*addition
	dropped        map[stateKey][]string
	retiredRecords int
	addedRecords   int
	// taken are the gone files some of whose records another file took.
	taken map[stateKey]bool
}

// addition is a chunk the delta writes.
type addition struct {
	chunk memory.Chunk
	order order
	// codes is the vector of the document it replaces, when unchanged;
	// it was made with chunk.Before, and is kept while that is.
	codes []int8
}

// plan sorts the listed files into unchanged ones and ones to read, and
// finds the files that disappeared (or were renamed).
func (d *delta) plan(ctx context.Context, jobs []readJob) {
	d.listed = jobs
	d.toRead = map[stateKey]readJob{}
	d.gone = map[stateKey]*FileState{}
	d.renamed = map[stateKey]stateKey{}
	d.births = map[stateKey]int64{}
	listed := map[stateKey]bool{}
	for _, j := range jobs {
		src := d.x.cfg.Sources[j.src]
		key := stateKey{src.Name, j.file.Path}
		listed[key] = true
		if j.prev != nil && j.prev.Gone.IsZero() {
			if id := sourceIdentity(src.Kind, j.file.Path); id.unchanged(j.prev) {
				if j.prev.Birth == 0 && id.birth != 0 {
					d.births[key] = id.birth
				}
				continue
			}
		}
		j.resume = j.prev != nil && j.prev.Gone.IsZero() // an append is read on from its cursor
		d.toRead[key] = j
	}
	for key, st := range d.prevStates {
		if listed[key] {
			continue
		}
		if _, configured := d.sourceIndex[key.source]; !configured {
			continue
		}
		if st.Records == 0 {
			continue // nothing of it is in memory (a binary note): forgotten, as a full build forgets it
		}
		d.gone[key] = st
	}
	// A compressed Codex rollout whose plain file vanished is that file
	// under another name: its memory is read from the copy, whole, and the
	// plain file's goes with it instead of being kept as gone.
	for _, j := range jobs {
		src := d.x.cfg.Sources[j.src]
		key := stateKey{src.Name, j.file.Path}
		plain := stateKey{src.Name, ingest.PlainRollout(src.Kind, j.file.Path)}
		if _, ok := d.gone[plain]; plain.path == "" || !ok {
			continue
		}
		d.renamed[key] = plain
		delete(d.gone, plain)
		j.resume = false
		d.toRead[key] = j
	}
	// A new path with the identity of a vanished file is that file,
	// renamed (or rotated): its records are read from the new path and
	// the old path's memory goes, so nothing is indexed twice.
	for key, from := range d.x.renames(ctx, jobs, d.gone, d.g) {
		if _, ok := d.renamed[key]; !ok {
			d.renamed[key] = from
			delete(d.gone, from)
		}
	}
}

// renames finds the listed files that are gone files renamed (or
// rotated, or moved away and back under another name): a path no state
// knows, or one whose file was replaced (a file renamed over it: mv
// draft.md note.md, a save through a temporary file the source lists),
// with the identity and the content of a file in gone (the same inode
// alone does not say it, see fileIdentity.moved). A file gone since an
// earlier sync counts too: a folder moved out of a source, which a sync
// saw gone, and later moved back into it under another name holds the
// same files. A file copied and its original deleted since the last sync
// counts too (see copies). It returns each new path's old one. A full
// build needs it as much as a delta: without it the old path's memory was
// carried as gone beside the same records read again under the new name.
// g is the generation the gone files' memory is in.
func (x *Indexer) renames(ctx context.Context, jobs []readJob, gone map[stateKey]*FileState, g *generation.Generation) map[stateKey]stateKey {
	out := map[stateKey]stateKey{}
	candidates := map[stateKey]*FileState{}
	for gk, st := range gone {
		if st.Inode != 0 {
			candidates[gk] = st
		}
	}
	if len(candidates) == 0 {
		return out
	}
	for _, j := range jobs {
		if j.prev != nil && j.file.Info != nil {
			// The listing's stat tells the file read there before
			// without another one.
			if dev, ino := deviceInode(j.file.Info); dev == j.prev.Device && ino == j.prev.Inode {
				continue
			}
		}
		key := stateKey{x.cfg.Sources[j.src].Name, j.file.Path}
		id := statIdentity(j.file.Path)
		if j.prev != nil && id.sameFile(j.prev) {
			continue
		}
		for gk, st := range candidates {
			if gk.source == key.source && id.moved(j.file.Path, st) {
				out[key] = gk
				delete(candidates, gk)
				break
			}
		}
	}
	x.copies(ctx, jobs, candidates, g, out)
	return out
}

// copies adds to renamed the listed files that are copies of files in
// gone whose originals were deleted since the last sync (moved across
// file systems, or by a tool that writes a moved file anew): of the same
// source and size, holding the same texts as the gone file's memory in g.
// A copy has an inode of its own, which renames does not match; and where
// a record's id holds its file's path (a note) the copy's memory was
// indexed beside the original's, kept as gone, and found twice. Only a
// file gone since the last sync (its state not marked gone yet) is
// matched: a listed file of its size is read to tell, once, not at every
// sync for each file gone for good (transcripts agents delete).
func (x *Indexer) copies(ctx context.Context, jobs []readJob, gone map[stateKey]*FileState, g *generation.Generation, renamed map[stateKey]stateKey) {
	type sized struct {
		source string
		size   int64
	}
	bySize := map[sized][]stateKey{}
	originals := map[stateKey]bool{}
	for gk, st := range gone {
		if st.Gone.IsZero() && st.Records > 0 {
			bySize[sized{gk.source, st.Size}] = append(bySize[sized{gk.source, st.Size}], gk)
			originals[gk] = true
		}
	}
	if len(bySize) == 0 || g == nil {
		return
	}
	var maybe []readJob
	for _, j := range jobs {
		key := stateKey{x.cfg.Sources[j.src].Name, j.file.Path}
		if _, ok := renamed[key]; ok || j.file.Info == nil {
			continue
		}
		if len(bySize[sized{key.source, j.file.Info.Size()}]) > 0 {
			maybe = append(maybe, j)
		}
	}
	if len(maybe) == 0 {
		return
	}
	texts := map[stateKey][]string{}
	for doc := range g.Len() {
		if !g.Live(doc) {
			continue
		}
		key := stateKey{g.Facet(segment.FacetSourceName, doc), g.Facet(segment.FacetPath, doc)}
		if originals[key] {
			texts[key] = append(texts[key], g.Text(doc))
		}
	}
	for _, t := range texts {
		slices.Sort(t)
	}
	for _, j := range maybe {
		src := x.cfg.Sources[j.src]
		key := stateKey{src.Name, j.file.Path}
		r := x.readStable(ctx, j.src, src, j.file, nil, false, nil, 0, nil)
		if r.err != nil || r.unstable {
			continue
		}
		var have []string
		for _, chunks := range r.chunks {
			for _, pc := range chunks {
				have = append(have, pc.c.Text)
			}
		}
		slices.Sort(have)
		cands := bySize[sized{key.source, j.file.Info.Size()}]
		for i, gk := range cands {
			if want := texts[gk]; len(want) > 0 && slices.Equal(have, want) {
				renamed[key] = gk
				bySize[sized{key.source, j.file.Info.Size()}] = slices.Delete(cands, i, i+1)
				break
			}
		}
	}
}

// maxDeltaBytes is the most a delta reads; more is built in full.
const maxDeltaBytes = 64 << 20

// bytesToRead is how much the planned reads take from the files. A file
// with companions (Hermes' state.db and its write-ahead log, a legacy
// Gemini CLI recording and the .jsonl it migrates to) does not count: it
// is read whole by a full build as well, so building in full bounds
// nothing for it, and its size is mostly tool output (and, for the
// database, search index), not what its read holds; counting it would
// read every other source again at each message Hermes writes once the
// database passed maxDeltaBytes.
func (d *delta) bytesToRead() int64 {
	var n int64
	for _, j := range d.toRead {
		if ingest.Companions(d.x.cfg.Sources[j.src].Kind, j.file.Path) != nil {
			continue
		}
		size := j.file.Info.Size()
		if j.resume && j.prev != nil && j.prev.Cursor.Offset <= size {
			size -= j.prev.Cursor.Offset
		}
		n += size
	}
	return n
}

// read reads the files to read that are not read yet.
func (d *delta) read(ctx context.Context) error {
	if d.reads == nil {
		d.reads = map[stateKey]*fileRead{}
	}
	var jobs []readJob
	for _, j := range d.listed {
		key := stateKey{d.x.cfg.Sources[j.src].Name, j.file.Path}
		if job, want := d.toRead[key]; want && d.reads[key] == nil {
			jobs = append(jobs, job)
		}
	}
	d.res.FilesRead += len(jobs)
	// A delta reads its files whole: the diff needs each file at once,
	// and a delta large enough to matter is built in full instead.
	return d.x.readAll(ctx, jobs, 0, func(r *fileRead) error {
		key := stateKey{d.x.cfg.Sources[r.src].Name, r.file.Path}
		d.reads[key] = r
		if r.resumed {
			d.res.FilesResumed++
		}
		d.x.opts.Progress(Progress{Stage: "read", Done: len(d.reads), Total: len(d.toRead), Note: r.file.Path})
		return nil
	})
}

// reread schedules files for a whole read again.
func (d *delta) reread(keys []stateKey) {
	for _, j := range d.listed {
		key := stateKey{d.x.cfg.Sources[j.src].Name, j.file.Path}
		if slices.Contains(keys, key) {
			j.resume = false
			d.toRead[key] = j
			delete(d.reads, key)
		}
	}
}

// usable reports whether a read of key can be applied (read completely
// and stably); a file that could not be read keeps its earlier memory.
func (d *delta) usable(key stateKey) (*fileRead, bool) {
	r := d.reads[key]
	return r, r != nil && r.err == nil && !r.unstable
}

// replaced reports whether the documents of key are replaced by what was
// read (or go: renamed away, or pruned).
func (d *delta) replacedKeys() map[stateKey]bool {
	out := map[stateKey]bool{}
	for key := range d.toRead {
		if r, ok := d.usable(key); ok && !r.resumed {
			out[key] = true
		}
	}
	for _, from := range d.renamed {
		out[from] = true
	}
	if d.x.opts.PruneMissing {
		for key := range d.gone {
			out[key] = true
		}
	}
	return out
}

// docsOf returns the live documents of the given files, by file.
func (d *delta) docsOf(keys map[stateKey]bool) map[stateKey][]int {
	out := map[stateKey][]int{}
	if len(keys) == 0 {
		return out
	}
	for doc := range d.g.Len() {
		if !d.g.Live(doc) {
			continue
		}
		key := stateKey{d.g.Facet(segment.FacetSourceName, doc), d.g.Facet(segment.FacetPath, doc)}
		if keys[key] {
			out[key] = append(out[key], doc)
		}
	}
	return out
}

func (d *delta) orderOf(doc int) order {
	line, part := d.g.Position(doc)
	return order{source: d.sourceIndex[d.g.Facet(segment.FacetSourceName, doc)], path: d.g.Facet(segment.FacetPath, doc), line: line, part: part}
}

// diff compares what was read with the documents it replaces.
func (d *delta) diff() {
	d.retired = map[int]bool{}
	d.adds = nil
	d.dropped = map[stateKey][]string{}
	d.retiredRecords, d.addedRecords = 0, 0
	d.taken = map[stateKey]bool{}
	replaced := d.replacedKeys()
	oldDocs := d.docsOf(replaced)
	oldByID := map[string]int{}
	for _, docs := range oldDocs {
		for _, doc := range docs {
			oldByID[d.g.ID(doc)] = doc
		}
	}
	kept := map[int]bool{}
	accepted := map[string]bool{}
	retireRecord := func(doc int) {
		c := d.g.Chunk(doc)
		for part := 1; part <= max(1, c.Parts); part++ {
			if pd, ok := d.g.Find(memory.ChunkID(c.SourceName, c.SourceID, part, c.Parts)); ok {
				d.retire(pd)
			}
		}
	}
	for _, j := range d.listed {
		src := d.x.cfg.Sources[j.src]
		key := stateKey{src.Name, j.file.Path}
		r, ok := d.usable(key)
		if !ok {
			continue
		}
		// Lines that more than one record starts on: their records are
		// written again, together, whenever the file is read (see below).
		onLine := map[int]int{}
		for ri, rec := range r.records {
			if len(r.chunks[ri]) > 0 {
				onLine[rec.Line]++
			}
		}
		for ri, rec := range r.records {
			chunks := r.chunks[ri]
			if len(chunks) == 0 {
				continue
			}
			first := chunks[0].c.ID
			newOrder := order{source: j.src, path: rec.Path, line: rec.Line, part: 1}
			if accepted[first] {
				d.duplicate(key, src.Name, rec, first)
				continue
			}
			if doc, found := d.g.Find(first); found && !d.retired[doc] {
				if _, isOld := oldByID[first]; !isOld {
					// Another file holds this record id: the earlier in
					// build order keeps it, unless that file is gone.
					holder := stateKey{d.g.Facet(segment.FacetSourceName, doc), d.g.Facet(segment.FacetPath, doc)}
					if _, gone := d.gone[holder]; !gone && d.orderOf(doc).compare(newOrder) < 0 {
						d.duplicate(key, src.Name, rec, first)
						continue
					}
					retireRecord(doc)
					if _, gone := d.gone[holder]; gone {
						d.taken[holder] = true
					} else {
						d.dropped[holder] = append(d.dropped[holder], first)
					}
				}
			}
			accepted[first] = true
			// A record is kept or written again whole, and the records
			// that share a line are always written again: the
			// generation orders the documents of one line by document
			// number (it has no other way to tell records on one line
			// apart), so a record's pieces, and the records of a line,
			// must stand together in the order read. What is written
			// again unchanged keeps its vector while the words before it
			// do (context).
			same := make([]int, len(chunks))
			whole := onLine[rec.Line] == 1
			for i := range chunks {
				same[i] = -1
				if doc, ok := oldByID[chunks[i].c.ID]; ok && !d.retired[doc] && sameContent(d.g.Chunk(doc), &chunks[i].c) {
					same[i] = doc
				} else {
					whole = false
				}
			}
			if whole {
				for _, doc := range same {
					kept[doc] = true
				}
				continue
			}
			for i := range chunks {
				c := chunks[i].c
				a := &addition{chunk: c, order: order{source: j.src, path: c.SourcePath, line: c.LineNumber, seq: ri + 1, part: c.Part}}
				if doc := same[i]; doc >= 0 {
					a.codes = d.g.Codes(doc)
					_, a.chunk.Before = d.g.Context(doc)
				}
				if doc, ok := oldByID[c.ID]; ok {
					d.retire(doc)
				}
				d.add(a)
			}
		}
	}
	for _, docs := range oldDocs {
		for _, doc := range docs {
			if !kept[doc] {
				d.retire(doc)
			}
		}
	}
}

// forgetMoved forgets the gone files that other files took every record
// of: no memory of theirs is left to keep, and listing them as gone would
// say otherwise.
func (d *delta) forgetMoved() {
	keys := map[stateKey]bool{}
	for key := range d.taken {
		if _, gone := d.gone[key]; gone {
			keys[key] = true
		}
	}
	for key, docs := range d.docsOf(keys) {
		for _, doc := range docs {
			if !d.retired[doc] {
				delete(keys, key) // some of its memory is still its own
				break
			}
		}
	}
	for key := range keys {
		delete(d.gone, key)
	}
}

func (d *delta) duplicate(key stateKey, source string, rec memory.Record, id string) {
	d.res.DuplicateIDs++
	d.res.problem(ingest.Problem{Source: source, Path: rec.Path, Line: rec.Line, Reason: fmt.Sprintf("duplicate id %q: kept the first record with this id", rec.ID)})
	d.dropped[key] = append(d.dropped[key], id)
}

func (d *delta) retire(doc int) {
	if d.retired[doc] {
		return
	}
	d.retired[doc] = true
	if _, part := d.g.Position(doc); part <= 1 {
		d.retiredRecords++
	}
}

func (d *delta) add(a *addition) {
	d.adds = append(d.adds, a)
	if a.chunk.Part <= 1 {
		d.addedRecords++
	}
}

// uncovered returns the files that held back a duplicate of a record
// that is now gone, or now comes from a file that is not before them in
// build order (its file renamed, the record moved): they must be read
// again, and the first in build order keeps it.
func (d *delta) uncovered() []stateKey {
	// The retired ids, each with its chunk added again (nil: none).
	gone := map[string]*addition{}
	for doc := range d.retired {
		gone[d.g.ID(doc)] = nil
	}
	for _, a := range d.adds {
		if _, ok := gone[a.chunk.ID]; ok {
			gone[a.chunk.ID] = a
		}
	}
	var out []stateKey
	for key, st := range d.prevStates {
		// A file read whole brings back what it held back; one read on
		// from its cursor only reads its new lines.
		if _, reading := d.toRead[key]; reading {
			if r, ok := d.usable(key); !ok || !r.resumed {
				continue
			}
		}
		file := order{source: d.sourceIndex[key.source], path: key.path}
		for _, id := range st.Dropped {
			a, ok := gone[id]
			if ok && (a == nil || file.compare(order{source: a.order.source, path: a.order.path}) <= 0) {
				out = append(out, key)
				break
			}
		}
	}
	return out
}

// dead returns what the delta retires, with each retired document's
// contribution to the lexical statistics.
func (d *delta) dead() *segment.Dead {
	dead := &segment.Dead{}
	for doc := range d.retired {
		dead.Docs = append(dead.Docs, uint32(doc))
		c := d.g.Chunk(doc)
		ctx, _ := d.g.Context(doc)
		dead.Text.AddTerms(d.x.analyzer.Terms(c.OwnText()))
		dead.Context.AddTerms(contextTerms(d.x.analyzer, ctx))
	}
	slices.Sort(dead.Docs)
	return dead
}

// states returns the source states of the new generation.
func (d *delta) states() *sourceStates {
	// The changes are written to the previous states' base (rebase writes
	// a new one when they grew).
	out := &sourceStates{base: d.prev.states.base}
	now := d.x.opts.Now().UTC()
	for _, j := range d.listed {
		key := stateKey{d.x.cfg.Sources[j.src].Name, j.file.Path}
		var st FileState
		switch r, ok := d.usable(key); {
		case ok:
			st = r.state
		case j.prev != nil:
			st = *j.prev
			if r != nil {
				reason := "the file kept changing while it was read; its earlier memory is kept and it will be read again"
				switch {
				case r.passing():
					d.res.Unsettled++
					reason = r.err.Error() + "; its earlier memory is kept and it will be read again"
				case r.err != nil:
					reason = r.err.Error()
				default:
					d.res.Unsettled++
				}
				d.res.problem(ingest.Problem{Source: key.source, Path: key.path, Reason: reason})
				if r.lasting() {
					st = unreadableState(key.source, j.prev, r, j.prev.Records)
				}
			}
		default:
			switch {
			case r != nil && r.passing():
				d.res.Unsettled++
				d.res.problem(ingest.Problem{Source: key.source, Path: key.path, Reason: r.err.Error() + "; it will be read again"})
			case r != nil && r.err != nil:
				d.res.problem(ingest.Problem{Source: key.source, Path: key.path, Reason: r.err.Error()})
				if r.lasting() {
					out.Files = append(out.Files, unreadableState(key.source, nil, r, 0))
				}
			case r != nil && r.unstable:
				d.res.Unsettled++
				d.res.problem(ingest.Problem{Source: key.source, Path: key.path, Reason: "the file kept changing while it was read; it will be read again"})
			}
			continue
		}
		if b := d.births[key]; b != 0 && st.Birth == 0 {
			st.Birth = b
		}
		if r, ok := d.usable(key); ok {
			for _, p := range r.problems {
				d.res.problem(p)
			}
			d.res.ProblemCount += r.count - len(r.problems)
		} else {
			st.Dropped = slices.Clone(st.Dropped)
		}
		if dropped := d.dropped[key]; len(dropped) > 0 {
			// A file read on from its cursor still holds back what it held
			// back before (its state has those ids already).
			if r, ok := d.usable(key); ok && !r.resumed {
				st.Dropped = dropped
			} else {
				st.Dropped = append(st.Dropped, dropped...)
			}
		}
		out.Files = append(out.Files, st)
	}
	if !d.x.opts.PruneMissing {
		for _, st := range d.gone {
			s := *st
			s.markGone(now)
			out.Files = append(out.Files, s)
		}
	}
	out.Version = ingest.Version
	return out
}

// summarize fills the per-source summary of the result; states are the
// new generation's (their records are each source's, as a full build
// counts them).
func (d *delta) summarize(states *sourceStates) {
	for i := range d.res.Sources {
		s := &d.res.Sources[i]
		for _, j := range d.listed {
			if j.src != i {
				continue
			}
			s.Files++
			id := statIdentity(j.file.Path)
			if t := ingest.LastChange(d.x.cfg.Sources[i].Kind, j.file.Path, time.Unix(0, id.modTime)); t.After(s.NewestModTime) {
				s.NewestModTime = t
			}
			// What this sync's reads skipped, as a full build counts it: a
			// file that cannot be read this time is one problem (states
			// reports it).
			r, ok := d.usable(stateKey{s.Name, j.file.Path})
			switch {
			case ok:
				s.Problems += r.count
			case r != nil && (j.prev != nil || r.err != nil):
				s.Problems++
			}
			// What a file's earlier reads skipped is still skipped when it
			// was not read again: unchanged, read on from its cursor, or
			// not readable this time (its earlier memory is kept).
			if j.prev != nil && (!ok || r.resumed) {
				s.EarlierProblems += j.prev.Problems
			}
		}
		for key := range d.gone {
			if key.source == s.Name && !d.x.opts.PruneMissing {
				s.Gone = append(s.Gone, key.path)
			}
		}
		slices.Sort(s.Gone)
	}
	counts := map[string]int{}
	for doc := range d.g.Len() {
		if d.g.Live(doc) && !d.retired[doc] {
			counts[d.g.Facet(segment.FacetSourceName, doc)]++
		}
	}
	for _, a := range d.adds {
		counts[a.chunk.SourceName]++
	}
	records := map[string]int{}
	for _, st := range states.Files {
		records[st.Source] += st.Records
	}
	for i := range d.res.Sources {
		d.res.Sources[i].Chunks = counts[d.res.Sources[i].Name]
		d.res.Sources[i].Records = records[d.res.Sources[i].Name]
	}
}

// sameContent reports whether two versions of a chunk hold the same
// memory, neighbouring context aside (it is recomputed separately).
func sameContent(a, b *memory.Chunk) bool {
	x, y := *a, *b
	x.Context, x.Before, y.Context, y.Before = "", "", "", ""
	bx, _ := json.Marshal(&x)
	by, _ := json.Marshal(&y)
	return string(bx) == string(by)
}
