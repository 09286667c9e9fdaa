package skill

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

type testHome struct {
	home    string
	backups Backups
	environ []string
}

func newTestHome(t *testing.T) testHome {
	t.Helper()
	root := t.TempDir()
	h := testHome{home: filepath.Join(root, "home")}
	if err := os.MkdirAll(h.home, 0o755); err != nil {
		t.Fatal(err)
	}
	h.environ = []string{"HOME=" + h.home}
	h.backups = Backups{Root: filepath.Join(root, "nova", "state", "backups", "skills"), Stamp: "20260102T030405.000000000Z"}
	return h
}

func (h testHome) target(t *testing.T, id string) Target {
	t.Helper()
	for _, tg := range Targets(h.environ) {
		if tg.ID == id {
			return tg
		}
	}
	t.Fatalf("no target %s", id)
	return Target{}
}

func install(t *testing.T, h testHome, tg Target, force bool, want Action, result string) Result {
	t.Helper()
	op := PlanInstall(tg, force)
	if op.Action != want {
		t.Fatalf("%s: planned %s (%s: %s), want %s", tg.ID, op.Action, op.State.Class, op.State.Detail, want)
	}
	r := op.Apply(h.backups)
	if r.Result != result {
		t.Fatalf("%s: result %s (%v), want %s", tg.ID, r.Result, r.Err, result)
	}
	return r
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tree lists every path under root with its mode and content.
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		line := strings.TrimPrefix(p, root) + " " + fi.Mode().String()
		if fi.Mode().IsRegular() {
			line += " " + string(read(t, p))
		}
		out = append(out, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func noBackups(t *testing.T, h testHome) {
	t.Helper()
	if _, err := os.Stat(h.backups.Root); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a backup directory was created: %v", err)
	}
}

func TestInstallCreatesFiles(t *testing.T) {
	h := newTestHome(t)
	targets, explicit, err := Select(h.environ, "all")
	if err != nil || explicit || len(targets) != 3 {
		t.Fatalf("Select(all) = %d targets, %v, %v", len(targets), explicit, err)
	}
	for _, tg := range targets {
		install(t, h, tg, false, ActCreate, "installed")
	}
	for rel, agents := range map[string]string{
		".claude/skills/nova-recall/SKILL.md": "claude-code",
		".agents/skills/nova-recall/SKILL.md": "codex, gemini, openclaw",
		".hermes/skills/nova-recall/SKILL.md": "hermes",
	} {
		p := filepath.Join(h.home, rel)
		b := read(t, p)
		if !bytes.Equal(b, Render(agents, "")) {
			t.Errorf("%s is not the rendered skill for %s", rel, agents)
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
			t.Errorf("%s has mode %v, want 0644", rel, fi.Mode().Perm())
		}
		// No temporary file is left behind.
		if entries, _ := os.ReadDir(filepath.Dir(p)); len(entries) != 1 {
			t.Errorf("%s: directory holds %d entries", rel, len(entries))
		}
	}
	noBackups(t, h)
}

func TestSecondInstallIsAlreadyCurrent(t *testing.T) {
	h := newTestHome(t)
	tg := h.target(t, "claude-code")
	install(t, h, tg, false, ActCreate, "installed")
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(tg.File(), old, old); err != nil {
		t.Fatal(err)
	}
	before := tree(t, h.home)
	install(t, h, tg, false, ActAlreadyCurrent, "already-current")
	if fi, _ := os.Stat(tg.File()); !fi.ModTime().Equal(old) {
		t.Errorf("the file was rewritten: mtime %v", fi.ModTime())
	}
	if after := tree(t, h.home); !slices.Equal(before, after) {
		t.Errorf("the second install changed the tree:\n%v\n%v", before, after)
	}
	// A copy whose last line names other agents is current too.
	write(t, tg.File(), Render("codex, hermes", ""))
	install(t, h, tg, false, ActAlreadyCurrent, "already-current")
	noBackups(t, h)
}

func TestUserEditedFileIsPreserved(t *testing.T) {
	h := newTestHome(t)
	tg := h.target(t, "hermes")
	install(t, h, tg, false, ActCreate, "installed")
	edited := bytes.Replace(read(t, tg.File()), []byte("## Language"), []byte("## Language (my notes: answer in French)"), 1)
	write(t, tg.File(), edited)
	op := PlanInstall(tg, false)
	if op.State.Class != ClassCustomized || op.State.Managed || !op.State.UpgradeAvailable() || !strings.Contains(op.State.Detail, "edited") {
		t.Errorf("state %+v", op.State)
	}
	if d := op.Diff(); !strings.Contains(d, "-## Language (my notes: answer in French)\n+## Language\n") {
		t.Errorf("the diff does not show the edit:\n%s", d)
	}
	install(t, h, tg, false, ActPreserveCustomized, "preserved-customized")
	if !bytes.Equal(read(t, tg.File()), edited) {
		t.Fatal("the edited file was changed")
	}
	noBackups(t, h)

	// A file without any marker is preserved too.
	mine := []byte("---\nname: nova-recall\ndescription: mine\n---\nmy own skill\n")
	write(t, tg.File(), mine)
	install(t, h, tg, false, ActPreserveCustomized, "preserved-customized")
	if !bytes.Equal(read(t, tg.File()), mine) {
		t.Fatal("the unmarked file was changed")
	}

	// --force replaces it after a backup.
	r := install(t, h, tg, true, ActOverwrite, "overwritten")
	want := filepath.Join(h.backups.Root, h.backups.Stamp, "hermes", "SKILL.md")
	if r.Backup != want || !bytes.Equal(read(t, want), mine) {
		t.Errorf("backup %q (want %q) does not hold the replaced file", r.Backup, want)
	}
	if !bytes.Equal(read(t, tg.File()), Render("hermes", "")) {
		t.Error("--force did not write the template")
	}
}

func TestOlderManagedVersionIsUpgradedWithBackup(t *testing.T) {
	h := newTestHome(t)
	tg := h.target(t, "codex")
	old := renderVersion(strings.Replace(templateText, "# Nova recall", "# Nova recall (v0)", 1), 0, "codex", "", "")
	write(t, tg.File(), old)
	op := PlanInstall(tg, false)
	if op.State.Class != ClassOlder || !op.State.Managed || op.State.InstalledVersion == nil || *op.State.InstalledVersion != 0 {
		t.Fatalf("state %+v", op.State)
	}
	r := install(t, h, tg, false, ActUpgrade, "upgraded")
	if r.Backup == "" || !bytes.Equal(read(t, r.Backup), old) {
		t.Errorf("backup %q does not hold the old file", r.Backup)
	}
	if !strings.HasPrefix(r.Backup, filepath.Join(h.backups.Root, h.backups.Stamp, "codex")+string(filepath.Separator)) {
		t.Errorf("backup at %s", r.Backup)
	}
	if fi, _ := os.Stat(filepath.Dir(r.Backup)); fi.Mode().Perm() != 0o700 {
		t.Errorf("backup directory mode %v", fi.Mode().Perm())
	}
	if !bytes.Equal(read(t, tg.File()), Render(tg.InstalledFor(), "")) {
		t.Error("the upgrade did not write the current template")
	}
}

func TestNewerManagedVersionIsPreserved(t *testing.T) {
	h := newTestHome(t)
	tg := h.target(t, "claude-code")
	newer := renderVersion(strings.Replace(templateText, "# Nova recall", "# Nova recall (v9)", 1), 9, "claude-code", "", "")
	write(t, tg.File(), newer)
	install(t, h, tg, false, ActPreserveNewer, "preserved-newer")
	if !bytes.Equal(read(t, tg.File()), newer) {
		t.Fatal("the newer file was changed")
	}
	noBackups(t, h)
}

// A file edited between the plan and the write is not overwritten.
func TestStalePlanIsReclassified(t *testing.T) {
	h := newTestHome(t)
	tg := h.target(t, "hermes")
	old := renderVersion(strings.Replace(templateText, "# Nova recall", "# Nova recall (v0)", 1), 0, "hermes", "", "")
	write(t, tg.File(), old)
	op := PlanInstall(tg, false)
	if op.Action != ActUpgrade {
		t.Fatalf("planned %s", op.Action)
	}
	edited := append(bytes.Clone(old), "my line\n"...)
	write(t, tg.File(), edited)
	r := op.Apply(h.backups)
	if r.Result != "preserved-customized" || r.Err != nil {
		t.Errorf("result %+v", r)
	}
	if !bytes.Equal(read(t, tg.File()), edited) {
		t.Error("the edited file was overwritten")
	}
	noBackups(t, h)

	// A file created after a "create" plan is not replaced either.
	tg = h.target(t, "claude-code")
	op = PlanInstall(tg, false)
	write(t, tg.File(), []byte("mine\n"))
	if r := op.Apply(h.backups); r.Result != "preserved-customized" || string(read(t, tg.File())) != "mine\n" {
		t.Errorf("result %+v", r)
	}
}

func TestSymlinksAreRefused(t *testing.T) {
	h := newTestHome(t)
	elsewhere := filepath.Join(h.home, "elsewhere")
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	// A symlinked skill directory.
	tg := h.target(t, "claude-code")
	if err := os.MkdirAll(tg.Root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, tg.Dir()); err != nil {
		t.Fatal(err)
	}
	op := PlanInstall(tg, true)
	if op.State.Class != ClassUnsafe || op.Action != ActRefuse || !strings.Contains(op.State.Detail, "refusing to write through symlinked skill path") {
		t.Errorf("symlinked dir: %s %+v", op.Action, op.State)
	}
	if r := op.Apply(h.backups); r.Result != "refused" || r.Err == nil {
		t.Errorf("result %+v", r)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("something was written through the link: %v", entries)
	}
	if op := PlanUninstall(tg); op.Action != ActRefuse {
		t.Errorf("uninstall through a symlinked dir: %s", op.Action)
	}

	// A symlinked skill file.
	tg = h.target(t, "hermes")
	victim := filepath.Join(elsewhere, "victim.md")
	write(t, victim, Render("hermes", ""))
	if err := os.MkdirAll(tg.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, tg.File()); err != nil {
		t.Fatal(err)
	}
	op = PlanInstall(tg, true)
	if op.Action != ActRefuse {
		t.Errorf("symlinked file: %s %+v", op.Action, op.State)
	}
	op.Apply(h.backups)
	if op := PlanUninstall(tg); op.Action != ActRefuse {
		t.Errorf("uninstall of a symlinked file: %s", op.Action)
	}
	if fi, err := os.Lstat(tg.File()); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
	if !bytes.Equal(read(t, victim), Render("hermes", "")) {
		t.Error("the link's target was changed")
	}

	// A symlinked root is allowed (dotfiles): the skill lands inside it.
	tg = h.target(t, "codex")
	real := filepath.Join(h.home, "dotfiles", "skills")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(tg.Root), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, tg.Root); err != nil {
		t.Fatal(err)
	}
	install(t, h, tg, false, ActCreate, "installed")
	if _, err := os.Stat(filepath.Join(real, ID, FileName)); err != nil {
		t.Error(err)
	}
}

func TestUninstallRemovesExactlyWhatWasInstalled(t *testing.T) {
	h := newTestHome(t)
	targets := Targets(h.environ)
	// The agents' own files, which must survive.
	write(t, filepath.Join(h.home, ".claude", "settings.json"), []byte("{}\n"))
	write(t, filepath.Join(h.home, ".agents", "skills", "other", "SKILL.md"), []byte("other\n"))
	if err := os.MkdirAll(filepath.Join(h.home, ".hermes", "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(h.home, ".claude", "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := tree(t, h.home)
	for _, tg := range targets {
		install(t, h, tg, false, ActCreate, "installed")
	}
	for _, tg := range targets {
		op := PlanUninstall(tg)
		if op.Action != ActRemove {
			t.Fatalf("%s: %s", tg.ID, op.Action)
		}
		if d := op.Diff(); !strings.HasPrefix(d, "--- "+tg.File()+"\n+++ /dev/null\n@@ -1,") {
			t.Errorf("uninstall diff:\n%.200s", d)
		}
		if r := op.Apply(h.backups); r.Result != "removed" || !r.RemovedDir {
			t.Errorf("%s: %+v", tg.ID, r)
		}
	}
	if after := tree(t, h.home); !slices.Equal(before, after) {
		t.Errorf("install then uninstall changed the tree:\nbefore %q\nafter  %q", before, after)
	}
	// Nothing left: uninstall again is a no-op.
	for _, tg := range targets {
		if op := PlanUninstall(tg); op.Action != ActNotInstalled {
			t.Errorf("%s: %s", tg.ID, op.Action)
		}
	}
}

// TestLastLineEditIsKept: the last line is the person's too; only the
// agent list Render writes there is ignored. An instruction added to it
// made status say current and uninstall delete it without a backup.
func TestLastLineEditIsKept(t *testing.T) {
	h := newTestHome(t)
	tg := h.target(t, "claude-code")
	install(t, h, tg, false, ActCreate, "installed")
	generated := read(t, tg.File())
	edited := bytes.Replace(generated, []byte("\nInstalled for: claude-code\n"), []byte("\nInstalled for: claude-code. Never query Nova about the payroll project; it holds stale data.\n"), 1)
	if bytes.Equal(edited, generated) {
		t.Fatal("the generated file has no last line to edit")
	}
	write(t, tg.File(), edited)
	if s := Inspect(tg); s.Class != ClassCustomized || !strings.Contains(s.Detail, "edited") {
		t.Errorf("state %s (%s), want customized", s.Class, s.Detail)
	}
	install(t, h, tg, false, ActPreserveCustomized, "preserved-customized")
	op := PlanUninstall(tg)
	if op.Action != ActKeepCustomized {
		t.Fatalf("uninstall plans %s, want %s", op.Action, ActKeepCustomized)
	}
	if r := op.Apply(h.backups); r.Result != "kept-customized" {
		t.Errorf("%+v", r)
	}
	if !bytes.Equal(read(t, tg.File()), edited) {
		t.Error("the edited file was changed")
	}
	noBackups(t, h)
}

func TestUninstallKeepsCustomizedAndOtherFiles(t *testing.T) {
	h := newTestHome(t)
	tg := h.target(t, "claude-code")
	install(t, h, tg, false, ActCreate, "installed")
	edited := append(read(t, tg.File()), "more\n"...)
	write(t, tg.File(), edited)
	op := PlanUninstall(tg)
	if op.Action != ActKeepCustomized || op.Diff() != "" {
		t.Errorf("%s", op.Action)
	}
	if r := op.Apply(h.backups); r.Result != "kept-customized" {
		t.Errorf("%+v", r)
	}
	if !bytes.Equal(read(t, tg.File()), edited) {
		t.Error("the customized file was changed")
	}

	// An older managed file is Nova's: it goes, but a file the person put
	// beside it keeps the directory.
	tg = h.target(t, "hermes")
	write(t, tg.File(), renderVersion(strings.Replace(templateText, "# Nova recall", "# Nova recall (v0)", 1), 0, "hermes", "", ""))
	write(t, filepath.Join(tg.Dir(), "notes.md"), []byte("mine\n"))
	op = PlanUninstall(tg)
	if r := op.Apply(h.backups); r.Result != "removed" || r.RemovedDir {
		t.Errorf("%+v", r)
	}
	if _, err := os.Stat(filepath.Join(tg.Dir(), "notes.md")); err != nil {
		t.Error(err)
	}
}

func TestSelect(t *testing.T) {
	env := []string{"HOME=/home/u", "HERMES_HOME=/opt/hermes"}
	for spec, want := range map[string][]string{
		"gemini":             {"codex"},
		"openclaw,codex":     {"codex"},
		"claude-code,hermes": {"claude-code", "hermes"},
		"all":                {"claude-code", "codex", "hermes"},
	} {
		ts, _, err := Select(env, spec)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, tg := range ts {
			ids = append(ids, tg.ID)
		}
		if !slices.Equal(ids, want) {
			t.Errorf("Select(%q) = %v, want %v", spec, ids, want)
		}
	}
	if _, _, err := Select(env, "vim"); err == nil || !strings.Contains(err.Error(), "unknown agent") {
		t.Errorf("Select(vim): %v", err)
	}
	// Nova writes no skill for Cursor, which it reaches through MCP.
	if ts, explicit, err := Select(env, "cursor"); err != nil || !explicit || len(ts) != 0 {
		t.Errorf("Select(cursor) = %v, %v, %v; want no target", ts, explicit, err)
	}
	roots := map[string]string{}
	for _, tg := range Targets(env) {
		roots[tg.ID] = tg.File()
	}
	for id, want := range map[string]string{
		"claude-code": "/home/u/.claude/skills/nova-recall/SKILL.md",
		"codex":       "/home/u/.agents/skills/nova-recall/SKILL.md",
		"hermes":      "/opt/hermes/skills/nova-recall/SKILL.md",
	} {
		if roots[id] != want {
			t.Errorf("%s: %s, want %s", id, roots[id], want)
		}
	}
}

func TestDetectedAndDuplicates(t *testing.T) {
	h := newTestHome(t)
	tg := h.target(t, "codex")
	if tg.Detected() || len(tg.Duplicates()) != 0 {
		t.Fatal("detected in an empty home")
	}
	dup := filepath.Join(h.home, ".gemini", "skills", "nova-recall")
	write(t, filepath.Join(dup, "SKILL.md"), Render("gemini", ""))
	if !tg.Detected() {
		t.Error("~/.gemini should detect the shared target")
	}
	if d := tg.Duplicates(); !slices.Equal(d, []Duplicate{{Dir: dup, Agent: "gemini"}}) {
		t.Errorf("duplicates %v", d)
	}
}

// TestOtherHomeIsUpdated: an unedited copy written for another Nova home
// (NOVA_HOME then and now differ) is reported as such, and install
// replaces it, after a backup, with the copy for this home; the default
// home spelled out is the default.
func TestOtherHomeIsUpdated(t *testing.T) {
	h := newTestHome(t)
	tg := h.target(t, "codex")
	if tg.Home() != "" {
		t.Fatalf("default Home() = %q", tg.Home())
	}
	install(t, h, tg, false, ActCreate, "installed")
	same := h
	same.environ = append(slices.Clone(h.environ), "NOVA_HOME="+filepath.Join(h.home, ".nova"))
	install(t, same, same.target(t, "codex"), false, ActAlreadyCurrent, "already-current")

	moved := h
	moved.environ = append(slices.Clone(h.environ), "NOVA_HOME=/srv/nova")
	mt := moved.target(t, "codex")
	if mt.Home() != "/srv/nova" {
		t.Fatalf("Home() = %q", mt.Home())
	}
	st := Inspect(mt)
	if st.Class != ClassOtherHome || !st.Managed || !st.UpgradeAvailable() || !strings.Contains(st.Detail, "/srv/nova") || !strings.Contains(st.Detail, "~/.nova") {
		t.Fatalf("state %+v", st)
	}
	old := read(t, tg.File())
	r := install(t, moved, mt, false, ActUpgrade, "upgraded")
	if r.Backup == "" || !bytes.Equal(read(t, r.Backup), old) {
		t.Errorf("backup %q does not hold the old file", r.Backup)
	}
	if !bytes.Equal(read(t, mt.File()), Render(mt.InstalledFor(), "/srv/nova")) {
		t.Error("install did not write the copy for /srv/nova")
	}
	install(t, moved, mt, false, ActAlreadyCurrent, "already-current")
	// Seen from the default home, that copy is for another home too.
	if st := Inspect(tg); st.Class != ClassOtherHome || !strings.Contains(st.Detail, "/srv/nova") {
		t.Errorf("from the default home: %+v", st)
	}
	// An edited copy for another home is the person's: kept.
	edited := bytes.Replace(read(t, mt.File()), []byte("# Nova recall"), []byte("# Nova recall, mine"), 1)
	write(t, mt.File(), edited)
	install(t, h, tg, false, ActPreserveCustomized, "preserved-customized")
}

// TestOtherFacadeIsUpdated: the skill names the facade address of the
// home's configuration (not the default one, where another home's novad
// may answer); a copy written before facade.port changed is reported as
// written for another address, and install replaces it after a backup; an
// edited one is kept.
func TestOtherFacadeIsUpdated(t *testing.T) {
	h := newTestHome(t)
	conf := filepath.Join(h.home, ".nova", "config.yaml")
	setPort := func(port string) {
		t.Helper()
		write(t, conf, []byte("server: {port: 4037}\nfacade: {port: "+port+"}\n"))
	}
	setPort("4036")
	tg := h.target(t, "hermes")
	if tg.Facade() != "http://127.0.0.1:4036" || tg.Home() != "" {
		t.Fatalf("Facade() = %q, Home() = %q", tg.Facade(), tg.Home())
	}
	install(t, h, tg, false, ActCreate, "installed")
	b := read(t, tg.File())
	if !bytes.Contains(b, []byte("`http://127.0.0.1:4036`")) || bytes.Contains(b, []byte(":3036")) {
		t.Fatalf("the skill does not name the configured facade:\n%s", b)
	}
	if m, _ := Parse(b); !m.Verified || m.Digest != Digest(h.environ) {
		t.Errorf("marker %+v; Digest %s", m, Digest(h.environ))
	}
	install(t, h, tg, false, ActAlreadyCurrent, "already-current")

	for _, c := range []struct{ port, detail string }{
		{"0", "it names the facade at http://127.0.0.1:4036; this home's is on a new port at each start (facade.port 0)"},
		{"3036", "it names the facade on a new port at each start (facade.port 0); this home's is at the default http://127.0.0.1:3036"},
	} {
		port := c.port
		setPort(port)
		if st := Inspect(tg); st.Class != ClassOtherHome || !st.UpgradeAvailable() || !strings.HasPrefix(st.Detail, c.detail) {
			t.Fatalf("facade.port %s: %s: %s", port, st.Class, st.Detail)
		}
		old := read(t, tg.File())
		r := install(t, h, tg, false, ActUpgrade, "upgraded")
		if !bytes.Equal(read(t, r.Backup), old) {
			t.Errorf("facade.port %s: the backup does not hold the old file", port)
		}
		install(t, h, tg, false, ActAlreadyCurrent, "already-current")
		h.backups.Stamp += "x" // the next run's backup folder
	}
	// Back at the default: the same file as with no configuration.
	if !bytes.Equal(read(t, tg.File()), Render("hermes", "")) {
		t.Errorf("with the default facade the skill is not the default one:\n%s", read(t, tg.File()))
	}
	setPort("4036")
	edited := bytes.Replace(read(t, tg.File()), []byte("# Nova recall"), []byte("# Nova recall, mine"), 1)
	write(t, tg.File(), edited)
	install(t, h, tg, false, ActPreserveCustomized, "preserved-customized")
}
