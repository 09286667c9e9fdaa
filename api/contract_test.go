package api

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestWireStringsAreTheContracts pins the strings the contract and the
// conformance checklist fix (codes, messages, reasons, worker states,
// paths): agents match them byte for byte, so a rewording is a break of
// the wire, not a style change. Nova's own additions are not listed.
func TestWireStringsAreTheContracts(t *testing.T) {
	for got, want := range map[string]string{
		CodeReadOnly:                 "rag-external-api-read-only",
		MessageReadOnlyFacade:        "External RAG agent API is read-only; settings, server, index, memory and source mutations are not allowed.",
		MessageReadOnlyDirect:        "External RAG API is read-only; memory writes and index mutations are not allowed.",
		CodeNonLoopback:              "rag-server-non-loopback",
		CodeAuthRequired:             "rag-internal-authorization-required",
		MessageAuthRequired:          "The internal nova-RAG encode endpoint requires the managed Runtime token.",
		CodeAuthUnavailable:          "rag-internal-authorization-unavailable",
		ReasonQueryRequired:          "query is required",
		ReasonCapacityExhausted:      "search-capacity-exhausted",
		ReasonTimeout:                "search-timeout",
		ReasonCancelled:              "search-cancelled",
		ReasonBudgetExhausted:        "rag-search-budget-exhausted",
		ReasonIndexNotLoaded:         "active-v2-index-not-loaded",
		ReasonProfileMismatch:        "embedding-profile-mismatch",
		ReasonDimensionMismatch:      "dimension-mismatch",
		ReasonCLIBudgetExhausted:     "rag-external-budget-exhausted",
		ActiveIndexReady:             "v2-active-ready",
		FreshnessMissing:             "missing",
		FreshnessServerIndexNotReady: "server-index-not-ready",
		WorkerNotStarted:             "not-started",
		WorkerFinished:               "finished",
		WorkerRunningAfterTimeout:    "running_after_timeout",
		WorkerRunningAfterCancel:     "running_after_cancel",
	} {
		if got != want {
			t.Errorf("wire string %q, the contract's is %q", got, want)
		}
	}
	if got := strings.Join(FacadeMutationPaths, ","); got != "PUT /api/rag/external/settings,POST /api/rag/external/index/run,"+
		"POST /api/rag/external/server/start,POST /api/rag/external/server/stop,POST /api/rag/external/memory/write,POST /api/rag/external/source/create" {
		t.Errorf("facade mutation paths %s", got)
	}
	if got := strings.Join(DirectMutationPaths, ","); got != "POST /memory/write,POST /memories,POST /index/run,POST /index/rebuild" {
		t.Errorf("direct mutation paths %s", got)
	}
}

// TestContractDocument (conformance 1.1, 1.2, 8.8): the contract document
// lists what the checklist requires, and its usage prompt states the
// recall priority in order and never invites eager retrieval.
func TestContractDocument(t *testing.T) {
	c := NewContract(nil)
	if c.Version != 2 || !c.ReadOnly || c.MutationAllowed || c.RejectedMutationStatus != 403 || c.SearchResponse.SchemaVersion != 2 {
		t.Errorf("contract header: %+v", c)
	}
	if got := strings.Join(c.AllowedEndpoints, ","); got != "GET /api/rag/external/health,GET /api/rag/external/stats,GET /api/rag/external/contract,POST /api/rag/external/search" {
		t.Errorf("allowedEndpoints %s", got)
	}
	if !slices.Equal(c.SearchRequest.RequiredFields, []string{"query"}) {
		t.Errorf("requiredFields %v", c.SearchRequest.RequiredFields)
	}
	for _, f := range []string{"topK", "date", "dateRange", "project", "role", "tags", "sourceSets", "lifecycle", "workType", "includeFullText", "includeGovernance"} {
		if !slices.Contains(c.SearchRequest.OptionalFields, f) {
			t.Errorf("optionalFields lacks %s: %v", f, c.SearchRequest.OptionalFields)
		}
	}
	for _, f := range []string{"results", "queryPlan", "citationPack", "eventAggregation", "answerSynthesis", "quality", "retrievalController", "agentic", "externalAgentContract"} {
		if !slices.Contains(c.SearchResponse.Includes, f) {
			t.Errorf("searchResponse.includes lacks %s: %v", f, c.SearchResponse.Includes)
		}
	}
	guidance := strings.Join(c.RankingGuidance, "\n")
	if len(c.RankingGuidance) != 4 {
		t.Errorf("rankingGuidance has %d entries, want 4", len(c.RankingGuidance))
	}
	for _, s := range []string{"sourceSet", "provenance", "lifecycle=current-state", "lifecycle=canonical", "filtered-dialogue-daily"} {
		if !strings.Contains(guidance, s) {
			t.Errorf("rankingGuidance does not mention %s", s)
		}
	}
	p := c.UsagePrompt
	last := -1
	for _, s := range []string{"current conversation", "host Agent Runtime's built-in or connected memory/history retrieval",
		"nova-RAG only when the preceding sources do not provide enough reliable information"} {
		i := strings.Index(p, s)
		if i <= last {
			t.Errorf("usagePrompt lacks %q after the previous priority", s)
		}
		last = i
	}
	for _, s := range []string{"user-provided material", "local authoritative files", "user explicitly asks to query nova-RAG", "evidence rather than authority"} {
		if !strings.Contains(p, s) {
			t.Errorf("usagePrompt lacks %q", s)
		}
	}
	for _, s := range []string{"use nova-rag before answering", "always use nova-rag", "search nova-rag first"} {
		if strings.Contains(strings.ToLower(p), s) {
			t.Errorf("usagePrompt invites eager retrieval: %q", s)
		}
	}
	for _, s := range append([]string{p, c.Purpose, guidance}, c.AllowedEndpoints...) {
		if strings.Contains(s, PathEncode) {
			t.Errorf("the contract names the internal %s: %q", PathEncode, s)
		}
	}
}

// TestContractListsEveryAlias: searchRequest.aliases names every other
// spelling the decoder takes for a field, so an agent reading the contract
// learns them all; each one listed does change the decoded request. The
// snake_case spellings of the direct server's body (latency_budget_ms,
// include_full_text, include_governance) were taken but not listed.
func TestContractListsEveryAlias(t *testing.T) {
	c := NewContract(nil)
	base, _ := DecodeSearchRequest([]byte(`{"query":"q"}`), Facade, DefaultTopK)
	for alias, value := range map[string]string{
		"top_k": `3`, "dateFrom": `"2026-01-01"`, "dateTo": `"2026-01-02"`, "date_from": `"2026-01-01"`, "date_to": `"2026-01-02"`,
		"source_sets": `["x"]`, "lifecycles": `["x"]`, "workTypes": `["x"]`, "work_type": `["x"]`, "tag": `"x"`,
		"latency_budget_ms": `500`, "include_full_text": `false`, "include_governance": `false`,
	} {
		if !slices.Contains(c.SearchRequest.Aliases, alias) {
			t.Errorf("searchRequest.aliases lacks %s: %v", alias, c.SearchRequest.Aliases)
		}
		req, err := DecodeSearchRequest([]byte(`{"query":"q","`+alias+`":`+value+`}`), Facade, DefaultTopK)
		if err != nil || reflect.DeepEqual(req, base) {
			t.Errorf("alias %s is not read (%v)", alias, err)
		}
	}
}
