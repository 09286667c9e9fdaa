package index

import (
	"context"
	"fmt"
	"slices"

	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/lexical"
)

// Compaction thresholds. Every incremental sync adds a small segment;
// searches pay a little per segment, and retired documents keep taking
// room until their segment is rewritten.
const (
	// smallShare is the share of the largest segment's documents below
	// which a trailing segment counts as a delta (so a merge costs a
	// fraction of a rewrite, and the full segments of a large build are
	// never merged again).
	smallShare = 8
	// maxSmallSegments trailing deltas are merged into one.
	maxSmallSegments = 8
	// maxRetiredShare of retired document slots has the whole generation
	// rewritten.
	maxRetiredShare = 0.25
	// More than maxSegments segments have the whole generation
	// rewritten. A delta of an eighth of the largest segment or more is
	// no small delta, and appends retire nothing: without a bound, every
	// sync that appends that much adds a segment for good (files that
	// novad maps, a folder), where no retrain of the builtin model
	// rebuilds in full (an OpenAI-compatible embedder; a model trained on
	// the most documents it takes). Each such segment holds an eighth of
	// the largest or more, so a rewrite comes after the memory grew
	// several times the largest segment: its cost is spread over what
	// was added. A full build rolls a segment every segmentPostings, so a
	// rewritten generation has far fewer segments than this at any size
	// Nova is made for (this many hold some 190 million postings).
	maxSegments = 32
)

// compact writes a compacted candidate of the active generation, or
// returns nil when it needs none: the trailing deltas merged into one
// segment (cost in proportion to the deltas), or, when retired documents
// fill too much of it, every segment rewritten. Chunks keep their vectors
// (their codes are copied) and answer exactly as before. The lock is held.
func (x *Indexer) compact(ctx context.Context) (*BuildResult, error) {
	prev, err := x.openPrevious(ctx)
	if err != nil || prev == nil || prev.gen == nil {
		return nil, err
	}
	g := prev.gen
	segs := prev.manifest.Segments
	var from int // the first segment to rewrite
	share, merge, most := maxRetiredShare, maxSmallSegments, maxSegments
	if x.opts.RewriteShare > 0 {
		share = x.opts.RewriteShare
	}
	if x.opts.MergeDeltas > 0 {
		merge = x.opts.MergeDeltas
	}
	if x.opts.MaxSegments > 0 {
		most = x.opts.MaxSegments
	}
	if retired := g.Len() - g.Count(); float64(retired) > share*float64(g.Len()) || len(segs) > most {
		from = 0
	} else {
		small := 0
		largest := 0
		for _, p := range segs {
			largest = max(largest, p.Docs)
		}
		limit := largest / smallShare
		for i := len(segs) - 1; i > 0 && segs[i].Docs < limit; i-- {
			small++
		}
		if small < merge {
			return nil, nil
		}
		from = len(segs) - small
	}
	sp := x.reuseSpace(prev, g.Count())
	if sp == nil || g.Meta.Analyzer != x.analyzer.Version() {
		// The space must change, or the terms (merged segments would not
		// match the others): the next sync rebuilds in full.
		return nil, nil
	}
	start := x.opts.Now()
	res := &BuildResult{Mode: ModeCompaction, Timings: map[string]int64{}, Problems: []ingest.Problem{}}
	first, _ := g.SegmentRange(from)
	x.opts.Progress(Progress{Stage: "compact", Total: g.Len() - first, Note: fmt.Sprintf("merging %d of %d segments", len(segs)-from, len(segs))})
	sink := x.newSink(ctx, sp, first, res)
	// The merged segments' retirements of earlier documents carry over,
	// with their statistics: the retiring segments' sums, less what the
	// retired documents inside the merged range contributed (they go with
	// their postings).
	dead := &segment.Dead{Text: segment.FieldStats{DF: map[string]int{}}, Context: segment.FieldStats{DF: map[string]int{}}}
	inside := map[int]map[uint32]bool{} // segment -> its retired documents, numbered in it
	for s := from; s < len(segs); s++ {
		for _, d := range g.Retired(s) {
			if int(d) < first {
				dead.Docs = append(dead.Docs, d)
				continue
			}
			seg, local := g.Locate(int(d))
			if inside[seg] == nil {
				inside[seg] = map[uint32]bool{}
			}
			inside[seg][uint32(local)] = true
		}
		st := g.RetiredStats(s)
		dead.Text.Len += st.Text.Len
		dead.Context.Len += st.Context.Len
		for t, n := range st.Text.DF {
			dead.Text.DF[t] += n
		}
		for t, n := range st.Context.DF {
			dead.Context.DF[t] += n
		}
	}
	for seg, docs := range inside {
		text, ctx := g.Fields(seg)
		for _, f := range []struct {
			field *lexical.Field
			dst   *segment.FieldStats
		}{{text, &dead.Text}, {ctx, &dead.Context}} {
			l, df := f.field.Stats(docs)
			f.dst.Len -= l
			for t, n := range df {
				if f.dst.DF[t] -= n; f.dst.DF[t] <= 0 {
					delete(f.dst.DF, t)
				}
			}
		}
	}
	slices.Sort(dead.Docs)
	sink.dead = dead
	res.progress.total = g.Count()
	for doc := first; doc < g.Len(); doc++ {
		if !g.Live(doc) {
			continue
		}
		c := *g.Chunk(doc)
		c.Context, c.Before = g.Context(doc)
		if err := sink.add(pendingChunk{c: c, codes: g.Codes(doc)}); err != nil {
			sink.abort()
			return nil, err
		}
		res.Added++
	}
	parts, err := x.finishSegments(sink, res)
	if err != nil {
		sink.abort()
		return nil, err
	}
	cand := x.candidate(sp, append(slices.Clone(segs[:from]), parts...), g.Count(), prev.manifest.RecordCount)
	// Written as the changes to the base the previous states were read on:
	// a compaction changes no file's state.
	states := &sourceStates{Version: prev.states.Version, Files: slices.Clone(prev.states.Files), base: prev.states.base}
	if err := x.writeCandidate(cand, states, res); err != nil {
		return nil, err
	}
	res.DurationMs = x.opts.Now().Sub(start).Milliseconds()
	res.Timings["compact"] = res.DurationMs
	_ = appendHistory(x.home.History(), Event{Time: x.opts.Now().UTC(), Event: EventBuild, RunID: res.RunID, Chunks: res.Chunks,
		Carried: res.Carried, DurationMs: res.DurationMs, Note: ModeCompaction})
	x.log.Info("Compacted", "runId", res.RunID, "segmentsMerged", len(segs)-from, "segments", len(cand.Segments))
	return res, nil
}
