package agentconf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes content to a fresh file in a temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o640); err != nil {
		t.Fatal(err)
	}
	return path
}

// editFile replaces old (which must occur once) with new in the file at path.
func editFile(t *testing.T, path, old, new string) {
	t.Helper()
	s := string(mustRead(t, path))
	if strings.Count(s, old) != 1 {
		t.Fatalf("%q does not occur once in:\n%s", old, s)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(s, old, new, 1)), 0o640); err != nil {
		t.Fatal(err)
	}
}

// TestUninstall_TOMLKeepsTablesBetweenMarkers: toml_edit (Codex) appends a
// table before a document's trailing comment, so a server added after
// Nova's block lands before "# END nova MCP server". Uninstall removes
// Nova's table and the markers, and keeps that table.
func TestUninstall_TOMLKeepsTablesBetweenMarkers(t *testing.T) {
	const context7 = "[mcp_servers.context7]\ncommand = \"npx\"\nargs = [\"-y\", \"@upstash/context7-mcp\"]\n"
	cases := []struct {
		name string
		// edit turns the installed file into the one to uninstall from.
		edit func(t *testing.T, path string)
		want string
	}{
		{
			name: "table appended before the END line",
			edit: func(t *testing.T, path string) {
				editFile(t, path, tomlEnd+"\n", "\n"+context7+tomlEnd+"\n")
			},
			want: "model = \"gpt-5\"\n\n" + context7,
		},
		{
			name: "table and comment right after Nova's table",
			edit: func(t *testing.T, path string) {
				editFile(t, path, tomlEnd+"\n", "# docs lookup\n"+context7+tomlEnd+"\n")
			},
			want: "model = \"gpt-5\"\n\n# docs lookup\n" + context7,
		},
		{
			name: "Nova's env rewritten as a subtable, table after it",
			edit: func(t *testing.T, path string) {
				s := string(mustRead(t, path))
				i := strings.Index(s, "env = {")
				j := strings.Index(s, tomlEnd)
				s = s[:i] + "\n[mcp_servers.nova.env]\nNOVA_HOME = \"/Users/ada/Nova\"\n\n" + context7 + s[j:]
				if err := os.WriteFile(path, []byte(s), 0o640); err != nil {
					t.Fatal(err)
				}
			},
			want: "model = \"gpt-5\"\n\n" + context7,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := agent(t, "codex")
			path := writeFile(t, "config.toml", "model = \"gpt-5\"\n")
			p := install(t, a, path, testEntry, nil)
			c.edit(t, path)
			t.Logf("before uninstall:\n%s", mustRead(t, path))
			for _, rec := range []*Record{p.Record, nil} {
				plan, err := PlanUninstall(a, path, rec)
				if err != nil {
					t.Fatal(err)
				}
				if plan.Action != Remove || string(plan.After) != c.want {
					t.Fatalf("record %v: uninstall would write (%s):\n%s\nwant:\n%s", rec != nil, plan.Action, plan.After, c.want)
				}
			}
			uninstall(t, a, path, p.Record)
			if got := string(mustRead(t, path)); got != c.want {
				t.Fatalf("after uninstall:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}
