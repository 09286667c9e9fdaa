package ingest

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the driver novactl links; tests of the reader need one

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// hermesSchema is state.db as Hermes writes it today (§1.7 of the
// integration notes: schema version 30), reasoning columns and all.
const hermesSchema = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE sessions (
	id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, session_key TEXT, chat_id TEXT,
	model TEXT, model_config TEXT, parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL,
	end_reason TEXT, title TEXT, cwd TEXT, git_branch TEXT, git_repo_root TEXT,
	input_tokens INTEGER, output_tokens INTEGER, profile_name TEXT, archived INTEGER DEFAULT 0, hidden INTEGER DEFAULT 0);
CREATE TABLE messages (
	id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
	content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL,
	token_count INTEGER, finish_reason TEXT, reasoning TEXT, reasoning_content TEXT, reasoning_details TEXT,
	codex_reasoning_items TEXT, codex_message_items TEXT,
	active INTEGER NOT NULL DEFAULT 1, compacted INTEGER NOT NULL DEFAULT 0,
	_compressed_summary INTEGER NOT NULL DEFAULT 0, api_content TEXT, display_kind TEXT, display_metadata TEXT, message_uid TEXT);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
INSERT INTO schema_version VALUES (30);
`

// hermesOldSchema is an older state.db: no cwd, git_repo_root,
// display_kind, active or compacted.
const hermesOldSchema = `
CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT, parent_session_id TEXT, started_at REAL NOT NULL, title TEXT);
CREATE TABLE messages (
	id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT,
	tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL, reasoning TEXT);
`

// openHermesWriter creates (or opens) a WAL database at path as Hermes
// does, runs stmts in it and returns the open connection: Hermes keeps
// its writer open, so its writes stay in the write-ahead log.
func openHermesWriter(t testing.TB, path string, stmts ...string) *sql.DB {
	t.Helper()
	u := url.URL{Scheme: "file", OmitHost: true, Path: path}
	db, err := sql.Open("sqlite", u.String()+"?_pragma=journal_mode(wal)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	hermesExec(t, db, stmts...)
	return db
}

func hermesExec(t testing.TB, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// writeHermesDB writes a database at path and closes it (Hermes not
// running: the log is checkpointed and removed).
func writeHermesDB(t testing.TB, path string, stmts ...string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	db := openHermesWriter(t, path, stmts...)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// readHermesSource reads a Hermes home through Read.
func readHermesSource(t *testing.T, home string) ([]memory.Record, []Problem) {
	t.Helper()
	return collect(t, config.Source{Name: "hermes", Kind: config.KindHermes, Path: home})
}

// hermesLine is a record as the tests compare it.
func hermesLine(r memory.Record) string {
	return strings.Join([]string{r.ID, r.Role, r.Layer, r.Project, r.SessionID, r.Conversation, r.Title,
		r.Time.UTC().Format(time.RFC3339Nano), r.Date, r.Text}, " | ")
}

func TestReadHermes(t *testing.T) {
	home := t.TempDir()
	const summary = "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below. " +
		"The current session state (files, config, etc.) may reflect work described here — avoid repeating it:\n" +
		"## Historical Task Snapshot\nFixed the rounding of invoice totals.\n\n" +
		"--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---"
	writeHermesDB(t, filepath.Join(home, "state.db"), hermesSchema,
		`INSERT INTO sessions (id, source, started_at, title, cwd, git_repo_root, parent_session_id) VALUES
			('20260302_080000_ab12', 'cli', 1772438400.0, 'Rounding bug', '/home/dev/src/billing/api', '/home/dev/src/billing', NULL),
			('20260302_090000_cd34', 'telegram', 1772442000.0, NULL, '/home/dev/src/shop', NULL, '20260302_080000_ab12'),
			('cron_1', 'cron', 1772442000.0, NULL, NULL, NULL, NULL),
			('tool_1', 'tool', 1772442000.0, NULL, NULL, NULL, NULL)`,
		`INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, reasoning, active, compacted, _compressed_summary, display_kind) VALUES
			('20260302_080000_ab12', 'user', 'Why do invoice totals drift by a cent?', NULL, NULL, NULL, 1772438401.25, NULL, 1, 0, 0, NULL),
			('20260302_080000_ab12', 'assistant', NULL, NULL, '[{"id":"call_1","type":"function","function":{"name":"terminal","arguments":"{\"command\":\"pytest -k rounding\"}"}}]', NULL, 1772438422.7, 'MARKER reasoning', 1, 0, 0, NULL),
			('20260302_080000_ab12', 'tool', 'MARKER 4 passed in 0.8s', 'call_1', NULL, 'terminal', 1772438423.0, NULL, 1, 0, 0, NULL),
			('20260302_080000_ab12', 'assistant', 'Each line is rounded before summing; round once at the end.', NULL, NULL, NULL, 1772438430.0, 'MARKER reasoning', 1, 0, 0, NULL),
			('20260302_080000_ab12', 'system', 'MARKER system prompt', NULL, NULL, NULL, 1772438431.0, NULL, 1, 0, 0, NULL),
			('20260302_080000_ab12', 'user', 'Review the conversation above and save what is worth remembering. MARKER', NULL, NULL, NULL, 1772438432.0, NULL, 1, 0, 0, NULL),
			('20260302_080000_ab12', 'assistant', 'MARKER model-facing scaffolding', NULL, NULL, NULL, 1772438433.0, NULL, 1, 0, 0, 'hidden'),
			('20260302_080000_ab12', 'user', 'An archived question about the ledger.', NULL, NULL, NULL, 1772438434.0, NULL, 0, 1, 0, 'text'),
			('20260302_080000_ab12', 'user', 'MARKER a turn a compaction replaced', NULL, NULL, NULL, 1772438435.0, NULL, 0, 0, 0, NULL),
			('20260302_080000_ab12', 'user', '`+strings.ReplaceAll(summary, "'", "''")+`', NULL, NULL, NULL, 1772438436.0, NULL, 1, 0, 1, NULL),
			('cron_1', 'user', 'MARKER cron prompt', NULL, NULL, NULL, 1772442001.0, NULL, 1, 0, 0, NULL),
			('tool_1', 'assistant', 'MARKER tool session', NULL, NULL, NULL, 1772442001.0, NULL, 1, 0, 0, NULL),
			('20260302_090000_cd34', 'user', 'The staging key is sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH, deploy it', NULL, NULL, NULL, 1772442002.5, NULL, 1, 0, 0, NULL)`,
	)
	if err := os.MkdirAll(filepath.Join(home, "memories"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "memories", "MEMORY.md"), []byte("User's billing repo uses banker's rounding.\n§\nThe test suite runs with make test.\n§\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "memories", "USER.md"), []byte("Prefers short answers.\r\n§\r\nWorks in UTC.\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Not the agent's: its checkout and logs are not read.
	for _, p := range []string{"hermes-agent/tests/state.db", "logs/MEMORY.md", "sessions/state.db"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(home, p)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, p), []byte("MARKER"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	before := dirNames(t, home)

	recs, problems := readHermesSource(t, home)
	if len(problems) != 0 {
		t.Errorf("problems: %v", problems)
	}
	const s1, s2 = "20260302_080000_ab12", "20260302_090000_cd34"
	want := []string{
		s1 + ":1 | user | dialogue | billing | " + s1 + " | hermes:" + s1 + " | Rounding bug | 2026-03-02T08:00:01.25Z | 2026-03-02 | Why do invoice totals drift by a cent?",
		s1 + ":4 | assistant | dialogue | billing | " + s1 + " | hermes:" + s1 + " | Rounding bug | 2026-03-02T08:00:30Z | 2026-03-02 | Each line is rounded before summing; round once at the end.\n[tool: terminal pytest -k rounding]",
		s1 + ":8 | user | dialogue | billing | " + s1 + " | hermes:" + s1 + " | Rounding bug | 2026-03-02T08:00:34Z | 2026-03-02 | An archived question about the ledger.",
		s1 + ":10#summary | assistant | summary | billing | " + s1 + " | hermes:" + s1 + " | Rounding bug | 2026-03-02T08:00:36Z | 2026-03-02 | ## Historical Task Snapshot\nFixed the rounding of invoice totals.",
		s2 + ":13 | user | dialogue | shop | " + s2 + " | hermes:" + s2 + " |  | 2026-03-02T09:00:02.5Z | 2026-03-02 | The staging key is [redacted], deploy it",
	}
	var got []string
	for _, r := range recs {
		if strings.Contains(r.Text, "MARKER") || strings.Contains(r.Text, "sk-proj-") {
			t.Errorf("noise leaked: %s", hermesLine(r))
		}
		if r.Agent != config.KindHermes || r.Kind != config.KindHermes {
			t.Errorf("agent %q kind %q: %s", r.Agent, r.Kind, hermesLine(r))
		}
		if r.Layer != "note" {
			got = append(got, hermesLine(r))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var notes []string
	for _, r := range recs {
		if r.Layer == "note" {
			notes = append(notes, r.Title+": "+r.Text)
			if !strings.HasPrefix(r.ID, "memories/") || r.Date == "" || r.Line == 0 {
				t.Errorf("note %s: date %q line %d", r.ID, r.Date, r.Line)
			}
			// The agent's memory is notes, as an OpenClaw workspace's and a
			// Gemini home's are, not transcripts.
			if r.SourceSet != "notes" {
				t.Errorf("note %s: source set %q, want notes", r.ID, r.SourceSet)
			}
		}
	}
	wantNotes := []string{"Hermes memory: User's billing repo uses banker's rounding.", "Hermes memory: The test suite runs with make test.",
		"Hermes user profile: Prefers short answers.", "Hermes user profile: Works in UTC."}
	if !slices.Equal(notes, wantNotes) {
		t.Errorf("notes = %q, want %q", notes, wantNotes)
	}
	if r := recs[len(recs)-1]; r.Redactions != 1 {
		t.Errorf("redactions = %d, want 1", r.Redactions)
	}
	// Read-only: not a file created, none changed.
	if after := dirNames(t, home); !slices.Equal(after, before) {
		t.Errorf("files after the read %v, before %v", after, before)
	}

	// Ids are the session's and the message's: the same at every read.
	again, _ := readHermesSource(t, home)
	for i := range again {
		if again[i].ID != recs[i].ID || again[i].Text != recs[i].Text {
			t.Errorf("second read: record %d is %s, was %s", i, again[i].ID, recs[i].ID)
		}
	}
}

// dirNames lists the files under dir with their sizes and times.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out = append(out, p+" "+fi.ModTime().String()+" "+fi.Mode().String()+" "+strings.Repeat("x", int(min(fi.Size(), 64))))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReadHermes_olderSchemaAndDrift: a database of an older Hermes (no
// cwd, display_kind, active, compacted) is read with what it has; unknown
// columns, NULL content, values of unexpected types and tool_calls that
// are not JSON are taken in stride, the last reported once.
func TestReadHermes_olderSchemaAndDrift(t *testing.T) {
	home := t.TempDir()
	writeHermesDB(t, filepath.Join(home, "profiles", "work", "state.db"), hermesOldSchema,
		`ALTER TABLE messages ADD COLUMN shiny_new_column BLOB`,
		`INSERT INTO sessions (id, source, started_at, title) VALUES ('s1', 'cli', 1772438400.0, 'Old')`,
		`INSERT INTO messages (session_id, role, content, tool_calls, timestamp, shiny_new_column) VALUES
			('s1', 'user', 'Migrate the cron table', NULL, 1772438401.0, x'00ff'),
			('s1', 'assistant', NULL, '{not json', 1772438402.0, NULL),
			('s1', 'assistant', NULL, '[{"name":"read_file","arguments":{"path":"cron.py"}}, {"function":{"name":"web_search","arguments":"plain words"}}]', 1772438403.0, NULL),
			('s1', 'assistant', NULL, NULL, 1772438404.0, NULL),
			('s1', 'assistant', 'Done.', '42', 1772438405.0, NULL),
			('s1', 'user', x'48656c6c6f', NULL, '1772438406.5', NULL),
			('s2-no-session-row', 'user', 'A session without its row', NULL, 'not a time', NULL)`,
	)
	recs, problems := readHermesSource(t, home)
	var got []string
	for _, r := range recs {
		got = append(got, hermesLine(r))
	}
	want := []string{
		"s1:1 | user | dialogue |  | s1 | hermes:s1 | Old | 2026-03-02T08:00:01Z | 2026-03-02 | Migrate the cron table",
		"s1:5 | assistant | dialogue |  | s1 | hermes:s1 | Old | 2026-03-02T08:00:05Z | 2026-03-02 | Done.\n[tool: read_file cron.py]\n[tool: web_search plain words]",
		"s1:6 | user | dialogue |  | s1 | hermes:s1 | Old | 2026-03-02T08:00:06.5Z | 2026-03-02 | Hello",
		"s2-no-session-row:7 | user | dialogue |  | s2-no-session-row | hermes:s2-no-session-row |  | 0001-01-01T00:00:00Z |  | A session without its row",
	}
	if !slices.Equal(got, want) {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(problems) != 1 || !strings.Contains(problems[0].Reason, "tool_calls of 2 messages") || !strings.Contains(problems[0].Reason, "message 2") {
		t.Errorf("problems = %v, want one naming the 2 malformed tool_calls", problems)
	}
}

// TestReadHermes_liveWAL: messages a running Hermes wrote to its
// write-ahead log, not yet checkpointed, are read; so is the log's change.
func TestReadHermes_liveWAL(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(home, "state.db")
	w := openHermesWriter(t, p, hermesSchema,
		`INSERT INTO sessions (id, source, started_at) VALUES ('s1', 'cli', 1772438400.0)`,
		`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'user', 'first prompt', 1772438401.0)`)
	dbBefore, _ := os.Stat(p)
	walBefore, err := os.Stat(p + "-wal")
	if err != nil {
		t.Fatalf("no write-ahead log: %v", err)
	}
	recs, problems := readHermesSource(t, home)
	if len(recs) != 1 || len(problems) != 0 {
		t.Fatalf("records %v problems %v", recs, problems)
	}
	hermesExec(t, w, `INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'assistant', 'second answer', 1772438402.0)`)
	dbAfter, _ := os.Stat(p)
	walAfter, _ := os.Stat(p + "-wal")
	if dbAfter.Size() != dbBefore.Size() || !dbAfter.ModTime().Equal(dbBefore.ModTime()) || walAfter.Size() == walBefore.Size() {
		t.Fatalf("the insert changed the database file (%d→%d) or not its log (%d→%d): the test proves nothing",
			dbBefore.Size(), dbAfter.Size(), walBefore.Size(), walAfter.Size())
	}
	recs, _ = readHermesSource(t, home)
	if len(recs) != 2 || recs[1].Text != "second answer" {
		t.Errorf("records after the insert: %v", recs)
	}
	if c := Companions(config.KindHermes, p); !slices.Equal(c, []string{p + "-wal"}) {
		t.Errorf("Companions = %v", c)
	}
	if c := Companions(config.KindHermes, filepath.Join(home, "memories", "MEMORY.md")); c != nil {
		t.Errorf("Companions of a memory file = %v", c)
	}
}

// TestReadHermes_busy: a database a writer holds exclusively is retried,
// then reported as an error of the file that passes (an index keeps its
// earlier memory, and a watcher syncs again soon), and read once the
// writer lets go.
func TestReadHermes_busy(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(home, "state.db")
	w := openHermesWriter(t, p, hermesSchema,
		`INSERT INTO sessions (id, source, started_at) VALUES ('s1', 'cli', 1772438400.0)`,
		`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'user', 'held', 1772438401.0)`)
	conn, err := w.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	// An exclusive transaction of a WAL database does not keep readers out;
	// an exclusive locking mode does.
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"PRAGMA locking_mode=EXCLUSIVE", "BEGIN EXCLUSIVE", "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'user', 'locked', 1772438402.0)"} {
		if _, err := conn.ExecContext(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	src := config.Source{Name: "hermes", Kind: config.KindHermes, Path: home}
	f := File{Path: p, Rel: "state.db"}
	start := time.Now()
	_, err = ReadFile(context.Background(), src, f, Cursor{}, Sink{Record: func(memory.Record) error { return nil }, Problem: func(Problem) {}})
	if err == nil || !transientSQLite(err) {
		t.Fatalf("read of a locked database: %v, want a busy error", err)
	}
	if !Passing(err) {
		t.Errorf("read of a locked database: %v is not Passing: a sync would not count it to read again soon", err)
	}
	if d := time.Since(start); d < (1+2)*hermesBackoff {
		t.Errorf("gave up after %v: not retried", d)
	}
	if _, err := conn.ExecContext(context.Background(), "COMMIT"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	w.Close()
	recs, problems := readHermesSource(t, home)
	if len(recs) != 2 || len(problems) != 0 {
		t.Errorf("after the writer let go: records %d problems %v", len(recs), problems)
	}
}

// TestReadHermes_notADatabase: a corrupt file, and a SQLite database that
// is not Hermes', are reported; the rest of the home is still read.
func TestReadHermes_notADatabase(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "state.db"), []byte("SQLite format 3\x00 and then garbage, garbage, garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeHermesDB(t, filepath.Join(home, "profiles", "other", "state.db"), `CREATE TABLE kv (k TEXT, v TEXT)`)
	if err := os.MkdirAll(filepath.Join(home, "memories"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "memories", "MEMORY.md"), []byte("Still read."), 0o600); err != nil {
		t.Fatal(err)
	}
	recs, problems := readHermesSource(t, home)
	if len(recs) != 1 || recs[0].Text != "Still read." {
		t.Errorf("records %v", recs)
	}
	var reasons []string
	for _, p := range problems {
		reasons = append(reasons, filepath.Base(filepath.Dir(p.Path))+"/"+filepath.Base(p.Path)+": "+p.Reason)
	}
	if len(problems) != 2 || !strings.Contains(reasons[0], "other/state.db: no messages table") ||
		!strings.Contains(reasons[1], "state.db: read Hermes database:") {
		t.Errorf("problems:\n%s", strings.Join(reasons, "\n"))
	}
}

// TestHermesDSN: paths that are not plain words still name the file.
func TestHermesDSN(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a dir?with #odd%chars")
	writeHermesDB(t, filepath.Join(dir, "state.db"), hermesSchema,
		`INSERT INTO sessions (id, source, started_at) VALUES ('s1', 'cli', 1772438400.0)`,
		`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'user', 'odd path', 1772438401.0)`)
	recs, problems := readHermesSource(t, dir)
	if len(recs) != 1 || len(problems) != 0 {
		t.Errorf("records %v problems %v", recs, problems)
	}
}

// TestReadHermes_multimodalContent: a message of parts (text and an
// image) is stored as JSON after a sentinel, today's and the legacy one;
// its text is indexed, the image as a placeholder, never the JSON or the
// picture's bytes.
func TestReadHermes_multimodalContent(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "state.db")
	db := openHermesWriter(t, path, hermesSchema,
		`INSERT INTO sessions (id, source, started_at, title) VALUES ('s1', 'cli', 1772438400.0, 'Screenshots')`)
	image := `{"type": "image_url", "image_url": {"url": "data:image/png;base64,` + strings.Repeat("iVBORw0KGgo", 40) + `"}}`
	contents := []string{
		"\x01json:" + `[{"type": "text", "text": "Why is the chart's legend cut off?"}, ` + image + `]`,
		"\x00json:" + `[{"type": "text", "text": "The legend overflows its box."}, {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}]`,
		"\x01json:" + `{"type": "text", "text": "One part on its own."}`,
		"\x01json:" + `"A string stored as JSON."`,
		"\x01json:" + `[{"type": "text", "text": "MARKER cut off`,
		"A plain message about json: and \x01 bytes.",
	}
	got, problems := readHermesMessages(t, db, home, "user", contents)
	want := []string{
		"s1:1 Why is the chart's legend cut off?\n[image]",
		"s1:2 The legend overflows its box.\n[binary]",
		"s1:3 One part on its own.",
		"s1:4 A string stored as JSON.",
		"s1:6 A plain message about json: and \x01 bytes.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("records:\n%q\nwant:\n%q", got, want)
	}
	if len(problems) != 1 || !strings.Contains(problems[0].Reason, "content of 1 messages") || !strings.Contains(problems[0].Reason, "message 5") {
		t.Errorf("problems = %v, want one naming message 5's broken content", problems)
	}
}

// TestReadHermes_skillView: Hermes loads a skill through skill_view, its
// one telling argument "name" (file_path only when it opens one of the
// skill's files), as Hermes writes tool_calls: OpenAI's shape, the
// arguments a JSON string. The summary names the skill.
func TestReadHermes_skillView(t *testing.T) {
	home := t.TempDir()
	writeHermesDB(t, filepath.Join(home, "state.db"), hermesSchema,
		`INSERT INTO sessions (id, source, started_at, title) VALUES ('s1', 'cli', 1772438400.0, 'Standup')`,
		`INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp) VALUES
			('s1', 'user', 'Write today''s standup from the merged PRs', NULL, NULL, NULL, 1772438401.0),
			('s1', 'assistant', '', NULL, '[{"id": "call_1", "type": "function", "function": {"name": "skill_view", "arguments": "{\"name\": \"standup-notes\"}"}}]', NULL, 1772438402.0),
			('s1', 'tool', 'MARKER # Standup notes', 'call_1', NULL, 'skill_view', 1772438403.0),
			('s1', 'assistant', '', NULL, '[{"id": "call_2", "type": "function", "function": {"name": "skill_view", "arguments": "{\"name\": \"standup-notes\", \"file_path\": \"templates/daily.md\"}"}}]', NULL, 1772438404.0),
			('s1', 'tool', 'MARKER ## Yesterday', 'call_2', NULL, 'skill_view', 1772438405.0),
			('s1', 'assistant', 'Yesterday: merged the coupon fix and the cart cache.', NULL, NULL, NULL, 1772438406.0)`,
	)
	recs, _ := readHermesSource(t, home)
	var got []string
	for _, r := range recs {
		got = append(got, r.Text)
	}
	want := []string{
		"Write today's standup from the merged PRs",
		"Yesterday: merged the coupon fix and the cart cache.\n[tool: skill_view standup-notes]\n[tool: skill_view standup-notes]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("records:\n%q\nwant:\n%q", got, want)
	}
}

// TestReadHermes_lineage: Hermes links sessions through parent_session_id.
// A compression ends a session ("compression") and goes on in a child
// whose model_config markers do not name that parent: the same
// conversation, keyed by the chain's root, each record keeping its own
// id. A delegation (_delegate_from naming the parent) is a sub-agent's
// conversation, its prompts the main agent's; a branch (_branched_from)
// or a reset (_reset_from) of a session a compression ended is a new
// conversation. A cycle or a missing parent is its own conversation; a
// model_config that is not JSON has no markers.
func TestReadHermes_lineage(t *testing.T) {
	home := t.TempDir()
	writeHermesDB(t, filepath.Join(home, "state.db"), hermesSchema,
		`INSERT INTO sessions (id, source, started_at, ended_at, end_reason, title, cwd, parent_session_id, model_config) VALUES
			('r1', 'cli', 1772438400.0, 1772438500.0, 'compression', 'Ledger export', '/home/dev/src/billing', NULL, '{"temperature": 0.2}'),
			('c1', 'cli', 1772438500.0, 1772438600.0, 'compression', NULL, '/home/dev/src/billing', 'r1', '{"temperature": 0.2}'),
			('c2', 'cli', 1772438600.0, NULL, NULL, NULL, '/home/dev/src/billing', 'c1', '{"temperature": 0.2}'),
			('d1', 'subagent', 1772438550.0, 1772438560.0, 'compression', NULL, '/home/dev/src/billing', 'c1', '{"_delegate_from": "c1"}'),
			('d2', 'subagent', 1772438560.0, NULL, NULL, NULL, '/home/dev/src/billing', 'd1', '{"_delegate_from": "c1"}'),
			('b1', 'cli', 1772438700.0, NULL, NULL, 'Ledger export (branch)', '/home/dev/src/billing', 'r1', '{"_branched_from": "r1"}'),
			('e1', 'telegram', 1772438800.0, NULL, NULL, NULL, '/home/dev/src/billing', 'r1', '{"_reset_from": "r1"}'),
			('y1', 'cli', 1772438900.0, 1772438901.0, 'compression', NULL, NULL, 'y2', NULL),
			('y2', 'cli', 1772438902.0, 1772438903.0, 'compression', NULL, NULL, 'y1', NULL),
			('z1', 'cli', 1772439000.0, NULL, NULL, NULL, NULL, 'gone', '{"_delegate_from": 7, "_branched_from": ["not", "a", "string"]}'),
			('m1', 'cli', 1772439100.0, NULL, NULL, NULL, NULL, 'r1', 'not json'),
			('d3', 'cli', 1772438610.0, NULL, NULL, NULL, NULL, 'c2', '{"_delegate_from": "c2"}'),
			('d4', 'subagent', 1772438620.0, NULL, NULL, NULL, NULL, NULL, NULL),
			('d5', 'subagent', 1772438565.0, NULL, NULL, NULL, NULL, 'd2', '{"_delegate_from": "d2"}'),
			('d6', 'subagent', 1772439200.0, NULL, NULL, NULL, NULL, 'd7', '{"_delegate_from": "d7"}'),
			('d7', 'subagent', 1772439200.0, NULL, NULL, NULL, NULL, 'd6', '{"_delegate_from": "d6"}')`,
		`INSERT INTO messages (session_id, role, content, timestamp) VALUES
			('r1', 'user', 'Export the ledger as CSV.', 1772438401.0),
			('r1', 'assistant', 'Exported ledger.csv with 1,204 rows.', 1772438402.0),
			('c1', 'user', 'Round the totals in the export.', 1772438501.0),
			('d1', 'user', 'Find where the export rounds totals.', 1772438551.0),
			('d2', 'assistant', 'export.py line 88 rounds each line.', 1772438561.0),
			('c1', 'assistant', 'The export now rounds once per invoice.', 1772438502.0),
			('c2', 'user', 'Add a test for it.', 1772438601.0),
			('b1', 'user', 'Try rounding half-even instead.', 1772438701.0),
			('e1', 'user', 'Start over: what is in the ledger?', 1772438801.0),
			('y1', 'user', 'Cycle one.', 1772438900.5),
			('y2', 'user', 'Cycle two.', 1772438902.5),
			('z1', 'user', 'My parent is gone.', 1772439001.0),
			('m1', 'user', 'A model_config that is not JSON.', 1772439101.0),
			('d3', 'user', 'Marked delegated, from the cli.', 1772438611.0),
			('d4', 'user', 'A sub-agent of no known session.', 1772438621.0),
			('d5', 'user', 'A sub-agent of a sub-agent.', 1772438566.0),
			('d6', 'user', 'Delegated in a circle.', 1772439201.0),
			('d7', 'user', 'Delegated in a circle too.', 1772439202.0)`,
	)
	recs, problems := readHermesSource(t, home)
	if len(problems) != 0 {
		t.Errorf("problems: %v", problems)
	}
	var got []string
	for _, r := range recs {
		// Sub-agents delegated in a circle: read, as sub-agents, once.
		if r.SessionID == "d6" || r.SessionID == "d7" {
			if r.Role != "assistant" || !strings.Contains(r.Conversation, "/sidechain-d") {
				t.Errorf("%s: role %s conversation %s", r.ID, r.Role, r.Conversation)
			}
			continue
		}
		got = append(got, strings.Join([]string{r.ID, r.Role, r.SessionID, r.Conversation, r.Title, r.Project, r.Text}, " | "))
	}
	if len(recs) != 18 {
		t.Errorf("%d records, want 18", len(recs))
	}
	want := []string{
		"r1:1 | user | r1 | hermes:r1 | Ledger export | billing | Export the ledger as CSV.",
		"r1:2 | assistant | r1 | hermes:r1 | Ledger export | billing | Exported ledger.csv with 1,204 rows.",
		"c1:3 | user | r1 | hermes:r1 | Ledger export | billing | Round the totals in the export.",
		// The sub-agent's prompt is the task the main agent gave it.
		"d1:4 | assistant | r1 | hermes:r1/sidechain-d1 |  | billing | Find where the export rounds totals.",
		"d2:5 | assistant | r1 | hermes:r1/sidechain-d1 |  | billing | export.py line 88 rounds each line.",
		"c1:6 | assistant | r1 | hermes:r1 | Ledger export | billing | The export now rounds once per invoice.",
		"c2:7 | user | r1 | hermes:r1 | Ledger export | billing | Add a test for it.",
		"b1:8 | user | b1 | hermes:b1 | Ledger export (branch) | billing | Try rounding half-even instead.",
		"e1:9 | user | e1 | hermes:e1 |  | billing | Start over: what is in the ledger?",
		"y1:10 | user | y1 | hermes:y1 |  |  | Cycle one.",
		"y2:11 | user | y2 | hermes:y2 |  |  | Cycle two.",
		"z1:12 | user | z1 | hermes:z1 |  |  | My parent is gone.",
		// No marker can be read, so none names the parent: a
		// continuation, as Hermes' own json_valid guard reads it.
		"m1:13 | user | r1 | hermes:r1 | Ledger export | billing | A model_config that is not JSON.",
		"d3:14 | assistant | r1 | hermes:r1/sidechain-d3 |  |  | Marked delegated, from the cli.",
		"d4:15 | assistant | d4 | hermes:d4/sidechain |  |  | A sub-agent of no known session.",
		"d5:16 | assistant | r1 | hermes:r1/sidechain-d5 |  |  | A sub-agent of a sub-agent.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, r := range recs {
		if r.Path != filepath.Join(home, "state.db") || r.Line == 0 {
			t.Errorf("%s: path %q line %d: not its own provenance", r.ID, r.Path, r.Line)
		}
	}
}

// TestReadHermes_lineageOlderSchemas: a database without end_reason or
// model_config, or without parent_session_id, links no sessions: each is
// its own conversation, as before Hermes recorded why a session ended.
func TestReadHermes_lineageOlderSchemas(t *testing.T) {
	for name, schema := range map[string]string{
		"no end_reason or model_config": hermesOldSchema,
		"no parent_session_id": `
CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL NOT NULL, title TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT, timestamp REAL NOT NULL);`,
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			parent := ""
			if strings.Contains(schema, "parent_session_id") {
				parent = ", parent_session_id"
			}
			values := map[bool]string{true: `('s1', 'cli', 1772438400.0, NULL), ('s2', 'cli', 1772438500.0, 's1')`, false: `('s1', 'cli', 1772438400.0), ('s2', 'cli', 1772438500.0)`}
			writeHermesDB(t, filepath.Join(home, "state.db"), schema,
				`INSERT INTO sessions (id, source, started_at`+parent+`) VALUES `+values[parent != ""],
				`INSERT INTO messages (session_id, role, content, timestamp) VALUES
					('s1', 'user', 'First session.', 1772438401.0),
					('s2', 'user', 'Second session.', 1772438501.0)`)
			recs, problems := readHermesSource(t, home)
			var got []string
			for _, r := range recs {
				got = append(got, r.ID+" "+r.Role+" "+r.SessionID+" "+r.Conversation)
			}
			want := []string{"s1:1 user s1 hermes:s1", "s2:2 user s2 hermes:s2"}
			if !slices.Equal(got, want) || len(problems) != 0 {
				t.Errorf("records %q problems %v, want %q", got, problems, want)
			}
		})
	}
}

// hermesCompressionFixture is a home whose conversations Hermes split by
// compression, as its SessionDB writes them. Each continuation starts
// with the handoff: the protected head (the conversation's first
// messages), the summary, the protected tail (its last messages), all as
// new rows. Chain r1 → c1 → c2 is today's Hermes: a carried row keeps
// its original's timestamp (publish_compression_child). Chain l1 → l2 is
// an older build that stamped the copies anew, the summary merged into
// the first tail message. Each continuation then has new turns, one of
// them a reply the user had already typed ("ok", "Plan the migration.").
var hermesCompressionFixture = []string{hermesSchema,
	`INSERT INTO sessions (id, source, started_at, ended_at, end_reason, title, cwd, parent_session_id, model_config) VALUES
		('r1', 'cli', 1772438400.0, 1772438500.0, 'compression', 'Invoice export', '/home/dev/src/billing', NULL, NULL),
		('c1', 'cli', 1772438500.0, 1772438600.0, 'compression', 'Invoice export (2)', '/home/dev/src/billing', 'r1', NULL),
		('c2', 'cli', 1772438600.0, NULL, NULL, 'Invoice export (3)', '/home/dev/src/billing', 'c1', NULL),
		('l1', 'cli', 1772439000.0, 1772439100.0, 'compression', 'Migration', NULL, NULL, NULL),
		('l2', 'cli', 1772439100.0, NULL, NULL, NULL, NULL, 'l1', NULL)`,
	`INSERT INTO messages (id, session_id, role, content, tool_call_id, tool_calls, timestamp, _compressed_summary) VALUES
		(1, 'r1', 'user', 'Set up the invoice export.', NULL, NULL, 1772438401.0, 0),
		(2, 'r1', 'assistant', NULL, NULL, '[{"id":"call_1","type":"function","function":{"name":"terminal","arguments":"{\"command\":\"make export\"}"}}]', 1772438402.0, 0),
		(3, 'r1', 'tool', 'exit 0', 'call_1', NULL, 1772438403.0, 0),
		(4, 'r1', 'assistant', 'The export is set up in export.py.', NULL, NULL, 1772438404.0, 0),
		(5, 'r1', 'user', 'ok', NULL, NULL, 1772438405.0, 0),
		(6, 'r1', 'assistant', 'Anything else?', NULL, NULL, 1772438406.0, 0),
		(7, 'r1', 'user', 'Round the totals per invoice.', NULL, NULL, 1772438407.0, 0),
		(8, 'r1', 'assistant', 'Totals are now rounded once per invoice.', NULL, NULL, 1772438408.0, 0),
		(9, 'c1', 'user', 'Set up the invoice export.', NULL, NULL, 1772438401.0, 0),
		(10, 'c1', 'assistant', NULL, NULL, '[{"id":"call_1","type":"function","function":{"name":"terminal","arguments":"{\"command\":\"make export\"}"}}]', 1772438402.0, 0),
		(11, 'c1', 'tool', 'exit 0', 'call_1', NULL, 1772438403.0, 0),
		(12, 'c1', 'user', '[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted. Avoid repeating it:
## Historical Task Snapshot
Built the invoice export.
--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---', NULL, NULL, 1772438500.5, 1),
		(13, 'c1', 'user', 'Round the totals per invoice.', NULL, NULL, 1772438407.0, 0),
		(14, 'c1', 'assistant', 'Totals are now rounded once per invoice.', NULL, NULL, 1772438408.0, 0),
		(15, 'c1', 'user', 'ok', NULL, NULL, 1772438501.0, 0),
		(16, 'c1', 'assistant', 'Done. Anything else?', NULL, NULL, 1772438502.0, 0),
		(17, 'c1', 'user', 'Add a test for the rounding.', NULL, NULL, 1772438503.0, 0),
		(18, 'c2', 'user', 'Set up the invoice export.', NULL, NULL, 1772438401.0, 0),
		(19, 'c2', 'assistant', NULL, NULL, '[{"id":"call_1","type":"function","function":{"name":"terminal","arguments":"{\"command\":\"make export\"}"}}]', 1772438402.0, 0),
		(20, 'c2', 'tool', 'exit 0', 'call_1', NULL, 1772438403.0, 0),
		(21, 'c2', 'assistant', '[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted. Avoid repeating it:
## Historical Task Snapshot
Built the export, rounded the totals.', NULL, NULL, 1772438600.5, 1),
		(22, 'c2', 'user', 'Add a test for the rounding.', NULL, NULL, 1772438503.0, 0),
		(23, 'c2', 'assistant', 'Added test_rounding.py.', NULL, NULL, 1772438601.0, 0),
		(30, 'l1', 'user', 'Plan the migration.', NULL, NULL, 1772439001.0, 0),
		(31, 'l1', 'assistant', 'Three steps: dump, convert, load.', NULL, NULL, 1772439002.0, 0),
		(32, 'l1', 'user', 'Start with the dump.', NULL, NULL, 1772439003.0, 0),
		(33, 'l1', 'assistant', 'Dumped to dump.sql.', NULL, NULL, 1772439004.0, 0),
		(34, 'l2', 'user', 'Plan the migration.', NULL, NULL, 1772439100.1, 0),
		(35, 'l2', 'assistant', 'Three steps: dump, convert, load.', NULL, NULL, 1772439100.2, 0),
		(36, 'l2', 'user', '[PRIOR CONTEXT — for reference only; not a new message]
Start with the dump.
[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]
[CONTEXT SUMMARY]: Planned the migration; dumped the database.', NULL, NULL, 1772439100.3, 0),
		(37, 'l2', 'assistant', 'Dumped to dump.sql.', NULL, NULL, 1772439100.4, 0),
		(38, 'l2', 'user', 'Plan the migration.', NULL, NULL, 1772439101.0, 0),
		(39, 'l2', 'assistant', 'Same plan: convert next.', NULL, NULL, 1772439102.0, 0)`,
}

// hermesCompressionWant is what the fixture's conversations are: each
// turn once, the original where Hermes first wrote it.
var hermesCompressionWant = []string{
	"r1:1 | user | hermes:r1 | Set up the invoice export.",
	"r1:4 | assistant | hermes:r1 | The export is set up in export.py.\n[tool: terminal make export]",
	"r1:5 | user | hermes:r1 | ok",
	"r1:6 | assistant | hermes:r1 | Anything else?",
	"r1:7 | user | hermes:r1 | Round the totals per invoice.",
	"r1:8 | assistant | hermes:r1 | Totals are now rounded once per invoice.",
	"c1:12#summary | assistant | hermes:r1 | ## Historical Task Snapshot\nBuilt the invoice export.",
	// Typed again after the compression: a turn of its own.
	"c1:15 | user | hermes:r1 | ok",
	"c1:16 | assistant | hermes:r1 | Done. Anything else?",
	"c1:17 | user | hermes:r1 | Add a test for the rounding.",
	"c2:21#summary | assistant | hermes:r1 | ## Historical Task Snapshot\nBuilt the export, rounded the totals.",
	"c2:23 | assistant | hermes:r1 | Added test_rounding.py.",
	"l1:30 | user | hermes:l1 | Plan the migration.",
	"l1:31 | assistant | hermes:l1 | Three steps: dump, convert, load.",
	"l1:32 | user | hermes:l1 | Start with the dump.",
	"l1:33 | assistant | hermes:l1 | Dumped to dump.sql.",
	"l2:36#summary | assistant | hermes:l1 | Planned the migration; dumped the database.",
	"l2:38 | user | hermes:l1 | Plan the migration.",
	"l2:39 | assistant | hermes:l1 | Same plan: convert next.",
}

func hermesCompressionLines(recs []memory.Record) []string {
	var got []string
	for _, r := range recs {
		got = append(got, strings.Join([]string{r.ID, r.Role, r.Conversation, r.Text}, " | "))
	}
	return got
}

// TestReadHermes_compressionCopies: the turns a compression carried into
// its continuation are indexed once, from the session that first had
// them; the summary and the turns new in the continuation are kept, a
// reply the user typed again among them.
func TestReadHermes_compressionCopies(t *testing.T) {
	home := t.TempDir()
	writeHermesDB(t, filepath.Join(home, "state.db"), hermesCompressionFixture...)
	recs, problems := readHermesSource(t, home)
	if len(problems) != 0 {
		t.Errorf("problems: %v", problems)
	}
	if got := hermesCompressionLines(recs); !slices.Equal(got, hermesCompressionWant) {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(hermesCompressionWant, "\n"))
	}
}

// TestReadHermes_compressionCopiesLater: the database is read whole at
// each change, so a continuation Hermes writes after its parent was
// indexed drops its copies too, and the parent's records stay as they
// were (same ids, same text).
func TestReadHermes_compressionCopiesLater(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(home, "state.db")
	w := openHermesWriter(t, p, hermesSchema,
		`INSERT INTO sessions (id, source, started_at, title) VALUES ('r1', 'cli', 1772438400.0, 'Invoice export')`,
		`INSERT INTO messages (session_id, role, content, timestamp) VALUES
			('r1', 'user', 'Set up the invoice export.', 1772438401.0),
			('r1', 'assistant', 'Done in export.py.', 1772438402.0),
			('r1', 'user', 'Round the totals.', 1772438403.0),
			('r1', 'assistant', 'Rounded once per invoice.', 1772438404.0)`)
	before, _ := readHermesSource(t, home)
	if len(before) != 4 {
		t.Fatalf("records before the compression: %v", hermesCompressionLines(before))
	}
	hermesExec(t, w,
		`UPDATE sessions SET ended_at = 1772438500.0, end_reason = 'compression' WHERE id = 'r1'`,
		`INSERT INTO sessions (id, source, started_at, parent_session_id) VALUES ('c1', 'cli', 1772438500.0, 'r1')`,
		`INSERT INTO messages (session_id, role, content, timestamp, _compressed_summary) VALUES
			('c1', 'user', 'Set up the invoice export.', 1772438401.0, 0),
			('c1', 'assistant', 'Done in export.py.', 1772438402.0, 0),
			('c1', 'user', '[CONTEXT COMPACTION — REFERENCE ONLY] Compacted. Avoid repeating it:
Export built, totals rounded.', 1772438500.5, 1),
			('c1', 'user', 'Round the totals.', 1772438403.0, 0),
			('c1', 'assistant', 'Rounded once per invoice.', 1772438404.0, 0),
			('c1', 'user', 'Round the totals.', 1772438501.0, 0)`)
	after, problems := readHermesSource(t, home)
	got := hermesCompressionLines(after)
	want := append(hermesCompressionLines(before),
		"c1:7#summary | assistant | hermes:r1 | Export built, totals rounded.",
		"c1:10 | user | hermes:r1 | Round the totals.")
	if !slices.Equal(got, want) || len(problems) != 0 {
		t.Errorf("records after the continuation:\n%s\nwant:\n%s\nproblems %v", strings.Join(got, "\n"), strings.Join(want, "\n"), problems)
	}
}

// TestReadHermes_compressionCarriedSummary: builds of Hermes before
// #57835 (context_compressor.py: a protected head no longer fossilizes an
// old handoff) carried the summary of an earlier compression in the next
// continuation's protected head, or stacked it before the new one, as a
// new row with the same summary, maybe under an older prefix. The
// summary is indexed once, from the continuation that first had it; the
// new summary is kept.
func TestReadHermes_compressionCarriedSummary(t *testing.T) {
	home := t.TempDir()
	writeHermesDB(t, filepath.Join(home, "state.db"), hermesSchema,
		`INSERT INTO sessions (id, source, started_at, ended_at, end_reason, parent_session_id) VALUES
			('r1', 'cli', 1772438400.0, 1772438500.0, 'compression', NULL),
			('c1', 'cli', 1772438500.0, 1772438600.0, 'compression', 'r1'),
			('c2', 'cli', 1772438600.0, 1772438700.0, 'compression', 'c1'),
			('c3', 'cli', 1772438700.0, NULL, NULL, 'c2')`,
		`INSERT INTO messages (id, session_id, role, content, timestamp, _compressed_summary) VALUES
			(1, 'r1', 'user', 'Set up the invoice export.', 1772438401.0, 0),
			(2, 'r1', 'assistant', 'Done in export.py.', 1772438402.0, 0),
			(3, 'r1', 'user', 'Round the totals.', 1772438403.0, 0),
			(4, 'c1', 'user', 'Set up the invoice export.', 1772438401.0, 0),
			(5, 'c1', 'assistant', '[CONTEXT COMPACTION — REFERENCE ONLY] Compacted. Avoid repeating it:
Export built in export.py.
--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---', 1772438500.5, 1),
			(6, 'c1', 'user', 'Round the totals.', 1772438403.0, 0),
			(7, 'c1', 'assistant', 'Rounded once per invoice.', 1772438501.0, 0),
			(8, 'c2', 'user', 'Set up the invoice export.', 1772438401.0, 0),
			(9, 'c2', 'assistant', '[CONTEXT COMPACTION — REFERENCE ONLY] Compacted. Avoid repeating it:
Export built in export.py.
--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---', 1772438500.5, 1),
			(10, 'c2', 'user', '[CONTEXT COMPACTION — REFERENCE ONLY] Compacted. Avoid repeating it:
Totals rounded once per invoice.', 1772438600.5, 1),
			(11, 'c2', 'assistant', 'Rounded once per invoice.', 1772438501.0, 0),
			(12, 'c2', 'user', 'Add a test.', 1772438601.0, 0),
			(13, 'c3', 'user', '[CONTEXT SUMMARY]: Export built in export.py.', 1772438700.1, 1),
			(14, 'c3', 'assistant', '[CONTEXT COMPACTION — REFERENCE ONLY] Compacted. Avoid repeating it:
Tests added for the rounding.', 1772438700.5, 1),
			(15, 'c3', 'user', 'Ship it.', 1772438701.0, 0)`)
	recs, problems := readHermesSource(t, home)
	var got []string
	for _, r := range recs {
		got = append(got, r.ID)
	}
	want := []string{"r1:1", "r1:2", "r1:3", "c1:5#summary", "c1:7", "c2:10#summary", "c2:12", "c3:14#summary", "c3:15"}
	if !slices.Equal(got, want) || len(problems) != 0 {
		t.Errorf("records %q problems %v, want %q", got, problems, want)
	}
}

// TestReadHermes_compressionNotCopies: equal words alone do not make a
// copy. A continuation with no summary (no handoff to place copies by)
// whose turns repeat its parent's under new timestamps keeps them; so
// does one whose rows before the summary do not repeat the conversation's
// first turns, or whose rows after it do not reach its last; and a
// session that merely has a parent (not ended by compression) keeps all.
func TestReadHermes_compressionNotCopies(t *testing.T) {
	home := t.TempDir()
	writeHermesDB(t, filepath.Join(home, "state.db"), hermesSchema,
		`INSERT INTO sessions (id, source, started_at, end_reason, parent_session_id) VALUES
			('p', 'cli', 1772438400.0, 'compression', NULL),
			('q', 'cli', 1772438500.0, NULL, 'p'),
			('x', 'cli', 1772438600.0, 'compression', NULL),
			('y', 'cli', 1772438700.0, NULL, 'x'),
			('u', 'cli', 1772438800.0, 'user_exit', NULL),
			('v', 'cli', 1772438900.0, NULL, 'u')`,
		`INSERT INTO messages (id, session_id, role, content, timestamp, _compressed_summary) VALUES
			(1, 'p', 'user', 'Deploy to staging.', 1772438401.0, 0),
			(2, 'p', 'assistant', 'Deployed.', 1772438402.0, 0),
			(3, 'q', 'user', 'Deploy to staging.', 1772438501.0, 0),
			(4, 'q', 'assistant', 'Deployed.', 1772438502.0, 0),
			(5, 'x', 'user', 'Check the logs.', 1772438601.0, 0),
			(6, 'x', 'assistant', 'No errors.', 1772438602.0, 0),
			(7, 'x', 'user', 'Check the metrics.', 1772438603.0, 0),
			(8, 'x', 'assistant', 'All green.', 1772438604.0, 0),
			(9, 'y', 'user', 'Check the metrics.', 1772438701.0, 0),
			(10, 'y', 'user', '[CONTEXT SUMMARY]: Logs and metrics are fine.', 1772438702.0, 1),
			(11, 'y', 'user', 'Check the logs.', 1772438703.0, 0),
			(12, 'y', 'assistant', 'Still no errors.', 1772438704.0, 0),
			(13, 'u', 'user', 'Hello.', 1772438801.0, 0),
			(14, 'v', 'user', 'Hello.', 1772438801.0, 0)`)
	recs, problems := readHermesSource(t, home)
	var got []string
	for _, r := range recs {
		got = append(got, r.ID)
	}
	want := []string{"p:1", "p:2", "q:3", "q:4", "x:5", "x:6", "x:7", "x:8", "y:9", "y:10#summary", "y:11", "y:12", "u:13", "v:14"}
	if !slices.Equal(got, want) || len(problems) != 0 {
		t.Errorf("records %q problems %v, want %q", got, problems, want)
	}
}

// TestReadHermes_inlineReasoning: Hermes stores an answer's content as
// the model wrote it, and models that reason in their text (Qwen3,
// DeepSeek R1, Hermes 4 through some providers) wrap their reasoning in
// <think> or one of the other tags Hermes knows; it copies the reasoning
// to its reasoning column but leaves the content as it is. The reasoning
// is not the answer: it is not indexed, a reply cut short inside it says
// nothing, and a tag named in prose stays.
func TestReadHermes_inlineReasoning(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "state.db")
	db := openHermesWriter(t, path, hermesSchema,
		`INSERT INTO sessions (id, source, started_at, title) VALUES ('s1', 'cli', 1772438400.0, 'Rounding')`)
	contents := []string{
		"<think>\nMARKER weighing the options\n</think>\n\nRound once, at the invoice total.",
		"<REASONING_SCRATCHPAD>MARKER scratch</REASONING_SCRATCHPAD>Use ROUND_HALF_EVEN.",
		"<thinking>MARKER one</thinking>First part. <reasoning>MARKER two</reasoning>Second part.",
		"<think>MARKER a reply cut short inside its reasoning",
		"Some models wrap their reasoning in a <think> tag.",
	}
	got, problems := readHermesMessages(t, db, home, "assistant", contents)
	want := []string{
		"s1:1 Round once, at the invoice total.",
		"s1:2 Use ROUND_HALF_EVEN.",
		"s1:3 First part. Second part.",
		"s1:5 Some models wrap their reasoning in a <think> tag.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("records:\n%q\nwant:\n%q", got, want)
	}
	if len(problems) != 0 {
		t.Errorf("problems = %v", problems)
	}
}

// TestReadHermes_reviewTurn: older Hermes builds wrote the background
// review's turns (agent/background_review.py) into the session it
// reviewed: the harness's prompt and the curator's replies, which Hermes
// itself strips when it restores a session. Neither is the conversation;
// the next prompt a person typed starts it again. An answer Hermes kept
// as a bare "[tool]" marker beside its tool calls (#78148) says nothing.
func TestReadHermes_reviewTurn(t *testing.T) {
	home := t.TempDir()
	calls := `[{"id":"call_1","type":"function","function":{"name":"memory","arguments":"{\"action\":\"add\"}"}}]`
	writeHermesDB(t, filepath.Join(home, "state.db"), hermesSchema,
		`INSERT INTO sessions (id, source, started_at, title) VALUES ('s1', 'cli', 1772438400.0, 'Rounding')`,
		`INSERT INTO messages (session_id, role, content, tool_calls, timestamp) VALUES
			('s1', 'user', 'Why do totals drift?', NULL, 1772438401.0),
			('s1', 'assistant', 'Each line is rounded before summing.', NULL, 1772438402.0),
			('s1', 'user', 'Review the conversation above and consider saving to memory anything worth keeping. MARKER', NULL, 1772438403.0),
			('s1', 'assistant', 'MARKER saving the rounding rule', '`+calls+`', 1772438404.0),
			('s1', 'assistant', 'MARKER Saved: totals are rounded once.', NULL, 1772438405.0),
			('s1', 'user', 'And credit notes?', NULL, 1772438406.0),
			('s1', 'assistant', '[memory]', '`+calls+`', 1772438407.0),
			('s1', 'assistant', 'They mirror the invoice they credit.', NULL, 1772438408.0)`)
	recs, problems := readHermesSource(t, home)
	var got []string
	for _, r := range recs {
		got = append(got, r.ID+" "+r.Role+": "+r.Text)
	}
	want := []string{
		"s1:1 user: Why do totals drift?",
		"s1:2 assistant: Each line is rounded before summing.",
		"s1:6 user: And credit notes?",
		"s1:8 assistant: They mirror the invoice they credit.\n[tool: memory]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("records:\n%q\nwant:\n%q", got, want)
	}
	if len(problems) != 0 {
		t.Errorf("problems = %v", problems)
	}
}

// readHermesMessages adds contents as session s1's messages of role, a
// second apart, closes db and reads the source at home: each record as
// its id and text, and the problems.
func readHermesMessages(t *testing.T, db *sql.DB, home, role string, contents []string) ([]string, []Problem) {
	t.Helper()
	for i, c := range contents {
		if _, err := db.Exec(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', ?, ?, ?)`, role, c, 1772438401.0+float64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	recs, problems := readHermesSource(t, home)
	var got []string
	for _, r := range recs {
		got = append(got, r.ID+" "+r.Text)
	}
	return got, problems
}

// TestReadHermes_runtimeScaffolding: the user-role rows Hermes writes by
// itself are not the person's prompts, and a compaction carrier keeps the
// ask it carries. Shapes as NousResearch/hermes-agent defines them:
// agent/conversation_compression.py _SYNTHETIC_USER_PREFIXES (the
// background process notice of tools/process_registry.py
// format_process_notification, the todo snapshot of tools/todo_tool.py
// TODO_INJECTION_HEADER, the continuation nudges), the async delegation
// notices ("[ASYNC DELEGATION BATCH COMPLETE — <id>]"), agent/
// compaction_display.py (a snapshot appended to a real ask is cut, not
// the ask), and hermes_state_rewind.py with the compressor's tests (a
// carrier is the summary, its end marker, then the live ask).
func TestReadHermes_runtimeScaffolding(t *testing.T) {
	home := t.TempDir()
	const carrier = "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below. Avoid repeating it:\n" +
		"## Historical Task Snapshot\nDeployed the billing service.\n\n" +
		"--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---\n\n" +
		"Now roll back the migration."
	const todo = "[Your active task list was preserved across context compression]\n- [>] 1. MARKER roll back (in_progress)"
	calls := `[{"id":"call_1","type":"function","function":{"name":"terminal","arguments":"{\"command\":\"make deploy\",\"background\":true}"}}]`
	writeHermesDB(t, filepath.Join(home, "state.db"), hermesSchema,
		`INSERT INTO sessions (id, source, started_at, title) VALUES ('s1', 'cli', 1772438400.0, 'Deploy')`,
		`INSERT INTO messages (session_id, role, content, tool_calls, timestamp, _compressed_summary) VALUES
			('s1', 'user', 'Deploy the billing service.', NULL, 1772438401.0, 0),
			('s1', 'assistant', NULL, '`+calls+`', 1772438402.0, 0),
			('s1', 'assistant', 'Started the deploy in the background.', NULL, 1772438403.0, 0),
			('s1', 'user', '[IMPORTANT: Background process proc_5b9fcce4cbff completed (exit_code=1).
Command: make deploy
Output:
MARKER migration timed out]', NULL, 1772438404.0, 0),
			('s1', 'assistant', 'The deploy failed: the migration timed out.', NULL, 1772438405.0, 0),
			('s1', 'user', '[ASYNC DELEGATION BATCH COMPLETE — deleg_95ffab52]
A background fan-out of 2 subagent(s) you dispatched earlier has finished. MARKER', NULL, 1772438406.0, 0),
			('s1', 'assistant', 'Both reviews agree the timeout is the lock wait.', NULL, 1772438407.0, 0),
			('s1', 'user', '`+strings.ReplaceAll(carrier, "'", "''")+`', NULL, 1772438408.0, 1),
			('s1', 'user', '`+todo+`', NULL, 1772438409.0, 0),
			('s1', 'user', 'Keep the old schema.

`+todo+`', NULL, 1772438410.0, 0),
			('s1', 'user', '[System: Your previous response was truncated by the output length limit. Continue exactly where you left off. MARKER', NULL, 1772438411.0, 0),
			('s1', 'assistant', 'Rolled back; the old schema stays.', NULL, 1772438412.0, 0)`)
	recs, problems := readHermesSource(t, home)
	var got []string
	for _, r := range recs {
		got = append(got, r.ID+" "+r.Role+": "+r.Text)
	}
	want := []string{
		"s1:1 user: Deploy the billing service.",
		"s1:3 assistant: Started the deploy in the background.\n[tool: terminal make deploy]",
		"s1:5 assistant: The deploy failed: the migration timed out.",
		"s1:7 assistant: Both reviews agree the timeout is the lock wait.",
		"s1:8#summary assistant: ## Historical Task Snapshot\nDeployed the billing service.",
		"s1:8 user: Now roll back the migration.",
		"s1:10 user: Keep the old schema.",
		"s1:12 assistant: Rolled back; the old schema stays.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("records:\n%q\nwant:\n%q", got, want)
	}
	if len(problems) != 0 {
		t.Errorf("problems = %v", problems)
	}
}

// TestReadHermes_carrierInContinuation: a carrier that opens a
// compression's continuation carries the parent's last prompt, which is
// indexed once, from the parent (hermes_state_compression.py
// publish_compression_child: the tail a compression keeps is copied).
func TestReadHermes_carrierInContinuation(t *testing.T) {
	home := t.TempDir()
	const carrier = "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted. Avoid repeating it:\n" +
		"## Historical Task Snapshot\nDeployed the billing service.\n\n" +
		"--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---\n\n" +
		"Now roll back the migration."
	writeHermesDB(t, filepath.Join(home, "state.db"), hermesSchema,
		`INSERT INTO sessions (id, source, started_at, parent_session_id, end_reason) VALUES
			('p1', 'cli', 1772438400.0, NULL, 'compression'),
			('c1', 'cli', 1772438500.0, 'p1', NULL)`,
		`INSERT INTO messages (session_id, role, content, timestamp, _compressed_summary) VALUES
			('p1', 'user', 'Deploy the billing service.', 1772438401.0, 0),
			('p1', 'assistant', 'Deployed.', 1772438402.0, 0),
			('p1', 'user', 'Now roll back the migration.', 1772438403.0, 0),
			('c1', 'user', '`+strings.ReplaceAll(carrier, "'", "''")+`', 1772438500.5, 1),
			('c1', 'assistant', 'Rolled back.', 1772438501.0, 0)`)
	recs, _ := readHermesSource(t, home)
	var got []string
	for _, r := range recs {
		got = append(got, r.ID+" "+r.Role+": "+r.Text)
	}
	want := []string{
		"p1:1 user: Deploy the billing service.",
		"p1:2 assistant: Deployed.",
		"p1:3 user: Now roll back the migration.",
		"c1:4#summary assistant: ## Historical Task Snapshot\nDeployed the billing service.",
		"c1:5 assistant: Rolled back.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("records:\n%q\nwant:\n%q", got, want)
	}
}

// TestReadHermes_kanbanWorker: a kanban worker's session (source
// "kanban": the run of a board task the dispatcher gave a profile) is
// automation, as a cron job's is; Hermes hides it from every human
// session picker (NousResearch/hermes-agent tui_gateway/
// methods_session.py INTERNAL_LISTING_SOURCES: "kanban", "tool",
// "oneshot"). A one-shot run (hermes -z) is the person's CLI history and
// stays.
func TestReadHermes_kanbanWorker(t *testing.T) {
	home := t.TempDir()
	writeHermesDB(t, filepath.Join(home, "state.db"), hermesSchema,
		`INSERT INTO sessions (id, source, started_at) VALUES
			('worker-session-7', 'kanban', 1772438400.0),
			('z1', 'oneshot', 1772438500.0)`,
		`INSERT INTO messages (session_id, role, content, timestamp) VALUES
			('worker-session-7', 'user', 'MARKER Task t_12: migrate the invoices table.', 1772438401.0),
			('worker-session-7', 'assistant', 'MARKER Migrated; the card can move to review.', 1772438402.0),
			('z1', 'user', 'Which port does staging use?', 1772438501.0),
			('z1', 'assistant', 'Staging listens on 3037.', 1772438502.0)`)
	recs, problems := readHermesSource(t, home)
	var got []string
	for _, r := range recs {
		got = append(got, r.ID+" "+r.Role+": "+r.Text)
	}
	want := []string{
		"z1:3 user: Which port does staging use?",
		"z1:4 assistant: Staging listens on 3037.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("records:\n%q\nwant:\n%q", got, want)
	}
	if len(problems) != 0 {
		t.Errorf("problems = %v", problems)
	}
}

// TestReadHermes_autoContinue: a turn Hermes starts by itself (the note
// that resumes a turn interrupted mid-run, with the interrupted request
// quoted again; a loop's wake) is persisted as a user row of
// display_kind "auto_continue" (NousResearch/hermes-agent tui_gateway/
// server.py _run_prompt_submit(..., display_kind="auto_continue"),
// run_conversation's persist_user_display_kind): no one typed it, and
// the request it quotes is the user's row already. The reply is the
// assistant's.
func TestReadHermes_autoContinue(t *testing.T) {
	home := t.TempDir()
	writeHermesDB(t, filepath.Join(home, "state.db"), hermesSchema,
		`INSERT INTO sessions (id, source, started_at) VALUES ('s1', 'tui', 1772438400.0)`,
		`INSERT INTO messages (session_id, role, content, timestamp, display_kind) VALUES
			('s1', 'user', 'Rename the invoices table.', 1772438401.0, NULL),
			('s1', 'user', '[System note: Your previous turn was interrupted mid-run. MARKER The interrupted request was:]

Rename the invoices table.', 1772438500.0, 'auto_continue'),
			('s1', 'assistant', 'Renamed it to billing_invoices.', 1772438501.0, NULL),
			('s1', 'user', 'And the index too.', 1772438502.0, 'steer')`)
	recs, problems := readHermesSource(t, home)
	var got []string
	for _, r := range recs {
		got = append(got, r.ID+" "+r.Role+": "+r.Text)
	}
	want := []string{
		"s1:1 user: Rename the invoices table.",
		"s1:3 assistant: Renamed it to billing_invoices.",
		"s1:4 user: And the index too.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("records:\n%q\nwant:\n%q", got, want)
	}
	if len(problems) != 0 {
		t.Errorf("problems = %v", problems)
	}
}
