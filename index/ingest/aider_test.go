package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// aiderSrc is a folder of repositories: billing's history has several
// runs (an empty one among them), a prompt of two lines, Aider commands,
// tool output with a line that continues it unquoted, SEARCH/REPLACE
// blocks in fences (one longer than maxEditLines) and one without,
// commits, a fenced reply with "> " lines and a secret; shop's is CRLF
// and Windows-1252; a history under node_modules, .aider.input.history
// and .aider.llm.history are not read. aiderMoved is a history moved by --chat-history-file,
// with a torn last line.
const (
	aiderSrc   = "testdata/aider/src"
	aiderMoved = "testdata/aider/moved/billing-chat.md"
)

// aiderSession is the session id of the run whose header is at line of
// the history at path, started at stamp (YYYYMMDDTHHMMSS).
func aiderSession(path, stamp string, line int) string {
	return textKey(path) + "-" + stamp + "-" + strconv.Itoa(line)
}

// aiderTime is a header's time, read in the machine's zone.
func aiderTime(t *testing.T, s string) string {
	t.Helper()
	at, err := time.ParseInLocation("2006-01-02 15:04:05", s, time.Local)
	if err != nil {
		t.Fatal(err)
	}
	return at.UTC().Format(time.RFC3339)
}

// TestReadAider_records: every chat history under a folder of
// repositories is dialogue of agent aider, one record per prompt and per
// reply, a session per run, each at its run's header time and in the
// project of the folder that holds it; Aider's output is dropped but for
// its commits, edit blocks are a summary and their replacement cut to
// maxEditLines, fenced "> " lines are the reply's, commands are not
// dialogue, secrets are redacted, CRLF and Windows-1252 are read.
func TestReadAider_records(t *testing.T) {
	recs, problems := collect(t, config.Source{Name: "ai", Kind: config.KindAider, Path: aiderSrc})
	billing := filepath.Join(aiderSrc, "billing", aiderHistoryName)
	shop := filepath.Join(aiderSrc, "shop", aiderHistoryName)
	first := aiderSession(billing, "20260302T142011", 2)
	third := aiderSession(billing, "20260303T091203", 95)
	cafe := aiderSession(shop, "20260304T100000", 2)
	t1, t3, t4 := aiderTime(t, "2026-03-02 14:20:11"), aiderTime(t, "2026-03-03 09:12:03"), aiderTime(t, "2026-03-04 10:00:00")
	ledger := "Here is the new exporter:\n\n[tool: edit src/ledger.py]\n```python\ndef export(rows):\n    out = []\n    for r in rows:\n"
	for i := 1; i <= 17; i++ {
		ledger += "        out.append(r.line" + strconv.Itoa(i) + ")\n"
	}
	ledger += "[+3 more lines]\n```"
	want := []wantRecord{
		{ID: first + ":13", Role: "user", Text: "make line rounding use banker's rounding\nthe invoice totals drift by a cent", Line: 13},
		{ID: first + ":16", Role: "assistant", Line: 16, Text: "I'll switch `round_line` to `ROUND_HALF_EVEN` so ties round to even:\n\n[tool: edit src/money.py]\n```python\n" +
			"    return x.quantize(CENT, rounding=ROUND_HALF_EVEN)\n```\n[tool: commit 1a2b3c4 fix: use banker's rounding for invoice lines]"},
		{ID: first + ":31", Role: "user", Text: "how do I quote a reply in the changelog?", Line: 31},
		{ID: first + ":33", Role: "assistant", Line: 33, Text: "Use a Markdown blockquote; every quoted line starts with `>`:\n\n```markdown\n" +
			"> Totals now round half to even.\n> a quoted line, not a tool line\n    > an indented quote, still code\n```\n\nThat keeps the changelog readable."},
		{ID: first + ":45", Role: "user", Text: "rewrite the ledger export", Line: 45},
		{ID: first + ":47", Role: "assistant", Text: ledger, Line: 47},
		{ID: first + ":86", Role: "assistant", Text: "The export now writes every line of a row.\n[tool: commit 9f8e7d6 feat: export each ledger line]", Line: 86},
		{ID: third + ":99", Role: "user", Text: "the deploy key is [redacted], why does staging reject it?", Line: 99, Redactions: 1},
		{ID: third + ":101", Role: "assistant", Text: "Staging only accepts keys from its own vault; rotate it there.\n\n[tool: edit config/staging.yml]\nkey_source: vault", Line: 101},
		{ID: third + ":113", Role: "user", Text: "thanks", Line: 113},
		{ID: cafe + ":6", Role: "user", Text: "quelle est la clé du café ?", Line: 6},
		{ID: cafe + ":8", Role: "assistant", Text: "La clé du café est dans le tiroir.", Line: 8},
	}
	for i := range want {
		w := &want[i]
		w.Project, w.Session, w.Time = "billing", first, t1
		switch {
		case strings.HasPrefix(w.ID, third):
			w.Session, w.Time = third, t3
		case strings.HasPrefix(w.ID, cafe):
			w.Project, w.Session, w.Time = "shop", cafe, t4
		}
		w.Conversation = "aider:" + w.Session
	}
	checkRecords(t, config.KindAider, recs, want)
	if len(problems) > 0 {
		t.Errorf("problems: %v", problems)
	}
	if got := DefaultSourceSet(config.KindAider); got != "agent-transcripts" {
		t.Errorf("DefaultSourceSet(aider) = %q", got)
	}
}

// TestReadAider_agent: a source's agent names the records' agent.
func TestReadAider_agent(t *testing.T) {
	recs, _ := collect(t, config.Source{Name: "ai", Kind: config.KindAider, Path: aiderMoved, Agent: "aider-laptop"})
	if len(recs) == 0 || recs[0].Agent != "aider-laptop" || recs[0].Kind != config.KindAider {
		t.Fatalf("records %+v", recs)
	}
}

// TestList_aider: a folder of repositories lists each repository's chat
// history, and nothing under node_modules (not entered) or a hidden
// folder; Aider's input and LLM histories are not listed.
func TestList_aider(t *testing.T) {
	src := config.Source{Name: "ai", Kind: config.KindAider, Path: aiderSrc}
	listing, err := List(src)
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, f := range listing.Files {
		rels = append(rels, f.Rel)
	}
	if got := strings.Join(rels, " "); got != "billing/.aider.chat.history.md shop/.aider.chat.history.md" {
		t.Errorf("listed %s", got)
	}
	for rel, skip := range map[string]bool{"shop/node_modules": true, "billing/.git": true, "shop/venv": true, "billing": false, "shop/src": false} {
		if SkipsDir(src, rel) != skip {
			t.Errorf("SkipsDir(%s) = %v, want %v", rel, !skip, skip)
		}
	}
}

// TestReadAider_movedHistory: a source whose path is a history moved by
// --chat-history-file is read whatever its name, in the project of the
// folder that holds it; its torn last line is left for the next read.
func TestReadAider_movedHistory(t *testing.T) {
	recs, problems := collect(t, config.Source{Name: "ai", Kind: config.KindAider, Path: aiderMoved})
	s := aiderSession(aiderMoved, "20260305T083000", 2)
	at := aiderTime(t, "2026-03-05 08:30:00")
	checkRecords(t, config.KindAider, recs, []wantRecord{
		{ID: s + ":4", Role: "user", Text: "where do the nightly reports go?", Line: 4, Project: "moved", Session: s, Conversation: "aider:" + s, Time: at},
		{ID: s + ":6", Role: "assistant", Text: "To the reports bucket, one folder per day.", Line: 6, Project: "moved", Session: s, Conversation: "aider:" + s, Time: at},
	})
	if len(problems) > 0 {
		t.Errorf("problems: %v", problems)
	}
}

// TestReadAider_zone: a run's header, written without a zone, is read in
// the zone the reader is given (the machine's, see ReadFilePiece).
func TestReadAider_zone(t *testing.T) {
	jst := time.FixedZone("JST", 9*3600)
	var recs []memory.Record
	fc := &fileCtx{ctx: context.Background(), src: config.Source{Name: "ai", Kind: config.KindAider}, path: "/home/dev/src/shop/" + aiderHistoryName,
		sink: Sink{Record: func(r memory.Record) error { recs = append(recs, r); return nil }, Problem: func(p Problem) { t.Error(p) }}, loc: jst}
	h, err := newAiderHandler(fc, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range []string{"# aider chat started at 2026-12-02 23:30:00", "", "#### which zone?"} {
		if err := h.line(i+1, []byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.end(); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || !recs[0].Time.Equal(time.Date(2026, 12, 2, 14, 30, 0, 0, time.UTC)) || recs[0].Date != "2026-12-02" || recs[0].Project != "shop" {
		t.Fatalf("records %+v; want one at 23:30 JST (14:30 UTC) in project shop", recs)
	}
}

// writeAider writes a history into a fresh repository folder.
func writeAider(t *testing.T, body string) (config.Source, File) {
	t.Helper()
	root := t.TempDir()
	p := filepath.Join(root, "shop", aiderHistoryName)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return config.Source{Name: "ai", Kind: config.KindAider, Path: root}, File{Path: p, Rel: "shop/" + aiderHistoryName}
}

// readOn reads f of src on from cur, and returns what it got and err.
func readOn(t *testing.T, src config.Source, f File, cur Cursor) (readResult, error) {
	t.Helper()
	var got readResult
	next, err := ReadFile(context.Background(), src, f, cur, Sink{
		Record:  func(r memory.Record) error { got.records = append(got.records, r); return nil },
		Problem: func(p Problem) { got.problems = append(got.problems, p) },
	})
	got.cursor = next
	return got, err
}

// TestReadAider_onward: a history read on from its cursor gives what was
// appended only: a reply after a prompt that ended the last read, Aider's
// token count after it (nothing), a prompt whose line was torn; a commit
// that follows the reply a read already emitted changes that reply, and
// is ErrFileChanged (read whole, the reply carries it).
func TestReadAider_onward(t *testing.T) {
	src, f := writeAider(t, "\n# aider chat started at 2026-03-05 08:00:00\n\n> aider\n\n#### which queue does the mailer use?  \n")
	var first readResult
	readFrom(t, src, f.Path, f.Rel, Cursor{}, &first)
	if len(first.records) != 1 || first.records[0].Text != "which queue does the mailer use?" || first.cursor.Line != 6 {
		t.Fatalf("first read: %+v, cursor at line %d", first.records, first.cursor.Line)
	}
	appendGemini(t, f, "\nThe mailer reads the outbound queue.\n\n> Tokens: 1k sent, 12 received.  \n\n#### and the retr")
	second, err := readOn(t, src, f, first.cursor)
	if err != nil {
		t.Fatal(err)
	}
	if len(second.records) != 1 || second.records[0].Text != "The mailer reads the outbound queue." || second.records[0].Line != 8 || second.cursor.Line != 11 {
		t.Fatalf("second read: %+v, cursor at line %d; want the reply, the torn prompt left", second.records, second.cursor.Line)
	}
	appendGemini(t, f, "y policy?  \n\nThree attempts, then the dead-letter queue.\n")
	third, err := readOn(t, src, f, second.cursor)
	if err != nil {
		t.Fatal(err)
	}
	if len(third.records) != 2 || third.records[0].Text != "and the retry policy?" || third.records[0].Line != 12 || third.records[1].Line != 14 {
		t.Fatalf("third read: %+v", third.records)
	}
	appendGemini(t, f, "\n> Applied edit to mailer.py  \n> Commit 0badc0de retry: dead-letter after three attempts  \n")
	if _, err := readOn(t, src, f, third.cursor); !errors.Is(err, ErrFileChanged) {
		t.Fatalf("a commit after a reply already emitted: %v, want ErrFileChanged", err)
	}
	var whole readResult
	readFrom(t, src, f.Path, f.Rel, Cursor{}, &whole)
	if n := len(whole.records); n != 4 || whole.records[3].Text != "Three attempts, then the dead-letter queue.\n[tool: commit 0badc0de retry: dead-letter after three attempts]" {
		t.Fatalf("whole read: %+v", whole.records)
	}
	// A reply cut short inside a fence does not swallow the next prompt
	// (Aider ends its lines with two spaces).
	appendGemini(t, f, "\n#### show the config  \n\n```yaml\nretries: 3\n\n#### never mind  \n")
	var again readResult
	readFrom(t, src, f.Path, f.Rel, Cursor{}, &again)
	if n := len(again.records); n != 7 || again.records[5].Text != "```yaml\nretries: 3" || again.records[6].Text != "never mind" {
		t.Fatalf("after an unclosed fence: %+v", again.records)
	}
}

// TestReadAider_resumeEqualsWhole is what incremental sync rests on:
// each history cut at every line boundary and in the middle of every
// line, the part written read first and the rest read on from its cursor,
// gives a whole read's records, problems and cursor, unless the read on
// says ErrFileChanged (it adds to the turn the first read ended with),
// and then the file read again whole (as a sync does) gives them.
func TestReadAider_resumeEqualsWhole(t *testing.T) {
	changed, resumed := 0, 0
	for _, fixture := range []string{filepath.Join(aiderSrc, "billing", aiderHistoryName), filepath.Join(aiderSrc, "shop", aiderHistoryName), aiderMoved} {
		t.Run(fixture, func(t *testing.T) {
			content, err := os.ReadFile(fixture)
			if err != nil {
				t.Fatal(err)
			}
			src, file := writeAider(t, string(content))
			write := func(b []byte) {
				t.Helper()
				if err := os.WriteFile(file.Path, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var whole readResult
			readFrom(t, src, file.Path, file.Rel, Cursor{}, &whole)
			start := 0
			for i, c := range content {
				if c != '\n' {
					continue
				}
				for _, cut := range []int{i + 1, start + (i+1-start)/2} {
					var got readResult
					write(content[:cut])
					readFrom(t, src, file.Path, file.Rel, Cursor{}, &got)
					write(content)
					rest, err := readOn(t, src, file, got.cursor)
					switch {
					case errors.Is(err, ErrFileChanged):
						changed++
						got = readResult{}
						readFrom(t, src, file.Path, file.Rel, Cursor{}, &got)
					case err != nil:
						t.Fatalf("cut at byte %d: %v", cut, err)
					default:
						resumed++
						got.records = append(got.records, rest.records...)
						got.problems = append(got.problems, rest.problems...)
						got.cursor = rest.cursor
					}
					sameResult(t, "cut at byte "+strconv.Itoa(cut), got, whole)
				}
				start = i + 1
			}
		})
	}
	t.Logf("%d cuts read on, %d ErrFileChanged", resumed, changed)
	if changed == 0 || resumed < changed {
		t.Errorf("%d cuts read on, %d ErrFileChanged: want most cuts read on, and a few that add to a turn already emitted", resumed, changed)
	}
}

// TestList_aiderStopsAtRepositoryRoots: in a folder of repositories the
// listing enters each repository's root, where Aider writes its history,
// and the folders up to aiderRepoDepth (1) below it, where it writes one
// when it runs in a subfolder and finds no repository, but not deeper, nor a build's output or a package manager's folders
// anywhere in it: a folder is judged by the nearest folder above it that
// holds .git (a folder, or a worktree's file), unless that is the
// source's own folder, which may be a repository too.
func TestList_aiderStopsAtRepositoryRoots(t *testing.T) {
	root := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(".git/HEAD", "ref: refs/heads/main\n") // the folder of repositories is one too
	write("billing/.git/HEAD", "ref: refs/heads/main\n")
	write("billing/"+aiderHistoryName, "#### a\n")
	write("billing/web/"+aiderHistoryName, "#### run in a subfolder\n")
	write("billing/packages/api/"+aiderHistoryName, "#### too deep in the repository\n")
	write("billing/build/"+aiderHistoryName, "#### in build output\n")
	write("billing/web/dist/"+aiderHistoryName, "#### in build output\n")
	write("billing/target/x/"+aiderHistoryName, "#### in build output\n")
	write("github.com/acme/shop/.git", "gitdir: /elsewhere/shop.git\n") // a worktree
	write("github.com/acme/shop/"+aiderHistoryName, "#### b\n")
	write("github.com/acme/shop/web/"+aiderHistoryName, "#### in the worktree\n")
	write("github.com/acme/shop/web/app/"+aiderHistoryName, "#### too deep in the worktree\n")
	write("notes/"+aiderHistoryName, "#### not a repository\n")
	write("notes/2026/may/"+aiderHistoryName, "#### not a repository, at any depth\n")
	write("build/"+aiderHistoryName, "#### a folder of the source named build, not a build's\n")
	src := config.Source{Name: "ai", Kind: config.KindAider, Path: root}
	listing, err := List(src)
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, f := range listing.Files {
		rels = append(rels, f.Rel)
	}
	want := strings.Join([]string{"billing/", "billing/web/", "build/", "github.com/acme/shop/", "github.com/acme/shop/web/",
		"notes/", "notes/2026/may/"}, aiderHistoryName+" ") + aiderHistoryName
	if got := strings.Join(rels, " "); got != want {
		t.Errorf("listed %s\nwant %s", got, want)
	}
	for rel, skip := range map[string]bool{"billing": false, "billing/packages": false, "billing/packages/api": true, "billing/build": true,
		"billing/target": true, "github.com/acme/shop/web": false, "github.com/acme/shop/web/app": true, "github.com/acme": false,
		"notes/2026/may": false, "build": false} {
		if SkipsDir(src, rel) != skip {
			t.Errorf("SkipsDir(%s) = %v, want %v", rel, !skip, skip)
		}
	}
}

// aiderWrites is a history as Aider appends it: a run's header, then
// each part of the run in turn; a prompt's lines ("#### " each) and
// Aider's own messages ("> ") end with the two spaces Aider ends them
// with (a Markdown line break), as io.py's user_input and tool_output
// write them, and each part is set off by a blank line as Aider sets
// off what it appends. A reply is the model's Markdown as it wrote it.
type aiderWrites struct{ b strings.Builder }

func newAiderWrites(start string) *aiderWrites {
	w := &aiderWrites{}
	w.b.WriteString("\n# aider chat started at " + start + "\n\n")
	return w
}

// prompt appends what the user typed, one "#### " line per line.
func (w *aiderWrites) prompt(lines ...string) *aiderWrites {
	w.b.WriteString("\n")
	for _, l := range lines {
		w.b.WriteString("#### " + l + "  \n")
	}
	return w
}

// reply appends the model's reply.
func (w *aiderWrites) reply(text string) *aiderWrites {
	w.b.WriteString("\n" + strings.TrimSpace(text) + "\n\n")
	return w
}

// tool appends a message of Aider's as tool_output writes it: the first
// line quoted, the others as they are, the last with the line break.
func (w *aiderWrites) tool(text string) *aiderWrites {
	w.b.WriteString("> " + strings.TrimSpace(text) + "  \n")
	return w
}

// lines appends a message of Aider's as tool_error and tool_warning
// write one of several lines: each line quoted (a blank one is ">").
func (w *aiderWrites) lines(text string) *aiderWrites {
	for _, l := range strings.Split(text, "\n") {
		w.b.WriteString(strings.TrimRight("> "+strings.TrimSpace(l), " ") + "  \n")
	}
	return w
}

// confirm appends a question of Aider's about a subject of several lines
// as confirm_ask writes it: the subject's lines padded with spaces to the
// longest (a blank one is all spaces), written as one tool_output, then
// the question and the answer.
func (w *aiderWrites) confirm(subject, question string) *aiderWrites {
	lines := strings.Split(subject, "\n")
	width := 0
	for _, l := range lines {
		width = max(width, len(l))
	}
	for i, l := range lines {
		lines[i] = l + strings.Repeat(" ", width-len(l))
	}
	w.tool(strings.Join(lines, "\n"))
	return w.tool(question)
}

func (w *aiderWrites) String() string { return w.b.String() }

// aiderTexts reads body as a history and returns each record as its role
// and text.
func aiderTexts(t *testing.T, body string) []string {
	t.Helper()
	src, f := writeAider(t, body)
	var got readResult
	readFrom(t, src, f.Path, f.Rel, Cursor{}, &got)
	if len(got.problems) > 0 {
		t.Errorf("problems: %v", got.problems)
	}
	var out []string
	for _, r := range got.records {
		out = append(out, r.Role+": "+r.Text)
	}
	return out
}

// sameTexts fails t unless got is want.
func sameTexts(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n---\n") != strings.Join(want, "\n---\n") {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n---\n"), strings.Join(want, "\n---\n"))
	}
}

// TestReadAider_promptLinesInFences: a "#### " line the model wrote in a
// fenced block (a Markdown heading in a ```markdown fence) or in an edit
// block (a README's heading in a SEARCH/REPLACE) is code of the reply, not
// a prompt; a prompt Aider writes after a reply cut short inside a fence
// (^C) still ends the fence, and Aider's output after it is not code.
func TestReadAider_promptLinesInFences(t *testing.T) {
	body := newAiderWrites("2026-05-11 10:02:33").
		tool("/Users/ana/.local/bin/aider --model sonnet").tool("Aider v0.86.1").
		prompt("/add README.md").tool("Added README.md to the chat").
		prompt("/ask draft an install section I can paste into the wiki").
		reply("Here is a section you can paste:\n\n```markdown\n### Install\n\n#### macOS\n\nbrew install docs-site\n\n#### Linux\n\napt install docs-site\n```\n\nEach platform is a level-4 heading.").
		tool("Tokens: 2.1k sent, 120 received.").
		prompt("add a Windows subsection to the README").
		reply("README.md\n```markdown\n<<<<<<< SEARCH\n#### Linux\n\napt install docs-site\n=======\n#### Linux\n\napt install docs-site\n\n#### Windows\n\nwinget install docs-site\n>>>>>>> REPLACE\n```").
		tool("Tokens: 2.4k sent, 90 received.").tool("Applied edit to README.md").
		tool("Commit 3c4d5e6 docs: add a Windows install section").
		prompt("now a troubleshooting section", "with the common errors").
		reply("Sure:\n\n```markdown\n#### Troubleshooting\n\n#### Permission denied").
		lines("\n\n^C again to exit").
		prompt("shorter please").
		reply("Run `docs-site doctor` when an install fails.").
		String()
	sameTexts(t, aiderTexts(t, body), []string{
		"user: draft an install section I can paste into the wiki",
		"assistant: Here is a section you can paste:\n\n```markdown\n### Install\n\n#### macOS\n\nbrew install docs-site\n\n#### Linux\n\napt install docs-site\n```\n\nEach platform is a level-4 heading.",
		"user: add a Windows subsection to the README",
		"assistant: [tool: edit README.md]\n```markdown\n#### Linux\n\napt install docs-site\n\n#### Windows\n\nwinget install docs-site\n```\n[tool: commit 3c4d5e6 docs: add a Windows install section]",
		"user: now a troubleshooting section\nwith the common errors",
		"assistant: Sure:\n\n```markdown\n#### Troubleshooting\n\n#### Permission denied",
		"user: shorter please",
		"assistant: Run `docs-site doctor` when an install fails.",
	})
	// A history whose line ends were trimmed cannot tell Aider's lines
	// from the model's: a "#### " line ends a fence there, so that the
	// prompt after the fence left open is still read.
	got := aiderTexts(t, strings.ReplaceAll(body, "  \n", "\n"))
	if n := len(got); n < 2 || got[n-2] != "user: shorter please" {
		t.Errorf("trimmed history: %q", got)
	}
}

// TestReadAider_toolOutputOfSeveralLines: a message of Aider's of several
// lines (a command's output: /run, /test, /git) is written with its first
// line quoted and the others as they are, blank ones included, up to the
// last, which ends with Aider's line break; all of it is dropped, and the
// reply that follows it (to /test's failures) is kept. Commits are kept.
func TestReadAider_toolOutputOfSeveralLines(t *testing.T) {
	body := newAiderWrites("2026-05-12 16:40:00").
		tool("aider --model sonnet").
		prompt("/run pytest -q").
		tool("MARKER ..F.\n\nMARKER =========== FAILURES ===========\n\nMARKER def test_total():\n>       assert total([1, 2]) == 4\nE       assert 3 == 4\n\nMARKER 1 failed, 3 passed in 0.12s").
		tool("Add 0.2k tokens of command output to the chat? (Y)es/(N)o [Yes]: y").
		tool("Added 12 lines of output to the chat.").
		prompt("fix the failing test").
		reply("`total` drops the last element; sum the whole list.").
		tool("Tokens: 3k sent, 40 received.").
		tool("Commit 7e8f9a0 fix: total sums every element").
		prompt("/test pytest -q").
		tool("MARKER ....F\n\nMARKER =========== FAILURES ===========\n\nMARKER 1 failed, 4 passed in 0.15s").
		reply("The new test expects cents; `total` returns euros.").
		prompt("/git log --oneline -3").
		tool("7e8f9a0 fix: total sums every element\n\nMARKER 1a2b3c4 feat: totals\n\n#### MARKER a heading in the output").
		prompt("thanks").
		String()
	sameTexts(t, aiderTexts(t, body), []string{
		"user: fix the failing test",
		"assistant: `total` drops the last element; sum the whole list.\n[tool: commit 7e8f9a0 fix: total sums every element]",
		"assistant: The new test expects cents; `total` returns euros.",
		"user: thanks",
	})
}

// TestReadAider_indentedLines: Aider writes its own lines from the first
// column, "> " and "#### " (io.py's append_chat_history), and its own
// reader of the history (utils.split_chat_history_markdown) knows them
// only there. A line indented by two spaces is not Aider's: a blockquote
// the model nested in a list item stays in its reply, and a line of a
// command's output that looks like a prompt once its indent is cut (a
// history whose line ends were trimmed, where the output runs to a blank
// line) is output, not the user's prompt.
func TestReadAider_indentedLines(t *testing.T) {
	body := newAiderWrites("2026-05-13 09:00:00").
		tool("aider --model sonnet").
		prompt("/ask how do I configure retries?").
		reply("Two settings:\n\n1. `retries` in config.toml\n  > Note: the default is 3.\n2. `backoff`, in seconds").
		tool("Tokens: 1.2k sent, 60 received.").
		prompt("thanks").
		String()
	sameTexts(t, aiderTexts(t, body), []string{
		"user: how do I configure retries?",
		"assistant: Two settings:\n\n1. `retries` in config.toml\n  > Note: the default is 3.\n2. `backoff`, in seconds",
		"user: thanks",
	})
	trimmed := strings.ReplaceAll(newAiderWrites("2026-05-13 10:00:00").
		prompt("/run cat TODO.md").
		tool("MARKER # TODO\n  #### MARKER ship 1.2\n  - MARKER tag the release").
		prompt("tag it").
		reply("Tagged v1.2.0.").
		String(), "  \n", "\n")
	sameTexts(t, aiderTexts(t, trimmed), []string{
		"user: tag it",
		"assistant: Tagged v1.2.0.",
	})
}

func TestReadAider_paddedSubject(t *testing.T) {
	body := newAiderWrites("2026-05-14 09:00:00").
		prompt("set up the database").
		reply("Run the migrations, then seed:\n\n```bash\nmake migrate\n\nmake seed-demo-data\n```").
		confirm("make migrate\n\nmake seed-demo-data", "Run shell commands? (Y)es/(N)o/(D)on't ask again [Yes]: y").
		prompt("done").
		String()
	sameTexts(t, aiderTexts(t, body), []string{
		"user: set up the database",
		"assistant: Run the migrations, then seed:\n\n```bash\nmake migrate\n\nmake seed-demo-data\n```",
		"user: done",
	})
}

// BenchmarkList_aiderRepositories lists a folder of 40 repositories of
// about 200 folders and 1,000 files each (a source tree, tests, docs, a
// web app, node_modules and build output), each with its history at its
// root: the listing enters only what insideRepository lets it (see
// aiderRepoDepth for what it took).
func BenchmarkList_aiderRepositories(b *testing.B) {
	root := b.TempDir()
	mk := func(dir string, files int) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			b.Fatal(err)
		}
		for i := range files {
			if err := os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)+".txt"), nil, 0o600); err != nil {
				b.Fatal(err)
			}
		}
	}
	folders := 0
	tree := func(dir string, n, m int) { // n folders of m folders each
		for i := range n {
			mk(filepath.Join(dir, "d"+strconv.Itoa(i)), 5)
			folders++
			for j := range m {
				mk(filepath.Join(dir, "d"+strconv.Itoa(i), "e"+strconv.Itoa(j)), 5)
				folders++
			}
		}
	}
	for r := range 40 {
		repo := filepath.Join(root, "repo"+strconv.Itoa(r))
		mk(filepath.Join(repo, ".git"), 0)
		if err := os.WriteFile(filepath.Join(repo, aiderHistoryName), []byte("#### hi\n"), 0o600); err != nil {
			b.Fatal(err)
		}
		for name, shape := range map[string][2]int{"src": {8, 4}, "tests": {8, 0}, "docs": {4, 0}, "web": {4, 4}, "node_modules": {40, 2}, "build": {4, 0}} {
			mk(filepath.Join(repo, name), 5)
			folders++
			tree(filepath.Join(repo, name), shape[0], shape[1])
		}
	}
	b.Logf("%d repositories, %d folders", 40, folders)
	src := config.Source{Name: "ai", Kind: config.KindAider, Path: root}
	for b.Loop() {
		listing, err := List(src)
		if err != nil || len(listing.Files) != 40 {
			b.Fatalf("%d files, %v", len(listing.Files), err)
		}
	}
}

// TestReadAider_headingInProse: a "#### " heading the model writes in a
// reply's prose, outside any fence, is the reply's: Aider's prompt lines
// end with its line break and follow a blank line. A trimmed history
// cannot tell them apart and splits the reply there, as before.
func TestReadAider_headingInProse(t *testing.T) {
	body := newAiderWrites("2026-05-12 09:00:00").
		tool("Aider v0.86.1").
		prompt("how should I structure the release notes?").
		reply("Group them by audience:\n\n#### For users\nWhat changed in behaviour.\n\n#### For operators\nNew settings and migrations.").
		tool("Tokens: 1.1k sent, 80 received.").
		prompt("thanks").
		reply("You're welcome.").
		String()
	sameTexts(t, aiderTexts(t, body), []string{
		"user: how should I structure the release notes?",
		"assistant: Group them by audience:\n\n#### For users\nWhat changed in behaviour.\n\n#### For operators\nNew settings and migrations.",
		"user: thanks",
		"assistant: You're welcome.",
	})
}

// TestReadAider_reasoning: with a model that reasons (reasoning_content:
// Claude with --thinking-tokens, DeepSeek R1, Gemini 2.5 through
// litellm), Aider writes the reasoning into the history before the answer,
// between its own tag (<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>)
// and the model's reasoning tag; a model whose settings name a reasoning
// tag (<think>) writes it in its content. The reasoning is not the reply,
// whatever it holds (fences, "> " and "#### " lines); an answer cut short
// inside it (^C) leaves no reply, and the prompt after it is read.
func TestReadAider_reasoning(t *testing.T) {
	const tag = "thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b"
	body := newAiderWrites("2026-05-14 09:30:00").
		tool("aider --model sonnet --thinking-tokens 8k").
		prompt("why do invoice totals drift by a cent?").
		reply("<" + tag + ">\n\nMARKER The user asks about totals.\n\n> MARKER a quote in the reasoning\n\n#### MARKER a heading\n\n```python\nMARKER round(x, 2)\n\n</" + tag + ">\n\nEach line is rounded before summing; round once at the end.").
		tool("Tokens: 2.1k sent, 300 received.").
		prompt("and for credit notes?").
		reply("<think>\nMARKER credit notes mirror invoices\n</think>\n\nThe same: they mirror the invoice they credit.").
		tool("Tokens: 2.4k sent, 90 received.").
		prompt("shorter please").
		reply("<" + tag + ">\n\nMARKER cut short").
		lines("\n\n^C again to exit").
		prompt("one line").
		reply("Round once, at the total.").
		String()
	sameTexts(t, aiderTexts(t, body), []string{
		"user: why do invoice totals drift by a cent?",
		"assistant: Each line is rounded before summing; round once at the end.",
		"user: and for credit notes?",
		"assistant: The same: they mirror the invoice they credit.",
		"user: shorter please",
		"user: one line",
		"assistant: Round once, at the total.",
	})
	aiderReadOnSame(t, body)
}

// TestReadAider_blockquoteInReply: a blockquote the model wrote in its
// reply (a line of a doc or an error message quoted) is a "> " line
// without Aider's line break, as the first line of a message of Aider's
// of several lines is; but Aider's message ends with a line of its own
// with the break before Aider writes on, and the model's reply does not:
// a "> " or "#### " line with the break after a blank line, while such a
// message is open, shows the lines since were the model's. They stay in
// the reply; a message of several lines Aider writes after a reply (an
// edit that failed) is still dropped.
func TestReadAider_blockquoteInReply(t *testing.T) {
	body := newAiderWrites("2026-05-15 11:00:00").
		tool("aider --model sonnet").
		prompt("what does the doc say about rounding?").
		reply("The doc says:\n\n> Round half to even,\n> at the invoice total.\n\nSo each line keeps its cents and the total is rounded once.").
		tool("Tokens: 2.1k sent, 120 received.").
		prompt("and the error you saw?").
		reply("It was:\n\n> ValueError: cannot round NaN").
		prompt("fix it").
		reply("src/money.py\n```python\n<<<<<<< SEARCH\n    return round(x, 2)\n=======\n    return x.quantize(CENT)\n>>>>>>> REPLACE\n```").
		tool("MARKER # 1 SEARCH/REPLACE block failed to match!\n\nMARKER ## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in src/money.py\n\nMARKER The SEARCH section must exactly match an existing block of lines.").
		tool("Tokens: 3k sent, 60 received.").
		prompt("thanks").
		String()
	sameTexts(t, aiderTexts(t, body), []string{
		"user: what does the doc say about rounding?",
		"assistant: The doc says:\n\n> Round half to even,\n> at the invoice total.\n\nSo each line keeps its cents and the total is rounded once.",
		"user: and the error you saw?",
		"assistant: It was:\n\n> ValueError: cannot round NaN",
		"user: fix it",
		"assistant: [tool: edit src/money.py]\n```python\n    return x.quantize(CENT)\n```",
		"user: thanks",
	})
	aiderReadOnSame(t, body)
}

// TestReadAider_blankInput: Aider records an empty input (Enter on an
// empty prompt) as "#### <blank>"; no one said it, and the prompt before
// or after it is read as it is.
func TestReadAider_blankInput(t *testing.T) {
	body := newAiderWrites("2026-05-16 08:15:00").
		tool("aider --model sonnet").
		prompt("<blank>").
		prompt("why is the build slow?").
		reply("The test step rebuilds every package.").
		tool("Tokens: 1k sent, 20 received.").
		prompt("<blank>").
		prompt("<blank>").
		String()
	sameTexts(t, aiderTexts(t, body), []string{
		"user: why is the build slow?",
		"assistant: The test step rebuilds every package.",
	})
}

// aiderReadOnSame checks that body, cut at every line and read on from
// the cursor of the part written (or read again whole after
// ErrFileChanged), gives a whole read's records: the state a reader keeps
// between reads (a reply's reasoning, the lines held of a blockquote)
// carries what it must.
func aiderReadOnSame(t *testing.T, body string) {
	t.Helper()
	src, file := writeAider(t, body)
	write := func(b string) {
		t.Helper()
		if err := os.WriteFile(file.Path, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var whole readResult
	readFrom(t, src, file.Path, file.Rel, Cursor{}, &whole)
	for cut := range len(body) {
		if body[cut] != '\n' {
			continue
		}
		var got readResult
		write(body[:cut+1])
		readFrom(t, src, file.Path, file.Rel, Cursor{}, &got)
		write(body)
		rest, err := readOn(t, src, file, got.cursor)
		switch {
		case errors.Is(err, ErrFileChanged):
			got = readResult{}
			readFrom(t, src, file.Path, file.Rel, Cursor{}, &got)
		case err != nil:
			t.Fatalf("cut at byte %d: %v", cut+1, err)
		default:
			got.records = append(got.records, rest.records...)
			got.problems = append(got.problems, rest.problems...)
			got.cursor = rest.cursor
		}
		sameResult(t, "cut at byte "+strconv.Itoa(cut+1), got, whole)
	}
}

// TestReadAider_echoedMessages: Aider writes what it sends the model on
// its own as a prompt of its own: the message of an /ask (or /ok's, or a
// command's abbreviation's) right after the command, and in architect
// mode the reply it hands the editor model. A read cut at any line gives
// the whole read's records, the echoes left out.
func TestReadAider_echoedMessages(t *testing.T) {
	body, err := os.ReadFile(filepath.Join(driftRoot, "aider", "echoed-messages", aiderHistoryName))
	if err != nil {
		t.Fatal(err)
	}
	got := aiderTexts(t, string(body))
	for i, r := range got {
		for _, other := range got[:i] {
			if r == other {
				t.Errorf("record %q read twice", r)
			}
		}
		if strings.HasPrefix(r, "user: Split `export.py`") {
			t.Errorf("the architect's reply read as a prompt: %q", r)
		}
	}
	aiderReadOnSame(t, string(body))
}

// TestReadAider_helpQuestion: /help writes the question, the pages of
// Aider's documentation found for it and Aider's start-up lines as one
// prompt; the question alone is the user's.
func TestReadAider_helpQuestion(t *testing.T) {
	body, err := os.ReadFile(filepath.Join(driftRoot, "aider", "help-question", aiderHistoryName))
	if err != nil {
		t.Fatal(err)
	}
	got := aiderTexts(t, string(body))
	if len(got) == 0 || got[0] != "user: how do I make aider run the tests after each edit?" {
		t.Errorf("first record %q, want the question alone", got)
	}
	for _, r := range got {
		if strings.Contains(r, "Relevant docs") || strings.Contains(r, "Announcement lines") {
			t.Errorf("Aider's help context read as dialogue: %q", r)
		}
	}
	aiderReadOnSame(t, string(body))
}

// TestReadAider_lintFixRequest: /lint writes the linter's report it
// sends the model as a prompt; it is Aider's, not the user's, and the
// model's fix is still the assistant's.
func TestReadAider_lintFixRequest(t *testing.T) {
	body, err := os.ReadFile(filepath.Join(driftRoot, "aider", "lint-fix-request", aiderHistoryName))
	if err != nil {
		t.Fatal(err)
	}
	got := aiderTexts(t, string(body))
	for _, r := range got {
		if strings.Contains(r, "Fix any errors below") || strings.Contains(r, "F821") {
			t.Errorf("the linter's report read as dialogue: %q", r)
		}
	}
	if len(got) != 3 || !strings.HasPrefix(got[0], "assistant: The filter's result was never kept") {
		t.Errorf("records %q, want the fix, the next prompt and its answer", got)
	}
	aiderReadOnSame(t, string(body))
}
