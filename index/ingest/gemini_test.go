package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// geminiHome is a Gemini CLI home: a session with every line shape
// (metadata, prompts with parts, a message written again with its tool
// calls, a rewind, a $set summary, notices, a type and a record kind of a
// later build, a torn last line), a sub-agent's session, a legacy .json
// migrated to a .jsonl, a legacy .json alone in an older install's
// sha256 folder, and the files that are not read (logs.json, checkpoints,
// history).
const geminiHome = "testdata/gemini/home"

const (
	geminiMain   = "9e0f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b"
	geminiSub    = "5a5a5a5a-0000-4000-8000-000000000005"
	geminiPair   = "7c7c7c7c-1111-4222-8333-444444444444"
	geminiLedger = "1a1a1a1a-2222-4333-8444-555555555555"
)

type geminiWant struct {
	ID, Role, Text, Project, Session, Conversation, Time, Title, File string
	Line                                                              int
}

// TestReadGemini_records: the recordings of a Gemini home are dialogue
// records of agent gemini keyed by session and message id: the last
// record of an id wins, a rewind removes what it names, notices,
// thoughts, tool output and the files an @path pulled in are dropped,
// tool calls are one line each, a sub-agent's prompt is the assistant's,
// a legacy file migrated to a .jsonl is read once (from the .jsonl), the
// project comes from .project_root, else projects.json (an older
// install's sha256 folder too), and shapes of later builds are reported
// once without stopping the read.
func TestReadGemini_records(t *testing.T) {
	all, problems := collect(t, config.Source{Name: "gm", Kind: config.KindGemini, Path: geminiHome})
	var recs []memory.Record
	for _, r := range all {
		if filepath.Base(r.Path) != "GEMINI.md" {
			recs = append(recs, r)
		}
	}
	sub := "gemini:" + geminiMain + "/" + geminiSub
	want := []geminiWant{
		{ID: geminiSub + ":s-1", Role: "assistant", Text: "Find which test in the integration suite is flaky", Project: "billing",
			Session: geminiMain, Conversation: sub, Time: "2026-03-02T11:00:21Z", Line: 2, File: geminiSub + ".jsonl"},
		{ID: geminiSub + ":s-3", Role: "assistant", Text: "TestOrderSync is flaky: it sleeps one second instead of waiting for the database.\n[tool: search_file_content time.Sleep]",
			Project: "billing", Session: geminiMain, Conversation: sub, Time: "2026-03-02T11:00:48Z", Line: 4, File: geminiSub + ".jsonl"},
		{ID: geminiPair + ":m-1", Role: "user", Text: "Which port does staging use?", Project: "billing", Session: geminiPair,
			Conversation: "gemini:" + geminiPair, Time: "2026-03-01T10:00:05Z", Line: 2, File: "session-2026-03-01T10-00-7c7c7c7c.jsonl"},
		{ID: geminiPair + ":m-2", Role: "assistant", Text: "Staging listens on 3037.", Project: "billing", Session: geminiPair,
			Conversation: "gemini:" + geminiPair, Time: "2026-03-01T10:00:30Z", Line: 3, File: "session-2026-03-01T10-00-7c7c7c7c.jsonl"},
		{ID: geminiPair + ":m-3", Role: "user", Text: "And production?", Project: "billing", Session: geminiPair,
			Conversation: "gemini:" + geminiPair, Time: "2026-03-03T09:00:00Z", Line: 5, File: "session-2026-03-01T10-00-7c7c7c7c.jsonl"},
		{ID: geminiMain + ":u-1", Role: "user", Text: "Summarize why the CI job failed\n[image]", Project: "billing", Session: geminiMain,
			Conversation: "gemini:" + geminiMain, Time: "2026-03-02T11:00:05Z", Title: "CI failure triage", Line: 2, File: "session-2026-03-02T11-00-9e0f1a2b.jsonl"},
		{ID: geminiMain + ":g-1", Role: "assistant", Text: "The integration test times out waiting for Postgres; checking the failed log.\n[tool: run_shell_command gh run view 123 --log-failed]",
			Project: "billing", Session: geminiMain, Conversation: "gemini:" + geminiMain, Time: "2026-03-02T11:00:19Z", Title: "CI failure triage", Line: 5, File: "session-2026-03-02T11-00-9e0f1a2b.jsonl"},
		{ID: geminiMain + ":u-3", Role: "user", Text: "Instead, add a health check before the tests @.github/ci.yml", Project: "billing", Session: geminiMain,
			Conversation: "gemini:" + geminiMain, Time: "2026-03-02T11:02:00Z", Title: "CI failure triage", Line: 10, File: "session-2026-03-02T11-00-9e0f1a2b.jsonl"},
		{ID: geminiMain + ":g-3", Role: "assistant", Text: "Added a pg_isready wait step before the test job.\n[tool: replace .github/ci.yml]", Project: "billing", Session: geminiMain,
			Conversation: "gemini:" + geminiMain, Time: "2026-03-02T11:02:30Z", Title: "CI failure triage", Line: 11, File: "session-2026-03-02T11-00-9e0f1a2b.jsonl"},
		{ID: geminiLedger + ":l-1", Role: "user", Text: "Where do ledger exports go?", Project: "ledger", Session: geminiLedger,
			Conversation: "gemini:" + geminiLedger, Time: "2026-02-27T09:00:10Z", Title: "Ledger export location", Line: 1, File: "session-2026-02-27T09-00-1a1a1a1a.json"},
		{ID: geminiLedger + ":l-2", Role: "assistant", Text: "To the ledger-exports bucket, one folder per month.", Project: "ledger", Session: geminiLedger,
			Conversation: "gemini:" + geminiLedger, Time: "2026-02-27T09:00:40Z", Title: "Ledger export location", Line: 2, File: "session-2026-02-27T09-00-1a1a1a1a.json"},
	}
	checkGemini(t, recs, want)
	var reasons []string
	for _, p := range problems {
		reasons = append(reasons, filepath.Base(p.Path)+":"+strconv.Itoa(p.Line)+": "+p.Reason)
	}
	wantProblems := []string{
		`session-2026-03-02T11-00-9e0f1a2b.jsonl:13: line shape this reader does not understand (message type "compression_marker"): not read; later ones in this file are not reported again`,
		`session-2026-03-02T11-00-9e0f1a2b.jsonl:14: line shape this reader does not understand (a line without id, $set or $rewindTo): not read; later ones in this file are not reported again`,
	}
	if strings.Join(reasons, "\n") != strings.Join(wantProblems, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(reasons, "\n"), strings.Join(wantProblems, "\n"))
	}
	if got := DefaultSourceSet(config.KindGemini); got != "agent-transcripts" {
		t.Errorf("DefaultSourceSet(gemini) = %q", got)
	}
}

// TestReadGemini_memoryFile: the home's GEMINI.md, where save_memory
// writes what Gemini CLI was asked to remember, is read as notes of agent
// gemini, a section each; a project folder's GEMINI.md is not.
func TestReadGemini_memoryFile(t *testing.T) {
	all, _ := collect(t, config.Source{Name: "gm", Kind: config.KindGemini, Path: geminiHome})
	var headings []string
	remembered := false
	for _, r := range all {
		if filepath.Base(r.Path) != "GEMINI.md" {
			continue
		}
		if r.Path != filepath.Join(geminiHome, "GEMINI.md") || r.Agent != config.KindGemini || r.SourceSet != "notes" || r.Layer == "dialogue" {
			t.Errorf("note %s: path %s agent %q source set %q layer %q", r.ID, r.Path, r.Agent, r.SourceSet, r.Layer)
		}
		headings = append(headings, strings.Join(r.HeadingPath, " > "))
		remembered = remembered || strings.Contains(r.Text, "banker's rounding for invoice totals")
	}
	if len(headings) != 2 || !remembered {
		t.Errorf("notes under %q, the remembered fact found: %v; want the two sections of the home's GEMINI.md", headings, remembered)
	}
}

// checkGemini compares records of a Gemini home with want, and checks
// what every one carries.
func checkGemini(t *testing.T, recs []memory.Record, want []geminiWant) {
	t.Helper()
	for i, r := range recs {
		if r.Agent != config.KindGemini || r.Kind != config.KindGemini || r.Layer != "dialogue" || r.Date != r.Time.UTC().Format("2006-01-02") {
			t.Errorf("record %d: agent %q kind %q layer %q date %q", i, r.Agent, r.Kind, r.Layer, r.Date)
		}
		if m := noiseLeak.FindString(r.Text); m != "" {
			t.Errorf("record %s: noise %q leaked into %q", r.ID, m, r.Text)
		}
	}
	if len(recs) != len(want) {
		for _, r := range recs {
			t.Logf("got %s %s %q", r.ID, r.Role, r.Text)
		}
		t.Fatalf("got %d records, want %d", len(recs), len(want))
	}
	for i, w := range want {
		r := recs[i]
		got := geminiWant{ID: r.ID, Role: r.Role, Text: r.Text, Project: r.Project, Session: r.SessionID, Conversation: r.Conversation,
			Time: r.Time.UTC().Format(time.RFC3339), Title: r.Title, File: filepath.Base(r.Path), Line: r.Line}
		if got != w {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, got, w)
		}
	}
}

// writeGemini writes a recording into a fresh Gemini home, under a
// project registered in projects.json only.
func writeGemini(t *testing.T, body string) (config.Source, File) {
	t.Helper()
	home := t.TempDir()
	rel := "tmp/shop/chats/session-2026-03-05T08-00-aaaaaaaa.jsonl"
	p := filepath.Join(home, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "projects.json"), []byte(`{"projects":{"/home/dev/src/shop":"shop"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return config.Source{Name: "gm", Kind: config.KindGemini, Path: home}, File{Path: p, Rel: rel}
}

func appendGemini(t *testing.T, f File, lines string) {
	t.Helper()
	fh, err := os.OpenFile(f.Path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := fh.WriteString(lines); err != nil {
		t.Fatal(err)
	}
}

const geminiShopHead = `{"sessionId":"aaaaaaaa-0000-4000-8000-00000000000a","projectHash":"x","startTime":"2026-03-05T08:00:00.000Z","kind":"main"}
{"id":"u-1","timestamp":"2026-03-05T08:00:05.000Z","type":"user","content":[{"text":"Which queue does the mailer use?"}]}
{"id":"g-1","timestamp":"2026-03-05T08:00:09.000Z","type":"gemini","content":"The mailer reads the outbound queue."}
`

// TestReadGemini_onward: a recording read on from its cursor gives the
// appended messages only, and the same records a whole read gives; a torn
// last line is left for the next read; a message written again, a rewind
// or a new summary in what was appended is ErrFileChanged (the file is
// then read whole, and what the rewind removed is gone).
func TestReadGemini_onward(t *testing.T) {
	src, f := writeGemini(t, geminiShopHead+`{"id":"u-2","timestamp":"2026-03-05T08:01:00.000Z","type":"user","content":"And the retry`)
	var first readResult
	readFrom(t, src, f.Path, f.Rel, Cursor{}, &first)
	if len(first.records) != 2 || first.cursor.Line != 3 {
		t.Fatalf("first read: %d records, cursor at line %d; want 2 and line 3 (the torn line left)", len(first.records), first.cursor.Line)
	}
	if r := first.records[0]; r.Project != "shop" || r.ID != "aaaaaaaa-0000-4000-8000-00000000000a:u-1" {
		t.Errorf("project %q id %q", r.Project, r.ID)
	}

	// The torn line completed, and the answer appended.
	appendGemini(t, f, ` policy?"}
{"id":"g-2","timestamp":"2026-03-05T08:01:04.000Z","type":"gemini","content":"Three retries, then the dead-letter queue.","toolCalls":[{"id":"t","name":"read_file","args":{"absolute_path":"/home/dev/src/shop/mailer.go"}}]}
`)
	var second readResult
	readFrom(t, src, f.Path, f.Rel, first.cursor, &second)
	if len(second.records) != 2 || second.records[0].Text != "And the retry policy?" || second.records[1].Text != "Three retries, then the dead-letter queue.\n[tool: read_file /home/dev/src/shop/mailer.go]" {
		t.Fatalf("read on: %+v", second.records)
	}
	var whole readResult
	readFrom(t, src, f.Path, f.Rel, Cursor{}, &whole)
	both := readResult{records: append(append([]memory.Record(nil), first.records...), second.records...), cursor: second.cursor}
	sameResult(t, "read on", both, whole)

	for _, c := range []struct{ name, lines string }{
		{"written again", `{"id":"g-1","timestamp":"2026-03-05T08:00:09.000Z","type":"gemini","content":"The mailer reads the outbound queue.","tokens":{"input":10,"output":5}}` + "\n"},
		{"rewound", `{"$rewindTo":"u-2"}` + "\n"},
		{"summarized", `{"$set":{"summary":"Mailer queue and retries"}}` + "\n"},
		{"history synced", `{"$set":{"messages":[{"id":"u-1","type":"user","content":"Which queue does the mailer use?"}]}}` + "\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, f := writeGemini(t, geminiShopHead)
			var before readResult
			readFrom(t, src, f.Path, f.Rel, Cursor{}, &before)
			appendGemini(t, f, c.lines)
			_, err := ReadFile(context.Background(), src, f, before.cursor, Sink{
				Record: func(r memory.Record) error {
					t.Errorf("a record from a read that changes earlier ones: %+v", r)
					return nil
				},
				Problem: func(Problem) {},
			})
			if !errors.Is(err, ErrFileChanged) {
				t.Fatalf("read on: %v, want ErrFileChanged", err)
			}
		})
	}

	// Read whole after the rewind, the removed turns are gone.
	src, f = writeGemini(t, geminiShopHead+`{"$rewindTo":"g-1"}
{"id":"g-1b","timestamp":"2026-03-05T08:00:30.000Z","type":"gemini","content":"The mailer reads the priority queue first."}
`)
	var rewound readResult
	readFrom(t, src, f.Path, f.Rel, Cursor{}, &rewound)
	if len(rewound.records) != 2 || rewound.records[1].Text != "The mailer reads the priority queue first." || rewound.records[1].Line != 5 {
		t.Fatalf("after the rewind: %+v", rewound.records)
	}
	// Gemini's history sync writes the whole message list in a $set: a
	// message listed again is its last version, one left out (g-1) stays,
	// and later ones still count.
	src, f = writeGemini(t, geminiShopHead+`{"$set":{"messages":[{"id":"u-1","timestamp":"2026-03-05T08:00:05.000Z","type":"user","content":[{"text":"Which queue does the mailer use?"}]},{"id":"s-1","timestamp":"2026-03-05T08:00:20.000Z","type":"user","content":[{"text":"Summary so far: the mailer reads the outbound queue."}]}],"lastUpdated":"2026-03-05T08:00:20.000Z"}}
{"id":"g-2","timestamp":"2026-03-05T08:00:40.000Z","type":"gemini","content":"Retries go to the dead-letter queue."}
`)
	var synced readResult
	readFrom(t, src, f.Path, f.Rel, Cursor{}, &synced)
	var ids []string
	for _, r := range synced.records {
		ids = append(ids, strings.TrimPrefix(r.ID, "aaaaaaaa-0000-4000-8000-00000000000a:")+"@"+strconv.Itoa(r.Line))
	}
	if strings.Join(ids, " ") != "u-1@4 g-1@3 s-1@4 g-2@5" {
		t.Errorf("after a $set of messages: %v, want u-1@4 g-1@3 s-1@4 g-2@5", ids)
	}

	// A rewind to an id never read removes every message, as Gemini's
	// own loader does.
	appendGemini(t, f, `{"$rewindTo":"nowhere"}`+"\n")
	var cleared readResult
	readFrom(t, src, f.Path, f.Rel, Cursor{}, &cleared)
	if len(cleared.records) != 0 {
		t.Fatalf("after a rewind to an unknown id: %+v", cleared.records)
	}
}

// TestReadGemini_legacyMigrated: a legacy recording with no .jsonl beside
// it is read; once Gemini migrates it, only the .jsonl is, and the
// .jsonl is the legacy file's companion (a change there is a change of
// the legacy file's).
func TestReadGemini_legacyMigrated(t *testing.T) {
	src, f := writeGemini(t, "")
	legacy := strings.TrimSuffix(f.Path, "l")
	if err := os.Remove(f.Path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(legacy, []byte(`{"sessionId":"aaaaaaaa-0000-4000-8000-00000000000a","messages":[{"id":"u-1","timestamp":"2026-03-05T08:00:05.000Z","type":"user","content":"Which queue does the mailer use?"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	lf := File{Path: legacy, Rel: strings.TrimSuffix(f.Rel, "l")}
	var alone readResult
	readFrom(t, src, lf.Path, lf.Rel, Cursor{}, &alone)
	if len(alone.records) != 1 || alone.records[0].ID != "aaaaaaaa-0000-4000-8000-00000000000a:u-1" || alone.records[0].Line != 1 {
		t.Fatalf("legacy alone: %+v", alone.records)
	}
	if got := Companions(config.KindGemini, legacy); len(got) != 1 || got[0] != f.Path {
		t.Errorf("Companions = %v, want [%s]", got, f.Path)
	}
	if err := os.WriteFile(f.Path, []byte(geminiShopHead), 0o600); err != nil {
		t.Fatal(err)
	}
	var migrated readResult
	readFrom(t, src, lf.Path, lf.Rel, Cursor{}, &migrated)
	if len(migrated.records) != 0 || len(migrated.problems) != 0 {
		t.Fatalf("legacy beside its .jsonl: %+v %v", migrated.records, migrated.problems)
	}
}

// TestReadGemini_resumeEqualsWhole is what incremental sync rests on, for
// a recording whose later lines may change earlier messages: cut at every
// line boundary and in the middle of every line, the part written read
// first and the rest read on from its cursor gives a whole read's
// records, problems and cursor, unless the read on says ErrFileChanged,
// and then the file read again whole (as a sync does) gives them.
func TestReadGemini_resumeEqualsWhole(t *testing.T) {
	listing, err := List(config.Source{Name: "gm", Kind: config.KindGemini, Path: geminiHome})
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for _, f := range listing.Files {
		if !LineBased(config.KindGemini, f.Path) {
			continue
		}
		t.Run(f.Rel, func(t *testing.T) {
			content, err := os.ReadFile(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			// A copy in a home of its own, under the same project.
			home := t.TempDir()
			path := filepath.Join(home, filepath.FromSlash(f.Rel))
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, "projects.json"), []byte(`{"projects":{"/home/dev/src/billing":"billing"}}`), 0o600); err != nil {
				t.Fatal(err)
			}
			src := config.Source{Name: "gm", Kind: config.KindGemini, Path: home}
			file := File{Path: path, Rel: f.Rel}
			write := func(b []byte) {
				t.Helper()
				if err := os.WriteFile(path, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			write(content)
			var whole readResult
			readFrom(t, src, path, f.Rel, Cursor{}, &whole)
			start := 0
			for i, c := range content {
				if c != '\n' {
					continue
				}
				for _, cut := range []int{i + 1, start + (i+1-start)/2} {
					var got readResult
					write(content[:cut])
					readFrom(t, src, path, f.Rel, Cursor{}, &got)
					write(content)
					cur, err := ReadFile(context.Background(), src, file, got.cursor, Sink{
						Record:  func(r memory.Record) error { got.records = append(got.records, r); return nil },
						Problem: func(p Problem) { got.problems = append(got.problems, p) },
					})
					if errors.Is(err, ErrFileChanged) {
						changed++
						got = readResult{}
						readFrom(t, src, path, f.Rel, Cursor{}, &got)
					} else if err != nil {
						t.Fatalf("cut at byte %d: %v", cut, err)
					} else {
						got.cursor = cur
					}
					sameResult(t, "cut at byte "+strconv.Itoa(cut), got, whole)
				}
				start = i + 1
			}
		})
	}
	if changed == 0 {
		t.Error("no cut read on into a line that changes an earlier message")
	}
}

// geminiLong is a recording of n prompts (u-0 ...), a minute apart from
// 2026-03-05T08:00, after geminiShopHead's two messages.
func geminiLong(n int) string {
	var b strings.Builder
	b.WriteString(geminiShopHead)
	start := time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC)
	for i := range n {
		ts := start.Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05.000Z")
		b.WriteString(`{"id":"u-` + strconv.Itoa(i+2) + `","timestamp":"` + ts + `","type":"user","content":"prompt number ` + strconv.Itoa(i) + `"}` + "\n")
	}
	return b.String()
}

// TestReadGemini_farRewrite: a message Gemini writes again long after it
// (more newer messages than the window of ids a cursor remembers) is
// still a change of what an earlier read gave: the file is read again
// whole, so that the message is indexed once, with its last text. A new
// message after many is not.
func TestReadGemini_farRewrite(t *testing.T) {
	src, f := writeGemini(t, geminiLong(geminiSeenWindow+200))
	var before readResult
	readFrom(t, src, f.Path, f.Rel, Cursor{}, &before)
	appendGemini(t, f, `{"id":"g-1","timestamp":"2026-03-05T08:00:09.000Z","type":"gemini","content":"The mailer reads the outbound and the priority queue."}`+"\n")
	_, err := ReadFile(context.Background(), src, f, before.cursor, Sink{Record: func(memory.Record) error { return nil }, Problem: func(Problem) {}})
	if !errors.Is(err, ErrFileChanged) {
		t.Fatalf("a message written again after %d others, read on: %v, want ErrFileChanged", geminiSeenWindow+200, err)
	}
	var whole readResult
	readFrom(t, src, f.Path, f.Rel, Cursor{}, &whole)
	var texts []string
	for _, r := range whole.records {
		if strings.HasSuffix(r.ID, ":g-1") {
			texts = append(texts, r.Text)
		}
	}
	if len(texts) != 1 || texts[0] != "The mailer reads the outbound and the priority queue." {
		t.Errorf("g-1 read whole: %q, want its last text once", texts)
	}

	// A new message, however many came before it, is read on.
	src, f = writeGemini(t, geminiLong(geminiSeenWindow+200))
	readFrom(t, src, f.Path, f.Rel, Cursor{}, &before)
	appendGemini(t, f, `{"id":"g-new","timestamp":"2026-03-06T08:00:00.000Z","type":"gemini","content":"Done."}`+"\n")
	var onward readResult
	readFrom(t, src, f.Path, f.Rel, before.cursor, &onward)
	if len(onward.records) != 1 || onward.records[0].Text != "Done." {
		t.Fatalf("a new message read on: %+v", onward.records)
	}

	// A message without a time, or stamped before the latest read (a clock
	// set back), cannot be told from one written again: the file is read
	// whole, which gives it once.
	for _, line := range []string{
		`{"id":"g-undated","type":"gemini","content":"Undated."}`,
		`{"id":"g-early","timestamp":"2026-03-05T08:30:00.000Z","type":"gemini","content":"Early."}`,
	} {
		src, f = writeGemini(t, geminiLong(geminiSeenWindow+200))
		var read readResult
		readFrom(t, src, f.Path, f.Rel, Cursor{}, &read)
		appendGemini(t, f, line+"\n")
		_, err := ReadFile(context.Background(), src, f, read.cursor, Sink{Record: func(memory.Record) error { return nil }, Problem: func(Problem) {}})
		if !errors.Is(err, ErrFileChanged) {
			t.Errorf("%s read on: %v, want ErrFileChanged", line, err)
		}
	}
}

// geminiCompressed is a recording Gemini compressed: its history sync
// writes the message list again, the summary of the earlier turns (a
// user turn: the model's scratchpad, then a <state_snapshot>) and the
// model's acknowledgement first, then the turns it kept; kept is how the
// list gives them (their ids, or fresh ids, as a sub-agent's does).
func geminiCompressed(kept string) string {
	return geminiShopHead + `{"id":"u-2","timestamp":"2026-03-05T08:01:00.000Z","type":"user","content":[{"text":"Move the mailer to the priority queue"}]}
{"id":"g-2","timestamp":"2026-03-05T08:01:30.000Z","type":"gemini","content":"The mailer now reads the priority queue."}
{"$set":{"messages":[{"id":"c-1","timestamp":"2026-03-05T08:02:00.000Z","type":"user","content":[{"text":"<scratchpad>The user moved the mailer.</scratchpad>\n<state_snapshot>\n    <overall_goal>Move the mailer to the priority queue.</overall_goal>\n</state_snapshot>"}]},{"id":"c-2","timestamp":"2026-03-05T08:02:00.000Z","type":"gemini","content":[{"text":"Got it. Thanks for the additional context!"}]},` + kept + `],"lastUpdated":"2026-03-05T08:02:00.000Z"}}
{"id":"u-3","timestamp":"2026-03-05T08:03:00.000Z","type":"user","content":[{"text":"Now add a retry limit"}]}
`
}

// TestReadGemini_compressed: when Gemini compresses a conversation, the
// turns it summarized stay indexed (the compression changes what the
// model is sent, not what was said), the summary is one assistant record
// of the snapshot (as Claude Code's and Codex's compaction summaries
// are), without the scratchpad before it or the acknowledgement after
// it, and the turns kept are not indexed again, under their ids or
// fresh ones.
func TestReadGemini_compressed(t *testing.T) {
	for _, c := range []struct{ name, kept string }{
		{"same ids", `{"id":"u-2","timestamp":"2026-03-05T08:01:00.000Z","type":"user","content":[{"text":"Move the mailer to the priority queue"}]},{"id":"g-2","timestamp":"2026-03-05T08:01:30.000Z","type":"gemini","content":[{"text":"The mailer now reads the priority queue."}]}`},
		{"fresh ids", `{"id":"k-1","timestamp":"2026-03-05T08:02:00.000Z","type":"user","content":[{"text":"Move the mailer to the priority queue"}]},{"id":"k-2","timestamp":"2026-03-05T08:02:00.000Z","type":"gemini","content":[{"text":"The mailer now reads the priority queue."}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, f := writeGemini(t, geminiCompressed(c.kept))
			var got readResult
			readFrom(t, src, f.Path, f.Rel, Cursor{}, &got)
			var recs []string
			for _, r := range got.records {
				recs = append(recs, strings.TrimPrefix(r.ID, "aaaaaaaa-0000-4000-8000-00000000000a:")+" "+r.Role+" "+strconv.Quote(r.Text))
			}
			want := []string{
				`u-1 user "Which queue does the mailer use?"`,
				`g-1 assistant "The mailer reads the outbound queue."`,
				`u-2 user "Move the mailer to the priority queue"`,
				`g-2 assistant "The mailer now reads the priority queue."`,
				`c-1 assistant "<overall_goal>Move the mailer to the priority queue.</overall_goal>"`,
				`u-3 user "Now add a retry limit"`,
			}
			if strings.Join(recs, "\n") != strings.Join(want, "\n") {
				t.Errorf("records:\n%s\nwant:\n%s", strings.Join(recs, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestReadGemini_toolResponses: Gemini records the tool responses it
// sends back as a user message of functionResponse parts. That message
// is not a prompt: the tool calls before it stay pending for the answer
// that follows.
func TestReadGemini_toolResponses(t *testing.T) {
	src, f := writeGemini(t, geminiShopHead+`{"id":"u-2","timestamp":"2026-03-05T08:01:00.000Z","type":"user","content":[{"text":"What is the retry limit?"}]}
{"id":"g-2","timestamp":"2026-03-05T08:01:02.000Z","type":"gemini","content":"","toolCalls":[{"id":"call-1","name":"read_file","args":{"file_path":"/home/dev/src/shop/mailer.go"},"status":"success","timestamp":"2026-03-05T08:01:03.000Z"}]}
{"id":"r-1","timestamp":"2026-03-05T08:01:03.100Z","type":"user","content":[{"functionResponse":{"id":"call-1","name":"read_file","response":{"output":"const retries = 3"}}}]}
{"id":"g-3","timestamp":"2026-03-05T08:01:06.000Z","type":"gemini","content":"Three retries."}
`)
	var got readResult
	readFrom(t, src, f.Path, f.Rel, Cursor{}, &got)
	if n := len(got.records); n != 4 || got.records[3].Text != "Three retries.\n[tool: read_file /home/dev/src/shop/mailer.go]" {
		for _, r := range got.records {
			t.Logf("%s %s %q", r.ID, r.Role, r.Text)
		}
		t.Fatalf("got %d records; want 4, the answer with the tool call read before the tool response", n)
	}
}

// TestReadGemini_sessionContext: the session context Gemini puts first
// in the model's history (date, operating system, folders: its history
// sync writes it as a user message, an older build as plain text) and
// the model's canned acknowledgement of it are not dialogue; the context
// a hook adds to a prompt is cut from it.
func TestReadGemini_sessionContext(t *testing.T) {
	src, f := writeGemini(t, `{"sessionId":"aaaaaaaa-0000-4000-8000-00000000000a","projectHash":"x","startTime":"2026-03-05T08:00:00.000Z","kind":"main"}
{"$set":{"messages":[{"id":"0f3c9a7e5b1d4c2a8e6f0b9d7c5a3e1f","timestamp":"2026-03-05T08:00:01.000Z","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nToday's date is Thursday, March 5, 2026.\nMy operating system is: linux\n</session_context>"}]},{"id":"1e2d3c4b5a69788796a5b4c3d2e1f0a9","timestamp":"2026-03-05T08:00:01.000Z","type":"gemini","content":[{"text":"Got it. Thanks for the context!"}]}],"lastUpdated":"2026-03-05T08:00:01.000Z"}}
{"id":"u-1","timestamp":"2026-03-05T08:00:05.000Z","type":"user","content":[{"text":"Which queue does the mailer use?\n<hook_context>branch: main</hook_context>"}]}
{"id":"g-1","timestamp":"2026-03-05T08:00:09.000Z","type":"gemini","content":"Got it. Thanks for the context!"}
{"id":"old-1","timestamp":"2026-03-05T08:01:00.000Z","type":"user","content":[{"text":"This is the Gemini CLI. We are setting up the context for our chat.\nToday's date is Thursday, March 5, 2026.\nMy operating system is: linux"}]}
`)
	var got readResult
	readFrom(t, src, f.Path, f.Rel, Cursor{}, &got)
	var recs []string
	for _, r := range got.records {
		recs = append(recs, strings.TrimPrefix(r.ID, "aaaaaaaa-0000-4000-8000-00000000000a:")+" "+r.Role+" "+strconv.Quote(r.Text))
	}
	// The model's words that only look like the acknowledgement, after a
	// prompt, are its answer.
	want := []string{
		`u-1 user "Which queue does the mailer use?"`,
		`g-1 assistant "Got it. Thanks for the context!"`,
	}
	if strings.Join(recs, "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(recs, "\n"), strings.Join(want, "\n"))
	}
}

// TestReadGemini_callOnce: a tool call both in a message's content (a
// functionCall part: a turn of calls only, or the history sync writing
// the model's parts) and in its toolCalls is one call, summarized once.
func TestReadGemini_callOnce(t *testing.T) {
	src, f := writeGemini(t, geminiShopHead+`{"id":"g-2","timestamp":"2026-03-05T08:01:02.000Z","type":"gemini","content":[{"text":"Checking.","thought":true},{"functionCall":{"id":"call-1","name":"read_file","args":{"file_path":"/home/dev/src/shop/mailer.go"}}}],"toolCalls":[{"id":"call-1","name":"read_file","args":{"file_path":"/home/dev/src/shop/mailer.go"},"status":"success","timestamp":"2026-03-05T08:01:03.000Z"},{"id":"call-2","name":"read_file","args":{"file_path":"/home/dev/src/shop/queue.go"},"status":"success","timestamp":"2026-03-05T08:01:03.000Z"}]}
{"id":"g-3","timestamp":"2026-03-05T08:01:06.000Z","type":"gemini","content":"Three retries."}
`)
	var got readResult
	readFrom(t, src, f.Path, f.Rel, Cursor{}, &got)
	want := "Three retries.\n[tool: read_file /home/dev/src/shop/mailer.go]\n[tool: read_file /home/dev/src/shop/queue.go]"
	if n := len(got.records); n != 3 || got.records[2].Text != want {
		for _, r := range got.records {
			t.Logf("%s %s %q", r.ID, r.Role, r.Text)
		}
		t.Fatalf("got %d records; want 3, the answer with each call once", n)
	}
}

// TestReadGemini_legacyCutShort: Gemini CLI rewrites a legacy recording
// in place (truncated, then written whole), so a read during that write,
// or the file a crash left in the middle of it, holds the start of the
// object only. The messages before the cut are read, and the cut is
// reported; the whole file, once written, gives them all.
func TestReadGemini_legacyCutShort(t *testing.T) {
	src, f := writeGemini(t, "")
	if err := os.Remove(f.Path); err != nil {
		t.Fatal(err)
	}
	legacy, rel := strings.TrimSuffix(f.Path, "l"), strings.TrimSuffix(f.Rel, "l")
	whole := `{"sessionId":"aaaaaaaa-0000-4000-8000-00000000000b","projectHash":"x","startTime":"2026-03-05T08:00:00.000Z","messages":[` +
		`{"id":"u-1","timestamp":"2026-03-05T08:00:05.000Z","type":"user","content":"Which queue does the mailer use?"},` +
		`{"id":"g-1","timestamp":"2026-03-05T08:00:09.000Z","type":"gemini","content":"The mailer uses the low-priority queue."},` +
		`{"id":"u-2","timestamp":"2026-03-05T08:01:00.000Z","type":"user","content":"And the invoices?"}],"summary":"Mailer queues"}`
	cut := strings.Index(whole, `"And the`)
	for _, tc := range []struct {
		body     string
		want     []string
		problems int
	}{
		{whole[:cut], []string{"u-1 Which queue does the mailer use?", "g-1 The mailer uses the low-priority queue."}, 1},
		{whole, []string{"u-1 Which queue does the mailer use?", "g-1 The mailer uses the low-priority queue.", "u-2 And the invoices?"}, 0},
	} {
		if err := os.WriteFile(legacy, []byte(tc.body), 0o600); err != nil {
			t.Fatal(err)
		}
		var got readResult
		readFrom(t, src, legacy, rel, Cursor{}, &got)
		var texts []string
		for _, r := range got.records {
			texts = append(texts, strings.TrimPrefix(r.ID, "aaaaaaaa-0000-4000-8000-00000000000b:")+" "+r.Text)
		}
		if !slices.Equal(texts, tc.want) {
			t.Errorf("read of %d bytes: records %q, want %q", len(tc.body), texts, tc.want)
		}
		if len(got.problems) != tc.problems || tc.problems > 0 && !strings.Contains(got.problems[0].Reason, "cut short") {
			t.Errorf("read of %d bytes: problems %v, want %d naming the cut", len(tc.body), got.problems, tc.problems)
		}
	}
	// What is not a recording is still said to be, read whole or cut.
	for body, reason := range map[string]string{
		`{"sessionId":"s","messages":{"id":"u-1"}}`: "unexpected messages",
		`["not", "an", "object"]`:                   "not a Gemini CLI recording",
		`{"sessionId":5,"messages":[]}`:             "not a Gemini CLI recording",
		``:                                          "not a Gemini CLI recording",
	} {
		if err := os.WriteFile(legacy, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		var got readResult
		readFrom(t, src, legacy, rel, Cursor{}, &got)
		if len(got.records) != 0 || len(got.problems) != 1 || !strings.Contains(got.problems[0].Reason, reason) {
			t.Errorf("read of %q: records %v problems %v, want one problem saying %q", body, got.records, got.problems, reason)
		}
	}
}

// TestReadGemini_editorContext: in IDE mode Gemini CLI adds the editor's
// state (the active file, the cursor, the selection, the other open
// files) to the history as a user turn of its own, whole or as the
// changes since the last one. It is not what the user said, and the tool
// calls waiting for an answer still wait for it.
func TestReadGemini_editorContext(t *testing.T) {
	src, f := writeGemini(t, `{"sessionId":"aaaaaaaa-0000-4000-8000-00000000000c","projectHash":"x","startTime":"2026-03-05T08:00:00.000Z","kind":"main"}
{"id":"ide-1","timestamp":"2026-03-05T08:00:04.000Z","type":"user","content":[{"text":"Here is the user's editor context as a JSON object. This is for your information only.\n`+"```"+`json\n{\n  \"activeFile\": {\n    \"path\": \"/home/dev/src/shop/MARKER.ts\",\n    \"cursor\": {\"line\": 5, \"character\": 10}\n  }\n}\n`+"```"+`"}]}
{"id":"u-1","timestamp":"2026-03-05T08:00:05.000Z","type":"user","content":[{"text":"Why does the cart total drift?"}]}
{"id":"g-1","timestamp":"2026-03-05T08:00:07.000Z","type":"gemini","content":"","toolCalls":[{"id":"t-1","name":"read_file","args":{"file_path":"src/cart.ts"}}]}
{"id":"ide-2","timestamp":"2026-03-05T08:00:08.000Z","type":"user","content":[{"text":"Here is a summary of changes in the user's editor context, in JSON format. This is for your information only.\n`+"```"+`json\n{\"changes\": {\"activeFileChanged\": {\"path\": \"/home/dev/src/shop/MARKER2.ts\"}}}\n`+"```"+`"}]}
{"id":"g-2","timestamp":"2026-03-05T08:00:09.000Z","type":"gemini","content":"Each line is rounded first."}
`)
	var got readResult
	readFrom(t, src, f.Path, f.Rel, Cursor{}, &got)
	var recs []string
	for _, r := range got.records {
		recs = append(recs, strings.TrimPrefix(r.ID, "aaaaaaaa-0000-4000-8000-00000000000c:")+" "+r.Role+" "+strconv.Quote(r.Text))
	}
	want := []string{
		`u-1 user "Why does the cart total drift?"`,
		`g-2 assistant "Each line is rounded first.\n[tool: read_file src/cart.ts]"`,
	}
	if strings.Join(recs, "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(recs, "\n"), strings.Join(want, "\n"))
	}
}

// TestReadGemini_projectMemory: what save_memory is asked to remember for
// one project (scope "project", google-gemini/gemini-cli PR #24161) goes
// to the project's private memory folder, tmp/<project>/memory/, whose
// MEMORY.md is the index the tool appends to (tools/memoryTool.ts
// getProjectMemoryIndexFilePath; config/storage.ts getProjectMemoryDir is
// getProjectMemoryTempDir, <project temp dir>/memory), beside a legacy
// private GEMINI.md and the topic files it points to. They are read as
// notes of agent gemini, of the project Gemini registered for the folder;
// the skill drafts Auto Memory writes under memory/skills/ and its patch
// inbox are not memory. Before, only the home's GEMINI.md was read.
func TestReadGemini_projectMemory(t *testing.T) {
	home := t.TempDir()
	files := map[string]string{
		"tmp/billing/.project_root": "/home/dev/src/billing\n",
		"tmp/billing/chats/session-2026-11-02T10-00-3b3b3b3b.jsonl": `{"sessionId":"3b3b3b3b-0000-4000-8000-000000000003","projectHash":"billing","startTime":"2026-11-02T10:00:00.000Z","lastUpdated":"2026-11-02T10:00:00.000Z","kind":"main"}` + "\n" +
			`{"id":"u1","timestamp":"2026-11-02T10:00:05.000Z","type":"user","content":[{"text":"Remember that staging restores from the Sunday snapshot."}]}` + "\n",
		"tmp/billing/memory/MEMORY.md":                       "- Staging is restored from the Sunday snapshot.\n- [Release checklist](release.md)\n",
		"tmp/billing/memory/release.md":                      "# Release checklist\n\nTag from main only after the ledger replica caught up.\n",
		"tmp/billing/memory/GEMINI.md":                       "## Gemini Added Memories\n- Run migrations with a five second lock timeout.\n",
		"tmp/billing/memory/skills/restore-staging/SKILL.md": "---\nname: restore-staging\n---\nA drafted skill, not memory.\n",
		"tmp/billing/memory/.inbox/private/extraction.patch": "--- a/MEMORY.md\n+++ b/MEMORY.md\n",
		"tmp/billing/memory/.extraction-state.json":          `{"runs":[]}`,
		"tmp/billing/checkpoints/memory/notes.md":            "# A snapshot\n\nNot memory.\n",
	}
	for rel, text := range files {
		p := filepath.Join(home, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	recs, problems := collect(t, config.Source{Name: "gm", Kind: config.KindGemini, Path: home})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var notes []string
	for _, r := range recs {
		if r.Layer == "dialogue" {
			continue
		}
		if r.Agent != config.KindGemini || r.SourceSet != "notes" || filepath.Base(filepath.Dir(r.Path)) != "memory" || r.Project != "billing" {
			t.Errorf("note %s: path %s agent %q source set %q project %q", r.ID, r.Path, r.Agent, r.SourceSet, r.Project)
		}
		notes = append(notes, r.Text)
	}
	all := strings.Join(notes, "\n")
	for _, want := range []string{"Sunday snapshot", "ledger replica caught up", "five second lock timeout"} {
		if !strings.Contains(all, want) {
			t.Errorf("the project's memory %q was not read: %q", want, notes)
		}
	}
	if strings.Contains(all, "drafted skill") || strings.Contains(all, "A snapshot") {
		t.Errorf("a file that is not memory was read: %q", notes)
	}
}

// TestReadGemini_continuePrompts: the prompts Gemini CLI sends by itself
// to make the model go on are recorded as the user's (GeminiChat's
// sendMessageStream records every message that is not tool output) but
// are not what the user typed: "Please continue." after the next-speaker
// check says the model should speak, "System: Please continue." after an
// invalid stream (google-gemini/gemini-cli packages/core/src/core/
// client.ts sendMessageStream). The tool calls before one stay pending
// for the answer that follows it.
func TestReadGemini_continuePrompts(t *testing.T) {
	src, f := writeGemini(t, geminiShopHead+`{"id":"g-2","timestamp":"2026-03-05T08:00:10.000Z","type":"gemini","content":"","toolCalls":[{"id":"call-1","name":"read_file","args":{"file_path":"/home/dev/src/shop/mailer.go"},"status":"success","timestamp":"2026-03-05T08:00:11.000Z"}]}
{"id":"u-2","timestamp":"2026-03-05T08:00:12.000Z","type":"user","content":[{"text":"System: Please continue."}]}
{"id":"g-3","timestamp":"2026-03-05T08:00:14.000Z","type":"gemini","content":"It retries three times."}
{"id":"u-3","timestamp":"2026-03-05T08:00:15.000Z","type":"user","content":[{"text":"Please continue."}]}
{"id":"g-4","timestamp":"2026-03-05T08:00:17.000Z","type":"gemini","content":"Then it moves the message to the dead-letter queue."}
{"id":"u-4","timestamp":"2026-03-05T08:01:00.000Z","type":"user","content":[{"text":"Please continue with the dead-letter queue: how long is it kept?"}]}
`)
	var got readResult
	readFrom(t, src, f.Path, f.Rel, Cursor{}, &got)
	var recs []string
	for _, r := range got.records {
		recs = append(recs, strings.TrimPrefix(r.ID, "aaaaaaaa-0000-4000-8000-00000000000a:")+" "+r.Role+" "+strconv.Quote(r.Text))
	}
	want := []string{
		`u-1 user "Which queue does the mailer use?"`,
		`g-1 assistant "The mailer reads the outbound queue."`,
		`g-3 assistant "It retries three times.\n[tool: read_file /home/dev/src/shop/mailer.go]"`,
		`g-4 assistant "Then it moves the message to the dead-letter queue."`,
		`u-4 user "Please continue with the dead-letter queue: how long is it kept?"`,
	}
	if strings.Join(recs, "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(recs, "\n"), strings.Join(want, "\n"))
	}
}
