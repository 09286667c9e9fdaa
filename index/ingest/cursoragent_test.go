package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// cursorProjects is a Cursor projects folder (~/.cursor/projects) with
// one project, fixture-src-billing-api. Its transcripts follow the
// shapes public parsers read from real files (see cursoragent.go):
// {role, message: {content}} lines, content a string or blocks (text,
// thinking, tool_use; MemPalace/mempalace #232,
// Dicklesworthstone/coding_agent_session_search #306), turn_ended lines
// (receptron/mulmoterminal #2072), prompts in <user_query> after a
// <timestamp> tag and before Cursor's <context> (caura-ai/caura #612,
// kenn-io/agentsview #1662, tenequm/pond #207), the [REDACTED] mark of
// cut reasoning (caura #612), a sub-agent's file under
// <session>/subagents/ whose first prompt is the Task's (fwdai/fletch
// #782), and one written again as a transcript of its own
// (kenn-io/agentsview #1628). Guessed, not seen in a sample: the
// tool_result block in a user line, the system role and the checkpoint
// type (shapes of a later build), and the tool inputs' keys beyond
// Shell's command and working_directory.
//
// Main session 3f2a9c1e: every line shape. Sub-agent 7b8c9d0e: its
// copy under subagents/ only. Sub-agent 5e6f7a8b: under subagents/ and
// as its own transcript. terminals/ is not a transcript.
const cursorProjects = "testdata/cursor/projects"

const (
	cursorMain = "3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"
	cursorSub  = "7b8c9d0e-1f2a-4b3c-8d4e-5f6a7b8c9d0e"
	cursorTwin = "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b"
	cursorOld  = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
)

// cursorSlug is the name Cursor gives the project folder of the
// workspace at dir (every character but a letter or a digit a dash).
func cursorSlug(dir string) string {
	return regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(strings.TrimPrefix(filepath.ToSlash(dir), "/"), "-")
}

// cursorTree copies the fixture project into a projects folder of a
// fresh directory, named after a workspace folder that exists there
// (root/ws/src/billing-api), and returns the projects folder and the
// project folder.
func cursorTree(t *testing.T) (projects, project string) {
	t.Helper()
	root := t.TempDir()
	ws := filepath.Join(root, "ws", "src", "billing-api")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	projects = filepath.Join(root, "cursor", "projects")
	project = filepath.Join(projects, cursorSlug(ws))
	from := filepath.Join(cursorProjects, "fixture-src-billing-api")
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		to := filepath.Join(project, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return projects, project
}

// TestReadCursor_records: a Cursor projects folder's transcripts are
// dialogue records of agent cursor keyed by session and line: the
// prompt is the <user_query> without Cursor's context, the timestamp tag
// is the time of the turn and the ones after it (the file's time before
// any), reasoning, [REDACTED] marks and tool output are dropped, tool
// calls are one line each on the next answer, a sub-agent's prompt is
// the assistant's and its conversation its own under the main session,
// a sub-agent also written as its own transcript is read once, the
// project is the workspace folder the project folder names, and shapes
// of later builds are reported once without stopping the read.
func TestReadCursor_records(t *testing.T) {
	projects, project := cursorTree(t)
	old := filepath.Join(project, "agent-transcripts", cursorOld, cursorOld+".jsonl")
	if err := os.MkdirAll(filepath.Dir(old), 0o700); err != nil {
		t.Fatal(err)
	}
	// A transcript of a build that wrote no timestamp: the file's time.
	if err := os.WriteFile(old, []byte(`{"role":"user","message":{"content":[{"type":"text","text":"<user_query>Which port does the staging API listen on?</user_query>"}]}}
{"role":"assistant","message":{"content":[{"type":"text","text":"Staging listens on port 8443."}]}}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	mod := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	if err := os.Chtimes(old, mod, mod); err != nil {
		t.Fatal(err)
	}
	recs, problems := collect(t, config.Source{Name: "cu", Kind: config.KindCursor, Path: projects})
	rec := func(session, conv string, file string, line int, role, text, ts string, redactions int) wantRecord {
		return wantRecord{ID: file + ":" + strconv.Itoa(line), Role: role, Text: text, Project: "billing-api", Session: session,
			Conversation: "cursor:" + conv, Time: ts, Line: line, Redactions: redactions}
	}
	main := func(line int, role, text, ts string, redactions int) wantRecord {
		return rec(cursorMain, cursorMain, cursorMain, line, role, text, ts, redactions)
	}
	checkRecords(t, config.KindCursor, recs, []wantRecord{
		rec(cursorOld, cursorOld, cursorOld, 1, "user", "Which port does the staging API listen on?", "2026-03-01T09:00:00Z", 0),
		rec(cursorOld, cursorOld, cursorOld, 2, "assistant", "Staging listens on port 8443.", "2026-03-01T09:00:00Z", 0),
		main(1, "user", "Why does the invoice export time out on large accounts?", "2026-07-21T10:11:00Z", 0),
		main(2, "assistant", "Let me look at the export query.", "2026-07-21T10:11:00Z", 0),
		// Line 4, tool output in a user line, is no prompt.
		main(5, "assistant", "The export loads every invoice into memory before writing; stream it in pages of 500 instead.\n"+
			"[tool: Grep def export_invoices]\n[tool: Shell pytest tests/test_export.py -q]", "2026-07-21T10:11:00Z", 0),
		// Line 8 is a turn of cut reasoning only.
		main(9, "assistant", "The sub-agent found two unindexed queries on invoices.account_id.\n[tool: Subagent Find slow queries]", "2026-07-21T10:11:00Z", 0),
		main(11, "user", "Add the index then, and the key is [redacted]", "2026-07-21T11:05:00Z", 1),
		main(14, "assistant", "Added migration 0042 with an index on invoices.account_id.\n[tool: Write migrations/0042_invoice_account_idx.sql]", "2026-07-21T11:05:00Z", 0),
		// A <timestamp> the user typed inside the query is words, not the
		// turn's time.
		main(15, "user", "Keep <timestamp>Friday, Jan 1, 2027, 9:00 AM (UTC)</timestamp> out of the logs.", "2026-07-21T11:05:00Z", 0),
		// The copy of 5e6f7a8b under subagents/ gives nothing.
		rec(cursorMain, cursorMain+"/"+cursorSub, cursorSub, 1, "assistant", "Find which queries in src/export.py run without an index", "2026-07-21T10:12:00Z", 0),
		rec(cursorMain, cursorMain+"/"+cursorSub, cursorSub, 2, "assistant", "Two queries filter invoices by account_id, which has no index.\n[tool: Read src/export.py]", "2026-07-21T10:12:00Z", 0),
		// 5e6f7a8b's own transcript is a sub-agent's: the copy under
		// 3f2a9c1e's subagents/ names it.
		rec(cursorMain, cursorMain+"/"+cursorTwin, cursorTwin, 1, "assistant", "List the callers of export_invoices", "2026-07-21T10:13:00Z", 0),
		rec(cursorMain, cursorMain+"/"+cursorTwin, cursorTwin, 2, "assistant", "The nightly job and the admin export button call export_invoices.", "2026-07-21T10:13:00Z", 0),
	})
	for _, r := range recs {
		if r.SourceSet != "" && r.SourceSet != "agent-transcripts" {
			t.Errorf("%s: source set %q", r.ID, r.SourceSet)
		}
	}
	if len(problems) != 2 || problems[0].Line != 12 || problems[1].Line != 13 ||
		!strings.Contains(problems[0].Reason, ReasonUnknownShape) || !strings.Contains(problems[1].Reason, `"checkpoint"`) {
		t.Errorf("problems = %v, want the system role on line 12 and the checkpoint type on line 13", problems)
	}
	if DefaultSourceSet(config.KindCursor) != "agent-transcripts" {
		t.Errorf("source set %q", DefaultSourceSet(config.KindCursor))
	}
}

// TestCursorProject: the project is the workspace the project folder's
// name encodes, found among the folders that exist (a dash in a folder's
// name is not a separator when that folder exists, a link to a folder is
// one); what no folder matches, of a workspace removed, is the
// project's name.
func TestCursorProject(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"src/billing-api", "src/billing", "src-tools/cli", "vol/shop-web"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// A workspace reached through a link to a folder (macOS's /var and
	// /tmp are links to /private/...).
	if err := os.Symlink(filepath.Join(root, "vol"), filepath.Join(root, "linked")); err != nil {
		t.Fatal(err)
	}
	transcript := func(ws string) string {
		return filepath.Join(root, "projects", cursorSlug(ws), "agent-transcripts", cursorMain, cursorMain+".jsonl")
	}
	for ws, want := range map[string]string{
		filepath.Join(root, "src", "billing-api"): "billing-api",
		filepath.Join(root, "src", "billing"):     "billing",
		filepath.Join(root, "src-tools", "cli"):   "cli",
		filepath.Join(root, "src", "gone-app"):    "gone-app",
		filepath.Join(root, "linked", "shop-web"): "shop-web",
	} {
		if got := cursorProject(transcript(ws)); got != want {
			t.Errorf("%s: project %q, want %q", ws, got, want)
		}
	}
	if got := cursorProject(filepath.Join(root, "x.jsonl")); got != "" {
		t.Errorf("a file outside agent-transcripts: project %q", got)
	}
}

// TestCursorTime: the <timestamp> tag's text, with its zone, and the
// forms that are not one.
func TestCursorTime(t *testing.T) {
	for in, want := range map[string]string{
		"Tuesday, Jul 21, 2026, 1:11 PM (UTC+3)":      "2026-07-21T10:11:00Z",
		"Monday, Jan 5, 2026, 9:05 AM (UTC)":          "2026-01-05T09:05:00Z",
		"Friday, Mar 6, 2026, 11:30 PM (UTC-5)":       "2026-03-07T04:30:00Z",
		"Saturday, Aug 1, 2026, 12:15 AM (UTC+05:30)": "2026-07-31T18:45:00Z",
		"2026-07-21T10:11:00Z":                        "2026-07-21T10:11:00Z",
		"Tuesday, Jul 21, 2026, 1:11 PM (PDT)":        "",
		"soon":                                        "",
	} {
		got, ok := cursorTime(in, time.UTC)
		if s := got.UTC().Format(time.RFC3339); ok && s != want || !ok && want != "" {
			t.Errorf("%q: %v %v, want %q", in, got, ok, want)
		}
	}
}

// cursorLegacy holds a transcript of an older Cursor build, written as
// plain text, agent-transcripts/<session>.txt, in the shape public
// parsers read (kenn-io/agentsview internal/parser/cursor.go and its PR
// #64): "user:" and "assistant:" lines open the turns, the prompt is in
// <user_query>, and an assistant's turn holds "[Thinking]", "[Tool call]
// <name>" and "[Tool result] <name>" lines, each followed by its body
// indented.
const cursorLegacy = "testdata/cursor/legacy"

const cursorText = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a"

// TestReadCursor_text: a plain-text transcript of an older build is read
// as the JSONL ones are: the prompt is the <user_query>, the assistant's
// words its text, reasoning and tool output dropped, each tool call a
// one-line summary on the answer; a record's id is its session and the
// line that opens its turn, its time the file's. A session written both
// as text and as JSONL is read once, from the JSONL. A turn appended
// later is read on from the cursor, and a line added to the last turn,
// read already, reads the file again.
func TestReadCursor_text(t *testing.T) {
	projects, project := cursorTree(t)
	text := filepath.Join(project, "agent-transcripts", cursorText+".txt")
	data, err := os.ReadFile(filepath.Join(cursorLegacy, cursorText+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(text, data, 0o600); err != nil {
		t.Fatal(err)
	}
	mod := time.Date(2026, 2, 1, 8, 0, 0, 0, time.UTC)
	if err := os.Chtimes(text, mod, mod); err != nil {
		t.Fatal(err)
	}
	// The main session, also written as text: its JSONL is read.
	shadowed := filepath.Join(project, "agent-transcripts", cursorMain+".txt")
	if err := os.WriteFile(shadowed, []byte("user:\n<user_query>\nWhy does the invoice export time out?\n</user_query>\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	recs, _ := collect(t, config.Source{Name: "cu", Kind: config.KindCursor, Path: projects})
	var got []memory.Record
	for _, r := range recs {
		if strings.HasSuffix(r.Path, ".txt") {
			got = append(got, r)
		}
	}
	rec := func(line int, role, text string) wantRecord {
		return wantRecord{ID: cursorText + ":" + strconv.Itoa(line), Role: role, Text: text, Project: "billing-api", Session: cursorText,
			Conversation: "cursor:" + cursorText, Time: "2026-02-01T08:00:00Z", Line: line}
	}
	checkRecords(t, config.KindCursor, got, []wantRecord{
		rec(1, "user", "Why do the nightly backups of the ledger database fail on Sundays?"),
		rec(6, "assistant", "Let me check the cron schedule.\n[tool: Shell crontab -l]"),
		rec(19, "assistant", "The backup and the Sunday vacuum both start at 02:00, and the backup gives up after its 30 s lock timeout: move the backup to 03:00.\n"+
			"[tool: Read /etc/backup/ledger.conf]"),
		rec(28, "user", "Move it then."),
		rec(33, "assistant", "Done: the backup now runs at 03:00, after the vacuum.\n[tool: StrReplace /etc/cron.d/ledger]"),
	})

	src := config.Source{Name: "cu", Kind: config.KindCursor, Path: projects}
	rel, _ := filepath.Rel(projects, text)
	var res readResult
	readFrom(t, src, text, rel, Cursor{}, &res)
	appendText := func(s string) {
		t.Helper()
		f, err := os.OpenFile(text, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	appendText("\nuser:\n<user_query>\nAnd the weekly report?\n</user_query>\n")
	var on readResult
	readFrom(t, src, text, rel, res.cursor, &on)
	if len(on.records) != 1 || on.records[0].ID != cursorText+":41" || on.records[0].Text != "And the weekly report?" {
		t.Errorf("the appended turn: %+v", on.records)
	}
	appendText("It runs on Mondays.\n")
	_, err = ReadFile(context.Background(), src, File{Path: text, Rel: rel}, on.cursor, Sink{
		Record: func(memory.Record) error { return nil }, Problem: func(Problem) {},
	})
	if !errors.Is(err, ErrFileChanged) {
		t.Errorf("a line added to the last turn read: %v, want ErrFileChanged", err)
	}
}

// TestCursorSubagentLookup_oncePerListing: which session ran a sub-agent
// whose own transcript is read is looked up in the project's session
// folders once per listing, not once per transcript read (a full read
// of a project of n sessions cost n² stats: 12 s for 1 000), and the
// lookup finds what it did: the first session by name whose subagents/
// folder holds a copy.
func TestCursorSubagentLookup_oncePerListing(t *testing.T) {
	projects := t.TempDir()
	transcripts := filepath.Join(projects, "Users-dev-src-app", "agent-transcripts")
	write := func(rel, text string) {
		p := filepath.Join(transcripts, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		line := `{"role":"user","message":{"content":"<user_query>` + text + `</user_query>"}}` + "\n"
		if err := os.WriteFile(p, []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		s := "s" + strconv.Itoa(10+i)
		write(s+"/"+s+".jsonl", "task of "+s)
	}
	// s14 ran under s17 and s13 (a copy under two parents: the first by
	// name is its parent), s25 under s22.
	write("s17/subagents/s14.jsonl", "task of s14")
	write("s13/subagents/s14.jsonl", "task of s14")
	write("s22/subagents/s25.jsonl", "task of s25")

	looks := 0
	readDir := cursorReadDir
	t.Cleanup(func() { cursorReadDir = readDir })
	cursorReadDir = func(dir string) ([]os.DirEntry, error) {
		if dir == transcripts {
			looks++
		}
		return readDir(dir)
	}
	src := config.Source{Name: "cu", Kind: config.KindCursor, Path: projects}
	l, err := List(src)
	if err != nil {
		t.Fatal(err)
	}
	conversations := map[string]string{}
	sink := Sink{Record: func(r memory.Record) error {
		session, _, _ := strings.Cut(r.ID, ":") // session:line
		conversations[session] = r.Conversation
		return nil
	}, Problem: func(p Problem) { t.Errorf("problem: %+v", p) }}
	for _, f := range l.Files {
		if _, err := ReadFile(context.Background(), src, f, Cursor{}, sink); err != nil {
			t.Fatal(err)
		}
	}
	if len(conversations) != 20 {
		t.Errorf("%d sessions read, want 20: %v", len(conversations), conversations)
	}
	for session, want := range map[string]string{"s14": "cursor:s13/s14", "s25": "cursor:s22/s25", "s13": "cursor:s13", "s17": "cursor:s17"} {
		if got := conversations[session]; got != want {
			t.Errorf("session %s: conversation %q, want %q", session, got, want)
		}
	}
	if looks != 1 {
		t.Errorf("the agent-transcripts folder was looked into %d times for %d files read, want once per listing", looks, len(l.Files))
	}
}
