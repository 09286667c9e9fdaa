package index

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/memory"
)

// fileRead is one source file read for a build.
type fileRead struct {
	src  int
	file ingest.File
	// carried is set for a file that is not read: its earlier memory is.
	carried bool
	records []memory.Record
	// problems are the file's skipped input (at most maxReportedProblems
	// kept; count is the total).
	problems []ingest.Problem
	count    int
	state    FileState
	// unstable is set when the file kept changing while it was read: its
	// previous memory is kept and it is read again next time.
	unstable bool
	err      error
}

// readAttempts is how many times a file that changes while it is read is
// read again before the build keeps its previous memory instead.
const readAttempts = 3

// readStable reads one file completely: only whole lines of line-based
// files (an agent may be writing the last one), and only if the file's
// identity and size are the same after the read as before it. A file
// rewritten in place during the read is read again; one that keeps
// changing is reported unstable.
func (x *Indexer) readStable(ctx context.Context, si int, src config.Source, f ingest.File, prev *FileState) *fileRead {
	out := &fileRead{src: si, file: f}
	for attempt := range readAttempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				out.err = ctx.Err()
				return out
			case <-time.After(time.Duration(attempt) * 100 * time.Millisecond):
			}
		}
		before := statIdentity(f.Path)
		if !before.exist {
			out.err = fmt.Errorf("%s disappeared while it was read", f.Path)
			return out
		}
		out.records, out.problems, out.count = nil, nil, 0
		_, err := ingest.ReadFile(ctx, src, f, ingest.Cursor{}, ingest.Sink{
			Record: func(r memory.Record) error { out.records = append(out.records, r); return nil },
			Problem: func(p ingest.Problem) {
				if p.Source == "" {
					p.Source = src.Name
				}
				out.count++
				if len(out.problems) < maxReportedProblems {
					out.problems = append(out.problems, p)
				}
			},
		})
		if err != nil {
			out.err = err
			return out
		}
		st, err := x.fileState(src, f, before)
		if err != nil {
			out.err = err
			return out
		}
		after := statIdentity(f.Path)
		if after != before {
			continue // changed under the reader
		}
		if prev != nil && ingest.LineBased(src.Kind, f.Path) && st.Line < prev.Line &&
			x.opts.Now().Sub(time.Unix(0, after.modTime)) < 2*time.Second {
			// Fewer lines than last time, written a moment ago: most
			// likely rewritten in place and not finished.
			continue
		}
		if ingest.LineBased(src.Kind, f.Path) {
			// Records of a torn last line come next time, whole.
			out.records = keepLines(out.records, st.Line)
			out.problems, out.count = keepProblemLines(out.problems, out.count, st.Line)
		}
		st.Records, st.Problems = len(out.records), out.count
		out.state = st
		return out
	}
	out.unstable = true
	return out
}

// fileState computes the state of a file as it was just read.
func (x *Indexer) fileState(src config.Source, f ingest.File, id fileIdentity) (FileState, error) {
	st := FileState{Source: src.Name, Path: f.Path, Size: id.size, ModTime: id.modTime, Device: id.device, Inode: id.inode, Offset: id.size}
	if !ingest.LineBased(src.Kind, f.Path) {
		return st, nil
	}
	fh, err := os.Open(f.Path)
	if err != nil {
		return st, err
	}
	defer fh.Close()
	st.Offset, st.Line, err = completeLines(io.LimitReader(fh, id.size))
	if err != nil {
		return st, err
	}
	if st.Head, err = windowSum(fh, 0, min(headBytes, st.Offset)); err != nil {
		return st, err
	}
	if st.Tail, err = windowSum(fh, max(0, st.Offset-tailBytes), min(tailBytes, st.Offset)); err != nil {
		return st, err
	}
	return st, nil
}

// completeLines returns the length of r's complete lines (up to and
// including the last newline) and how many there are.
func completeLines(r io.Reader) (int64, int, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var off, end int64
	lines := 0
	buf := make([]byte, 1<<20)
	for {
		n, err := br.Read(buf)
		chunk := buf[:n]
		for {
			i := bytes.IndexByte(chunk, '\n')
			if i < 0 {
				break
			}
			lines++
			end = off + int64(i) + 1
			off += int64(i) + 1
			chunk = chunk[i+1:]
		}
		off += int64(len(chunk))
		if errors.Is(err, io.EOF) {
			return end, lines, nil
		}
		if err != nil {
			return 0, 0, err
		}
	}
}

func keepLines(records []memory.Record, lines int) []memory.Record {
	out := records[:0]
	for _, r := range records {
		if r.Line <= lines {
			out = append(out, r)
		}
	}
	return out
}

func keepProblemLines(ps []ingest.Problem, count, lines int) ([]ingest.Problem, int) {
	out := ps[:0]
	for _, p := range ps {
		if p.Line > lines {
			count--
			continue
		}
		out = append(out, p)
	}
	return out, count
}

// readerAhead is how many files are read ahead of the one being indexed.
const readerAhead = 4

// readAll reads files (of sources, by index) in parallel and calls use
// with each in order, so a build is deterministic and at most a few files
// are held in memory at once.
func (x *Indexer) readAll(ctx context.Context, jobs []readJob, use func(*fileRead) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]chan *fileRead, len(jobs))
	for i := range results {
		results[i] = make(chan *fileRead, 1)
	}
	sem := make(chan struct{}, readerAhead)
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
				results[i] <- x.readStable(ctx, j.src, x.cfg.Sources[j.src], j.file, j.prev)
			}()
		}
	}()
	defer wg.Wait()
	for i := range jobs {
		var r *fileRead
		select {
		case r = <-results[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		<-sem
		if r.err != nil && (errors.Is(r.err, context.Canceled) || errors.Is(r.err, context.DeadlineExceeded)) {
			return r.err
		}
		if err := use(r); err != nil {
			return err
		}
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
}
