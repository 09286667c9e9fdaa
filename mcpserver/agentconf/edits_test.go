package agentconf

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
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

// TestUninstall_JSONKeepsComments: removing Nova's member deletes it and
// one comma, never a comment written next to it (it deleted the note in
// front of the next server).
func TestUninstall_JSONKeepsComments(t *testing.T) {
	t.Run("Nova first, a commented server added after it", func(t *testing.T) {
		a := agent(t, "gemini")
		orig := "{\n  \"theme\": \"Default\",\n  \"mcpServers\": {}\n}\n"
		path := writeFile(t, "settings.json", orig)
		p := install(t, a, path, testEntry, nil)
		s := string(mustRead(t, path))
		i := strings.LastIndex(s, "}\n  }") + 1
		note := "// GitHub server: needs GITHUB_TOKEN (do not delete this note)"
		s = s[:i] + ",\n    " + note + "\n    \"github\": { \"command\": \"gh-mcp\" }" + s[i:]
		if err := os.WriteFile(path, []byte(s), 0o640); err != nil {
			t.Fatal(err)
		}
		want := "{\n  \"theme\": \"Default\",\n  \"mcpServers\": {\n    " + note + "\n    \"github\": { \"command\": \"gh-mcp\" }\n  }\n}\n"
		for _, rec := range []*Record{p.Record, nil} {
			plan, err := PlanUninstall(a, path, rec)
			if err != nil {
				t.Fatal(err)
			}
			if string(plan.After) != want {
				t.Fatalf("record %v: uninstall would write:\n%s\nwant:\n%s", rec != nil, plan.After, want)
			}
		}
	})
	const nova = `"nova": {"command": "/opt/nova/bin/novactl", "args": ["mcp"]}`
	cases := []struct {
		name, agent, file, installed, want string
	}{
		{
			name:      "first, comment before the next key",
			agent:     "gemini",
			file:      "settings.json",
			installed: "{\"mcpServers\": {\n  " + nova + ",\n  // keep me\n  \"b\": {}\n}}\n",
			want:      "{\"mcpServers\": {\n  // keep me\n  \"b\": {}\n}}\n",
		},
		{
			name:      "middle, comments on both sides",
			agent:     "gemini",
			file:      "settings.json",
			installed: "{\"mcpServers\": {\n  \"a\": {}, // about a\n  " + nova + ",\n  /* about b */\n  \"b\": {}\n}}\n",
			want:      "{\"mcpServers\": {\n  \"a\": {}, // about a\n  /* about b */\n  \"b\": {}\n}}\n",
		},
		{
			name:      "last, comment line before it",
			agent:     "gemini",
			file:      "settings.json",
			installed: "{\"mcpServers\": {\n  \"a\": {},\n  // servers below are optional\n  " + nova + "\n}}\n",
			want:      "{\"mcpServers\": {\n  \"a\": {}\n  // servers below are optional\n}}\n",
		},
		{
			name:      "JSON5, first, comment after it",
			agent:     "openclaw",
			file:      "openclaw.json",
			installed: "{mcp: {servers: {\n  nova: {command: '/opt/nova/bin/novactl', args: ['mcp']},\n  // context7: docs\n  context7: {command: 'npx'},\n}}}\n",
			want:      "{mcp: {servers: {\n  // context7: docs\n  context7: {command: 'npx'},\n}}}\n",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, c.file, c.installed)
			plan, err := PlanUninstall(agent(t, c.agent), path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if plan.Action != Remove || string(plan.After) != c.want {
				t.Fatalf("uninstall would write (%s):\n%s\nwant:\n%s", plan.Action, plan.After, c.want)
			}
		})
	}
}

// TestInstall_TrailingCommentStaysOnItsLine: a comment after the last
// server's value stays on that server's line (install moved it after
// Nova's entry), and uninstall, with or without the install record,
// restores the file byte for byte.
func TestInstall_TrailingCommentStaysOnItsLine(t *testing.T) {
	cases := []struct {
		name, agent, file, orig string
		// line is the last server's line as it must read after install.
		line string
	}{
		{
			name:  "JSON with comments",
			agent: "gemini", file: "settings.json",
			orig: "{\n  \"mcpServers\": {\n    \"fs\": { \"command\": \"fs-mcp\" } // filesystem server\n  }\n}\n",
			line: `    "fs": { "command": "fs-mcp" }, // filesystem server`,
		},
		{
			name:  "CRLF, block comment",
			agent: "gemini", file: "settings.json",
			orig: "{\r\n  \"mcpServers\": {\r\n    \"fs\": { \"command\": \"fs-mcp\" } /* filesystem server */\r\n  }\r\n}\r\n",
			line: `    "fs": { "command": "fs-mcp" }, /* filesystem server */`,
		},
		{
			name:  "JSON5 trailing comma",
			agent: "openclaw", file: "openclaw.json",
			orig: "{\n  mcp: {\n    servers: {\n      fs: { command: 'fs-mcp' }, // filesystem server\n    },\n  },\n}\n",
			line: `      fs: { command: 'fs-mcp' }, // filesystem server`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := agent(t, c.agent)
			path := writeFile(t, c.file, c.orig)
			p := install(t, a, path, testEntry, nil)
			after := string(mustRead(t, path))
			t.Logf("installed:\n%s", after)
			lines := strings.Split(strings.ReplaceAll(after, "\r\n", "\n"), "\n")
			i := 0
			for i < len(lines) && !strings.Contains(lines[i], "fs-mcp") {
				i++
			}
			if i+1 >= len(lines) || lines[i] != c.line || !strings.Contains(lines[i+1], "nova") {
				t.Fatalf("the comment moved: want the line %q followed by Nova's entry", c.line)
			}
			if strings.Contains(c.orig, "\r\n") && strings.Count(after, "\n") != strings.Count(after, "\r\n") {
				t.Error("mixed line endings")
			}
			assertOneInsertion(t, []byte(c.orig), []byte(after), p.Record.Insertion)

			uninstall(t, a, path, p.Record)
			if got := string(mustRead(t, path)); got != c.orig {
				t.Fatalf("uninstall with the record:\n%s\nwant:\n%s", got, c.orig)
			}
			install(t, a, path, testEntry, nil)
			uninstall(t, a, path, nil)
			if got := string(mustRead(t, path)); got != c.orig {
				t.Fatalf("uninstall without the record:\n%s\nwant:\n%s", got, c.orig)
			}
		})
	}
}

// TestDuplicateKeysRefused: with a key on Nova's path written twice, Nova
// would edit the first copy while the agent's JSON.parse keeps the last,
// so Nova refuses, naming the key and the file.
func TestDuplicateKeysRefused(t *testing.T) {
	const nova = `"nova": {"command": "/opt/nova/bin/novactl", "args": ["mcp"]}`
	cases := []struct {
		name, agent, content, key string
	}{
		{"servers object twice", "claude-code", "{\n  \"mcpServers\": {\"a\": {\"command\": \"x\"}},\n  \"mcpServers\": {\"b\": {\"command\": \"y\"}}\n}\n", `"mcpServers" appears 2 times (lines 2, 3)`},
		{"servers object twice, Nova in the first", "gemini", "{\n  \"mcpServers\": {" + nova + "},\n  \"mcpServers\": {}\n}\n", `"mcpServers" appears 2 times`},
		{"nested container twice", "openclaw", "{mcp: {servers: {}},\n mcp: {servers: {}}}\n", `"mcp" appears 2 times`},
		{"nova twice", "gemini", "{\"mcpServers\": {\n  " + nova + ",\n  " + nova + "\n}}\n", `"mcpServers.nova" appears 2 times`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, "config.json", c.content)
			a := agent(t, c.agent)
			_, ierr := PlanInstall(a, path, testEntry, nil)
			_, uerr := PlanUninstall(a, path, nil)
			for verb, err := range map[string]error{"install": ierr, "uninstall": uerr} {
				if err == nil || !strings.Contains(err.Error(), c.key) || !strings.Contains(err.Error(), path) {
					t.Errorf("%s: error %v, want one naming %s and %s", verb, err, c.key, path)
				}
			}
			if got := string(mustRead(t, path)); got != c.content {
				t.Fatal("the file was changed")
			}
		})
	}
}

// TestInstall_UpdateKeepsUserSettings: settings a person added to Nova's
// entry (Codex's enabled and tool_timeout_sec, Claude Code's type, Hermes'
// timeout) survive an update that changes the command, and uninstall still
// restores the file.
func TestInstall_UpdateKeepsUserSettings(t *testing.T) {
	// Each edit adds settings after the command line install wrote.
	edits := map[string]struct{ file, after, add string }{
		"claude-code": {"claude.json", `"command": "/old/novactl",`, ` "type": "stdio", "alwaysAllow": ["memory_search"], "timeout": 30000,`},
		"openclaw":    {"openclaw.json5", `command: "/old/novactl",`, ` enabled: false, // off for now` + "\n"},
		"codex": {"codex.toml", "command = \"/old/novactl\"\n",
			"enabled = false # off for now\ntool_timeout_sec = 120\nstartup_timeout_sec = 2.5\nenabled_tools = [\"memory_search\"]\ntools.memory_search.approval_mode = \"approve\"\n"},
		"hermes": {"hermes.yaml", "command: \"/old/novactl\"\n", "    timeout: 120\n    enabled: false\n    tools: {include: [memory_search]}\n"},
	}
	for id, ed := range edits {
		t.Run(id, func(t *testing.T) {
			a := agent(t, id)
			path, orig := place(t, ed.file)
			p1 := install(t, a, path, Entry{Command: "/old/novactl", Args: []string{"mcp"}}, nil)
			src := mustRead(t, path)
			if bytes.Count(src, []byte(ed.after)) != 1 {
				t.Fatalf("%q not found once in\n%s", ed.after, src)
			}
			src = bytes.Replace(src, []byte(ed.after), []byte(ed.after+ed.add), 1)
			if err := os.WriteFile(path, src, 0o600); err != nil {
				t.Fatal(err)
			}
			lookup := editorFor(a.Format).lookup
			before, _, err := lookup(src, a.Keys, ServerName)
			if err != nil {
				t.Fatalf("hand edit: %v\n%s", err, src)
			}
			p2 := install(t, a, path, testEntry, p1.Record)
			if p2.Action != Update {
				t.Fatalf("action %s, want update", p2.Action)
			}
			after, _, err := lookup(mustRead(t, path), a.Keys, ServerName)
			if err != nil || !testEntry.matches(after) {
				t.Fatalf("not updated (%v): %v", err, after)
			}
			b, a2 := before.(map[string]any), after.(map[string]any)
			for k, v := range b {
				if k == "command" || k == "args" || k == "env" {
					continue
				}
				if !reflect.DeepEqual(a2[k], v) {
					t.Errorf("%s: %v after the update, %v before\n%s", k, a2[k], v, mustRead(t, path))
				}
			}
			uninstall(t, a, path, p2.Record)
			if got := mustRead(t, path); !bytes.Equal(got, orig) {
				t.Fatalf("not byte-identical:\n%s", got)
			}
		})
	}
}

// TestInstall_SaysWhenTheAgentWillNotStartIt: an entry the file disables,
// that Gemini CLI's allow or deny list keeps out, or whose tool filters
// (kept by an update) leave out memory_search, is reported, instead of a
// plain "added" or "already installed".
func TestInstall_SaysWhenTheAgentWillNotStartIt(t *testing.T) {
	for _, tt := range []struct {
		agent, file, content, want string
	}{
		{"gemini", "settings.json", `{"mcp": {"allowed": ["github"]}, "mcpServers": {}}`, "mcp.allowed"},
		{"gemini", "settings.json", `{"mcp": {"excluded": ["nova"]}}`, "mcp.excluded"},
		{"codex", "config.toml", "[mcp_servers.nova]\ncommand = \"/opt/nova/bin/novactl\"\nargs = [\"mcp\"]\nenv = { NOVA_HOME = \"/Users/ada/Nova \\\"home\\\"\" }\nenabled = false\n", "disabled"},
		{"hermes", "config.yaml", "mcp_servers:\n  nova:\n    command: /old/novactl\n    args: [mcp]\n    enabled: false\n", "disabled"},
		// Each agent's per-server tool filters, which an update keeps:
		// the server starts, but without memory_search.
		{"codex", "config.toml", "[mcp_servers.nova]\ncommand = \"/old/novactl\"\nargs = [\"mcp\"]\nenabled_tools = [\"memory_status\"]\n", "enabled_tools"},
		{"codex", "config.toml", "[mcp_servers.nova]\ncommand = \"/old/novactl\"\nargs = [\"mcp\"]\ndisabled_tools = [\"memory_search\"]\n", "disabled_tools"},
		{"gemini", "settings.json", `{"mcpServers": {"nova": {"command": "/old/novactl", "args": ["mcp"], "includeTools": ["memory_status"]}}}`, "includeTools"},
		{"gemini", "settings.json", `{"mcpServers": {"nova": {"command": "/old/novactl", "args": ["mcp"], "excludeTools": ["memory_search"]}}}`, "excludeTools"},
		{"hermes", "config.yaml", "mcp_servers:\n  nova:\n    command: /old/novactl\n    args: [mcp]\n    tools:\n      exclude: [memory_search]\n", "tools.exclude"},
		{"hermes", "config.yaml", "mcp_servers:\n  nova:\n    command: /old/novactl\n    args: [mcp]\n    tools:\n      include: [memory_status]\n", "tools.include"},
	} {
		a := agent(t, tt.agent)
		path := writeFile(t, tt.file, tt.content)
		p, err := PlanInstall(a, path, testEntry, nil)
		if err != nil {
			t.Fatalf("%s %s: %v", tt.agent, tt.content, err)
		}
		if !strings.Contains(p.Note, tt.want) {
			t.Errorf("%s %s: %s, note %q, want one about %s", tt.agent, tt.content, p.Action, p.Note, tt.want)
		}
	}
	// An enabled entry, and a Gemini allow list that names nova: no note.
	for _, tt := range []struct{ agent, file, content string }{
		{"gemini", "settings.json", `{"mcp": {"allowed": ["github", "nova"]}}`},
		{"codex", "config.toml", "[mcp_servers.nova]\ncommand = \"/x/novactl\"\nargs = [\"mcp\"]\nenabled = true\n"},
		{"codex", "config.toml", "[mcp_servers.nova]\ncommand = \"/x/novactl\"\nargs = [\"mcp\"]\nenabled_tools = [\"memory_search\", \"memory_status\"]\ndisabled_tools = [\"memory_status\"]\n"},
		{"gemini", "settings.json", `{"mcpServers": {"nova": {"command": "/x/novactl", "args": ["mcp"], "includeTools": ["memory_search"], "trust": true}}}`},
	} {
		p, err := PlanInstall(agent(t, tt.agent), writeFile(t, tt.file, tt.content), testEntry, nil)
		if err != nil || p.Note != "" {
			t.Errorf("%s %s: note %q, err %v", tt.agent, tt.content, p.Note, err)
		}
	}
}

// TestInstall_YAMLKeepsBlockScalars: a block scalar that keeps its
// trailing lines (|+) holds the blank lines after it, so an entry written
// right after it would change its value. Install leaves such a value as
// it is: it writes around it or refuses, never edits it silently.
func TestInstall_YAMLKeepsBlockScalars(t *testing.T) {
	a := agent(t, "hermes")
	for name, src := range map[string]string{
		"at the end":        "model: x\nsystem_prompt: |+\n  Be brief.\n\n",
		"in the last entry": "mcp_servers:\n  fs:\n    command: npx\n    note: |+\n      keep\n\nmodel: x\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
				t.Fatal(err)
			}
			var want any
			if err := yaml.Unmarshal([]byte(src), &want); err != nil {
				t.Fatal(err)
			}
			p, err := PlanInstall(a, path, testEntry, nil)
			if err != nil {
				t.Logf("refused: %v", err)
				return
			}
			var got map[string]any
			if err := yaml.Unmarshal(p.After, &got); err != nil {
				t.Fatal(err)
			}
			servers, _ := got["mcp_servers"].(map[string]any)
			delete(servers, ServerName)
			if len(servers) == 0 {
				delete(got, "mcp_servers")
			}
			if !reflect.DeepEqual(any(got), want) {
				t.Errorf("install changed other values:\n%#v\nwant\n%#v\n%s", got, want, p.After)
			}
		})
	}
}

// TestTOML_RemovedTableLeavesNoGap: a [mcp_servers.nova] table that
// install did not write (`codex mcp add`, or by hand, between blank
// lines) is removed with one of the blank lines around it, by an update
// and by uninstall alike: the file kept both, two blank lines where there
// had been one, a blank last line, or a blank first line.
func TestTOML_RemovedTableLeavesNoGap(t *testing.T) {
	const nova = "[mcp_servers.nova]\ncommand = \"/old/bin/novactl\"\nargs = [\"mcp\"]\n"
	const context7 = "[mcp_servers.context7]\ncommand = \"npx\"\n"
	const novaEnv = "[mcp_servers.nova.env]\nNOVA_HOME = \"/old/nova\"\n"
	cases := []struct{ name, src, want string }{
		{"between tables", "model = \"o3\"\n\n" + nova + "\n" + context7, "model = \"o3\"\n\n" + context7},
		{"last", "model = \"o3\"\n\n" + context7 + "\n" + nova, "model = \"o3\"\n\n" + context7},
		{"last, blank line after it", "model = \"o3\"\n\n" + nova + "\n", "model = \"o3\"\n\n"},
		{"no blank line before it", "model = \"o3\"\n" + nova + "\n" + context7, "model = \"o3\"\n\n" + context7},
		{"first", nova + "\n" + context7, context7},
		// Codex's documented layout: env as a subtable, between blank
		// lines too.
		{"with an env subtable, between tables", "model = \"o3\"\n\n" + nova + "\n" + novaEnv + "\n" + context7, "model = \"o3\"\n\n" + context7},
		{"with an env subtable, last", "model = \"o3\"\n\n" + context7 + "\n" + nova + "\n" + novaEnv, "model = \"o3\"\n\n" + context7},
	}
	a := agent(t, "codex")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, "config.toml", c.src)
			un, err := PlanUninstall(a, path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(un.After) != c.want {
				t.Errorf("uninstall would write:\n%q\nwant:\n%q", un.After, c.want)
			}
			in, err := PlanInstall(a, path, testEntry, nil)
			if err != nil {
				t.Fatal(err)
			}
			sep := "\n"
			if strings.HasSuffix(c.want, "\n\n") {
				sep = "" // the file ends in a blank line already
			}
			if want := c.want + sep + renderTOMLBlock(a.Keys, ServerName, testEntry, "\n"); in.Action != Update || string(in.After) != want {
				t.Errorf("update would write (%s):\n%q\nwant:\n%q", in.Action, in.After, want)
			}
		})
	}
}

// TestTOML_InstallAfterBlankLastLine: a file that ends in a blank line
// gets Nova's block after that line, not after a second one, and
// uninstall restores it byte for byte.
func TestTOML_InstallAfterBlankLastLine(t *testing.T) {
	a := agent(t, "codex")
	const src = "model = \"o3\"\n\n"
	path := writeFile(t, "config.toml", src)
	p := install(t, a, path, testEntry, nil)
	if got, want := string(mustRead(t, path)), src+renderTOMLBlock(a.Keys, ServerName, testEntry, "\n"); got != want {
		t.Errorf("installed:\n%q\nwant:\n%q", got, want)
	}
	uninstall(t, a, path, p.Record)
	if got := string(mustRead(t, path)); got != src {
		t.Errorf("after uninstall: %q, want %q", got, src)
	}
}

// TestTOML_InlineEntry: a novactl entry written as a key of the servers
// table ([mcp_servers] with nova = { ... }, or dotted keys nova.command =
// ...), as people write them by hand, is updated and uninstalled like a
// [mcp_servers.nova] table, and only its lines go: update and uninstall
// used to fail with "could not locate the nova entry".
func TestTOML_InlineEntry(t *testing.T) {
	const head = "model = \"o3\"\n\n[mcp_servers]\ntime = { command = \"uvx\" } # clock\n"
	const tail = "\n[profiles.x]\nmodel = \"y\"\n"
	cases := []struct{ name, entry string }{
		{"inline table", "nova = { command = \"/old/bin/novactl\", args = [\"mcp\"] } # memory\n"},
		{"quoted key", "\"nova\" = { command = \"/old/bin/novactl\", args = [\"mcp\"] }\n"},
		{"dotted keys", "nova.command = \"/old/bin/novactl\"\nnova.args = [\"mcp\"]\nnova.env = { NOVA_HOME = \"/old\" }\n"},
	}
	a := agent(t, "codex")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, "config.toml", head+c.entry+tail)
			un, err := PlanUninstall(a, path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := head + tail; un.Action != Remove || string(un.After) != want {
				t.Errorf("uninstall would write (%s):\n%q\nwant:\n%q", un.Action, un.After, want)
			}
			in, err := PlanInstall(a, path, testEntry, nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := head + tail + "\n" + renderTOMLBlock(a.Keys, ServerName, testEntry, "\n"); in.Action != Update || string(in.After) != want {
				t.Errorf("update would write (%s):\n%q\nwant:\n%q", in.Action, in.After, want)
			}
		})
	}
	// A value over several lines is not cut in half: uninstall refuses.
	multi := "[mcp_servers]\nnova.command = \"/old/bin/novactl\"\nnova.args = [\n  \"mcp\",\n]\n"
	if _, err := PlanUninstall(a, writeFile(t, "config.toml", multi), nil); err == nil || !strings.Contains(err.Error(), "by hand") {
		t.Errorf("uninstall of an entry over several lines: %v, want a refusal", err)
	}
	// The same key in another table is not the entry.
	const other = "\n[mcp_servers.time]\ncommand = \"uvx\"\nnova = \"x\"\n"
	src := "[mcp_servers]\nnova = { command = \"/old/bin/novactl\", args = [\"mcp\"] }\n" + other
	un, err := PlanUninstall(a, writeFile(t, "config.toml", src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "[mcp_servers]\n" + other; string(un.After) != want {
		t.Errorf("uninstall would write:\n%q\nwant:\n%q", un.After, want)
	}
}
