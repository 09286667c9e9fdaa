package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
	"golang.org/x/text/unicode/norm"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/paths"
)

// File is one file of a source.
type File struct {
	// Path is absolute (as the source path is); Rel is relative to the
	// source path, slash-separated.
	Path, Rel string
	// Info describes the file itself (a symlink is followed): size,
	// modification time and, through Sys, the inode.
	Info fs.FileInfo
	// Dataless is set for a file a File Provider keeps only in the cloud
	// (SF_DATALESS, on a Mac): reading it has the system download it,
	// which is slow and fails offline. A read of it that fails keeps the
	// file's earlier memory and is tried again (index: fileRead.passing).
	Dataless bool
	// memo is shared by the files of one listing (List sets it, for a
	// cursor source only): what reading one of them finds out about the
	// folders around it, found out once for all of them. nil for a File
	// made elsewhere, whose reader looks for itself.
	memo *listingMemo
}

// listingMemo is what the readers of one listing's files find out once
// for all of them: for a Cursor source, the sessions that ran each
// sub-agent (cursorParents), by agent-transcripts folder, which reading
// every transcript of n sessions looked up n times. It is as fresh as
// the first read that asks: a listing is one sync's, and what changes
// after it the next sync's reads find. Safe for concurrent use (a build
// reads files in parallel); a nil *listingMemo looks up every time.
type listingMemo struct {
	mu      sync.Mutex
	parents map[string]map[string]string
}

// cursorParents is cursorParents(transcripts), looked up once per memo.
func (m *listingMemo) cursorParents(transcripts string) map[string]string {
	if m == nil {
		return cursorParents(transcripts)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	parents, ok := m.parents[transcripts]
	if !ok {
		parents = cursorParents(transcripts)
		if m.parents == nil {
			m.parents = map[string]map[string]string{}
		}
		m.parents[transcripts] = parents
	}
	return parents
}

// Listing is what List found in a source.
type Listing struct {
	// Files are the files to read, sorted by Rel so builds are
	// deterministic.
	Files []File
	// Problems are the parts of the source that could not be listed: a
	// directory that cannot be read is reported here and skipped, and the
	// rest of the source is still listed.
	Problems []Problem
	// NotDownloaded are the paths of the files the source would read that
	// iCloud Drive evicted from the Mac before macOS Sonoma ("Optimise
	// Mac Storage"), found by their stubs (see cloudStubOf), sorted. They
	// are no file to read and no problem of the listing: a sync counts
	// them (SourceSummary.NotDownloaded) and novactl doctor says how to
	// download them (brctl takes these paths, not the stubs').
	NotDownloaded []string
}

// kindIncludes are the include globs of each kind when a source names
// none.
var kindIncludes = map[string][]string{
	config.KindJSONL: {"*.jsonl", "*.ndjson"},
	// Any case: a Mac's file system ignores it, and NOTES.MD is a note.
	// Obsidian's canvases are boards of Markdown cards (readCanvas).
	config.KindMarkdown: {"*.[mM][dD]", "*.[mM][aA][rR][kK][dD][oO][wW][nN]", "*.[cC][aA][nN][vV][aA][sS]"},
	// The TypeScript CLI (2025) kept a session as one JSON document,
	// rollout-*.json (see readCodexLegacy).
	config.KindCodex: {"rollout-*.jsonl", "rollout-*.jsonl.zst", "rollout-*.json"},
	// Claude Code's auto memory: <project>/memory/*.md beside the
	// project's sessions (memory/*.md for a source that is one project).
	config.KindClaudeCode: {"*.jsonl", "{*/,}memory/**/*.[mM][dD]"},
	config.KindOpenClaw:   {"agents/*/sessions/*.jsonl", "agents/*/sessions/*.jsonl.reset.*", "agents/*/sessions/*.jsonl.deleted.*", "workspace*/MEMORY.md", "workspace*/memory.md", "workspace*/DREAMS.md", "workspace*/memory/*.md"},
	config.KindHermes:     {"{state.db,profiles/*/state.db}", "{memories,profiles/*/memories}/{MEMORY,USER}.md"},
	// One glob, with a "/": GEMINI.md is the home's, not any folder's; a
	// project's private memory is the Markdown at the top of its memory/
	// folder (not its skills/ drafts).
	config.KindGemini: {"{GEMINI.md,tmp/*/memory/*.md,tmp/*/chats/session-*.jsonl,tmp/*/chats/session-*.json,tmp/*/chats/*/*.jsonl}"},
	config.KindAider:  {aiderHistoryName},
	// ~/.cursor/projects, or one project of it: each session's
	// transcript, its sub-agents' and the flat files of older builds,
	// JSONL or plain text (not the rest of a project folder: terminals,
	// MCP tool descriptors).
	config.KindCursor: {"{*/,}agent-transcripts/{*,*/*,*/subagents/*}.jsonl", "{*/,}agent-transcripts/*.txt"},
	// Each unzipped export's conversations.json, at any depth.
	config.KindChatExport: append([]string{chatExportName, claudeAIMemoriesName}, claudeAIProjectsNames...),
}

// kindExcludes are excluded whatever the source says: Claude Code's
// tool-results/ holds externalized tool output, not a transcript, and its
// agent-acompact-*.jsonl (beside a session's sub-agents) is the agent that
// compacts the session: a copy of the whole conversation so far, then
// Claude Code's instructions to summarize it and the summary, which the
// session's own file keeps as its compact summary (read as a sidechain,
// every prompt came back as the assistant's, once per compaction), and its
// agent-aprompt_suggestion-*.jsonl the agent that guesses what the user
// might type next (a guess, not anyone's words); a
// Codex home keeps its rollouts in sessions/ and archived_sessions/, and
// beside them the Codex app's worktrees/ (whole checkouts of the
// person's repositories, not walked), its logs and shell snapshots;
// OpenClaw writes sidecars beside its sessions (backups, checkpoints,
// temporary files, locks, trajectories) and keeps folders that hold no
// memory to read (its SQLite search index, cron run logs, the browser
// profile, installed extensions), not descended into; a Hermes home holds
// the agent's own checkout and virtual environment, its logs, skills and
// caches, none of which are read (and walking them costs a sync its time);
// a Gemini CLI home keeps file snapshots for /restore (history/, each
// project's checkpoints/) and its extensions, skills and commands, none
// of them memory; in a folder of repositories, the dependencies and
// virtual environments a build installs hold no Aider history, and there
// are many of them (hidden folders, .git and .venv, are never entered); a
// notes folder that is also a site's source (Quartz, VitePress) holds
// node_modules, whose packages' READMEs are not notes and are thousands;
// a Logseq graph keeps copies of its pages, their older text in
// logseq/bak/ and its sync's versions in logseq/version-files/, which
// would answer as the pages' current text.
var kindExcludes = map[string][]string{
	config.KindMarkdown:   {"node_modules", "{,**/}logseq/{bak,version-files}"},
	config.KindClaudeCode: {"**/tool-results/**", "agent-acompact-*.jsonl", "agent-aprompt_suggestion-*.jsonl"},
	config.KindCodex:      {"{worktrees,log,shell_snapshots}/**"},
	config.KindOpenClaw:   {"*.bak", "*.tmp", "*.lock", "*.checkpoint", "*.checkpoint.*", "*.trajectory.*", "node_modules", "{memory,cron,browser,extensions,media,logs}/**"},
	config.KindHermes:     {"hermes-agent", "node_modules", "venv", "logs", "skills", "sessions", "cron", "cache", "image_cache", "audio_cache", "checkpoints"},
	config.KindGemini:     {"{history,extensions,skills,commands,node_modules}/**", "tmp/*/checkpoints/**"},
	config.KindAider:      {"node_modules", "__pycache__", "venv", "site-packages", "vendor"},
}

// commonExcludes are excluded from a source of any kind: what editors,
// browsers, sync services and volumes leave beside its files. On an
// exFAT or network volume macOS keeps an AppleDouble file of binary
// metadata beside each file (._note.md); Emacs a lock link to a file
// that never exists beside a file it edits (.#note.md, reported as an
// unreachable link); Safari a folder beside a download it has not
// finished (export.jsonl.download/) that holds the file's first bytes
// under its final name. The recycle bins of a Windows-formatted drive
// ($RECYCLE.BIN, RECYCLER) and of a Synology share (#recycle) hold
// deleted files (as the hidden .Trash-1000 and .trash, which are
// skipped as hidden folders). Conflict copies of sync services are
// files like any other: they may hold what the original lost.
var commonExcludes = []string{"._*", ".#*", "*.download", "$RECYCLE.BIN", "RECYCLER", "#recycle"}

// List enumerates the files of src: the files matching its include globs
// (or its kind's, see kindIncludes) and none of its exclude globs. It is
// the one listing used by the full read, incremental sync and the watcher.
//
// Globs use github.com/bmatcuk/doublestar/v4 syntax and are matched
// against the slash-separated path relative to src.Path: "**" matches any
// number of directories ("**/drafts/*" matches a/drafts/x.md and
// drafts/x.md; "archive/**" matches archive/2024/x.md). A glob without a
// "/" also matches the base name at any depth ("*.md" matches a/b.md). A
// directory matched by an exclude glob is not descended into.
//
// Hidden directories (.git, .obsidian, .trash) are skipped, and so is an
// Obsidian vault's templates folder (and, by an
// aider source, a repository's folders below its root: see SkipsDir),
// symlinked directories are not followed (unless the source's path is
// one: WalkRoot) and symlinked files are. A directory that
// cannot be read is a Problem, not an error; a source path that does not
// exist is ErrSourceMissing (unless iCloud Drive evicted it: its stub
// stands beside it, and the listing names it NotDownloaded), and one that
// cannot be read is an error. An iCloud stub of a file the source would
// read is named in NotDownloaded, not listed.
func List(src config.Source) (Listing, error) {
	root := src.Path
	fi, err := os.Stat(root)
	if errors.Is(err, fs.ErrNotExist) {
		if evicted(root) {
			return Listing{NotDownloaded: []string{root}}, nil
		}
		return Listing{}, fmt.Errorf("%w: %s", ErrSourceMissing, root)
	}
	if err != nil {
		return Listing{}, fmt.Errorf("source %s: %w", src.Name, err)
	}
	include := src.Include
	if len(include) == 0 {
		include = kindIncludes[src.Kind]
	}
	exclude := excludes(src)
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		// Not listed: the read's open of a named pipe would wait for a
		// writer, and the sync (the watcher's too) with it.
		return Listing{}, fmt.Errorf("%w: %s is a %s", ErrSourceNotFile, root, fileType(fi.Mode()))
	}
	if !fi.IsDir() {
		return Listing{Files: []File{{Path: root, Rel: filepath.Base(root), Info: fi}}}, nil
	}
	var out Listing
	repos := gitFolders{}
	walk := WalkRoot(root)
	err = walkDir(walk, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == walk {
				return err
			}
			// A directory whose entries cannot be read is reported and
			// skipped; WalkDir calls back a second time with the error.
			if d != nil && d.IsDir() {
				out.Problems = append(out.Problems, Problem{Source: src.Name, Path: p, Reason: "directory cannot be read: " + pathErrReason(err), Passing: Passing(err)})
				return fs.SkipDir
			}
			out.Problems = append(out.Problems, Problem{Source: src.Name, Path: p, Reason: "cannot be listed: " + pathErrReason(err)})
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p != walk && skipsDir(src, exclude, repos, rel) {
				return fs.SkipDir
			}
			return nil
		}
		if note := cloudStubOf(d.Name()); note != "" && d.Type().IsRegular() {
			if listsFile(include, exclude, path.Join(path.Dir(rel), note)) {
				out.NotDownloaded = append(out.NotDownloaded, filepath.Join(filepath.Dir(p), note))
			}
			return nil
		}
		if !listsFile(include, exclude, rel) {
			return nil
		}
		var info fs.FileInfo
		if d.Type()&fs.ModeSymlink != 0 {
			// A dangling link or a link to a directory is not a file to
			// read; a dangling one is worth saying (its target may be on a
			// volume that is not mounted).
			target, err := os.Stat(p)
			if err != nil {
				out.Problems = append(out.Problems, Problem{Source: src.Name, Path: p, Reason: reasonDanglingLink + pathErrReason(err)})
				return nil
			}
			if !target.Mode().IsRegular() {
				return nil
			}
			info = target
		} else if !d.Type().IsRegular() {
			return nil
		} else if info, err = d.Info(); err != nil {
			// Removed between the listing and now: nothing to read.
			return nil
		}
		out.Files = append(out.Files, File{Path: p, Rel: rel, Info: info, Dataless: dataless(info)})
		return nil
	})
	if err != nil {
		return Listing{}, fmt.Errorf("source %s: %w", src.Name, err)
	}
	sort.Slice(out.Files, func(i, j int) bool { return out.Files[i].Rel < out.Files[j].Rel })
	slices.Sort(out.NotDownloaded)
	if src.Kind == config.KindCursor {
		memo := &listingMemo{}
		for i := range out.Files {
			out.Files[i].memo = memo
		}
	}
	return out, nil
}

// cloudStubOf is the name of the file the iCloud stub named name stands
// for, "" when name is no stub. Before macOS Sonoma, iCloud Drive evicts
// a file Note.md by replacing it with a small hidden file,
// .Note.md.icloud (a property list of the file's name and size), and
// puts Note.md back when it is downloaded.
func cloudStubOf(name string) string {
	note, ok := strings.CutSuffix(name, ".icloud")
	if !ok || len(note) < 2 || note[0] != '.' {
		return ""
	}
	return note[1:]
}

// CloudStub is the path of the iCloud stub that stands for the evicted
// file at path (see cloudStubOf).
func CloudStub(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".icloud")
}

// IsCloudStub reports whether the file at path is an iCloud stub.
func IsCloudStub(path string) bool { return cloudStubOf(filepath.Base(path)) != "" }

// evicted reports whether the file at path, which does not exist, is one
// iCloud Drive evicted: its stub (see cloudStubOf) stands beside it.
func evicted(path string) bool {
	fi, err := os.Lstat(CloudStub(path))
	return err == nil && fi.Mode().IsRegular()
}

// dataless reports whether the file stat'd as fi is dataless (see
// File.Dataless); tests replace it, as only macOS marks files so.
var dataless = statDataless

// walkDir is filepath.WalkDir; tests replace it to fail the reading of a
// folder as the system may (too many open files, an I/O error).
var walkDir = filepath.WalkDir

// WalkRoot is the path to give filepath.WalkDir for the source folder at
// path. WalkDir follows no link, its root's included, so a source that is
// a link to a folder (a notes folder linked from a synced drive) listed
// nothing; with a trailing separator the root's Lstat resolves the link,
// and the paths below it still begin with the link's path.
func WalkRoot(path string) string {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return path + string(filepath.Separator)
	}
	return path
}

// SkipsDir reports whether List does not descend into the folder at rel
// (slash-separated, relative to src.Path, not "."): a hidden folder, one
// an exclude glob of the source or of its kind matches, NOVA_HOME
// (config.Source.NovaHome), an Obsidian vault's templates folder (see
// obsidianTemplates), or, for an aider
// source, one inside a repository (see insideRepository). Only the
// folder itself is judged, as List judges each folder it meets: a folder
// below a skipped one is never reached. The watcher asks it of every
// folder it would watch, so it watches what List reads and nothing else.
func SkipsDir(src config.Source, rel string) bool {
	return rel != "." && skipsDir(src, excludes(src), nil, rel)
}

// ListsFile reports whether List lists a file at rel (slash-separated,
// relative to src.Path, a folder) once it enters the file's folder (see
// SkipsDir): its include globs, or its kind's, match and no exclude glob
// does. A file whose name begins with a dot is listed when they say so
// (Aider's .aider.chat.history.md); the watcher asks it of such a file
// before it takes an event for one as a change.
func ListsFile(src config.Source, rel string) bool {
	include := src.Include
	if len(include) == 0 {
		include = kindIncludes[src.Kind]
	}
	return listsFile(include, excludes(src), rel)
}

// Notices reports whether List's answer can change with the file at rel
// (as ListsFile): a file it lists, or the iCloud stub of one, which it
// counts as not downloaded (see cloudStubOf). The watcher asks it of a
// file whose name begins with a dot before it takes an event for one as
// a change: a note evicted, or one another device added that this Mac
// has only as a stub, changes what doctor says of the source.
func Notices(src config.Source, rel string) bool {
	if note := cloudStubOf(path.Base(rel)); note != "" {
		rel = path.Join(path.Dir(rel), note)
	}
	return ListsFile(src, rel)
}

// listsFile is ListsFile with the globs at hand.
func listsFile(include, exclude []string, rel string) bool {
	return matchGlobs(include, rel) && !matchGlobs(exclude, rel)
}

// excludes are the exclude globs of src: its own, its kind's and every
// kind's (commonExcludes).
func excludes(src config.Source) []string {
	return slices.Concat(src.Exclude, kindExcludes[src.Kind], commonExcludes)
}

// skipsDir is SkipsDir with the exclude globs at hand, and what the
// listing learnt of which folders hold .git (nil: nothing).
func skipsDir(src config.Source, exclude []string, repos gitFolders, rel string) bool {
	return strings.HasPrefix(path.Base(rel), ".") || matchGlobs(exclude, rel) || insideRepository(src, repos, rel) ||
		src.NovaHome != "" && filepath.Join(src.Path, filepath.FromSlash(rel)) == src.NovaHome ||
		obsidianTemplates(src, rel)
}

// obsidianTemplates reports whether the folder at rel of a markdown
// source is the templates folder of the Obsidian vault it lies in (the
// nearest folder above it, the source's own included, that holds
// .obsidian): the folder the Templates plugin (.obsidian/templates.json)
// or the Templater plugin takes templates from. A template is no note:
// its boilerplate would answer searches for what it lays out, and its
// placeholders ("date: {{date}}") are no YAML, a problem at every sync.
func obsidianTemplates(src config.Source, rel string) bool {
	if src.Kind != config.KindMarkdown {
		return false
	}
	for vault := path.Dir(rel); ; vault = path.Dir(vault) {
		root := filepath.Join(src.Path, filepath.FromSlash(vault))
		if fi, err := os.Stat(filepath.Join(root, ".obsidian")); err == nil && fi.IsDir() {
			// In either Unicode form: Obsidian writes the name typed
			// (composed), the folder may be named decomposed.
			return slices.ContainsFunc(templateFolders(root), func(folder string) bool { return norm.NFC.String(path.Join(vault, folder)) == norm.NFC.String(rel) })
		}
		if vault == "." {
			return false
		}
	}
}

// templateSettings are where an Obsidian vault's plugins name their
// templates folder: the file, below .obsidian, and its key.
var templateSettings = [][2]string{
	{"templates.json", "folder"},
	{"plugins/templater-obsidian/data.json", "templates_folder"},
}

// templateFolders are the templates folders the Obsidian vault at root
// names, relative to it and slash-separated; a setting that cannot be
// read names none.
func templateFolders(root string) []string {
	var out []string
	for _, s := range templateSettings {
		f, _, err := paths.OpenRegular(filepath.Join(root, ".obsidian", filepath.FromSlash(s[0])))
		if err != nil {
			continue
		}
		var settings map[string]any
		err = json.NewDecoder(io.LimitReader(f, 1<<20)).Decode(&settings)
		f.Close()
		folder, _ := settings[s[1]].(string)
		// Written "Templates", "/Templates" or "Templates/".
		if folder = strings.Trim(path.Clean("/"+filepath.ToSlash(folder)), "/"); err == nil && folder != "" {
			out = append(out, folder)
		}
	}
	return out
}

// insideRepository reports whether an aider source's listing leaves out
// the folder at rel for lying deep inside a repository below the
// source's folder: more than aiderRepoDepth folders below the nearest
// folder above it that holds .git (a folder, or the file of a worktree or
// submodule), or, within those, a folder a build or a package manager
// fills (aiderBuildDirs). The source's own folder is not asked (~/src may
// be a repository too). Aider writes a repository's history at its root,
// or in the folder it ran in when it found no repository there; the rest
// of a repository, its deep source tree and build output, is neither
// walked nor watched: in a folder of repositories that is nearly every
// folder (40 repositories of 200 folders and 1,000 files each took 0.3 s
// to list whole, for 40 files).
// Only the nearest aiderRepoDepth+1 folders above rel are asked: a
// folder deeper in a repository than that lies below one already left
// out, which neither List nor the watcher enters.
func insideRepository(src config.Source, repos gitFolders, rel string) bool {
	if src.Kind != config.KindAider {
		return false
	}
	dir := path.Dir(rel)
	for depth := 1; dir != "." && depth <= aiderRepoDepth+1; depth++ {
		if repos.holdsGit(src.Path, dir) {
			return depth > aiderRepoDepth || aiderBuildDirs[path.Base(rel)]
		}
		dir = path.Dir(dir)
	}
	return false
}

// gitFolders remembers, for one listing, which folders of a source hold
// .git: each folder a repository's folders ask about is looked up once,
// not once per folder below it (the lookups were most of the listing's
// time).
type gitFolders map[string]bool

// holdsGit reports whether the folder at rel of the source at root holds
// .git; a nil gitFolders looks it up each time.
func (g gitFolders) holdsGit(root, rel string) bool {
	if held, ok := g[rel]; ok {
		return held
	}
	_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel), ".git"))
	if g != nil {
		g[rel] = err == nil
	}
	return err == nil
}

// aiderRepoDepth is how many folders deep into a repository an aider
// source's listing goes. Aider writes its history at the root of the
// repository it finds itself in; one in a folder of a repository comes
// from a run that found none (git missing, a folder put in a repository
// later): the top folders (frontend, backend, docs) are where one runs.
// One level more (packages/web) took the listing of 40 repositories of
// 200 folders each from 5 ms to 27 ms (BenchmarkList_aiderRepositories;
// the repositories' roots alone take 1.5 ms, the whole of them 60 ms).
const aiderRepoDepth = 1

// aiderBuildDirs are the folders inside a repository that a build or a
// package manager fills, where Aider does not run; only inside one, as a
// repository in ~/src may be named so. node_modules, vendor and virtual
// environments are left out anywhere (kindExcludes).
var aiderBuildDirs = setOf("build", "dist", "target", "out", "bin", "obj", "coverage", "Pods", "DerivedData")

// reasonDanglingLink begins the reason of a symbolic link whose target
// cannot be reached.
const reasonDanglingLink = "symbolic link to a file that cannot be reached: "

// DanglingLink reports whether p is a symbolic link listed in a source
// whose target cannot be reached (on a volume that is not mounted, or
// removed), rather than a file or folder that cannot be read.
func (p Problem) DanglingLink() bool {
	return strings.HasPrefix(p.Reason, reasonDanglingLink)
}

// pathErrReason is an error without the path it names: a Problem already
// carries the path.
func pathErrReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// passingErrors are the errors of a read or a listing that say nothing
// about the file or folder: the process or the system out of open files
// or memory, an I/O error, an interrupted call, a network volume that
// timed out, went away or handed back a stale handle.
var passingErrors = []error{
	syscall.EMFILE, syscall.ENFILE, syscall.ENOMEM, syscall.ENOBUFS, syscall.EIO, syscall.EINTR, syscall.EAGAIN,
	syscall.EBUSY, syscall.ETIMEDOUT, syscall.ESTALE, syscall.ENETDOWN, syscall.ENETUNREACH, syscall.EHOSTDOWN,
	syscall.EHOSTUNREACH, syscall.ECONNRESET, syscall.ECONNABORTED, os.ErrDeadlineExceeded,
}

// Passing reports whether err, of reading a file or listing a folder,
// is for a reason that passes (too many open files, an I/O error, a
// network volume's timeout, a Hermes database its writer still held
// after the reader's retries): the next try may well succeed, where a
// permission or a file too large stays as it is.
func Passing(err error) bool {
	return err != nil && (slices.ContainsFunc(passingErrors, func(e error) bool { return errors.Is(err, e) }) || transientSQLite(err))
}

// PassingRead reports whether err, of reading f, is for a reason that
// passes (Passing), or, f being dataless (File.Dataless), any failure of
// the system to hand over its content but a permission: the download
// that reading a file kept only in the cloud starts fails as the File
// Provider does, offline or while downloads are not allowed (EDEADLK,
// ETIMEDOUT, a network error), and the file is there once it is
// downloaded. A dataless file's content that is read and found wanting
// (binary, too large) is judged as any file's.
func PassingRead(f File, err error) bool {
	if Passing(err) {
		return true
	}
	var errno syscall.Errno
	return f.Dataless && errors.As(err, &errno) && !errors.Is(err, fs.ErrPermission)
}

// matchGlobs reports whether rel matches one of globs; a glob without a
// "/" is also matched against the base name. Both are compared composed
// (NFC): a glob typed into the configuration is composed, the names a
// Mac gives its folders often decomposed, and "Privé/**" is to leave out
// the folder Privé in either form.
func matchGlobs(globs []string, rel string) bool {
	rel = norm.NFC.String(rel)
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	for _, g := range globs {
		g = norm.NFC.String(g)
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
		if !strings.Contains(g, "/") {
			if ok, _ := doublestar.Match(g, base); ok {
				return true
			}
		}
	}
	return false
}

// fileType names what a path that is neither a regular file nor a
// folder is.
func fileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// openSource opens a listed source file for reading. A file replaced by
// a named pipe after the listing is refused (*paths.NotFileError, which
// the build reports as the file's problem) instead of opened: a plain
// open of a pipe waits for a writer that never comes, and the sync, and
// the watcher, with it.
func openSource(path string) (*os.File, error) {
	f, _, err := paths.OpenRegular(path)
	return f, err
}
