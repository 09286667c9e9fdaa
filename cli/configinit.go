package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/nova-recall/nova/agents"
	"github.com/nova-recall/nova/atomicfile"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/inert"
	"github.com/nova-recall/nova/paths"
)

const configInitHelp = `Writes a first NOVA_HOME/config.yaml whose sources are the coding agents' memory
found on this machine, so that "novactl index sync" has something to index:

  claude       ~/.claude/projects   (or $CLAUDE_CONFIG_DIR/projects)
  codex        ~/.codex             (or $CODEX_HOME; sessions/, archived_sessions/)
  gemini       ~/.gemini            (or $GEMINI_CLI_HOME/.gemini; tmp/ chats, GEMINI.md)
  openclaw     ~/.openclaw          (or $OPENCLAW_STATE_DIR; agents/*/sessions)
  hermes       ~/.hermes            (or $HERMES_HOME; state.db, memories/)
  cursor       ~/.cursor/projects   (the agent's transcripts, */agent-transcripts)
  aider        ~/src, ~/code, ~/Developer, ~/projects, ... (a folder of
               repositories of which one holds .aider.chat.history.md)

An agent is listed only when that folder holds what the agent keeps there; one
that is installed but never ran is not. --notes adds a folder (or file) of
Markdown notes, or of a notes app's unzipped export, read as it needs: a Google
Takeout (its Keep folder) or a Day One export (Journal.json) as a jsonl source
of *.json, HTML notes (an Apple Notes export) as a markdown source of *.md and
*.html. --exports adds a folder of unzipped ChatGPT or Claude.ai data
exports as a source of kind chat-export, which reads every conversations*.json
in it; such a folder is not looked for, and one that holds no
conversations*.json (an export still zipped) is written with a warning, unless
it holds a Keep or Day One export, which is written as --notes writes it. Paths
under your home are written with ~, and every other setting is left at its
default: README, Configuration, lists them all.

The file is checked as "novactl config check" would before it is written,
privately (0600, in a 0700 NOVA_HOME). An existing config.yaml is never
replaced unless --force is given, and then only after a copy is saved under
NOVA_HOME/state/backups/config/; it replaces, it does not merge, so it names the
old file's sources and settings that the new one lacks (a source left out has
its memory dropped by the next sync). With no agent memory found and no --notes, the
file still gets written, with no sources, and the output says so.
--dry-run prints the file and writes nothing. --json prints
{"ok":true,"written":...,"path":...,"sources":[{"name":...,"kind":...,"path":...}],
"missing":[{"agent":...,"path":...}],"backup":...,"dropped":[{"name":...,"kind":...,"path":...}],
"settings":[...],"unread":[{"source":...,"path":...,"files":[...],"count":...,"more":...,"line":...}]}
(and "content" with --dry-run). A notes source reads Markdown only: "unread"
(and the text) names the JSONL record files (.jsonl, .ndjson) under a --notes
folder, looked for in its first 20000 entries, and the config.yaml line of
the jsonl source that reads them.`

// initSource is one source that config init writes.
type initSource struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Path is as written in the file: ~ for the home directory.
	Path string `json:"path"`
	// Include are the source's globs, when not its kind's (a notes
	// app's export, see exportSources).
	Include []string `json:"include,omitempty"`
	// dir is Path resolved, to check the file reads back as meant.
	dir string
	// what says what the source holds, for the file's header.
	what string
	// notes is set for a notes app's export (exportSources).
	notes bool
}

// initUnread is what a notes folder holds that its Markdown source does
// not read but a jsonl source would: exported records beside the notes
// (make run adds such a source for the folder; config init names it).
type initUnread struct {
	// Source is the notes source's name, Path its path as written.
	Source string `json:"source"`
	Path   string `json:"path"`
	// Files are the first record files found, relative to Path; Count is
	// how many were found, More is set when the walk stopped at its bound
	// before the end of the folder (there may be more).
	Files []string `json:"files"`
	Count int      `json:"count"`
	More  bool     `json:"more"`
	// Line is the line under sources: in config.yaml that reads them.
	Line string `json:"line"`
}

// unreadWalkMax bounds the entries config init looks at in a notes folder
// for record files (a vault is rarely larger; a home given by mistake is
// not walked to its end), unreadShown the files it names.
const (
	unreadWalkMax = 20000
	unreadShown   = 5
)

// unreadRecords walks the notes folder of s (a Markdown source) as a
// jsonl source of the same path would list it, up to unreadWalkMax
// entries, and returns the record files the notes source leaves unread,
// with the line that adds a source named name for them; nil for none.
func unreadRecords(s initSource, name string) *initUnread {
	notes := config.Source{Name: s.Name, Kind: config.KindMarkdown, Path: s.dir, Include: s.Include}
	records := config.Source{Name: name, Kind: config.KindJSONL, Path: s.dir}
	u := &initUnread{Source: s.Name, Path: s.Path, Files: []string{}}
	seen := 0
	root := ingest.WalkRoot(s.dir)
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: the sync reports it, this is advice
		}
		if seen++; seen > unreadWalkMax {
			u.More = true
			return fs.SkipAll
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if rel == "." && !d.IsDir() {
			rel = d.Name() // --notes named a file
		}
		if d.IsDir() {
			if ingest.SkipsDir(records, rel) {
				return fs.SkipDir
			}
			return nil
		}
		if ingest.ListsFile(records, rel) && !ingest.ListsFile(notes, rel) {
			if u.Count++; len(u.Files) < unreadShown {
				u.Files = append(u.Files, rel)
			}
		}
		return nil
	})
	if u.Count == 0 {
		return nil
	}
	u.Line = fmt.Sprintf("  - {name: %s, kind: %s, path: %s}", name, config.KindJSONL, yamlString(s.Path))
	return u
}

// chatExportAdvice is what a chat-export folder without an export is to
// hold, in doctor's words.
const chatExportAdvice = "a downloaded export is a zip: unzip it there"

// holdsChatExport reports whether a chat-export source of dir lists a
// file, looking at up to unreadWalkMax entries (a home given by mistake is
// not walked to its end, and is then taken to hold one).
func holdsChatExport(dir string) bool {
	src := config.Source{Name: "chats", Kind: config.KindChatExport, Path: dir}
	found, seen := false, 0
	root := ingest.WalkRoot(dir) // a linked folder is walked too
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: the sync reports it, this is advice
		}
		if seen++; seen > unreadWalkMax {
			found = true
			return fs.SkipAll
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil || rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if ingest.SkipsDir(src, rel) {
				return fs.SkipDir
			}
			return nil
		}
		if ingest.ListsFile(src, rel) {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// printUnread names the record files each notes folder holds that the
// notes source does not read, and the config.yaml line that reads them.
func printUnread(w io.Writer, unread []initUnread) {
	for _, u := range unread {
		more := ""
		if u.More {
			more = " (it was not walked to its end: there may be more)"
		}
		fmt.Fprintf(w, "%s holds %d JSONL record file(s) that the %s source, Markdown only, does not read: %s%s. To index them, add this line under sources: in config.yaml, then run novactl config check:\n%s\n",
			u.Path, u.Count, u.Source, strings.Join(u.Files, ", "), more, u.Line)
	}
}

// initMissing is an agent whose memory config init did not find.
type initMissing struct {
	Agent string `json:"agent"`
	Path  string `json:"path"`
	// name is the agent's display name.
	name string
}

// initResult is the output of novactl config init --json.
type initResult struct {
	OK      bool          `json:"ok"`
	Written bool          `json:"written"`
	Path    string        `json:"path"`
	Sources []initSource  `json:"sources"`
	Missing []initMissing `json:"missing"`
	Backup  string        `json:"backup"`
	// Dropped are the sources of the file replaced that this one does
	// not have, and Settings the sections of it set otherwise than the
	// defaults this one leaves (server, embedding, ...): --force replaces,
	// it does not merge.
	Dropped  []initSource `json:"dropped"`
	Settings []string     `json:"settings"`
	// Unread are the notes folders' record files no source written reads.
	Unread  []initUnread `json:"unread"`
	Content string       `json:"content,omitempty"`
}

// agentMemory is the memory of one agent Nova reads, as config init
// proposes it: found in dirs (a source each), or looked for in lookedIn.
type agentMemory struct {
	kind, name, source string
	dirs               []string
	lookedIn           string
}

// agentMemories are the memories of every agent whose memory Nova reads,
// from package agents: each indexed agent's folder, and Aider's, which
// keeps a history in each repository rather than a folder of its own, so
// is found in the folders of repositories under the home. Windsurf's
// memory is not read, so it is neither found nor missing.
func agentMemories(environ []string) []agentMemory {
	var out []agentMemory
	for _, a := range agents.All() {
		if !a.Indexed() {
			continue
		}
		m := agentMemory{kind: a.ID, name: a.Name, source: a.SourceName()}
		dir, found := a.Memory(environ)
		if found {
			m.dirs = []string{dir}
		}
		m.lookedIn = paths.Tilde(dir, environ)
		out = append(out, m)
	}
	return append(out, agentMemory{kind: agents.Aider, name: "Aider", source: agents.Aider,
		dirs: agents.AiderFolders(environ), lookedIn: agents.AiderPlaces()})
}

func runConfigInit(inv *Invocation, args []string) int {
	flags := newFlags(inv, "novactl config init", "novactl config init [--notes DIR]... [--exports DIR]... [--force] [--dry-run] [--json]", configInitHelp)
	var notes stringList
	flags.Var(&notes, "notes", "also index `DIR`, a folder (or file) of Markdown notes; repeatable")
	var exports stringList
	flags.Var(&exports, "exports", "also index `DIR`, a folder of unzipped ChatGPT or Claude.ai data exports; repeatable")
	force := flags.Bool("force", false, "replace an existing config.yaml, after saving a copy under NOVA_HOME/state/backups/config/")
	dryRun := flags.Bool("dry-run", false, "print the file and write nothing")
	jsonOut := flags.Bool("json", false, "print JSON")
	pos, code := parseArgs(inv, flags, args)
	if code >= 0 {
		return code
	}
	fail := func(code int, msg string) int { return commandError(inv, *jsonOut, "novactl config init", code, msg) }
	if len(pos) > 0 {
		return fail(ExitUsage, fmt.Sprintf("unexpected argument %q (a notes folder goes after --notes)", pos[0]))
	}
	home, err := paths.Resolve(inv.Environ)
	if err != nil {
		return fail(ExitFailure, err.Error())
	}
	if err := needUserHome(inv.Environ); err != nil {
		return fail(ExitFailure, err.Error())
	}
	// Empty lists print as [], not null.
	res := initResult{OK: true, Path: home.Config(), Sources: []initSource{}, Missing: []initMissing{}, Dropped: []initSource{}, Settings: []string{}, Unread: []initUnread{}}
	for _, m := range agentMemories(inv.Environ) {
		if len(m.dirs) == 0 {
			res.Missing = append(res.Missing, initMissing{Agent: m.kind, Path: m.lookedIn, name: m.name})
			continue
		}
		for i, dir := range m.dirs {
			res.Sources = append(res.Sources, initSource{Name: nthSource(m.source, i), Kind: m.kind, Path: paths.Tilde(dir, inv.Environ), dir: dir, what: m.name})
		}
	}
	noted, problem := flagFolders(inv, "--notes", notes, "a folder or file of Markdown notes",
		"name the folder (or file) that holds your Markdown notes", "")
	if problem != "" {
		return fail(ExitUsage, problem)
	}
	used := map[string]int{}
	name := func(base string) string {
		used[base]++
		return nthSource(base, used[base]-1)
	}
	for _, dir := range noted {
		res.Sources = append(res.Sources, exportSources(dir, paths.Tilde(dir, inv.Environ), name)...)
	}
	// A chat-export source reads a folder; the zip itself is not read.
	exported, problem := flagFolders(inv, "--exports", exports, "a folder of unzipped ChatGPT or Claude.ai exports",
		"name the folder you unzipped your ChatGPT or Claude.ai exports into", "unzip each export into a folder, and name that folder")
	if problem != "" {
		return fail(ExitUsage, problem)
	}
	for _, dir := range exported {
		s := initSource{Kind: config.KindChatExport, Path: paths.Tilde(dir, inv.Environ), dir: dir, what: "ChatGPT/Claude.ai exports"}
		if !holdsChatExport(dir) {
			// A notes app's export given as an export: read as one.
			if e := ingest.ReadNotesExport(dir); e.Keep != "" || e.DayOne {
				res.Sources = append(res.Sources, exportSources(dir, s.Path, name)...)
				continue
			}
			// Written all the same: the export may be unzipped there next.
			fmt.Fprintf(inv.Stderr, "novactl config init: warning: %s holds no conversations*.json, which a chat-export source reads (%s)\n", s.Path, chatExportAdvice)
		}
		s.Name = name("chats")
		res.Sources = append(res.Sources, s)
	}
	for _, s := range res.Sources {
		if s.Kind != config.KindMarkdown {
			continue
		}
		name := "records"
		if n := len(res.Unread); n > 0 {
			name = fmt.Sprintf("records-%d", n+1)
		}
		if u := unreadRecords(s, name); u != nil {
			res.Unread = append(res.Unread, *u)
		}
	}
	content := renderInitConfig(res.Sources, res.Missing)
	if err := checkInitConfig(home, content, res.Sources, inv.Environ); err != nil {
		// A bug in what this command writes, not the user's doing.
		return fail(ExitFailure, "the file it would write does not read back as meant; nothing was written: "+err.Error())
	}

	old, err := os.Lstat(home.Config())
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fail(ExitFailure, err.Error())
	}
	if exists && old.Mode()&os.ModeSymlink != 0 {
		return fail(ExitFailure, home.Config()+" is a symbolic link; nothing was written (edit the file it points to instead)")
	}
	if exists {
		res.Dropped, res.Settings = notCarriedOver(home, res.Sources, inv.Environ)
	}
	if *dryRun {
		if *jsonOut {
			res.Content = content
			printJSON(inv.Stdout, res)
			return ExitOK
		}
		fmt.Fprint(inv.Stdout, content)
		fmt.Fprintf(inv.Stderr, "novactl config init: dry run, nothing written; without --dry-run this goes to %s", home.Config())
		if exists {
			fmt.Fprint(inv.Stderr, ", which exists: that needs --force, which saves a copy first")
		}
		fmt.Fprintln(inv.Stderr)
		printNotCarriedOver(inv.Stderr, res, "would not carry over")
		printUnread(inv.Stderr, res.Unread)
		return ExitOK
	}
	if exists && !*force {
		return fail(ExitFailure, home.Config()+" already exists; nothing was written. Edit it (README: Configuration), or run novactl config init --force to replace it (a copy is saved under "+home.Backups("config")+")")
	}
	if res.Backup, err = writeInitConfig(home, []byte(content), exists, time.Now()); err != nil {
		return fail(ExitFailure, err.Error())
	}
	res.Written = true
	if *jsonOut {
		printJSON(inv.Stdout, res)
		return ExitOK
	}
	printInitResult(inv, res)
	return ExitOK
}

// plainYAML is a path that YAML reads as itself without quotes, in a flow
// mapping too.
var plainYAML = regexp.MustCompile(`^[A-Za-z0-9_./~][A-Za-z0-9_./~+-]*$`)

// yamlString writes s as a YAML scalar that reads back as s.
func yamlString(s string) string {
	if plainYAML.MatchString(s) && s != "~" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// renderInitConfig is the config.yaml that config init writes: a header
// that says what was found and where to read on, and the sources, in
// README's style.
func renderInitConfig(sources []initSource, missing []initMissing) string {
	var b strings.Builder
	b.WriteString("# Nova's configuration, written by novactl config init.\n")
	if len(sources) == 0 {
		b.WriteString("# No agent memory was found on this machine, so there is no source yet.\n")
	} else {
		found := make([]string, len(sources))
		for i, s := range sources {
			found[i] = fmt.Sprintf("%s (%s)", s.what, s.Path)
		}
		b.WriteString("# Sources found: " + strings.Join(found, ", ") + ".\n")
	}
	if len(missing) > 0 {
		absent := make([]string, len(missing))
		for i, m := range missing {
			absent[i] = fmt.Sprintf("%s (%s)", m.name, m.Path)
		}
		b.WriteString("# Not found: " + strings.Join(absent, ", ") + ".\n")
	}
	b.WriteString(`# Add a source (Markdown notes, JSONL exports, another agent's home, a folder
# of unzipped ChatGPT or Claude.ai exports: kind chat-export) as one
# more line below; the kinds and every other setting are in README, Configuration
# (https://github.com/nova-recall/nova#configuration). Then run
# "novactl config check" and "novactl index sync".
`)
	if len(sources) == 0 {
		b.WriteString("sources: []\n")
		return b.String()
	}
	b.WriteString("sources:\n")
	width := 0
	for _, s := range sources {
		width = max(width, len(s.Name)+1)
	}
	kindWidth := 0
	for _, s := range sources {
		kindWidth = max(kindWidth, len(s.Kind)+1)
	}
	for _, s := range sources {
		include := ""
		if len(s.Include) > 0 {
			globs := make([]string, len(s.Include))
			for i, g := range s.Include {
				globs[i] = yamlString(g)
			}
			include = ", include: [" + strings.Join(globs, ", ") + "]"
		}
		fmt.Fprintf(&b, "  - {name: %-*s kind: %-*s path: %s%s}\n", width, s.Name+",", kindWidth, s.Kind+",", yamlString(s.Path), include)
	}
	return b.String()
}

// checkInitConfig reads content as config check would read the file, and
// wants it valid with exactly sources. Only NOVA_HOME and HOME count from
// the environment: a NOVA_* setting of this shell is not in the file.
func checkInitConfig(home paths.Home, content string, sources []initSource, environ []string) error {
	var env []string
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "NOVA_") || strings.HasPrefix(kv, paths.EnvHome+"=") {
			env = append(env, kv)
		}
	}
	cfg, err := config.Parse(home, home.Config(), []byte(content), env)
	if err != nil {
		return err
	}
	got := make([]string, len(cfg.Sources))
	for i, s := range cfg.Sources {
		got[i] = s.Name + " " + s.Kind + " " + s.Path + " " + strings.Join(s.Include, ",")
	}
	want := make([]string, len(sources))
	for i, s := range sources {
		want[i] = s.Name + " " + s.Kind + " " + s.dir + " " + strings.Join(s.Include, ",")
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("sources %q, want %q", got, want)
	}
	return nil
}

// writeInitConfig writes content as home's config.yaml, in a private
// home. When replace is set, the file there is first copied under
// state/backups/config/<stamp>/ (the copy's path is returned), and it is
// replaced only if it is still what was copied; otherwise only if there
// is still none.
func writeInitConfig(home paths.Home, content []byte, replace bool, now time.Time) (backup string, err error) {
	// What config init writes is the first thing in a new home: make it
	// private as novad and the index commands do.
	if _, err := home.Secure(); err != nil {
		return "", err
	}
	var old []byte
	if replace {
		// A named pipe there would block the copy until a writer came.
		if old, _, err = paths.ReadRegular(home.Config(), 0); err != nil {
			if _, ok := errors.AsType[*paths.NotFileError](err); ok {
				return "", fmt.Errorf("%w; nothing was written (move it away, then run the command again)", err)
			}
			return "", err
		}
		dir := filepath.Join(home.Backups("config"), paths.BackupStamp(now))
		if err := paths.MkdirPrivate(dir); err != nil {
			return "", err
		}
		backup = filepath.Join(dir, filepath.Base(home.Config()))
		if err := atomicfile.Write(backup, old, paths.FileMode); err != nil {
			return "", fmt.Errorf("save a copy of %s: %w; nothing was written", home.Config(), err)
		}
	}
	// Checked again just before the rename: a config.yaml written
	// meanwhile (or edited since the copy) is never lost.
	err = atomicfile.Write(home.Config(), content, paths.FileMode, atomicfile.WithCheck(func(fs.FileInfo) error {
		cur, _, err := paths.ReadRegular(home.Config(), 0)
		switch {
		case !replace && !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s appeared meanwhile; nothing was written", home.Config())
		case replace && (err != nil || !bytes.Equal(cur, old)):
			return fmt.Errorf("%s changed meanwhile; nothing was written (run the command again)", home.Config())
		}
		return nil
	}))
	return backup, err
}

// printInitResult tells what config init wrote and what to do next.
func printInitResult(inv *Invocation, res initResult) {
	w := inv.Stdout
	if len(res.Sources) == 0 {
		fmt.Fprintf(w, "Wrote %s with no sources: no agent memory was found here.\n", res.Path)
	} else {
		fmt.Fprintf(w, "Wrote %s with %d source(s):\n", res.Path, len(res.Sources))
		for _, s := range res.Sources {
			fmt.Fprintf(w, "  %-10s %-12s %s\n", s.Name, s.Kind, s.Path)
		}
	}
	if len(res.Missing) > 0 {
		fmt.Fprint(w, "Not found:")
		for i, m := range res.Missing {
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(w, "%s %s (%s)", sep, m.name, m.Path)
		}
		fmt.Fprintln(w, ".")
	}
	if res.Backup != "" {
		fmt.Fprintf(w, "The old file is saved as %s.\n", res.Backup)
	}
	printNotCarriedOver(w, res, "did not carry over")
	printUnread(w, res.Unread)
	if len(res.Sources) == 0 {
		fmt.Fprintln(w, "Next: add a source to it (README: Configuration), or run novactl config init --force --notes DIR, then novactl index sync.")
		return
	}
	// Agents are found; notes are not looked for (where they live is the
	// person's own choice), so say how to add them.
	if !slices.ContainsFunc(res.Sources, func(s initSource) bool { return s.Kind == config.KindMarkdown || s.notes }) {
		fmt.Fprintln(w, "No notes: novactl config init --force --notes DIR adds a folder of Markdown notes (an Obsidian vault, say).")
	}
	fmt.Fprintln(w, "Next: novactl index sync (the first index), then novactl doctor.")
}

// notCarriedOver compares the config.yaml about to be replaced with the
// sources found now: the old file's sources whose path none of them reads
// (their memory goes at the next sync), and the sections it sets otherwise
// than the defaults the new file leaves. A file that does not load says
// nothing: the backup keeps it as it was. NOVA_* overrides are left out,
// so that only what the file itself says is compared.
func notCarriedOver(home paths.Home, found []initSource, environ []string) ([]initSource, []string) {
	dropped, settings := []initSource{}, []string{}
	fileOnly := slices.DeleteFunc(slices.Clone(environ), func(kv string) bool {
		return strings.HasPrefix(kv, "NOVA_") && !strings.HasPrefix(kv, "NOVA_HOME=")
	})
	old, err := config.LoadFile(home, home.Config(), fileOnly)
	if err != nil {
		return dropped, settings
	}
	for _, s := range old.Sources {
		if !slices.ContainsFunc(found, func(f initSource) bool { return filepath.Clean(f.dir) == filepath.Clean(s.Path) }) {
			dropped = append(dropped, initSource{Name: s.Name, Kind: s.Kind, Path: paths.Tilde(s.Path, environ)})
		}
	}
	def := config.Defaults()
	for _, c := range []struct {
		name      string
		old, want any
	}{
		{"server", old.Server, def.Server}, {"facade", old.Facade, def.Facade}, {"embedding", old.Embedding, def.Embedding},
		{"retrieval", old.Retrieval, def.Retrieval}, {"index", old.Index, def.Index},
	} {
		if !reflect.DeepEqual(c.old, c.want) {
			settings = append(settings, c.name)
		}
	}
	return dropped, settings
}

// printNotCarriedOver names what of the replaced file the new one lacks
// (done: "did not carry over", or "would not" for a dry run).
func printNotCarriedOver(w io.Writer, res initResult, done string) {
	for _, s := range res.Dropped {
		fmt.Fprintf(w, "This %s source %s (%s %s) of the old file: the next sync drops its memory. Keep it: --notes for a notes folder, or copy its line back from the saved file.\n",
			done, inert.Text(s.Name), s.Kind, inert.Text(s.Path))
	}
	if len(res.Settings) > 0 {
		fmt.Fprintf(w, "This %s the old file's settings of %s (now the defaults): copy them back from the saved file to keep them.\n",
			done, strings.Join(res.Settings, ", "))
	}
}

// nthSource names the i-th source (from 0) of a kind named base: base,
// then base-2, base-3.
func nthSource(base string, i int) string {
	if i == 0 {
		return base
	}
	return fmt.Sprintf("%s-%d", base, i+1)
}

// flagFolders resolves the paths given to a repeated folder flag
// (--notes, --exports): ~ and relative paths made absolute, each taken
// once, since two sources reading the same files would index them twice
// (config check refuses that). It returns the usage error of the first
// path that cannot be taken: an empty one (Abs would make it the current
// directory, maybe the whole home), want saying what the flag needs; one
// that does not exist (a typo, or a folder not there yet: the path looked
// for is named, and missing says what is wanted); and, where notDir is
// set, one that is not a folder, notDir saying what to give instead.
func flagFolders(inv *Invocation, flag string, values []string, want, missing, notDir string) ([]string, string) {
	var dirs []string
	for _, v := range values {
		if v == "" {
			return nil, fmt.Sprintf("%s needs %s (got an empty path)", flag, want)
		}
		dir, err := filepath.Abs(paths.ExpandHome(v, inv.Environ))
		if err != nil {
			return nil, fmt.Sprintf("%s %s: %v", flag, v, err)
		}
		if fi, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Sprintf("%s %s: %s does not exist: %s", flag, v, dir, missing)
		} else if err != nil {
			return nil, fmt.Sprintf("%s %s: %v", flag, v, err)
		} else if notDir != "" && !fi.IsDir() {
			return nil, fmt.Sprintf("%s %s: %s is not a folder: %s", flag, v, dir, notDir)
		}
		if !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	return dirs, ""
}
