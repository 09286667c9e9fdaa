package index_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // the driver novactl links for Hermes sources

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSync_hermesWriteAheadLog: a running Hermes writes new messages to
// state.db-wal and leaves state.db's size and time alone. A sync sees the
// log change and reads the database again, a database that did not
// change is not read, and reading it again embeds only the new message:
// the others keep their documents and vectors.
func TestSync_hermesWriteAheadLog(t *testing.T) {
	dir := t.TempDir()
	hermesHome := filepath.Join(dir, "hermes")
	if err := os.MkdirAll(hermesHome, 0o700); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(hermesHome, "state.db")
	// Hermes' writer: WAL mode, kept open, no automatic checkpoint (the
	// writes of a short test would not reach one anyway).
	w, err := sql.Open("sqlite", "file:"+db+"?_pragma=journal_mode(wal)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	exec := func(stmts ...string) {
		t.Helper()
		for _, s := range stmts {
			if _, err := w.Exec(s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL NOT NULL, title TEXT, cwd TEXT)`,
		`CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT,
			tool_calls TEXT, timestamp REAL NOT NULL, active INTEGER NOT NULL DEFAULT 1, compacted INTEGER NOT NULL DEFAULT 0, display_kind TEXT)`,
		`INSERT INTO sessions VALUES ('s1', 'cli', 1772438400.0, 'Rounding', '/home/dev/src/billing')`,
		`INSERT INTO messages (session_id, role, content, timestamp) VALUES
			('s1', 'user', 'Why do invoice totals drift by a cent?', 1772438401.0),
			('s1', 'assistant', 'Each line is rounded before summing; round once at the end with banker''s rounding.', 1772438402.0),
			('s1', 'user', 'Add a regression test for the ledger export too.', 1772438403.0)`)
	if _, err := os.Stat(db + "-wal"); err != nil {
		t.Fatalf("the writer keeps no write-ahead log: %v", err)
	}

	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "hermes", Kind: config.KindHermes, Path: hermesHome})
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})
	b := mustSync(t, ix).Build
	if b.Records != 3 || b.Embedded != 3 || b.ProblemCount != 0 {
		t.Fatalf("first sync: records %d embedded %d problems %v", b.Records, b.Embedded, b.Problems)
	}
	_, g := active(t, cfg.Home)
	before := map[string]int{}
	for doc := range g.Len() {
		before[g.ID(doc)] = doc
	}

	b = syncOK(t, ix).Build
	if b.Mode != index.ModeUnchanged || b.FilesRead != 0 {
		t.Fatalf("sync of an unchanged database: %s, %d files read; want unchanged, none read", b.Mode, b.FilesRead)
	}

	dbStat, _ := os.Stat(db)
	exec(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'assistant', 'Added test_ledger_export_rounding; make test passes.', 1772438404.0)`)
	if now, _ := os.Stat(db); now.Size() != dbStat.Size() || !now.ModTime().Equal(dbStat.ModTime()) {
		t.Fatal("the insert changed state.db itself: the test proves nothing about the log")
	}
	b = mustSync(t, ix).Build
	// The two turns before the new one are written again with their
	// context (the words after them), keeping their vectors, as for any
	// transcript a turn is appended to.
	if b.Mode != index.ModeIncremental || b.FilesRead != 1 || b.Records != 4 || b.Embedded != 1 || b.Added != 3 || b.Retired != 2 || b.Carried != 2 {
		t.Fatalf("sync after an insert into the log: %s, read %d, records %d, embedded %d, added %d, retired %d, carried %d; want incremental 1 4 1 3 2 2",
			b.Mode, b.FilesRead, b.Records, b.Embedded, b.Added, b.Retired, b.Carried)
	}
	_, g = active(t, cfg.Home)
	found := false
	for _, c := range g.All() {
		if c.SourceID == "s1:4" && c.Text == "Added test_ledger_export_rounding; make test passes." && c.Agent == "hermes" && c.Project == "billing" &&
			c.SourceType == "hermes" && c.SourceSet == "agent-transcripts" && c.Time == "2026-03-02T08:00:04Z" {
			found = true
		}
	}
	if !found {
		t.Error("the new message is not in the index")
	}
	first := "hermes:s1:1"
	if d, ok := g.Find(first); !ok || d != before[first] || !g.Live(d) {
		t.Errorf("%s: document %d, was %d: a message the insert did not touch was indexed again (ids %v)", first, d, before[first], before)
	}

	// A checkpoint moves the log into the database: everything is read
	// again, nothing is embedded again.
	exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	b = syncOK(t, ix).Build
	if b.FilesRead != 1 || b.Embedded != 0 || b.Added != 0 || b.Retired != 0 || b.Records != 4 {
		t.Errorf("sync after a checkpoint: read %d, embedded %d, added %d, retired %d, records %d; want 1 0 0 0 4",
			b.FilesRead, b.Embedded, b.Added, b.Retired, b.Records)
	}
	b = syncOK(t, ix).Build
	if b.Mode != index.ModeUnchanged || b.FilesRead != 0 {
		t.Errorf("sync after that: %s, %d files read; want unchanged, none read", b.Mode, b.FilesRead)
	}
}

// TestSync_hermesLargeDatabaseStaysIncremental: a state.db past the most
// a delta reads (tool output fills Hermes' database, and it is read whole
// by a full build too) does not turn every sync into a full build, which
// would read every other source again at each message Hermes writes.
func TestSync_hermesLargeDatabaseStaysIncremental(t *testing.T) {
	dir := t.TempDir()
	hermesHome := filepath.Join(dir, "hermes")
	if err := os.MkdirAll(hermesHome, 0o700); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(hermesHome, "state.db")
	w, err := sql.Open("sqlite", "file:"+db+"?_pragma=journal_mode(wal)")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	for _, s := range []string{
		`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL NOT NULL)`,
		`CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT, timestamp REAL NOT NULL)`,
		`INSERT INTO sessions VALUES ('s1', 'cli', 1772438400.0)`,
		`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'user', 'Dump the access log', 1772438401.0)`,
		`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'tool', zeroblob(70 << 20), 1772438402.0)`,
		`PRAGMA wal_checkpoint(TRUNCATE)`,
	} {
		if _, err := w.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if fi, err := os.Stat(db); err != nil || fi.Size() < 70<<20 {
		t.Fatalf("state.db is not past 64 MiB: %v %v", fi.Size(), err)
	}
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "hermes", Kind: config.KindHermes, Path: hermesHome})
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})
	mustSync(t, ix)
	if _, err := w.Exec(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'assistant', 'The log is 70 MB of 404s from one crawler.', 1772438403.0)`); err != nil {
		t.Fatal(err)
	}
	b := mustSync(t, ix).Build
	if b.Mode != index.ModeIncremental || b.Records != 2 || b.Embedded != 1 {
		t.Errorf("sync after a message: %s, records %d, embedded %d; want incremental, 2, 1", b.Mode, b.Records, b.Embedded)
	}
}

// TestSync_hermesContextAcrossCompression: a session Hermes continued
// after a compression is the same conversation as the one it ended, so
// the first turn after the compression has the turns before it as its
// context; a sub-agent delegated in between is not part of it.
func TestSync_hermesContextAcrossCompression(t *testing.T) {
	dir := t.TempDir()
	hermesHome := filepath.Join(dir, "hermes")
	if err := os.MkdirAll(hermesHome, 0o700); err != nil {
		t.Fatal(err)
	}
	w, err := sql.Open("sqlite", "file:"+filepath.Join(hermesHome, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, s := range []string{
		`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL NOT NULL, title TEXT, cwd TEXT,
			parent_session_id TEXT, end_reason TEXT, model_config TEXT)`,
		`CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT, timestamp REAL NOT NULL)`,
		`INSERT INTO sessions VALUES
			('r1', 'cli', 1772438400.0, 'Ledger', '/home/dev/src/billing', NULL, 'compression', NULL),
			('d1', 'subagent', 1772438403.0, NULL, '/home/dev/src/billing', 'r1', NULL, '{"_delegate_from": "r1"}'),
			('c1', 'cli', 1772438500.0, NULL, '/home/dev/src/billing', 'r1', NULL, NULL)`,
		`INSERT INTO messages (session_id, role, content, timestamp) VALUES
			('r1', 'user', 'Export the ledger as comma separated values.', 1772438401.0),
			('r1', 'assistant', 'Exported ledger.csv with twelve hundred rows.', 1772438402.0),
			('d1', 'user', 'Locate the subroutine that rounds invoice totals.', 1772438404.0),
			('c1', 'user', 'Now round the totals once per invoice.', 1772438501.0)`,
	} {
		if _, err := w.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "hermes", Kind: config.KindHermes, Path: hermesHome})
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})
	if b := mustSync(t, ix).Build; b.Records != 4 || b.ProblemCount != 0 {
		t.Fatalf("sync: records %d problems %v", b.Records, b.Problems)
	}
	_, g := active(t, cfg.Home)
	docs := map[string]int{}
	for d, c := range g.All() {
		docs[c.SourceID] = d
	}
	d, ok := docs["c1:4"]
	if !ok {
		t.Fatalf("the turn after the compression is not indexed: %v", docs)
	}
	_, before := g.Context(d)
	if !strings.Contains(before, "Exported ledger.csv") || strings.Contains(before, "subroutine") {
		t.Errorf("context before the first turn after the compression: %q; want the turns before it, not the sub-agent's", before)
	}
	if c := g.Chunk(d); c.Conversation != "hermes:r1" || c.SessionID != "r1" {
		t.Errorf("c1:4 conversation %q session %q, want hermes:r1 and r1", c.Conversation, c.SessionID)
	}
	if c := g.Chunk(docs["d1:3"]); c.Conversation != "hermes:r1/sidechain-d1" || c.Role != "assistant" {
		t.Errorf("d1:3 conversation %q role %q, want a sub-agent's sidechain", c.Conversation, c.Role)
	}
}
