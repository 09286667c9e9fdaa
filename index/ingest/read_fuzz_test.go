package ingest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// fuzzKinds are the readers FuzzReadFile drives, with where each expects
// its files: a file's place names its session and project.
var fuzzKinds = []struct{ kind, rel string }{
	{config.KindJSONL, "records.jsonl"},
	{config.KindCodex, "2026/01/02/rollout-2026-01-02T03-04-05-0196c0de-7a11-7c2e-9f00-5e1b2c3d4e5f.jsonl"},
	{config.KindClaudeCode, "-home-dev-src-shop/5b1c2d3e-0000-4a4a-9b9b-123456789abc.jsonl"},
	{config.KindClaudeCode, "-home-dev-src-shop/5b1c2d3e-0000-4a4a-9b9b-123456789abc/subagents/agent-a1.jsonl"},
	{config.KindMarkdown, "notes/today.md"},
	{config.KindOpenClaw, "agents/main/sessions/7d1e0c9a-2100-4000-8000-000000000001.jsonl"},
	{config.KindOpenClaw, "workspace/memory/2026-03-02.md"},
	{config.KindGemini, "tmp/billing/chats/session-2026-03-02T11-00-9e0f1a2b.jsonl"},
	{config.KindGemini, "tmp/billing/chats/9e0f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b/5a5a5a5a-0000-4000-8000-000000000005.jsonl"},
	{config.KindGemini, "tmp/billing/chats/session-2026-02-27T09-00-1a1a1a1a.json"},
	{config.KindAider, "src/shop/.aider.chat.history.md"},
	{config.KindCursor, "home-dev-src-shop/agent-transcripts/3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b/3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b.jsonl"},
	{config.KindCursor, "home-dev-src-shop/agent-transcripts/3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b/subagents/7b8c9d0e-1f2a-4b3c-8d4e-5f6a7b8c9d0e.jsonl"},
	{config.KindCursor, "home-dev-src-shop/agent-transcripts/9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a.txt"},
	{config.KindChatExport, "chatgpt-2026-03/conversations.json"},
}

// FuzzReadFile feeds every reader files no fixture anticipated (lines of
// any shape, bytes that are not UTF-8, no final newline, a line torn in
// the middle): transcripts change shape with every agent release, and a
// reader must survive what it does not know. Whatever the file holds, a
// read never fails or panics, every record it gives has an id and
// non-empty UTF-8 text, and a line-based file read in pieces from each
// piece's cursor gives a whole read's records, problems and cursor (what
// incremental sync rests on).
func FuzzReadFile(f *testing.F) {
	for fixture, kind := range resumableFixtures(f) {
		b, err := os.ReadFile(fixture)
		if err != nil {
			f.Fatal(err)
		}
		// The first lines of each fixture: short seeds leave the fuzzer
		// time to mutate rather than minimise.
		b = b[:min(len(b), 2048)]
		for i, k := range fuzzKinds {
			if k.kind == kind {
				f.Add(b, uint8(i), uint16(len(b)/3))
			}
		}
	}
	// Gemini CLI recordings are not among the resumable fixtures (a line
	// may change an earlier message, see TestReadGemini_resumeEqualsWhole):
	// each is a seed for the reader of its place.
	geminiSeeds, err := filepath.Glob(geminiHome + "/tmp/*/chats/*.json*")
	if err != nil || len(geminiSeeds) == 0 {
		f.Fatalf("no Gemini CLI recordings: %v", err)
	}
	for _, seed := range append(geminiSeeds, geminiHome+"/tmp/billing/chats/"+geminiMain+"/"+geminiSub+".jsonl") {
		b, err := os.ReadFile(seed)
		if err != nil {
			f.Fatal(err)
		}
		b = b[:min(len(b), 4096)]
		for i, k := range fuzzKinds {
			if k.kind == config.KindGemini && filepath.Ext(k.rel) == filepath.Ext(seed) {
				f.Add(b, uint8(i), uint16(len(b)/3))
			}
		}
	}
	// Aider's chat histories are Markdown, not among the JSONL fixtures
	// (and a line may add to a turn read before, see
	// TestReadAider_resumeEqualsWhole): each is a seed for its reader.
	for _, seed := range []string{filepath.Join(aiderSrc, "billing", aiderHistoryName), filepath.Join(aiderSrc, "shop", aiderHistoryName), aiderMoved} {
		b, err := os.ReadFile(seed)
		if err != nil {
			f.Fatal(err)
		}
		b = b[:min(len(b), 4096)]
		for i, k := range fuzzKinds {
			if k.kind == config.KindAider {
				f.Add(b, uint8(i), uint16(len(b)/3))
			}
		}
	}
	// Cursor's plain-text transcripts, like Aider's histories: a line may
	// add to a turn read before.
	legacy, err := os.ReadFile(filepath.Join(cursorLegacy, cursorText+cursorTextExt))
	if err != nil {
		f.Fatal(err)
	}
	for i, k := range fuzzKinds {
		if strings.HasSuffix(k.rel, cursorTextExt) {
			f.Add(legacy, uint8(i), uint16(len(legacy)/3))
		}
	}
	// Chat exports are one JSON list, read whole: each export of the
	// fixtures is a seed (cut to its start, a list cut short).
	for _, seed := range []string{"chatgpt-2026-03", "claude-2026-03"} {
		b, err := os.ReadFile(filepath.Join(chatExports, seed, "conversations.json"))
		if err != nil {
			f.Fatal(err)
		}
		for i, k := range fuzzKinds {
			if k.kind == config.KindChatExport {
				f.Add(b[:min(len(b), 4096)], uint8(i), uint16(0))
			}
		}
	}
	note := []byte("# Deploy\n\nThe port moved to 3037.\n\n## Why\n\nA conflict with 3036.\n")
	for i, k := range fuzzKinds {
		if strings.HasSuffix(k.rel, ".md") {
			f.Add(note, uint8(i), uint16(0))
		}
	}
	f.Add([]byte("{\"id\":\"a\",\"text\":\"caf\xe9\"}\n{\"type\":\"user\",\"message\":{\"content\":[]}}\r\n{\"torn\":"), uint8(0), uint16(7))
	f.Fuzz(func(t *testing.T, content []byte, which uint8, limit uint16) {
		k := fuzzKinds[int(which)%len(fuzzKinds)]
		dir := t.TempDir()
		path := filepath.Join(dir, filepath.FromSlash(k.rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		src := config.Source{Name: "fz", Kind: k.kind, Path: dir}
		file := File{Path: path, Rel: k.rel}
		var whole readResult
		readFrom(t, src, path, k.rel, Cursor{}, &whole)
		for _, r := range whole.records {
			checkFuzzedRecord(t, r)
		}
		if !LineBased(k.kind, path) {
			return
		}
		var got readResult
		cur := Cursor{}
		piece := int64(limit%4096) + 1
		for pieces := 0; ; pieces++ {
			if pieces > len(content)+1 {
				t.Fatalf("pieces of %d bytes never end", piece)
			}
			next, more, err := ReadFilePiece(context.Background(), src, file, cur, piece, Sink{
				Record:  func(r memory.Record) error { got.records = append(got.records, r); return nil },
				Problem: func(p Problem) { got.problems = append(got.problems, p) },
			})
			if err != nil {
				t.Fatalf("piece %d from %+v: %v", pieces, cur, err)
			}
			cur = next
			if !more {
				break
			}
		}
		got.cursor = cur
		sameResult(t, "pieces", got, whole)
	})
}

// checkFuzzedRecord holds what every reader promises of a record,
// whatever its input: an id, and text that is non-empty UTF-8 (it is
// indexed and served as JSON).
func checkFuzzedRecord(t *testing.T, r memory.Record) {
	t.Helper()
	if r.ID == "" {
		t.Fatalf("a record without an id: %+v", r)
	}
	if r.Text == "" || !utf8.ValidString(r.Text) {
		t.Fatalf("record %q: text %q is empty or not UTF-8", r.ID, r.Text)
	}
	if slices.ContainsFunc(append(slices.Clone(r.Tags), r.Title, r.Project, r.Agent, r.SessionID), func(s string) bool { return !utf8.ValidString(s) }) {
		t.Fatalf("record %q: a field is not UTF-8: %+v", r.ID, r)
	}
}
