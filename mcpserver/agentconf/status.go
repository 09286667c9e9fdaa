package agentconf

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nova-recall/nova/agents"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/shellword"
)

// State is what an agent's configuration file holds of Nova's entry.
type State string

// States of Inspect.
const (
	// StateAbsent: no "nova" entry (or no file).
	StateAbsent State = "absent"
	// StateCurrent: the entry install would write.
	StateCurrent State = "current"
	// StateStale: an entry novactl wrote, with another command, arguments
	// or environment (another novactl, another NOVA_HOME): install updates
	// it.
	StateStale State = "stale"
	// StateForeign: a "nova" entry novactl did not write; install refuses
	// to touch it.
	StateForeign State = "foreign"
)

// Status is what Inspect found in one agent's configuration file.
type Status struct {
	// State classifies the user-level "nova" entry.
	State State `json:"state"`
	// Command is the entry's command, "" when there is none.
	Command string `json:"command,omitempty"`
	// NovaHome is the NOVA_HOME the entry sets, "" when it sets none.
	NovaHome string `json:"novaHome,omitempty"`
	// Differs says, one item each, how a stale or foreign entry differs
	// from the one install writes.
	Differs []string `json:"differs,omitempty"`
	// Note says why the agent will not start a current entry (see
	// PlanInstall), "" when nothing keeps it out.
	Note string `json:"note,omitempty"`
	// Shadows are Claude Code's per-project "nova" entries that differ
	// from the one install writes (see ProjectEntry).
	Shadows []ProjectEntry `json:"projectEntries,omitempty"`
}

// ProjectEntry is a "nova" MCP server that Claude Code keeps for one
// project in its user file (projects["/abs/path"].mcpServers.nova, what
// `claude mcp add` writes by default: the scope Claude Code calls local).
// In that project Claude Code starts it instead of the user-level entry
// that novactl mcp install writes, so a stale one (an old novactl path, an
// old NOVA_HOME) silently wins there. Nova never writes nor removes these:
// they are the person's (see RemoveHint).
//
// Claude Code also reads a project's own .mcp.json (the scope it calls
// project, shared with whoever clones the repository), Cursor its
// .cursor/mcp.json, Gemini CLI its .gemini/settings.json and Codex its
// .codex/config.toml: InspectDir reports a "nova" entry there as a
// ProjectEntry of that scope.
type ProjectEntry struct {
	// Project is the project's absolute path, as Claude Code keys it.
	Project string `json:"project"`
	// Scope is Claude Code's name for where the entry is: ScopeLocal
	// (~/.claude.json) or ScopeProject (File, the project's .mcp.json).
	Scope string `json:"scope"`
	File  string `json:"file,omitempty"`
	// Command and NovaHome are the entry's.
	Command  string `json:"command"`
	NovaHome string `json:"novaHome,omitempty"`
	// Differs says how it differs from the entry install writes (nil
	// from ProjectEntries, which compares with nothing).
	Differs []string `json:"differs"`
	// Remove is the command that removes it (see RemoveHint).
	Remove string `json:"remove"`
}

// Claude Code's scopes of a ProjectEntry (claude mcp add -s).
const (
	ScopeLocal   = "local"
	ScopeProject = "project"
)

// ProjectMCPFile is the name of a project's own MCP configuration, which
// Claude Code reads in the directory it starts in (only there, not in
// the directories above).
const ProjectMCPFile = ".mcp.json"

// RemoveHint is the command that removes p, run by the person: Claude
// Code's own, in the project's directory.
func (p ProjectEntry) RemoveHint() string {
	scope := p.Scope
	if scope == "" {
		scope = ScopeLocal
	}
	return fmt.Sprintf("cd %s && claude mcp remove %s -s %s", shellword.Quote(p.Project), ServerName, scope)
}

// Inspect reports what agent a's file at path holds of Nova's entry,
// compared with e, the entry install would write; rec is the install
// record for path, or nil. It never writes. A file that is a symbolic
// link is read through, as install edits it.
func Inspect(a Agent, path string, e Entry, rec *Record) (Status, error) {
	src, err := readAgentFile(path)
	if os.IsNotExist(err) {
		return Status{State: StateAbsent}, nil
	}
	if err != nil {
		return Status{}, err
	}
	cur, found, err := editorFor(a.Format).lookup(src, a.Keys, ServerName)
	if err != nil {
		return Status{}, fmt.Errorf("read %s: %w", path, err)
	}
	var st Status
	switch {
	case !found:
		st.State = StateAbsent
	case e.matches(cur):
		st.State = StateCurrent
		st.Note = wontStart(a, src)
	case ours(cur, rec):
		st.State = StateStale
	default:
		st.State = StateForeign
	}
	if found {
		st.Command, st.NovaHome = entryCommand(cur), entryNovaHome(cur)
		if st.State != StateCurrent {
			st.Differs = e.differs(cur)
		}
	}
	if a.ID == agents.ClaudeCode {
		if st.Shadows, err = projectEntries(src, &e); err != nil {
			return st, fmt.Errorf("read %s: %w", path, err)
		}
	}
	return st, nil
}

// projectFiles are the files, in a project's directory, that list the
// project's own MCP servers, which an agent started there runs instead of
// its user-level ones of the same name: Claude Code's .mcp.json, Cursor's
// .cursor/mcp.json, Gemini CLI's .gemini/settings.json (its workspace
// settings, whose mcpServers it merges over the user's server by server,
// in a folder it trusts) and Codex's .codex/config.toml (read in a
// trusted project, over the user's config.toml). Each is in the syntax,
// and has its servers table where, the agent's user-level file has.
var projectFiles = map[string]string{
	agents.ClaudeCode: ProjectMCPFile,
	agents.Cursor:     filepath.Join(".cursor", "mcp.json"),
	agents.Gemini:     filepath.Join(".gemini", "settings.json"),
	agents.Codex:      filepath.Join(".codex", "config.toml"),
}

// InspectDir reports a "nova" entry in the project file of dir (see
// projectFiles), the directory novactl runs in, that differs from e:
// the agent, started there, runs it instead of the user-level entry. It
// returns nil for an agent without project files, for "" (no directory
// known), and when there is no such file or entry. It never writes: the
// file is the project's, often committed, so only the person removes the
// entry. environ resolves the agent's user-level file: in the home
// directory, Cursor's .cursor/mcp.json is that file, the one install
// writes, and no project's.
func InspectDir(a Agent, dir string, environ []string, e Entry) ([]ProjectEntry, error) {
	rel, ok := projectFiles[a.ID]
	if !ok || dir == "" {
		return nil, nil
	}
	path := filepath.Join(dir, rel)
	if sameFile(path, a.Path(environ)) {
		return nil, nil
	}
	src, err := readAgentFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v, found, err := editorFor(a.Format).lookup(src, a.Keys, ServerName)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !found || e.matches(v) {
		return nil, nil
	}
	p := ProjectEntry{Project: dir, Scope: ScopeProject, File: path, Command: entryCommand(v), NovaHome: entryNovaHome(v), Differs: e.differs(v)}
	p.Remove = p.RemoveHint()
	if a.ID != agents.ClaudeCode {
		// Cursor has no command that removes a server; for Gemini CLI
		// too, the file to edit is the plainest hint.
		p.Remove = fmt.Sprintf("delete %s.%s from %s", strings.Join(a.Keys, "."), ServerName, shellword.Quote(path))
		if a.Format == TOML {
			p.Remove = fmt.Sprintf("delete the [%s.%s] table from %s", strings.Join(a.Keys, "."), ServerName, shellword.Quote(path))
		}
	}
	return []ProjectEntry{p}, nil
}

// sameFile reports whether a and b name one file: the same path, or
// (through a link, or in another case on a case-insensitive volume) the
// same file on disk.
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}

// ProjectEntries returns every per-project "nova" entry in agent a's
// user file at path (Claude Code's; none for another agent), by project
// path, with no Differs. Uninstall names them: it removes the user-level
// entry only, as `claude mcp remove nova -s user` does, and Claude Code
// goes on starting a project's own entry in that project.
func ProjectEntries(a Agent, path string) ([]ProjectEntry, error) {
	if a.ID != agents.ClaudeCode {
		return nil, nil
	}
	src, err := readAgentFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out, err := projectEntries(src, nil)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// projectEntries returns the per-project "nova" entries of a Claude Code
// user file that differ from e (every one when e is nil), by project
// path.
func projectEntries(src []byte, e *Entry) ([]ProjectEntry, error) {
	// A Claude Code file can hold megabytes of project history: the scan
	// decodes only each project's "nova" server.
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, nil
	}
	root, err := parseJSONFor(src, interest{"projects": {"*": {"mcpServers": {ServerName: nil}}}})
	if err != nil {
		return nil, err
	}
	projects := memberObject(root, "projects")
	if projects == nil {
		return nil, nil
	}
	var out []ProjectEntry
	for _, m := range projects.members {
		project, _ := m.value.(*jsonObject)
		servers := memberObject(project, "mcpServers")
		if servers == nil {
			continue
		}
		nova := servers.member(ServerName)
		if nova == nil {
			continue
		}
		v := plain(nova.value)
		if e != nil && e.matches(v) {
			continue
		}
		p := ProjectEntry{Project: m.key, Scope: ScopeLocal, Command: entryCommand(v), NovaHome: entryNovaHome(v)}
		if e != nil {
			p.Differs = e.differs(v)
		}
		p.Remove = p.RemoveHint()
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b ProjectEntry) int { return strings.Compare(a.Project, b.Project) })
	return out, nil
}

// memberObject returns the object that o's member key holds, or nil when
// o is nil or the member is missing or not an object.
func memberObject(o *jsonObject, key string) *jsonObject {
	if o == nil {
		return nil
	}
	m := o.member(key)
	if m == nil {
		return nil
	}
	obj, _ := m.value.(*jsonObject)
	return obj
}

// differs says how the decoded entry v differs from e: its command, its
// arguments, its NOVA_HOME, and the names (never the values, which may be
// secrets) of other environment variables it sets otherwise.
func (e Entry) differs(v any) []string {
	m, _ := v.(map[string]any)
	var out []string
	if cmd := entryCommand(v); cmd != e.Command {
		out = append(out, fmt.Sprintf("command %s, not %s", orNone(cmd), e.Command))
	}
	if args := stringList(m["args"]); !slices.Equal(args, e.Args) {
		out = append(out, fmt.Sprintf("args %q, not %q", args, e.Args))
	}
	if h, want := entryNovaHome(v), e.Env[paths.EnvHome]; h != want {
		out = append(out, fmt.Sprintf("%s %s, not %s", paths.EnvHome, orNone(h), orNone(want)))
	}
	env, _ := m["env"].(map[string]any)
	var keys []string
	for k := range env {
		keys = append(keys, k)
	}
	for k := range e.Env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range slices.Compact(keys) {
		got, ok := env[k].(string)
		want, wok := e.Env[k]
		if k != paths.EnvHome && (ok != wok || got != want) {
			out = append(out, "env "+k+" differs")
		}
	}
	return out
}

// entryCommand is a decoded entry's command, "" when it has none.
func entryCommand(v any) string {
	m, _ := v.(map[string]any)
	s, _ := m["command"].(string)
	return s
}

// entryNovaHome is the NOVA_HOME a decoded entry sets, "" when none.
func entryNovaHome(v any) string {
	m, _ := v.(map[string]any)
	env, _ := m["env"].(map[string]any)
	s, _ := env[paths.EnvHome].(string)
	return s
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
