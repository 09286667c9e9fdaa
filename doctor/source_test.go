package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/internal/novatest"

	_ "modernc.org/sqlite" // the driver novactl links for Hermes sources
)

// TestCheckSource_hermesLogCountsAsAChange: Hermes writes new messages to
// its database's write-ahead log and leaves state.db's own time alone
// until a checkpoint; the newest change doctor weighs the index's
// freshness against must be the log's, or doctor says no source changed
// while the index misses the day's messages.
func TestCheckSource_hermesLogCountsAsAChange(t *testing.T) {
	dir := t.TempDir()
	db, wal := filepath.Join(dir, "state.db"), filepath.Join(dir, "state.db-wal")
	for _, p := range []string{db, wal} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	dbTime, walTime := time.Now().Add(-2*time.Hour).Truncate(time.Second), time.Now().Add(-time.Minute).Truncate(time.Second)
	if err := os.Chtimes(db, dbTime, dbTime); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(wal, walTime, walTime); err != nil {
		t.Fatal(err)
	}
	_, scan := checkSource(config.Source{Name: "hermes", Kind: config.KindHermes, Path: dir}, runtime.GOOS, nil, nil)
	if scan.files != 1 {
		t.Fatalf("listed %d files, want state.db alone", scan.files)
	}
	if !scan.newest.Equal(walTime) {
		t.Errorf("newest change %v, want the log's %v (state.db's is %v)", scan.newest, walTime, dbTime)
	}
}

// TestCheckSource_agentSubfolderSaysWhereToPoint: an OpenClaw source
// pointed at one agent's sessions folder lists nothing (the reader starts
// from the state directory); doctor says which folder the path should be.
func TestCheckSource_agentSubfolderSaysWhereToPoint(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "s1.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, scan := checkSource(config.Source{Name: "openclaw", Kind: config.KindOpenClaw, Path: dir}, runtime.GOOS, nil, nil)
	if scan.files != 0 || !strings.Contains(c.Message, "OpenClaw's state directory (~/.openclaw)") {
		t.Errorf("%d files, message %q: want none listed and the folder to point at", scan.files, c.Message)
	}
}

// TestCheckSource_geminiChatsFolderSaysWhereToPoint: a Gemini source
// pointed at one project's chats folder lists nothing (the reader starts
// from the Gemini home); doctor says which folder the path should be.
func TestCheckSource_geminiChatsFolderSaysWhereToPoint(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tmp", "billing", "chats")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "session-2026-03-02T11-00-9e0f1a2b.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, scan := checkSource(config.Source{Name: "gemini", Kind: config.KindGemini, Path: dir}, runtime.GOOS, nil, nil)
	if scan.files != 0 || !strings.Contains(c.Message, "the Gemini CLI home (~/.gemini)") {
		t.Errorf("%d files, message %q: want none listed and the folder to point at", scan.files, c.Message)
	}
}

// TestCheckSource_aiderFolderSaysWhereToPoint: an Aider source pointed at
// Aider's own folder (~/.aider: caches, no chat history) lists nothing;
// doctor says the path is the folder of repositories or a history file.
func TestCheckSource_aiderFolderSaysWhereToPoint(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".aider")
	if err := os.MkdirAll(filepath.Join(dir, "caches"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "analytics.json"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, scan := checkSource(config.Source{Name: "aider", Kind: config.KindAider, Path: dir}, runtime.GOOS, nil, nil)
	if scan.files != 0 || !strings.Contains(c.Message, "the folder that holds your repositories (~/src)") {
		t.Errorf("%d files, message %q: want none listed and the folder to point at", scan.files, c.Message)
	}
}

// TestFreshness_fileAheadOfTheClock: a source file whose time is ahead of
// this machine's clock (a share or a synced folder whose clock runs
// ahead) and that the last sync read as it is now has not changed since:
// freshness is Ready. Doctor compared its time with the index's build
// time and said, until the clock caught up, that sources changed an hour
// after the index was built, advising a sync that changed nothing.
func TestFreshness_fileAheadOfTheClock(t *testing.T) {
	f := newFixture(t)
	ahead := time.Now().Add(time.Hour)
	novatest.Must(t, os.Chtimes(f.src, ahead, ahead))
	f.sync()
	f.sync() // the second sync finds the file as the first read it
	want(t, f.run(Options{}), "freshness", Ready, "")

	// Written again, still ahead of the clock: changed since the sync.
	novatest.Must(t, os.WriteFile(f.src, []byte(`{"id":"r1","text":"we chose SQLite for the queue, then Postgres","date":"2026-03-01"}`+"\n"), 0o600))
	ahead = ahead.Add(time.Minute)
	novatest.Must(t, os.Chtimes(f.src, ahead, ahead))
	want(t, f.run(Options{}), "freshness", Degraded, CodeIndexStale)
}

// TestFreshness_sourceAddedSinceTheBuild: a source added to config.yaml
// after the active index was built, whose files are older than the build
// (notes kept for years), is not in memory until a sync reads it. Doctor
// compared file times with the build time and said no source changed
// since, so everything was Ready while search could not find the notes.
func TestFreshness_sourceAddedSinceTheBuild(t *testing.T) {
	f := newFixture(t)
	notes := filepath.Join(t.TempDir(), "notes")
	novatest.Must(t, os.MkdirAll(notes, 0o700))
	novatest.Must(t, os.WriteFile(filepath.Join(notes, "queue.md"), []byte("# Queue\n\nWe chose SQLite for the queue.\n"), 0o600))
	long := time.Now().Add(-24 * time.Hour)
	novatest.Must(t, os.Chtimes(filepath.Join(notes, "queue.md"), long, long))
	f.sync()
	want(t, f.run(Options{}), "freshness", Ready, "")

	f.extra = fmt.Sprintf("  - {name: notes2, kind: markdown, path: %q}\n", notes)
	f.writeConfig()
	c := want(t, f.run(Options{}), "freshness", Degraded, CodeIndexStale)
	if !strings.Contains(c.Message, "notes2") || !strings.Contains(c.Advice, "novactl index sync") {
		t.Errorf("a source added since the build: %+v", c)
	}
	f.sync()
	want(t, f.run(Options{}), "freshness", Ready, "")
}

// TestCheckSource_misspelledSourceSet: a sourceSet one or two letters from
// one Nova knows would govern the source's memory as unknown (authority 50
// instead of lessons' 95) without a word; doctor names the set it likely
// meant. Known sets in other spellings and sets of the user's own pass.
func TestCheckSource_misspelledSourceSet(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# Lesson\n\nAlways pin the Go toolchain.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		sourceSet, code, advice string
	}{
		{"lesons", CodeSourceSetUnknown, `did you mean "lessons"?`},
		{"task-board-snapshots", CodeSourceSetUnknown, `did you mean "task-board-snapshot"?`},
		{"Exernal_Content", CodeSourceSetUnknown, `did you mean "external-content"?`},
		{"Lessons", "", ""},             // a known set in other capitals
		{"task_board_snapshot", "", ""}, // and with '_'
		{"", "", ""},                    // the kind's default
		{"team-wiki", "", ""},           // a set of the user's own
		{"notes2", "", ""},              // a known name extended on purpose
	} {
		c, _ := checkSource(config.Source{Name: "n", Kind: config.KindMarkdown, Path: dir, SourceSet: tt.sourceSet}, runtime.GOOS, nil, nil)
		if c.Code != tt.code || !strings.Contains(c.Advice, tt.advice) {
			t.Errorf("sourceSet %q: %s %q %q / %q; want code %q and advice %q", tt.sourceSet, c.State, c.Code, c.Message, c.Advice, tt.code, tt.advice)
		}
		if tt.code != "" && (c.State != Degraded || !strings.Contains(c.Message, fmt.Sprintf("%q", tt.sourceSet))) {
			t.Errorf("sourceSet %q: state %s, message %q; want Degraded naming it", tt.sourceSet, c.State, c.Message)
		}
	}
}

// TestFreshness_changedSecondsAfterTheBuild: a source written seconds
// after the build (the usual case: a sync, then the agent's next turn)
// says by how many seconds; rounded to the minute it said "0s after".
func TestFreshness_changedSecondsAfterTheBuild(t *testing.T) {
	f := newFixture(t)
	m := f.sync()
	later := m.CreatedAt.Add(10 * time.Second)
	novatest.Must(t, os.Chtimes(f.src, later, later))
	c := want(t, f.run(Options{}), "freshness", Degraded, CodeIndexStale)
	if !strings.Contains(c.Message, "sources changed 10s after the active index was built") {
		t.Errorf("freshness: %s", c.Message)
	}
}

// TestSources_hermesDatabaseASyncCannotRead: a Hermes state.db that is no
// SQLite database, or a Codex .jsonl.zst that is damaged, is an error of
// every sync's read, which keeps no state of the file; doctor called it a file not yet in the active index and
// advised novactl index sync, which never helped. The source check names
// the read's error, and freshness does not send the user to a sync.
func TestSources_hermesDatabaseASyncCannotRead(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(filepath.Dir(f.src), "hermes")
	db := filepath.Join(dir, "state.db")
	novatest.Must(t, os.MkdirAll(dir, 0o700))
	novatest.Must(t, os.WriteFile(db, []byte(strings.Repeat("not a database ", 20)), 0o600))
	past := time.Now().Add(-time.Hour)
	novatest.Must(t, os.Chtimes(db, past, past))
	f.extra = fmt.Sprintf("  - {name: hermes, kind: hermes, path: %q}\n", dir)
	f.writeConfig()
	f.sync()
	f.sync() // as the advice said
	rep := f.run(Options{})
	c := want(t, rep, "source:hermes", Degraded, CodeSourceUnreadable)
	if !strings.Contains(c.Message, db) || !strings.Contains(c.Message, "not a database") || strings.Contains(c.Advice, "novactl index sync") {
		t.Errorf("hermes source: %+v", c)
	}
	if fr := find(rep, "freshness"); fr == nil || fr.State != Ready {
		t.Errorf("freshness beside a database no sync can read: %+v", fr)
	}
	// The syncs record it as a file they cannot read (and leave it unread
	// while it stays so): the source check names it, the input check,
	// whose advice is about input a read skipped, does not.
	if in := find(rep, "input"); in == nil || strings.Contains(in.Message, db) {
		t.Errorf("input check beside a database no sync can read: %+v", in)
	}

	// A Codex rollout compressed with zstd that is damaged, written after
	// the build: neither a change nor a file a sync records.
	day := filepath.Join(filepath.Dir(f.src), "codex", "sessions", "2026", "06", "01")
	rollout := filepath.Join(day, "rollout-2026-06-01T10-00-00-5b1c2d3e-0000-4a4a-9b9b-0000000000aa.jsonl.zst")
	novatest.Must(t, os.MkdirAll(day, 0o700))
	novatest.Must(t, os.WriteFile(rollout, []byte("not zstd at all"), 0o600))
	f.extra += fmt.Sprintf("  - {name: codex, kind: codex, path: %q}\n", filepath.Join(filepath.Dir(f.src), "codex"))
	f.writeConfig()
	f.sync()
	future := time.Now().Add(time.Minute)
	novatest.Must(t, os.Chtimes(rollout, future, future))
	f.sync()
	rep = f.run(Options{})
	if c := want(t, rep, "source:codex", Degraded, CodeSourceUnreadable); !strings.Contains(c.Message, rollout) {
		t.Errorf("codex source: %+v", c)
	}
	if fr := find(rep, "freshness"); fr == nil || fr.State != Ready {
		t.Errorf("freshness beside a rollout no sync can read: %+v", fr)
	}

	// The advice says what clears the report besides a backup: a file
	// that holds nothing to keep removed (or left out), and a sync.
	c = want(t, rep, "source:hermes", Degraded, CodeSourceUnreadable)
	if !strings.Contains(c.Advice, "remove it") || !strings.Contains(c.Advice, "sources[].exclude") {
		t.Errorf("hermes source advice: %q", c.Advice)
	}
	novatest.Must(t, os.Remove(db))
	f.sync()
	if c := find(f.run(Options{}), "source:hermes"); c == nil || c.State != Ready {
		t.Errorf("hermes source after the damaged database was removed and a sync: %+v", c)
	}
}
