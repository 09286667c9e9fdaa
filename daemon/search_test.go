package daemon_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/daemon"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestSearch_dateRangeKeysStrict: dateRange's keys follow the body's
// rules: a repeated key is refused (which date did the caller mean? a
// parser that keeps the first filters otherwise than novad), and a key in
// another case is not from or to, as "Query" is not query.
func TestSearch_dateRangeKeysStrict(t *testing.T) {
	srv := serve(t, daemon.Options{Config: indexedHome(t, t.TempDir()), Logger: slog.New(slog.DiscardHandler)})
	waitServing(t, "http://"+srv.DirectAddr().String())
	for _, url := range []string{"http://" + srv.DirectAddr().String() + api.PathSearch, "http://" + srv.FacadeAddr().String() + api.PathFacadeSearch} {
		for _, tc := range []struct {
			dateRange string
			status    int
			from      string
		}{
			{`{"from":"2026-01-01","from":"2027-01-01"}`, http.StatusUnprocessableEntity, ""},
			{`{"from":"2026-01-01","to":"2026-02-01","to":"2026-01-02"}`, http.StatusUnprocessableEntity, ""},
			{`{"FROM":"2027-01-01"}`, http.StatusOK, ""},
			{`{"from":"2026-01-01"}`, http.StatusOK, "2026-01-01"},
		} {
			resp, err := http.Post(url, "application/json", strings.NewReader(`{"query":"deploy","dateRange":`+tc.dateRange+`}`))
			novatest.Must(t, err)
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			novatest.Must(t, err)
			var env struct {
				Reason    string `json:"reason"`
				QueryPlan struct {
					ExplicitFilters struct {
						DateFrom string `json:"dateFrom"`
					} `json:"explicitFilters"`
				} `json:"queryPlan"`
			}
			novatest.Must(t, json.Unmarshal(b, &env))
			from := env.QueryPlan.ExplicitFilters.DateFrom
			if resp.StatusCode != tc.status || from != tc.from ||
				(tc.status != http.StatusOK && env.Reason != api.ReasonInvalidFieldPrefix+"dateRange") {
				t.Errorf("%s dateRange %s: %d reason %q dateFrom %q, want %d dateFrom %q", url, tc.dateRange, resp.StatusCode, env.Reason, from, tc.status, tc.from)
			}
		}
	}
}

// TestSearch_latencyBudgetReported (conformance 5.1, 5.4): the budget a
// search ran under is reported the same in retrievalController and in
// workerTelemetry: the 60 s cap for a larger request, the caller's
// lower one as asked, and on the facade what remainingBudgetMs left of
// it. The controller's copy was rebuilt from the deadline and read a
// millisecond or more short (59999).
func TestSearch_latencyBudgetReported(t *testing.T) {
	srv := serve(t, daemon.Options{Config: indexedHome(t, t.TempDir()), Logger: slog.New(slog.DiscardHandler)})
	direct := "http://" + srv.DirectAddr().String()
	facade := "http://" + srv.FacadeAddr().String()
	waitServing(t, direct)
	for _, tc := range []struct {
		url, body string
		want      int
	}{
		{direct + api.PathSearch, `{"query":"staging deploy","latency_budget_ms":120000}`, 60000},
		{direct + api.PathSearch, `{"query":"staging deploy"}`, 60000},
		{direct + api.PathSearch, `{"query":"staging deploy","latency_budget_ms":1234}`, 1234},
		{facade + api.PathFacadeSearch, `{"query":"staging deploy","latencyBudgetMs":120000}`, 60000},
		{facade + api.PathFacadeSearch, `{"query":"bounded","remainingBudgetMs":500,"latencyBudgetMs":120000}`, 450},
	} {
		var resp api.SearchResponse
		postJSON(t, tc.url, tc.body, &resp)
		if !resp.Available || resp.WorkerTelemetry == nil {
			t.Fatalf("%s %s: unavailable: %+v", tc.url, tc.body, resp)
		}
		if got, wt := resp.RetrievalController.LatencyBudgetMs, resp.WorkerTelemetry.LatencyBudgetMs; got != tc.want || wt != tc.want {
			t.Errorf("%s %s: retrievalController.latencyBudgetMs %d, workerTelemetry.latencyBudgetMs %d, want %d", tc.url, tc.body, got, wt, tc.want)
		}
	}
}

// TestFacadeSearch_budgetWhenUnavailable (conformance 5.3, 5.5): every
// facade search answer but a 400 or 500 reports facadeBudget, the
// status-gated one (no index) included; and a caller's exhausted budget
// is refused as such before the status is consulted, as upstream's
// facade refuses it before its readiness probe. Before, the status-gated
// answer had no facadeBudget, and an exhausted budget there said
// "missing".
func TestFacadeSearch_budgetWhenUnavailable(t *testing.T) {
	srv := serve(t, daemon.Options{Config: testConfig(t, t.TempDir()), Logger: slog.New(slog.DiscardHandler)})
	url := "http://" + srv.FacadeAddr().String() + api.PathFacadeSearch
	var resp api.SearchResponse
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp = api.SearchResponse{}
		postJSON(t, url, `{"query":"staging deploy"}`, &resp)
		if api.StringOr(resp.Reason, "") != api.ReasonIndexLoading || time.Now().After(deadline) {
			break
		}
	}
	if resp.Available || api.StringOr(resp.Reason, "") != api.FreshnessMissing {
		t.Fatalf("search without an index: available %v reason %q", resp.Available, api.StringOr(resp.Reason, ""))
	}
	if fb := resp.FacadeBudget; fb == nil || fb.Policy != "monotonic-total-budget" || fb.TotalBudgetMs != 65000 || fb.ServerBudgetCapMs != 60000 ||
		resp.RetrievalController.FacadeBudget == nil {
		t.Errorf("status-gated answer: facadeBudget %+v, retrievalController.facadeBudget %+v", fb, resp.RetrievalController.FacadeBudget)
	}
	for _, body := range []string{`{"query":"staging deploy","remainingBudgetMs":0}`, `{"query":"staging deploy","remainingBudgetMs":-5}`} {
		resp = api.SearchResponse{}
		postJSON(t, url, body, &resp)
		if api.StringOr(resp.Reason, "") != api.ReasonBudgetExhausted || resp.FacadeBudget == nil || resp.FacadeBudget.RemainingBudgetMs != 0 {
			t.Errorf("%s without an index: reason %q facadeBudget %+v, want %s with remainingBudgetMs 0", body, api.StringOr(resp.Reason, ""), resp.FacadeBudget, api.ReasonBudgetExhausted)
		}
	}
}

// TestSearch_resultShapingFlags (conformance 1.16): includeFullText false
// leaves text out of every result and keeps textPreview;
// includeGovernance false leaves governance out; both default to true,
// and the direct server's snake_case names do the same.
func TestSearch_resultShapingFlags(t *testing.T) {
	srv := serve(t, daemon.Options{Config: indexedHome(t, t.TempDir()), Logger: slog.New(slog.DiscardHandler)})
	direct := "http://" + srv.DirectAddr().String() + api.PathSearch
	facade := "http://" + srv.FacadeAddr().String() + api.PathFacadeSearch
	waitServing(t, "http://"+srv.DirectAddr().String())
	for _, tc := range []struct {
		url, flags       string
		text, governance bool
	}{
		{facade, ``, true, true},
		{direct, ``, true, true},
		{facade, `,"includeFullText":false`, false, true},
		{facade, `,"includeGovernance":false`, true, false},
		{facade, `,"includeFullText":false,"includeGovernance":false`, false, false},
		{direct, `,"include_full_text":false,"include_governance":false`, false, false},
		{direct, `,"include_full_text":true,"include_governance":false`, true, false},
	} {
		var resp struct {
			Results []map[string]any `json:"results"`
		}
		postJSON(t, tc.url, `{"query":"staging deploy port"`+tc.flags+`}`, &resp)
		if len(resp.Results) == 0 {
			t.Fatalf("%s %s: no results", tc.url, tc.flags)
		}
		for _, r := range resp.Results {
			_, text := r["text"]
			_, gov := r["governance"]
			if text != tc.text || gov != tc.governance || r["textPreview"] == "" {
				t.Errorf("%s %s: text %v governance %v textPreview %q, want text %v governance %v", tc.url, tc.flags, text, gov, r["textPreview"], tc.text, tc.governance)
			}
		}
	}
}

// TestSearch_passReportsListSourceSets (conformance 4.1): every retrieval
// pass in retrievalController.passes is {id, query, candidateCount,
// returned, sourceSets, purpose}, sourceSets a list even when the pass
// keeps to no source set; the fusion and quality-gate steps have their
// own shapes. The engine made it [] and omitempty dropped the key.
func TestSearch_passReportsListSourceSets(t *testing.T) {
	srv := serve(t, daemon.Options{Config: indexedHome(t, t.TempDir()), Logger: slog.New(slog.DiscardHandler)})
	waitServing(t, "http://"+srv.DirectAddr().String())
	for _, body := range []string{
		`{"query":"staging deploy port 42017"}`,
		`{"query":"zebra kubernetes V1-A-029 question"}`,
		`{"query":"zebra kubernetes V1-A-029 question","source_sets":["notes"]}`,
	} {
		var resp struct {
			RetrievalController struct {
				Passes []map[string]any `json:"passes"`
			} `json:"retrievalController"`
		}
		postJSON(t, "http://"+srv.DirectAddr().String()+api.PathSearch, body, &resp)
		for _, p := range resp.RetrievalController.Passes {
			id, _ := p["id"].(string)
			if id == "fusion-rerank-dedupe" || id == "quality-gate" {
				if _, ok := p["sourceSets"]; ok {
					t.Errorf("%s: %s has sourceSets: %v", body, id, p)
				}
				continue
			}
			for _, k := range []string{"id", "query", "candidateCount", "returned", "sourceSets", "purpose"} {
				if _, ok := p[k]; !ok {
					t.Errorf("%s: pass %s has no %s: %v", body, id, k, p)
				}
			}
			if _, ok := p["sourceSets"].([]any); !ok {
				t.Errorf("%s: pass %s sourceSets %v, want a list", body, id, p["sourceSets"])
			}
		}
	}
}
