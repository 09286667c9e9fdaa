package search

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/memory"
)

// DayFilterRefused builds the local-day filter of f over snap, as a search
// does, and returns how many documents it refuses: the benchmark times it
// alone.
func (e *Engine) DayFilterRefused(snap *Snapshot, f api.Filters) int {
	if df := e.newDayFilter(snap, f); df != nil {
		return df.refused
	}
	return 0
}

// HardFilter is a search's hard filter for f over snap (nil when nothing
// is filtered).
func (e *Engine) HardFilter(snap *Snapshot, f api.Filters) func(int) bool {
	q := &query{req: api.SearchRequest{Filters: f}, snap: snap, days: e.newDayFilter(snap, f)}
	accept, _ := q.hardFilter(nil)
	return accept
}

// LocalDay is c's day in the engine's zone.
func (e *Engine) LocalDay(c *memory.Chunk) string { return e.localDay(c) }

// IDCandidates are the words of query that may name a record by id.
func IDCandidates(query string) []string { return idCandidates(query) }

// MaxIDCandidates and MaxAnchors are the plan's bounds.
const (
	MaxIDCandidates = maxIDCandidates
	MaxAnchors      = maxAnchors
)

// BridgeDecodes asks bridgedAnswer of turn stmt and the turn after it,
// next, as propagation does, and returns the answer and which documents
// it decoded in full.
func (e *Engine) BridgeDecodes(snap *Snapshot, stmt, next int) (ans int, ok bool, full []int) {
	q := &query{snap: snap, chunks: map[int]decoded{}, views: map[int]textView{}}
	ans, ok = e.bridgedAnswer(q, stmt, next)
	return ans, ok, slices.Sorted(maps.Keys(q.chunks))
}

// DecodeForScoring decodes doc for scoring, as a pass does first, and
// then asks for its text and whole chunk, as the text factors do, and
// for scoring again.
func DecodeForScoring(snap *Snapshot, doc int) (meta *memory.Chunk, asks bool, text string, full, again *memory.Chunk) {
	q := &query{snap: snap, chunks: map[int]decoded{}}
	meta, asks = q.meta(doc)
	text = q.text(doc)
	full = q.chunk(doc)
	again, _ = q.meta(doc)
	return meta, asks, text, full, again
}

// PassCandidate is a candidate of a pass: its document and score, and
// whether textFactor weighed it.
type PassCandidate struct {
	Doc     int
	Score   float64
	Weighed bool
}

// BaselinePass runs req's baseline pass over snap as a search does, with
// the lexical channel alone, and returns its candidates, best first, and
// the depth the results are cut to.
func (e *Engine) BaselinePass(snap *Snapshot, req api.SearchRequest) ([]PassCandidate, int, error) {
	if req.TopK <= 0 {
		req.TopK = api.DefaultTopK
	}
	q, _ := e.newQuery(snap, req, time.Now().Add(time.Minute))
	defer q.release()
	out, err := e.runPass(context.Background(), q, pass{id: PassBaseline, query: q.plan.Query, weight: passWeights[PassBaseline]}, nil, false)
	cands := make([]PassCandidate, len(out))
	for i, s := range out {
		cands[i] = PassCandidate{Doc: s.doc, Score: s.score, Weighed: s.comp.has&hasText != 0}
	}
	return cands, q.depth, err
}
