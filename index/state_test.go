package index_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// activeStates returns the active generation's file states by path.
func activeStates(t *testing.T, home paths.Home) map[string]index.FileState {
	t.Helper()
	m, _ := active(t, home)
	states, err := index.FileStates(home, m)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]index.FileState{}
	for _, s := range states {
		out[s.Path] = s
	}
	return out
}

// TestFileStates_firstProblem: each file's state keeps how much of it was
// skipped and why the first of it was, through incremental syncs that do
// not read it again or only read on from where they stopped, and through
// a full rebuild reading it in pieces; a fixed file's state is clear.
func TestFileStates_firstProblem(t *testing.T) {
	dir := t.TempDir()
	recs := baseRecords()
	exports, notes := filepath.Join(dir, "exports"), filepath.Join(dir, "notes")
	good, bad := filepath.Join(exports, "good.jsonl"), filepath.Join(exports, "bad.jsonl")
	writeFile(t, good, jsonlLines(t, recs[:2]...))
	writeFile(t, bad, jsonlLines(t, recs[2])+"not json at all\n"+`{"text": "a record without an id"}`+"\n"+jsonlLines(t, recs[3]))
	plain, binary := filepath.Join(notes, "plain.md"), filepath.Join(notes, "binary.md")
	writeFile(t, plain, "# Deploys\nThe canary gets 5% of traffic for 30 minutes.\n")
	writeFile(t, binary, "\x7fELF\x02\x01\x01\x00\x00\x00"+strings.Repeat("\x00\x01\x02", 200))
	cfg := testConfig(t, filepath.Join(dir, "home"),
		config.Source{Name: "exports", Kind: config.KindJSONL, Path: exports},
		config.Source{Name: "notes", Kind: config.KindMarkdown, Path: notes})
	clk := newClock(epoch)

	check := func(what string, want map[string]index.FileState) {
		t.Helper()
		got := activeStates(t, cfg.Home)
		for path, w := range want {
			g, ok := got[path]
			if !ok || g.Source != w.Source || g.Problems != w.Problems || !strings.HasPrefix(g.Problem, w.Problem) || (w.Problem == "") != (g.Problem == "") {
				t.Errorf("%s: state of %s: %d problems, first %q; want %d, %q…", what, filepath.Base(path), g.Problems, g.Problem, w.Problems, w.Problem)
			}
		}
	}
	skipped := map[string]index.FileState{
		good:   {Source: "exports"},
		bad:    {Source: "exports", Problems: 2, Problem: "line 2: "},
		plain:  {Source: "notes"},
		binary: {Source: "notes", Problems: 1, Problem: "binary content"},
	}
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now}))
	check("first sync", skipped)

	// bad.jsonl grows: it is read on from its cursor, and its first two
	// problems are still its; binary.md is not read again. The sync
	// counts the problem of a new binary note as this sync's, and the
	// others as found earlier.
	appendFile(t, bad, jsonlLines(t, recs[4]))
	other := filepath.Join(notes, "other.md")
	writeFile(t, other, "\x00\x01\x02 not a note")
	r := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})).Build
	if r.Mode != index.ModeIncremental || r.FilesResumed != 1 || r.FilesRead != 2 {
		t.Fatalf("append: mode %s, %d files read, %d resumed; want incremental, 2, 1", r.Mode, r.FilesRead, r.FilesResumed)
	}
	skipped[other] = index.FileState{Source: "notes", Problems: 1, Problem: "binary content"}
	check("after an append", skipped)
	for _, s := range r.Sources {
		want := map[string][2]int{"exports": {0, 2}, "notes": {1, 1}}[s.Name]
		if s.Problems != want[0] || s.EarlierProblems != want[1] {
			t.Errorf("after an append: source %s counts %d problems and %d earlier ones, want %d and %d", s.Name, s.Problems, s.EarlierProblems, want[0], want[1])
		}
	}

	// A full rebuild in pieces of a line or two: the first problem is the
	// first piece's.
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Full: true, PieceBytes: 100}))
	check("full rebuild in pieces", skipped)

	// Fixed a while before the sync (a file with fewer lines than before
	// written a moment ago is taken for a rewrite in progress).
	writeFile(t, bad, jsonlLines(t, recs[2:5]...))
	writeFile(t, binary, "# Release\nRelease 2.4.1 shipped on Friday.\n")
	writeFile(t, other, "# Export\nThe nightly export job runs at 02:15 UTC.\n")
	for _, p := range []string{bad, binary, other} {
		if err := os.Chtimes(p, epoch.Add(-time.Hour), epoch.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now}))
	check("fixed", map[string]index.FileState{bad: {Source: "exports"}, binary: {Source: "notes"}, other: {Source: "notes"}})
}

// TestFileStates_olderGeneration: the sources.json of a generation built
// before states recorded their first problem loads, its counts intact; a
// generation without one records no files.
func TestFileStates_olderGeneration(t *testing.T) {
	home := paths.Home{Root: t.TempDir()}
	m := &manifest.Manifest{RunID: "20260301T080000Z", GenerationPath: "generations/20260301T080000Z"}
	states, err := index.FileStates(home, m)
	if err != nil || len(states) != 0 {
		t.Fatalf("without sources.json: %v, %v; want no states", states, err)
	}
	writeFile(t, filepath.Join(home.IndexDir(), m.GenerationPath, generation.FileSources),
		`{"version":"7","files":[{"source":"notes","path":"/n/b.md","size":9,"mtime":1,"cursor":{"offset":9,"line":1},"records":0,"problems":1},`+
			`{"source":"notes","path":"/n/a.md","size":5,"mtime":1,"cursor":{"offset":5,"line":1},"records":1}]}`+"\n")
	states, err = index.FileStates(home, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 2 || states[0].Path != "/n/a.md" || states[1].Problems != 1 || states[1].Problem != "" {
		t.Errorf("older states: %+v", states)
	}
	if err := os.WriteFile(filepath.Join(home.IndexDir(), m.GenerationPath, generation.FileSources), []byte(`{"files":[`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := index.FileStates(home, m); err == nil {
		t.Error("a torn sources.json loads without an error")
	}
}
