package search_test

import (
	"fmt"
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

// TestSynthesis_questionOrThanksIsNoAnswer: answerSynthesis quotes what
// answers, not a turn that asks the question again or only says thanks.
// The question ranked first (it holds every word of the query), so the
// summary called it the top evidence and the bullets quoted it and the
// acknowledgement beside the answer.
func TestSynthesis_questionOrThanksIsNoAnswer(t *testing.T) {
	snap := build(t, records(t,
		`{"id":"q-1","date":"2026-06-21","project":"api","role":"user","agent":"codex","text":"Why cursor and not page numbers?"}`,
		`{"id":"q-2","date":"2026-06-21","project":"api","role":"user","agent":"codex","text":"为什么用游标分页而不是页码？"}`,
		`{"id":"pg-2","date":"2026-06-20","project":"api","agent":"codex","text":"Switched pagination to a cursor: page numbers skipped rows when items were inserted, e.g. during imports."}`,
		`{"id":"ack-1","date":"2026-06-21","project":"api","role":"assistant","agent":"codex","text":"Sounds good, thanks! 👍"}`,
		`{"id":"ack-2","date":"2026-06-21","project":"api","role":"assistant","agent":"codex","text":"好的，谢谢！"}`,
	))
	r := ask(t, engineWith(), snap, api.SearchRequest{Query: "Why cursor and not page numbers?"})
	answer := citationOf(r, "pg-2")
	if answer == "" || len(r.CitationPack) < 3 {
		t.Fatalf("results %v: want the answer cited beside the others", ids(r))
	}
	s := r.AnswerSynthesis
	for _, id := range []string{"q-1", "q-2", "ack-1", "ack-2"} {
		if c := citationOf(r, id); c != "" && slices.Contains(s.CitationIDs, c) {
			t.Errorf("bullets %v quote %s (%s), which answers nothing", s.CitationIDs, c, id)
		}
	}
	if len(s.CitationIDs) == 0 || s.CitationIDs[0] != answer || !strings.Contains(s.Summary, answer+" ") {
		t.Errorf("summary %q, bullets %v: want the answer %s first", s.Summary, s.CitationIDs, answer)
	}
	if !slices.Equal(s.Citations, s.CitationIDs) || len(s.Bullets) != len(s.CitationIDs) {
		t.Errorf("citations %v, citationIds %v, %d bullets: want them to agree", s.Citations, s.CitationIDs, len(s.Bullets))
	}
}

// TestSynthesis_onlyQuestionsAreStillQuoted: when every citation asks,
// the synthesis quotes them rather than nothing: they are the evidence
// there is.
func TestSynthesis_onlyQuestionsAreStillQuoted(t *testing.T) {
	snap := build(t, records(t,
		`{"id":"q-1","date":"2026-06-21","role":"user","text":"Why cursor and not page numbers?"}`,
	))
	s := ask(t, engineWith(), snap, api.SearchRequest{Query: "cursor page numbers"}).AnswerSynthesis
	if s.Status != "ready" || len(s.Bullets) != 1 {
		t.Errorf("synthesis %s with %d bullets, want the one question quoted", s.Status, len(s.Bullets))
	}
}

// TestSynthesis_sameWordsAreOneBullet: two citations of the same words
// (one memory in a record and a note) are quoted once; the bullets
// repeated the text, and the third bullet, another memory, was lost.
func TestSynthesis_sameWordsAreOneBullet(t *testing.T) {
	snap := build(t,
		records(t,
			`{"id":"inc-1","date":"2026-07-01","project":"infra","text":"The deploy failed because port 8443 was taken; fixed by moving to 8444."}`,
			`{"id":"inc-2","date":"2026-07-03","project":"infra","text":"The deploy failed again: port 8444 was blocked by the firewall until the rule was added."}`,
			`{"id":"inc-3","date":"2026-07-05","project":"infra","text":"The deploy failed on a missing secret; the port was fine."}`,
		),
		notes(t, map[string]string{"deploys.md": "# Deploys\n\n## 2026-07-01\n\nThe deploy failed because port 8443 was taken; fixed by moving to 8444.\n"}),
	)
	r := ask(t, engineWith(), snap, api.SearchRequest{Query: "why did the deploy fail on port 8443"})
	if citationOf(r, "inc-1") == "" || citationOf(r, "deploys.md#deploys-2026-07-01") == "" {
		t.Fatalf("results %v: want both copies cited", ids(r))
	}
	s := r.AnswerSynthesis
	seen := map[string]bool{}
	for _, b := range s.Bullets {
		if seen[b.Text] {
			t.Errorf("bullet %s repeats %q", b.CitationID, b.Text)
		}
		seen[b.Text] = true
	}
	if len(s.Bullets) != 3 {
		t.Errorf("%d bullets, want 3 distinct ones of %d citations", len(s.Bullets), len(r.CitationPack))
	}
}

// TestCitation_excerptEndsBetweenWords: an excerpt cut at 277 characters
// ends between words, never inside a word or identifier: cut inside
// parseConfigFromEnvironment it named a function that does not exist
// ("parseConfigFromEn..."). Chinese, which has no spaces, is cut between
// characters as before, and a cut that already falls between words
// keeps the last word.
func TestCitation_excerptEndsBetweenWords(t *testing.T) {
	filler := strings.Repeat("alphabeta ", 26) // 260 characters
	for _, tt := range []struct{ name, text, want string }{
		{"identifier", filler + "parseConfigFromEnvironment reads zeta", strings.TrimSpace(filler) + "..."},
		{"path", filler + "wrote src/internal/config/load.go and zeta", filler + "wrote..."},
		{"between words", filler + "sixteen letters. zeta " + strings.Repeat("x", 30), filler + "sixteen letters...."},
		{"chinese", strings.Repeat("定时任务迁移", 50) + " zeta", strings.Repeat("定时任务迁移", 46) + "定..."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			snap := build(t, records(t, fmt.Sprintf(`{"id":"a","date":"2026-05-04","text":%q}`, tt.text)))
			r := ask(t, engineWith(), snap, api.SearchRequest{Query: "zeta"})
			if len(r.CitationPack) != 1 {
				t.Fatalf("results %v, want a", ids(r))
			}
			if got := r.CitationPack[0].Excerpt; got != tt.want {
				t.Errorf("excerpt ends %q, want %q", tail(got), tail(tt.want))
			}
		})
	}
}

// TestEvents_sectionsOfANoteAreEventsOfTheirOwn: a note that logs
// incidents one section each, undated (so each takes the file's date),
// holds as many events as sections; it was one event, and "多少次故障"
// was answered "找到 1 个独立事件" for four. The subsections of one
// incident (a "### Fix" under "## Database outage") stay one.
func TestEvents_sectionsOfANoteAreEventsOfTheirOwn(t *testing.T) {
	long := strings.Repeat("The replica lagged and the failover script retried the promotion. ", 40)
	snap := build(t, notes(t, map[string]string{
		"incidents.md": "# Incidents\n\n" +
			"## Deploy failure\n\nThe deploy failed because port 8443 was taken; fixed by moving to 8444.\n\n" +
			"## Database outage\n\nThe database was down for 20 minutes after the disk filled.\n\n" +
			"### Fix\n\nThe database was restored from a snapshot and the disk alert lowered.\n\n" +
			"## Certificate expiry\n\nThe TLS certificate expired and the dashboard failed for an hour.\n\n" +
			"## Replica failover\n\n" + long + "\n",
	}))
	for _, query := range []string{"how many incidents happened", "多少次故障"} {
		r := ask(t, engineWith(), snap, api.SearchRequest{Query: query, TopK: 8})
		sections := map[string]bool{}
		for _, c := range r.CitationPack {
			h := c.Provenance.HeadingPath
			sections[strings.Join(h[:min(2, len(h))], "/")] = true
		}
		if len(r.CitationPack) < 4 {
			t.Fatalf("%s: results %v, want the sections cited", query, ids(r))
		}
		if n := r.EventAggregation.EventCount; n != len(sections) {
			t.Errorf("%s: eventCount %d, want %d, one for each incident cited: %v", query, n, len(sections), r.EventAggregation.Events)
		}
	}
}
