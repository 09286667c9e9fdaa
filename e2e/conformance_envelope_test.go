package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/contracttest"
	"github.com/nova-recall/nova/internal/novatest"
)

// longNote is a memory whose text is longer than a result's textPreview
// (500 characters) and a citation's excerpt (280), so that the checks on
// their cut have something to cut.
var longNote = "# Zebra migration\n\n" + strings.Repeat("The zebra migration kept failing because quokka tokens expired while the   batch waited.\n", 12)

// TestConformance_facadeEnvelopes checks, on a real novad, the envelopes
// an external agent reads: the facade health (conformance 1.4), a live
// search (1.5, 1.6), its results (1.7), citations (1.9), quality object and
// recommendations (4.7, 4.8) and worker telemetry (5.13).
func TestConformance_facadeEnvelopes(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	novatest.Must(t, os.WriteFile(filepath.Join(h.Data, "zebra.md"), []byte(longNote), 0o644))
	h.Sync()
	d := h.Start()

	contract := do(t, http.MethodGet, d.Facade+api.PathFacadeContract, "", nil).json(t)

	// 1.4: available mirrors ragStatus.searchAvailable, and the contract
	// rides along whole.
	hl := do(t, http.MethodGet, d.Facade+api.PathFacadeHealth, "", nil)
	if hl.status != http.StatusOK {
		t.Fatalf("facade health %d: %s", hl.status, hl.body)
	}
	hm := hl.json(t)
	rs, _ := hm["ragStatus"].(map[string]any)
	if rs == nil || hm["available"] != true || hm["available"] != rs["searchAvailable"] {
		t.Errorf("conformance 1.4: available %v, ragStatus.searchAvailable %v", hm["available"], rs["searchAvailable"])
	}
	if hm["readOnly"] != true || hm["mutationAllowed"] != false {
		t.Errorf("conformance 1.4: readOnly %v mutationAllowed %v", hm["readOnly"], hm["mutationAllowed"])
	}
	if !reflect.DeepEqual(hm["externalAgentContract"], contract) {
		t.Errorf("conformance 1.4: health's externalAgentContract is not the contract document:\n%v\n%v", hm["externalAgentContract"], contract)
	}

	for _, q := range []string{"zebra migration quokka tokens", "why was the dashboard port unavailable", "release rollback"} {
		t.Run(q, func(t *testing.T) {
			r := search(t, d.Facade, fmt.Sprintf(`{"query":%q,"topK":5}`, q))
			if r.status != http.StatusOK {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			if err := contracttest.Validate(contracttest.SearchResponse, r.body, true); err != nil {
				t.Fatalf("schema: %v", err)
			}
			m := r.json(t)
			checkLiveEnvelope(t, m, 5)
			checkResults(t, m)
			checkCitations(t, m)
			checkQuality(t, m["quality"].(map[string]any))
		})
	}

	// 1.7 and 1.9 cut what they show: the long note must be among the
	// results, or the cuts above were never exercised.
	r := search(t, d.Facade, `{"query":"zebra migration quokka tokens","topK":5}`).json(t)
	res := r["results"].([]any)
	if len(res) == 0 || utf8.RuneCountInString(res[0].(map[string]any)["text"].(string)) <= 500 {
		t.Fatalf("the long note is not the first result: %v", res)
	}
	if ex := r["citationPack"].([]any)[0].(map[string]any)["excerpt"].(string); !strings.HasSuffix(ex, "...") {
		t.Errorf("conformance 1.9: a truncated excerpt ends with ...: %q", ex)
	}

	// 4.8: a query nothing answers well is not strong, and says what to do.
	weak := search(t, d.Facade, `{"query":"xylophone calibration QX-9931 tolerance","topK":5}`).json(t)
	wq := weak["quality"].(map[string]any)
	checkQuality(t, wq)
	if wq["status"] == "strong" {
		t.Errorf("conformance 4.8: an unanswered query is strong: %v", wq)
	}
}

// checkLiveEnvelope asserts conformance 1.5 and 1.6 (and 5.13's
// telemetry) on a live facade search answer m.
func checkLiveEnvelope(t *testing.T, m map[string]any, topK int) {
	t.Helper()
	for _, k := range []string{"schemaVersion", "available", "results", "queryPlan", "citationPack", "eventAggregation", "answerSynthesis",
		"quality", "retrievalController", "agentic", "externalAgentContract", "query", "topK", "facadeBudget", "ragStatus"} {
		if _, ok := m[k]; !ok {
			t.Errorf("conformance 1.5: no %q", k)
		}
	}
	if m["available"] != true || m["schemaVersion"] != 2.0 {
		t.Errorf("conformance 1.5: available %v schemaVersion %v", m["available"], m["schemaVersion"])
	}
	if r, ok := m["reason"]; ok && r != "" && r != nil {
		t.Errorf("conformance 1.5: a live answer gives reason %v", r)
	}
	if n := len(m["results"].([]any)); n == 0 || n > topK {
		t.Errorf("conformance 1.5: %d results for topK %d", n, topK)
	}
	for k, want := range map[string]float64{"queryPlan": 2, "eventAggregation": 2, "agentic": 2, "quality": 1, "retrievalController": 1} {
		if got := m[k].(map[string]any)["schemaVersion"]; got != want {
			t.Errorf("conformance 1.6: %s.schemaVersion %v, want %v", k, got, want)
		}
	}
	ag := m["agentic"].(map[string]any)
	if ag["serverSideMultiPass"] != true || ag["serverSideQualityGate"] != true {
		t.Errorf("conformance 1.6: agentic %v", ag)
	}
	// 5.13: a search that finished says so, twice.
	wt, _ := m["workerTelemetry"].(map[string]any)
	if wt["workerState"] != api.WorkerFinished || wt["hardCancelled"] != false || wt["capacityPermitHeld"] != false ||
		wt["latencyBudgetMs"] == nil || wt["elapsedMs"] == nil {
		t.Errorf("conformance 5.13: workerTelemetry %v", wt)
	}
	if rc := m["retrievalController"].(map[string]any); !reflect.DeepEqual(rc["workerTelemetry"], m["workerTelemetry"]) {
		t.Errorf("conformance 5.13: retrievalController.workerTelemetry %v differs from %v", rc["workerTelemetry"], wt)
	}
}

// checkResults asserts conformance 1.7 on every result of m.
func checkResults(t *testing.T, m map[string]any) {
	t.Helper()
	workTypes := map[string]bool{"incident": true, "config": true, "migration": true, "lesson": true, "task": true, "coding": true, "daily": true, "general": true}
	for i, x := range m["results"].([]any) {
		r := x.(map[string]any)
		for _, k := range []string{"id", "score", "scoreComponents", "source", "date", "agent", "project", "tags", "workType", "textPreview", "provenance"} {
			if _, ok := r[k]; !ok {
				t.Errorf("conformance 1.7: result %d has no %q", i, k)
			}
		}
		if _, ok := r["tags"].([]any); !ok {
			t.Errorf("conformance 1.7: result %d tags %v is not a list", i, r["tags"])
		}
		if wt, _ := r["workType"].(string); !workTypes[wt] {
			t.Errorf("conformance 1.7: result %d workType %q", i, wt)
		}
		prov, _ := r["provenance"].(map[string]any)
		for _, k := range []string{"indexId", "layer", "source", "sourceSet", "sourceType", "sourceId", "sourcePath", "dedupeKey"} {
			if _, ok := prov[k]; !ok {
				t.Errorf("conformance 1.7: result %d provenance has no %q", i, k)
			}
		}
		if src, _ := r["source"].(string); strings.ContainsAny(src, `/\`) {
			t.Errorf("conformance 1.7: result %d source %q is a path", i, src)
		}
		text, _ := r["text"].(string)
		prev, _ := r["textPreview"].(string)
		if utf8.RuneCountInString(prev) > 500 || !strings.HasPrefix(text, prev) || (utf8.RuneCountInString(text) >= 500 && utf8.RuneCountInString(prev) != 500) {
			t.Errorf("conformance 1.7: result %d textPreview (%d characters) is not the first 500 of its text (%d)", i, utf8.RuneCountInString(prev), utf8.RuneCountInString(text))
		}
	}
}

// checkCitations asserts conformance 1.9 on m's citationPack.
func checkCitations(t *testing.T, m map[string]any) {
	t.Helper()
	results := m["results"].([]any)
	cites := m["citationPack"].([]any)
	if want := min(5, len(results)); len(cites) != want {
		t.Errorf("conformance 1.9: %d citations for %d results", len(cites), len(results))
	}
	// The contract's list, and matched:<terms>; any other value is a
	// defect (an agent may check whySelected against the list).
	why := map[string]bool{"dense-similarity": true, "exact-entity-coverage": true, "keyword-overlap": true, "recent-memory": true, "intent-match": true, "ranked-evidence": true}
	for i, x := range cites {
		c := x.(map[string]any)
		res := results[i].(map[string]any)
		if c["citationId"] != fmt.Sprintf("C%d", i+1) || c["rank"] != float64(i+1) || c["resultId"] != res["id"] {
			t.Errorf("conformance 1.9: citation %d is %v/%v/%v, result id %v", i, c["citationId"], c["rank"], c["resultId"], res["id"])
		}
		for _, k := range []string{"score", "source", "date", "timestamp", "agent", "project", "tags", "workType", "excerpt", "whySelected", "provenance", "scoreComponents"} {
			if _, ok := c[k]; !ok {
				t.Errorf("conformance 1.9: citation %d has no %q", i, k)
			}
		}
		score, _ := c["score"].(float64)
		want := "low"
		if score >= 0.75 {
			want = "high"
		} else if score >= 0.35 {
			want = "medium"
		}
		if c["confidence"] != want {
			t.Errorf("conformance 1.9: citation %d score %v confidence %v, want %s", i, score, c["confidence"], want)
		}
		ex, _ := c["excerpt"].(string)
		text, _ := res["text"].(string)
		flat := strings.Join(strings.Fields(text), " ")
		if n := utf8.RuneCountInString(ex); n > 280 || strings.Contains(ex, "  ") || strings.ContainsAny(ex, "\n\t") {
			t.Errorf("conformance 1.9: citation %d excerpt (%d characters) is not collapsed or too long: %q", i, n, ex)
		}
		if utf8.RuneCountInString(flat) > 280 && !strings.HasSuffix(ex, "...") {
			t.Errorf("conformance 1.9: citation %d excerpt is cut without ...: %q", i, ex)
		}
		ws, _ := c["whySelected"].([]any)
		if len(ws) == 0 {
			t.Errorf("conformance 1.9: citation %d has no whySelected", i)
		}
		for _, w := range ws {
			s, _ := w.(string)
			if !why[s] && !strings.HasPrefix(s, "matched:") {
				t.Errorf("conformance 1.9: citation %d whySelected %q is outside the vocabulary", i, s)
			}
		}
	}
}

// checkQuality asserts conformance 4.7 and 4.8 on a live quality object.
func checkQuality(t *testing.T, q map[string]any) {
	t.Helper()
	status, _ := q["status"].(string)
	if status != "strong" && status != "weak" && status != "insufficient" {
		t.Errorf("conformance 4.7: status %q", status)
	}
	if q["needsMoreEvidence"] != (status != "strong") {
		t.Errorf("conformance 4.7: needsMoreEvidence %v with status %s", q["needsMoreEvidence"], status)
	}
	if rc, _ := q["resultCount"].(float64); rc == 0 && status != "insufficient" {
		t.Errorf("conformance 4.7: zero results but status %s", status)
	}
	keys, _ := q["keyTerms"].([]any)
	if len(keys) > 12 {
		t.Errorf("conformance 4.7: %d keyTerms", len(keys))
	}
	for _, k := range keys {
		if s, _ := k.(string); s != strings.ToLower(s) {
			t.Errorf("conformance 4.7: keyTerm %q is not lowercase", s)
		}
	}
	cov, ok := q["coverage"].(float64)
	if !ok || cov < 0 || cov > 1 || math.IsNaN(cov) || (len(keys) == 0 && cov != 1) {
		t.Errorf("conformance 4.7: coverage %v with %d key terms", q["coverage"], len(keys))
	}
	if q["coverageBasis"] != "citable-text-only" {
		t.Errorf("conformance 4.7: coverageBasis %v", q["coverageBasis"])
	}
	for _, k := range []string{"coveredTerms", "missingTerms", "retrievalCoveredTerms", "retrievalMissingTerms", "retrievalCoverage", "recommendations"} {
		if _, ok := q[k]; !ok {
			t.Errorf("conformance 4.7: no %q", k)
		}
	}
	flags, _ := q["flags"].(map[string]any)
	for _, k := range []string{"denseOnlyTop", "episodicOnlyFinalState", "metaDiscussionTop", "hasNonMetaExactEvidence", "hasAuthoritativeEvidence", "metadataOnlyTermCoverage"} {
		if _, ok := flags[k].(bool); !ok {
			t.Errorf("conformance 4.7: flags.%s is %v", k, flags[k])
		}
	}
	recs, _ := q["recommendations"].([]any)
	if status == "strong" && len(recs) != 0 {
		t.Errorf("conformance 4.8: a strong answer recommends %v", recs)
	}
	if status != "strong" && len(recs) == 0 {
		t.Errorf("conformance 4.8: a %s answer recommends nothing", status)
	}
	vocab := map[string]bool{"inspect-lower-ranked-exact-entity-evidence": true, "retry-with-rare-entities-or-quoted-phrase": true,
		"retry-with-canonical-current-state-or-summary-filters": true, "retry-with-meta-discussion-suppressed": true,
		"retry-with-authoritative-source-pass": true, "expand-query-or-increase-top-k": true}
	for _, x := range recs {
		s, _ := x.(string)
		if terms, ok := strings.CutPrefix(s, "retry-exact-missing-terms:"); ok {
			if n := len(strings.Split(terms, ",")); terms == "" || n > 6 {
				t.Errorf("conformance 4.8: %q names %d terms", s, n)
			}
			continue
		}
		if !vocab[s] {
			t.Errorf("conformance 4.8: recommendation %q is outside the vocabulary", s)
		}
	}
}

// TestConformance_directQueryValidation: the direct server validates its
// body as upstream's framework does (conformance 1.20): a missing query is
// a 422, as a top_k out of 1..20 is, and the answer is still the full
// envelope with its reason.
func TestConformance_directQueryValidation(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	h.Sync()
	d := h.Start()
	for _, tc := range []struct{ name, body string }{
		{"missing query", `{"top_k":3}`},
		{"null query", `{"query":null}`},
		{"blank query", `{"query":"  "}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, http.MethodPost, d.Direct+api.PathSearch, tc.body, nil)
			if r.status != http.StatusUnprocessableEntity {
				t.Errorf("conformance 1.20: status %d, want 422: %.300s", r.status, r.body)
			}
			if err := contracttest.Validate(contracttest.SearchResponse, r.body, false); err != nil {
				t.Fatalf("not the full envelope: %v\n%s", err, r.body)
			}
			var m map[string]any
			novatest.Must(t, json.Unmarshal(r.body, &m))
			if m["available"] != false || m["reason"] != api.ReasonQueryRequired {
				t.Errorf("available %v reason %v", m["available"], m["reason"])
			}
		})
	}
	// The facade keeps its own rule: a missing query there is a 400
	// (conformance 2.1).
	if r := search(t, d.Facade, `{}`); r.status != http.StatusBadRequest {
		t.Errorf("conformance 2.1: facade status %d, want 400", r.status)
	}
}
