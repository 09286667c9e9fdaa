package ingest

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
)

// writeTree writes files (relative path -> content) under a new temporary
// directory and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestList_globs(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"top.md": "x", "a/drafts/x.md": "x", "drafts/y.md": "x", "a/b/drafts/deep/z.md": "x",
		"archive/2024/x.md": "x", "archive/old.md": "x", "notes/keep.md": "x", "notes/keep.txt": "x",
		".obsidian/hidden.md": "x",
	})
	tests := []struct {
		name             string
		include, exclude []string
		want             string
	}{
		{"kind defaults", nil, nil, "a/b/drafts/deep/z.md a/drafts/x.md archive/2024/x.md archive/old.md drafts/y.md notes/keep.md top.md"},
		{"**/drafts/* at any depth", []string{"**/drafts/*"}, nil, "a/drafts/x.md drafts/y.md"},
		{"archive/** excluded at any depth", nil, []string{"archive/**"}, "a/b/drafts/deep/z.md a/drafts/x.md drafts/y.md notes/keep.md top.md"},
		{"base name glob at any depth", []string{"keep.*"}, nil, "notes/keep.md notes/keep.txt"},
		{"exclude a directory by name", nil, []string{"drafts"}, "archive/2024/x.md archive/old.md notes/keep.md top.md"},
		{"path glob", []string{"notes/*.txt", "top.md"}, nil, "notes/keep.txt top.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := List(config.Source{Name: "n", Kind: config.KindMarkdown, Path: dir, Include: tt.include, Exclude: tt.exclude})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range l.Files {
				got = append(got, f.Rel)
				if f.Info == nil || f.Info.Size() != 1 || f.Path != filepath.Join(dir, filepath.FromSlash(f.Rel)) {
					t.Errorf("file %+v", f)
				}
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("files %q, want %q", strings.Join(got, " "), tt.want)
			}
		})
	}
}

func TestList_unreadableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("every directory is readable by root; e2e TestSync_unreadableDirectory covers this as another user")
	}
	dir := writeTree(t, map[string]string{"ok.md": "# A\n\ntext\n", "locked/secret.md": "# B\n\ntext\n"})
	locked := filepath.Join(dir, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(locked, 0o700) }) // best effort: lets TempDir remove it
	src := config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir}
	l, err := List(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Files) != 1 || len(l.Problems) != 1 || l.Problems[0].Path != locked || l.Problems[0].Source != "notes" ||
		!strings.Contains(l.Problems[0].Reason, "directory cannot be read") {
		t.Fatalf("listing %+v", l)
	}
	recs, problems := collect(t, src)
	if len(recs) != 1 || len(problems) != 1 {
		t.Errorf("Read: %d records, problems %v", len(recs), problems)
	}
}

// TestList_danglingLink: a link whose target cannot be reached is a
// problem that says so (DanglingLink), a link to a directory is skipped
// silently, and a link to a file is read.
func TestList_danglingLink(t *testing.T) {
	dir := writeTree(t, map[string]string{"ok.md": "# A\n\ntext\n", "elsewhere/real.md": "# B\n\ntext\n"})
	for link, target := range map[string]string{"gone.md": "../unmounted/gone.md", "dir.md": "elsewhere", "real.md": "elsewhere/real.md"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	l, err := List(config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range l.Files {
		files = append(files, f.Rel)
	}
	if strings.Join(files, " ") != "elsewhere/real.md ok.md real.md" || len(l.Problems) != 1 ||
		l.Problems[0].Path != filepath.Join(dir, "gone.md") || !l.Problems[0].DanglingLink() {
		t.Fatalf("listing: files %v, problems %+v", files, l.Problems)
	}
	if (Problem{Reason: "directory cannot be read: permission denied"}).DanglingLink() {
		t.Error("an unreadable directory taken for a dangling link")
	}
}

func TestList_missingAndFileSources(t *testing.T) {
	if _, err := List(config.Source{Name: "x", Kind: config.KindJSONL, Path: "/nonexistent/nova"}); err == nil || !strings.Contains(err.Error(), ErrSourceMissing.Error()) {
		t.Errorf("missing source: %v", err)
	}
	dir := writeTree(t, map[string]string{"one.jsonl": "{}\n"})
	l, err := List(config.Source{Name: "x", Kind: config.KindJSONL, Path: filepath.Join(dir, "one.jsonl")})
	if err != nil || len(l.Files) != 1 || l.Files[0].Rel != "one.jsonl" {
		t.Errorf("file source: %+v %v", l, err)
	}
}

func TestBinaryContent(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"prose", "Release v1.4.0 was rolled back.\n\tIndented line.\r\n", false},
		{"chinese", "迁移后定时任务失败，原因是时区配置不同。", false},
		{"a few Latin-1 bytes", "caf\xe9 cr\xe8me and a long enough sentence around them to stay text", false},
		{"NUL", "text\x00more", true},
		{"control characters", strings.Repeat("\x01\x02\x03ab", 20), true},
		{"mostly invalid UTF-8", strings.Repeat("\xff\xfe\xc3", 30) + "ok", true},
		{"replacement characters from a decoder", strings.Repeat("\ufffd\ufffd a", 30), true},
		{"rune cut at the end", "text " + "\xe4\xbd", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := binaryContent(tt.in); got != tt.want {
				t.Errorf("binaryContent = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestRead_recordsWithByteOrderMark: a JSONL export that starts with a
// UTF-8 byte-order mark (PowerShell writes one) loses no record.
func TestRead_recordsWithByteOrderMark(t *testing.T) {
	dir := writeTree(t, map[string]string{"r.jsonl": "\xef\xbb\xbf" + `{"id":"r1","text":"first"}` + "\n" + `{"id":"r2","text":"second"}` + "\n"})
	recs, problems := collect(t, config.Source{Name: "recs", Kind: config.KindJSONL, Path: dir})
	if len(recs) != 2 || len(problems) != 0 || recs[0].ID != "r1" || recs[0].Text != "first" {
		t.Fatalf("records %+v, problems %v", recs, problems)
	}
}

// TestRead_utf16JSONL: JSON lines saved as UTF-16 (Windows
// PowerShell 5's ">" and Out-File write it, with or without a byte-order
// mark) are refused with a problem that says so and how to fix it: they
// were "binary content", which sent the user looking for a broken file.
func TestRead_utf16JSONL(t *testing.T) {
	line := `{"id":"a","text":"The deploy moved to Friday."}` + "\r\n"
	le := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			b.WriteByte(byte(r))
			b.WriteByte(0)
		}
		return b.String()
	}
	be := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			b.WriteByte(0)
			b.WriteByte(byte(r))
		}
		return b.String()
	}
	for name, file := range map[string]string{
		"little-endian with mark": "\xff\xfe" + le(line+line),
		"big-endian with mark":    "\xfe\xff" + be(line+line),
		"little-endian, no mark":  le(line + line),
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"export.jsonl": file})
			recs, problems := collect(t, config.Source{Name: "src", Kind: config.KindJSONL, Path: dir})
			if len(recs) != 0 || len(problems) != 1 || !strings.Contains(problems[0].Reason, "UTF-16") || !strings.Contains(problems[0].Reason, "save it as UTF-8") {
				t.Errorf("%d records, problems %v", len(recs), problems)
			}
		})
	}
}

// TestRead_binaryFiles: a binary file under a text name, in every kind,
// is reported with its path and nothing of it is indexed; a binary record
// inside a text file is reported with its line.
func TestRead_binaryFiles(t *testing.T) {
	elf := "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00" + strings.Repeat("\x00\x10@\x00zyxquartz\x00", 400)
	tests := []struct {
		kind, name string
		files      map[string]string
		records    int
		line       int
	}{
		{config.KindMarkdown, "executable named .md", map[string]string{"tool.md": elf, "ok.md": "# Fine\n\ntext\n"}, 1, 0},
		{config.KindJSONL, "executable named .jsonl", map[string]string{"a.jsonl": elf}, 0, 0},
		{config.KindCodex, "executable named like a rollout", map[string]string{"rollout-x.jsonl": elf}, 0, 0},
		{config.KindClaudeCode, "executable named like a transcript", map[string]string{"p/s.jsonl": elf}, 0, 0},
		{config.KindJSONL, "record whose text is binary", map[string]string{"a.jsonl": `{"id":"ok","text":"fine"}` + "\n" + `{"id":"bin","text":"` + strings.Repeat(`\u0001\u0002x`, 40) + `"}` + "\n"}, 1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, tt.files)
			recs, problems := collect(t, config.Source{Name: "src", Kind: tt.kind, Path: dir})
			for _, r := range recs {
				if strings.Contains(r.Text, "zyxquartz") || strings.ContainsRune(r.Text, 1) {
					t.Errorf("binary text indexed: %q", r.Text)
				}
			}
			if len(recs) != tt.records || len(problems) != 1 || problems[0].Line != tt.line || problems[0].Source != "src" ||
				!strings.Contains(problems[0].Reason, "binary") {
				t.Errorf("%d records, problems %v", len(recs), problems)
			}
		})
	}
}

// TestSkipsDir: the folders List does not enter, one by one, for a
// markdown source with exclude globs and for an OpenClaw state folder,
// whose kind skips folders of its own.
func TestSkipsDir(t *testing.T) {
	notes := config.Source{Name: "notes", Kind: config.KindMarkdown, Path: "/n", Exclude: []string{"archive/**", "drafts"}}
	claw := config.Source{Name: "claw", Kind: config.KindOpenClaw, Path: "/o"}
	tests := []struct {
		src  config.Source
		rel  string
		want bool
	}{
		{notes, ".", false},
		{notes, "projects", false},
		{notes, "projects/2026", false},
		{notes, ".git", true},
		{notes, "projects/.obsidian", true},
		{notes, "archive", true},
		{notes, "projects/archive", false},
		{notes, "drafts", true},
		{notes, "projects/drafts", true},
		// A notes folder that is also a site (Quartz, VitePress) holds its
		// dependencies' READMEs: not notes.
		{notes, "node_modules", true},
		{notes, "site/node_modules", true},
		{claw, "agents", false},
		{claw, "agents/main/sessions", false},
		{claw, "workspace", false},
		{claw, "workspace/memory", false},
		{claw, "memory", true},
		{claw, "browser", true},
		{claw, "extensions", true},
		{claw, "media", true},
		{claw, "logs", true},
		{claw, "cron", true},
		{claw, "workspace/proj/node_modules", true},
		{claw, "workspace/logs", false},
	}
	for _, tt := range tests {
		if got := SkipsDir(tt.src, tt.rel); got != tt.want {
			t.Errorf("SkipsDir(%s, %q) = %v, want %v", tt.src.Name, tt.rel, got, tt.want)
		}
	}
}

// TestSkipsDir_agreesWithList: a note in any folder is listed exactly
// when SkipsDir says no folder on its way is skipped, so the watcher,
// which asks SkipsDir, watches the folders List reads.
func TestSkipsDir_agreesWithList(t *testing.T) {
	folders := []string{"a", "a/b", ".git", ".git/x", "archive", "archive/2024", "x/archive", "drafts", "a/drafts", "a/drafts/deep", "a/.hidden", "node_modules"}
	files := map[string]string{"top.md": "x"}
	for _, f := range folders {
		files[f+"/n.md"] = "x"
	}
	dir := writeTree(t, files)
	src := config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir, Exclude: []string{"archive/**", "drafts"}}
	l, err := List(src)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, f := range l.Files {
		listed[f.Rel] = true
	}
	for _, f := range folders {
		entered := true
		parts := strings.Split(f, "/")
		for i := range parts {
			if SkipsDir(src, strings.Join(parts[:i+1], "/")) {
				entered = false
			}
		}
		if listed[f+"/n.md"] != entered {
			t.Errorf("%s/n.md listed %v, but SkipsDir says the folder is entered: %v", f, listed[f+"/n.md"], entered)
		}
	}
	if len(l.Files) != 4 { // top.md, a, a/b, x/archive
		t.Errorf("listed %d files, want 4: the case proves nothing", len(l.Files))
	}
}

// TestRead_sourceAgent: an agent named on an agent's source (to tell two
// machines' Codex apart, say) is the agent of every record its reader
// labels with the kind: sessions and notes alike. A note's front matter
// still names its own; a source that names none keeps the kind.
func TestRead_sourceAgent(t *testing.T) {
	openclawNotes := writeTree(t, map[string]string{
		"workspace/memory/2026-03-02.md":        "Renewed the staging certificate.\n",
		"workspace/memory/2026-03-03-vendor.md": "---\nagent: someone-else\n---\nThe vendor call moved to Monday.\n",
	})
	hermesHome := writeTree(t, map[string]string{"memories/MEMORY.md": "The billing repo uses banker's rounding.\n§\nThe suite runs with make test.\n"})
	for _, tt := range []struct{ name, kind, path string }{
		{"codex", config.KindCodex, "testdata/codex"},
		{"claude-code", config.KindClaudeCode, "testdata/claude-code/projects"},
		{"openclaw sessions", config.KindOpenClaw, driftRoot + "/openclaw/example-lines"},
		{"openclaw notes", config.KindOpenClaw, openclawNotes},
		{"hermes notes", config.KindHermes, hermesHome},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, agent := range []string{"work-laptop", ""} {
				recs, _ := collect(t, config.Source{Name: "s", Kind: tt.kind, Path: tt.path, Agent: agent})
				if len(recs) == 0 {
					t.Fatal("no records")
				}
				for _, r := range recs {
					want := cmp.Or(agent, tt.kind)
					if strings.Contains(r.Text, "vendor call") {
						want = "someone-else"
					}
					if r.Agent != want {
						t.Errorf("source agent %q: %s has agent %q, want %q", agent, r.ID, r.Agent, want)
					}
				}
			}
		})
	}
}

// TestList_linkedSourceFolder: a source whose path is a symbolic link to
// a folder (a notes folder linked from a synced drive) lists the folder's
// files under the link's path, as a folder does; links inside it to
// folders are still not followed.
func TestList_linkedSourceFolder(t *testing.T) {
	dir := writeTree(t, map[string]string{"vault/a.md": "# A\n\ntext\n", "vault/sub/b.md": "# B\n\ntext\n", "other/c.md": "# C\n\ntext\n"})
	link := filepath.Join(dir, "notes")
	for target, at := range map[string]string{"vault": link, "other": filepath.Join(dir, "vault", "other")} {
		if err := os.Symlink(filepath.Join(dir, target), at); err != nil {
			t.Fatal(err)
		}
	}
	l, err := List(config.Source{Name: "notes", Kind: config.KindMarkdown, Path: link})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range l.Files {
		files = append(files, f.Rel+"="+f.Path)
	}
	want := "a.md=" + filepath.Join(link, "a.md") + " sub/b.md=" + filepath.Join(link, "sub", "b.md")
	if strings.Join(files, " ") != want || len(l.Problems) != 0 {
		t.Fatalf("listing of a linked folder: files %v, problems %+v; want %s", files, l.Problems, want)
	}
}

// TestList_skipsNovaHome: a source whose folder holds NOVA_HOME (not
// hidden) lists its own files, not the index's (history.jsonl, backed-up
// skill files), and SkipsDir says the watcher leaves the home alone too.
func TestList_skipsNovaHome(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.jsonl": "{}\n", "nova/index/history.jsonl": "{}\n", "nova-notes/b.jsonl": "{}\n"})
	src := config.Source{Name: "recs", Kind: config.KindJSONL, Path: dir, NovaHome: filepath.Join(dir, "nova")}
	if got, _ := listed(t, src); got != "a.jsonl nova-notes/b.jsonl" {
		t.Errorf("listing %q, want the source's files without NOVA_HOME's", got)
	}
	if !SkipsDir(src, "nova") || SkipsDir(src, "nova-notes") {
		t.Errorf("SkipsDir: nova %v, nova-notes %v", SkipsDir(src, "nova"), SkipsDir(src, "nova-notes"))
	}
}

// TestList_markdownExtensionCase: a Markdown source lists notes whatever
// the case of their extension (README.MD, Notes.Markdown), and nothing
// else.
func TestList_markdownExtensionCase(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.md": "# A\n", "README.MD": "# R\n", "b/Notes.Markdown": "# N\n", "c.mdx": "x\n", "d.txt": "x\n"})
	if got, _ := listed(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir}); got != "README.MD a.md b/Notes.Markdown" {
		t.Errorf("listing %q", got)
	}
}

// listed lists src, which must not fail, and returns its files' relative
// paths joined by spaces, and its problems.
func listed(t *testing.T, src config.Source) (string, []Problem) {
	t.Helper()
	l, err := List(src)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range l.Files {
		files = append(files, f.Rel)
	}
	return strings.Join(files, " "), l.Problems
}

// TestList_codexHome: a codex source at Codex's home (what config init
// writes) lists the rollouts of sessions/ and of archived_sessions/ (the
// threads a person archived, moved there whole), and does not walk the
// folders that hold none: the Codex app's worktrees/ (whole checkouts of
// the person's repositories) and log/.
func TestList_codexHome(t *testing.T) {
	const name = "rollout-2026-12-01T09-00-00-0a0b0c0d-0000-4000-8000-000000000001.jsonl"
	dir := writeTree(t, map[string]string{
		"sessions/2026/12/01/" + name:        "{}\n",
		"archived_sessions/" + name + ".zst": "",
		"worktrees/ab12/shop/" + name:        "{}\n",
		"log/" + name:                        "{}\n",
		"history.jsonl":                      "{}\n",
	})
	src := config.Source{Name: "codex", Kind: config.KindCodex, Path: dir}
	got, problems := listed(t, src)
	if want := "archived_sessions/" + name + ".zst sessions/2026/12/01/" + name; got != want || len(problems) != 0 {
		t.Errorf("listed %q, problems %v; want %q", got, problems, want)
	}
	// Not entered, nor watched (the watcher asks SkipsDir too).
	if !SkipsDir(src, "worktrees") || SkipsDir(src, "archived_sessions") {
		t.Errorf("SkipsDir: worktrees %v, archived_sessions %v", SkipsDir(src, "worktrees"), SkipsDir(src, "archived_sessions"))
	}
}

// TestList_markdownEditorAndVolumeLitter: a notes folder on an exFAT or
// network volume holds macOS's AppleDouble file beside each note
// (._note.md: binary metadata, read as a binary note), and Emacs keeps a
// lock link beside a note being edited (.#note.md, to user@host.pid,
// which never exists): neither is a note, nor a problem to report.
func TestList_markdownEditorAndVolumeLitter(t *testing.T) {
	dir := writeTree(t, map[string]string{"note.md": "# N\n", "._note.md": "\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X", "sub/._x.md": "\x00\x05\x16\x07"})
	if err := os.Symlink("me@mac.local.4242:1700000000", filepath.Join(dir, ".#note.md")); err != nil {
		t.Fatal(err)
	}
	src := config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir}
	if got, problems := listed(t, src); got != "note.md" || len(problems) != 0 {
		t.Errorf("listing %q, problems %+v; want note.md alone", got, problems)
	}
	for _, rel := range []string{"._note.md", ".#note.md", "sub/._x.md"} {
		if ListsFile(src, rel) {
			t.Errorf("ListsFile(%q): the watcher would take it for a note", rel)
		}
	}
}

// TestList_obsidianTemplates: the folder an Obsidian vault takes its
// templates from (the Templates plugin's, .obsidian/templates.json, or
// Templater's) is not read, nor watched, wherever the vault lies in the
// source; a folder of that name elsewhere is read. A template is no
// note: each was indexed (its boilerplate answering searches), and its
// placeholders ({{date}} is no YAML) were a problem at every sync.
func TestList_obsidianTemplates(t *testing.T) {
	daily := "---\ntitle: \"{{title}}\"\ndate: {{date}}\n---\n# {{title}}\n"
	dir := writeTree(t, map[string]string{
		"vault/.obsidian/templates.json":                       `{"folder":"Meta/Templates/"}`,
		"vault/.obsidian/plugins/templater-obsidian/data.json": `{"templates_folder":"/Templater"}`,
		"vault/Meta/Templates/Daily.md":                        daily,
		"vault/Templater/Weekly.md":                            daily,
		"vault/Meta/note.md":                                   "# N\n",
		"other/Meta/Templates/kept.md":                         "# K\n",
		"bare/.obsidian/templates.json":                        `{}`,
		"bare/Templates/kept.md":                               "# K\n",
	})
	src := config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir}
	want := "bare/Templates/kept.md other/Meta/Templates/kept.md vault/Meta/note.md"
	if got, problems := listed(t, src); got != want || len(problems) != 0 {
		t.Errorf("listing %q, problems %+v; want %q", got, problems, want)
	}
	for _, rel := range []string{"vault/Meta/Templates", "vault/Templater"} {
		if !SkipsDir(src, rel) {
			t.Errorf("SkipsDir(%q) false: the watcher would watch the templates", rel)
		}
	}
	// A source that is the vault itself.
	vault := config.Source{Name: "vault", Kind: config.KindMarkdown, Path: filepath.Join(dir, "vault")}
	if got, _ := listed(t, vault); got != "Meta/note.md" {
		t.Errorf("vault listing %q, want Meta/note.md", got)
	}
}

// TestList_logseqBackups: the copies Logseq keeps of a graph's pages,
// logseq/bak/ (a page's older text, kept when it was changed on disk)
// and logseq/version-files/ (its sync's versions), are neither read nor
// watched, whether the source is the graph or a folder above it: each was
// indexed beside the page, old versions answering as the note's current
// text.
func TestList_logseqBackups(t *testing.T) {
	graph := map[string]string{
		"pages/deploy.md":        "- The port is 3037.\n",
		"journals/2026_11_03.md": "- Met Ana.\n",
		"logseq/config.edn":      "{}\n",
		"logseq/bak/pages/deploy/2026-11-01T10_00_00.000Z.Desktop.md": "- The port is 3036.\n",
		"logseq/version-files/base/pages/deploy.md":                   "- The port is 3036.\n",
	}
	files := map[string]string{}
	for rel, content := range graph {
		files[rel] = content
		files["graphs/work/"+rel] = content
	}
	dir := writeTree(t, files)
	src := config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir}
	want := "graphs/work/journals/2026_11_03.md graphs/work/pages/deploy.md journals/2026_11_03.md pages/deploy.md"
	if got, problems := listed(t, src); got != want || len(problems) != 0 {
		t.Errorf("listing %q, problems %+v; want %q", got, problems, want)
	}
	for _, rel := range []string{"logseq/bak", "graphs/work/logseq/version-files"} {
		if !SkipsDir(src, rel) {
			t.Errorf("SkipsDir(%q) false: the watcher would watch the backups", rel)
		}
	}
}

// TestList_syncAndEditorLitterEveryKind: what sync services, editors,
// browsers and volumes leave beside a source's files is no file of any
// kind: Emacs' lock link beside a JSONL file it edits (.#mem.jsonl, a
// link to a file that never exists), macOS's AppleDouble file on an
// exFAT or network volume (._mem.jsonl, binary), a download Safari has
// not finished (mem.jsonl.download/, a folder holding the file's first
// bytes under its final name), and the recycle bins of a Windows-formatted
// drive ($RECYCLE.BIN, RECYCLER) and of a Synology share (#recycle),
// which hold deleted files. Before, only a markdown source left out the
// first two: a JSONL source reported the lock link as an unreachable
// link (doctor: "mount the volume holding me@mac.local.4242…"), read the
// AppleDouble file and the half-downloaded file, and every source read
// the deleted files as current ones.
func TestList_syncAndEditorLitterEveryKind(t *testing.T) {
	for _, kind := range []string{config.KindJSONL, config.KindMarkdown} {
		ext := map[string]string{config.KindJSONL: ".jsonl", config.KindMarkdown: ".md"}[kind]
		dir := writeTree(t, map[string]string{
			"mem" + ext:                         `{"id":"a","text":"hello"}` + "\n",
			"._mem" + ext:                       "\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X",
			"mem" + ext + ".download/mem" + ext: `{"id":"b","te`,
			"$RECYCLE.BIN/S-1-5-21-42-1001/$RAB12CD" + ext: `{"id":"c","text":"deleted"}` + "\n",
			"RECYCLER/S-1-5-21-42-1001/Dc1" + ext:          `{"id":"d","text":"deleted"}` + "\n",
			"#recycle/old" + ext:                           `{"id":"e","text":"deleted"}` + "\n",
		})
		if err := os.Symlink("me@mac.local.4242:1700000000", filepath.Join(dir, ".#mem"+ext)); err != nil {
			t.Fatal(err)
		}
		src := config.Source{Name: "mem", Kind: kind, Path: dir}
		if got, problems := listed(t, src); got != "mem"+ext || len(problems) != 0 {
			t.Errorf("%s: listing %q, problems %+v; want mem%s alone", kind, got, problems, ext)
		}
		for _, rel := range []string{"._mem" + ext, ".#mem" + ext} {
			if ListsFile(src, rel) {
				t.Errorf("%s: ListsFile(%q): the watcher would take it for a change", kind, rel)
			}
		}
		for _, rel := range []string{"mem" + ext + ".download", "$RECYCLE.BIN", "RECYCLER", "#recycle", "sub/#recycle"} {
			if !SkipsDir(src, rel) {
				t.Errorf("%s: SkipsDir(%q) = false: the watcher would watch it", kind, rel)
			}
		}
	}
}
