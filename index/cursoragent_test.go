package index_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/memory"
)

// TestSync_cursor: a Cursor projects folder through real syncs. The
// records are of agent cursor and of the project the workspace folder
// names; a turn Cursor appends is read on from the cursor, without
// reading the file again; a sub-agent's file under its session's
// subagents/ is read, and once Cursor also writes the sub-agent's own
// transcript, the sub-agent is indexed once, from that transcript.
func TestSync_cursor(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "src", "billing-api")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	slug := regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(strings.TrimPrefix(filepath.ToSlash(ws), "/"), "-")
	projects := filepath.Join(dir, "cursor", "projects")
	transcripts := filepath.Join(projects, slug, "agent-transcripts")
	const (
		s1  = "3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"
		sub = "7b8c9d0e-1f2a-4b3c-8d4e-5f6a7b8c9d0e"
	)
	live := filepath.Join(transcripts, s1, s1+".jsonl")
	writeFile(t, live, `{"role":"user","message":{"content":[{"type":"text","text":"<timestamp>Tuesday, Jul 21, 2026, 1:11 PM (UTC+3)</timestamp>\n<user_query>\nWhy does the invoice export time out on large accounts?\n</user_query>\n<context>open files: src/export.py</context>"}]}}
{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Grep","input":{"pattern":"def export_invoices"}},{"type":"text","text":"The export loads every invoice into memory before writing.[REDACTED]"}]}}
{"type":"turn_ended","status":"success"}
`)
	copied := filepath.Join(transcripts, s1, "subagents", sub+".jsonl")
	subLines := `{"role":"user","message":{"content":[{"type":"text","text":"<timestamp>Tuesday, Jul 21, 2026, 1:12 PM (UTC+3)</timestamp>\n<user_query>Find the queries that scan invoices without an index</user_query>"}]}}
{"role":"assistant","message":{"content":"Two queries filter invoices by account_id, which has no index."}}
`
	writeFile(t, copied, subLines)
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "cu", Kind: config.KindCursor, Path: projects})
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})
	mustSync(t, ix)

	type got struct{ text, role, path, conversation string }
	records := func() map[string]got {
		t.Helper()
		_, g := active(t, cfg.Home)
		out := map[string]got{}
		for _, c := range chunkByID(t, g) {
			if _, dup := out[c.SourceID]; dup {
				t.Fatalf("record %s indexed twice", c.SourceID)
			}
			if c.Agent != "cursor" || c.Project != "billing-api" || c.SourceSet != "agent-transcripts" {
				t.Errorf("%s: agent %q project %q source set %q", c.SourceID, c.Agent, c.Project, c.SourceSet)
			}
			out[c.SourceID] = got{c.Text, c.Role, c.SourcePath, c.Conversation}
		}
		return out
	}
	first := records()
	if len(first) != 4 || first[s1+":1"].text != "Why does the invoice export time out on large accounts?" || first[s1+":1"].role != "user" ||
		first[s1+":2"].text != "The export loads every invoice into memory before writing.\n[tool: Grep def export_invoices]" ||
		first[sub+":1"].role != "assistant" || first[sub+":1"].conversation != "cursor:"+s1+"/"+sub {
		t.Fatalf("first sync: %+v", first)
	}
	if ids := searchIDs(t, cfg.Home, "invoice export time out large accounts"); !slices.Contains(ids, s1+":1") {
		t.Errorf("search for the prompt: %v", ids)
	}

	// Cursor appends a turn: read on from the cursor.
	appendFile(t, live, `{"role":"user","message":{"content":[{"type":"text","text":"<timestamp>Tuesday, Jul 21, 2026, 2:05 PM (UTC+3)</timestamp>\n<user_query>Stream the export in pages of 500 then.</user_query>"}]}}
{"role":"assistant","message":{"content":[{"type":"text","text":"Done: the export now streams pages of 500 invoices."}]}}
`)
	b := mustSync(t, ix).Build
	if b.Mode != index.ModeIncremental || b.FilesResumed != 1 {
		t.Errorf("after an append: mode %s, %d files resumed, want incremental and 1", b.Mode, b.FilesResumed)
	}
	if r := records()[s1+":4"]; r.text != "Stream the export in pages of 500 then." || r.role != "user" {
		t.Errorf("the appended prompt: %+v", r)
	}
	if ids := searchIDs(t, cfg.Home, "export streams pages of 500 invoices"); !slices.Contains(ids, s1+":5") {
		t.Errorf("search for the appended answer: %v", ids)
	}

	// Cursor writes the sub-agent's own transcript too: the sub-agent is
	// indexed once, from it; the copy gives nothing any more.
	writeFile(t, filepath.Join(transcripts, sub, sub+".jsonl"), subLines)
	b = syncOK(t, ix).Build
	after := records()
	if b.DuplicateIDs != 0 || len(after) != 6 || after[sub+":2"].text != "Two queries filter invoices by account_id, which has no index." {
		t.Errorf("after the sub-agent's own transcript: %d duplicate ids, %+v", b.DuplicateIDs, after)
	}
	for id, r := range after {
		if r.path == copied {
			t.Errorf("%s is still the copy's", id)
		}
	}
}

// recordsBySource are the records of the active generation by source
// id, failing on one indexed twice.
func recordsBySource(t *testing.T, cfg config.Config) map[string]memory.Chunk {
	t.Helper()
	_, g := active(t, cfg.Home)
	out := map[string]memory.Chunk{}
	for _, c := range chunkByID(t, g) {
		if _, dup := out[c.SourceID]; dup {
			t.Fatalf("record %s indexed twice", c.SourceID)
		}
		out[c.SourceID] = c
	}
	return out
}

// TestSync_cursorSubagentOwnTranscript: a sub-agent Cursor also wrote as
// a transcript of its own is read as a sub-agent (its Task prompt the
// main agent's, its conversation under the session that ran it), the
// parent's subagents/ copy naming it, although its own transcript comes
// first in the walk (its session sorts before the parent's); and still
// so once the copy is deleted, through two incremental syncs that read
// on what Cursor appends.
func TestSync_cursorSubagentOwnTranscript(t *testing.T) {
	dir := t.TempDir()
	transcripts := filepath.Join(dir, "cursor", "projects", "home-dev-src-ledger", "agent-transcripts")
	const (
		parent = "af2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"
		sub    = "1b8c9d0e-1f2a-4b3c-8d4e-5f6a7b8c9d0e"
	)
	writeFile(t, filepath.Join(transcripts, parent, parent+".jsonl"), `{"role":"user","message":{"content":"<user_query>Why is the ledger backup slow?</user_query>"}}
{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Task","input":{"description":"Time the backup steps"}},{"type":"text","text":"A sub-agent is timing the steps."}]}}
`)
	subLines := `{"role":"user","message":{"content":"<user_query>Time each step of the ledger backup</user_query>"}}
{"role":"assistant","message":{"content":"The dump takes 40 minutes; the upload 3."}}
`
	copied := filepath.Join(transcripts, parent, "subagents", sub+".jsonl")
	own := filepath.Join(transcripts, sub, sub+".jsonl")
	writeFile(t, copied, subLines)
	writeFile(t, own, subLines)
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "cu", Kind: config.KindCursor, Path: filepath.Join(dir, "cursor", "projects")})
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})
	b := mustSync(t, ix).Build
	check := func(when string, want int) {
		t.Helper()
		recs := recordsBySource(t, cfg)
		if len(recs) != want {
			t.Errorf("%s: %d records, want %d", when, len(recs), want)
		}
		for id, c := range recs {
			if !strings.HasPrefix(id, sub+":") {
				continue
			}
			if c.Conversation != "cursor:"+parent+"/"+sub || c.Role != "assistant" {
				t.Errorf("%s: %s is the %s's, in conversation %q, want the assistant's in %q", when, id, c.Role, c.Conversation, "cursor:"+parent+"/"+sub)
			}
		}
		if recs[sub+":1"].Text != "Time each step of the ledger backup" {
			t.Errorf("%s: the Task prompt: %+v", when, recs[sub+":1"])
		}
	}
	if b.DuplicateIDs != 0 {
		t.Errorf("first sync: %d duplicate ids", b.DuplicateIDs)
	}
	check("first sync", 4)

	// The copy goes, and Cursor appends to the sub-agent's transcript:
	// read on from the cursor, it is still the sub-agent's.
	if err := os.Remove(copied); err != nil {
		t.Fatal(err)
	}
	appendFile(t, own, `{"role":"assistant","message":{"content":"Compressing the dump first halves it."}}
`)
	mustSync(t, ix)
	check("after the copy went", 5)
	appendFile(t, own, `{"role":"assistant","message":{"content":"With zstd -3 the dump takes 18 minutes."}}
`)
	mustSync(t, ix)
	check("the sync after", 6)
}

// TestSync_cursorSubagentTwoParents: a sub-agent's copy found under two
// sessions' subagents/ folders is indexed once, under the first, and no
// id is reported twice.
func TestSync_cursorSubagentTwoParents(t *testing.T) {
	dir := t.TempDir()
	transcripts := filepath.Join(dir, "cursor", "projects", "home-dev-src-ledger", "agent-transcripts")
	const (
		p1  = "2a2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"
		p2  = "3b3b9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"
		sub = "4c4c9d0e-1f2a-4b3c-8d4e-5f6a7b8c9d0e"
	)
	subLines := `{"role":"user","message":{"content":"<user_query>List the ledger tables without a primary key</user_query>"}}
{"role":"assistant","message":{"content":"journal_lines and fx_rates have none."}}
`
	for _, p := range []string{p1, p2} {
		writeFile(t, filepath.Join(transcripts, p, p+".jsonl"), `{"role":"user","message":{"content":"<user_query>Audit the ledger schema</user_query>"}}
`)
		writeFile(t, filepath.Join(transcripts, p, "subagents", sub+".jsonl"), subLines)
	}
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "cu", Kind: config.KindCursor, Path: filepath.Join(dir, "cursor", "projects")})
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})
	r, err := ix.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Build.DuplicateIDs != 0 {
		t.Errorf("%d duplicate ids", r.Build.DuplicateIDs)
	}
	recs := recordsBySource(t, cfg)
	if c := recs[sub+":2"]; len(recs) != 4 || c.Conversation != "cursor:"+p1+"/"+sub || c.Text != "journal_lines and fx_rates have none." {
		t.Errorf("records %d, the sub-agent's answer %+v", len(recs), c)
	}
}
