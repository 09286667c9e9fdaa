package search_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
)

// notes writes Markdown files to a temporary directory and returns it as
// a source; files maps a name to its content.
func notes(t *testing.T, files map[string]string) config.Source {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir}
}

// citationOf returns the citation id of the result with sourceID, or "".
func citationOf(resp *api.SearchResponse, sourceID string) string {
	for i, c := range resp.CitationPack {
		if resp.Results[i].SourceID == sourceID {
			return c.CitationID
		}
	}
	return ""
}

// TestEvents_sameMemoryInTwoSourcesIsOneEvent: an incident written down
// twice, as a JSONL record and in a Markdown note, on the same day, is
// one event. Grouped by source alone, it was two, and an agent asking
// "how many incidents" was told three where there were two.
func TestEvents_sameMemoryInTwoSourcesIsOneEvent(t *testing.T) {
	snap := build(t,
		records(t,
			`{"id":"inc-1","date":"2026-07-01","project":"infra","text":"Incident: the deploy failed because port 8443 was taken; fixed by moving to 8444."}`,
			`{"id":"inc-2","date":"2026-07-03","project":"infra","text":"Incident: outage of the dashboard, the database was down for 20 minutes; restored from snapshot."}`,
		),
		notes(t, map[string]string{"incidents.md": "# Incidents\n\n## 2026-07-01 deploy\n\nIncident: the deploy failed\nbecause port 8443 was taken;  fixed by moving to 8444.\n"}),
	)
	r := ask(t, engineWith(), snap, api.SearchRequest{Query: "how many incidents happened"})
	record, note := citationOf(r, "inc-1"), citationOf(r, "incidents.md#incidents-2026-07-01-deploy")
	if record == "" || note == "" || citationOf(r, "inc-2") == "" {
		t.Fatalf("results %v: want both copies of the deploy incident and the outage cited", ids(r))
	}
	agg := r.EventAggregation
	if agg.EventCount != 2 || len(agg.Events) != 2 || len(agg.Timeline) != 2 {
		t.Fatalf("eventCount %d (%d events, %d moments), want 2: %+v", agg.EventCount, len(agg.Events), len(agg.Timeline), agg.Events)
	}
	for _, ev := range agg.Events {
		if slices.Contains(ev.CitationIDs, record) != slices.Contains(ev.CitationIDs, note) {
			t.Errorf("event %s cites %v: want %s and %s together", ev.EventID, ev.CitationIDs, record, note)
		}
	}
	if s := r.AnswerSynthesis.Summary; !strings.Contains(s, "2 distinct event") && r.AnswerSynthesis.AnswerType == "event-aggregation" {
		t.Errorf("summary %q, want 2 distinct events", s)
	}
}

// TestEvents_sameWordsOnAnotherDayAreAnotherEvent: the same words written
// on two days (a failure that came back), in a record and a note, stay
// two events: the text alone does not make two days one.
func TestEvents_sameWordsOnAnotherDayAreAnotherEvent(t *testing.T) {
	snap := build(t,
		records(t, `{"id":"a","date":"2026-07-01","project":"infra","text":"Incident: the nightly backup job failed with a full disk."}`),
		notes(t, map[string]string{"backups.md": "# Backups\n\n## 2026-07-08\n\nIncident: the nightly backup job failed with a full disk.\n"}),
	)
	r := ask(t, engineWith(), snap, api.SearchRequest{Query: "how many backup incidents"})
	if len(r.CitationPack) != 2 {
		t.Fatalf("results %v, want both incidents", ids(r))
	}
	if n := r.EventAggregation.EventCount; n != 2 {
		t.Errorf("eventCount %d, want 2: %+v", n, r.EventAggregation.Events)
	}
}
