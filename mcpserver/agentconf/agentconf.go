// Package agentconf adds Nova's MCP server to the configuration files of
// the agents people use (Claude Code, Codex, Gemini CLI, OpenClaw, Hermes,
// Cursor, Windsurf) and removes it again, without disturbing anything else in those files.
//
// Edits are textual: the "nova" entry is inserted as text at one place and
// the rest of the file (comments, key order, formatting, other servers)
// keeps its bytes. Every install is recorded (what text went where, which
// containers it created) in a small JSON file under NOVA_HOME/state, so
// that uninstall removes exactly what install added and leaves the file
// byte-identical. When the record is missing or the agent has rewritten
// the file since, uninstall falls back to removing the "nova" entry by
// structure. Every result is parsed again before it is written, writes go
// through a temporary file and a rename in the same directory and keep the
// file's mode. A file that is a symbolic link (into a dotfiles repository,
// say) is edited where the link points, and stays a link.
package agentconf

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/nova-recall/nova/agents"
	"github.com/nova-recall/nova/atomicfile"
	"github.com/nova-recall/nova/paths"
)

// ServerName is the name of Nova's entry in every agent's MCP servers.
const ServerName = "nova"

// Format is a configuration file syntax.
type Format int

// Formats.
const (
	JSON Format = iota // JSON, JSON with comments or JSON5
	TOML
	YAML
)

// Agent is one agent whose MCP configuration Nova can edit: the agent
// (see package agents, which knows where its file lives) and the syntax
// and place of the MCP servers table in that file.
type Agent struct {
	agents.Agent
	// Format is the configuration file's syntax.
	Format Format
	// Keys is the path of the MCP servers table inside the file.
	Keys []string
}

// Path is the agent's user-level configuration file.
func (a Agent) Path(environ []string) string { return a.MCPConfig(environ) }

// Detected reports whether the agent seems installed for this user.
func (a Agent) Detected(environ []string) bool { return a.Installed(environ) }

// tables says where each agent lists its MCP servers.
var tables = map[string]struct {
	format Format
	keys   []string
}{
	agents.ClaudeCode: {JSON, []string{"mcpServers"}},
	agents.Codex:      {TOML, []string{"mcp_servers"}},
	agents.Gemini:     {JSON, []string{"mcpServers"}},
	agents.OpenClaw:   {JSON, []string{"mcp", "servers"}},
	agents.Hermes:     {YAML, []string{"mcp_servers"}},
	// ~/.cursor/mcp.json; Cursor tells stdio from a remote server by
	// command or url, so the entry needs no "type".
	agents.Cursor: {JSON, []string{"mcpServers"}},
	// ~/.codeium/windsurf/mcp_config.json, Claude Desktop's shape.
	agents.Windsurf: {JSON, []string{"mcpServers"}},
}

func withTable(a agents.Agent) Agent {
	t := tables[a.ID]
	return Agent{Agent: a, Format: t.format, Keys: t.keys}
}

// Agents lists the supported agents, in a stable order.
func Agents() []Agent {
	var out []Agent
	for _, a := range agents.All() {
		out = append(out, withTable(a))
	}
	return out
}

// AgentIDs lists the --agent values.
func AgentIDs() []string { return agents.IDs() }

// Lookup returns the agent with this id.
func Lookup(id string) (Agent, bool) {
	a, ok := agents.Lookup(id)
	if !ok {
		return Agent{}, false
	}
	return withTable(a), true
}

// Select parses --agent (see agents.Select).
func Select(spec string) (selected []Agent, explicit bool, err error) {
	as, explicit, err := agents.Select(spec)
	for _, a := range as {
		selected = append(selected, withTable(a))
	}
	return selected, explicit, err
}

// Entry is the server entry: the command an agent starts and its
// arguments and environment.
type Entry struct {
	Command string
	Args    []string
	Env     map[string]string

	// keep are the settings a person added to the entry an update
	// replaces (Codex's enabled or tool_timeout_sec, say), written after
	// Nova's own keys as they were.
	keep orderedMap
}

// entryKeys are the keys of an entry that Nova writes; an update replaces
// them and keeps any other.
var entryKeys = []string{"command", "args", "env"}

func (e Entry) envKeys() []string {
	keys := make([]string, 0, len(e.Env))
	for k := range e.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// value is the entry as a JSON object with a fixed key order.
func (e Entry) value() orderedMap {
	v := orderedMap{{"command", e.Command}, {"args", e.Args}}
	if len(e.Env) > 0 {
		env := orderedMap{}
		for _, k := range e.envKeys() {
			env = append(env, keyValue{k, e.Env[k]})
		}
		v = append(v, keyValue{"env", env})
	}
	return append(v, e.keep...)
}

// matches reports whether a decoded entry has exactly e's command, args
// and env (other keys an agent adds, such as "type": "stdio", are
// ignored).
func (e Entry) matches(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if m["command"] != e.Command {
		return false
	}
	if !reflect.DeepEqual(stringList(m["args"]), e.Args) && !(len(e.Args) == 0 && m["args"] == nil) {
		return false
	}
	env := map[string]string{}
	if raw, ok := m["env"].(map[string]any); ok {
		for k, v := range raw {
			s, ok := v.(string)
			if !ok {
				return false
			}
			env[k] = s
		}
	} else if m["env"] != nil {
		return false
	}
	want := e.Env
	if want == nil {
		want = map[string]string{}
	}
	return reflect.DeepEqual(env, want)
}

// ours reports whether a decoded entry is one novactl installed: the
// command the install record names, or a command named novactl run with
// the argument mcp. Such an entry may be replaced (a moved binary) or
// removed; any other "nova" entry is the user's and is left alone.
func ours(v any, rec *Record) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	cmd, _ := m["command"].(string)
	if rec != nil && rec.Command != "" && cmd == rec.Command {
		return true
	}
	base := strings.TrimSuffix(filepath.Base(cmd), ".exe")
	return base == "novactl" && slices.Equal(stringList(m["args"]), []string{"mcp"})
}

func stringList(v any) []string {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}

// Insertion is what one install added to a file.
type Insertion struct {
	// Offset is the byte offset where Text was inserted.
	Offset int `json:"offset"`
	// Text is the inserted text.
	Text string `json:"text"`
	// Replaced is the original text at Offset that Text replaced, and
	// that Text repeats: Text puts a comma after a value and repeats the
	// comment that followed it. Usually empty.
	Replaced string `json:"replaced,omitempty"`
	// CreatedLevels counts the containers on Agent.Keys that the install
	// created (innermost last), so that uninstall removes them again.
	CreatedLevels int `json:"createdLevels,omitempty"`
}

// editor is the syntax-specific part.
type editor struct {
	lookup func(src []byte, keys []string, name string) (any, bool, error)
	// settings returns the keys of entry name other than entryKeys, in
	// document order, with their values written in the document's syntax.
	settings func(src []byte, keys []string, name string) (orderedMap, error)
	insert   func(src []byte, keys []string, name string, e Entry) ([]byte, Insertion, error)
	remove   func(src []byte, keys []string, name string, createdLevels int) ([]byte, bool, error)
}

func editorFor(f Format) editor {
	switch f {
	case TOML:
		return editor{lookup: tomlLookup, settings: tomlSettings, insert: tomlInsert,
			remove: func(src []byte, keys []string, name string, _ int) ([]byte, bool, error) {
				return tomlRemove(src, keys, name)
			}}
	case YAML:
		return editor{lookup: yamlLookup, settings: yamlSettings, insert: yamlInsert, remove: yamlRemove}
	}
	return editor{
		lookup:   jsonLookup,
		settings: jsonSettings,
		insert: func(src []byte, keys []string, name string, e Entry) ([]byte, Insertion, error) {
			return jsonInsert(src, keys, name, e.value())
		},
		remove: jsonRemove,
	}
}

// Action says what a plan does to a file.
type Action string

// Actions.
const (
	Install   Action = "install"   // add the entry
	Update    Action = "update"    // replace an older novactl entry
	Unchanged Action = "unchanged" // the entry is already there, identical
	Remove    Action = "remove"    // remove the entry
	Absent    Action = "absent"    // nothing to remove
)

// Plan is a computed change to one agent's file. Nothing is written until
// Apply.
type Plan struct {
	Agent  Agent
	Path   string
	Action Action
	// Before is the file as read (nil when it does not exist); After is the
	// new content, or nil when the file is to be deleted (an uninstall that
	// empties a file the install created).
	Before, After []byte
	// Note explains the action (e.g. an entry left alone).
	Note string
	// Record is the install record to keep after Apply (nil: drop it).
	Record *Record

	existed bool
	mode    os.FileMode
	// file is the file Apply replaces: Path, or the file Path's symbolic
	// link points to.
	file string
}

// Changed reports whether Apply would modify the file.
func (p *Plan) Changed() bool {
	return p.Action == Install || p.Action == Update || p.Action == Remove
}

// ErrReadOnly is returned for a configuration file without write
// permission for its owner: replacing it by a rename would get past what
// its owner set.
var ErrReadOnly = errors.New("is read-only; Nova does not change a file its owner made read-only (make it writable with chmod u+w and run the command again, or edit it by hand)")

// ErrOtherOwner is returned for a configuration file that belongs to
// another user (or, run as root, for the folder of another user's that a
// new one would go in): replacing it by a rename would hand it to the
// user novactl runs as (root, under sudo), and the agent could no longer
// read it.
var ErrOtherOwner = errors.New("belongs to another user; Nova does not replace it, which would make the file yours (run novactl as the file's owner, not with sudo; a file an earlier sudo left to root needs a chown back first)")

// ErrForeignEntry is returned when a "nova" entry that novactl did not
// install is already configured.
var ErrForeignEntry = errors.New(`a "nova" MCP server that novactl did not install is already configured; remove or rename it first`)

// read returns the file's content and mode, refusing symbolic links.
// Agents' configuration files are read with readConfig.
func read(path string) ([]byte, os.FileMode, bool, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0o600, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return nil, 0, false, fmt.Errorf("%s %w", path, atomicfile.ErrSymlink)
	}
	b, err := readAgentFile(path)
	if err != nil {
		return nil, 0, false, err
	}
	return b, fi.Mode().Perm(), true, nil
}

// readAgentFile reads a file an agent, a project or the person may have
// put anything at. A named pipe there is refused at once
// (*paths.NotFileError): a plain open of one waits for a writer that
// never comes, and mcp status, install and doctor with it.
func readAgentFile(path string) ([]byte, error) {
	b, _, err := paths.ReadRegular(path, 0)
	return b, err
}

// readConfig reads an agent's configuration file at path, through a
// symbolic link: people keep these files in a dotfiles repository and link
// them into place, and replacing the link by a file would take the file out
// of the repository. It returns read's results and the file to replace:
// path, or the file its link points to. A link to nothing is an error.
func readConfig(path string) (src []byte, mode os.FileMode, existed bool, file string, err error) {
	file = path
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if file, err = filepath.EvalSymlinks(path); err != nil {
			dest, _ := os.Readlink(path)
			return nil, 0, false, "", fmt.Errorf("%s is a symbolic link to %s, which cannot be read (%v); create that file or remove the link", path, dest, err)
		}
	}
	src, mode, existed, err = read(file)
	return src, mode, existed, file, err
}

// PlanInstall computes the install of e into agent a's file at path. rec
// is the existing install record for path, or nil.
func PlanInstall(a Agent, path string, e Entry, rec *Record) (*Plan, error) {
	src, mode, existed, file, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	p := &Plan{Agent: a, Path: path, Before: src, existed: existed, mode: mode, file: file}
	ed := editorFor(a.Format)
	cur, found, err := ed.lookup(src, a.Keys, ServerName)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	base := src
	var removed *Plan
	if found {
		switch {
		case e.matches(cur):
			p.Action, p.After, p.Record = Unchanged, src, rec
			p.Note = wontStart(a, src)
			return p, nil
		case !ours(cur, rec):
			return nil, fmt.Errorf("%s: %w", path, ErrForeignEntry)
		}
		// An older novactl entry (another path or NOVA_HOME): replace it,
		// keeping what the person added to it.
		if e.keep, err = ed.settings(src, a.Keys, ServerName); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		removed, err = PlanUninstall(a, path, rec)
		if err != nil {
			return nil, err
		}
		base = removed.After
		if base == nil {
			base = []byte{}
		}
	}
	out, ins, err := ed.insert(base, a.Keys, ServerName, e)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := check(a, out, e, true); err != nil {
		return nil, fmt.Errorf("%s: the edited file does not check out (%v); nothing was written", path, err)
	}
	p.Action, p.After = Install, out
	if found {
		p.Action = Update
	}
	createdFile := !existed || (removed != nil && removed.After == nil)
	if removed != nil && rec != nil && rec.CreatedFile {
		createdFile = true
	}
	p.Record = &Record{Agent: a.ID, Command: e.Command, Insertion: ins, CreatedFile: createdFile}
	if err := p.writable(); err != nil {
		return nil, err
	}
	p.Note = wontStart(a, out)
	return p, nil
}

// wontStart says why the agent will not start Nova's entry in src although
// it is there: the entry is disabled (a setting an update keeps), or
// Gemini CLI's allow or deny list keeps it out. "" when nothing does.
func wontStart(a Agent, src []byte) string {
	cur, found, err := editorFor(a.Format).lookup(src, a.Keys, ServerName)
	if err != nil || !found {
		return ""
	}
	if m, ok := cur.(map[string]any); ok {
		switch {
		case m["enabled"] == false:
			return "but " + a.Name + " will not start it: the entry is disabled, its enabled is false"
		case m["disabled"] == true:
			return "but " + a.Name + " will not start it: the entry is disabled, its disabled is true"
		}
		if n := filtersOutSearch(a, m); n != "" {
			return n
		}
	}
	if a.ID != agents.Gemini {
		return ""
	}
	// Gemini CLI's lists, in its current and its first settings format.
	for _, l := range []struct {
		keys      []string
		name      string
		allowList bool
	}{{[]string{"mcp"}, "excluded", false}, {nil, "excludeMCPServers", false}, {[]string{"mcp"}, "allowed", true}, {nil, "allowMCPServers", true}} {
		v, ok, _ := jsonLookup(src, l.keys, l.name)
		if !ok {
			continue
		}
		listed := slices.Contains(stringList(v), ServerName)
		where := strings.Join(append(slices.Clone(l.keys), l.name), ".")
		if l.allowList && !listed {
			return fmt.Sprintf("but %s will not start it: %s does not list %q; add it there", a.Name, where, ServerName)
		}
		if !l.allowList && listed {
			return fmt.Sprintf("but %s will not start it: %s lists %q; remove it there", a.Name, where, ServerName)
		}
	}
	return ""
}

// SearchTool is the name of Nova's search tool, mcpserver.ToolSearch
// (spelled here so that editing a file does not pull in the server): the
// tool an agent's filter must not leave out.
const SearchTool = "memory_search"

// toolFilters are the settings of an entry, per agent, that keep tools of
// a server from the model: an allow list and a deny list, applied after
// it (Codex's enabled_tools and disabled_tools, Gemini CLI's includeTools
// and excludeTools, Hermes's tools.include and tools.exclude). An update
// keeps them, as it keeps every setting a person added.
var toolFilters = map[string]struct{ allow, deny []string }{
	agents.Codex:  {[]string{"enabled_tools"}, []string{"disabled_tools"}},
	agents.Gemini: {[]string{"includeTools"}, []string{"excludeTools"}},
	agents.Hermes: {[]string{"tools", "include"}, []string{"tools", "exclude"}},
}

// filtersOutSearch says why agent a, which starts the entry m, does not
// offer its model memory_search, or "" when it does.
func filtersOutSearch(a Agent, m map[string]any) string {
	f, ok := toolFilters[a.ID]
	if !ok {
		return ""
	}
	list := func(keys []string) ([]string, bool) {
		var v any = m
		for _, k := range keys {
			o, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = o[k]; !ok {
				return nil, false
			}
		}
		l, ok := v.([]any)
		if !ok {
			return nil, false
		}
		return stringList(l), true
	}
	if l, ok := list(f.allow); ok && !slices.Contains(l, SearchTool) {
		return fmt.Sprintf("but %s will not offer %s: the entry's %s does not list it; add it there", a.Name, SearchTool, strings.Join(f.allow, "."))
	}
	if l, ok := list(f.deny); ok && slices.Contains(l, SearchTool) {
		return fmt.Sprintf("but %s will not offer %s: the entry's %s lists it; remove it there", a.Name, SearchTool, strings.Join(f.deny, "."))
	}
	return ""
}

// writable refuses a change to an existing file its owner made
// read-only, and to a file of another user's: Apply replaces files by a
// rename, which the mode does not stop and which makes the file the
// writer's. Run as root (sudo), it also refuses a new file in a folder of
// another user's, which the agent, running as that user, could not read.
func (p *Plan) writable() error {
	if !p.Changed() {
		return nil
	}
	if p.existed && p.mode&0o200 == 0 {
		return fmt.Errorf("%s (mode %04o) %w", p.file, p.mode, ErrReadOnly)
	}
	if !p.existed && os.Geteuid() != 0 {
		return nil
	}
	// The file, or the nearest folder that exists above a new one.
	for at := p.file; ; at = filepath.Dir(at) {
		fi, err := os.Stat(at)
		if err == nil {
			if paths.OwnedByAnotherUser(fi) {
				return fmt.Errorf("%s %w", at, ErrOtherOwner)
			}
			return nil
		}
		if !errors.Is(err, os.ErrNotExist) || at == filepath.Dir(at) {
			return nil // Apply reports what cannot be read or created
		}
	}
}

// PlanUninstall computes the removal of Nova's entry from a's file at
// path. rec is the install record for path, or nil.
func PlanUninstall(a Agent, path string, rec *Record) (*Plan, error) {
	src, mode, existed, file, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	p := &Plan{Agent: a, Path: path, Before: src, After: src, existed: existed, mode: mode, file: file, Action: Absent}
	if !existed {
		p.Note = "no configuration file"
		return p, nil
	}
	ed := editorFor(a.Format)
	cur, found, err := ed.lookup(src, a.Keys, ServerName)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !found {
		p.Note = "Nova is not configured"
		return p, nil
	}
	if !ours(cur, rec) {
		p.Note = `the "nova" entry was not installed by novactl; left alone`
		return p, nil
	}
	out, ok := exactRemoval(a, src, rec)
	if !ok {
		created := 0
		if rec != nil {
			created = rec.CreatedLevels
		}
		out, found, err = ed.remove(src, a.Keys, ServerName, created)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if !found {
			return nil, fmt.Errorf("%s: could not locate the nova entry to remove it; remove it by hand", path)
		}
		if out == nil {
			// An editor's empty result is an empty file: nil After
			// deletes the file, which is only for a file install created.
			out = []byte{}
		}
		if err := check(a, out, Entry{}, false); err != nil {
			return nil, fmt.Errorf("%s: the edited file does not check out (%v); nothing was written", path, err)
		}
		if rec != nil && rec.CreatedFile && emptyDoc(a.Format, out) {
			out = nil
		}
	}
	if out == nil && file != path {
		// A file install created and a person then moved behind a link:
		// it is emptied, so that the link does not point to nothing.
		out = []byte{}
	}
	p.Action, p.After = Remove, out
	if err := p.writable(); err != nil {
		return nil, err
	}
	return p, nil
}

// exactRemoval removes the recorded insertion when it is still in the
// file, unchanged, and the result checks out.
func exactRemoval(a Agent, src []byte, rec *Record) ([]byte, bool) {
	if rec == nil || rec.Agent != a.ID || rec.Text == "" {
		return nil, false
	}
	text := []byte(rec.Text)
	off := rec.Offset
	if off < 0 || off+len(text) > len(src) || !bytes.Equal(src[off:off+len(text)], text) {
		// Content may have been added before it: accept a unique match.
		if bytes.Count(src, text) != 1 {
			return nil, false
		}
		off = bytes.Index(src, text)
	}
	out := append(append(append([]byte{}, src[:off]...), rec.Replaced...), src[off+len(text):]...)
	if check(a, out, Entry{}, false) != nil {
		return nil, false
	}
	if rec.CreatedFile && off == 0 && len(out) == 0 {
		return nil, true
	}
	return out, true
}

// check parses out and verifies the entry is there (want) or gone.
func check(a Agent, out []byte, e Entry, want bool) error {
	ed := editorFor(a.Format)
	cur, found, err := ed.lookup(out, a.Keys, ServerName)
	if err != nil {
		return err
	}
	switch {
	case want && !found:
		return errors.New("the entry is missing")
	case want && !e.matches(cur):
		return errors.New("the entry reads back differently")
	case !want && found:
		return errors.New("the entry is still there")
	}
	return nil
}

// emptyDoc reports whether a document holds nothing but an empty root.
func emptyDoc(f Format, b []byte) bool {
	t := bytes.TrimSpace(b)
	switch f {
	case JSON:
		return len(t) == 0 || string(bytes.Join(bytes.Fields(t), nil)) == "{}"
	}
	return len(t) == 0
}
