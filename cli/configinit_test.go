package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // the Hermes reader's driver, as cmd/novactl links it

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/paths"
)

// initHome is a user's home under a temporary root with NOVA_HOME inside
// it (not yet created), and the environment that points novactl there.
func initHome(t *testing.T) (root string, home paths.Home, env []string) {
	t.Helper()
	root = t.TempDir()
	home = paths.Home{Root: filepath.Join(root, ".nova")}
	return root, home, []string{"HOME=" + root, "NOVA_HOME=" + home.Root}
}

// writeFixture writes content at root/rel, making its folders.
func writeFixture(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// fakeAgents gives the home at root one session of every agent, where and
// as each agent keeps it (Aider's in a repository under ~/src).
func fakeAgents(t *testing.T, root string) {
	t.Helper()
	writeFixture(t, root, ".codex/sessions/2026/12/01/rollout-2026-12-01T09-00-00-0a0b0c0d-0000-4000-8000-000000000001.jsonl",
		`{"timestamp":"2026-12-01T09:00:00.000Z","type":"session_meta","payload":{"id":"0a0b0c0d-0000-4000-8000-000000000001","timestamp":"2026-12-01T09:00:00.000Z","cwd":"/home/dev/src/zoo","originator":"codex_cli_rs"}}`+"\n"+
			`{"timestamp":"2026-12-01T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"What did we decide about the otter enclosure?"}]}}`+"\n"+
			`{"timestamp":"2026-12-01T09:00:02.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The otter enclosure gets a second pool."}]}}`+"\n")
	writeFixture(t, root, ".claude/projects/-home-dev-src-zoo/5b1c2d3e-0000-4a4a-9b9b-0000000000aa.jsonl",
		`{"type":"user","cwd":"/home/dev/src/zoo","sessionId":"5b1c2d3e-0000-4a4a-9b9b-0000000000aa","uuid":"u00001","timestamp":"2026-11-30T10:00:01Z","message":{"role":"user","content":"Where do the heron photos go?"}}`+"\n"+
			`{"type":"assistant","cwd":"/home/dev/src/zoo","sessionId":"5b1c2d3e-0000-4a4a-9b9b-0000000000aa","uuid":"u00002","timestamp":"2026-11-30T10:00:02Z","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"Into photos/herons, sorted by date."}]}}`+"\n")
	writeFixture(t, root, ".gemini/tmp/herons/chats/session-2026-03-02T08-00-5e551011.jsonl",
		`{"sessionId":"5e551011-0000-4000-8000-000000000001","projectHash":"x","startTime":"2026-03-02T08:00:00.000Z","kind":"main"}`+"\n"+
			`{"id":"u-1","timestamp":"2026-03-02T08:00:05.000Z","type":"user","content":[{"text":"Count the kestrel nests"}]}`+"\n")
	writeFixture(t, root, ".openclaw/agents/main/sessions/s1.jsonl",
		`{"type":"session","version":3,"id":"s1","timestamp":"2026-03-02T08:00:00.000Z","cwd":"/home/dev/src/zoo"}`+"\n"+
			`{"type":"message","id":"a1","timestamp":"2026-03-02T08:00:05.000Z","message":{"role":"user","content":[{"type":"text","text":"Feed the beavers at noon"}]}}`+"\n")
	// Cursor's agent writes its transcripts under ~/.cursor/projects, one
	// folder per workspace (its older chats, in SQLite, are not read).
	writeFixture(t, root, ".cursor/mcp.json", `{"mcpServers": {}}`+"\n")
	writeFixture(t, root, ".cursor/projects/home-dev-src-zoo/agent-transcripts/6c7d8e9f-0000-4000-8000-000000000001/6c7d8e9f-0000-4000-8000-000000000001.jsonl",
		`{"role":"user","message":{"content":[{"type":"text","text":"<timestamp>Monday, Mar 2, 2026, 9:00 AM (UTC)</timestamp>\n<user_query>Which keeper feeds the lemurs?</user_query>"}]}}`+"\n"+
			`{"role":"assistant","message":{"content":[{"type":"text","text":"Priya feeds the lemurs on weekdays."}]}}`+"\n")
	writeFixture(t, root, "src/zoo/.aider.chat.history.md",
		"\n# aider chat started at 2026-05-11 10:02:33\n\n#### where do the puffins nest?  \n\nOn the north cliff, above the otter pool.\n\n")
	if err := os.MkdirAll(filepath.Join(root, ".hermes"), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(root, ".hermes", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{
		`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL NOT NULL)`,
		`CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT, timestamp REAL NOT NULL)`,
		`INSERT INTO sessions VALUES ('s1', 'cli', 1772438400.0)`,
		`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'user', 'the heron nests by the weir', 1772438401.0)`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// otherPorts keeps what runs from a written config.yaml off the default
// ports.
var otherPorts = []string{"NOVA_SERVER_PORT=0", "NOVA_FACADE_PORT=0"}

// TestConfigInit_agents: config init in a home where every agent has
// kept a session writes a private config.yaml with one source each, in
// README's style; config check passes, and index sync reads every one.
func TestConfigInit_agents(t *testing.T) {
	root, home, env := initHome(t)
	fakeAgents(t, root)
	code, out, errOut := runCLI(context.Background(), env, "config", "init")
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if !strings.Contains(out, "Wrote "+home.Config()+" with 7 source(s)") || !strings.Contains(out, "novactl index sync") || strings.Contains(out, "Not found") {
		t.Errorf("output does not say what was written and what next:\n%s", out)
	}
	data, err := os.ReadFile(home.Config())
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"  - {name: claude,   kind: claude-code, path: ~/.claude/projects}",
		"  - {name: codex,    kind: codex,       path: ~/.codex}",
		"  - {name: gemini,   kind: gemini,      path: ~/.gemini}",
		"  - {name: openclaw, kind: openclaw,    path: ~/.openclaw}",
		"  - {name: hermes,   kind: hermes,      path: ~/.hermes}",
		"  - {name: cursor,   kind: cursor,      path: ~/.cursor/projects}",
		"  - {name: aider,    kind: aider,       path: ~/src}",
		"# Sources found: Claude Code (~/.claude/projects), Codex (~/.codex), Gemini CLI (~/.gemini), OpenClaw (~/.openclaw), Hermes (~/.hermes), Cursor (~/.cursor/projects), Aider (~/src).",
		"#configuration",
	} {
		if !strings.Contains(string(data), line) {
			t.Errorf("config.yaml lacks %q:\n%s", line, data)
		}
	}
	for p, want := range map[string]os.FileMode{home.Root: paths.DirMode, home.Config(): paths.FileMode} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", p, fi.Mode().Perm(), err, want)
		}
	}
	env = append(env, otherPorts...)
	if code, out, errOut := runCLI(context.Background(), env, "config", "check"); code != ExitOK {
		t.Fatalf("config check: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process"); code != ExitOK {
		t.Fatalf("index sync: exit %d\n%s%s", code, out, errOut)
	}
	_, g, err := index.OpenActive(context.Background(), home, lexical.NewAnalyzer())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range g.All() {
		if !slices.Contains(got, c.Agent) {
			got = append(got, c.Agent)
		}
	}
	slices.Sort(got)
	if want := []string{"aider", "claude-code", "codex", "cursor", "gemini", "hermes", "openclaw"}; !slices.Equal(got, want) {
		t.Errorf("the index holds the memory of %v, want %v", got, want)
	}
}

// TestConfigInit_onlyWhatAgentsKept: an agent installed but never run
// (its home, no sessions) is not a source; one moved by its variable is
// found there, written as an absolute path outside the home; and a home
// with nothing gets a valid file with no sources, which the output says.
func TestConfigInit_onlyWhatAgentsKept(t *testing.T) {
	root, home, env := initHome(t)
	for _, d := range []string{".codex", ".claude", ".gemini", ".openclaw", ".hermes", ".cursor"} {
		writeFixture(t, root, filepath.Join(d, "config"), "")
	}
	code, out, errOut := runCLI(context.Background(), env, "config", "init")
	if code != ExitOK || !strings.Contains(out, "with no sources: no agent memory was found here") || !strings.Contains(out, "Not found: Claude Code (~/.claude/projects), Codex (~/.codex)") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	// Cursor installed (~/.cursor) but its agent never ran: no
	// projects folder, its memory not found.
	if !strings.Contains(out, "Cursor (~/.cursor/projects)") {
		t.Errorf("config init does not say Cursor's memory was not found:\n%s", out)
	}
	data, _ := os.ReadFile(home.Config())
	if !strings.Contains(string(data), "\nsources: []\n") || !strings.Contains(string(data), "No agent memory was found") {
		t.Errorf("config.yaml:\n%s", data)
	}
	if code, out, errOut := runCLI(context.Background(), append(env, otherPorts...), "config", "check"); code != ExitOK {
		t.Fatalf("config check: exit %d\n%s%s", code, out, errOut)
	}
	// Nothing found is an empty list for a program, not null.
	_, out, _ = runCLI(context.Background(), env, "config", "init", "--dry-run", "--json")
	if !strings.Contains(out, `"sources": [],`) || !strings.Contains(out, `"written": false`) || !strings.Contains(out, `"content": "# Nova's configuration`) {
		t.Errorf("--dry-run --json with nothing found:\n%s", out)
	}

	elsewhere := filepath.Join(t.TempDir(), "codex home")
	writeFixture(t, elsewhere, "sessions/2026/12/01/rollout-x.jsonl", "")
	code, out, errOut = runCLI(context.Background(), append(env, "CODEX_HOME="+elsewhere), "config", "init", "--force", "--json")
	var r struct{ Sources []initSource }
	if err := json.Unmarshal([]byte(out), &r); code != ExitOK || err != nil {
		t.Fatalf("exit %d (%v)\nstdout: %s\nstderr: %s", code, err, out, errOut)
	}
	want := elsewhere
	if len(r.Sources) != 1 || r.Sources[0].Path != want {
		t.Errorf("sources %+v, want codex at %s", r.Sources, want)
	}
	data, _ = os.ReadFile(home.Config())
	if !strings.Contains(string(data), "path: '"+want+"'}") {
		t.Errorf("config.yaml does not quote the path with a space:\n%s", data)
	}
}

// TestConfigInit_existing: an existing config.yaml is never replaced
// without --force, even an invalid one; --force saves a private copy
// first, and says where.
func TestConfigInit_existing(t *testing.T) {
	root, home, env := initHome(t)
	fakeAgents(t, root)
	mine := "# mine\nsources: [{name: x, kind: bogus}]\n"
	writeFixture(t, home.Root, "config.yaml", mine)
	code, out, errOut := runCLI(context.Background(), env, "config", "init")
	if code != ExitFailure || !strings.Contains(errOut, home.Config()+" already exists") || !strings.Contains(errOut, "--force") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if data, _ := os.ReadFile(home.Config()); string(data) != mine {
		t.Fatalf("config.yaml changed without --force:\n%s", data)
	}
	code, out, errOut = runCLI(context.Background(), env, "config", "init", "--force", "--json")
	var r struct {
		Written bool
		Backup  string
	}
	if err := json.Unmarshal([]byte(out), &r); code != ExitOK || err != nil || !r.Written {
		t.Fatalf("--force: exit %d (%v)\nstdout: %s\nstderr: %s", code, err, out, errOut)
	}
	if !strings.HasPrefix(r.Backup, home.Backups("config")+string(filepath.Separator)) {
		t.Errorf("backup %q is not under %s", r.Backup, home.Backups("config"))
	}
	if data, err := os.ReadFile(r.Backup); err != nil || string(data) != mine {
		t.Errorf("backup holds %q (%v), want the old file", data, err)
	}
	if fi, err := os.Stat(r.Backup); err != nil || fi.Mode().Perm() != paths.FileMode {
		t.Errorf("backup mode %v (%v)", fi.Mode().Perm(), err)
	}
	if data, _ := os.ReadFile(home.Config()); !strings.Contains(string(data), "name: codex") {
		t.Errorf("config.yaml not replaced:\n%s", data)
	}
	if code, _, errOut := runCLI(context.Background(), append(env, otherPorts...), "config", "check"); code != ExitOK {
		t.Errorf("config check after --force: exit %d\n%s", code, errOut)
	}
}

// TestConfigInit_dryRun: --dry-run prints the file it would write and
// creates nothing, not even NOVA_HOME.
func TestConfigInit_dryRun(t *testing.T) {
	root, home, env := initHome(t)
	fakeAgents(t, root)
	code, out, errOut := runCLI(context.Background(), env, "config", "init", "--dry-run")
	if code != ExitOK || !strings.HasPrefix(out, "# Nova's configuration") || !strings.Contains(out, "  - {name: hermes,") || !strings.Contains(errOut, "nothing written") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if _, err := os.Stat(home.Root); !os.IsNotExist(err) {
		t.Errorf("--dry-run made %s (%v)", home.Root, err)
	}
	// What it printed is what the real run writes.
	if code, _, _ := runCLI(context.Background(), env, "config", "init"); code != ExitOK {
		t.Fatal("config init failed")
	}
	if data, _ := os.ReadFile(home.Config()); string(data) != out {
		t.Errorf("written:\n%s\nprinted:\n%s", data, out)
	}
}

// TestConfigInit_json: --json prints the documented shape, and an error
// as {"ok":false,"error":...} on stdout.
func TestConfigInit_json(t *testing.T) {
	root, home, env := initHome(t)
	writeFixture(t, root, ".claude/projects/p/s.jsonl", "")
	writeFixture(t, root, "My 'Notes'/a.md", "# A\n")
	code, out, errOut := runCLI(context.Background(), env, "config", "init", "--json", "--notes", "~/My 'Notes'", "--notes", filepath.Join(root, "My 'Notes'", "a.md"))
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range r {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"backup", "dropped", "missing", "ok", "path", "settings", "sources", "unread", "written"}; !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	if r["written"] != true || r["path"] != home.Config() || r["backup"] != "" || len(r["missing"].([]any)) != 6 { // all but Claude Code, Aider among them
		t.Errorf("result %v", r)
	}
	want := []any{
		map[string]any{"name": "claude", "kind": "claude-code", "path": "~/.claude/projects"},
		map[string]any{"name": "notes", "kind": "markdown", "path": "~/My 'Notes'"},
		map[string]any{"name": "notes-2", "kind": "markdown", "path": "~/My 'Notes'/a.md"},
	}
	if got, _ := json.Marshal(r["sources"]); string(got) != mustJSON(t, want) {
		t.Errorf("sources %s, want %s", got, mustJSON(t, want))
	}
	data, _ := os.ReadFile(home.Config())
	if !strings.Contains(string(data), "path: '~/My ''Notes'''}") {
		t.Errorf("the quote in the path is not escaped:\n%s", data)
	}
	code, out, errOut = runCLI(context.Background(), env, "config", "init", "--json")
	if code != ExitFailure || errOut != "" || !strings.Contains(out, `"ok": false`) || !strings.Contains(out, "already exists") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, _, errOut = runCLI(context.Background(), env, "config", "init", "--force", "--notes", filepath.Join(root, "none"))
	if code != ExitUsage || !strings.Contains(errOut, "none") {
		t.Errorf("a missing notes folder: exit %d, stderr %s", code, errOut)
	}
	// An empty --notes (a script's unset variable) is not the current
	// directory, which may be the whole home.
	code, _, errOut = runCLI(context.Background(), env, "config", "init", "--force", "--notes", "")
	if code != ExitUsage || !strings.Contains(errOut, "--notes needs a folder or file of Markdown notes") {
		t.Errorf("an empty --notes: exit %d, stderr %s", code, errOut)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestConfigInit_notesOnce: a notes folder given twice, spelled alike or
// not, is one source: two would read the same files, which config check
// refuses, so config init failed with "does not read back as meant".
func TestConfigInit_notesOnce(t *testing.T) {
	root, _, env := initHome(t)
	writeFixture(t, root, "notes/a.md", "# A\n")
	code, out, errOut := runCLI(context.Background(), env, "config", "init", "--dry-run", "--json",
		"--notes", "~/notes", "--notes", filepath.Join(root, "notes")+"/", "--notes", filepath.Join(root, "notes", "a.md"))
	var r struct {
		Sources []struct{ Name, Path string }
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != ExitOK {
		t.Fatalf("exit %d, %v\nstdout: %s\nstderr: %s", code, err, out, errOut)
	}
	var got []string
	for _, s := range r.Sources {
		got = append(got, s.Name+" "+s.Path)
	}
	if want := []string{"notes ~/notes", "notes-2 ~/notes/a.md"}; !slices.Equal(got, want) {
		t.Errorf("sources %q, want %q", got, want)
	}
}

// TestConfigInit_notesHint: agents found and no --notes: the output says
// notes are not indexed and how to add them, since none is looked for; a
// run with --notes does not repeat it.
func TestConfigInit_notesHint(t *testing.T) {
	root, _, env := initHome(t)
	fakeAgents(t, root)
	writeFixture(t, root, "notes/a.md", "# A\n")
	code, out, errOut := runCLI(context.Background(), env, "config", "init")
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if !strings.Contains(out, "No notes: novactl config init --force --notes DIR adds a folder of Markdown notes") {
		t.Errorf("no word of notes:\n%s", out)
	}
	code, out, errOut = runCLI(context.Background(), env, "config", "init", "--force", "--notes", "~/notes")
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if strings.Contains(out, "No notes") {
		t.Errorf("a notes hint beside --notes:\n%s", out)
	}
}

// TestConfigInit_forceNamesWhatItDrops: --force replaces the file; a
// notes source or a setting of the old file that the new one lacks is
// named (its memory goes at the next sync), and a rerun with the same
// --notes names nothing. NOVA_* overrides are not taken for the file's
// settings.
func TestConfigInit_forceNamesWhatItDrops(t *testing.T) {
	root, home, env := initHome(t)
	writeFixture(t, root, "notes/a.md", "# A\n")
	writeFixture(t, root, "vault/b.md", "# B\n")
	env = append(env, "NOVA_SERVER_PORT=4999")
	if code, out, errOut := runCLI(context.Background(), env, "config", "init", "--notes", "~/notes", "--notes", "~/vault"); code != ExitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, errOut := runCLI(context.Background(), env, "config", "init", "--force", "--notes", "~/notes", "--notes", "~/vault")
	if code != ExitOK || strings.Contains(out, "carry over") {
		t.Fatalf("the same sources again: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	f, err := os.OpenFile(home.Config(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("embedding:\n  dimension: 256\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	code, out, errOut = runCLI(context.Background(), env, "config", "init", "--force", "--notes", "~/notes")
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	for _, want := range []string{"did not carry over source notes-2 (markdown ~/vault)", "next sync drops its memory", "settings of embedding (now the defaults)"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	// --json lists the same.
	code, out, errOut = runCLI(context.Background(), env, "config", "init", "--force", "--dry-run", "--json", "--notes", "~/vault")
	var r struct {
		Dropped  []struct{ Name, Kind, Path string }
		Settings []string
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != ExitOK {
		t.Fatalf("exit %d, %v\nstdout: %s\nstderr: %s", code, err, out, errOut)
	}
	if len(r.Dropped) != 1 || r.Dropped[0].Path != "~/notes" || len(r.Settings) != 0 {
		t.Errorf("dropped %+v, settings %q; want ~/notes and none", r.Dropped, r.Settings)
	}
}

// TestConfigInit_notesUnreadRecords: a notes source reads Markdown only,
// so the JSONL records beside the notes (make run's sample keeps them in
// records/) went unread without a word. config init names them, in text
// and --json, with the config.yaml line of the jsonl source that reads
// them; that line, added to the file, passes config check. A notes folder
// of Markdown alone names nothing.
func TestConfigInit_notesUnreadRecords(t *testing.T) {
	root, home, env := initHome(t)
	writeFixture(t, root, "notes/a.md", "# A\n")
	writeFixture(t, root, "notes/records/decisions.jsonl", `{"id":"1","text":"the heron nests by the weir"}`+"\n")
	writeFixture(t, root, "notes/records/more.ndjson", `{"id":"2","text":"the otter fishes below the mill"}`+"\n")
	writeFixture(t, root, "notes/.obsidian/cache.jsonl", "{}\n") // hidden: no source reads it
	writeFixture(t, root, "plain/b.md", "# B\n")
	line := "  - {name: records, kind: jsonl, path: ~/notes}"

	code, out, errOut := runCLI(context.Background(), env, "config", "init", "--dry-run", "--json", "--notes", "~/notes", "--notes", "~/plain")
	var r struct{ Unread []initUnread }
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != ExitOK {
		t.Fatalf("exit %d, %v\nstdout: %s\nstderr: %s", code, err, out, errOut)
	}
	want := []initUnread{{Source: "notes", Path: "~/notes", Files: []string{"records/decisions.jsonl", "records/more.ndjson"}, Count: 2, Line: line}}
	if !reflect.DeepEqual(r.Unread, want) {
		t.Errorf("unread %+v, want %+v", r.Unread, want)
	}

	code, out, errOut = runCLI(context.Background(), env, "config", "init", "--notes", "~/notes")
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	for _, w := range []string{"~/notes holds 2 JSONL record file(s) that the notes source, Markdown only, does not read: records/decisions.jsonl, records/more.ndjson.", "\n" + line + "\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("config init does not say %q:\n%s", w, out)
		}
	}
	b, err := os.ReadFile(home.Config())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(home.Config(), append(b, line+"\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(context.Background(), append(env, otherPorts...), "config", "check"); code != ExitOK {
		t.Errorf("config check with the line added: exit %d\n%s\n%s", code, out, errOut)
	}

	code, out, errOut = runCLI(context.Background(), env, "config", "init", "--force", "--json", "--notes", "~/plain")
	if code != ExitOK || !strings.Contains(out, `"unread": []`) {
		t.Errorf("a notes folder of Markdown alone: exit %d, want \"unread\": []\n%s\n%s", code, out, errOut)
	}
}

// TestConfigInit_notesMissing: a --notes path that does not exist (a
// typo, a folder not yet synced) is a usage error that names the path it
// looked for and what --notes wants, not Go's "stat ...: no such file or
// directory"; nothing is written.
func TestConfigInit_notesMissing(t *testing.T) {
	root, home, env := initHome(t)
	code, out, errOut := runCLI(context.Background(), env, "config", "init", "--notes", "~/Notse")
	want := "--notes ~/Notse: " + filepath.Join(root, "Notse") + " does not exist: name the folder (or file) that holds your Markdown notes"
	if code != ExitUsage || !strings.Contains(errOut, want) || strings.Contains(errOut, "stat ") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s\nwant exit %d and %q", code, out, errOut, ExitUsage, want)
	}
	if _, err := os.Stat(home.Config()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("config.yaml after a refused --notes: %v", err)
	}
}

// TestConfigInit_namesEveryAgentNotFound: in a home where no agent kept
// anything, config init names under "Not found" (the text, the file's
// header and --json's missing) every agent whose memory a reader of Nova
// reads: each source kind of config.Kinds but those that are not an
// agent's (jsonl, markdown, and chat-export, a folder of exports the
// person downloaded, which has no place of its own to look in). Aider
// was left out, so a person who uses it could not tell it was looked
// for. The help's table names each too.
func TestConfigInit_namesEveryAgentNotFound(t *testing.T) {
	_, _, env := initHome(t)
	var want []string
	for _, k := range config.Kinds {
		if k != config.KindJSONL && k != config.KindMarkdown && k != config.KindChatExport {
			want = append(want, k)
		}
	}
	code, out, errOut := runCLI(t.Context(), env, "config", "init", "--dry-run", "--json")
	var r struct {
		Missing []struct{ Agent, Path string }
		Content string
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != ExitOK || errOut != "" {
		t.Fatalf("exit %d, stdout %q (%v), stderr %q", code, out, err, errOut)
	}
	var got []string
	for _, m := range r.Missing {
		got = append(got, m.Agent)
		if m.Path == "" {
			t.Errorf("missing %s names no path", m.Agent)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("missing %v, want every agent a reader reads: %v", got, want)
	}
	code, out, _ = runCLI(t.Context(), env, "config", "init")
	notFound := out[strings.Index(out, "Not found:"):]
	notFound = notFound[:strings.IndexByte(notFound, '\n')]
	for _, name := range []string{"Claude Code", "Codex", "Gemini CLI", "OpenClaw", "Hermes", "Cursor", "Aider (~/src, "} {
		if !strings.Contains(notFound, name) || !strings.Contains(r.Content, name) {
			t.Errorf("exit %d: %q (and the file's header) do not name %s:\n%s", code, notFound, name, r.Content)
		}
	}
	_, help, _ := runCLI(t.Context(), env, "config", "init", "--help")
	// Chat exports are not looked for: the help and the file's header say
	// which kind reads them, to add by hand.
	if !strings.Contains(help, "kind chat-export") || !strings.Contains(r.Content, "kind chat-export") {
		t.Errorf("config init --help or the file's header does not name the chat-export kind:\n%s\n%s", help, r.Content)
	}
	for _, k := range append(want, "claude") {
		if k == config.KindClaudeCode {
			continue // its source is named claude
		}
		if !strings.Contains(help, "\n  "+k+" ") {
			t.Errorf("config init --help does not list %s:\n%s", k, help)
		}
	}
}

// TestConfigInit_exports: --exports adds a folder of unzipped ChatGPT or
// Claude.ai exports as a chat-export source, which index sync reads;
// config init only said to add one by hand. A folder that is not there
// (or is a file) is refused, and one without a conversations*.json (the
// export still zipped, say) is written with a warning that says so.
func TestConfigInit_exports(t *testing.T) {
	root, _, env := initHome(t)
	writeFixture(t, root, "exports/chatgpt/user.json", `{"id":"user-1"}`)
	writeFixture(t, root, "exports/chatgpt/conversations.json",
		`[{"id":"c1","title":"Kestrels","create_time":1772445600,"current_node":"a","mapping":{"a":{"id":"a","parent":null,"children":[],`+
			`"message":{"id":"a","author":{"role":"user"},"create_time":1772445601,"content":{"content_type":"text","parts":["Where do the kestrels nest this spring?"]}}}}}]`)
	code, out, errOut := runCLI(context.Background(), env, "config", "init", "--exports", "~/exports")
	if code != ExitOK || !strings.Contains(out, "chats") || !strings.Contains(out, "chat-export") || errOut != "" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, errOut = runCLI(context.Background(), append(env, otherPorts...), "index", "sync", "-v")
	if code != ExitOK || !strings.Contains(out, "source chats (chat-export): 1 files, 1 records") {
		t.Errorf("sync does not read the export: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}

	writeFixture(t, root, "zipped/data-2026-03-03.zip", "PK")
	writeFixture(t, root, "notes.md", "# A\n")
	for _, tc := range []struct {
		dir  string
		code int
		want string
	}{
		{"~/none", ExitUsage, "does not exist"},
		{"~/notes.md", ExitUsage, "is not a folder"},
		{"", ExitUsage, "--exports needs a folder"},
		{"~/zipped", ExitOK, "holds no conversations*.json"},
	} {
		code, out, errOut := runCLI(context.Background(), env, "config", "init", "--force", "--exports", tc.dir)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("--exports %q: exit %d, want %d and %q\nstdout: %s\nstderr: %s", tc.dir, code, tc.code, tc.want, out, errOut)
		}
		if tc.code == ExitOK && !strings.Contains(errOut, "a downloaded export is a zip: unzip it there") {
			t.Errorf("--exports %q: no word of unzipping:\n%s", tc.dir, errOut)
		}
	}
}
