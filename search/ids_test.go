package search_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/search"
)

// TestRecordIDs: an agent that saw a record's id in a citation (its
// provenance.sourceId, or the resultId) finds the record by it, first,
// though the id is not in its text and another record's text names it.
// The id is retrieval metadata, not citable text: quality says so
// (conformance 4.13).
func TestRecordIDs(t *testing.T) {
	snap := build(t, idsSource())
	e := engineWith()
	for _, c := range []struct{ query, want string }{
		{"NOVA-482", "NOVA-482"},
		{"what was NOVA-482 about?", "NOVA-482"},
		{"nova-482", "NOVA-482"},
		{"task-2026-11-03-7", "task-2026-11-03-7"},
		{"tasks:task-2026-11-03-7", "task-2026-11-03-7"}, // the resultId
		{"status of tasks:NOVA-481", "NOVA-481"},
	} {
		t.Run(c.query, func(t *testing.T) {
			resp := ask(t, e, snap, api.SearchRequest{Query: c.query})
			if len(resp.Results) == 0 || resp.Results[0].SourceID != c.want {
				t.Fatalf("top %v, want %s first", ids(resp), c.want)
			}
			top := resp.Results[0]
			if top.ScoreComponents["idMatch"] <= 1 {
				t.Errorf("idMatch %v", top.ScoreComponents["idMatch"])
			}
			if !slices.Contains(resp.CitationPack[0].WhySelected, "exact-entity-coverage") {
				t.Errorf("whySelected %v", resp.CitationPack[0].WhySelected)
			}
			if resp.Quality.Flags["denseOnlyTop"] {
				t.Error("a record found by its id is not dense-only evidence")
			}
		})
	}
	// The id is metadata: covered for retrieval, missing from citable
	// text (no text holds task-2026-11-03-7).
	q := ask(t, e, snap, api.SearchRequest{Query: "task-2026-11-03-7"}).Quality
	if !slices.Contains(q.RetrievalCoveredTerms, "task-2026-11-03-7") || !slices.Contains(q.MissingTerms, "task-2026-11-03-7") ||
		!q.Flags["metadataOnlyTermCoverage"] || q.Status != "weak" {
		t.Errorf("quality %+v", q)
	}
	// Hard filters still apply.
	if resp := ask(t, e, snap, api.SearchRequest{Query: "NOVA-482", Filters: api.Filters{Project: "other"}}); rank(resp, "NOVA-482") >= 0 {
		t.Errorf("the project filter let NOVA-482 through: %v", ids(resp))
	}
	// A number alone in a question is no id: record ids are not matched
	// by plain numbers inside a longer query, nor by words.
	resp := ask(t, e, snap, api.SearchRequest{Query: "what happened with the coffee note"})
	for _, r := range resp.Results {
		if _, ok := r.ScoreComponents["idMatch"]; ok {
			t.Errorf("%s matched by id for a query naming none", r.SourceID)
		}
	}
}

// TestRecordIDs_anyCase: agents retype ids in any case ("task-7" for
// Task-7, "NOVA-OPS-12" for nova-Ops-12), so a mixed-case id is found
// whatever the case the query writes it in, as a record id or a resultId.
func TestRecordIDs_anyCase(t *testing.T) {
	snap := build(t, idsSource())
	e := engineWith()
	for _, c := range []struct{ query, want string }{
		{"Task-7", "Task-7"},
		{"task-7", "Task-7"},
		{"TASK-7", "Task-7"},
		{"what did we decide in tAsK-7?", "Task-7"},
		{"nova-ops-12", "nova-Ops-12"},
		{"NOVA-OPS-12", "nova-Ops-12"},
		{"Nova-Ops-12", "nova-Ops-12"},
		{"TASKS:nova-ops-12", "nova-Ops-12"}, // the resultId, retyped
		{"NOVA-482", "NOVA-482"},
		{"Nova-482", "NOVA-482"},
	} {
		t.Run(c.query, func(t *testing.T) {
			resp := ask(t, e, snap, api.SearchRequest{Query: c.query})
			if len(resp.Results) == 0 || resp.Results[0].SourceID != c.want {
				t.Fatalf("top %v, want %s first", ids(resp), c.want)
			}
			if resp.Results[0].ScoreComponents["idMatch"] <= 1 {
				t.Errorf("idMatch %v", resp.Results[0].ScoreComponents["idMatch"])
			}
		})
	}
}

// TestRecordIDs_olderVersion: searching an older version's id finds that
// version first (it is the one asked for), still flagged superseded by the
// newest.
func TestRecordIDs_olderVersion(t *testing.T) {
	resp := ask(t, engineWith(), versionsSnapshot(t), api.SearchRequest{Query: "db-1"})
	if len(resp.Results) == 0 || resp.Results[0].SourceID != "db-1" {
		t.Fatalf("top %v, want db-1", ids(resp))
	}
	if r := resp.Results[0]; !r.Superseded || r.SupersededBy != "state:db-3" {
		t.Errorf("db-1: superseded %v by %q, want by state:db-3", r.Superseded, r.SupersededBy)
	}
}

// idsSource is the source of testdata/ids.
func idsSource() config.Source {
	return config.Source{Name: "tasks", Kind: config.KindJSONL, Path: "ids"}
}

// TestIDCandidates_pastedList: a pasted list of identifiers names at most
// the records the plan looks up, the first ones first, each once.
func TestIDCandidates_pastedList(t *testing.T) {
	var ids []string
	for i := range 400 {
		ids = append(ids, fmt.Sprintf("ident_%04d", i), fmt.Sprintf("ident_%04d", i))
	}
	got := search.IDCandidates(strings.Join(ids, " "))
	if len(got) > search.MaxIDCandidates {
		t.Fatalf("%d id candidates, want at most %d", len(got), search.MaxIDCandidates)
	}
	for i, w := range got {
		if want := fmt.Sprintf("ident_%04d", i); w != want {
			t.Fatalf("candidate %d is %q, want %q", i, w, want)
		}
	}
}
