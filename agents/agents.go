// Package agents knows the coding agents Nova serves (Claude Code, Codex,
// Gemini CLI, OpenClaw, Hermes, Cursor, Windsurf) and where each keeps
// its files for one user: its own directory, the configuration file that
// lists its MCP servers, the directories it loads skills from, and the
// folder of sessions and memory that Nova indexes (none for Windsurf,
// which Nova serves through MCP only); and where Aider, which keeps
// its chat history in each repository, has left one. Locations are
// resolved from an environment (HOME, CLAUDE_CONFIG_DIR, CODEX_HOME,
// GEMINI_CLI_HOME, HERMES_HOME, OPENCLAW_HOME, OPENCLAW_STATE_DIR,
// OPENCLAW_CONFIG_PATH),
// never from the process' own, so that skill and MCP installs agree and
// tests stay out of the user's home.
package agents

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nova-recall/nova/paths"
)

// Agent IDs, the values of --agent.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
	Gemini     = "gemini"
	OpenClaw   = "openclaw"
	Hermes     = "hermes"
	Cursor     = "cursor"
	Windsurf   = "windsurf"
	// Aider is not one of All: it keeps no home, MCP configuration or
	// skills of its own, only a chat history in each repository it ran
	// in (AiderFolders). It is the kind of an aider source, and the agent
	// of what that source reads.
	Aider = "aider"
)

// Agent is one coding agent.
type Agent struct {
	// ID is the --agent value.
	ID string
	// Name is the agent's display name.
	Name string
	// homes are the files or directories whose existence means the agent
	// is installed; the first is the one named in messages.
	homes func(e env) []string
	// mcpConfig is the user-level file that lists MCP servers.
	mcpConfig func(e env) string
	// skillRoots are the user-level skills roots, the one Nova writes
	// first; nil for an agent Nova writes no skill for.
	skillRoots func(e env) []string
	// memory is the folder Nova indexes as a source of the kind named by
	// the agent's ID, and signs are entries inside it ("." for the folder
	// itself) of which one exists once the agent has kept something
	// there: an installed agent that never ran has nothing to index.
	// scripts/run.sh looks for the same entries (and, deeper, for the
	// session files in them) to tell which home DIR= names. nil for an
	// agent whose memory Nova does not read.
	memory func(e env) (dir string, signs []string)
	// mcpClients are the names the agent gives itself in MCP
	// initialize's clientInfo (lower case); a name that goes on with
	// "-" after one of them is the agent's too (Gemini CLI adds the
	// server's name to its own).
	mcpClients []string
	// loadsSkills are the user-level roots an agent Nova writes no skill
	// for loads skills from all the same; nil when it loads none.
	loadsSkills func(e env) []string
}

// env resolves locations inside one user's environment.
type env []string

func (e env) home(parts ...string) string {
	return filepath.Join(append([]string{paths.UserHome(e)}, parts...)...)
}

// dir returns the variable key when it names a directory (an absolute
// path, or one under ~), else def: a relative path would depend on the
// directory novactl happens to run in.
func (e env) dir(key, def string) string {
	if v := paths.ExpandHome(paths.Lookup(e, key), e); filepath.IsAbs(v) {
		return v
	}
	return def
}

// claudeDir is Claude Code's directory: CLAUDE_CONFIG_DIR when set, which
// moves both ~/.claude and ~/.claude.json into it, else ~/.claude.
func (e env) claudeDir() string { return e.dir("CLAUDE_CONFIG_DIR", e.home(".claude")) }

// claudeJSON is the file that holds Claude Code's user-scope MCP servers:
// ~/.claude.json, or .claude.json inside CLAUDE_CONFIG_DIR when that is
// set, even to ~/.claude itself (Claude Code then no longer reads
// ~/.claude.json).
func (e env) claudeJSON() string {
	if d := e.dir("CLAUDE_CONFIG_DIR", ""); d != "" {
		return filepath.Join(d, ".claude.json")
	}
	return e.home(".claude.json")
}

func (e env) codexHome() string  { return e.dir("CODEX_HOME", e.home(".codex")) }
func (e env) hermesHome() string { return e.dir("HERMES_HOME", e.home(".hermes")) }

// openclaw is the environment OpenClaw resolves its paths in:
// OPENCLAW_HOME, when set, replaces the home directory in all of them,
// and ~ in its other variables means that home.
func (e env) openclaw() env {
	if h := e.dir("OPENCLAW_HOME", ""); h != "" {
		return append(slices.Clip(e), "HOME="+h)
	}
	return e
}

// gemini is the environment Gemini CLI resolves its paths in:
// GEMINI_CLI_HOME, when set, replaces the home directory in all of them
// (its homedir helper, which every path of its goes through), so that
// settings are read from $GEMINI_CLI_HOME/.gemini and user skills from
// $GEMINI_CLI_HOME/.agents/skills, never from ~/.gemini.
func (e env) gemini() env {
	if h := e.dir("GEMINI_CLI_HOME", ""); h != "" {
		return append(slices.Clip(e), "HOME="+h)
	}
	return e
}

// geminiDir is Gemini CLI's own directory, .gemini in its home.
func (e env) geminiDir(parts ...string) string {
	return e.gemini().home(append([]string{".gemini"}, parts...)...)
}

// openclawState is OpenClaw's state directory: OPENCLAW_STATE_DIR, else
// ~/.openclaw.
func (e env) openclawState() string {
	o := e.openclaw()
	return o.dir("OPENCLAW_STATE_DIR", o.home(".openclaw"))
}

// openclawConfig is OpenClaw's configuration file: OPENCLAW_CONFIG_PATH,
// else openclaw.json in the state directory.
func (e env) openclawConfig() string {
	return e.openclaw().dir("OPENCLAW_CONFIG_PATH", filepath.Join(e.openclawState(), "openclaw.json"))
}

// sharedSkills is ~/.agents/skills, the user skills root that Codex,
// Gemini CLI and OpenClaw all read: one file there reaches all three.
func (e env) sharedSkills() string { return e.home(".agents", "skills") }

var all = []Agent{
	{
		ID: ClaudeCode, Name: "Claude Code",
		mcpClients: []string{"claude-code"},
		homes:      func(e env) []string { return []string{e.claudeDir(), e.claudeJSON()} },
		// User scope: the top-level mcpServers of ~/.claude.json.
		mcpConfig:  func(e env) string { return e.claudeJSON() },
		skillRoots: func(e env) []string { return []string{filepath.Join(e.claudeDir(), "skills")} },
		// One folder of transcripts per project.
		memory: func(e env) (string, []string) { return filepath.Join(e.claudeDir(), "projects"), []string{"."} },
	},
	{
		ID: Codex, Name: "Codex",
		mcpClients: []string{"codex-mcp-client", "codex"},
		homes:      func(e env) []string { return []string{e.codexHome()} },
		mcpConfig:  func(e env) string { return filepath.Join(e.codexHome(), "config.toml") },
		// $CODEX_HOME/skills is deprecated but still scanned.
		skillRoots: func(e env) []string { return []string{e.sharedSkills(), filepath.Join(e.codexHome(), "skills")} },
		// The home: rollouts in sessions/, one folder a day, and those of
		// archived threads in archived_sessions/ (a thread archived moves
		// there, inside the same source).
		memory: func(e env) (string, []string) { return e.codexHome(), []string{"sessions", "archived_sessions"} },
	},
	{
		ID: Gemini, Name: "Gemini CLI",
		mcpClients: []string{"gemini-cli-mcp-client", "gemini-cli"},
		homes:      func(e env) []string { return []string{e.geminiDir()} },
		mcpConfig:  func(e env) string { return e.geminiDir("settings.json") },
		skillRoots: func(e env) []string { return []string{e.gemini().sharedSkills(), e.geminiDir("skills")} },
		// The home: chat recordings under tmp/<project>/chats, and
		// GEMINI.md, where save_memory writes.
		memory: func(e env) (string, []string) { return e.geminiDir(), []string{"tmp", "GEMINI.md"} },
	},
	{
		ID: OpenClaw, Name: "OpenClaw",
		mcpClients: []string{"openclaw"},
		homes:      func(e env) []string { return []string{e.openclawState()} },
		mcpConfig:  func(e env) string { return e.openclawConfig() },
		skillRoots: func(e env) []string {
			return []string{e.openclaw().sharedSkills(), filepath.Join(e.openclawState(), "skills")}
		},
		// The state directory: agents/<id>/sessions, and the workspace
		// memory.
		memory: func(e env) (string, []string) { return e.openclawState(), []string{"agents"} },
	},
	{
		ID: Hermes, Name: "Hermes",
		mcpClients: []string{"hermes"},
		homes:      func(e env) []string { return []string{e.hermesHome()} },
		mcpConfig:  func(e env) string { return filepath.Join(e.hermesHome(), "config.yaml") },
		skillRoots: func(e env) []string { return []string{filepath.Join(e.hermesHome(), "skills")} },
		// The home: state.db, memories/, and each profiles/<name>/.
		memory: func(e env) (string, []string) { return e.hermesHome(), []string{"state.db", "memories", "profiles"} },
	},
	{
		// Cursor, the editor, whose agent is an MCP client: ~/.cursor holds
		// its user-level mcp.json (mcpServers of command, args, env). Nova
		// writes no skill for it: it reaches Cursor's agent through MCP.
		ID: Cursor, Name: "Cursor",
		mcpClients: []string{"cursor-vscode", "cursor"},
		homes:      func(e env) []string { return []string{e.home(".cursor")} },
		mcpConfig:  func(e env) string { return e.home(".cursor", "mcp.json") },
		// As of 2026-12 (cursor.com/docs/skills), Cursor loads
		// ~/.agents/skills and ~/.cursor/skills, and "for compatibility"
		// ~/.claude/skills and ~/.codex/skills: those very paths, not
		// CLAUDE_CONFIG_DIR's or CODEX_HOME's. So it sees the skill Nova
		// writes for Claude Code and the one for Codex.
		loadsSkills: func(e env) []string {
			return []string{e.home(".cursor", "skills"), e.sharedSkills(), e.home(".claude", "skills"), e.home(".codex", "skills")}
		},
		// The agent's transcripts (the editor's and the cursor-agent
		// CLI's): projects/<workspace>/agent-transcripts. The chats of
		// Cursor's older Composer, in the editor's SQLite database
		// (state.vscdb), are not read.
		memory: func(e env) (string, []string) { return e.home(".cursor", "projects"), []string{"."} },
	},
	{
		// Windsurf, the editor, whose Cascade agent is an MCP client: its
		// ~/.codeium/windsurf holds mcp_config.json, in Claude Desktop's
		// shape (mcpServers). ~/.codeium alone is the Codeium plugin of
		// another editor, which reads ~/.codeium/mcp_config.json. No
		// memory Nova reads, and, like Cursor, no skill.
		ID: Windsurf, Name: "Windsurf",
		mcpClients: []string{"windsurf"},
		homes:      func(e env) []string { return []string{e.home(".codeium", "windsurf")} },
		mcpConfig:  func(e env) string { return e.home(".codeium", "windsurf", "mcp_config.json") },
	},
}

// All returns every agent, in display order.
func All() []Agent { return slices.Clone(all) }

// IDs returns every agent's ID, in display order.
func IDs() []string {
	ids := make([]string, len(all))
	for i, a := range all {
		ids[i] = a.ID
	}
	return ids
}

// MemoryKinds are the agents whose memory Nova reads, in display order:
// each Indexed agent's ID, then Aider. They are the source kinds of the
// agents' readers, and the values a search's agent filter takes for what
// those readers indexed.
func MemoryKinds() []string {
	var out []string
	for _, a := range all {
		if a.Indexed() {
			out = append(out, a.ID)
		}
	}
	return append(out, Aider)
}

// Lookup returns the agent with this ID.
func Lookup(id string) (Agent, bool) {
	i := slices.IndexFunc(all, func(a Agent) bool { return a.ID == id })
	if i < 0 {
		return Agent{}, false
	}
	return all[i], true
}

// FromMCPClient returns the agent an MCP client is, from the name (or
// title) it gave in initialize's clientInfo: "claude-code" is Claude
// Code, "codex-mcp-client" Codex, "cursor-vscode" Cursor. Agents name
// themselves there as their own code chooses, not as Nova's IDs, so each
// agent lists its names; the agent's ID and display name count too.
func FromMCPClient(name, title string) (Agent, bool) {
	for _, n := range []string{name, title} {
		n = strings.ToLower(strings.TrimSpace(n))
		if n == "" {
			continue
		}
		for _, a := range all {
			for _, c := range append([]string{a.ID, strings.ToLower(a.Name)}, a.mcpClients...) {
				if n == c || strings.HasPrefix(n, c+"-") {
					return a, true
				}
			}
		}
	}
	return Agent{}, false
}

// Select parses an --agent value: "all" (or "") for every agent, or a
// comma-separated list of IDs, each kept once in the order given.
// explicit is false for "all", which callers narrow to the agents
// installed here.
func Select(spec string) (selected []Agent, explicit bool, err error) {
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == "all" {
		return All(), false, nil
	}
	for _, id := range strings.Split(spec, ",") {
		a, ok := Lookup(strings.TrimSpace(id))
		if !ok {
			return nil, false, fmt.Errorf("unknown agent %q (want %s or all)", strings.TrimSpace(id), strings.Join(IDs(), ", "))
		}
		if !slices.ContainsFunc(selected, func(b Agent) bool { return b.ID == a.ID }) {
			selected = append(selected, a)
		}
	}
	return selected, true, nil
}

// Home is the agent's own directory (or file) for the user environ
// describes, the one a message names when the agent is not found.
func (a Agent) Home(environ []string) string { return a.homes(env(environ))[0] }

// Installed reports whether the agent seems installed for this user: one
// of its own files or directories exists.
func (a Agent) Installed(environ []string) bool {
	for _, h := range a.homes(env(environ)) {
		if _, err := os.Lstat(h); err == nil {
			return true
		}
	}
	return false
}

// MCPConfig is the user-level configuration file that lists the agent's
// MCP servers.
func (a Agent) MCPConfig(environ []string) string { return a.mcpConfig(env(environ)) }

// SkillRoots are the user-level directories the agent loads skills from,
// the one Nova installs into first; a skill in a later one is a duplicate
// the agent would list twice. None for an agent Nova writes no skill for
// (Cursor).
func (a Agent) SkillRoots(environ []string) []string {
	if a.skillRoots == nil {
		return nil
	}
	return a.skillRoots(env(environ))
}

// LoadsSkillsFrom are the user-level roots an agent Nova writes no skill
// for loads skills from anyway (Cursor reads Claude Code's and Codex's):
// where it may find a skill Nova wrote for another agent.
func (a Agent) LoadsSkillsFrom(environ []string) []string {
	if a.loadsSkills == nil {
		return nil
	}
	return a.loadsSkills(env(environ))
}

// HasSkillRoots reports whether Nova writes a skill for the agent: false
// for Cursor and Windsurf, which Nova reaches through MCP only.
func (a Agent) HasSkillRoots() bool { return a.skillRoots != nil }

// Indexed reports whether Nova reads what the agent keeps (a source whose
// kind is the agent's ID): false for Windsurf. config init proposes,
// and doctor expects, a source only for an indexed agent.
func (a Agent) Indexed() bool { return a.memory != nil }

// Memory is the folder Nova indexes for the agent (a source whose kind
// is the agent's ID), and whether it holds what the agent keeps there:
// the folder exists and so does one of the entries that the agent
// creates in it when it first keeps a session or a memory. It is ("",
// false) for an agent that is not Indexed.
func (a Agent) Memory(environ []string) (dir string, found bool) {
	if !a.Indexed() {
		return "", false
	}
	dir, signs := a.memory(env(environ))
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return dir, false
	}
	for _, s := range signs {
		if _, err := os.Stat(filepath.Join(dir, s)); err == nil {
			return dir, true
		}
	}
	return dir, false
}

// MemoryFolders are the entries of the agent's memory folder (Memory)
// that hold what it keeps, of those that exist: Codex's sessions/ and
// archived_sessions/, Claude Code's projects folder itself. A source
// that reads the memory folder reads them all.
func (a Agent) MemoryFolders(environ []string) []string {
	if !a.Indexed() {
		return nil
	}
	dir, signs := a.memory(env(environ))
	var out []string
	for _, s := range signs {
		if p := filepath.Join(dir, s); exists(p) {
			out = append(out, p)
		}
	}
	return out
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// SourceName is the name config init gives the source of the agent's
// memory: the agent's ID, but "claude" for Claude Code, as in README.
func (a Agent) SourceName() string {
	if a.ID == ClaudeCode {
		return "claude"
	}
	return a.ID
}

// codeFolders are the folders people commonly keep their repositories
// in, directly under the home directory.
var codeFolders = []string{"src", "code", "Code", "dev", "Developer", "projects", "Projects", "repos", "git", "work", "workspace", "github"}

// aiderHistory is the chat history Aider writes at the root of the
// repository it runs in.
const aiderHistory = ".aider.chat.history.md"

// AiderFolders are the folders of repositories under the home directory
// (~/src, ~/code, ~/Developer, ...) in which at least one repository
// holds an Aider chat history at its root: the paths of `kind: aider`
// sources. Aider keeps no history of its own, only one in each
// repository it ran in, so these common places are all that can be
// looked at; one level of repositories each, so the look stays cheap.
func AiderFolders(environ []string) []string {
	e := env(environ)
	var out []string
	for _, name := range codeFolders {
		dir := e.home(name)
		histories, _ := filepath.Glob(filepath.Join(dir, "*", aiderHistory))
		if len(histories) > 0 && !slices.ContainsFunc(out, func(o string) bool { return sameDir(o, dir) }) {
			out = append(out, dir)
		}
	}
	return out
}

// AiderPlaces names the folders AiderFolders looks in, as a message
// writes them ("~/src, ~/code, ..."): where a person who uses Aider
// learns it was looked for when none holds a history.
func AiderPlaces() string {
	places := make([]string, len(codeFolders))
	for i, name := range codeFolders {
		places[i] = "~/" + name
	}
	return strings.Join(places, ", ")
}

// sameDir reports whether a and b are one directory (Code and code on a
// case-insensitive volume, as macOS's usually is).
func sameDir(a, b string) bool {
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}
