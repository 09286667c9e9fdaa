package e2e

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
)

// TestConformance_filters: the facade maps every alias of a filter onto
// one explicit filter (conformance 3.1), and sourceSets and lifecycle are
// hard filters (3.3, 3.4) compared verbatim, never translated (3.2).
func TestConformance_filters(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	h.Sync()
	d := h.Start()

	type result struct {
		ID         string          `json:"id"`
		SourceSet  string          `json:"sourceSet"`
		Text       *string         `json:"text"`
		Governance *map[string]any `json:"governance"`
	}
	type answer struct {
		Available bool     `json:"available"`
		Results   []result `json:"results"`
		QueryPlan struct {
			ExplicitFilters map[string]any `json:"explicitFilters"`
		} `json:"queryPlan"`
	}
	ask := func(body string) answer {
		t.Helper()
		r := search(t, d.Facade, body)
		var a answer
		novatest.Must(t, json.Unmarshal(r.body, &a))
		if r.status != 200 || !a.Available {
			t.Fatalf("%s: %d %s", body, r.status, r.body)
		}
		return a
	}
	filters := func(a answer, keys ...string) map[string]any {
		out := map[string]any{}
		for _, k := range keys {
			out[k] = a.QueryPlan.ExplicitFilters[k]
		}
		return out
	}

	// 3.1: the checklist's worked example, and the same filters through
	// the other aliases, a plain string becoming a one-element list.
	keys := []string{"dateFrom", "dateTo", "project", "sourceSets", "lifecycles", "workTypes", "tags"}
	want := map[string]any{"dateFrom": "2026-06-01", "dateTo": "2026-12-31", "project": "nova", "sourceSets": []any{"task-board-snapshot"},
		"lifecycles": []any{"current-state"}, "workTypes": []any{"task"}, "tags": []any{"incident"}}
	for _, body := range []string{
		`{"query":"release","dateRange":{"from":"2026-06-01","to":"2026-12-31"},"project":"nova","sourceSets":["task-board-snapshot"],"lifecycle":["current-state"],"workType":"task","tags":["incident",""],"includeFullText":false}`,
		`{"query":"release","dateFrom":"2026-06-01","date_to":"2026-12-31","project":"nova","source_sets":"task-board-snapshot","lifecycles":"current-state","workTypes":["task"],"tag":"incident","include_full_text":false}`,
		`{"query":"release","date_from":"2026-06-01","dateTo":"2026-12-31","project":"nova","sourceSets":"task-board-snapshot","lifecycle":"current-state","work_type":"task","tags":["incident"],"includeFullText":false}`,
	} {
		if got := filters(ask(body), keys...); !reflect.DeepEqual(got, want) {
			t.Errorf("conformance 3.1: %s\nexplicitFilters %v\nwant %v", body, got, want)
		}
	}

	// 3.3: only the named source sets, listed sorted and once.
	all := ask(`{"query":"port release rollback rounding migration","topK":20}`)
	sets := map[string]bool{}
	for _, r := range all.Results {
		sets[r.SourceSet] = true
	}
	if len(sets) < 2 {
		t.Fatalf("fixture: the unfiltered search should reach two source sets: %v", sets)
	}
	for set := range sets {
		a := ask(`{"query":"port release rollback rounding migration","topK":20,"sourceSets":["` + set + `","zz-none","` + set + `"]}`)
		if got := a.QueryPlan.ExplicitFilters["sourceSets"]; !reflect.DeepEqual(got, []any{set, "zz-none"}) {
			t.Errorf("conformance 3.3: explicitFilters.sourceSets %v, want sorted and deduped", got)
		}
		if len(a.Results) == 0 {
			t.Errorf("conformance 3.3: nothing from %s", set)
		}
		for _, r := range a.Results {
			if r.SourceSet != set {
				t.Errorf("conformance 3.3: sourceSets [%s] returned %s from %s", set, r.ID, r.SourceSet)
			}
		}
	}

	// 3.4: lifecycle is a hard filter on the governance lifecycle; 3.2: it
	// is compared verbatim.
	lifecycles := map[string]bool{}
	for _, r := range all.Results {
		if r.Governance != nil {
			lc, _ := (*r.Governance)["lifecycle"].(string)
			lifecycles[lc] = true
		}
	}
	if len(lifecycles) < 2 {
		t.Fatalf("fixture: the unfiltered search should reach two lifecycles: %v", lifecycles)
	}
	for lc := range lifecycles {
		a := ask(`{"query":"port release rollback rounding migration","topK":20,"lifecycle":"` + lc + `"}`)
		if len(a.Results) == 0 {
			t.Errorf("conformance 3.4: nothing with lifecycle %s", lc)
		}
		for _, r := range a.Results {
			if got, _ := (*r.Governance)["lifecycle"].(string); got != lc {
				t.Errorf("conformance 3.4: lifecycle %s returned %s with %s", lc, r.ID, got)
			}
		}
	}
	for _, lc := range []string{"当前状态", "Canonical", "CANONICAL", "canonical-"} {
		if a := ask(`{"query":"port release rollback rounding migration","lifecycle":"` + lc + `"}`); len(a.Results) != 0 {
			t.Errorf("conformance 3.2: lifecycle %q matched %d results", lc, len(a.Results))
		}
	}
}
