package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/internal/novatest"
)

// episodicRecords are dialogue turns (an episodic source set) about a
// migration's configuration: what was said, not what was settled.
const episodicRecords = `{"id":"ep-1","text":"In chat we discussed the cron migration config: maybe set the scheduler timezone to UTC.","date":"2026-11-18","agent":"codex","project":"infra","sourceSet":"filtered-dialogue-daily"}
{"id":"ep-2","text":"Someone said the cron migration config could keep the old timezone for now.","date":"2026-11-19","agent":"codex","project":"infra","sourceSet":"filtered-dialogue-daily"}
`

// settledNote is a canonical note that settles the same question.
const settledNote = "# Cron migration config\n\n## Decision\nThe cron migration config sets the scheduler timezone to UTC on every host.\n"

// TestConformance_episodicOnlyFinalState: a question about a settled
// state (a config, a migration, a decision) that only episodic dialogue
// answers is weak, flagged episodicOnlyFinalState, with the advice to
// retry on canonical or current-state sources; once a canonical note
// answers it, the flag is off (conformance 4.16).
func TestConformance_episodicOnlyFinalState(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	novatest.Must(t, os.WriteFile(filepath.Join(h.Data, "records.jsonl"), []byte(episodicRecords), 0o644))
	novatest.Must(t, os.Remove(filepath.Join(h.Data, "rounding.md")))
	h.Sync()
	d := h.Start()
	const query = "what config did we settle on for the cron migration timezone"
	ask := func(t *testing.T) map[string]any {
		t.Helper()
		r := do(t, http.MethodPost, d.Direct+api.PathSearch, fmt.Sprintf(`{"query":%q,"top_k":5,"include_governance":true}`, query), nil)
		m := r.json(t)
		if r.status != http.StatusOK || m["available"] != true {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		return m
	}

	m := ask(t)
	results, _ := m["results"].([]any)
	if len(results) == 0 {
		t.Fatalf("fixture: no results")
	}
	for _, x := range results {
		res := x.(map[string]any)
		gov, _ := res["governance"].(map[string]any)
		if gov["lifecycle"] != "episodic" {
			t.Fatalf("fixture: result %v is not episodic (governance %v)", res["sourceId"], gov)
		}
	}
	q := m["quality"].(map[string]any)
	flags, _ := q["flags"].(map[string]any)
	recs, _ := q["recommendations"].([]any)
	if q["status"] != "weak" || flags["episodicOnlyFinalState"] != true || !contains(recs, "retry-with-canonical-current-state-or-summary-filters") {
		t.Errorf("conformance 4.16: status %v episodicOnlyFinalState %v recommendations %v", q["status"], flags["episodicOnlyFinalState"], recs)
	}

	novatest.Must(t, os.WriteFile(filepath.Join(h.Data, "cron.md"), []byte(settledNote), 0o644))
	run := activeRunID(t, h)
	h.Sync()
	if activeRunID(t, h) == run {
		t.Fatal("fixture: the note made no new generation")
	}
	waitFor(t, 30*time.Second, "novad to serve the note's generation", func() bool {
		hl := directHealth(t, d)
		return hl.Generation == activeRunID(t, h)
	})
	q = ask(t)["quality"].(map[string]any)
	if flags, _ := q["flags"].(map[string]any); flags["episodicOnlyFinalState"] != false {
		t.Errorf("conformance 4.16: with a canonical note in the results, episodicOnlyFinalState %v", flags["episodicOnlyFinalState"])
	}
}
