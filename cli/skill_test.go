package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/skill"
)

type skillEnv struct {
	home, nova string
	environ    []string
}

// newSkillEnv is a temp HOME where Claude Code, Codex and Hermes are
// "installed" (their directories exist), and a temp NOVA_HOME.
func newSkillEnv(t *testing.T) skillEnv {
	t.Helper()
	root := t.TempDir()
	e := skillEnv{home: filepath.Join(root, "home"), nova: filepath.Join(root, "nova")}
	for _, d := range []string{".claude", ".codex", ".hermes"} {
		if err := os.MkdirAll(filepath.Join(e.home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.environ = []string{"HOME=" + e.home, "NOVA_HOME=" + e.nova}
	return e
}

func (e skillEnv) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), append([]string{"skill"}, args...), &Invocation{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Environ: e.environ,
	})
	return code, out.String(), errb.String()
}

func (e skillEnv) runJSON(t *testing.T, wantCode int, args ...string) skillJSON {
	t.Helper()
	code, out, errs := e.run(t, append(args, "--json")...)
	if code != wantCode {
		t.Fatalf("skill %v: exit %d, want %d\n%s%s", args, code, wantCode, out, errs)
	}
	var doc skillJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("skill %v --json: %v\n%s", args, err, out)
	}
	return doc
}

// skillJSON decodes the --json output as an agent would.
type skillJSON struct {
	Command         string   `json:"command"`
	SkillID         string   `json:"skillId"`
	TemplateVersion int      `json:"templateVersion"`
	TemplateSHA256  string   `json:"templateSha256"`
	DryRun          bool     `json:"dryRun"`
	BackupRoot      string   `json:"backupRoot"`
	WillWrite       []string `json:"willWrite"`
	OK              bool     `json:"ok"`
	Targets         []struct {
		Target           string   `json:"target"`
		Agents           []string `json:"agents"`
		SkillFile        string   `json:"skillFile"`
		Classification   string   `json:"classification"`
		Managed          bool     `json:"managed"`
		InstalledVersion *int     `json:"installedTemplateVersion"`
		UpgradeAvailable bool     `json:"upgradeAvailable"`
		Action           string   `json:"action"`
		Result           string   `json:"result"`
		Backup           string   `json:"backup"`
		Skipped          string   `json:"skipped"`
		Error            string   `json:"error"`
		Diff             string   `json:"diff"`
		Duplicates       []skill.Duplicate
	} `json:"targets"`
	NoSkill []struct {
		Agent  string `json:"agent"`
		Reason string `json:"reason"`
	} `json:"noSkill"`
}

func (d skillJSON) by(t *testing.T) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, r := range d.Targets {
		v := r.Result
		if v == "" {
			v = string(r.Action)
		}
		if r.Skipped != "" {
			v = "skipped"
		}
		m[r.Target] = v
	}
	return m
}

func skillSnapshot(t *testing.T, roots ...string) []string {
	t.Helper()
	var out []string
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			fi, err := os.Lstat(p)
			if err != nil {
				return err
			}
			line := p + " " + fi.Mode().String()
			if fi.Mode().IsRegular() {
				b, _ := os.ReadFile(p)
				line += " " + fi.ModTime().Format(time.RFC3339Nano) + " " + string(b)
			}
			out = append(out, line)
			return nil
		})
	}
	return out
}

func TestSkillInstallStatusUninstall(t *testing.T) {
	e := newSkillEnv(t)
	before := skillSnapshot(t, e.home, e.nova)

	doc := e.runJSON(t, ExitOK, "install")
	if doc.Command != "install" || doc.SkillID != "nova-recall" || doc.TemplateVersion != skill.TemplateVersion || doc.TemplateSHA256 != skill.Digest(e.environ) || !doc.OK {
		t.Errorf("header %+v", doc)
	}
	want := map[string]string{"claude-code": "installed", "codex": "installed", "hermes": "installed"}
	if got := doc.by(t); !maps.Equal(got, want) {
		t.Errorf("results %v, want %v", got, want)
	}
	files := map[string]string{
		filepath.Join(e.home, ".claude/skills/nova-recall/SKILL.md"): "claude-code",
		filepath.Join(e.home, ".agents/skills/nova-recall/SKILL.md"): "codex, gemini, openclaw",
		filepath.Join(e.home, ".hermes/skills/nova-recall/SKILL.md"): "hermes",
	}
	for p, agents := range files {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(b, skill.Render(agents, e.nova)) {
			t.Errorf("%s: %v", p, err)
		}
		if !strings.HasSuffix(string(b), "\nInstalled for: "+agents+"\n") {
			t.Errorf("%s: last line", p)
		}
	}

	// A second install writes nothing.
	old := time.Date(2021, 5, 6, 7, 8, 9, 0, time.UTC)
	for p := range files {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	mid := skillSnapshot(t, e.home, e.nova)
	doc = e.runJSON(t, ExitOK, "install")
	if got := doc.by(t); !maps.Equal(got, map[string]string{"claude-code": "already-current", "codex": "already-current", "hermes": "already-current"}) {
		t.Errorf("second install: %v", got)
	}
	if len(doc.WillWrite) != 0 {
		t.Errorf("willWrite %v", doc.WillWrite)
	}
	if after := skillSnapshot(t, e.home, e.nova); !slices.Equal(mid, after) {
		t.Error("the second install changed files or mtimes")
	}
	code, out, _ := e.run(t, "install")
	if code != ExitOK || strings.Count(out, "already current") != 3 {
		t.Errorf("text output:\n%s", out)
	}

	st := e.runJSON(t, ExitOK, "status")
	for _, r := range st.Targets {
		if r.Classification != "current" || !r.Managed || r.InstalledVersion == nil || *r.InstalledVersion != skill.TemplateVersion {
			t.Errorf("status %s: %+v", r.Target, r)
		}
	}
	code, out, _ = e.run(t, "status")
	if code != ExitOK || strings.Count(out, "installed, current") != 3 || !strings.Contains(out, "~/.agents/skills/nova-recall/SKILL.md (read by codex, gemini, openclaw)") {
		t.Errorf("status text:\n%s", out)
	}

	// Uninstall removes exactly what install wrote.
	doc = e.runJSON(t, ExitOK, "uninstall")
	if got := doc.by(t); !maps.Equal(got, map[string]string{"claude-code": "removed", "codex": "removed", "hermes": "removed"}) {
		t.Errorf("uninstall: %v", got)
	}
	for p := range files {
		if _, err := os.Lstat(filepath.Dir(p)); !os.IsNotExist(err) {
			t.Errorf("%s remains", filepath.Dir(p))
		}
	}
	// The skills roots install created stay (an agent may use them).
	after := skillSnapshot(t, e.home, e.nova)
	var extra []string
	for _, l := range after {
		if !slices.Contains(before, l) {
			extra = append(extra, l)
		}
	}
	for _, l := range extra {
		if !strings.Contains(l, "/skills ") && !strings.HasSuffix(strings.Fields(l)[0], "/.agents") {
			t.Errorf("left behind: %s", l)
		}
	}
}

func TestSkillDryRunWritesNothing(t *testing.T) {
	e := newSkillEnv(t)
	before := skillSnapshot(t, e.home, e.nova)
	code, out, errs := e.run(t, "install", "--dry-run", "--agent", "gemini")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, w := range []string{"codex", "~/.agents/skills/nova-recall/SKILL.md", "would create it", "--- /dev/null", "+++ " + filepath.Join(e.home, ".agents/skills/nova-recall/SKILL.md"), "@@ -0,0 +1,", "+name: nova-recall", "+Installed for: codex, gemini, openclaw"} {
		if !strings.Contains(out, w) {
			t.Errorf("dry run output lacks %q:\n%.600s", w, out)
		}
	}
	if strings.Contains(out, "claude-code") || strings.Contains(out, "hermes") {
		t.Error("--agent gemini planned other agents")
	}
	doc := e.runJSON(t, ExitOK, "install", "--dry-run")
	if !doc.DryRun || !slices.Equal(doc.WillWrite, []string{"claude-code", "codex", "hermes"}) {
		t.Errorf("dry run: %+v", doc)
	}
	for _, r := range doc.Targets {
		if r.Action != "create" || r.Result != "" || !strings.HasPrefix(r.Diff, "--- /dev/null\n") {
			t.Errorf("%s: action %s result %q", r.Target, r.Action, r.Result)
		}
	}
	if after := skillSnapshot(t, e.home, e.nova); !slices.Equal(before, after) {
		t.Errorf("--dry-run wrote something:\n%v\n%v", before, after)
	}
}

func TestSkillPreservesEditedAndForceBacksUp(t *testing.T) {
	e := newSkillEnv(t)
	e.runJSON(t, ExitOK, "install", "--agent", "claude-code")
	p := filepath.Join(e.home, ".claude/skills/nova-recall/SKILL.md")
	edited := bytes.Replace(skill.Render("claude-code", e.nova), []byte("# Nova recall"), []byte("# Nova recall, my way"), 1)
	if err := os.WriteFile(p, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	doc := e.runJSON(t, ExitOK, "install", "--agent", "claude-code")
	r := doc.Targets[0]
	if r.Result != "preserved-customized" || r.Classification != "customized" || r.Managed || !r.UpgradeAvailable {
		t.Errorf("edited file: %+v", r)
	}
	if b, _ := os.ReadFile(p); !bytes.Equal(b, edited) {
		t.Fatal("the edited file was changed")
	}
	code, out, _ := e.run(t, "install", "--agent", "claude-code", "--dry-run")
	if code != ExitOK || !strings.Contains(out, "would keep it") || !strings.Contains(out, "-# Nova recall, my way\n  +# Nova recall\n") {
		t.Errorf("dry run of an edited file:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(e.nova, "state")); !os.IsNotExist(err) {
		t.Error("a preserved file made a backup")
	}

	doc = e.runJSON(t, ExitOK, "install", "--agent", "claude-code", "--force")
	r = doc.Targets[0]
	if r.Result != "overwritten" || !strings.HasPrefix(r.Backup, filepath.Join(e.nova, "state", "backups", "skills")+"/") || !strings.HasSuffix(r.Backup, "/claude-code/SKILL.md") {
		t.Errorf("--force: %+v", r)
	}
	if b, _ := os.ReadFile(r.Backup); !bytes.Equal(b, edited) {
		t.Error("the backup does not hold the edited file")
	}
	if b, _ := os.ReadFile(p); !bytes.Equal(b, skill.Render("claude-code", e.nova)) {
		t.Error("--force did not install the template")
	}
}

func TestSkillUpgradesOlderWithBackup(t *testing.T) {
	e := newSkillEnv(t)
	p := filepath.Join(e.home, ".hermes/skills/nova-recall/SKILL.md")
	older := strings.Replace(string(skill.Render("hermes", e.nova)), fmt.Sprintf("template-version=%d ", skill.TemplateVersion), "template-version=1 ", 1)
	older = strings.Replace(older, "## Language", "## Language (old wording)", 1)
	sealed, err := skill.Seal([]byte(older))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, sealed, 0o644); err != nil {
		t.Fatal(err)
	}
	st := e.runJSON(t, ExitOK, "status", "--agent", "hermes")
	if r := st.Targets[0]; r.Classification != "managed-older" || r.InstalledVersion == nil || *r.InstalledVersion != 1 {
		t.Fatalf("status: %+v", r)
	}
	doc := e.runJSON(t, ExitOK, "install", "--agent", "hermes")
	r := doc.Targets[0]
	if r.Action != "upgrade" || r.Result != "upgraded" || r.Backup == "" {
		t.Fatalf("upgrade: %+v", r)
	}
	if b, _ := os.ReadFile(r.Backup); !bytes.Equal(b, sealed) {
		t.Error("the backup does not hold the old file")
	}
	if rel, _ := filepath.Rel(filepath.Join(e.nova, "state/backups/skills"), r.Backup); len(strings.Split(rel, "/")) != 3 {
		t.Errorf("backup path %s is not <timestamp>/hermes/SKILL.md", rel)
	}
	if b, _ := os.ReadFile(p); !bytes.Equal(b, skill.Render("hermes", e.nova)) {
		t.Error("not upgraded")
	}
}

func TestSkillRefusesSymlinkedDir(t *testing.T) {
	e := newSkillEnv(t)
	elsewhere := filepath.Join(e.home, "elsewhere")
	root := filepath.Join(e.home, ".claude/skills")
	for _, d := range []string{elsewhere, root} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(elsewhere, filepath.Join(root, "nova-recall")); err != nil {
		t.Fatal(err)
	}
	code, out, _ := e.run(t, "install", "--agent", "claude-code", "--force")
	if code != ExitFailure || !strings.Contains(out, "refusing to write through symlinked skill path") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Error("wrote through the link")
	}
	doc := e.runJSON(t, ExitFailure, "install", "--agent", "claude-code", "--dry-run")
	if doc.OK || doc.Targets[0].Action != "refuse" {
		t.Errorf("%+v", doc)
	}
	st := e.runJSON(t, ExitFailure, "status", "--agent", "claude-code")
	if st.OK || st.Targets[0].Classification != "unsafe" {
		t.Errorf("status: %+v", st)
	}
	if code, out, _ := e.run(t, "status", "--agent", "claude-code"); code != ExitFailure || !strings.Contains(out, "blocked: refusing to write through symlinked skill path") {
		t.Errorf("status text, exit %d:\n%s", code, out)
	}
}

func TestSkillSkipsAgentsNotFound(t *testing.T) {
	e := newSkillEnv(t)
	if err := os.RemoveAll(filepath.Join(e.home, ".hermes")); err != nil {
		t.Fatal(err)
	}
	doc := e.runJSON(t, ExitOK, "install")
	if got := doc.by(t); got["hermes"] != "skipped" || got["claude-code"] != "installed" {
		t.Errorf("%v", got)
	}
	if _, err := os.Stat(filepath.Join(e.home, ".hermes")); !os.IsNotExist(err) {
		t.Error("created ~/.hermes for an agent that is not installed")
	}
	// Naming the agent installs it anyway.
	if got := e.runJSON(t, ExitOK, "install", "--agent", "hermes").by(t); got["hermes"] != "installed" {
		t.Errorf("%v", got)
	}
}

func TestSkillUsage(t *testing.T) {
	e := newSkillEnv(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, ExitUsage, "novactl skill: missing subcommand (want install, uninstall, status)"},
		{[]string{"--help"}, ExitOK, "~/.agents/skills/nova-recall/SKILL.md"},
		{[]string{"install", "--help"}, ExitOK, "--force"},
		{[]string{"uninstall", "--help"}, ExitOK, "--dry-run"},
		{[]string{"frobnicate"}, ExitUsage, "unknown subcommand"},
		{[]string{"install", "--agent", "vim"}, ExitUsage, "unknown agent"},
		{[]string{"install", "extra"}, ExitUsage, "unexpected argument"},
		{[]string{"uninstall", "--force"}, ExitUsage, "force"},
	} {
		// Help asked for is on stdout; a usage error on stderr.
		code, out, errs := e.run(t, c.args...)
		said := errs
		if c.code == ExitOK {
			said = out
		}
		if code != c.code || !strings.Contains(said, c.want) {
			t.Errorf("skill %v: exit %d (want %d), output lacks %q:\n%s%s", c.args, code, c.code, c.want, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(e.home, ".claude", "skills")); !os.IsNotExist(err) {
		t.Error("a usage error wrote something")
	}
}

func TestSkillWarnsAboutDuplicates(t *testing.T) {
	e := newSkillEnv(t)
	dup := filepath.Join(e.home, ".openclaw/skills/nova-recall")
	if err := os.MkdirAll(dup, 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, _ := e.run(t, "install", "--agent", "openclaw")
	if code != ExitOK || !strings.Contains(out, "installed") || !strings.Contains(out, "warning: openclaw also loads another nova-recall at ~/.openclaw/skills/nova-recall") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	// Nova never writes the agent-specific root.
	if entries, _ := os.ReadDir(dup); len(entries) != 0 {
		t.Errorf("wrote into %s", dup)
	}
}

// TestSkillNamesCursorDuplicate: Cursor loads ~/.claude/skills and
// ~/.agents/skills as well as its own roots (cursor.com/docs/skills), so
// with the skill installed for Claude Code and Codex it finds nova-recall
// twice. Neither copy can go (each is the only one its own agent reads):
// status and install name the duplicate for Cursor without telling the
// user to remove a copy. Without Cursor (no ~/.cursor) nothing loads both
// and nothing is said.
func TestSkillNamesCursorDuplicate(t *testing.T) {
	e := newSkillEnv(t)
	code, out, _ := e.run(t, "install", "--agent", "claude-code")
	if code != ExitOK || strings.Contains(out, "cursor") {
		t.Fatalf("one copy is no duplicate: exit %d:\n%s", code, out)
	}
	code, out, _ = e.run(t, "install", "--agent", "codex")
	if code != ExitOK || strings.Contains(out, "cursor") {
		t.Fatalf("without Cursor installed: exit %d, a note about it:\n%s", code, out)
	}
	if code, out, _ = e.run(t, "status"); code != ExitOK || strings.Contains(out, "cursor") {
		t.Fatalf("status without Cursor installed: exit %d, a note about it:\n%s", code, out)
	}
	if err := os.MkdirAll(filepath.Join(e.home, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, _ = e.run(t, "install", "--agent", "codex")
	want := "note: cursor also loads the nova-recall at ~/.claude/skills/nova-recall and may list the skill twice; keep both: claude-code reads only that one"
	if code != ExitOK || !strings.Contains(out, want) || strings.Contains(out, "remove one copy") {
		t.Errorf("install: exit %d, want %q:\n%s", code, want, out)
	}
	code, out, _ = e.run(t, "status")
	if code != ExitOK || !strings.Contains(out, want) || strings.Count(out, "cursor also loads") != 1 {
		t.Errorf("status: exit %d, want %q once:\n%s", code, want, out)
	}
	got := e.runJSON(t, ExitOK, "status")
	var dups []skill.Duplicate
	for _, r := range got.Targets {
		dups = append(dups, r.Duplicates...)
	}
	wantDup := skill.Duplicate{Dir: filepath.Join(e.home, ".claude/skills/nova-recall"), Agent: "cursor", KeepFor: "claude-code"}
	if len(dups) != 1 || dups[0] != wantDup {
		t.Errorf("duplicates %+v, want %+v", dups, wantDup)
	}
}

// TestSkillWarnsWithoutNovactlOnPath: the skill tells agents to run
// novactl search, so an install where no novactl is on PATH says the
// agents will not find it.
func TestSkillWarnsWithoutNovactlOnPath(t *testing.T) {
	e := newSkillEnv(t)
	bin := filepath.Join(t.TempDir(), "bin")
	e.environ = append(e.environ, "PATH="+bin)
	code, out, errs := e.run(t, "install", "--agent", "claude-code")
	if code != ExitOK || !strings.Contains(out, "no novactl on PATH") {
		t.Errorf("without novactl on PATH (%d):\n%s%s", code, out, errs)
	}
	if err := os.MkdirAll(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "novactl"), []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	code, out, errs = e.run(t, "install", "--agent", "claude-code")
	if code != ExitOK || strings.Contains(out, "PATH") {
		t.Errorf("with novactl on PATH (%d):\n%s%s", code, out, errs)
	}
	// Uninstall has no use for it.
	if err := os.Remove(filepath.Join(bin, "novactl")); err != nil {
		t.Fatal(err)
	}
	if code, out, errs = e.run(t, "uninstall", "--agent", "claude-code"); code != ExitOK || strings.Contains(out, "PATH") {
		t.Errorf("uninstall (%d):\n%s%s", code, out, errs)
	}
}

// TestSkillCarriesNovaHome: the skill installed by a novactl whose
// NOVA_HOME is not the default runs novactl with that home; a default
// home gets the same file as before homes were carried; status reports a
// copy written for another home, and install updates it.
func TestSkillCarriesNovaHome(t *testing.T) {
	e := newSkillEnv(t)
	p := filepath.Join(e.home, ".claude/skills/nova-recall/SKILL.md")
	doc := e.runJSON(t, ExitOK, "install", "--agent", "claude-code")
	b, _ := os.ReadFile(p)
	if doc.TemplateSHA256 != skill.Digest(e.environ) || !bytes.Equal(b, skill.Render("claude-code", e.nova)) ||
		!strings.Contains(string(b), "    NOVA_HOME='"+e.nova+"' novactl search \"<query>\" --top-k 8 --json\n") {
		t.Fatalf("the installed skill does not name NOVA_HOME %s:\n%s", e.nova, b)
	}

	// Another home: status says so, and install replaces the copy.
	other := e
	other.environ = append(slices.Clone(e.environ), "NOVA_HOME="+filepath.Join(e.home, "elsewhere"))
	st := other.runJSON(t, ExitOK, "status", "--agent", "claude-code")
	if r := st.Targets[0]; r.Classification != "managed-other-home" || !r.Managed || !r.UpgradeAvailable {
		t.Errorf("status for another home: %+v", r)
	}
	code, out, _ := other.run(t, "status", "--agent", "claude-code")
	if code != ExitOK || !strings.Contains(out, "another Nova home") || !strings.Contains(out, e.nova) || !strings.Contains(out, "`novactl skill install` updates it") {
		t.Errorf("status text:\n%s", out)
	}
	code, out, _ = other.run(t, "install", "--agent", "claude-code")
	if code != ExitOK || !strings.Contains(out, "updated for NOVA_HOME ~/elsewhere") {
		t.Errorf("install text:\n%s", out)
	}
	if b, _ := os.ReadFile(p); !bytes.Equal(b, skill.Render("claude-code", filepath.Join(e.home, "elsewhere"))) {
		t.Errorf("install for another home wrote:\n%s", b)
	}

	// The default home (unset, or spelled out) writes the file it always did.
	for _, env := range [][]string{{"HOME=" + e.home}, {"HOME=" + e.home, "NOVA_HOME=" + filepath.Join(e.home, ".nova")}} {
		def := e
		def.environ = env
		doc = def.runJSON(t, ExitOK, "install", "--agent", "claude-code")
		if r := doc.Targets[0]; r.Result != "upgraded" && r.Result != "already-current" || doc.TemplateSHA256 != skill.Digest(env) {
			t.Errorf("default home %v: %+v", env, doc)
		}
		if b, _ := os.ReadFile(p); !bytes.Equal(b, skill.Render("claude-code", "")) || strings.Contains(string(b), "NOVA_HOME=") {
			t.Errorf("default home %v wrote:\n%s", env, b)
		}
	}
}

// TestSkillNamesClaudePermissionRule: installing for Claude Code names
// the permission rule that lets it run the skill's search without asking,
// as a JSON string for permissions.allow; with a relocated home the rule
// starts with the NOVA_HOME= assignment the skill's command carries (a
// rule for plain `novactl search` does not match a command with an
// assignment in front). Other agents get no such note.
func TestSkillNamesClaudePermissionRule(t *testing.T) {
	e := newSkillEnv(t)
	code, out, errs := e.run(t, "install", "--agent", "claude-code")
	rule := `"Bash(NOVA_HOME='` + e.nova + `' novactl search *)"`
	if code != ExitOK || !strings.Contains(out, rule) || !strings.Contains(out, "~/.claude/settings.json") {
		t.Errorf("install (%d) lacks %s:\n%s%s", code, rule, out, errs)
	}
	// Already current: said again, the rule is still needed.
	if _, out, _ = e.run(t, "install", "--agent", "claude-code"); !strings.Contains(out, rule) {
		t.Errorf("second install lacks %s:\n%s", rule, out)
	}
	def := e
	def.environ = []string{"HOME=" + e.home}
	if _, out, _ = def.run(t, "install", "--agent", "claude-code"); !strings.Contains(out, `"Bash(novactl search *)"`) {
		t.Errorf("default home install lacks the plain rule:\n%s", out)
	}
	if _, out, _ = e.run(t, "install", "--agent", "hermes"); strings.Contains(out, "Bash(") {
		t.Errorf("hermes install names a Claude Code rule:\n%s", out)
	}
}

// TestSkillJSONCarriesClaudePermissionRule: --json gives the rule for
// Claude Code's root only.
func TestSkillJSONCarriesClaudePermissionRule(t *testing.T) {
	e := newSkillEnv(t)
	_, out, _ := e.run(t, "status", "--json")
	var doc struct {
		Targets []struct {
			Target               string `json:"target"`
			ClaudePermissionRule string `json:"claudePermissionRule"`
		} `json:"targets"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Targets {
		want := ""
		if r.Target == "claude-code" {
			// Spelt out, not skill.ClaudePermissionRule: an empty or
			// wrong rule from it would be wanted too.
			want = "Bash(NOVA_HOME='" + e.nova + "' novactl search *)"
		}
		if r.ClaudePermissionRule != want {
			t.Errorf("%s: rule %q, want %q", r.Target, r.ClaudePermissionRule, want)
		}
	}
}

// TestSkillNamesConfiguredFacade: the skill's HTTP fallback names the
// facade of the home it was installed for. With facade.port set, the URL
// it gives reaches that home's novad (the default 127.0.0.1:3036 is
// another home's novad, another program, or nothing); with port 0 (a new
// port at each start) it gives no fixed URL at all.
func TestSkillNamesConfiguredFacade(t *testing.T) {
	e := newSkillEnv(t)
	direct := novatest.ClosedPort(t)
	facade := novatest.ClosedPort(t, direct)
	novatest.Must(t, os.MkdirAll(e.nova, 0o700))
	novatest.Must(t, os.WriteFile(filepath.Join(e.nova, "config.yaml"),
		fmt.Appendf(nil, "server: {host: 127.0.0.1, port: %d}\nfacade: {port: %d}\n", direct, facade), 0o600))
	cfg, err := config.Load(e.environ)
	novatest.Must(t, err)
	startNovad(t, cfg)

	p := filepath.Join(e.home, ".claude/skills/nova-recall/SKILL.md")
	if code, out, errs := e.run(t, "install", "--agent", "claude-code"); code != ExitOK {
		t.Fatalf("install: exit %d\n%s%s", code, out, errs)
	}
	b, _ := os.ReadFile(p)
	urls := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`).FindAllString(string(b), -1)
	want := fmt.Sprintf("http://127.0.0.1:%d", facade)
	if len(urls) == 0 || slices.ContainsFunc(urls, func(u string) bool { return u != want }) {
		t.Fatalf("the skill names %v, want only this home's facade %s:\n%s", urls, want, b)
	}
	// An agent following the skill over HTTP reaches this home's novad.
	resp, err := http.Get(urls[0] + api.PathFacadeHealth)
	novatest.Must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s: %s", urls[0]+api.PathFacadeHealth, resp.Status)
	}
	if code, out, _ := e.run(t, "status", "--agent", "claude-code"); code != ExitOK || !strings.Contains(out, "installed, current") {
		t.Errorf("status after install:\n%s", out)
	}

	// Port 0: no URL would stay right, so the skill names none.
	novatest.Must(t, os.WriteFile(filepath.Join(e.nova, "config.yaml"), []byte("server: {port: 0}\nfacade: {port: 0}\n"), 0o600))
	if code, out, errs := e.run(t, "install", "--agent", "claude-code"); code != ExitOK || !strings.Contains(out, "updated") {
		t.Fatalf("install after the port changed: exit %d\n%s%s", code, out, errs)
	}
	b, _ = os.ReadFile(p)
	if u := regexp.MustCompile(`http://[^ ]*:[0-9]+`).FindString(string(b)); u != "" || !strings.Contains(string(b), "port at each start") {
		t.Errorf("with facade.port 0 the skill names %q:\n%s", u, b)
	}
}

// TestSkillRefusesAnotherUsersAgentDirectory: novactl skill run as
// another user than the one whose agent directory it would write (sudo
// keeps HOME) refuses, and creates nothing there: a skills folder it
// made would be that user's no longer, and their agent could not write
// its own skills into it, nor they update or remove Nova's.
func TestSkillRefusesAnotherUsersAgentDirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a directory to another user takes root")
	}
	e := newSkillEnv(t)
	claude := filepath.Join(e.home, ".claude")
	novatest.Must(t, os.Chown(claude, 65534, 65534))
	code, out, errs := e.run(t, "install", "--agent", "claude-code")
	if code != ExitFailure || !strings.Contains(out, claude+" is owned by another user") {
		t.Errorf("install: exit %d:\n%s%s", code, out, errs)
	}
	if _, err := os.Lstat(filepath.Join(claude, "skills")); err == nil {
		t.Error("install created a skills folder in another user's agent directory")
	}
	if doc := e.runJSON(t, ExitFailure, "install", "--agent", "claude-code", "--dry-run"); doc.OK || doc.Targets[0].Action != "refuse" {
		t.Errorf("dry run: %+v", doc)
	}
	if st := e.runJSON(t, ExitFailure, "status", "--agent", "claude-code"); st.Targets[0].Classification != "unsafe" {
		t.Errorf("status: %+v", st)
	}
	// The agent directories of the user novactl runs as are written.
	if code, out, _ := e.run(t, "install", "--agent", "hermes"); code != ExitOK || !strings.Contains(out, "installed") {
		t.Errorf("install for hermes: exit %d:\n%s", code, out)
	}

	// A home that is another user's: no skills root is made in it.
	e = newSkillEnv(t)
	novatest.Must(t, os.Chown(e.home, 65534, 65534))
	if code, out, _ := e.run(t, "install", "--agent", "codex"); code != ExitFailure || !strings.Contains(out, e.home+" is owned by another user") {
		t.Errorf("install into another user's home: exit %d:\n%s", code, out)
	}
	if _, err := os.Lstat(filepath.Join(e.home, ".agents")); err == nil {
		t.Error("install created ~/.agents in another user's home")
	}

	// An agent folder named outside the home, not made yet, under another
	// user's folder: not installed, as before (the agent is not here).
	e = newSkillEnv(t)
	other := filepath.Join(t.TempDir(), "other")
	novatest.Must(t, os.Mkdir(other, 0o755))
	novatest.Must(t, os.Chown(other, 65534, 65534))
	e.environ = append(e.environ, "HERMES_HOME="+filepath.Join(other, "hermes"))
	if st := e.runJSON(t, ExitOK, "status", "--agent", "hermes"); st.Targets[0].Classification != "missing" {
		t.Errorf("status of a hermes home not made yet: %+v", st)
	}
	if doc := e.runJSON(t, ExitOK, "install"); doc.by(t)["hermes"] != "skipped" {
		t.Errorf("install skips a hermes not found: %v", doc.by(t))
	}
}

// TestSkillSaysSkillsLinkIsDangling: a skills folder kept as a link (to a
// dotfiles repository) whose target is gone is named as such by install
// and status, and nothing is created at the link's target; install said
// "mkdir ~/.claude/skills: file exists" while status said to run install.
func TestSkillSaysSkillsLinkIsDangling(t *testing.T) {
	e := newSkillEnv(t)
	gone := filepath.Join(e.home, "dotfiles", "claude-skills")
	root := filepath.Join(e.home, ".claude", "skills")
	novatest.Must(t, os.Symlink(gone, root))
	want := root + " is a link to " + gone + ", which does not exist"
	code, out, errs := e.run(t, "install", "--agent", "claude-code")
	if code != ExitFailure || !strings.Contains(out, want) {
		t.Errorf("install: exit %d, want %q:\n%s%s", code, want, out, errs)
	}
	if _, err := os.Lstat(gone); err == nil {
		t.Error("install created the link's target")
	}
	code, out, _ = e.run(t, "status", "--agent", "claude-code")
	if code != ExitFailure || !strings.Contains(out, want) {
		t.Errorf("status: exit %d, want %q:\n%s", code, want, out)
	}
	// There is nothing to uninstall there.
	if code, out, _ := e.run(t, "uninstall", "--agent", "claude-code"); code != ExitOK || !strings.Contains(out, "not installed") {
		t.Errorf("uninstall: exit %d:\n%s", code, out)
	}
	// Once the target is back, install writes through the root's link.
	novatest.Must(t, os.MkdirAll(gone, 0o755))
	if code, out, _ := e.run(t, "install", "--agent", "claude-code"); code != ExitOK || !strings.Contains(out, "installed") {
		t.Errorf("install with the link's target back: exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(gone, "nova-recall", "SKILL.md")); err != nil {
		t.Error(err)
	}
}

// TestSkillSaysSkillsFolderIsAFile: a file where the skills folder should
// be is named as such, and install fails; it said "kept: cannot read it
// (lstat ...: not a directory)" and exited 0 with no skill installed.
func TestSkillSaysSkillsFolderIsAFile(t *testing.T) {
	e := newSkillEnv(t)
	root := filepath.Join(e.home, ".claude", "skills")
	novatest.Must(t, os.WriteFile(root, []byte("not a folder\n"), 0o644))
	want := root + " is a file, not a folder"
	if code, out, errs := e.run(t, "install", "--agent", "claude-code"); code != ExitFailure || !strings.Contains(out, want) {
		t.Errorf("install: exit %d, want %q:\n%s%s", code, want, out, errs)
	}
	if code, out, _ := e.run(t, "status", "--agent", "claude-code"); code != ExitFailure || !strings.Contains(out, want) {
		t.Errorf("status: exit %d, want %q:\n%s", code, want, out)
	}
	if code, out, _ := e.run(t, "uninstall", "--agent", "claude-code"); code != ExitOK || !strings.Contains(out, "not installed") {
		t.Errorf("uninstall: exit %d:\n%s", code, out)
	}
	if b, _ := os.ReadFile(root); string(b) != "not a folder\n" {
		t.Errorf("the file became %q", b)
	}
}

// TestSkill_Cursor: Nova writes no skill for Cursor, which it reaches
// through MCP: named with --agent, or found here, install, uninstall and
// status say so plainly (and name the MCP install) and write nothing for
// it; it is not among the agents named when none was found.
func TestSkill_Cursor(t *testing.T) {
	e := newSkillEnv(t)
	if err := os.MkdirAll(filepath.Join(e.home, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := skillSnapshot(t, e.home, e.nova)
	for _, verb := range []string{"install", "uninstall", "status"} {
		code, out, errs := e.run(t, verb, "--agent", "cursor")
		if code != ExitOK || !strings.Contains(out, "cursor") || !strings.Contains(out, "no skill for Cursor") || !strings.Contains(out, "novactl mcp install --agent cursor") {
			t.Errorf("skill %s --agent cursor: exit %d\n%s%s", verb, code, out, errs)
		}
		doc := e.runJSON(t, ExitOK, verb, "--agent", "cursor")
		if len(doc.Targets) != 0 || len(doc.NoSkill) != 1 || doc.NoSkill[0].Agent != "cursor" || !strings.Contains(doc.NoSkill[0].Reason, "MCP") {
			t.Errorf("skill %s --agent cursor --json: %+v", verb, doc)
		}
	}
	if after := skillSnapshot(t, e.home, e.nova); !slices.Equal(after, before) {
		t.Errorf("a skill command for Cursor wrote files: %v", after)
	}
	if code, out, errs := e.run(t, "install", "--agent", "codex,cursor", "--dry-run"); code != ExitOK || !strings.Contains(out, "~/.agents/skills/nova-recall/SKILL.md") || !strings.Contains(out, "no skill for Cursor") {
		t.Errorf("skill install --agent codex,cursor: exit %d\n%s%s", code, out, errs)
	}
	// For every agent: a note for Cursor, found here, and no target.
	doc := e.runJSON(t, ExitOK, "install", "--dry-run")
	for _, r := range doc.Targets {
		if slices.Contains(r.Agents, "cursor") {
			t.Errorf("a skill target for Cursor: %+v", r)
		}
	}
	if len(doc.NoSkill) != 1 || doc.NoSkill[0].Agent != "cursor" {
		t.Errorf("install for every agent found: notes %+v", doc.NoSkill)
	}
	// Not found here, Cursor is not mentioned; nor among the agents
	// offered when none was found.
	alone := skillEnv{home: t.TempDir(), nova: e.nova}
	alone.environ = []string{"HOME=" + alone.home, "NOVA_HOME=" + alone.nova}
	if code, out, _ := alone.run(t, "install"); code != ExitOK || !strings.Contains(out, "No supported agent was found") || strings.Contains(out, "cursor") {
		t.Errorf("skill install in an empty home: exit %d\n%s", code, out)
	}
}

// TestSkill_verbHelpDoesNotSayInstalls: novactl skill status --help (and
// uninstall's) opened with "Installs the nova-recall skill", which
// neither does. Every verb's help opens with what the skill is; the verbs
// list below it says what each does.
func TestSkill_verbHelpDoesNotSayInstalls(t *testing.T) {
	e := newSkillEnv(t)
	for _, verb := range []string{"install", "uninstall", "status"} {
		code, out, errs := e.run(t, verb, "--help")
		_, body, _ := strings.Cut(out, "\n\n")
		if code != ExitOK || errs != "" || !strings.HasPrefix(body, "The nova-recall skill is a read-only SKILL.md") || !strings.Contains(body, "  status      show each skill file's state") {
			t.Errorf("skill %s --help: exit %d:\n%s", verb, code, out+errs)
		}
	}
}
