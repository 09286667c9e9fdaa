package tui

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/doctor"
)

// fakeBackend answers from fixtures and records every call. It is safe for
// concurrent use, as Backend requires.
type fakeBackend struct {
	mu          sync.Mutex
	report      doctor.Report
	statusErr   error
	statusCalls int
	searches    []api.SearchBody
	// answer returns the envelope for a search; nil answers resultsFixture.
	answer func(api.SearchBody) (*api.SearchResponse, error)
	// hang makes every search wait for its context, as a novad that
	// does not answer does.
	hang bool
}

func (f *fakeBackend) Status(context.Context) (doctor.Report, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.statusCalls++
	return f.report, f.statusErr
}

func (f *fakeBackend) Search(ctx context.Context, body api.SearchBody) (*api.SearchResponse, error) {
	f.mu.Lock()
	f.searches = append(f.searches, body)
	answer, hang := f.answer, f.hang
	f.mu.Unlock()
	if hang {
		<-ctx.Done()
		return nil, fmt.Errorf("post search: %w", ctx.Err())
	}
	if answer == nil {
		return resultsFixture(body.Query), nil
	}
	return answer(body)
}

func (f *fakeBackend) calls() (status int, searches []api.SearchBody) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.statusCalls, append([]api.SearchBody(nil), f.searches...)
}

func ptr[T any](v T) *T { return &v }

// blockedReport is a doctor report with novad down.
func blockedReport() doctor.Report {
	return doctor.Report{
		Status: doctor.Blocked, Blocked: 1, Degraded: 1, CheckedAt: "2026-11-30T08:22:38Z", Home: "/home/ada/.nova",
		Checks: []doctor.Check{
			{ID: "config", Title: "Configuration", State: doctor.Ready, Message: "/home/ada/.nova/config.yaml is valid"},
			{ID: "loopback", Title: "Loopback-only boundary", State: doctor.Ready, Message: "novad binds 127.0.0.1 only"},
			{ID: "daemon", Title: "novad", State: doctor.Blocked, Code: doctor.CodeNotRunning, Message: "Blocked: " + doctor.CodeNotRunning,
				Advice: "start it: novactl service install (macOS/Linux service) or run novad in a terminal"},
			{ID: "index", Title: "Active index", State: doctor.Ready, Message: "generation 20261130T082237Z-2522ce96, 16 chunks, builtin/lsa/384"},
			{ID: "token", Title: "Internal token", State: doctor.Ready, Message: "will be created when novad starts"},
			{ID: "source:notes", Title: "Source notes", State: doctor.Ready, Message: "/home/ada/memory (markdown) is readable"},
			{ID: "freshness", Title: "Index freshness", State: doctor.Degraded, Code: doctor.CodeIndexStale,
				Message: "Degraded: index-stale: sources changed 3h0m0s after the active index was built", Advice: "run novactl index sync"},
		},
	}
}

// readyReport is a doctor report with everything Ready.
func readyReport() doctor.Report {
	r := blockedReport()
	r.Status, r.Blocked, r.Degraded = doctor.Ready, 0, 0
	r.Checks[2] = doctor.Check{ID: "daemon", Title: "novad", State: doctor.Ready, Message: "novad serves generation 20261130T082237Z-2522ce96 (16 chunks)"}
	r.Checks[6] = doctor.Check{ID: "freshness", Title: "Index freshness", State: doctor.Ready, Message: "no source changed since the active index was built"}
	return r
}

// resultsFixture is an available envelope with three results, shaped like
// novad's answer for the sample memory.
func resultsFixture(query string) *api.SearchResponse {
	comps := func(bm25, dense, fused float64) map[string]float64 {
		return map[string]float64{"authorityRank": 85, "bm25": bm25, "dense": dense, "fused": fused, "exactCoverage": 1,
			"governanceWeight": 1.04, "recency": 0.133322, "recencyFactor": 1.007999, "lexical": 1, "metaDiscussion": 0}
	}
	gov := &api.Governance{Version: 1, SourceSet: "notes", AuthorityRank: 85, Lifecycle: "canonical", Retention: "long-term",
		CanonicalEligible: true, ProvenanceScore: 1, RetrievalWeight: 1.04, Warnings: []string{}}
	mk := func(i int, slug, title, text, date string, score float64, c map[string]float64) (api.Result, api.Citation) {
		id := "notes:notes/" + slug
		prov := api.Provenance{IndexID: id, Layer: ptr("note"), Source: ptr("notes"), SourceSet: ptr("notes"), SourceType: ptr("markdown"),
			SourceID: "notes/" + slug, SourcePath: ptr("/home/ada/memory/notes/" + slug[:len(slug)-len("#x")]), LineNumber: 10 * i,
			SessionID: fmt.Sprintf("sess-%d", i), HeadingPath: []string{title}}
		r := api.Result{ID: id, Score: score, ScoreComponents: c, Text: ptr(text), TextPreview: text, Title: title,
			Date: ptr(date), Timestamp: ptr(date), Source: ptr("notes"), SourceSet: ptr("notes"), SourceType: ptr("markdown"),
			SourceID: "notes/" + slug, Project: ptr("infra"), Tags: []string{"incident"}, WorkType: ptr("incident"),
			Governance: gov, Provenance: prov, RetrievalPasses: []string{"baseline-hybrid"}}
		cit := api.Citation{CitationID: fmt.Sprintf("C%d", i), Rank: i, ResultID: id, Confidence: "high", Score: score,
			Source: ptr("notes"), Date: ptr(date), Excerpt: text, WhySelected: []string{"dense-similarity", "keyword-overlap"}, Provenance: prov}
		return r, cit
	}
	r1, c1 := mk(1, "2026-11-10-dashboard-port.md#c", "Dashboard unreachable on port 2096 > Cause",
		"After the move to the premium VPS the dashboard on port 2096 was unavailable:\nthe new firewall policy dropped inbound traffic on 2096 (a DROP rule), while the\nold VPS allowed it.",
		"2026-11-10", 1.154187, comps(5.161742, 0.953392, 0.981357))
	r2, c2 := mk(2, "2026-11-10-dashboard-port.md#f", "Dashboard unreachable on port 2096 > Fix",
		"Added an allow rule for TCP 2096 and put it in the migration checklist so the\nnext move keeps it. Health check: `curl -fsS http://127.0.0.1:2096/healthz`.",
		"2026-11-10", 0.748167, comps(3.471812, 0.581429, 0.636135))
	r3, c3 := mk(3, "TASK_BOARD.md#d", "Task board > Done", "Moved the dashboard behind the new firewall; port list updated.",
		"2026-11-20", 0.401, comps(1.2, 0.31, 0.35))
	c2.Confidence = "medium"
	return &api.SearchResponse{
		SchemaVersion: 2, Available: true, Query: query, TopK: 5, TotalIndexed: 16, Returned: 3,
		Results:      []api.Result{r1, r2, r3},
		CitationPack: []api.Citation{c1, c2, c3},
		Quality: api.Quality{SchemaVersion: 1, Status: "strong", NeedsMoreEvidence: false, ResultCount: 3,
			KeyTerms: []string{"dashboard", "port"}, CoveredTerms: []string{"dashboard", "port"}, MissingTerms: []string{}, Coverage: 1,
			Flags:           map[string]bool{"denseOnlyTop": false, "hasAuthoritativeEvidence": true, "hasNonMetaExactEvidence": true},
			Recommendations: []string{}},
	}
}

// manyResults is an envelope with n results, for scrolling.
func manyResults(query string, n int) *api.SearchResponse {
	base := resultsFixture(query)
	resp := *base
	resp.Results, resp.CitationPack = nil, nil
	for i := range n {
		r := base.Results[i%3]
		r.ID = fmt.Sprintf("r%d", i)
		r.Score = 1 - float64(i)/100
		r.TextPreview = fmt.Sprintf("memory number %d", i+1)
		c := base.CitationPack[i%3]
		c.CitationID, c.ResultID, c.Rank = fmt.Sprintf("C%d", i+1), r.ID, i+1
		resp.Results = append(resp.Results, r)
		resp.CitationPack = append(resp.CitationPack, c)
	}
	return &resp
}

// emptyFixture is an available envelope without results.
func emptyFixture(query string) *api.SearchResponse {
	r := api.Unavailable(query, 5, "")
	r.Available, r.Reason = true, nil
	r.Quality.MissingTerms = []string{"zebra", "giraffe"}
	r.Quality.Recommendations = []string{"retry-exact-missing-terms:zebra,giraffe", "retry-with-authoritative-source-pass"}
	return r
}

var errBoom = errors.New("read response: unexpected EOF")
