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
