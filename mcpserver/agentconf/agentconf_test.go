package agentconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/atomicfile"
)

// fixture is one sample configuration file of an agent.
type fixture struct {
	file  string // under testdata
	agent string
	// exactWithoutRecord: the structural removal alone restores the bytes
	// (the entry was appended after existing servers).
	exactWithoutRecord bool
}

var fixtures = []fixture{
	{"claude.json", "claude-code", true},
	{"claude-nomcp.json", "claude-code", false},
	{"claude-minified.json", "claude-code", true},
	{"claude-crlf-empty.json", "claude-code", false},
	{"gemini.json", "gemini", true},
	{"gemini-tabs.json", "gemini", true},
	{"openclaw.json5", "openclaw", true},
	{"openclaw-nomcp.json5", "openclaw", false},
	{"openclaw-noservers.json5", "openclaw", false},
	{"codex.toml", "codex", true},
	{"codex-nonl.toml", "codex", false},
	{"hermes.yaml", "hermes", true},
	{"hermes-nomcp.yaml", "hermes", false},
	{"hermes-null.yaml", "hermes", true},
	{"hermes-flow-empty.yaml", "hermes", true},
	{"hermes-4space-nonl.yaml", "hermes", false},
	{"cursor.json", "cursor", true},
	{"cursor-empty.json", "cursor", false},
	{"windsurf.json", "windsurf", true},
}

var testEntry = Entry{
	Command: "/opt/nova/bin/novactl",
	Args:    []string{"mcp"},
	Env:     map[string]string{"NOVA_HOME": `/Users/ada/Nova "home"`},
}

func agent(t *testing.T, id string) Agent {
	t.Helper()
	a, ok := Lookup(id)
	if !ok {
		t.Fatalf("no agent %s", id)
	}
	return a
}

// place copies a fixture into a temporary directory with mode 0640.
func place(t *testing.T, name string) (string, []byte) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, src, 0o640); err != nil {
		t.Fatal(err)
	}
	return path, src
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func install(t *testing.T, a Agent, path string, e Entry, rec *Record) *Plan {
	t.Helper()
	p, err := PlanInstall(a, path, e, rec)
	if err != nil {
		t.Fatalf("install: %v", err)
	}
	if err := p.Apply(); err != nil {
		t.Fatalf("apply install: %v", err)
	}
	return p
}

func uninstall(t *testing.T, a Agent, path string, rec *Record) *Plan {
	t.Helper()
	p, err := PlanUninstall(a, path, rec)
	if err != nil {
		t.Fatalf("uninstall: %v", err)
	}
	if err := p.Apply(); err != nil {
		t.Fatalf("apply uninstall: %v", err)
	}
	return p
}

func TestInstallUninstall_ByteIdentical(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.file, func(t *testing.T) {
			a := agent(t, f.agent)
			path, orig := place(t, f.file)
			p := install(t, a, path, testEntry, nil)
			if p.Action != Install {
				t.Fatalf("action %s, want install", p.Action)
			}
			after := mustRead(t, path)
			t.Logf("installed:\n%s", after)
			cur, found, err := editorFor(a.Format).lookup(after, a.Keys, ServerName)
			if err != nil || !found || !testEntry.matches(cur) {
				t.Fatalf("entry does not read back: found=%v err=%v value=%v", found, err, cur)
			}
			if a.ID == "claude-code" && !json.Valid(after) {
				t.Fatalf("Claude Code's file is no longer strict JSON")
			}
			assertOneInsertion(t, orig, after, p.Record.Insertion)
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want 0640", fi.Mode().Perm())
			}

			// Idempotent: a second install changes nothing.
			again, err := PlanInstall(a, path, testEntry, p.Record)
			if err != nil || again.Action != Unchanged || again.Changed() {
				t.Fatalf("second install: %v %v", again, err)
			}

			u := uninstall(t, a, path, p.Record)
			if u.Action != Remove {
				t.Fatalf("action %s, want remove", u.Action)
			}
			if got := mustRead(t, path); !bytes.Equal(got, orig) {
				t.Fatalf("not byte-identical after uninstall:\n--- want\n%s\n--- got\n%s", orig, got)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
				t.Errorf("mode %v after uninstall, want 0640", fi.Mode().Perm())
			}
			// Nothing left to remove.
			if u2, err := PlanUninstall(a, path, nil); err != nil || u2.Action != Absent {
				t.Fatalf("second uninstall: %v %v", u2, err)
			}
		})
	}
}

// assertOneInsertion checks that the install only inserted its recorded
// text at one place (in place of the recorded replaced text): everything
// else keeps its bytes.
func assertOneInsertion(t *testing.T, orig, after []byte, ins Insertion) {
	t.Helper()
	off, text, old := ins.Offset, []byte(ins.Text), []byte(ins.Replaced)
	if off+len(old) > len(orig) || !bytes.Equal(orig[off:off+len(old)], old) || !bytes.Equal(after[:off], orig[:off]) || !bytes.Equal(after[off:off+len(text)], text) || !bytes.Equal(after[off+len(text):], orig[off+len(old):]) {
		t.Fatalf("the install changed more than one inserted text at %d (%q in place of %q)", off, text, old)
	}
}

func TestUninstall_WithoutRecord(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.file, func(t *testing.T) {
			a := agent(t, f.agent)
			path, orig := place(t, f.file)
			install(t, a, path, testEntry, nil)
			uninstall(t, a, path, nil) // the record was lost
			got := mustRead(t, path)
			if f.exactWithoutRecord && !bytes.Equal(got, orig) {
				t.Fatalf("structural removal is not exact:\n--- want\n%s\n--- got\n%s", orig, got)
			}
			if _, found, err := editorFor(a.Format).lookup(got, a.Keys, ServerName); err != nil || found {
				t.Fatalf("entry still there or file broken: found=%v err=%v\n%s", found, err, got)
			}
		})
	}
}

func TestUninstall_AfterAgentRewrite(t *testing.T) {
	// Claude Code rewrites ~/.claude.json with its own formatting (and may
	// add "type": "stdio"); uninstall must still remove only Nova.
	a := agent(t, "claude-code")
	path, _ := place(t, "claude.json")
	p := install(t, a, path, testEntry, nil)
	var doc map[string]any
	if err := json.Unmarshal(mustRead(t, path), &doc); err != nil {
		t.Fatal(err)
	}
	doc["mcpServers"].(map[string]any)["nova"].(map[string]any)["type"] = "stdio"
	doc["numStartups"] = 43
	rewritten, _ := json.MarshalIndent(doc, "", "  ")
	if err := os.WriteFile(path, rewritten, 0o640); err != nil {
		t.Fatal(err)
	}
	// Still recognised as installed.
	if again, err := PlanInstall(a, path, testEntry, p.Record); err != nil || again.Action != Unchanged {
		t.Fatalf("install after rewrite: %v %v", again, err)
	}
	uninstall(t, a, path, p.Record)
	var got map[string]any
	if err := json.Unmarshal(mustRead(t, path), &got); err != nil {
		t.Fatalf("invalid JSON after uninstall: %v", err)
	}
	servers := got["mcpServers"].(map[string]any)
	if _, ok := servers["nova"]; ok {
		t.Fatal("nova still configured")
	}
	if _, ok := servers["github"]; !ok || got["numStartups"].(float64) != 43 {
		t.Fatalf("other content lost: %v", got)
	}
	if _, ok := got["projects"].(map[string]any)["/Users/ada/src/nova"].(map[string]any)["mcpServers"].(map[string]any)["local-db"]; !ok {
		t.Fatal("the project-scoped server was touched")
	}
}

func TestInstall_Update(t *testing.T) {
	for _, id := range []string{"claude-code", "codex", "hermes", "openclaw"} {
		t.Run(id, func(t *testing.T) {
			a := agent(t, id)
			file := map[string]string{"claude-code": "claude.json", "codex": "codex.toml", "hermes": "hermes.yaml", "openclaw": "openclaw.json5"}[id]
			path, orig := place(t, file)
			p1 := install(t, a, path, Entry{Command: "/old/novactl", Args: []string{"mcp"}}, nil)
			p2 := install(t, a, path, testEntry, p1.Record)
			if p2.Action != Update {
				t.Fatalf("action %s, want update", p2.Action)
			}
			cur, _, _ := editorFor(a.Format).lookup(mustRead(t, path), a.Keys, ServerName)
			if !testEntry.matches(cur) {
				t.Fatalf("not updated: %v", cur)
			}
			uninstall(t, a, path, p2.Record)
			if got := mustRead(t, path); !bytes.Equal(got, orig) {
				t.Fatalf("not byte-identical:\n%s", got)
			}
		})
	}
}

func TestInstall_CustomCommandIsRecognised(t *testing.T) {
	a := agent(t, "hermes")
	path, orig := place(t, "hermes.yaml")
	custom := Entry{Command: "/usr/local/bin/nova-wrapper", Args: []string{"mcp"}}
	p1 := install(t, a, path, custom, nil)
	if _, err := PlanInstall(a, path, testEntry, nil); !errors.Is(err, ErrForeignEntry) {
		t.Fatalf("without the record the wrapper is foreign: %v", err)
	}
	p2 := install(t, a, path, testEntry, p1.Record)
	if p2.Action != Update {
		t.Fatalf("action %s, want update", p2.Action)
	}
	uninstall(t, a, path, p2.Record)
	if !bytes.Equal(mustRead(t, path), orig) {
		t.Fatal("not byte-identical")
	}
}

func TestInstall_ForeignEntry(t *testing.T) {
	a := agent(t, "gemini")
	path := filepath.Join(t.TempDir(), "settings.json")
	orig := []byte(`{"mcpServers": {"nova": {"command": "nova-server", "args": []}}}`)
	if err := os.WriteFile(path, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := PlanInstall(a, path, testEntry, nil); !errors.Is(err, ErrForeignEntry) {
		t.Fatalf("err %v, want ErrForeignEntry", err)
	}
	u := uninstall(t, a, path, nil)
	if u.Action != Absent || !bytes.Equal(mustRead(t, path), orig) {
		t.Fatalf("a foreign entry was touched: %v", u.Action)
	}
}

func TestInstall_NewFile(t *testing.T) {
	for _, a := range Agents() {
		t.Run(a.ID, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sub", "config")
			p := install(t, a, path, testEntry, nil)
			if !p.Record.CreatedFile {
				t.Fatal("record does not say the file was created")
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("new file: %v %v", fi, err)
			}
			t.Logf("%s", mustRead(t, path))
			u := uninstall(t, a, path, p.Record)
			if u.After != nil {
				t.Fatalf("file kept: %q", u.After)
			}
			if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the file install created was not deleted: %v", err)
			}
		})
	}
}

// TestUninstall_KeepsAFileItDidNotCreate: a file that holds nothing but a
// "nova" entry of novactl's that the person wrote (or codex mcp add did)
// is emptied by uninstall, not deleted, and uninstall does not say that
// install had created it; nor after an update of that entry.
func TestUninstall_KeepsAFileItDidNotCreate(t *testing.T) {
	a := agent(t, "codex")
	orig := []byte("[mcp_servers.nova]\ncommand = \"/old/novactl\"\nargs = [\"mcp\"]\n")
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, orig, 0o640); err != nil {
		t.Fatal(err)
	}
	u := uninstall(t, a, path, nil)
	if u.After == nil {
		t.Error("uninstall without a record plans to delete the file")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("uninstall without a record deleted the file: %v", err)
	}

	if err := os.WriteFile(path, orig, 0o640); err != nil {
		t.Fatal(err)
	}
	p := install(t, a, path, testEntry, nil)
	if p.Action != Update || p.Record.CreatedFile {
		t.Errorf("update: action %s, record says it created the file: %v", p.Action, p.Record.CreatedFile)
	}
	if u := uninstall(t, a, path, p.Record); u.After == nil {
		t.Error("uninstall after the update plans to delete the file")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("uninstall after the update deleted the file: %v", err)
	}
}

// TestWritesThroughSymlink: a configuration file that is a symbolic link
// (into a dotfiles repository, say) is edited where the link points, and
// stays a link: install writes Nova's entry into the file it points to,
// keeping that file's mode, and uninstall restores it byte for byte. A
// link to nothing is refused, and nothing is created.
func TestWritesThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "dotfiles"), 0o700); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "dotfiles", "settings.json")
	orig := []byte("{\n  \"theme\": \"x\"\n}\n")
	if err := os.WriteFile(target, orig, 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(filepath.Join("dotfiles", "settings.json"), link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	isLink := func() {
		t.Helper()
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the link was replaced: %v %v", fi, err)
		}
	}
	a := agent(t, "gemini")
	p := install(t, a, link, testEntry, nil)
	isLink()
	cur, found, err := jsonLookup(mustRead(t, target), a.Keys, ServerName)
	if err != nil || !found || !testEntry.matches(cur) {
		t.Fatalf("the entry is not in the file the link points to: %v %v", found, err)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", fi.Mode().Perm())
	}
	if again, err := PlanInstall(a, link, testEntry, p.Record); err != nil || again.Action != Unchanged {
		t.Fatalf("second install: %v %v", again, err)
	}
	uninstall(t, a, link, p.Record)
	isLink()
	if got := mustRead(t, target); !bytes.Equal(got, orig) {
		t.Fatalf("not byte-identical after uninstall:\n%s", got)
	}

	dangling := filepath.Join(dir, "dangling.json")
	if err := os.Symlink(filepath.Join(dir, "nowhere.json"), dangling); err != nil {
		t.Fatal(err)
	}
	if _, err := PlanInstall(a, dangling, testEntry, nil); err == nil || !strings.Contains(err.Error(), "nowhere.json") {
		t.Errorf("a link to nothing: err %v, want one naming where it points", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the link's target was created: %v", err)
	}
}

// TestRefusesReadOnly: a configuration file without write permission is
// one its owner does not want changed; replacing it by a rename would get
// past that, so install and uninstall refuse and write nothing.
func TestRefusesReadOnly(t *testing.T) {
	a := agent(t, "codex")
	path, orig := place(t, "codex.toml")
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	if _, err := PlanInstall(a, path, testEntry, nil); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("install: err %v, want ErrReadOnly", err)
	}
	if got := mustRead(t, path); !bytes.Equal(got, orig) {
		t.Fatal("the read-only file was written")
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	p := install(t, a, path, testEntry, nil)
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	// Nothing to change: no refusal.
	if again, err := PlanInstall(a, path, testEntry, p.Record); err != nil || again.Action != Unchanged {
		t.Fatalf("reinstall: %v %v", again, err)
	}
	installed := mustRead(t, path)
	if _, err := PlanUninstall(a, path, p.Record); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("uninstall: err %v, want ErrReadOnly", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o444 || !bytes.Equal(mustRead(t, path), installed) {
		t.Fatalf("the read-only file was changed: %v %v", fi, err)
	}
}

// TestRefusesAnotherUsersFile: a file (or, for a new file, the folder
// it would go in) that belongs to another user is not replaced: the
// rename would hand it to the user novactl runs as (root, under sudo),
// and the agent, running as its owner, could no longer read its own
// configuration.
func TestRefusesAnotherUsersFile(t *testing.T) {
	const other = 54321
	a := agent(t, "codex")
	path, orig := place(t, "codex.toml")
	if err := os.Chown(path, other, other); err != nil {
		t.Skip("cannot give a file to another user here (not root):", err)
	}
	if _, err := PlanInstall(a, path, testEntry, nil); !errors.Is(err, ErrOtherOwner) {
		t.Fatalf("install: err %v, want ErrOtherOwner", err)
	}
	if got := mustRead(t, path); !bytes.Equal(got, orig) {
		t.Fatal("the file was written")
	}
	if _, err := PlanUninstall(a, path, nil); err != nil {
		t.Fatalf("uninstall with nothing to remove: %v", err)
	}

	dir := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, other, other); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, ".codex", "config.toml")
	if _, err := PlanInstall(a, fresh, testEntry, nil); !errors.Is(err, ErrOtherOwner) {
		t.Fatalf("new file: err %v, want ErrOtherOwner", err)
	}
}

func TestApply_RefusesConcurrentChange(t *testing.T) {
	a := agent(t, "codex")
	path, _ := place(t, "codex.toml")
	p, err := PlanInstall(a, path, testEntry, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("model = \"o4\"\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := p.Apply(); !errors.Is(err, ErrChanged) {
		t.Fatalf("err %v, want ErrChanged", err)
	}
}

// TestApply_RefusesChangeDuringWrite: the agent rewrites its file while
// the edited copy is being written and synced (Claude Code rewrites
// ~/.claude.json at every start): the copy is not renamed over the
// agent's change, which would lose it.
func TestApply_RefusesChangeDuringWrite(t *testing.T) {
	a := agent(t, "claude-code")
	path, _ := place(t, "claude.json")
	p, err := PlanInstall(a, path, testEntry, nil)
	if err != nil {
		t.Fatal(err)
	}
	theirs := []byte(`{"numStartups": 44, "mcpServers": {}}` + "\n")
	writeHook = func(s atomicfile.Step) {
		if s == atomicfile.StepTempWritten {
			if err := os.WriteFile(path, theirs, 0o640); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(func() { writeHook = nil })
	err = p.Apply()
	if !errors.Is(err, ErrChanged) || strings.Count(err.Error(), path) != 1 {
		t.Fatalf("err %v, want ErrChanged naming the file once", err)
	}
	if got := mustRead(t, path); !bytes.Equal(got, theirs) {
		t.Fatalf("the agent's change was overwritten:\n%s", got)
	}
}

func TestInstall_Refusals(t *testing.T) {
	cases := []struct {
		name, agent, content string
	}{
		{"codex inline table", "codex", "mcp_servers = { time = { command = \"uvx\" } }\n"},
		{"json servers not an object", "claude-code", `{"mcpServers": []}`},
		{"json syntax error", "gemini", `{"mcpServers": {`},
		{"yaml flow mapping", "hermes", "mcp_servers: {time: {command: uvx}}\n"},
		{"yaml not a mapping", "hermes", "- a\n- b\n"},
		{"toml syntax error", "codex", "model = \n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(path, []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if p, err := PlanInstall(agent(t, c.agent), path, testEntry, nil); err == nil {
				t.Fatalf("no error; would write:\n%s", p.After)
			} else {
				t.Log(err)
			}
			if got := mustRead(t, path); string(got) != c.content {
				t.Fatal("the file was changed")
			}
		})
	}
}

func TestPlan_Diff(t *testing.T) {
	a := agent(t, "codex")
	path, _ := place(t, "codex.toml")
	p, err := PlanInstall(a, path, testEntry, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := p.Diff()
	for _, want := range []string{"--- a" + path, "+++ b" + path, "+[mcp_servers.nova]", `+command = "/opt/nova/bin/novactl"`, " trust_level = \"trusted\""} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	if !bytes.Equal(mustRead(t, path), p.Before) {
		t.Fatal("planning wrote the file")
	}
}

func TestRecords_RoundTrip(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state", "mcp-installs.json")
	r, err := LoadRecords(file)
	if err != nil {
		t.Fatal(err)
	}
	r.Set("/x/config.toml", &Record{Agent: "codex", Insertion: Insertion{Offset: 3, Text: "abc", CreatedLevels: 1}})
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("record file: %v %v", fi, err)
	}
	r2, err := LoadRecords(file)
	if err != nil || r2.Get("/x/config.toml") == nil || r2.Get("/x/config.toml").Text != "abc" {
		t.Fatalf("reload: %v %+v", err, r2)
	}
	r2.Set("/x/config.toml", nil)
	if err := r2.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("an empty store should be deleted")
	}
}

func TestAgents_Paths(t *testing.T) {
	env := []string{"HOME=/home/ada"}
	want := map[string]string{
		"claude-code": "/home/ada/.claude.json",
		"codex":       "/home/ada/.codex/config.toml",
		"gemini":      "/home/ada/.gemini/settings.json",
		"openclaw":    "/home/ada/.openclaw/openclaw.json",
		"hermes":      "/home/ada/.hermes/config.yaml",
		"cursor":      "/home/ada/.cursor/mcp.json",
		"windsurf":    "/home/ada/.codeium/windsurf/mcp_config.json",
	}
	if len(Agents()) != len(want) {
		t.Errorf("%d agents, want %d", len(Agents()), len(want))
	}
	for _, a := range Agents() {
		if got := a.Path(env); got != want[a.ID] {
			t.Errorf("%s: %s, want %s", a.ID, got, want[a.ID])
		}
		if len(a.Keys) == 0 {
			t.Errorf("%s: no place for the MCP servers in its file", a.ID)
		}
	}
	env = append(env, "CODEX_HOME=/srv/codex", "HERMES_HOME=/srv/hermes", "OPENCLAW_CONFIG_PATH=/srv/oc.json", "HERMES_HOME_X=relative")
	for id, p := range map[string]string{"codex": "/srv/codex/config.toml", "hermes": "/srv/hermes/config.yaml", "openclaw": "/srv/oc.json"} {
		if got := agent(t, id).Path(env); got != p {
			t.Errorf("%s: %s, want %s", id, got, p)
		}
	}
}

func TestJSONScanner_Dialects(t *testing.T) {
	good := []string{
		`{}`, `{"a": 1}`, "\xef\xbb\xbf{\"a\": [1, 2, {\"b\": null}]}", `{a: 'x', "b": +1, c: .5, d: 0x1F, e: Infinity,}`,
		"{ // c\n \"a\": 1 /* d */ }", `{"a": "\u00e9\"\\"}`,
	}
	for _, s := range good {
		if _, err := parseJSONDoc([]byte(s)); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	bad := []string{``, `[]`, `{"a" 1}`, `{"a": }`, `{"a": 1} x`, `{"a": "unterminated}`, `{/* open`, `{"a": [1, }`}
	for _, s := range bad {
		if _, err := parseJSONDoc([]byte(s)); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}

// FuzzJSONInsertRemove checks, on any document the scanner accepts, that
// an insertion is one contiguous text whose removal (putting back the text
// it replaced) restores the bytes,
// that the structural removal leaves a document without the entry, and
// that strict JSON stays strict JSON.
func FuzzJSONInsertRemove(f *testing.F) {
	for _, fx := range fixtures {
		if strings.HasSuffix(fx.file, ".json") || strings.HasSuffix(fx.file, ".json5") {
			b, err := os.ReadFile(filepath.Join("testdata", fx.file))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b, false)
			f.Add(b, true)
		}
	}
	f.Add([]byte(`{}`), false)
	f.Add([]byte("{\"mcpServers\": {} // x\n}"), false)
	f.Add([]byte(`{a:1,mcp:{servers:{b:{}},},}`), true)
	f.Add([]byte("{\n \"mcpServers\": {\n  \"a\": {} // x\n }\n}"), false)
	f.Add([]byte("{mcp: {servers: {\n  b: {}, /* y */ // z\r\n}}}"), true)
	f.Fuzz(func(t *testing.T, src []byte, nested bool) {
		keys := []string{"mcpServers"}
		if nested {
			keys = []string{"mcp", "servers"}
		}
		if _, err := parseJSONDoc(src); err != nil {
			return
		}
		if _, found, err := jsonLookup(src, keys, ServerName); err != nil || found {
			return
		}
		out, ins, err := jsonInsert(src, keys, ServerName, testEntry.value())
		if err != nil {
			return // e.g. a servers member that is not an object
		}
		cur, found, err := jsonLookup(out, keys, ServerName)
		if err != nil || !found || !testEntry.matches(cur) {
			t.Fatalf("inserted entry does not read back (%v %v):\n%s", found, err, out)
		}
		if ins.Offset > len(src) || string(out[:ins.Offset])+ins.Replaced+string(out[ins.Offset+len(ins.Text):]) != string(src) {
			t.Fatalf("not one contiguous insertion:\n%s", out)
		}
		back, found, err := jsonRemove(out, keys, ServerName, ins.CreatedLevels)
		if err != nil || !found {
			t.Fatalf("structural removal: %v %v", found, err)
		}
		if _, found, err := jsonLookup(back, keys, ServerName); err != nil || found {
			t.Fatalf("after removal: %v %v:\n%s", found, err, back)
		}
		// A file in strict JSON (most agents read theirs with a strict
		// parser) stays strict JSON after each edit: a comma left
		// behind would stop the agent from reading its settings.
		if json.Valid(src) && (!json.Valid(out) || !json.Valid(back)) {
			t.Fatalf("strict JSON edited into JSON5:\n%s\n---\n%s\n---\n%s", src, out, back)
		}
	})
}

// FuzzYAMLInsertRemove checks the line-based YAML edit on any mapping
// document: the insertion reads back as the entry (or PlanInstall's check
// would refuse it) and removing the recorded text restores the bytes.
func FuzzYAMLInsertRemove(f *testing.F) {
	for _, fx := range fixtures {
		if strings.HasSuffix(fx.file, ".yaml") {
			b, err := os.ReadFile(filepath.Join("testdata", fx.file))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte("mcp_servers:\n  a: |\n    # text\n\n    more\n# tail\nx: 1\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		keys := []string{"mcp_servers"}
		if _, found, err := yamlLookup(src, keys, ServerName); err != nil || found {
			return
		}
		out, ins, err := yamlInsert(src, keys, ServerName, testEntry)
		if err != nil {
			return
		}
		if string(out[:ins.Offset])+string(out[ins.Offset+len(ins.Text):]) != string(src) {
			t.Fatalf("not one contiguous insertion")
		}
		cur, found, err := yamlLookup(out, keys, ServerName)
		if err != nil || !found || !testEntry.matches(cur) {
			// PlanInstall refuses such a result; count it as a refusal.
			t.Skip("refused by the read-back check")
		}
		back, found, err := yamlRemove(out, keys, ServerName, ins.CreatedLevels)
		if err != nil || !found {
			t.Fatalf("removal: %v %v", found, err)
		}
		if _, found, err := yamlLookup(back, keys, ServerName); err != nil || found {
			t.Fatalf("after removal: %v %v:\n%s", found, err, back)
		}
	})
}

// TestSyntaxErrors_DoNotQuoteValues: an agent's file that does not parse
// is refused with the line, but without the text where a value belongs:
// that text is often a secret written without its quotes ("API_KEY":
// sk-..., TOKEN = ghp_...), and install, status and doctor print the
// error where it may be pasted into an issue.
func TestSyntaxErrors_DoNotQuoteValues(t *testing.T) {
	cases := []struct {
		agent, content, secret string
	}{
		{"claude-code", "{\"mcpServers\": {}, \"env\": {\"API_KEY\": sk-live-q8Rz3kWm5Tn0\n}}", "q8Rz3kWm5Tn0"},
		{"gemini", "{\"mcpServers\": {\"x\": {\"env\": {\"TOKEN\": correcthorsebattery}}}}", "correcthorsebattery"},
		{"codex", "[mcp_servers.x]\ncommand = \"uvx\"\nenv = { TOKEN = correcthorsebattery }\n", "correcthorse"},
		{"codex", "[env]\nKEY = hunter2pass\n", "hunter"},
	}
	for _, c := range cases {
		path := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(path, []byte(c.content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := PlanInstall(agent(t, c.agent), path, testEntry, nil)
		if err == nil {
			t.Fatalf("%s: no error for %q", c.agent, c.content)
		}
		if strings.Contains(err.Error(), c.secret) || !strings.Contains(err.Error(), "line ") {
			t.Errorf("%s: error %q quotes the value or names no line", c.agent, err)
		}
		if _, err := Inspect(agent(t, c.agent), path, testEntry, nil); err != nil && strings.Contains(err.Error(), c.secret) {
			t.Errorf("%s: status error %q quotes the value", c.agent, err)
		}
	}
}

// TestEditors_ServersInMCPServers: Cursor's ~/.cursor/mcp.json and
// Windsurf's ~/.codeium/windsurf/mcp_config.json list their servers in a
// top-level mcpServers object of command, args and env, as their
// documentation shows: Nova's entry goes there, beside the person's
// servers (a stdio one and a remote one), and the file stays strict JSON.
func TestEditors_ServersInMCPServers(t *testing.T) {
	for _, c := range []struct{ agent, file, stdio, remote string }{
		{"cursor", "cursor.json", "playwright", "context7"},
		{"cursor", "cursor-empty.json", "", ""},
		{"windsurf", "windsurf.json", "github", "figma"},
	} {
		a := agent(t, c.agent)
		if a.Format != JSON || strings.Join(a.Keys, ".") != "mcpServers" {
			t.Fatalf("%s: format %v keys %v, want JSON mcpServers", c.agent, a.Format, a.Keys)
		}
		path, _ := place(t, c.file)
		install(t, a, path, testEntry, nil)
		var doc struct {
			MCPServers map[string]map[string]any `json:"mcpServers"`
		}
		b := mustRead(t, path)
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s is no longer JSON: %v\n%s", c.file, err, b)
		}
		if nova := doc.MCPServers[ServerName]; !testEntry.matches(nova) {
			t.Errorf("%s: mcpServers.nova %v\n%s", c.file, nova, b)
		}
		if c.stdio != "" && (doc.MCPServers[c.stdio]["command"] != "npx" || len(doc.MCPServers[c.remote]) == 0) {
			t.Errorf("%s: the other servers are not kept:\n%s", c.file, b)
		}
	}
}
