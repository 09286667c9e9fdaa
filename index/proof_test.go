package index_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// claudeLine is line i of Claude Code session s1, its text 'question i'
// padded to a fixed width so that an edit can keep the file's size.
func claudeLine(i int, word string) string {
	return fmt.Sprintf(`{"type":"user","sessionId":"s1","uuid":"u%03d","cwd":"/src/app","timestamp":"2026-03-01T08:00:%02dZ","message":{"role":"user","content":"%s %03d about the quarterly ledger export"}}`+"\n", i, i%60, word, i)
}

// stateOf returns the active generation's state of path.
func stateOf(t *testing.T, cfg config.Config, path string) index.FileState {
	t.Helper()
	m, _ := active(t, cfg.Home)
	states, err := index.FileStates(cfg.Home, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range states {
		if st.Path == path {
			return st
		}
	}
	t.Fatalf("no state for %s", path)
	return index.FileState{}
}

// rewriteInPlace replaces path's content in place (same inode), with a
// later modification time.
func rewriteInPlace(t *testing.T, path, content string, at time.Time) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// TestSync_transcriptAppendIsProvenByItsWindow: a transcript that grew is
// read on from its cursor after a check of the bytes at both ends before
// the cursor, not of every byte (0.38 ms/MB, most of a sync over GB of
// transcripts). Every later append reads on the same way; a transcript
// rewritten in place with the same size is still read again whole, its
// edit indexed, whether its cursor came from a whole read or from a
// window proof.
func TestSync_transcriptAppendIsProvenByItsWindow(t *testing.T) {
	dir := t.TempDir()
	projects := filepath.Join(dir, "projects")
	session := filepath.Join(projects, "-src-app", "s1.jsonl")
	var lines []string
	for i := 1; i <= 40; i++ {
		lines = append(lines, claudeLine(i, "question"))
	}
	writeFile(t, session, strings.Join(lines, ""))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: projects})
	clk := newClock(epoch)
	sync := func() *index.BuildResult {
		t.Helper()
		return mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true})).Build
	}
	text := func(id string) string {
		t.Helper()
		_, g := active(t, cfg.Home)
		return chunkByID(t, g)[id].Text
	}
	sync()
	// A same-size rewrite of a cursor made by a whole read: its prefix
	// digest says so.
	lines[4] = claudeLine(5, "QUESTION")
	rewriteInPlace(t, session, strings.Join(lines, ""), time.Now().Add(time.Minute))
	if b := sync(); b.FilesResumed != 0 || !strings.Contains(text("claude:s1:5"), "QUESTION 005") {
		t.Fatalf("same-size rewrite: resumed %d, line 5 %q; want it read again with its edit", b.FilesResumed, text("claude:s1:5"))
	}
	for n := 41; n <= 42; n++ {
		lines = append(lines, claudeLine(n, "question"))
		appendFile(t, session, lines[n-1])
		b := sync()
		if b.FilesResumed != 1 {
			t.Fatalf("append of line %d: resumed %d; want read on from the cursor", n, b.FilesResumed)
		}
		if got := text(fmt.Sprintf("claude:s1:%d", n)); !strings.Contains(got, fmt.Sprintf("question %03d", n)) {
			t.Fatalf("append of line %d: indexed %q", n, got)
		}
		if st := stateOf(t, cfg, session); st.Cursor.Window == "" || st.Cursor.Prefix != "" {
			t.Errorf("append of line %d: cursor window %q prefix %q; want read on from a window proof", n, st.Cursor.Window, st.Cursor.Prefix)
		}
	}
	// A same-size rewrite of a cursor made by a window proof (no prefix
	// digest): read again whole.
	lines[9] = claudeLine(10, "QUESTION")
	rewriteInPlace(t, session, strings.Join(lines, ""), time.Now().Add(2*time.Minute))
	if b := sync(); b.FilesResumed != 0 || !strings.Contains(text("claude:s1:10"), "QUESTION 010") {
		t.Fatalf("same-size rewrite after appends: resumed %d, line 10 %q; want it read again with its edit", b.FilesResumed, text("claude:s1:10"))
	}
	_, g := active(t, cfg.Home)
	if g.Count() != 42 {
		t.Errorf("%d chunks, want 42: nothing lost or indexed twice", g.Count())
	}
}

// TestSync_jsonlEditAndAppendIsReadAgain: a jsonl source is an export a
// user's tool may rewrite: an edit that keeps every length, followed by an
// append, is still found by the whole prefix check and indexed.
func TestSync_jsonlEditAndAppendIsReadAgain(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data", "records.jsonl")
	recs := []rec{{ID: "a", Text: "the ledger export runs at 0400"}, {ID: "b", Text: "the staging API listens on 8443"}}
	writeFile(t, data, jsonlLines(t, recs...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "records", Kind: config.KindJSONL, Path: filepath.Dir(data)})
	clk := newClock(epoch)
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))
	recs[0].Text = "the ledger export runs at 0500"
	recs = append(recs, rec{ID: "c", Text: "the invoice service moved to port 9000"})
	rewriteInPlace(t, data, jsonlLines(t, recs...), time.Now().Add(time.Minute))
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))
	_, g := active(t, cfg.Home)
	chunks := chunkByID(t, g)
	if got := chunks["records:a"].Text; !strings.Contains(got, "0500") {
		t.Errorf("record a is %q, want its edit", got)
	}
	if g.Count() != 3 {
		t.Errorf("%d chunks, want 3", g.Count())
	}
}
