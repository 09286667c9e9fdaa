package index

import (
	"context"
	"fmt"
	"slices"

	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/index/segment"
)

// Compaction thresholds. Every incremental sync adds a small segment;
// searches pay a little per segment, and retired documents keep taking
// room until their segment is rewritten.
const (
	// smallSegment is the size below which a segment counts as a delta.
	smallSegment = 20_000
	// maxSmallSegments trailing deltas are merged into one.
	maxSmallSegments = 8
	// maxRetiredShare of retired document slots has the whole generation
	// rewritten.
	maxRetiredShare = 0.25
)

// compact writes a compacted candidate of the active generation, or
// returns nil when it needs none: the trailing deltas merged into one
// segment (cost in proportion to the deltas), or, when retired documents
// fill too much of it, every segment rewritten. Chunks keep their vectors
// (their codes are copied) and answer exactly as before. The lock is held.
func (x *Indexer) compact(ctx context.Context) (*BuildResult, error) {
	prev, err := x.openPrevious()
	if err != nil || prev == nil || prev.gen == nil {
		return nil, err
	}
	g := prev.gen
	segs := prev.manifest.Segments
	from := len(segs)
	if retired := g.Len() - g.Count(); float64(retired) > maxRetiredShare*float64(g.Len()) {
		from = 0
	} else {
		small := 0
		for i := len(segs) - 1; i >= 0 && segs[i].Docs < smallSegment; i-- {
			small++
		}
		if small < maxSmallSegments {
			return nil, nil
		}
		from = len(segs) - small
	}
	sp := x.reuseSpace(prev, g.Count())
	if sp == nil {
		return nil, nil // the space must change: the next sync rebuilds in full
	}
	start := x.opts.Now()
	res := &BuildResult{Mode: ModeCompaction, Timings: map[string]int64{}, Problems: []ingest.Problem{}}
	first, _ := g.SegmentRange(from)
	x.opts.Progress(Progress{Stage: "compact", Total: g.Len() - first, Note: fmt.Sprintf("merging %d of %d segments", len(segs)-from, len(segs))})
	sink := x.newSink(ctx, sp, first, res)
	// The merged segments' retirements of earlier documents carry over.
	dead := &segment.Dead{}
	for s := from; s < len(segs); s++ {
		for _, d := range g.Retired(s) {
			if int(d) < first {
				dead.Docs = append(dead.Docs, d)
				c := g.Chunk(int(d))
				dead.Text.AddTerms(x.analyzer.Terms(c.OwnText()))
				dead.Context.AddTerms(x.analyzer.Terms(c.Context))
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
		if err := sink.add(pendingChunk{c: *g.Chunk(doc), codes: g.Codes(doc)}); err != nil {
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
	states := &sourceStates{Version: prev.states.Version, Files: slices.Clone(prev.states.Files)}
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
