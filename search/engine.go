package search

import (
	"context"
	"errors"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/index/generation"
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
	// Now is the clock for recency; nil uses time.Now.
	Now func() time.Time
}

// ConfigFor is the engine configuration Nova's retrieval settings ask for.
func ConfigFor(r config.Retrieval) Config {
	return Config{HalfLifeDays: r.RecencyHalfLifeDays, Dense: r.DenseChannel == "on"}
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
// embedder of its vector space. It is immutable.
type Snapshot struct {
	Gen *generation.Generation
	// Query embeds queries into the generation's vector space; nil turns
	// the dense channel off for this snapshot.
	Query embedding.Embedder
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
	if cfg.HalfLifeDays <= 0 {
		cfg.HalfLifeDays = 7
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

// scored is one candidate of a pass.
type scored struct {
	doc        int
	score      float64
	components map[string]float64
	passes     []string
	bestPass   string
}

// query carries the per-search state.
type query struct {
	req      api.SearchRequest
	plan     Plan
	snap     *Snapshot
	accept   func(int) bool
	views    map[int]textView
	now      time.Time
	depth    int
	deadline time.Time
}

func (q *query) view(e *Engine, doc int) textView {
	if v, ok := q.views[doc]; ok {
		return v
	}
	c := q.snap.Gen.Chunk(doc)
	v := newTextView(e.analyzer, c.Title+"\n"+c.Text)
	q.views[doc] = v
	return v
}

// Search answers req against snap within the context's deadline. It
// returns the full envelope; the caller adds workerTelemetry, facadeBudget
// and externalAgentContract.
func (e *Engine) Search(ctx context.Context, snap *Snapshot, req api.SearchRequest) (*api.SearchResponse, error) {
	start := time.Now()
	if snap == nil || snap.Gen == nil {
		return api.Unavailable(req.Query, req.TopK, api.ReasonIndexNotLoaded), nil
	}
	plan := MakePlan(req.Query)
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = start.Add(api.MaxServerBudgetMs * time.Millisecond)
	}
	q := &query{
		req: req, plan: plan, snap: snap, views: map[int]textView{}, now: e.cfg.Now(),
		depth: min(max(4*req.TopK, 24), 80), deadline: deadline,
	}
	q.accept = snap.Gen.Filter(req.Filters, nil)
	filtered := 0
	if !req.Filters.Empty() {
		for i := range snap.Gen.Len() {
			if snap.Gen.Live(i) && !q.accept(i) {
				filtered++
			}
		}
	}

	ctl := controller{}
	dense := e.cfg.Dense && snap.Query != nil
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
		fused := e.fuse(order, runs)
		final, _ := dedupe(snap.Gen, fused)
		qual := e.gate(q, final[:min(len(final), req.TopK)])
		ctl.passTelemetry = append(ctl.passTelemetry, api.PassTelemetry{ID: p.id, ElapsedMs: ms(time.Since(t0)), CandidateCount: len(res), QualityStatus: qual.Status})
		ctl.passReports = append(ctl.passReports, api.PassReport{ID: p.id, Query: p.query, CandidateCount: intPtr(len(res)), Returned: intPtr(min(len(res), q.depth)), SourceSets: nonNil(p.sourceSets), Purpose: p.purpose, Reason: p.reason})
		ctl.fused, ctl.quality = fused, qual
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

	// Final list: fused across passes, deduplicated, cut to topK.
	deduped, report := dedupe(snap.Gen, ctl.fused)
	results := deduped
	if len(results) > req.TopK {
		results = results[:req.TopK]
	}
	qual := e.gate(q, results)
	resp := e.envelope(q, results, qual, report, filtered)
	resp.RetrievalController = ctl.report(q, qual, len(deduped), len(results), time.Since(start), snap.Gen, channels)
	resp.TotalIndexed = snap.Gen.Count()
	resp.Generation = snap.Gen.Meta.RunID
	return resp, nil
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
		var sets []string
		intents := map[string]bool{}
		for _, t := range append(slices.Clone(plan.Intents), plan.PreferredTags...) {
			intents[t] = true
		}
		switch {
		case intents["task"]:
			sets = []string{"task-board-snapshot", "technical-report-task-events", "diary-markdown-sections", "nova-task-work-graph-events"}
		case intents["config"] || intents["migration"] || intents["lesson"] || intents["decision"]:
			sets = []string{"lessons", "notes", "foundation-period-projections", "technical-report-task-events", "diary-markdown-sections"}
		}
		if sets != nil {
			sort.Strings(sets)
			q := plan.Query
			if exact != "" {
				q = exact
			}
			specs = append(specs, pass{id: PassAuthoritative, query: q, purpose: "prefer durable facts and current-state sources", weight: passWeights[PassAuthoritative], sourceSets: sets, reason: "final-state question without durable evidence"})
		}
	}
	return specs
}

// runPass retrieves candidates from both channels, fuses their normalised
// scores and applies the evidence adjustments.
func (e *Engine) runPass(ctx context.Context, q *query, p pass, qvec []float32, dense bool) ([]scored, error) {
	g := q.snap.Gen
	accept := q.accept
	if len(p.sourceSets) > 0 {
		accept = g.Filter(q.req.Filters, p.sourceSets)
	}
	pool := max(q.depth*2, 60)
	terms := e.analyzer.Terms(p.query)
	lexHits := g.SearchText(terms, pool, accept)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cands := map[int]*scored{}
	var docs []int
	add := func(d int) *scored {
		if s, ok := cands[d]; ok {
			return s
		}
		s := &scored{doc: d, components: map[string]float64{}}
		cands[d] = s
		docs = append(docs, d)
		return s
	}
	for _, h := range lexHits {
		add(h.Doc).components["bm25"] = h.Score
	}
	for _, h := range g.SearchContext(terms, pool/2, accept) {
		add(h.Doc).components["bm25Context"] = h.Score
	}
	if isZero(qvec) {
		// No word of the query is in the embedder's vocabulary: every
		// cosine would be 0, so the scan would only cost time.
		qvec = nil
	}
	if dense && qvec != nil {
		hits, err := g.SearchVectors(qvec, pool, accept)
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			add(h.Doc).components["dense"] = float64(h.Score)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Fill in the channel that did not find a candidate.
	var needLex, needCtx []int
	for _, d := range docs {
		s := cands[d]
		if _, ok := s.components["bm25"]; !ok {
			needLex = append(needLex, d)
		}
		if _, ok := s.components["bm25Context"]; !ok {
			needCtx = append(needCtx, d)
		}
		if _, ok := s.components["dense"]; !ok && dense && qvec != nil {
			s.components["dense"] = float64(g.Dot(qvec, d))
		}
	}
	for i, v := range g.ScoreText(terms, needLex) {
		cands[needLex[i]].components["bm25"] = v
	}
	for i, v := range g.ScoreContext(terms, needCtx) {
		cands[needCtx[i]].components["bm25Context"] = v
	}
	maxBM := 0.0
	for _, s := range cands {
		s.components["bm25Fields"] = s.components["bm25"] + e.cfg.ContextWeight*s.components["bm25Context"]
		maxBM = math.Max(maxBM, s.components["bm25Fields"])
	}
	alpha := e.cfg.LexicalWeight
	if !dense || qvec == nil {
		alpha = 1
	}
	out := make([]scored, 0, len(cands))
	for _, d := range docs {
		s := cands[d]
		c := s.components
		lex := 0.0
		if maxBM > 0 {
			lex = c["bm25Fields"] / maxBM
		}
		c["lexical"] = lex
		c["dense"] = math.Max(0, c["dense"])
		if lex == 0 && c["dense"] < minDenseOnly {
			// Neither a shared term nor real semantic similarity: noise,
			// not evidence. Nothing is better than a ranked list of it.
			continue
		}
		fused := alpha*lex + (1-alpha)*c["dense"]
		c["fused"] = fused
		s.score = fused * e.metadataFactor(q, g.Chunk(d), c)
		out = append(out, *s)
	}
	sortScored(out)
	// Text-based adjustments only for the head of the list: they read the
	// chunk text, which is the expensive part.
	head := min(len(out), q.depth*2)
	for i := 0; i < head; i++ {
		s := &out[i]
		s.score *= e.textFactor(q, s.doc, s.components)
	}
	out = out[:head]
	sortScored(out)
	for i := range out {
		out[i].components["passWeight"] = p.weight
		out[i].passes = []string{p.id}
		out[i].bestPass = p.id
		out[i].components["passScore"] = out[i].score
	}
	return out, nil
}

// metadataFactor applies recency, intent, authority and governance.
func (e *Engine) metadataFactor(q *query, c *memory.Chunk, comp map[string]float64) float64 {
	recency := 0.5
	if t, err := time.Parse("2006-01-02", c.Date); err == nil {
		age := math.Max(0, q.now.Sub(t).Hours()/24)
		recency = math.Exp(-math.Ln2 * age / e.cfg.HalfLifeDays)
	}
	recencyFactor := 1 + 0.06*recency
	if q.plan.RecencyBias == "strong" {
		recencyFactor = 0.35 + 0.65*recency
	}
	intent := 1.0
	if !(len(q.plan.PreferredTags) == 1 && q.plan.PreferredTags[0] == "general") {
		if slices.ContainsFunc(c.Tags, func(t string) bool { return slices.Contains(q.plan.PreferredTags, t) }) {
			intent *= 1.08
		}
		if slices.Contains(q.plan.PreferredTags, c.WorkType) {
			intent *= 1.05
		}
	}
	authority := memory.EvidenceAuthority(c.Governance)
	weight := c.Governance.RetrievalWeight
	if weight <= 0 {
		weight = 1
	}
	comp["recency"] = recency
	comp["recencyFactor"] = recencyFactor
	comp["intentBoost"] = intent
	comp["evidenceAuthority"] = authority
	comp["governanceWeight"] = weight
	comp["provenanceScore"] = c.Governance.ProvenanceScore
	comp["authorityRank"] = float64(c.Governance.AuthorityRank)
	comp["layerBoost"] = 1
	return recencyFactor * intent * (1 + 0.04*authority) * weight
}

// textFactor applies exact-entity coverage and meta-discussion.
func (e *Engine) textFactor(q *query, doc int, comp map[string]float64) float64 {
	c := q.snap.Gen.Chunk(doc)
	v := q.view(e, doc)
	var retrieval *textView
	citable, covered := 0, 0
	for _, t := range q.plan.KeyTerms {
		if v.covers(e.analyzer, t) {
			citable++
			covered++
			continue
		}
		if retrieval == nil {
			ctx, _ := q.snap.Gen.Context(doc)
			rv := newTextView(e.analyzer, ctx+" "+c.Project+" "+c.Agent+" "+c.SourceID+" "+c.SourcePath+" "+strings.Join(c.Tags, " "))
			retrieval = &rv
		}
		if retrieval.covers(e.analyzer, t) {
			covered++
		}
	}
	anchors := 0
	for _, a := range q.plan.Anchors {
		if v.covers(e.analyzer, a) {
			anchors++
		}
	}
	n := len(q.plan.KeyTerms)
	comp["keyword"] = ratio(citable, n)
	comp["citableExactCoverage"] = ratio(citable, n)
	comp["retrievalExactCoverage"] = ratio(covered, n)
	exact := ratio(citable, n)
	factor := 1.0
	if len(q.plan.Anchors) > 0 {
		exact = ratio(anchors, len(q.plan.Anchors))
		// Rare identifiers, numbers and quoted phrases are what BM25 and
		// vectors blur; evidence that cites them is worth more.
		factor *= 1 + 0.3*exact
	}
	comp["exactCoverage"] = exact
	meta := 0.0
	if !q.plan.Meta {
		meta = metaScore(v)
	}
	comp["metaDiscussion"] = meta
	factor *= 1 - 0.45*meta
	comp["subQueryMatch"] = 0
	comp["subQueryBoost"] = 1
	return factor
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func sortScored(s []scored) {
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].score != s[j].score {
			return s[i].score > s[j].score
		}
		return s[i].doc < s[j].doc
	})
}

// fuse combines the passes that ran: each document keeps its best
// weighted pass score (passes are scored on one calibrated scale), scaled
// by how much of the executed pass weight agreed on it. One pass: the
// baseline unchanged.
func (e *Engine) fuse(order []string, runs map[string][]scored) []scored {
	if len(order) == 1 {
		return slices.Clone(runs[order[0]])
	}
	total := 0.0
	for _, id := range order {
		total += passWeights[id]
	}
	merged := map[int]*scored{}
	support := map[int]float64{}
	var docs []int
	for _, id := range order {
		w := passWeights[id]
		for _, s := range runs[id] {
			support[s.doc] += w
			m, ok := merged[s.doc]
			if !ok {
				cp := s
				cp.components = maps(s.components)
				cp.passes = []string{id}
				cp.score = w * s.score
				merged[s.doc] = &cp
				docs = append(docs, s.doc)
				continue
			}
			m.passes = append(m.passes, id)
			if w*s.score > m.score {
				passes := m.passes
				*m = s
				m.components = maps(s.components)
				m.passes = passes
				m.score = w * s.score
			}
		}
	}
	out := make([]scored, 0, len(docs))
	for _, d := range docs {
		m := merged[d]
		share := support[d] / total
		m.components["passSupport"] = share
		m.score *= 0.85 + 0.15*share
		sort.Strings(m.passes)
		out = append(out, *m)
	}
	sortScored(out)
	return out
}

func maps(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m)+4)
	for k, v := range m {
		out[k] = v
	}
	return out
}

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
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
