package search

import (
	"cmp"
	"context"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/parallel"
	"github.com/nova-recall/nova/vector"
)

// concurrentPassMin is the generation size from which a pass spreads over
// goroutines. Below it the dense scan is one span anyway (vector's
// scanSpan is 16 384), and on the 2-core machine of BENCHMARKS.md a 10k
// pass run on one goroutine took 5-23% less time and a fifth less CPU:
// waking another core cost more than the share of work it took.
const concurrentPassMin = 32_768

// runPass retrieves candidates from both channels, fuses their normalised
// scores and applies the evidence adjustments.
func (e *Engine) runPass(ctx context.Context, q *query, p pass, qvec []float32, dense bool) ([]scored, error) {
	g := q.snap.Gen
	accept := q.accept
	if len(p.sourceSets) > 0 {
		accept, _ = q.hardFilter(p.sourceSets)
	}
	pool := q.pool()
	if vector.IsZero(qvec) {
		// No word of the query is in the embedder's vocabulary: every
		// cosine would be 0, so the scan would only cost time.
		qvec = nil
	}
	// The dense channel runs beside the lexical one, and the candidates
	// are weighed on every core: a query's wall time is then the longer of
	// the two channels, not their sum. A small generation's pass runs on
	// one goroutine instead (concurrentPassMin).
	var (
		denseHits []vector.Hit
		denseErr  error
		denseDone sync.WaitGroup
		// scanning: the dense channel runs on its own goroutine; finished
		// says it has returned.
		scanning bool
		finished atomic.Bool
	)
	small := g.Len() < e.cfg.ConcurrentPassMin
	span := func(minSpan int) int {
		if small {
			return math.MaxInt // one span: the calling goroutine
		}
		return minSpan
	}
	switch {
	case !dense || qvec == nil:
	case small:
		denseHits, denseErr = g.SearchVectors(qvec, pool, accept)
	default:
		scanning = true
		denseDone.Go(func() {
			denseHits, denseErr = g.SearchVectors(qvec, pool, accept)
			finished.Store(true)
		})
	}
	related := q.related
	if p.query != q.plan.Query && !q.dateLed {
		related = e.relatedWords(p.query, q.mentioned)
	}
	words := e.analyzer.Terms(p.query)
	words = e.characterTerms(g, p.query, words)
	if q.dateLed {
		// A date-led query's numbers are its days ("14 July"), found by
		// the memories' dates: in their words they match any "note 14";
		// and its "work" or "happened" match a heading "What happened",
		// not what was done; the characters of 昨天 and 发生 any day's
		// 天 and 生.
		words = slices.DeleteFunc(words, func(w string) bool { return allDigits(w) || activityWords[w] || lexical.IsCharTerm(w) })
	}
	terms := g.ResolveRelated(words, related.terms...)
	lexHits := g.SearchText(terms, pool, accept)
	if err := ctx.Err(); err != nil {
		denseDone.Wait()
		return nil, err
	}
	// cands is made as large as the channels can fill it (the dense one
	// returns at most pool): growing it copied every candidate so far.
	idx := make(map[int]int, 2*pool)
	cands := q.list(len(lexHits) + pool/2 + pool + len(q.named) + len(q.dayDocs))
	add := func(d int) *scored {
		if i, ok := idx[d]; ok {
			return &cands[i]
		}
		idx[d] = len(cands)
		cands = append(cands, scored{doc: d})
		return &cands[len(cands)-1]
	}
	for _, h := range lexHits {
		s := add(h.Doc)
		s.comp.bm25 = h.Score
		s.comp.has |= hasBM25
	}
	for _, h := range g.SearchContext(terms, pool/2, accept) {
		s := add(h.Doc)
		s.comp.bm25Context = h.Score
		s.comp.has |= hasContext
	}
	// The dense scan is the longer channel of a large generation: until it
	// returns, this goroutine decodes the lexical candidates' metadata
	// (every one of them is weighed below, and decoding is most of that)
	// instead of waiting. Once it returns, the rest are decoded on every
	// core as before.
	for i := 0; scanning && i < len(cands) && !finished.Load(); i++ {
		q.meta(cands[i].doc)
	}
	denseDone.Wait()
	if denseErr != nil {
		return nil, denseErr
	}
	for _, h := range denseHits {
		s := add(h.Doc)
		s.comp.dense = float64(h.Score)
		s.comp.has |= hasDense
	}
	for _, d := range slices.Sorted(maps.Keys(q.named)) {
		if g.Live(d) && (accept == nil || accept(d)) {
			s := add(d)
			s.comp.idMatch = idMatchBoost
			s.comp.has |= hasIDMatch
		}
	}
	for _, d := range q.dayDocs {
		if accept == nil || accept(d.doc) {
			s := add(d.doc)
			s.comp.dateMatch = d.says
			s.comp.has |= hasDateMatch
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Fill in the channel that did not find a candidate.
	var needLex, needCtx []int
	var denseScore func(doc int) float32
	if dense && qvec != nil {
		denseScore = g.DenseScorer(qvec)
	}
	for i := range cands {
		s := &cands[i]
		if s.comp.has&hasBM25 == 0 {
			needLex = append(needLex, i)
		}
		if s.comp.has&hasContext == 0 {
			needCtx = append(needCtx, i)
		}
		if s.comp.has&hasDense == 0 && denseScore != nil {
			s.comp.dense = float64(denseScore(s.doc))
			s.comp.has |= hasDense
		}
	}
	if len(needLex) > 0 {
		for i, v := range g.ScoreText(terms, docsOf(cands, needLex)) {
			cands[needLex[i]].comp.bm25 = v
		}
	}
	if len(needCtx) > 0 {
		for i, v := range g.ScoreContext(terms, docsOf(cands, needCtx)) {
			cands[needCtx[i]].comp.bm25Context = v
		}
	}
	maxBM := 0.0
	for i := range cands {
		c := &cands[i].comp
		c.bm25Fields = c.bm25 + e.cfg.ContextWeight*c.bm25Context
		maxBM = math.Max(maxBM, c.bm25Fields)
	}
	alpha := e.cfg.LexicalWeight
	if !dense || qvec == nil {
		alpha = 1
	}
	// The candidates that stay are moved to the front of cands rather
	// than copied to a new list.
	out := cands[:0]
	for i := range cands {
		s := &cands[i]
		c := &s.comp
		lex := 0.0
		if maxBM > 0 {
			lex = c.bm25Fields / maxBM
		}
		if c.has&hasDateMatch != 0 {
			// The query asks for what happened on the memory's day and
			// names nothing else: its day is as full a match as words,
			// for the memory that says the most of that day.
			lex = math.Max(lex, c.dateMatch)
		}
		c.lexical = lex
		c.dense = math.Max(0, c.dense)
		switch {
		case c.has&hasIDMatch != 0:
			// The query names this record: whatever its text shares with
			// the query, it is as close a match as there is.
			c.lexical, c.fused = 1, 1
			out = append(out, *s)
			continue
		case lex == 0 && c.dense < minDenseOnly:
			// Neither a shared term nor real semantic similarity: noise,
			// not evidence. Nothing is better than a ranked list of it.
			continue
		}
		c.fused = alpha*lex + (1-alpha)*c.dense
		out = append(out, *s)
	}
	// The metadata factors need each candidate's metadata (query.meta):
	// decoding them is most of this step, so it runs on every core.
	parallel.For(len(out), span(8), func(i int) {
		s := &out[i]
		ch, asks := q.meta(s.doc)
		s.dialogue = ch.SessionID != ""
		s.score = s.comp.fused * e.metadataFactor(q, ch, asks, &s.comp)
		if s.comp.has&hasIDMatch != 0 {
			s.score *= s.comp.idMatch
		}
	})
	sortScored(out, q.snap.Gen.IDLess)
	// Text-based adjustments only for the head of the list: they read the
	// chunk text, which is the expensive part, so they run on every core.
	head := min(len(out), 2*q.depth)
	weighed := head
	if !q.textLifts() {
		weighed = min(head, q.depth)
	}
	parallel.For(weighed, span(4), func(i int) {
		s := &out[i]
		s.score *= e.textFactor(q, s.doc, &s.comp)
	})
	out = out[:head]
	sortScored(out, q.snap.Gen.IDLess)
	// A factor that only lowers a score may drop a weighed candidate below
	// one that was not weighed: that one is weighed in turn, until each of
	// the first weighed candidates is, and they are the ones weighing
	// every candidate gives.
	for lifted := true; lifted; {
		lifted = false
		for i := range out[:weighed] {
			if s := &out[i]; s.comp.has&hasText == 0 {
				s.score *= e.textFactor(q, s.doc, &s.comp)
				lifted = true
			}
		}
		if lifted {
			sortScored(out, q.snap.Gen.IDLess)
		}
	}
	// One list of this pass for all its candidates, not one each: it is
	// never changed in place (fusion and propagation make their own), and
	// at capacity 1 an append copies it.
	passes := []string{p.id}[:1:1]
	for i := range out {
		out[i].comp.passWeight = p.weight
		out[i].passes = passes
		out[i].bestPass = p.id
		out[i].comp.passScore = out[i].score
	}
	return out, nil
}

// textLifts reports whether textFactor may lift a candidate: only a
// factor above 1 (an anchor the text cites, the answer type the question
// asks for) can, and a question's "when" then found "sunday the 14th of
// june" at rank 11 from beyond 120. Without either the text can only
// lower a score: runPass weighs the first depth candidates, and those
// below only as far as a lowered one lets them rise into the first depth,
// which gives those the order weighing all gives; weighing twice the depth
// cost a tenth of a 10 000-record keyword search's time and a sixth of a
// Chinese one's (BENCHMARKS.md). The rest stay in the list, unweighed,
// for dedupe to reach past duplicates.
func (q *query) textLifts() bool {
	return len(q.anchors) > 0 || q.answerType != ""
}

// pool is how many candidates each channel of a pass retrieves.
func (q *query) pool() int { return max(q.depth*2, 60) }

// docsOf returns the documents of the candidates at positions at.
func docsOf(cands []scored, at []int) []int {
	docs := make([]int, len(at))
	for i, j := range at {
		docs[i] = cands[j].doc
	}
	return docs
}

// metadataFactor applies recency, intent, authority and governance. c
// may be decoded for scoring alone (query.meta): it reads only what
// generation.Generation.ChunkMeta decodes, and asks says whether the text
// ends with a question mark.
func (e *Engine) metadataFactor(q *query, c *memory.Chunk, asks bool, comp *components) float64 {
	recency := 0.5
	if t, ok := e.dayStart(c); ok {
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
	comp.recency = recency
	comp.recencyFactor = recencyFactor
	comp.intentBoost = intent
	comp.evidenceAuthority = authority
	comp.governanceWeight = weight
	comp.provenanceScore = c.Governance.ProvenanceScore
	comp.authorityRank = float64(c.Governance.AuthorityRank)
	comp.layerBoost = 1
	return recencyFactor * intent * (1 + 0.04*authority) * weight * e.priors(q, c, asks, comp)
}

// afterFusion applies the levers that look across candidates: neighbour
// propagation, answers to follow-up questions, then newest-state-wins.
// own says whether fused is the list fuse made for this call alone, which
// the levers may change and extend in place; otherwise (one pass: that
// pass's own list, which later passes fuse again) a lever that changes it
// works on a copy. The list returned is only read.
func (e *Engine) afterFusion(q *query, fused []scored, own bool) []scored {
	if e.on(LeverPropagation) {
		fused, own = e.propagate(q, fused, own)
	}
	if e.on(LeverFollowUps) {
		fused, own = e.followUpAnswers(q, fused, own)
	}
	if e.on(LeverSupersession) {
		fused = e.supersede(q, fused, own)
	}
	return fused
}

// textFactor applies exact-entity coverage, meta-discussion and the
// answer-type prior.
func (e *Engine) textFactor(q *query, doc int, comp *components) float64 {
	c := q.chunk(doc)
	v := q.view(e, doc)
	citable := 0
	for k := range q.plan.KeyTerms {
		if q.coversKey(v, k) {
			citable++
		}
	}
	anchors := 0
	named, isNamed := q.named[doc]
	for _, a := range q.anchors {
		if v.covers(a) || (isNamed && a.text == strings.ToLower(named)) {
			anchors++
		}
	}
	n := len(q.plan.KeyTerms)
	comp.has |= hasText
	comp.keyword = ratio(citable, n)
	comp.citableExactCoverage = ratio(citable, n)
	// retrievalExactCoverage only describes a result: it is filled in
	// for the results returned (retrievalCoverage), not for every
	// candidate, as it needs the neighbours' text.
	exact := ratio(citable, n)
	factor := 1.0
	if len(q.plan.Anchors) > 0 {
		exact = ratio(anchors, len(q.plan.Anchors))
		// Rare identifiers, numbers and quoted phrases are what BM25 and
		// vectors blur; evidence that cites them is worth more.
		factor *= 1 + 0.3*exact
	}
	comp.exactCoverage = exact
	meta := 0.0
	if !q.plan.Meta {
		meta = v.meta
	}
	comp.metaDiscussion = meta
	factor *= 1 - 0.45*meta
	factor *= q.answerPrior(doc, c, v, comp)
	comp.subQueryMatch = 0
	comp.subQueryBoost = 1
	return factor
}

// describeText fills in the text components of a candidate that
// textFactor did not score, without the factors that only scoring applies
// (the answer-type prior).
func (e *Engine) describeText(q *query, doc int, comp *components) {
	t := *comp
	e.textFactor(q, doc, &t)
	comp.keyword, comp.citableExactCoverage, comp.exactCoverage = t.keyword, t.citableExactCoverage, t.exactCoverage
	comp.metaDiscussion, comp.subQueryMatch, comp.subQueryBoost = t.metaDiscussion, t.subQueryMatch, t.subQueryBoost
	comp.has |= hasText
}

// retrievalCoverage is the share of the key terms that doc's own text or
// what retrieval saw of it (its neighbouring context, project, agent,
// source and tags) holds.
func (e *Engine) retrievalCoverage(q *query, doc int) float64 {
	c := q.chunk(doc)
	v := q.view(e, doc)
	var retrieval *textView
	covered := 0
	for k, t := range q.keys {
		if q.coversKey(v, k) {
			covered++
			continue
		}
		if retrieval == nil {
			ctx, _ := q.snap.Gen.Context(doc)
			rv := newTextView(e.analyzer, ctx+" "+c.Project+" "+c.Agent+" "+c.ID+" "+c.SourceID+" "+c.SourcePath+" "+strings.Join(c.Tags, " "))
			retrieval = &rv
		}
		if retrieval.covers(t) {
			covered++
		}
	}
	return ratio(covered, len(q.plan.KeyTerms))
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// sortScored orders candidates by score, best first, and then by chunk
// id (idLess, the generation's IDLess): the order of a document's
// position would differ between a delta segment and a rebuild of the same
// sources. A list holds each document once, so that order is total and
// an unstable sort gives the stable one's result. The sort runs over small
// keys and each candidate (over 300 bytes of score components) is then
// moved once into its place: sorting the candidates themselves swapped
// them many times, a stable sort's merging more still (a twentieth of
// novad's CPU at 10 000 chunks).
func sortScored(s []scored, idLess func(a, b int) bool) {
	if len(s) < 2 {
		return
	}
	keys := make([]scoredKey, len(s))
	for i := range s {
		keys[i] = scoredKey{score: s[i].score, doc: s[i].doc, at: i}
	}
	slices.SortFunc(keys, func(a, b scoredKey) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		switch {
		case a.doc == b.doc:
			return 0
		case idLess(a.doc, b.doc):
			return -1
		}
		return 1
	})
	// Place s[keys[i].at] at i, one cycle of the permutation at a time;
	// a placed position is marked by pointing its key at itself.
	for i := range keys {
		if keys[i].at == i {
			continue
		}
		tmp := s[i]
		j := i
		for {
			k := keys[j].at
			keys[j].at = j
			if k == i {
				s[j] = tmp
				break
			}
			s[j] = s[k]
			j = k
		}
	}
}

// scoredKey is what sortScored orders a candidate by, and where it was.
type scoredKey struct {
	score   float64
	doc, at int
}

// fuse combines the passes that ran: each document keeps its best
// weighted pass score (passes are scored on one calibrated scale), scaled
// by how much of the executed pass weight agreed on it. One pass: the
// baseline unchanged, and not copied (own is false: the list is the
// pass's, the caller must not change it); copying every candidate was a
// twentieth of what a search allocated, and the levers after fusion copy
// it anyway when they change it.
func (e *Engine) fuse(q *query, order []string, runs map[string][]scored) (fused []scored, own bool) {
	if len(order) == 1 {
		return runs[order[0]], false
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
				m.passes = passes
				m.score = w * s.score
			}
		}
	}
	out := q.list(len(docs))
	for _, d := range docs {
		m := merged[d]
		share := support[d] / total
		m.comp.passSupport = share
		m.comp.has |= hasSupport
		m.score *= 0.85 + 0.15*share
		sort.Strings(m.passes)
		out = append(out, *m)
	}
	sortScored(out, q.snap.Gen.IDLess)
	return out, true
}
