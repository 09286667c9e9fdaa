package index_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
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
