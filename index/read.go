package index

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/parallel"
)

// fileRead is one source file read for a build.
type fileRead struct {
	src  int
	file ingest.File
	// chunks are the records' chunks, record by record (chunked in the
	// reading goroutine, in parallel with other files), as the sink takes
	// them.
	chunks [][]pendingChunk
	// carried is set for a file that is not read: its earlier memory is.
	carried bool
	// resumed is set when only the lines after the previous cursor were
	// read: records holds the file's new records.
	resumed bool
	records []memory.Record
	// problems are the file's skipped input (at most maxReportedProblems
	// kept; count is the total).
	problems []ingest.Problem
	count    int
	// interrupted counts the problems that are remains of interrupted
	// writes (ingest.Problem.Interrupted).
	interrupted int
	state       FileState
	// unstable is set when the file kept changing while it was read: its
	// previous memory is kept and it is read again next time.
	unstable bool
	err      error
	// failed is the file as the read that failed with err found it.
	failed fileIdentity
	// piece numbers the pieces of a file read in pieces (from 0); more is
	// set on every piece but the last. state is then the file's state as
	// far as this piece.
	piece int
	more  bool
}

// passing reports whether the read failed for a reason that passes
// (ingest.PassingRead: a dataless file's download that failed is one):
// the file is counted unsettled (BuildResult.Unsettled), so that a
// watcher syncs again soon rather than wait for it to change, which a
// note written once never does. A lasting reason (a permission, a
// file too large) is only reported: retrying would not fix it.
func (r *fileRead) passing() bool { return ingest.PassingRead(r.file, r.err) }

// lasting reports whether the read failed for a reason the file holds
// (damaged, of another format, a permission denied): the next read of
// the same file fails the same way, so it is not read again until it
// changes (FileState.Unreadable).
func (r *fileRead) lasting() bool {
	return r.err != nil && !r.unstable && r.piece == 0 && r.failed.exist && !r.passing() &&
		!errors.Is(r.err, context.Canceled) && !errors.Is(r.err, context.DeadlineExceeded)
}

// readAttempts is how many times a file that changes while it is read is
// read again before the build keeps its previous memory instead.
const readAttempts = 3

// readStable reads one file: from the previous cursor when resume is set
// and the file only grew (an append-only transcript: only its new records
// are read), else whole. Only complete lines are consumed (an agent may be
// writing the last one). The read stands only if the file is the same
// file afterwards and did not shrink; a line-based file that now holds
// fewer lines than before and was written a moment ago is taken for a
// rewrite in progress, and read again once it has been left alone for
// shrinkSettle: a file that stays shrunk (a record removed, a log rotated
// by copytruncate) is then a rewrite. A file that keeps failing these is
// unstable: its earlier memory is kept and it is read again next time.
//
// With limit > 0 a line-based file is read in pieces of about limit bytes:
// prevPiece, when set, is the previous piece, and this one reads on from it.
// recordBytes, when set, is the source's bytes per record so far (see
// recordsHint); the read updates it.
func (x *Indexer) readStable(ctx context.Context, si int, src config.Source, f ingest.File, prev *FileState, resume bool, prevPiece *fileRead, limit int64, recordBytes *atomic.Int64) *fileRead {
	out := &fileRead{src: si, file: f}
	if prevPiece != nil {
		out.piece = prevPiece.piece + 1
	}
	// A piece after the first holds about as many records as the one
	// before (every piece but the last is pieceBytes long): the slice is
	// made that size once instead of grown, copying every record of the
	// piece again at each doubling.
	var records int
	if prevPiece != nil {
		records = len(prevPiece.records)
	}
	var wait time.Duration
	// waited is the file as it was when the read waited for it to settle
	// by the stat alone (see settle).
	var waited fileIdentity
	for attempt := range readAttempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				out.err = ctx.Err()
				return out
			case <-time.After(wait):
			}
		}
		wait = time.Duration(attempt+1) * 100 * time.Millisecond
		// The companions' stat is taken before the read: a change during
		// it is then seen by the next sync.
		before := sourceIdentity(src.Kind, f.Path)
		if !before.exist {
			out.err = fmt.Errorf("%s disappeared while it was read", f.Path)
			return out
		}
		from := ingest.Cursor{}
		switch {
		case prevPiece != nil:
			from, out.resumed = prevPiece.state.Cursor, prevPiece.resumed
		default:
			out.resumed = resume && prev != nil && ingest.LineBased(src.Kind, f.Path) && before.grew(prev)
			if out.resumed {
				from = prev.Cursor
			}
		}
		if hint := recordsHint(recordBytes, before.size-from.Offset, limit); hint > 0 {
			records = hint
		}
		out.records, out.problems, out.count, out.interrupted = make([]memory.Record, 0, records), nil, 0, 0
		sink := ingest.Sink{
			Record: func(r memory.Record) error { out.records = append(out.records, r); return nil },
			Problem: func(p ingest.Problem) {
				if p.Source == "" {
					p.Source = src.Name
				}
				out.count++
				if p.Interrupted {
					out.interrupted++
				}
				if len(out.problems) < maxReportedProblems {
					out.problems = append(out.problems, p)
				}
			},
		}
		// A file read in pieces is judged before its first piece is
		// used: the line count the whole read would have compared.
		if prevPiece == nil && limit > 0 && before.size > limit && before != waited && x.rewriting(src, f, prev, before) {
			wait, waited = x.settle(before)
			continue
		}
		cur, more, err := x.opts.readFilePiece(ctx, src, f, from, limit, sink)
		if out.resumed && prevPiece == nil && errors.Is(err, ingest.ErrFileChanged) {
			// Not an append after all: read it whole.
			out.resumed = false
			out.records, out.problems, out.count, out.interrupted = nil, nil, 0, 0
			cur, more, err = x.opts.readFilePiece(ctx, src, f, ingest.Cursor{}, limit, sink)
		}
		after := statIdentity(f.Path)
		if err != nil && ctx.Err() == nil && after.exist && (after.size != before.size || after.modTime != before.modTime || after.inode != before.inode) {
			// Rewritten under the reader, which can fail the read itself
			// (a check of the bytes before the cursor meets the end of a
			// file truncated to be written again): a change, to read again.
			continue
		}
		if err != nil {
			out.err, out.failed = err, before
			return out
		}
		if !after.exist || after.device != before.device || after.inode != before.inode || after.size < before.size {
			continue // replaced or truncated under the reader
		}
		if out.piece == 0 && !more && !out.resumed && after != waited && x.recentlyShrunk(src, f, prev, after, cur.Line) {
			// Fewer lines than before, just written: a rewrite in
			// progress, or one done. Read it again once it has settled.
			wait, waited = x.settle(after)
			continue
		}
		// Chunking (tags, hashes, governance) is per record: the cores
		// share it, so one large file is not read on one core alone. In
		// shared pieces, not halves: the analysis and the adder run
		// meanwhile, and the reader, which waits for the last piece
		// before it reads on, waited for the core they slowed.
		out.chunks = make([][]pendingChunk, len(out.records))
		parallel.Shared(len(out.records), 32, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				out.chunks[i] = x.chunkRecord(src, out.records[i])
			}
		})
		out.more = more
		if recordBytes != nil && len(out.records) > 0 && cur.Offset > from.Offset {
			recordBytes.Store(max(1, (cur.Offset-from.Offset)/int64(len(out.records))))
		}
		out.state = FileState{Source: src.Name, Path: f.Path, Size: before.size, ModTime: before.modTime,
			Device: before.device, Inode: before.inode, Birth: before.birth, Companions: before.companions, Cursor: cur, Records: len(out.records), Problems: out.count, Interrupted: out.interrupted}
		// The first problem named is the first there is something to fix
		// about, if any.
		if len(out.problems) > 0 {
			first := out.problems[0]
			if i := slices.IndexFunc(out.problems, func(p ingest.Problem) bool { return !p.Interrupted }); i >= 0 {
				first = out.problems[i]
			}
			out.state.Problem = problemReason(first)
		}
		// What the earlier pieces, or the earlier reads of a file read on
		// from its cursor, skipped is still skipped; the first of it is
		// the file's first problem, unless only this read's can be fixed.
		var earlier *FileState
		switch {
		case prevPiece != nil:
			earlier = &prevPiece.state
		case out.resumed:
			earlier = prev
			out.state.Dropped = slices.Clone(prev.Dropped)
		}
		if earlier != nil {
			fixable := out.state.Problems > out.state.Interrupted // in this read
			out.state.Records += earlier.Records
			out.state.Problems += earlier.Problems
			out.state.Interrupted += earlier.Interrupted
			if earlier.Problem != "" && (earlier.Problems > earlier.Interrupted || !fixable) {
				out.state.Problem = earlier.Problem
			}
		}
		return out
	}
	out.unstable = true
	return out
}

// recordsHint is how many records a piece of limit bytes of the rest bytes
// of a file left to read holds, judged by the source's bytes per record so
// far, or guessedRecordBytes before the source's first piece is read; 0
// when the file is not read in pieces. Its records slice is made that size
// (and a little more) at once: grown by append from empty, a piece of
// 10 000 records (about 3 MB of memory.Record) was copied several times
// over: 127 MB, 5% of a 100k build's allocation. A wrong guess only costs
// a copy, or the unused rest of one slice.
func recordsHint(recordBytes *atomic.Int64, rest, limit int64) int {
	if recordBytes == nil || limit <= 0 || rest <= 0 {
		return 0
	}
	per := recordBytes.Load()
	if per <= 0 {
		// The first pieces of a source, read at once (readerAhead).
		per = guessedRecordBytes
	}
	n := int(min(rest, limit) / per)
	return n + n/32 + 16
}

// guessedRecordBytes is the bytes of a record that recordsHint assumes
// before it knows a source's: about a memory record of a few sentences as
// JSONL writes it. Records twice as long leave half the slice unused
// until the piece is chunked; half as long, it is copied once.
const guessedRecordBytes = 512

// shrinkSettle is how long a line-based file that holds fewer lines than
// before must be left alone to be taken for rewritten rather than being
// rewritten.
const shrinkSettle = 2 * time.Second

// recentlyShrunk reports whether a line-based file written a moment ago
// holds fewer lines than the previous read consumed: its writer may have
// truncated it and be writing it again.
func (x *Indexer) recentlyShrunk(src config.Source, f ingest.File, prev *FileState, id fileIdentity, lines int) bool {
	return prev != nil && ingest.LineBased(src.Kind, f.Path) && lines < prev.Cursor.Line &&
		x.opts.Now().Sub(time.Unix(0, id.modTime)) < shrinkSettle
}

// settle returns how long to wait before reading a recently shrunk file
// again: until shrinkSettle has passed since it was written. A
// modification time ahead of the clock (a network share whose server
// clock runs ahead, a folder synced from a machine whose clock does)
// cannot say when the file was written, and would make it look written a
// moment ago until the clock catches up: such a file is waited for
// shrinkSettle, and returned as waited, which the read takes for settled
// if it is still the same file, unchanged, after the wait.
func (x *Indexer) settle(id fileIdentity) (time.Duration, fileIdentity) {
	d := time.Unix(0, id.modTime).Add(shrinkSettle).Sub(x.opts.Now()) + 10*time.Millisecond
	if d > shrinkSettle+10*time.Millisecond {
		return shrinkSettle, id
	}
	return max(d, 10*time.Millisecond), fileIdentity{}
}

// rewriting is recentlyShrunk for a file about to be read in pieces: its
// lines are counted first.
func (x *Indexer) rewriting(src config.Source, f ingest.File, prev *FileState, id fileIdentity) bool {
	if !x.recentlyShrunk(src, f, prev, id, 0) {
		return false // not recent, or not fewer than no lines at all
	}
	lines, err := ingest.CountLines(f.Path)
	return err == nil && x.recentlyShrunk(src, f, prev, id, lines)
}

// readerAhead is how many files are read ahead of the one being indexed.
const readerAhead = 4

// pieceBytes is how much of a large file a full build reads at a time, so
// that one huge export does not have to fit in memory whole.
const pieceBytes = 4 << 20

// errChangedWhileRead stops a build whose large file changed between two
// of its pieces: the pieces already indexed may no longer be the file's.
var errChangedWhileRead = errors.New("changed while it was read in pieces; the next sync reads it again")

// readAll reads files (of sources, by index) in parallel and calls use
// with each in order, so a build is deterministic and at most a few files
// are held in memory at once. With limit > 0 a large line-based file
// comes as several reads, its pieces in order (see readStable).
func (x *Indexer) readAll(ctx context.Context, jobs []readJob, limit int64, use func(*fileRead) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]chan *fileRead, len(jobs))
	for i := range results {
		results[i] = make(chan *fileRead, 1)
	}
	sem := make(chan struct{}, readerAhead)
	// The bytes per record of each source's last piece read.
	recordBytes := make([]atomic.Int64, len(x.cfg.Sources))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i, j := range jobs {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if j.carried {
					results[i] <- &fileRead{src: j.src, file: j.file, carried: true}
					return
				}
				var last *fileRead
				for {
					r := x.readStable(ctx, j.src, x.cfg.Sources[j.src], j.file, j.prev, j.resume, last, limit, &recordBytes[j.src])
					select {
					case results[i] <- r:
					case <-ctx.Done():
						return
					}
					if !r.more || r.err != nil || r.unstable {
						return
					}
					last = r
				}
			}()
		}
	}()
	// Readers still sending pieces stop once the context is cancelled.
	defer func() {
		cancel()
		wg.Wait()
	}()
	for i := range jobs {
		for {
			var r *fileRead
			select {
			case r = <-results[i]:
			case <-ctx.Done():
				return ctx.Err()
			}
			if r.err != nil && (errors.Is(r.err, context.Canceled) || errors.Is(r.err, context.DeadlineExceeded)) {
				return r.err
			}
			if r.piece > 0 && (r.err != nil || r.unstable) {
				return fmt.Errorf("%s %w", r.file.Path, errChangedWhileRead)
			}
			if err := use(r); err != nil {
				return err
			}
			if !r.more || r.err != nil || r.unstable {
				break
			}
		}
		<-sem
	}
	return nil
}

// readJob is one file to read, or (carried) one whose earlier memory
// takes its place.
type readJob struct {
	src     int
	file    ingest.File
	prev    *FileState
	carried bool
	// resume reads an append-only file on from prev's cursor.
	resume bool
}
