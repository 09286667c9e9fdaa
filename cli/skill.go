package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nova-recall/nova/agents"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/skill"
)

const skillHelp = `The nova-recall skill is a read-only SKILL.md that tells an agent when to
consult Nova (only after the current conversation, local files and its own memory,
or when the user asks), how (novactl search --json or the loopback facade), how to
read the evidence, and the bounded follow-up loop (at most 3 searches in 90 s).

  install     write the skill for the agents (default: all agents found here)
  uninstall   remove the skill files Nova wrote and nobody edited
  status      show each skill file's state

Where the skill goes (--agent, comma-separated, or all):
  claude-code  ~/.claude/skills/nova-recall/SKILL.md ($CLAUDE_CONFIG_DIR/skills)
  codex        ~/.agents/skills/nova-recall/SKILL.md
  gemini       the same file as codex: Gemini CLI reads ~/.agents/skills
  openclaw     the same file as codex: OpenClaw reads ~/.agents/skills
  hermes       ~/.hermes/skills/nova-recall/SKILL.md ($HERMES_HOME/skills)
  cursor       none: Nova reaches Cursor through MCP (novactl mcp install --agent cursor)
  windsurf     none: the same, through MCP (novactl mcp install --agent windsurf)
Nova does not also write ~/.gemini/skills or ~/.openclaw/skills: those agents would
then list the skill twice. A copy found there is reported as a duplicate.

The file carries a marker with the template version and a digest of its content.
install creates missing files, leaves current ones untouched, and upgrades only
unmodified files of an older version (after a backup under
NOVA_HOME/state/backups/skills/). A file you edited, one without the marker, and
one from a newer Nova are kept byte for byte unless --force, which backs them up
first. Files are written atomically (mode 0644) and never through a symbolic link.
With a NOVA_HOME other than ~/.nova, the skill's commands set it
(NOVA_HOME='/that/home' novactl search ...). Its HTTP fallback names the home's
facade (facade.port in its config.yaml). A copy written for another home or port is
updated by install, after a backup. Installed for Claude Code, install prints the
permission rule that lets it run the skill's search without asking (with
NOVA_HOME set, a rule for plain "novactl search" does not match the command).
--dry-run prints the plan and a diff and writes nothing.`

const skillUsage = "novactl skill install|uninstall|status [--agent ID[,ID...]|all] [--dry-run] [--force] [--json]"

func skillVerbs() []verb {
	return []verb{
		{"install", "Write the skill for the agents"},
		{"uninstall", "Remove the skill files Nova wrote and nobody edited"},
		{"status", "Show each skill file's state"},
	}
}

func runSkill(_ context.Context, inv *Invocation, args []string) int {
	if len(args) == 0 {
		return missingVerb(inv, "novactl skill", skillVerbs())
	}
	switch args[0] {
	case "install":
		return runSkillChange(inv, args[1:], true)
	case "uninstall":
		return runSkillChange(inv, args[1:], false)
	case "status":
		return runSkillStatus(inv, args[1:])
	case "-h", "-help", "--help":
		printUsage(inv.Stdout, skillUsage, skillHelp)
		return ExitOK
	}
	return unknownVerb(inv, "novactl skill", args[0], skillVerbs())
}

// skillReport is one target in the output of install, uninstall and status.
type skillReport struct {
	skill.Target
	SkillDir  string `json:"skillDir"`
	SkillFile string `json:"skillFile"`
	Detected  bool   `json:"detected"`
	skill.State
	UpgradeAvailable bool         `json:"upgradeAvailable"`
	Action           skill.Action `json:"action,omitempty"`
	Skipped          string       `json:"skipped,omitempty"`
	*skill.Result
	Error      string            `json:"error,omitempty"`
	Duplicates []skill.Duplicate `json:"duplicates,omitempty"`
	Diff       string            `json:"diff,omitempty"`
	// ClaudePermissionRule is, for Claude Code's root, the permission
	// rule that lets it run the skill's search without asking.
	ClaudePermissionRule string `json:"claudePermissionRule,omitempty"`
}

// skillOutput is the --json document of install, uninstall and status.
type skillOutput struct {
	Command         string        `json:"command"`
	SkillID         string        `json:"skillId"`
	TemplateVersion int           `json:"templateVersion"`
	TemplateSHA256  string        `json:"templateSha256"`
	DryRun          bool          `json:"dryRun"`
	Force           bool          `json:"force,omitempty"`
	BackupRoot      string        `json:"backupRoot,omitempty"`
	Targets         []skillReport `json:"targets"`
	// NoSkill are the agents named, or found here, that Nova writes no
	// skill for.
	NoSkill   []skillNote `json:"noSkill,omitempty"`
	WillWrite []string    `json:"willWrite"`
	OK        bool        `json:"ok"`
}

// skillNote is an agent Nova writes no skill for, and what to use
// instead.
type skillNote struct {
	Agent  string `json:"agent"`
	Reason string `json:"reason"`
}

// noSkillNotes names the agents of an --agent value that Nova writes no
// skill for (Cursor): each one named, or with "all" each one found here,
// so that asking for one is answered, not met with silence.
func noSkillNotes(environ []string, spec string) []skillNote {
	selected, explicit, err := agents.Select(spec)
	if err != nil {
		return nil
	}
	var out []skillNote
	for _, a := range selected {
		if a.HasSkillRoots() || (!explicit && !a.Installed(environ)) {
			continue
		}
		out = append(out, skillNote{Agent: a.ID, Reason: "Nova writes no skill for " + a.Name +
			": it reaches " + a.Name + " through MCP (novactl mcp install --agent " + a.ID + ")"})
	}
	return out
}

// printSkillNotes prints the notes of noSkillNotes, one line each.
func printSkillNotes(w io.Writer, notes []skillNote) {
	for _, n := range notes {
		fmt.Fprintf(w, "%-12s %s\n", n.Agent, n.Reason)
	}
}

// skillAgentIDs are the IDs of the agents Nova writes a skill for.
func skillAgentIDs() []string {
	var ids []string
	for _, a := range agents.All() {
		if a.HasSkillRoots() {
			ids = append(ids, a.ID)
		}
	}
	return ids
}

func newSkillReport(t skill.Target, s skill.State) skillReport {
	r := skillReport{Target: t, SkillDir: t.Dir(), SkillFile: t.File(), Detected: t.Detected(), State: s,
		UpgradeAvailable: s.UpgradeAvailable(), Duplicates: t.Duplicates()}
	if slices.Contains(t.Agents, agents.ClaudeCode) {
		r.ClaudePermissionRule = skill.ClaudePermissionRule(t.Home())
	}
	return r
}

// runSkillChange is novactl skill install / uninstall.
func runSkillChange(inv *Invocation, args []string, install bool) int {
	verb := "uninstall"
	synopsis := "novactl skill uninstall [--agent ID[,ID...]|all] [--dry-run] [--json]"
	if install {
		verb = "install"
		synopsis = "novactl skill install [--agent ID[,ID...]|all] [--dry-run] [--force] [--json]"
	}
	fs := newFlags(inv, "novactl skill "+verb, synopsis, skillHelp)
	agentFlag := fs.String("agent", "all", "agents: "+strings.Join(agents.IDs(), ", ")+", or all (install: those found here)")
	dryRun := fs.Bool("dry-run", false, "print the plan and a diff; write nothing")
	jsonOut := fs.Bool("json", false, "print the plan and results as JSON")
	var force *bool
	if install {
		force = fs.Bool("force", false, "replace customized and newer files too, after a backup")
	} else {
		force = new(bool)
	}
	pos, code := parseArgs(inv, fs, args)
	if code >= 0 {
		return code
	}
	fail := func(code int, msg string) int { return commandError(inv, *jsonOut, "novactl skill "+verb, code, msg) }
	if len(pos) > 0 {
		return fail(ExitUsage, fmt.Sprintf("unexpected argument %q", pos[0]))
	}
	targets, explicit, err := skill.Select(inv.Environ, *agentFlag)
	if err != nil {
		return fail(ExitUsage, err.Error())
	}
	if err := needUserHome(inv.Environ); err != nil {
		return fail(ExitFailure, err.Error())
	}
	out := skillOutput{Command: verb, SkillID: skill.ID, TemplateVersion: skill.TemplateVersion, TemplateSHA256: skill.Digest(inv.Environ),
		DryRun: *dryRun, Force: *force, NoSkill: noSkillNotes(inv.Environ, *agentFlag), WillWrite: []string{}, OK: true}
	var backups skill.Backups
	if install {
		home, err := paths.Resolve(inv.Environ)
		if err != nil {
			return fail(ExitFailure, err.Error())
		}
		backups = skill.Backups{Root: home.Backups("skills"), Stamp: paths.BackupStamp(time.Now()),
			Secure: func() error { _, err := home.Secure(); return err }}
		out.BackupRoot = backups.Root
	}
	for _, t := range targets {
		var op *skill.Op
		if install {
			op = skill.PlanInstall(t, *force)
		} else {
			op = skill.PlanUninstall(t)
		}
		r := newSkillReport(t, op.State)
		r.Action = op.Action
		if install && !explicit && !r.Detected && op.State.Class == skill.ClassMissing {
			r.Skipped = "agent not found (use --agent " + t.Agents[0] + " to install anyway)"
			out.Targets = append(out.Targets, r)
			continue
		}
		if op.Action.Writes() {
			out.WillWrite = append(out.WillWrite, t.ID)
		}
		if *dryRun {
			r.Diff = op.Diff()
			if op.Action == skill.ActRefuse {
				r.Error, out.OK = op.State.Detail, false
			}
		} else {
			res := op.Apply(backups)
			r.Result = &res
			// Cursor's duplicate exists once this copy does.
			r.Duplicates = t.Duplicates()
			if res.Err != nil {
				r.Error, out.OK = res.Err.Error(), false
			}
		}
		out.Targets = append(out.Targets, r)
	}
	if *jsonOut {
		printJSON(inv.Stdout, out)
	} else {
		printSkillChange(inv, out, explicit)
	}
	if !out.OK {
		return ExitFailure
	}
	return ExitOK
}

func printSkillChange(inv *Invocation, out skillOutput, explicit bool) {
	w := inv.Stdout
	installed, any := false, false
	for _, r := range out.Targets {
		fmt.Fprintf(w, "%-12s %s%s: ", r.ID, paths.Tilde(r.SkillFile, inv.Environ), sharedBy(r.Target))
		switch {
		case r.Skipped != "":
			fmt.Fprintf(w, "skipped: %s\n", r.Skipped)
			continue
		case out.DryRun:
			fmt.Fprintln(w, skillPlanText(r, out))
			if r.Diff != "" {
				fmt.Fprintln(w, indent(strings.TrimRight(r.Diff, "\n")))
			}
		default:
			fmt.Fprintln(w, skillResultText(r, inv.Environ))
			if r.Result.Result == "installed" || r.Result.Result == "upgraded" || r.Result.Result == "overwritten" {
				installed = true
			}
		}
		any = true
		printDuplicates(w, r.Duplicates, ": remove one copy", inv.Environ)
	}
	printSkillNotes(w, out.NoSkill)
	if !any && !explicit && len(out.NoSkill) == 0 {
		fmt.Fprintf(w, "No supported agent was found for this user. Name one with --agent (%s).\n", strings.Join(skillAgentIDs(), ", "))
	}
	printClaudePermission(inv, out)
	if installed {
		fmt.Fprintln(w, "\nStart a new agent session to load the nova-recall skill. It calls `novactl search`, which needs a running novad: check with `novactl status`.")
	}
	if any && out.Command == "install" && lookPath(inv.Environ, "novactl") == "" {
		// The skill names the command, not a path: an agent whose shell
		// has no novactl on PATH gets "command not found".
		fmt.Fprintln(w, "\nwarning: no novactl on PATH: the skill tells agents to run `novactl search`, which their shells will not find. "+
			"Put the directory that holds novactl on PATH, or use `novactl mcp install`, which records novactl's full path.")
	}
}

// printClaudePermission names, after an install that leaves Claude Code
// with this skill, the permission rule that lets it run the skill's
// search without asking (see skill.ClaudePermissionRule), as the JSON
// string to add to permissions.allow: with a relocated home, the rule a
// person would guess (novactl search) does not match the skill's command.
func printClaudePermission(inv *Invocation, out skillOutput) {
	if out.Command != "install" || out.DryRun {
		return
	}
	for _, r := range out.Targets {
		if r.ClaudePermissionRule == "" || r.Result == nil ||
			!slices.Contains([]string{"installed", "upgraded", "overwritten", "already-current"}, r.Result.Result) {
			continue
		}
		var rule bytes.Buffer
		enc := json.NewEncoder(&rule)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(r.ClaudePermissionRule) // a string always encodes
		// The skills root is <Claude Code's directory>/skills, which holds
		// its settings.json too.
		settings := paths.Tilde(filepath.Join(filepath.Dir(r.Root), "settings.json"), inv.Environ)
		fmt.Fprintf(inv.Stdout, "\nClaude Code asks before each command the skill runs unless a rule allows it. To allow its searches, add to \"permissions\".\"allow\" in %s:\n    %s", settings, rule.String())
	}
}

// sharedBy names the other agents reading a shared root.
func sharedBy(t skill.Target) string {
	if len(t.Agents) < 2 {
		return ""
	}
	return " (read by " + strings.Join(t.Agents, ", ") + ")"
}

func skillPlanText(r skillReport, out skillOutput) string {
	v := func() int {
		if r.InstalledVersion != nil {
			return *r.InstalledVersion
		}
		return -1
	}
	switch r.Action {
	case skill.ActCreate:
		return "would create it"
	case skill.ActAlreadyCurrent:
		return "already current; nothing to do"
	case skill.ActUpgrade:
		if r.Class == skill.ClassOtherHome {
			return fmt.Sprintf("would update it (%s) after a backup under %s", r.Detail, out.BackupRoot)
		}
		return fmt.Sprintf("would upgrade it from template version %d to %d (after a backup under %s)", v(), out.TemplateVersion, out.BackupRoot)
	case skill.ActOverwrite:
		return fmt.Sprintf("would replace it (%s) after a backup under %s", r.Detail, out.BackupRoot)
	case skill.ActPreserveCustomized:
		return "would keep it: " + r.Detail + ". The diff shows what --force would write"
	case skill.ActPreserveNewer:
		return "would keep it: " + r.Detail
	case skill.ActPreserveUnreadable, skill.ActKeepUnreadable:
		return "would keep it: cannot read it (" + r.Detail + ")"
	case skill.ActRemove:
		return "would remove it"
	case skill.ActNotInstalled:
		return "not installed; nothing to do"
	case skill.ActKeepCustomized:
		return "would keep it: " + r.Detail
	case skill.ActRefuse:
		return "would refuse: " + r.Detail
	}
	return string(r.Action)
}

func skillResultText(r skillReport, environ []string) string {
	backup := ""
	if r.Backup != "" {
		backup = " (old file saved to " + paths.Tilde(r.Backup, environ) + ")"
	}
	switch r.Result.Result {
	case "installed":
		return "installed"
	case "already-current":
		return "already current"
	case "upgraded":
		if r.Class == skill.ClassOtherHome {
			home := "~/.nova (the default)"
			if h := r.Home(); h != "" {
				home = paths.Tilde(h, environ)
			}
			if f := r.Facade(); f != "" {
				home += " and its facade at " + f
			}
			return "updated for NOVA_HOME " + home + backup
		}
		from := "an older version"
		if r.InstalledVersion != nil {
			from = fmt.Sprintf("template version %d", *r.InstalledVersion)
		}
		return fmt.Sprintf("upgraded from %s to %d%s", from, skill.TemplateVersion, backup)
	case "overwritten":
		return "replaced" + backup
	case "preserved-customized":
		return "kept as it is: " + r.Detail + ". See the difference with --dry-run; --force replaces it after a backup"
	case "preserved-newer":
		return "kept as it is: " + r.Detail
	case "preserved-unreadable", "kept-unreadable":
		return "kept: cannot read it (" + r.Detail + ")"
	case "removed":
		if r.RemovedDir {
			return "removed (and its directory)"
		}
		return "removed (the directory holds other files and stays)"
	case "not-installed":
		return "not installed"
	case "kept-customized":
		return "kept: " + r.Detail + "; remove it yourself if you want it gone"
	case "refused":
		return "refused: " + r.Error
	case "changed-since-plan":
		return "skipped: " + r.Error
	}
	return r.Result.Result + ": " + r.Error
}

// runSkillStatus is novactl skill status.
func runSkillStatus(inv *Invocation, args []string) int {
	fs := newFlags(inv, "novactl skill status", "novactl skill status [--agent ID[,ID...]|all] [--json]", skillHelp)
	agentFlag := fs.String("agent", "all", "agents: "+strings.Join(agents.IDs(), ", ")+", or all")
	jsonOut := fs.Bool("json", false, "print JSON")
	pos, code := parseArgs(inv, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return commandError(inv, *jsonOut, "novactl skill status", ExitUsage, fmt.Sprintf("unexpected argument %q", pos[0]))
	}
	targets, _, err := skill.Select(inv.Environ, *agentFlag)
	if err != nil {
		return commandError(inv, *jsonOut, "novactl skill status", ExitUsage, err.Error())
	}
	if err := needUserHome(inv.Environ); err != nil {
		return commandError(inv, *jsonOut, "novactl skill status", ExitFailure, err.Error())
	}
	out := skillOutput{Command: "status", SkillID: skill.ID, TemplateVersion: skill.TemplateVersion, TemplateSHA256: skill.Digest(inv.Environ),
		NoSkill: noSkillNotes(inv.Environ, *agentFlag), WillWrite: []string{}, OK: true}
	for _, t := range targets {
		r := newSkillReport(t, skill.Inspect(t))
		if r.Class == skill.ClassUnsafe {
			out.OK = false
		}
		out.Targets = append(out.Targets, r)
	}
	code = ExitOK
	if !out.OK {
		code = ExitFailure // a skill path Nova refuses to write through
	}
	if *jsonOut {
		printJSON(inv.Stdout, out)
		return code
	}
	w := inv.Stdout
	fmt.Fprintf(w, "nova-recall skill, template version %d (sha256 %s)\n\n", skill.TemplateVersion, out.TemplateSHA256[:12])
	for _, r := range out.Targets {
		fmt.Fprintf(w, "%-12s %s%s\n", r.ID, paths.Tilde(r.SkillFile, inv.Environ), sharedBy(r.Target))
		fmt.Fprintf(w, "%-12s %s\n", "", skillStatusText(r))
		printDuplicates(w, r.Duplicates, "", inv.Environ)
	}
	printSkillNotes(w, out.NoSkill)
	return code
}

// printDuplicates prints one line for each other nova-recall an agent
// also loads: a warning, ending in advice, for a copy Nova never writes;
// a note for one of Nova's own copies that another agent needs.
func printDuplicates(w io.Writer, dups []skill.Duplicate, advice string, environ []string) {
	for _, d := range dups {
		if d.KeepFor != "" {
			fmt.Fprintf(w, "%-12s note: %s also loads the nova-recall at %s and may list the skill twice; keep both: %s reads only that one\n",
				"", d.Agent, paths.Tilde(d.Dir, environ), d.KeepFor)
			continue
		}
		fmt.Fprintf(w, "%-12s warning: %s also loads another nova-recall at %s and lists the skill twice%s\n", "", d.Agent, paths.Tilde(d.Dir, environ), advice)
	}
}

func skillStatusText(r skillReport) string {
	switch r.Class {
	case skill.ClassMissing:
		if !r.Detected {
			return "not installed (agent not found here)"
		}
		return "not installed: run `novactl skill install`"
	case skill.ClassCurrent:
		return fmt.Sprintf("installed, current (template version %d)", skill.TemplateVersion)
	case skill.ClassOlder:
		return "installed, " + r.Detail + ": `novactl skill install` upgrades it"
	case skill.ClassNewer:
		return "installed by a newer Nova: " + r.Detail
	case skill.ClassOtherHome:
		return "installed for another Nova home or facade address: " + r.Detail + ": `novactl skill install` updates it"
	case skill.ClassCustomized:
		return "customized: " + r.Detail + "; install keeps it (--force replaces it after a backup)"
	case skill.ClassUnreadable:
		return "unreadable: " + r.Detail
	case skill.ClassUnsafe:
		return "blocked: " + r.Detail
	}
	return string(r.Class)
}
