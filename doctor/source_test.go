package doctor

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/internal/novatest"
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
	_, newest, n := checkSource(config.Source{Name: "hermes", Kind: config.KindHermes, Path: dir}, runtime.GOOS, nil, nil)
	if n != 1 {
		t.Fatalf("listed %d files, want state.db alone", n)
	}
	if !newest.Equal(walTime) {
		t.Errorf("newest change %v, want the log's %v (state.db's is %v)", newest, walTime, dbTime)
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
	c, _, n := checkSource(config.Source{Name: "openclaw", Kind: config.KindOpenClaw, Path: dir}, runtime.GOOS, nil, nil)
	if n != 0 || !strings.Contains(c.Message, "OpenClaw's state directory (~/.openclaw)") {
		t.Errorf("%d files, message %q: want none listed and the folder to point at", n, c.Message)
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
	c, _, n := checkSource(config.Source{Name: "gemini", Kind: config.KindGemini, Path: dir}, runtime.GOOS, nil, nil)
	if n != 0 || !strings.Contains(c.Message, "the Gemini CLI home (~/.gemini)") {
		t.Errorf("%d files, message %q: want none listed and the folder to point at", n, c.Message)
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
	c, _, n := checkSource(config.Source{Name: "aider", Kind: config.KindAider, Path: dir}, runtime.GOOS, nil, nil)
	if n != 0 || !strings.Contains(c.Message, "the folder that holds your repositories (~/src)") {
		t.Errorf("%d files, message %q: want none listed and the folder to point at", n, c.Message)
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
