package index_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/internal/novatest"
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
	session, lines, cfg, sync := oneSessionHome(t, 40)
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

// TestSync_sourceStatesAreWrittenAsChanges: the sources.json of a sync
// holds the files that changed since a base written once under
// index/states, not every file (MBs at a few thousand sessions, rewritten
// for one appended line). Read back it is whole; a new base is written
// once enough files changed, and a base no kept generation names goes.
func TestSync_sourceStatesAreWrittenAsChanges(t *testing.T) {
	dir := t.TempDir()
	projects := filepath.Join(dir, "projects", "-src-app")
	const sessions = 24
	path := func(i int) string { return filepath.Join(projects, fmt.Sprintf("s%02d.jsonl", i)) }
	for i := range sessions {
		var b strings.Builder
		for n := 1; n <= 10; n++ {
			fmt.Fprintf(&b, `{"type":"user","sessionId":"s%02d","uuid":"u%02d-%d","cwd":"/src/app","message":{"role":"user","content":"session %d question %d about the ledger"}}`+"\n", i, i, n, i, n)
		}
		writeFile(t, path(i), b.String())
	}
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: filepath.Dir(projects)})
	clk := newClock(epoch)
	sync := func() {
		t.Helper()
		mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))
	}
	appendTo := func(i, n int) {
		t.Helper()
		appendFile(t, path(i), fmt.Sprintf(`{"type":"user","sessionId":"s%02d","uuid":"u%02d-%d","cwd":"/src/app","message":{"role":"user","content":"session %d question %d about the ledger"}}`+"\n", i, i, n, i, n))
	}
	written := func() (files int, base string) {
		t.Helper()
		m, _ := active(t, cfg.Home)
		b, err := os.ReadFile(filepath.Join(cfg.Home.IndexDir(), m.GenerationPath, "sources.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Base  *struct{ ID string } `json:"base"`
			Files []json.RawMessage    `json:"files"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if s.Base != nil {
			base = s.Base.ID
		}
		return len(s.Files), base
	}
	bases := func() []string { return dirNames(t, filepath.Join(cfg.Home.IndexDir(), "states")) }
	whole := func(wantLines map[int]int) {
		t.Helper()
		m, g := active(t, cfg.Home)
		states, err := index.FileStates(cfg.Home, m)
		if err != nil {
			t.Fatal(err)
		}
		if len(states) != sessions {
			t.Fatalf("%d file states read back, want %d", len(states), sessions)
		}
		for _, st := range states {
			var i int
			if _, err := fmt.Sscanf(filepath.Base(st.Path), "s%02d.jsonl", &i); err != nil {
				t.Fatal(err)
			}
			if want := wantLines[i]; st.Records != want || st.Cursor.Line != want {
				t.Errorf("%s: %d records, cursor at line %d; want %d", st.Path, st.Records, st.Cursor.Line, want)
			}
		}
		total := 0
		for _, n := range wantLines {
			total += n
		}
		if g.Count() != total {
			t.Errorf("%d chunks, want %d", g.Count(), total)
		}
	}
	lines := map[int]int{}
	for i := range sessions {
		lines[i] = 10
	}
	sync()
	appendTo(0, 11)
	lines[0] = 11
	sync()
	n, first := written()
	if first == "" || n != 0 || len(bases()) != 1 {
		t.Fatalf("first incremental sync: %d files written on base %q, bases %v; want a new base and no changes", n, first, bases())
	}
	for k := 12; k <= 14; k++ {
		appendTo(0, k)
		lines[0] = k
		sync()
		if n, base := written(); n != 1 || base != first {
			t.Fatalf("append %d to one session: %d files written on base %q, want that one file on %s", k, n, base, first)
		}
		whole(lines)
	}
	// Appends to more than an eighth of the sessions: a new base.
	for i := 1; i <= sessions/index.BaseEveryForTest+1; i++ {
		appendTo(i, 11)
		lines[i] = 11
		sync()
	}
	if _, base := written(); base == first {
		t.Errorf("%d sessions changed since base %s, still written on it", sessions/index.BaseEveryForTest+2, first)
	}
	whole(lines)
	// Retention keeps the last generations; the first base goes with the
	// last generation that named it.
	for k := 12; k <= 16; k++ {
		appendTo(1, k)
		lines[1] = k
		sync()
	}
	if got := bases(); len(got) != 1 || slices.Contains(got, first+".json") {
		t.Errorf("bases %v: want the one the kept generations name, not %s", got, first)
	}
	whole(lines)
	// A full build writes every file again, and the next sync starts a
	// new base; nothing is lost or indexed twice on the way.
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true, Full: true}))
	whole(lines)
	appendTo(2, 12)
	lines[2] = 12
	sync()
	whole(lines)
}

// TestSync_compactionKeepsTheStateBase: a compaction (every few syncs)
// changes no file's state, so it writes the states as the changes to the
// same base as the sync before it, not every file: at 3 000 sessions the
// whole sources.json is 3.4 MB, and the sync after it started a new base.
func TestSync_compactionKeepsTheStateBase(t *testing.T) {
	dir := t.TempDir()
	projects := filepath.Join(dir, "projects", "-src-app")
	const sessions = 16
	line := func(i, n int) string {
		return fmt.Sprintf(`{"type":"user","sessionId":"s%02d","uuid":"u%02d-%d","cwd":"/src/app","message":{"role":"user","content":"session %d question %d about the ledger"}}`+"\n", i, i, n, i, n)
	}
	for i := range sessions {
		writeFile(t, filepath.Join(projects, fmt.Sprintf("s%02d.jsonl", i)), line(i, 1)+line(i, 2))
	}
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: filepath.Dir(projects)})
	clk := newClock(epoch)
	x := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, MergeDeltas: 2})
	mustSync(t, x)
	base := ""
	compacted := false
	for n := 3; n <= 8 && !compacted; n++ {
		appendFile(t, filepath.Join(projects, "s00.jsonl"), line(0, n))
		res, err := x.Sync(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		m, _ := active(t, cfg.Home)
		var s struct {
			Base  *struct{ ID string } `json:"base"`
			Files []json.RawMessage    `json:"files"`
		}
		b, err := os.ReadFile(filepath.Join(cfg.Home.IndexDir(), m.GenerationPath, "sources.json"))
		novatest.Must(t, err)
		novatest.Must(t, json.Unmarshal(b, &s))
		if s.Base == nil || len(s.Files) > 1 {
			t.Fatalf("sync %d (compaction %v): sources.json has base %v and %d files, want the changes to a base", n, res.Compaction != nil, s.Base, len(s.Files))
		}
		if base != "" && s.Base.ID != base {
			t.Errorf("sync %d (compaction %v): base %s, want %s still", n, res.Compaction != nil, s.Base.ID, base)
		}
		base = s.Base.ID
		compacted = res.Compaction != nil
	}
	if !compacted {
		t.Fatal("no compaction ran")
	}
}

// oneSessionHome is a home whose source is one Claude Code session of n
// questions, and its sync (no compaction): it returns the session's path,
// its lines, the configuration and the sync.
func oneSessionHome(t *testing.T, n int) (string, []string, config.Config, func() *index.BuildResult) {
	t.Helper()
	dir := t.TempDir()
	projects := filepath.Join(dir, "projects")
	session := filepath.Join(projects, "-src-app", "s1.jsonl")
	var lines []string
	for i := 1; i <= n; i++ {
		lines = append(lines, claudeLine(i, "question"))
	}
	writeFile(t, session, strings.Join(lines, ""))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: projects})
	clk := newClock(epoch)
	return session, lines, cfg, func() *index.BuildResult {
		t.Helper()
		return mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true})).Build
	}
}

// TestSync_damagedStateBase: a base of the source states damaged on disk
// (same size, bytes changed) is refused when read, not trusted; the next
// sync reads every file again (a full build), and memory is whole, once.
func TestSync_damagedStateBase(t *testing.T) {
	session, _, cfg, sync := oneSessionHome(t, 12)
	sync()
	appendFile(t, session, claudeLine(13, "question"))
	sync()
	m, _ := active(t, cfg.Home)
	if _, err := index.FileStates(cfg.Home, m); err != nil {
		t.Fatal(err)
	}
	bases := dirNames(t, filepath.Join(cfg.Home.IndexDir(), "states"))
	if len(bases) != 1 {
		t.Fatalf("bases %v, want one", bases)
	}
	base := filepath.Join(cfg.Home.IndexDir(), "states", bases[0])
	b, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.Replace(string(b), `"records":13`, `"records":31`, 1))
	if err := os.Chmod(base, 0o600); err != nil {
		t.Fatal(err)
	}
	rewriteInPlace(t, base, string(b), time.Now().Add(time.Minute))
	if _, err := index.FileStates(cfg.Home, m); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("states on a damaged base: %v, want a checksum error", err)
	}
	appendFile(t, session, claudeLine(14, "question"))
	if b := sync(); b.Mode != index.ModeFull {
		t.Errorf("sync past a damaged base: mode %s, want a full build", b.Mode)
	}
	m, g := active(t, cfg.Home)
	states, err := index.FileStates(cfg.Home, m)
	if err != nil || len(states) != 1 || states[0].Records != 14 || g.Count() != 14 {
		t.Errorf("after the sync: states %+v (%v), %d chunks; want one file of 14 records, 14 chunks", states, err, g.Count())
	}
}
