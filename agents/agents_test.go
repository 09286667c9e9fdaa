package agents

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
)

func TestLocations(t *testing.T) {
	type where struct {
		home, mcp string
		skills    []string
	}
	defaults := map[string]where{
		ClaudeCode: {"/home/ada/.claude", "/home/ada/.claude.json", []string{"/home/ada/.claude/skills"}},
		Codex:      {"/home/ada/.codex", "/home/ada/.codex/config.toml", []string{"/home/ada/.agents/skills", "/home/ada/.codex/skills"}},
		Gemini:     {"/home/ada/.gemini", "/home/ada/.gemini/settings.json", []string{"/home/ada/.agents/skills", "/home/ada/.gemini/skills"}},
		OpenClaw:   {"/home/ada/.openclaw", "/home/ada/.openclaw/openclaw.json", []string{"/home/ada/.agents/skills", "/home/ada/.openclaw/skills"}},
		Hermes:     {"/home/ada/.hermes", "/home/ada/.hermes/config.yaml", []string{"/home/ada/.hermes/skills"}},
		// Cursor: ~/.cursor/mcp.json, its user-level MCP servers; no
		// skills root of Nova's.
		Cursor: {"/home/ada/.cursor", "/home/ada/.cursor/mcp.json", nil},
		// Windsurf: its editor's ~/.codeium/windsurf, not ~/.codeium (the
		// Codeium plugins of other editors).
		Windsurf: {"/home/ada/.codeium/windsurf", "/home/ada/.codeium/windsurf/mcp_config.json", nil},
	}
	overridden := map[string]where{
		// CLAUDE_CONFIG_DIR moves ~/.claude and ~/.claude.json into it.
		ClaudeCode: {"/home/ada/.config/claude", "/home/ada/.config/claude/.claude.json", []string{"/home/ada/.config/claude/skills"}},
		Codex:      {"/srv/codex", "/srv/codex/config.toml", []string{"/home/ada/.agents/skills", "/srv/codex/skills"}},
		Gemini:     defaults[Gemini],
		OpenClaw:   {"/home/ada/.openclaw", "/home/ada/oc.json", defaults[OpenClaw].skills},
		Hermes:     defaults[Hermes], // a relative HERMES_HOME is ignored
		Cursor:     defaults[Cursor],
		Windsurf:   defaults[Windsurf],
	}
	for _, tt := range []struct {
		environ []string
		want    map[string]where
	}{
		{[]string{"HOME=/home/ada"}, defaults},
		// Claude Code reads .claude.json inside CLAUDE_CONFIG_DIR even when
		// that is ~/.claude.
		{[]string{"HOME=/home/ada", "CLAUDE_CONFIG_DIR=/home/ada/.claude"}, map[string]where{
			ClaudeCode: {"/home/ada/.claude", "/home/ada/.claude/.claude.json", []string{"/home/ada/.claude/skills"}},
			Codex:      defaults[Codex], Gemini: defaults[Gemini], OpenClaw: defaults[OpenClaw], Hermes: defaults[Hermes],
			Cursor: defaults[Cursor], Windsurf: defaults[Windsurf],
		}},
		// OPENCLAW_STATE_DIR moves ~/.openclaw; OPENCLAW_HOME replaces the
		// home directory in all of OpenClaw's paths, ~ in its variables too.
		{[]string{"HOME=/home/ada", "OPENCLAW_STATE_DIR=/srv/claw"}, map[string]where{
			ClaudeCode: defaults[ClaudeCode], Codex: defaults[Codex], Gemini: defaults[Gemini], Hermes: defaults[Hermes], Cursor: defaults[Cursor], Windsurf: defaults[Windsurf],
			OpenClaw: {"/srv/claw", "/srv/claw/openclaw.json", []string{"/home/ada/.agents/skills", "/srv/claw/skills"}},
		}},
		{[]string{"HOME=/home/ada", "OPENCLAW_HOME=/srv/bot"}, map[string]where{
			ClaudeCode: defaults[ClaudeCode], Codex: defaults[Codex], Gemini: defaults[Gemini], Hermes: defaults[Hermes], Cursor: defaults[Cursor], Windsurf: defaults[Windsurf],
			OpenClaw: {"/srv/bot/.openclaw", "/srv/bot/.openclaw/openclaw.json", []string{"/srv/bot/.agents/skills", "/srv/bot/.openclaw/skills"}},
		}},
		{[]string{"HOME=/home/ada", "OPENCLAW_HOME=/srv/bot", "OPENCLAW_STATE_DIR=~/state", "OPENCLAW_CONFIG_PATH=~/oc.json"}, map[string]where{
			ClaudeCode: defaults[ClaudeCode], Codex: defaults[Codex], Gemini: defaults[Gemini], Hermes: defaults[Hermes], Cursor: defaults[Cursor], Windsurf: defaults[Windsurf],
			OpenClaw: {"/srv/bot/state", "/srv/bot/oc.json", []string{"/srv/bot/.agents/skills", "/srv/bot/state/skills"}},
		}},
		// GEMINI_CLI_HOME replaces the home directory in all of Gemini
		// CLI's paths: its .gemini and its .agents/skills.
		{[]string{"HOME=/home/ada", "GEMINI_CLI_HOME=/srv/gem"}, map[string]where{
			ClaudeCode: defaults[ClaudeCode], Codex: defaults[Codex], OpenClaw: defaults[OpenClaw], Hermes: defaults[Hermes], Cursor: defaults[Cursor], Windsurf: defaults[Windsurf],
			Gemini: {"/srv/gem/.gemini", "/srv/gem/.gemini/settings.json", []string{"/srv/gem/.agents/skills", "/srv/gem/.gemini/skills"}},
		}},
		{[]string{"HOME=/home/ada", "CLAUDE_CONFIG_DIR=~/.config/claude", "CODEX_HOME=/srv/codex", "OPENCLAW_CONFIG_PATH=~/oc.json", "HERMES_HOME=relative/hermes"}, overridden},
	} {
		if ids := IDs(); !slices.Equal(ids, []string{ClaudeCode, Codex, Gemini, OpenClaw, Hermes, Cursor, Windsurf}) {
			t.Fatalf("IDs %v", ids)
		}
		for _, a := range All() {
			w := tt.want[a.ID]
			if got := a.Home(tt.environ); got != w.home {
				t.Errorf("%v %s home %s, want %s", tt.environ, a.ID, got, w.home)
			}
			if got := a.MCPConfig(tt.environ); got != w.mcp {
				t.Errorf("%v %s MCP config %s, want %s", tt.environ, a.ID, got, w.mcp)
			}
			if got := a.SkillRoots(tt.environ); !slices.Equal(got, w.skills) {
				t.Errorf("%v %s skill roots %v, want %v", tt.environ, a.ID, got, w.skills)
			}
		}
	}
}

func TestInstalled(t *testing.T) {
	home := t.TempDir()
	environ := []string{"HOME=" + home}
	claude, _ := Lookup(ClaudeCode)
	codex, _ := Lookup(Codex)
	if claude.Installed(environ) || codex.Installed(environ) {
		t.Fatal("installed in an empty home")
	}
	// Claude Code counts as installed with only ~/.claude.json.
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !claude.Installed(environ) {
		t.Error("~/.claude.json does not show Claude Code")
	}
	// Codex is found where CODEX_HOME points, not in ~/.codex.
	custom := filepath.Join(home, "elsewhere")
	if err := os.Mkdir(custom, 0o700); err != nil {
		t.Fatal(err)
	}
	if codex.Installed(environ) || !codex.Installed(append(environ, "CODEX_HOME="+custom)) {
		t.Error("Codex detection does not follow CODEX_HOME")
	}
	// Claude Code is found where CLAUDE_CONFIG_DIR points, even when
	// ~/.claude.json is not there.
	if err := os.Remove(filepath.Join(home, ".claude.json")); err != nil {
		t.Fatal(err)
	}
	if claude.Installed(environ) || !claude.Installed(append(environ, "CLAUDE_CONFIG_DIR="+custom)) {
		t.Error("Claude Code detection does not follow CLAUDE_CONFIG_DIR")
	}
	// Cursor is installed once ~/.cursor exists, before any mcp.json.
	cursor, ok := Lookup(Cursor)
	if !ok || cursor.Installed(environ) {
		t.Fatalf("cursor: known %v, installed in an empty home", ok)
	}
	if err := os.Mkdir(filepath.Join(home, ".cursor"), 0o700); err != nil {
		t.Fatal(err)
	}
	if !cursor.Installed(environ) {
		t.Error("~/.cursor does not show Cursor")
	}
	// Windsurf is installed once ~/.codeium/windsurf exists; ~/.codeium
	// alone is the Codeium plugin of another editor.
	windsurf, ok := Lookup(Windsurf)
	if err := os.Mkdir(filepath.Join(home, ".codeium"), 0o700); err != nil || !ok {
		t.Fatal(err, ok)
	}
	if windsurf.Installed(environ) {
		t.Error("~/.codeium alone shows Windsurf")
	}
	if err := os.Mkdir(filepath.Join(home, ".codeium", "windsurf"), 0o700); err != nil {
		t.Fatal(err)
	}
	if !windsurf.Installed(environ) {
		t.Error("~/.codeium/windsurf does not show Windsurf")
	}
}

func TestSelect(t *testing.T) {
	for spec, want := range map[string][]string{
		"":                     IDs(),
		"all":                  IDs(),
		"hermes, codex,hermes": {Hermes, Codex},
	} {
		got, explicit, err := Select(spec)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, a := range got {
			ids = append(ids, a.ID)
		}
		if !slices.Equal(ids, want) || explicit != (spec != "" && spec != "all") {
			t.Errorf("Select(%q) = %v explicit %v", spec, ids, explicit)
		}
	}
	if _, _, err := Select("codex,vim"); err == nil || !strings.Contains(err.Error(), `unknown agent "vim"`) {
		t.Errorf("Select with an unknown agent: %v", err)
	}
}

// TestMemory: an agent's memory folder is found where its variables put
// it, and only once it holds what the agent keeps there; the agent's
// home alone (installed, never run) is not memory.
func TestMemory(t *testing.T) {
	home := t.TempDir()
	environ := []string{"HOME=" + home}
	mk := func(parts ...string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(append([]string{home}, parts...)...), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	touch := func(parts ...string) {
		t.Helper()
		mk(parts[:len(parts)-1]...)
		if err := os.WriteFile(filepath.Join(append([]string{home}, parts...)...), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	found := func(id string, environ []string) (string, bool) {
		a, _ := Lookup(id)
		return a.Memory(environ)
	}
	// Every agent's home exists, and none has kept anything yet.
	mk(".claude")
	mk(".codex")
	mk(".gemini")
	touch(".gemini", "settings.json")
	mk(".openclaw")
	touch(".openclaw", "openclaw.json")
	mk(".hermes")
	touch(".hermes", "config.yaml")
	touch(".cursor", "mcp.json")
	touch(".codeium", "windsurf", "mcp_config.json")
	for _, id := range IDs() {
		if dir, ok := found(id, environ); ok {
			t.Errorf("%s: memory found in %s, a home that holds none", id, dir)
		}
	}
	mk(".claude", "projects", "-home-ada-src")
	mk(".codex", "sessions", "2026", "12", "03")
	mk(".gemini", "tmp", "abc", "chats")
	mk(".openclaw", "agents", "main", "sessions")
	touch(".hermes", "state.db")
	want := map[string]string{
		ClaudeCode: filepath.Join(home, ".claude", "projects"),
		Codex:      filepath.Join(home, ".codex"),
		Gemini:     filepath.Join(home, ".gemini"),
		OpenClaw:   filepath.Join(home, ".openclaw"),
		Hermes:     filepath.Join(home, ".hermes"),
	}
	for _, id := range IDs() {
		if id == Cursor || id == Windsurf {
			continue
		}
		if dir, ok := found(id, environ); !ok || dir != want[id] {
			t.Errorf("%s: memory %s (found %v), want %s", id, dir, ok, want[id])
		}
	}
	// Cursor's agent writes its transcripts under ~/.cursor/projects (its
	// chats in the editor's SQLite database are not read): memory once
	// that folder exists.
	mk(".cursor", "projects", "home-ada-src", "agent-transcripts")
	cursor, _ := Lookup(Cursor)
	if dir, ok := found(Cursor, environ); !ok || dir != filepath.Join(home, ".cursor", "projects") || !cursor.Indexed() ||
		!slices.Equal(cursor.MemoryFolders(environ), []string{filepath.Join(home, ".cursor", "projects")}) || cursor.SourceName() != "cursor" {
		t.Errorf("cursor: memory %q (found %v), indexed %v, folders %v", dir, ok, cursor.Indexed(), cursor.MemoryFolders(environ))
	}
	for _, id := range IDs() {
		if a, _ := Lookup(id); a.Indexed() != (id != Windsurf) {
			t.Errorf("%s: indexed %v", id, a.Indexed())
		}
	}
	// Codex's home holds the rollouts of its threads in sessions/, and of
	// the threads archived in archived_sessions/: one archived thread is
	// memory too.
	archived := t.TempDir()
	if err := os.MkdirAll(filepath.Join(archived, ".codex", "archived_sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	if dir, ok := found(Codex, []string{"HOME=" + archived}); !ok || dir != filepath.Join(archived, ".codex") {
		t.Errorf("codex with archived sessions only: memory %s (found %v)", dir, ok)
	}
	// Each follows its variables, and is not found when they point to an
	// empty folder.
	other := filepath.Join(home, "other")
	mk("other")
	for id, key := range map[string]string{ClaudeCode: "CLAUDE_CONFIG_DIR", Codex: "CODEX_HOME", OpenClaw: "OPENCLAW_STATE_DIR", Hermes: "HERMES_HOME"} {
		if dir, ok := found(id, append(slices.Clone(environ), key+"="+other)); ok || !strings.HasPrefix(dir, other) {
			t.Errorf("%s with %s set: memory %s (found %v), want not found under %s", id, key, dir, ok, other)
		}
	}
	// A Gemini home with only GEMINI.md (memories, no chats yet) counts.
	if err := os.RemoveAll(filepath.Join(home, ".gemini", "tmp")); err != nil {
		t.Fatal(err)
	}
	touch(".gemini", "GEMINI.md")
	if _, ok := found(Gemini, environ); !ok {
		t.Error("a Gemini home with GEMINI.md is not found")
	}
}

// TestAiderFolders: a folder of repositories under the home directory is
// proposed when one of its repositories holds an Aider chat history; one
// without, or a history deeper in a repository, is not.
func TestAiderFolders(t *testing.T) {
	home := t.TempDir()
	write := func(rel string) {
		p := filepath.Join(home, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# aider chat started at 2026-05-11 10:02:33\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("src/billing/.aider.chat.history.md")
	write("src/shop/README.md")
	write("projects/site/README.md")
	write("work/deep/sub/.aider.chat.history.md")
	write("Developer/app/.aider.chat.history.md")
	got := AiderFolders([]string{"HOME=" + home})
	want := []string{filepath.Join(home, "src"), filepath.Join(home, "Developer")}
	if !slices.Equal(got, want) {
		t.Errorf("AiderFolders = %v, want %v", got, want)
	}
	if got := AiderFolders([]string{"HOME=" + t.TempDir()}); len(got) != 0 {
		t.Errorf("in an empty home: %v", got)
	}
}

// TestMemoryKinds: the agents whose memory Nova reads are exactly the
// source kinds of config that are an agent's (all but jsonl, markdown
// and chat-export, whose records are of the chat service that wrote each
// export, chatgpt or claude.ai, and which has no home for config init to
// find): a reader added without the agents table knowing it would
// go unnamed in config init's "Not found", the MCP tool's agent filter
// and novactl search --agent.
func TestMemoryKinds(t *testing.T) {
	var want []string
	for _, k := range config.Kinds {
		if k != config.KindJSONL && k != config.KindMarkdown && k != config.KindChatExport {
			want = append(want, k)
		}
	}
	got := MemoryKinds()
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("MemoryKinds() = %v, want the agent kinds of config.Kinds: %v", got, want)
	}
}
