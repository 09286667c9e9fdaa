package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/nova-recall/nova/api"
)

// Case is one recall case: a query, optional filters, and what a good
// answer contains. Only the case's own filters are sent; expectations are
// never turned into filters (upstream did, which made its recall circular).
type Case struct {
	ID         string         `json:"id"`
	Query      string         `json:"query"`
	TopK       int            `json:"topK,omitempty"`
	Date       string         `json:"date,omitempty"`
	DateRange  *api.DateRange `json:"dateRange,omitempty"`
	Project    string         `json:"project,omitempty"`
	Agent      string         `json:"agent,omitempty"`
	Role       string         `json:"role,omitempty"`
	Tags       []string       `json:"tags,omitempty"`
	SourceSets []string       `json:"sourceSets,omitempty"`
	Lifecycle  []string       `json:"lifecycle,omitempty"`
	WorkType   []string       `json:"workType,omitempty"`
	Expect     Expect         `json:"expect"`
}

// Expect is what a case checks. A threshold is active only when set.
type Expect struct {
	// RelevantIDs match a result's provenance.sourceId or its id.
	RelevantIDs []string `json:"relevantIds,omitempty"`
	// RelevantEvidence describes relevant results by content.
	RelevantEvidence []Evidence `json:"relevantEvidence,omitempty"`
	// EvidenceTerms must appear in the evidence (results, citations,
	// synthesis, events).
	EvidenceTerms []string     `json:"evidenceTerms,omitempty"`
	Aggregation   *Aggregation `json:"aggregation,omitempty"`

	MinRecallAtK              *float64 `json:"minRecallAtK,omitempty"`
	MinCitationHitRate        *float64 `json:"minCitationHitRate,omitempty"`
	MinEvidenceCoverage       *float64 `json:"minEvidenceCoverage,omitempty"`
	MaxDuplicateRate          *float64 `json:"maxDuplicateRate,omitempty"`
	MinAggregationCorrectness *float64 `json:"minAggregationCorrectness,omitempty"`
	MinResults                *int     `json:"minResults,omitempty"`
}

// Evidence describes relevant results: every term must occur in the
// result (case-insensitive), and its metadata must be in the given sets.
type Evidence struct {
	Terms      []string `json:"terms,omitempty"`
	SourceSets []string `json:"sourceSets,omitempty"`
	Lifecycles []string `json:"lifecycles,omitempty"`
	WorkTypes  []string `json:"workTypes,omitempty"`
	Projects   []string `json:"projects,omitempty"`
}

// Aggregation checks event aggregation.
type Aggregation struct {
	ExpectedEventCount *int     `json:"expectedEventCount,omitempty"`
	CountTerms         []string `json:"countTerms,omitempty"`
	RequiredEventIDs   []string `json:"requiredEventIds,omitempty"`
	RequiredTerms      []string `json:"requiredTerms,omitempty"`
}

// ReadCases reads a JSONL file of cases; a bad line is an error naming it.
func ReadCases(path string) ([]Case, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Case
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	line := 0
	ids := map[string]bool{}
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "//") {
			continue
		}
		if strings.HasPrefix(text, "[") {
			// A list; a LoCoMo dataset, the other kind of eval file,
			// when it names a sample_id or opens alone on line 1 as a
			// pretty-printed one does (a case "cut short" by the
			// decoder's reckoning).
			hint := ""
			if text == "[" || strings.Contains(text, `"sample_id"`) {
				hint = "; a LoCoMo dataset is novactl eval locomo PATH's"
			}
			return nil, fmt.Errorf("%s:%d: a case is a JSON object, one per line (got an array%s)", path, line, hint)
		}
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		var c Case
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("%s:%d: %s", path, line, caseError(err))
		}
		if dec.More() {
			return nil, fmt.Errorf("%s:%d: more than one JSON value on the line (JSONL: one case per line)", path, line)
		}
		if c.ID == "" || strings.TrimSpace(c.Query) == "" {
			return nil, fmt.Errorf("%s:%d: id and query are required", path, line)
		}
		if ids[c.ID] {
			return nil, fmt.Errorf("%s:%d: duplicate id %q", path, line, c.ID)
		}
		// The facade would clamp it, and the case be scored at fewer
		// results than it names.
		if c.TopK != 0 && (c.TopK < api.MinTopK || c.TopK > api.MaxTopK) {
			return nil, fmt.Errorf("%s:%d: topK must be %d to %d (got %d)", path, line, api.MinTopK, api.MaxTopK, c.TopK)
		}
		// Each expected id is satisfied once: a repeated one would be
		// satisfied again by another chunk of the same record.
		for i, id := range c.Expect.RelevantIDs {
			if slices.Contains(c.Expect.RelevantIDs[:i], id) {
				return nil, fmt.Errorf("%s:%d: expect.relevantIds lists %q twice", path, line, id)
			}
		}
		ids[c.ID] = true
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", path, line+1, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no cases", path)
	}
	return out, nil
}

// caseError says what is wrong with a line that does not decode as a
// Case in the terms of the file (its JSON fields, what each takes), not
// of encoding/json (Go types, "unexpected EOF"): the person who reads it
// wrote JSON, not Go.
func caseError(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		// Each line is decoded alone, so a case written over several
		// lines ends here.
		return "the case ends before its JSON object closes (one case per line)"
	case errors.As(err, &syntax):
		return "not JSON: " + syntax.Error()
	case errors.As(err, &typ) && typ.Field == "":
		return "a case is a JSON object, one per line (got " + jsonKind(typ.Value) + ")"
	case errors.As(err, &typ):
		return typ.Field + " must be " + goKind(typ.Type) + " (got " + jsonKind(typ.Value) + ")"
	}
	// DisallowUnknownFields' error has no type of its own: only its
	// prefix is Go's.
	return strings.TrimPrefix(err.Error(), "json: ")
}

// jsonKind names a JSON value kind as UnmarshalTypeError.Value spells it
// ("array", "string", "number 1.5") with its article.
func jsonKind(v string) string {
	kind, _, _ := strings.Cut(v, " ")
	switch kind {
	case "array", "object":
		return "an " + kind
	case "bool":
		return "true or false"
	case "":
		return "a value"
	}
	return "a " + kind
}

// goKind names what a JSON field of Case takes, from its Go type.
func goKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "a list"
	case reflect.Pointer:
		return goKind(t.Elem())
	}
	return "an object"
}

// CaseResult is one case's metrics and verdict.
type CaseResult struct {
	ID        string          `json:"id"`
	Query     string          `json:"query"`
	Passed    bool            `json:"passed"`
	Checks    map[string]bool `json:"checks"`
	Available bool            `json:"available"`
	Reason    string          `json:"reason,omitempty"`
	Results   int             `json:"results"`
	// Relevant is how many relevant results the case names (expected
	// ids and descriptors). At 0, RecallAtK, MRR, NDCG10 and
	// CitationHitRate are the protocol's placeholders (1, 1, 0, 1), not
	// measurements, and the run's means leave them out.
	Relevant int `json:"relevant"`
	// EvidenceTerms is how many evidence terms the case names; at 0,
	// EvidenceCoverage is 1, a placeholder the run's mean leaves out.
	EvidenceTerms          int     `json:"evidenceTerms"`
	RecallAtK              float64 `json:"recallAtK"`
	MRR                    float64 `json:"mrr"`
	NDCG10                 float64 `json:"ndcgAt10"`
	CitationHitRate        float64 `json:"citationHitRate"`
	EvidenceCoverage       float64 `json:"evidenceCoverage"`
	DuplicateRate          float64 `json:"duplicateRate"`
	AggregationCorrectness float64 `json:"aggregationCorrectness"`
	Quality                string  `json:"quality"`
	LatencyMs              float64 `json:"latencyMs"`
	TimedOut               bool    `json:"timedOut"`
	Top                    string  `json:"top,omitempty"`
}

// Summary aggregates a run.
type Summary struct {
	Status string `json:"status"` // passed or failed
	// Interrupted says the run was stopped (Ctrl-C) before every case
	// was asked: CaseCount and the figures cover the cases asked.
	Interrupted  bool         `json:"interrupted,omitempty"`
	CaseCount    int          `json:"caseCount"`
	PassedCount  int          `json:"passedCount"`
	FailedCount  int          `json:"failedCount"`
	PassRate     float64      `json:"passRate"`
	Metrics      RunMetrics   `json:"metrics"`
	Cases        []CaseResult `json:"cases"`
	ReadOnly     bool         `json:"readOnly"`
	CheckedAt    string       `json:"checkedAt"`
	QueriesPath  string       `json:"queriesPath"`
	FacadeTarget string       `json:"facade"`
}

// RunMetrics are means over cases and latency percentiles. Each mean is
// over the cases that measure it, counted beside it: a case that names
// nothing relevant has no recall to average, and its placeholder (1, or
// 0 when its search failed) would move the mean either way.
type RunMetrics struct {
	// RelevanceCases are the cases that name relevant results
	// (expect.relevantIds, relevantEvidence): RecallAtK, MRR, NDCG10 and
	// CitationHitRate are their means, 0 when there are none.
	RelevanceCases int `json:"relevanceCases"`
	// EvidenceCases are the cases with expect.evidenceTerms:
	// EvidenceCoverage is their mean, 0 when there are none.
	EvidenceCases int `json:"evidenceCases"`
	// AggregationCases are the cases with expect.aggregation:
	// AggregationCorrectness is their mean, 0 when there are none.
	AggregationCases int `json:"aggregationCases"`

	RecallAtK              float64 `json:"recallAtK"`
	MRR                    float64 `json:"mrr"`
	NDCG10                 float64 `json:"ndcgAt10"`
	CitationHitRate        float64 `json:"citationHitRate"`
	EvidenceCoverage       float64 `json:"evidenceCoverage"`
	DuplicateRate          float64 `json:"duplicateRate"`
	AggregationCorrectness float64 `json:"aggregationCorrectness"`
	LatencyP50Ms           float64 `json:"latencyP50Ms"`
	LatencyP95Ms           float64 `json:"latencyP95Ms"`
	TimeoutRate            float64 `json:"timeoutRate"`
}

// Searcher runs one search (the facade client in production).
type Searcher func(ctx context.Context, body api.SearchBody) (*api.SearchResponse, error)

// RunCases runs every case through search and scores it.
func RunCases(ctx context.Context, cases []Case, search Searcher, progress func(done, total int)) Summary {
	// Cases is a list even when none ran (an interruption before the
	// first): JSON readers range over it.
	s := Summary{Status: "passed", CaseCount: len(cases), ReadOnly: true, CheckedAt: time.Now().UTC().Format(time.RFC3339), Cases: []CaseResult{}}
	var lat []float64
	timeouts := 0
	for i, c := range cases {
		if ctx.Err() != nil {
			// Not asked: scoring them as failed searches would pull
			// every mean down with cases that were never measured.
			s.Interrupted, s.Status, s.CaseCount = true, "failed", i
			break
		}
		r := runCase(ctx, c, search)
		if ctx.Err() != nil && !r.Available {
			// Cut by the interruption: not a measurement either.
			s.Interrupted, s.Status, s.CaseCount = true, "failed", i
			break
		}
		s.Cases = append(s.Cases, r)
		lat = append(lat, r.LatencyMs)
		if r.TimedOut {
			timeouts++
		}
		if r.Passed {
			s.PassedCount++
		} else {
			s.FailedCount++
			s.Status = "failed"
		}
		m := &s.Metrics
		if r.Relevant > 0 {
			m.RelevanceCases++
			m.RecallAtK += r.RecallAtK
			m.MRR += r.MRR
			m.NDCG10 += r.NDCG10
			m.CitationHitRate += r.CitationHitRate
		}
		if r.EvidenceTerms > 0 {
			m.EvidenceCases++
			m.EvidenceCoverage += r.EvidenceCoverage
		}
		if c.Expect.Aggregation != nil {
			m.AggregationCases++
			m.AggregationCorrectness += r.AggregationCorrectness
		}
		m.DuplicateRate += r.DuplicateRate
		if progress != nil {
			progress(i+1, len(cases))
		}
	}
	n := float64(max(1, s.CaseCount))
	m := &s.Metrics
	mean := func(sum *float64, cases int) { *sum = scalar.Round(*sum/float64(max(1, cases)), 4) }
	for _, p := range []*float64{&m.RecallAtK, &m.MRR, &m.NDCG10, &m.CitationHitRate} {
		mean(p, m.RelevanceCases)
	}
	mean(&m.EvidenceCoverage, m.EvidenceCases)
	mean(&m.AggregationCorrectness, m.AggregationCases)
	mean(&m.DuplicateRate, s.CaseCount)
	m.LatencyP50Ms = scalar.Round(Percentile(lat, 0.5), 4)
	m.LatencyP95Ms = scalar.Round(Percentile(lat, 0.95), 4)
	m.TimeoutRate = scalar.Round(float64(timeouts)/n, 4)
	s.PassRate = scalar.Round(float64(s.PassedCount)/n, 4)
	return s
}

func runCase(ctx context.Context, c Case, search Searcher) CaseResult {
	r := CaseResult{ID: c.ID, Query: c.Query, Checks: map[string]bool{},
		Relevant: len(c.Expect.RelevantIDs) + len(c.Expect.RelevantEvidence), EvidenceTerms: len(c.Expect.EvidenceTerms)}
	topK := c.TopK
	if topK == 0 {
		topK = api.DefaultTopK
	}
	body := api.SearchBody{Query: c.Query, TopK: topK, Date: c.Date, DateRange: c.DateRange, Project: c.Project,
		Agent: c.Agent, Role: c.Role, Tags: c.Tags, SourceSets: c.SourceSets, Lifecycle: c.Lifecycle, WorkType: c.WorkType}
	t0 := time.Now()
	resp, err := search(ctx, body)
	r.LatencyMs = scalar.Round(float64(time.Since(t0).Microseconds())/1000, 4)
	if err != nil || resp == nil {
		r.Reason = "search failed"
		if err != nil {
			r.Reason = err.Error()
		}
		r.TimedOut = errors.Is(err, context.DeadlineExceeded) || strings.Contains(r.Reason, "timeout")
		r.Passed = false
		return r
	}
	r.Available = resp.Available
	if resp.Reason != nil {
		r.Reason = *resp.Reason
		r.TimedOut = strings.Contains(r.Reason, "timeout") || strings.Contains(r.Reason, "budget")
	}
	r.Results = len(resp.Results)
	r.Quality = resp.Quality.Status
	if len(resp.Results) > 0 {
		r.Top = resp.Results[0].ID
	}
	e := c.Expect

	// Relevance: by id, or by evidence descriptors. Each expected item
	// counts once, at the first result that satisfies it: the chunks of
	// one long relevant record are not several relevant results.
	ranked := make([]string, len(resp.Results))
	relevant := map[string]bool{}
	for i, w := range expectedAt(resp.Results, e) {
		ranked[i] = "result:" + resp.Results[i].ID
		if w >= 0 {
			ranked[i] = fmt.Sprintf("expected:%d", w)
			relevant[ranked[i]] = true
		}
	}
	wanted := r.Relevant
	if wanted > 0 {
		found := len(relevant)
		r.RecallAtK = scalar.Round(float64(found)/float64(wanted), 4)
		r.MRR = scalar.Round(MRR(ranked, relevant), 4)
		r.NDCG10 = scalar.Round(ndcgAt10(ranked, relevant, wanted), 4)
		var cited []api.Result
		for _, cit := range resp.CitationPack {
			for _, res := range resp.Results {
				if res.ID == cit.ResultID {
					cited = append(cited, res)
				}
			}
		}
		r.CitationHitRate = scalar.Round(float64(foundCount(cited, e))/float64(wanted), 4)
	} else {
		// The upstream protocol's values for a case that names nothing
		// relevant: recall, MRR and citations 1, nDCG 0 (its ideal DCG is 0).
		r.RecallAtK, r.MRR, r.NDCG10, r.CitationHitRate = 1, 1, 0, 1
	}

	text := evidenceText(resp)
	r.EvidenceCoverage = 1
	if len(e.EvidenceTerms) > 0 {
		hits := 0
		for _, t := range e.EvidenceTerms {
			if strings.Contains(text, strings.ToLower(t)) {
				hits++
			}
		}
		r.EvidenceCoverage = scalar.Round(float64(hits)/float64(len(e.EvidenceTerms)), 4)
	}
	keys := map[string]bool{}
	for _, res := range resp.Results {
		keys[resultKey(res)] = true
	}
	if len(resp.Results) > 0 {
		r.DuplicateRate = scalar.Round(float64(len(resp.Results)-len(keys))/float64(len(resp.Results)), 4)
	}
	r.AggregationCorrectness = aggregationScore(resp, e.Aggregation, text)

	check := func(name string, ok bool) { r.Checks[name] = ok }
	minResults := 1
	if e.MinResults != nil {
		minResults = *e.MinResults
	}
	check("minResults", len(resp.Results) >= minResults)
	if e.MinRecallAtK != nil || (wanted > 0 && e.MinRecallAtK == nil) {
		threshold := 1.0
		if e.MinRecallAtK != nil {
			threshold = *e.MinRecallAtK
		}
		check("recallAtK", r.RecallAtK >= threshold)
	}
	if e.MinCitationHitRate != nil {
		check("citationHit", r.CitationHitRate >= *e.MinCitationHitRate)
	}
	if e.MinEvidenceCoverage != nil {
		check("evidenceCoverage", r.EvidenceCoverage >= *e.MinEvidenceCoverage)
	}
	if e.MaxDuplicateRate != nil {
		check("duplicateRate", r.DuplicateRate <= *e.MaxDuplicateRate)
	}
	if e.MinAggregationCorrectness != nil {
		check("aggregationCorrectness", r.AggregationCorrectness >= *e.MinAggregationCorrectness)
	}
	r.Passed = r.Available
	for _, ok := range r.Checks {
		r.Passed = r.Passed && ok
	}
	return r
}

// expectedAt returns, for each result in rank order, the expected id or
// descriptor it is the first to satisfy (its index: ids, then
// descriptors), or -1.
func expectedAt(results []api.Result, e Expect) []int {
	out := make([]int, len(results))
	satisfied := map[int]bool{}
	for i, res := range results {
		out[i] = -1
		for w := range len(e.RelevantIDs) + len(e.RelevantEvidence) {
			if satisfied[w] {
				continue
			}
			if w < len(e.RelevantIDs) && matchesID(res, e.RelevantIDs[w:w+1]) ||
				w >= len(e.RelevantIDs) && matchesEvidence(res, e.RelevantEvidence[w-len(e.RelevantIDs)]) {
				satisfied[w] = true
				out[i] = w
				break
			}
		}
	}
	return out
}

// foundCount counts how many expected ids and descriptors the results
// satisfy.
func foundCount(results []api.Result, e Expect) int {
	n := 0
	for _, w := range expectedAt(results, e) {
		if w >= 0 {
			n++
		}
	}
	return n
}

// ndcgAt10 is nDCG@10 with binary relevance, where the ideal ranking has
// `wanted` relevant results at the top.
func ndcgAt10(ranked []string, relevant map[string]bool, wanted int) float64 {
	dcg := 0.0
	for i, id := range ranked {
		if i == 10 {
			break
		}
		if relevant[id] {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	ideal := 0.0
	for i := 0; i < min(10, wanted); i++ {
		ideal += 1 / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return min(1, dcg/ideal)
}

func matchesID(res api.Result, ids []string) bool {
	return slices.Contains(ids, res.ID) || slices.Contains(ids, res.Provenance.SourceID) || slices.Contains(ids, res.SourceID)
}

func matchesEvidence(res api.Result, ev Evidence) bool {
	in := func(set []string, v *string) bool {
		return len(set) == 0 || (v != nil && slices.Contains(set, *v))
	}
	lifecycle := ""
	if res.Governance != nil {
		lifecycle = res.Governance.Lifecycle
	}
	if !in(ev.SourceSets, res.SourceSet) || !in(ev.WorkTypes, res.WorkType) || !in(ev.Projects, res.Project) ||
		(len(ev.Lifecycles) > 0 && !slices.Contains(ev.Lifecycles, lifecycle)) {
		return false
	}
	hay := strings.ToLower(res.TextPreview + " " + res.Title + " " + res.SourceID + " " + api.StringOr(res.Provenance.SourcePath, ""))
	if res.Text != nil {
		hay += " " + strings.ToLower(*res.Text)
	}
	for _, t := range ev.Terms {
		if !strings.Contains(hay, strings.ToLower(t)) {
			return false
		}
	}
	return true
}

func evidenceText(resp *api.SearchResponse) string {
	var b strings.Builder
	for _, r := range resp.Results {
		b.WriteString(r.TextPreview + " " + r.Title + " " + api.StringOr(r.SourceSet, "") + " " + api.StringOr(r.Date, "") + " ")
		if r.Text != nil {
			b.WriteString(*r.Text + " ")
		}
	}
	for _, c := range resp.CitationPack {
		b.WriteString(c.Excerpt + " " + c.ResultID + " ")
	}
	b.WriteString(resp.AnswerSynthesis.Summary + " ")
	for _, bl := range resp.AnswerSynthesis.Bullets {
		b.WriteString(bl.Text + " ")
	}
	agg, _ := json.Marshal(resp.EventAggregation)
	b.Write(agg)
	return strings.ToLower(b.String())
}

func resultKey(r api.Result) string {
	if r.Governance != nil && r.Governance.DuplicateGroupKey != "" {
		return r.Governance.DuplicateGroupKey
	}
	if r.Provenance.DedupeKey != nil {
		return *r.Provenance.DedupeKey
	}
	if r.Provenance.SourceID != "" {
		return r.Provenance.SourceID
	}
	return r.ID
}

func aggregationScore(resp *api.SearchResponse, a *Aggregation, text string) float64 {
	if a == nil {
		return 1
	}
	checks, passed := 0, 0
	if a.ExpectedEventCount != nil {
		checks++
		if resp.EventAggregation.EventCount == *a.ExpectedEventCount || strings.Contains(text, fmt.Sprint(*a.ExpectedEventCount)) {
			passed++
		}
	}
	if len(a.CountTerms) > 0 {
		checks++
		if slices.ContainsFunc(a.CountTerms, func(t string) bool { return strings.Contains(text, strings.ToLower(t)) }) {
			passed++
		}
	}
	if len(a.RequiredEventIDs) > 0 {
		checks++
		ids := map[string]bool{}
		for _, r := range resp.Results {
			ids[r.ID], ids[r.Provenance.SourceID] = true, true
		}
		for _, c := range resp.CitationPack {
			ids[c.ResultID] = true
		}
		if slices.ContainsFunc(a.RequiredEventIDs, func(id string) bool { return ids[id] }) {
			passed++
		}
	}
	if len(a.RequiredTerms) > 0 {
		checks++
		if !slices.ContainsFunc(a.RequiredTerms, func(t string) bool { return !strings.Contains(text, strings.ToLower(t)) }) {
			passed++
		}
	}
	if checks == 0 {
		return 1
	}
	return scalar.Round(float64(passed)/float64(checks), 4)
}
