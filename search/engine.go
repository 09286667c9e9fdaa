package search

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/internal/lazy"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/memory"
)

// Config tunes the engine.
type Config struct {
	// HalfLifeDays is the recency half-life.
	HalfLifeDays float64
	// Dense turns the dense channel on.
	Dense bool
	// LexicalWeight is the share of the normalised BM25 score in a pass's
	// fused score; the dense cosine gets the rest. Measured on LoCoMo dev
	// (BENCHMARKS.md): 0.6.
	LexicalWeight float64
	// ContextWeight is the weight of the neighbouring-context field in the
	// lexical score (the chunk's own text weighs 1); 0 means the default,
	// a negative value turns the field off.
	ContextWeight float64
	// Now is the clock for recency and for the dates a query names; nil
	// uses time.Now.
	Now func() time.Time
	// Location is the user's time zone: the one in which "yesterday" or
	// "上周" are resolved, a memory's date and timestamp are given and the
	// date filters compare (localtime.go). nil means UTC: the engine never
	// reads the machine's zone itself.
	Location *time.Location
	// Off switches recall levers off by name (Levers); for ablations.
	Off map[string]bool
	// ConcurrentPassMin is the generation size from which a pass, and the
	// local-day date filter, spread over goroutines; 0 means
	// concurrentPassMin. Tests set 1 to run them concurrently over small
	// fixtures.
	ConcurrentPassMin int
}

// ConfigFor is the engine configuration Nova's retrieval settings ask
// for. Nova has no time-zone setting: dates are the machine's, chosen here
// and not by a default deep in the engine.
func ConfigFor(r config.Retrieval) Config {
	return Config{HalfLifeDays: r.RecencyHalfLifeDays, Dense: r.DenseChannel == "on", Location: time.Local}
}

// DefaultLexicalWeight is the measured default fusion weight.
const DefaultLexicalWeight = 0.6

// minDenseOnly is the cosine below which a candidate with no lexical match
// is dropped.
const minDenseOnly = 0.15

// ContextFieldWeight is the weight of the neighbouring-context field in
// the lexical score (the chunk's own text weighs 1). Measured on LoCoMo
// dev: folding context into the text raised recall@10 but cost a third of
// recall@1; a separate field at 0.4 keeps both.
const ContextFieldWeight = 0.4

// Snapshot is what a search runs against: a loaded generation and the
// embedder of its vector space. It is immutable once searched; what it
// derives from the generation is worked out once, on first use.
type Snapshot struct {
	Gen *generation.Generation
	// Query embeds queries into the generation's vector space; nil turns
	// the dense channel off for this snapshot.
	Query embedding.Embedder

	idsOnce      lazy.Once
	ids          foldedIDs
	instantsOnce sync.Once
	instants     instants
	formsOnce    lazy.Once
	facetForms   *facetForms
	// spans are the first and last local days (DateRange), by zone.
	spanMu sync.Mutex
	spans  map[*time.Location][2]string
}

// Engine runs searches. It is safe for concurrent use and holds no lock a
// build could contend on: each search reads one immutable snapshot.
type Engine struct {
	cfg      Config
	analyzer *lexical.Analyzer
}

// New returns an engine.
func New(cfg Config, analyzer *lexical.Analyzer) *Engine {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	if cfg.HalfLifeDays <= 0 {
		cfg.HalfLifeDays = 7
	}
	if cfg.ConcurrentPassMin <= 0 {
		cfg.ConcurrentPassMin = concurrentPassMin
	}
	if cfg.LexicalWeight <= 0 || cfg.LexicalWeight > 1 {
		cfg.LexicalWeight = DefaultLexicalWeight
	}
	switch {
	case cfg.ContextWeight == 0:
		cfg.ContextWeight = ContextFieldWeight
	case cfg.ContextWeight < 0:
		cfg.ContextWeight = 0
	}
	return &Engine{cfg: cfg, analyzer: analyzer}
}

// Analyzer returns the engine's analyzer.
func (e *Engine) Analyzer() *lexical.Analyzer { return e.analyzer }

// pass describes one retrieval pass.
type pass struct {
	id         string
	query      string
	purpose    string
	weight     float64
	sourceSets []string
	reason     string
}

// Pass ids and weights. Weights never exceed 1: an optional pass must not
// outrank the baseline for the same evidence (upstream's weighted max did).
const (
	PassBaseline      = "baseline-hybrid"
	PassExact         = "exact-entity-recall"
	PassRewrite       = "subquery-rewrite"
	PassAuthoritative = "authoritative-source-pass"
)

var passWeights = map[string]float64{PassBaseline: 1.0, PassExact: 1.0, PassRewrite: 0.95, PassAuthoritative: 1.0}

// authoritativeSets are the source sets the authoritative-source pass
// searches, by the plan intent that asks for it, first match wins: a
// task question wants the current board and task events; a question about
// configuration, a migration, a lesson or a decision wants the durable
// notes and lessons.
var authoritativeSets = []struct {
	intents []string
	sets    []string
}{
	{intents: []string{"task"}, sets: []string{"diary-markdown-sections", "nova-task-work-graph-events", "task-board-snapshot", "technical-report-task-events"}},
	{intents: []string{"config", "migration", "lesson", "decision"}, sets: []string{"diary-markdown-sections", "foundation-period-projections", "lessons", "notes", "technical-report-task-events"}},
}

// scored is one candidate of a pass.
type scored struct {
	doc      int
	score    float64
	comp     components
	passes   []string
	bestPass string
	// dialogue: the chunk is a turn of a session (it lends its score to
	// the turns beside it).
	dialogue bool
	// laterMeta: a neighbour that joined the list on its neighbour's
	// score alone (propagate); its score does not depend on its metadata,
	// so the metadata components are worked out only if it is returned.
	laterMeta bool
}

// query carries the per-search state.
type query struct {
	req    api.SearchRequest
	plan   Plan
	snap   *Snapshot
	accept func(int) bool
	// filters are the request's filters with their values in the forms
	// indexed (filterforms.go); forms checks a project or agent indexed
	// in several forms (nil when none is).
	filters api.Filters
	forms   func(int) bool
	// days applies the date filters to the memories' local days (nil
	// without date filters).
	days *dayFilter
	// mu guards the three caches below: a pass checks its candidates'
	// text on every core.
	mu    sync.Mutex
	views map[int]textView
	// chunks holds the documents decoded for this query: passes, gates
	// and dedupe read the same candidates again and again.
	chunks   map[int]decoded
	now      time.Time
	depth    int
	deadline time.Time
	// related are the words of related meaning searched beside the
	// query's own (relatedWords).
	related relatedWords
	// dates are the spans the query names; people the agents it names
	// when the person lever is on, mentioned whether or not it is.
	dates     []DateSpan
	people    []string
	mentioned []string
	// names are the words that name them (peopleWords).
	names map[string]bool
	// dateLed says the query names days, or the request filters by
	// them, and the query names nothing more specific (dateLed); dayDocs
	// are the memories of those days, at most a pool of them, in
	// document order.
	dateLed bool
	dayDocs []dayDoc
	// asked holds, as a bit per document, every memory of the days a
	// date-led query names (dayDocs before sampling); nil otherwise.
	asked []uint64
	// named are the documents the query names by record or chunk id,
	// with the word that named each (ids.go).
	named map[int]string
	// keys and anchors are the plan's key terms and anchors, prepared
	// for matching.
	keys, anchors []matchTerm
	// answerType is the kind of answer the query asks for ("" for none),
	// answerForms whether a document holds one.
	answerType  string
	answerForms map[int]bool
	// lent are the candidate lists lent to the search (list); cached
	// holds views and chunks, lent to it too (useCaches).
	lent   []*[]scored
	cached *caches
}

func (q *query) view(e *Engine, doc int) textView {
	q.mu.Lock()
	v, ok := q.views[doc]
	q.mu.Unlock()
	if ok {
		return v
	}
	c := q.chunk(doc)
	v = newTextView(e.analyzer, c.Title+"\n"+c.Text)
	if !q.plan.Meta {
		v.meta = metaScore(v)
	}
	// Whoever asks for a view asks it of every key term.
	for k, t := range q.keys[:min(maxKeyBits, len(q.keys))] {
		if v.covers(t) {
			v.keys |= 1 << k
		}
	}
	q.mu.Lock()
	q.views[doc] = v
	q.mu.Unlock()
	return v
}

// coversKey reports whether v, a view of the query's (view), covers key
// term k.
func (q *query) coversKey(v textView, k int) bool {
	if k < maxKeyBits {
		return v.keys&(1<<k) != 0
	}
	return v.covers(q.keys[k])
}

// decoded is a document of the query and the hashes not yet derived.
// A document only scored by its metadata (meta) is decoded without its
// text, ids, hashes, heading path and warnings
// (generation.Generation.ChunkMeta), and asks says whether the text ends
// with a question mark (asksOnly): that is all scoring reads of them.
type decoded struct {
	c       *memory.Chunk
	missing segment.Hashes
	meta    bool
	asks    bool
}

// chunk returns document doc, decoded once per query, without the hashes
// its record does not store: most candidates are scored and dropped, and
// only those deduplicated or returned need them (hashed). Callers must not
// modify it.
func (q *query) chunk(doc int) *memory.Chunk {
	q.mu.Lock()
	d, ok := q.chunks[doc]
	q.mu.Unlock()
	if ok && !d.meta {
		return d.c
	}
	var whole memory.Chunk
	missing := q.snap.Gen.ChunkStoredInto(doc, &whole)
	q.mu.Lock()
	defer q.mu.Unlock()
	switch d, ok := q.chunks[doc]; {
	case ok && !d.meta:
		return d.c // decoded meanwhile on another core: one copy per query
	case ok:
		// Decoded for scoring: completed in place, which writes none of
		// the fields scoring reads (those who hold it may be reading them).
		segment.Complete(d.c, &whole)
		q.chunks[doc] = decoded{c: d.c, missing: missing}
		return d.c
	}
	// A copy, so that whole stays on the stack when it completes one.
	c := new(memory.Chunk)
	*c = whole
	q.chunks[doc] = decoded{c: c, missing: missing}
	return c
}

// meta returns document doc for scoring by its metadata (metadataFactor):
// its chunk, maybe without the fields scoring does not read (decoded), and
// whether the text ends with a question mark. Most candidates are scored
// and dropped without their text being read, which is most of a record.
// Callers must read only what ChunkMeta decodes, and not modify it.
func (q *query) meta(doc int) (*memory.Chunk, bool) {
	q.mu.Lock()
	d, ok := q.chunks[doc]
	q.mu.Unlock()
	if ok {
		if !d.meta {
			return d.c, asksOnly(d.c.Text)
		}
		return d.c, d.asks
	}
	c, asks := q.snap.Gen.ChunkMeta(doc, asksOnlyBytes)
	q.mu.Lock()
	defer q.mu.Unlock()
	if d, ok := q.chunks[doc]; ok {
		if !d.meta {
			return d.c, asksOnly(d.c.Text)
		}
		return d.c, d.asks
	}
	q.chunks[doc] = decoded{c: c, meta: true, asks: asks}
	return c, asks
}

// text returns document doc's text: its chunk's when the query has
// decoded it, otherwise the text alone, decoding nothing else of the
// record (a record that does not decode has none, as its chunk has none).
func (q *query) text(doc int) string {
	q.mu.Lock()
	d, ok := q.chunks[doc]
	q.mu.Unlock()
	if ok && !d.meta {
		return d.c.Text
	}
	return q.snap.Gen.Text(doc)
}

// hashed is chunk with every hash derived: its text hash, dedupe key and
// duplicate group key are read only through it.
func (q *query) hashed(doc int) *memory.Chunk {
	c := q.chunk(doc)
	q.mu.Lock()
	defer q.mu.Unlock()
	if d := q.chunks[doc]; d.missing != 0 {
		segment.Derive(d.c, d.missing)
		q.chunks[doc] = decoded{c: d.c}
	}
	return c
}

// Search answers req against snap within the context's deadline. It
// returns the full envelope; the caller adds workerTelemetry, facadeBudget
// and externalAgentContract.
func (e *Engine) Search(ctx context.Context, snap *Snapshot, req api.SearchRequest) (*api.SearchResponse, error) {
	start := time.Now()
	// The request decoder bounds topK; a caller that built the request
	// itself gets the same bounds (0 is the default, as in a request).
	if req.TopK <= 0 {
		req.TopK = api.DefaultTopK
	}
	req.TopK = api.ClampTopK(req.TopK)
	req.Filters = e.userDays(req.Filters)
	if snap == nil || snap.Gen == nil {
		return api.Unavailable(req.Query, req.TopK, api.ReasonIndexNotLoaded), nil
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = start.Add(api.MaxServerBudgetMs * time.Millisecond)
	}
	q, filtered := e.newQuery(snap, req, deadline)
	// The envelope copies what it keeps of the candidates and their
	// documents: their lists and caches serve the next search.
	defer q.release()
	plan := q.plan

	ctl := controller{}
	// A date-led query's words are its days: embedded, they find the
	// memories that mention a number or a month, not what was done then.
	// An identifier (a commit hash, a ticket, a version) has no meaning to
	// embed: a query of identifiers alone is found by its words, and the
	// dense channel only added memories near the identifier's vector.
	identifiers := identifierQuery(plan)
	dense := e.cfg.Dense && snap.Query != nil && !q.dateLed && !identifiers
	channels := []api.ChannelReport{{ID: "lexical", Enabled: true, Weight: e.cfg.LexicalWeight, Method: "bm25"}}
	if !dense {
		channels[0].Weight = 1
	}
	denseReport := api.ChannelReport{ID: "dense", Enabled: dense, Weight: 1 - e.cfg.LexicalWeight, Method: "exact-cosine"}
	switch {
	case !e.cfg.Dense:
		denseReport.Weight, denseReport.Reason = 0, "disabled-by-config"
	case snap.Query == nil:
		denseReport.Weight, denseReport.Reason = 0, "no-query-embedder"
	case q.dateLed:
		denseReport.Weight, denseReport.Reason = 0, "date-led-query"
	case identifiers:
		denseReport.Weight, denseReport.Reason = 0, "identifier-query"
	}

	// Baseline: embed the query once, rank, gate.
	var qvecs map[string][]float32
	if dense {
		t0 := time.Now()
		vecs, err := snap.Query.Embed(ctx, []string{plan.Query})
		ctl.embedding = append(ctl.embedding, api.EmbeddingTelemetry{Batch: "baseline", QueryCount: 1, ElapsedMs: ms(time.Since(t0)), Status: status(err)})
		switch {
		case err == nil && len(vecs) == 1 && len(vecs[0]) != snap.Gen.Dim():
			r := api.Unavailable(plan.Query, req.TopK, api.ReasonDimensionMismatch)
			r.Error = "dimension-mismatch"
			qd, id := len(vecs[0]), snap.Gen.Dim()
			r.QueryDimension, r.IndexDimension = &qd, &id
			return r, nil
		case err == nil:
			qvecs = map[string][]float32{plan.Query: vecs[0]}
		case ctx.Err() != nil:
			return nil, ctx.Err()
		default:
			// The dense channel failing (an embedding endpoint down) costs
			// recall, not the answer: continue lexical-only and say so.
			dense = false
			ctl.degraded, ctl.timeoutStage = true, "baseline-embedding"
			denseReport.Enabled, denseReport.Reason = false, "query-embedding-failed"
		}
	}
	channels = append(channels, denseReport)
	if !dense {
		channels[0].Weight = 1
	}

	specs := e.passes(plan, req)
	runs := map[string][]scored{}
	var order []string
	run := func(p pass) error {
		t0 := time.Now()
		res, err := e.runPass(ctx, q, p, qvecs[p.query], dense)
		if err != nil {
			return err
		}
		runs[p.id] = res
		order = append(order, p.id)
		fused, own := e.fuse(q, order, runs)
		fused = e.afterFusion(q, fused, own)
		final, report := dedupe(q, fused, req.TopK, q.depth)
		for i := range final {
			if final[i].laterMeta {
				c, asks := q.meta(final[i].doc)
				e.metadataFactor(q, c, asks, &final[i].comp)
				final[i].laterMeta = false
			}
		}
		qual := e.gate(q, final)
		ctl.passTelemetry = append(ctl.passTelemetry, api.PassTelemetry{ID: p.id, ElapsedMs: ms(time.Since(t0)), CandidateCount: len(res), QualityStatus: qual.Status})
		ctl.passReports = append(ctl.passReports, api.PassReport{ID: p.id, Query: p.query, CandidateCount: intPtr(len(res)), Returned: intPtr(min(len(res), q.depth)), SourceSets: nonNil(p.sourceSets), Purpose: p.purpose, Reason: p.reason})
		ctl.final, ctl.dedupe, ctl.quality = final, report, qual
		return nil
	}
	if err := run(specs[0]); err != nil {
		return nil, err
	}
	switch {
	case ctl.quality.Status == "strong":
		ctl.stopReason = "quality-strong-after-baseline"
	case len(specs) == 1:
		ctl.stopReason = "passes-exhausted"
	case time.Until(deadline) < 50*time.Millisecond:
		ctl.stopReason = "latency-budget-exhausted-after-baseline"
	default:
		optional := specs[1:]
		if dense {
			var texts []string
			for _, p := range optional {
				if _, ok := qvecs[p.query]; !ok && !slices.Contains(texts, p.query) {
					texts = append(texts, p.query)
				}
			}
			t0 := time.Now()
			var vecs [][]float32
			var err error
			if len(texts) > 0 {
				vecs, err = snap.Query.Embed(ctx, texts)
			}
			batched := true
			ctl.batched = &batched
			ctl.embedding = append(ctl.embedding, api.EmbeddingTelemetry{Batch: "optional-passes", QueryCount: len(texts), ElapsedMs: ms(time.Since(t0)), Status: status(err)})
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				ctl.stopReason, ctl.degraded, ctl.timeoutStage = "optional-embedding-timeout", true, "optional-embedding"
				optional = nil
			}
			for i, t := range texts {
				if i < len(vecs) {
					qvecs[t] = vecs[i]
				}
			}
		}
		for _, p := range optional {
			if time.Until(deadline) < 30*time.Millisecond {
				ctl.stopReason = "latency-budget-exhausted"
				break
			}
			if err := run(p); err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return nil, err
			}
			if ctl.quality.Status == "strong" {
				ctl.stopReason = "quality-strong-after-" + p.id
				break
			}
		}
		if ctl.stopReason == "" {
			ctl.stopReason = "passes-exhausted"
		}
	}

	// The last pass's list, fused across the passes that ran,
	// deduplicated and cut to topK, is the answer; its gate verdict stands.
	resp := e.envelope(q, ctl.final, ctl.quality, ctl.dedupe, filtered)
	resp.RetrievalController = ctl.report(q, ctl.quality, ctl.dedupe.OutputCount, len(ctl.final), time.Since(start), snap.Gen, channels)
	resp.TotalIndexed = snap.Gen.Count()
	resp.Generation = snap.Gen.Meta.RunID
	return resp, nil
}

// newQuery plans req and prepares what every pass of its search shares:
// the hard filter (and how many documents it refuses), the query's dates,
// the records and people it names, its related words and the answer type
// it asks for. The caller releases it (query.release).
func (e *Engine) newQuery(snap *Snapshot, req api.SearchRequest, deadline time.Time) (*query, int) {
	plan := MakePlan(req.Query)
	q := &query{
		req: req, plan: plan, snap: snap, now: e.cfg.Now(),
		depth: min(max(4*req.TopK, 24), 80), deadline: deadline,
		keys: newMatchTerms(e.analyzer, plan.KeyTerms), anchors: newMatchTerms(e.analyzer, plan.Anchors),
	}
	q.useCaches()
	var filtered int
	q.filters, q.forms = snap.indexedFilters(req.Filters)
	q.days = e.newDayFilter(snap, q.filters)
	q.accept, filtered = q.hardFilter(nil)
	q.dates = e.queryDates(plan.Query, q.now)
	q.named = namedRecords(snap, plan.Query)
	q.mentioned = namedPeople(snap.Gen.Agents(), plan.Query)
	if e.on(LeverPerson) {
		q.people = q.mentioned
		q.names = peopleWords(q.people)
	}
	_, _, daysFiltered := dayBounds(req.Filters)
	if q.dateLed = (len(q.dates) > 0 || daysFiltered) && dateLed(plan.Query, q.dates, q.names); q.dateLed {
		q.dayDocs = e.dayDocs(snap, q)
	}
	if !q.dateLed {
		// A date-led query's related words are its days' and its
		// activity words' ("break" for 发生, 下周 for 上周): as words they
		// find what mentions them, not what was done on the days.
		q.related = e.relatedWords(plan.Query, q.mentioned)
	}
	if e.on(LeverAnswerType) {
		q.answerType = QueryAnswerType(plan.Query)
		q.answerForms = map[int]bool{}
	}
	return q, filtered
}

// passes returns the baseline and the optional passes that apply.
func (e *Engine) passes(plan Plan, req api.SearchRequest) []pass {
	specs := []pass{{id: PassBaseline, query: plan.Query, purpose: "primary dense/lexical recall", weight: passWeights[PassBaseline]}}
	lowerQ := strings.ToLower(plan.Query)
	exact := strings.Join(plan.KeyTerms[:min(8, len(plan.KeyTerms))], " ")
	if exact != "" && strings.ToLower(exact) != lowerQ {
		specs = append(specs, pass{id: PassExact, query: exact, purpose: "rare entity, number and config term recall", weight: passWeights[PassExact], reason: "baseline quality was not strong"})
	}
	if len(plan.SubQueries) > 1 {
		rw := plan.SubQueries[1].Query
		if l := strings.ToLower(rw); l != lowerQ && l != strings.ToLower(exact) {
			specs = append(specs, pass{id: PassRewrite, query: rw, purpose: "intent rewrite recall", weight: passWeights[PassRewrite], reason: "baseline quality was not strong"})
		}
	}
	if len(req.Filters.SourceSets) == 0 {
		intents := map[string]bool{}
		for _, t := range append(slices.Clone(plan.Intents), plan.PreferredTags...) {
			intents[t] = true
		}
		var sets []string
		for _, a := range authoritativeSets {
			if slices.ContainsFunc(a.intents, func(in string) bool { return intents[in] }) {
				sets = slices.Clone(a.sets)
				break
			}
		}
		if sets != nil {
			q := plan.Query
			if exact != "" {
				q = exact
			}
			specs = append(specs, pass{id: PassAuthoritative, query: q, purpose: "prefer durable facts and current-state sources", weight: passWeights[PassAuthoritative], sourceSets: sets, reason: "final-state question without durable evidence"})
		}
	}
	return specs
}

func ms(d time.Duration) float64 { return math.Round(float64(d.Microseconds())/10) / 100 }

func status(err error) string {
	if err == nil {
		return "ready"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	return "error"
}

func intPtr(n int) *int { return &n }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
