package agentconf

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInspect: the user-level entry is current, stale (another NOVA_HOME)
// or foreign, and Claude Code's per-project "nova" entries that differ
// from the one install writes are listed, by project, with what differs
// (never another variable's value); an identical one is not.
func TestInspect(t *testing.T) {
	a := agent(t, "claude-code")
	path := filepath.Join(t.TempDir(), ".claude.json")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if st, err := Inspect(a, path, testEntry, nil); err != nil || st.State != StateAbsent {
		t.Fatalf("no file: %+v %v", st, err)
	}
	write(`{
  "projects": {
    "/Users/ada/src/old app": {"mcpServers": {"nova": {"type": "stdio", "command": "/usr/local/Cellar/nova/0.3.0/bin/novactl", "args": ["mcp"], "env": {"NOVA_HOME": "/Users/ada/.nova-old", "TOKEN": "s3cret"}}}},
    "/Users/ada/src/same": {"mcpServers": {"nova": {"command": "/opt/nova/bin/novactl", "args": ["mcp"], "env": {"NOVA_HOME": "/Users/ada/Nova \"home\""}}}},
    "/Users/ada/src/none": {"mcpServers": {"github": {"command": "npx"}}},
    "/Users/ada/src/bare": {"allowedTools": []}
  },
  "mcpServers": {"nova": {"command": "/opt/nova/bin/novactl", "args": ["mcp"], "env": {"NOVA_HOME": "/Users/ada/Nova \"home\""}}}
}`)
	st, err := Inspect(a, path, testEntry, nil)
	if err != nil || st.State != StateCurrent || st.NovaHome != testEntry.Env["NOVA_HOME"] || len(st.Shadows) != 1 {
		t.Fatalf("state %+v, %v", st, err)
	}
	sh := st.Shadows[0]
	want := []string{
		"command /usr/local/Cellar/nova/0.3.0/bin/novactl, not /opt/nova/bin/novactl",
		`NOVA_HOME /Users/ada/.nova-old, not /Users/ada/Nova "home"`,
		"env TOKEN differs",
	}
	if sh.Project != "/Users/ada/src/old app" || sh.NovaHome != "/Users/ada/.nova-old" || !slices.Equal(sh.Differs, want) {
		t.Errorf("project entry %+v, want differences %q", sh, want)
	}
	if strings.Contains(strings.Join(sh.Differs, " "), "s3cret") {
		t.Error("a variable's value was shown")
	}
	if got := sh.RemoveHint(); got != `cd '/Users/ada/src/old app' && claude mcp remove nova -s local` {
		t.Errorf("hint %s", got)
	}

	// The user-level entry of another NOVA_HOME is stale; another
	// program's "nova" is foreign.
	other := testEntry
	other.Env = map[string]string{"NOVA_HOME": "/srv/nova"}
	if st, err := Inspect(a, path, other, nil); err != nil || st.State != StateStale || !slices.Contains(st.Differs, `NOVA_HOME /Users/ada/Nova "home", not /srv/nova`) || len(st.Shadows) != 2 {
		t.Errorf("another home: %+v %v", st, err)
	}
	write(`{"mcpServers": {"nova": {"command": "/usr/bin/nova-notes", "args": []}}}`)
	if st, err := Inspect(a, path, testEntry, nil); err != nil || st.State != StateForeign || st.Shadows != nil {
		t.Errorf("foreign: %+v %v", st, err)
	}
}

// TestProjectEntries: every per-project "nova" of a Claude Code file,
// whatever it holds, with escaped strings decoded; projects without MCP
// servers, or not objects, and an empty file hold none. Other agents have
// no project entries.
func TestProjectEntries(t *testing.T) {
	a := agent(t, "claude-code")
	path := filepath.Join(t.TempDir(), ".claude.json")
	for _, tt := range []struct {
		doc  string
		want []ProjectEntry
	}{
		{"", nil},
		{"  \n", nil},
		{`{"numStartups": 1}`, nil},
		{`{"projects": {"/a": 3, "/b": {"history": [{"display": "x\ny"}]}, "/c": {"mcpServers": []}}}`, nil},
		{`{"projects": {"/src/caf\u00e9 \"x\"": {"mcpServers": {"nova": {"command": "/opt/novactl", "args": ["mcp"], "env": {"NOVA_HOME": "/n\\ova"}}}},
		  "/src/b": {"mcpServers": {"other": {"command": "x"}, "nova": {"command": "novactl"}}}}}`, []ProjectEntry{
			{Project: "/src/b", Scope: ScopeLocal, Command: "novactl", Remove: "cd /src/b && claude mcp remove nova -s local"},
			{Project: `/src/café "x"`, Scope: ScopeLocal, Command: "/opt/novactl", NovaHome: `/n\ova`, Remove: `cd '/src/café "x"' && claude mcp remove nova -s local`},
		}},
	} {
		if err := os.WriteFile(path, []byte(tt.doc), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := ProjectEntries(a, path)
		if err != nil || !slices.EqualFunc(got, tt.want, func(x, y ProjectEntry) bool {
			return x.Project == y.Project && x.Scope == y.Scope && x.Command == y.Command && x.NovaHome == y.NovaHome && x.Remove == y.Remove && x.Differs == nil
		}) {
			t.Errorf("%s:\n got %+v %v\nwant %+v", tt.doc, got, err, tt.want)
		}
	}
	if got, err := ProjectEntries(agent(t, "codex"), path); got != nil || err != nil {
		t.Errorf("codex: %+v %v", got, err)
	}
}
