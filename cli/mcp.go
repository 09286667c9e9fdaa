package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/nova-recall/nova/client"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/internal/version"
	"github.com/nova-recall/nova/mcpserver"
	"github.com/nova-recall/nova/mcpserver/agentconf"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/redact"
)

const mcpHelp = `Without a subcommand, serves Nova's read-only memory tools over the Model Context
Protocol on stdin/stdout, for an agent to start: memory_search (the facade search of
the running novad, with citations and the quality verdict) and memory_status. Logs go
to stderr; stdout carries only protocol messages. When novad is not running, the tools
say so instead of failing. Exit status 0 when the client closes stdin; 1, with a line
on stderr, when it closes stdout while an answer is due (it went away).

  install     add Nova ("nova": novactl mcp) to agents' MCP configuration files
  uninstall   remove exactly what install added, and name any Claude Code
              project that keeps its own "nova" entry (left as it is)
  status      show each agent's entry: current, stale (another novactl or NOVA_HOME),
              or missing, and Claude Code projects whose own "nova" entry differs
              (in ~/.claude.json, or in the .mcp.json of the current directory)

` + mcpFilesHelp

// mcpVerbHelp is each configuring verb's help: what it does, then the
// agents' files it reads or edits. mcpHelp's opening is about serving,
// which these verbs do not do.
var mcpVerbHelp = map[string]string{
	"install": `Adds Nova ("nova": novactl mcp) to agents' MCP configuration files, or
updates an entry that starts another novactl or names another NOVA_HOME.

` + mcpFilesHelp,
	"uninstall": `Removes exactly what install added, and names any Claude Code project
that keeps its own "nova" entry (left as it is).

` + mcpFilesHelp,
	"status": `Shows each agent's entry: current, stale (another novactl or NOVA_HOME),
or missing, and Claude Code projects whose own "nova" entry differs (in
~/.claude.json, or in the .mcp.json of the current directory).

` + mcpFilesHelp,
}

// mcpFilesHelp names the agents' files that install, uninstall and status
// work on, and how they are edited.
const mcpFilesHelp = `Agents and files (--agent, comma-separated; default all agents found on this machine):
  claude-code  ~/.claude.json           mcpServers.nova (or $CLAUDE_CONFIG_DIR/.claude.json)
  codex        ~/.codex/config.toml      [mcp_servers.nova] (or $CODEX_HOME)
  gemini       ~/.gemini/settings.json  mcpServers.nova (or $GEMINI_CLI_HOME/.gemini)
  openclaw     ~/.openclaw/openclaw.json mcp.servers.nova (or $OPENCLAW_STATE_DIR, $OPENCLAW_CONFIG_PATH)
  hermes       ~/.hermes/config.yaml    mcp_servers.nova (or $HERMES_HOME)
  cursor       ~/.cursor/mcp.json       mcpServers.nova
  windsurf     ~/.codeium/windsurf/mcp_config.json  mcpServers.nova

Edits are textual: comments, key order, formatting and other servers stay as they
are, and install then uninstall leaves a file byte-identical. NOVA_HOME is passed to
the server when it is set. Files are replaced atomically and keep their mode; a file
that is a symbolic link (into a dotfiles repository) is edited where it points and
stays a link; a read-only file is never written. --dry-run prints the diff and
writes nothing. --json prints one document: {"command","novactl","dryRun",
"targets":[{"agent","name","config","skipped","action","summary","changed","diff",
"notes","error"}],"warnings","ok"} (status: {"command","novaHome","agents":[...]}).

Claude Code also keeps MCP servers per project in ~/.claude.json (what
"claude mcp add" writes by default), and in that project starts its own "nova"
instead of the one install writes; so does a project's own .mcp.json, which
Claude Code reads in the directory it starts in. status and install (and doctor)
name such an entry (a .mcp.json only in the current directory) when its
command or NOVA_HOME differ, and uninstall names every one, with the command that
removes it; Nova never edits those entries itself (Claude Code's own "claude mcp
remove" also takes one scope at a time). Cursor likewise starts a project's own
"nova" in .cursor/mcp.json instead, Gemini CLI one in .gemini/settings.json and
Codex one in .codex/config.toml: the one in the current directory is named the
same way.`

func mcpVerbs() []verb {
	return []verb{
		{"serve", "Serve the memory tools on stdin/stdout (the default)"},
		{"install", "Add Nova to agents' MCP configuration files"},
		{"uninstall", "Remove exactly what install added"},
		{"status", "Show each agent's Nova entry and any that shadows it"},
	}
}

func mcpSynopsis() string { return "novactl mcp [" + verbNames(mcpVerbs(), "|") + "] [flags]" }

func runMCP(ctx context.Context, inv *Invocation, args []string) int {
	if len(args) > 0 && !isVerb(mcpVerbs(), args[0]) && !strings.HasPrefix(args[0], "-") {
		return unknownVerb(inv, "novactl mcp", args[0], mcpVerbs())
	}
	if len(args) > 0 {
		switch args[0] {
		case "install":
			return runMCPConfig(inv, args[1:], true, defaultMCPDeps())
		case "uninstall":
			return runMCPConfig(inv, args[1:], false, defaultMCPDeps())
		case "status":
			return runMCPStatus(inv, args[1:], defaultMCPDeps())
		case "serve":
			args = args[1:]
		}
		// Anything else is a flag of serve's: a word that is no verb was
		// refused above.
	}
	return runMCPServe(ctx, inv, args)
}

func runMCPServe(ctx context.Context, inv *Invocation, args []string) int {
	fs := newFlags(inv, "novactl mcp", mcpSynopsis(), mcpHelp)
	verbose := fs.Bool("v", false, "log protocol activity to stderr")
	pos, code := parseArgs(inv, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return usageError(inv, fs, fmt.Sprintf("unexpected argument %q", pos[0]))
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(inv.Stderr, &slog.HandlerOptions{Level: level})).With("component", "mcp")
	if w, ok := inv.Stdin.(io.Writer); ok && IsTerminal(w) {
		fmt.Fprintln(inv.Stderr, "novactl mcp speaks the Model Context Protocol on stdin/stdout and is meant to be started by an agent.\nRun `novactl mcp install` to add it to your agents. Press Ctrl-D to quit.")
	}
	srv := mcpserver.New(mcpserver.Options{
		Version: version.Get().Version,
		Logger:  logger,
		Connect: func() (mcpserver.Backend, error) {
			// Read afresh for every call: novad may have restarted on other
			// ports, and the operator may have fixed the configuration.
			cfg, err := config.Load(inv.Environ)
			if err != nil {
				return nil, err
			}
			return client.ForConfig(cfg), nil
		},
	})
	// A client that closes its end of stdout before an answer is written
	// would get novactl killed by SIGPIPE, which Go raises on a write to a
	// broken stdout, with nothing said in the client's log. Asked for,
	// the signal is delivered here instead and the write fails with EPIPE.
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)
	if err := mcpserver.Serve(ctx, srv, inv.Stdin, inv.Stdout); err != nil {
		if errors.Is(err, syscall.EPIPE) {
			fmt.Fprintln(inv.Stderr, "novactl mcp: the client closed its end of stdout (it went away); stopping")
			return ExitFailure
		}
		fmt.Fprintf(inv.Stderr, "novactl mcp: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}

// mcpDeps are the process facts novactl mcp install depends on, injected
// so tests can start it as a symbolic link.
type mcpDeps struct {
	// arg0 is the path novactl was invoked by (os.Args[0]).
	arg0 string
	// executable is os.Executable.
	executable func() (string, error)
}

func defaultMCPDeps() mcpDeps { return mcpDeps{arg0: os.Args[0], executable: os.Executable} }

// mcpChange is the --json output of novactl mcp install / uninstall.
type mcpChange struct {
	// Command is "install" or "uninstall".
	Command string `json:"command"`
	// Novactl is the command install writes into the agents' files.
	Novactl string `json:"novactl,omitempty"`
	DryRun  bool   `json:"dryRun"`
	// Warnings are what does not stop the change (an unreadable install
	// record).
	Warnings []string          `json:"warnings,omitempty"`
	Targets  []mcpChangeReport `json:"targets"`
	OK       bool              `json:"ok"`
}

// mcpChangeReport is one agent's file in an mcpChange.
type mcpChangeReport struct {
	Agent  string `json:"agent"`
	Name   string `json:"name"`
	Config string `json:"config"`
	// Skipped says why an agent not found here was left alone.
	Skipped string `json:"skipped,omitempty"`
	// Action is what was done, or with --dry-run would be: install,
	// update, unchanged, remove or absent (nothing to remove).
	Action agentconf.Action `json:"action,omitempty"`
	// Summary says it as the text form does ("added Nova").
	Summary string `json:"summary,omitempty"`
	// Changed reports whether the file was (or would be) written.
	Changed bool `json:"changed"`
	// Diff is a dry run's change, redacted as the text form's is.
	Diff string `json:"diff,omitempty"`
	// Notes are the warnings and notes the text form prints under the
	// agent's line (a project's own "nova" entry).
	Notes []string `json:"notes,omitempty"`
	Error string   `json:"error,omitempty"`
}

// runMCPConfig is novactl mcp install / uninstall.
func runMCPConfig(inv *Invocation, args []string, install bool, deps mcpDeps) int {
	verb := "uninstall"
	if install {
		verb = "install"
	}
	synopsis := "novactl mcp uninstall [--agent ID[,ID...]|all] [--dry-run] [--json]"
	if install {
		synopsis = "novactl mcp install [--agent ID[,ID...]|all] [--command PATH] [--dry-run] [--json]"
	}
	fs := newFlags(inv, "novactl mcp "+verb, synopsis, mcpVerbHelp[verb])
	agentFlag := fs.String("agent", "all", "agents to configure: "+strings.Join(agentconf.AgentIDs(), ", ")+", or all (those found)")
	dryRun := fs.Bool("dry-run", false, "print the changes as a diff and write nothing")
	jsonOut := fs.Bool("json", false, "print the plan and results as JSON")
	// --command is install's alone: uninstall removes the entry whatever
	// command it names.
	command := new(string)
	if install {
		command = fs.String("command", "", "absolute path of the novactl the agents start (default: this novactl, by the path it was started by, so a package manager's link survives upgrades)")
	}
	pos, code := parseArgs(inv, fs, args)
	if code >= 0 {
		return code
	}
	fail := func(code int, msg string) int { return commandError(inv, *jsonOut, "novactl mcp "+verb, code, msg) }
	if len(pos) > 0 {
		return usageError(inv, fs, fmt.Sprintf("unexpected argument %q", pos[0]))
	}
	agents, explicit, err := agentconf.Select(*agentFlag)
	if err != nil {
		return fail(ExitUsage, err.Error())
	}
	if err := needUserHome(inv.Environ); err != nil {
		return fail(ExitFailure, err.Error())
	}
	home, err := paths.Resolve(inv.Environ)
	if err != nil {
		return fail(ExitFailure, err.Error())
	}
	var entry agentconf.Entry
	if install {
		if *command == "" {
			if *command, err = novactlPath(inv.Environ, deps); err != nil {
				return fail(ExitFailure, fmt.Sprintf("find this novactl: %v; pass --command", err))
			}
		}
		entry, err = mcpEntry(inv.Environ, home, *command)
		if err != nil {
			return fail(ExitUsage, err.Error())
		}
	}
	out := mcpChange{Command: verb, Novactl: *command, DryRun: *dryRun, Targets: []mcpChangeReport{}, OK: true}
	recs, err := agentconf.LoadRecords(agentconf.RecordsFile(home))
	rewrite := false // replace an unreadable record store
	switch {
	case errors.Is(err, agentconf.ErrBadRecords):
		rewrite = !*dryRun
		// The records only make removal byte-exact: go on, finding
		// entries by their command, and write a fresh record.
		w := fmt.Sprintf("%v; going on without it (entries are recognised by their command, and a file may not come back byte for byte)", err)
		out.Warnings = append(out.Warnings, w)
		if !*jsonOut {
			fmt.Fprintf(inv.Stderr, "novactl mcp %s: warning: %s\n", verb, w)
		}
	case err != nil:
		return fail(ExitFailure, err.Error())
	}
	// Each agent's file where it is now, and for uninstall also the files
	// install recorded for it elsewhere (CODEX_HOME set then, say).
	type job struct {
		a        agentconf.Agent
		path     string
		recorded bool
	}
	var jobs []job
	for _, a := range agents {
		jobs = append(jobs, job{a: a, path: a.Path(inv.Environ)})
		if !install {
			for _, p := range recs.Paths(a.ID) {
				if p != a.Path(inv.Environ) {
					jobs = append(jobs, job{a: a, path: p, recorded: true})
				}
			}
		}
	}
	changed, touched := rewrite, 0
	mine := map[string]*agentconf.Record{} // this run's records; nil deletes one
	for _, j := range jobs {
		a, path := j.a, j.path
		r := mcpChangeReport{Agent: a.ID, Name: a.Name, Config: path}
		if !explicit && !j.recorded && !a.Detected(inv.Environ) {
			if install {
				r.Skipped = fmt.Sprintf("not found (%s does not exist; use --agent %s to configure it anyway)", paths.Tilde(a.Home(inv.Environ), inv.Environ), a.ID)
				out.Targets = append(out.Targets, r)
			}
			continue
		}
		touched++
		plan, err := planMCP(a, path, entry, recs, install)
		if err == nil && !*dryRun {
			err = plan.Apply()
			if errors.Is(err, agentconf.ErrChanged) {
				// The agent rewrote its file meanwhile: plan again once.
				if plan, err = planMCP(a, path, entry, recs, install); err == nil {
					err = plan.Apply()
				}
			}
		}
		if err != nil {
			r.Error, out.OK = err.Error(), false
			out.Targets = append(out.Targets, r)
			continue
		}
		r.Action, r.Summary, r.Changed = plan.Action, describe(plan, *dryRun), plan.Changed()
		if *dryRun {
			// The lines around Nova's entry are often another server's
			// credentials ("env" of the GitHub server), and an agent
			// that runs this has the output in its transcript: they are
			// redacted as memory is.
			r.Diff, _ = redact.Text(plan.Diff())
		}
		if install && !*dryRun {
			r.Notes = shadowNotes(inv, a, path, entry)
		} else if !install {
			r.Notes = projectEntryNotes(inv, a, path)
		}
		out.Targets = append(out.Targets, r)
		if !*dryRun && (plan.Changed() || (!install && plan.Action == agentconf.Absent && recs.Get(path) != nil)) {
			mine[path] = plan.Record
			changed = true
		}
	}
	if changed {
		// Only this run's records are written, into the store as it is
		// now: another install may have recorded its own meanwhile.
		if err := agentconf.UpdateRecords(agentconf.RecordsFile(home), mine); err != nil {
			out.Warnings = append(out.Warnings, "save the install record: "+err.Error())
			out.OK = false
			if !*jsonOut {
				fmt.Fprintf(inv.Stderr, "novactl mcp %s: save the install record: %v\n", verb, err)
			}
		}
	}
	if *jsonOut {
		printJSON(inv.Stdout, out)
	} else {
		printMCPChange(inv, out, touched)
	}
	if !out.OK {
		return ExitFailure
	}
	return ExitOK
}

// printMCPChange is the text form of an mcp install or uninstall: a line
// an agent, its notes under it, a failure on stderr.
func printMCPChange(inv *Invocation, out mcpChange, touched int) {
	for _, r := range out.Targets {
		shown := paths.Tilde(r.Config, inv.Environ)
		switch {
		case r.Skipped != "":
			fmt.Fprintf(inv.Stdout, "%-12s skipped: %s\n", r.Name, r.Skipped)
			continue
		case r.Error != "":
			fmt.Fprintf(inv.Stderr, "%-12s %s: %s\n", r.Name, shown, r.Error)
			continue
		case out.DryRun:
			fmt.Fprintf(inv.Stdout, "%-12s %s: would %s\n", r.Name, shown, r.Summary)
			if r.Diff != "" {
				fmt.Fprint(inv.Stdout, indent(r.Diff)+"\n")
			}
		default:
			fmt.Fprintf(inv.Stdout, "%-12s %s: %s\n", r.Name, shown, r.Summary)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(inv.Stdout, "%-12s %s\n", "", n)
		}
	}
	if touched == 0 {
		fmt.Fprintf(inv.Stdout, "No supported agent was found for this user. Name one with --agent (%s).\n", strings.Join(agentconf.AgentIDs(), ", "))
	}
	if out.Command == "install" && !out.DryRun && touched > 0 && out.OK {
		fmt.Fprintln(inv.Stdout, "\nRestart the agents to load the tools memory_search and memory_status (read-only). They need a running novad: check with `novactl status`.")
	}
}

func planMCP(a agentconf.Agent, path string, e agentconf.Entry, recs *agentconf.Records, install bool) (*agentconf.Plan, error) {
	if install {
		return agentconf.PlanInstall(a, path, e, recs.Get(path))
	}
	return agentconf.PlanUninstall(a, path, recs.Get(path))
}

func describe(p *agentconf.Plan, dry bool) string {
	var s string
	switch p.Action {
	case agentconf.Install:
		s = "added Nova"
		if dry {
			s = "add Nova"
		}
	case agentconf.Update:
		s = "updated Nova's entry"
		if dry {
			s = "update Nova's entry"
		}
	case agentconf.Unchanged:
		s = "already installed"
		if dry {
			s = "change nothing (already installed)"
		}
	case agentconf.Remove:
		s = "removed Nova"
		if dry {
			s = "remove Nova"
		}
		if p.After == nil {
			s += " (and the file, which install had created)"
		}
	case agentconf.Absent:
		s = "nothing to remove"
		if dry {
			s = "change nothing"
		}
	}
	if p.Note != "" {
		s += " (" + p.Note + ")"
	}
	return s
}

// novactlPath is the novactl agents should start: the path it was invoked
// by, when that is absolute or found on PATH and is this executable, else
// os.Executable. The invoked path is kept as it is, not resolved through
// symbolic links: os.Executable resolves them (/proc/self/exe), and a
// package manager's link (Homebrew's bin/novactl ->
// ../Cellar/nova/<version>/bin/novactl) survives an upgrade while the
// versioned file it points to is removed.
func novactlPath(environ []string, deps mcpDeps) (string, error) {
	exe, err := deps.executable()
	if err != nil {
		return "", err
	}
	invoked := ""
	switch {
	case filepath.IsAbs(deps.arg0):
		invoked = filepath.Clean(deps.arg0)
	case deps.arg0 != "" && !strings.ContainsAny(deps.arg0, `/\`):
		invoked = lookPath(environ, deps.arg0)
	}
	if invoked != "" && sameFile(invoked, exe) {
		return invoked, nil
	}
	return exe, nil
}

// lookPath finds name in the absolute directories of environ's PATH, as a
// shell does: the first executable file of that name.
func lookPath(environ []string, name string) string {
	for _, dir := range filepath.SplitList(paths.Lookup(environ, "PATH")) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if isExecutable(p) {
			return p
		}
	}
	return ""
}

// isExecutable reports whether p is (or links to) an executable file.
func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// sameFile reports whether a and b name the same file, following links.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// mcpEntry is the server entry: command (this novactl or --command) with
// "mcp", and NOVA_HOME when it is set.
func mcpEntry(environ []string, home paths.Home, command string) (agentconf.Entry, error) {
	if !filepath.IsAbs(command) {
		return agentconf.Entry{}, fmt.Errorf("--command must be an absolute path (got %q)", command)
	}
	if !isExecutable(command) {
		// The agents would fail to start it, and say so only there.
		return agentconf.Entry{}, fmt.Errorf("--command %s is not an executable file; give the path of an installed novactl", command)
	}
	e := agentconf.Entry{Command: filepath.Clean(command), Args: []string{"mcp"}}
	if paths.Lookup(environ, paths.EnvHome) != "" {
		e.Env = map[string]string{paths.EnvHome: home.Root}
	}
	return e, nil
}

// mcpStatusAgent is one agent in the output of novactl mcp status.
type mcpStatusAgent struct {
	Agent    string `json:"agent"`
	Name     string `json:"name"`
	File     string `json:"file"`
	Detected bool   `json:"detected"`
	agentconf.Status
	Error string `json:"error,omitempty"`
	// ProjectError says why the project file of the current directory
	// (a .mcp.json) could not be read for its own "nova" entry.
	ProjectError string `json:"projectError,omitempty"`
}

// runMCPStatus is novactl mcp status: what each agent's file holds of
// Nova's entry, against the entry mcp install would write now.
func runMCPStatus(inv *Invocation, args []string, deps mcpDeps) int {
	fs := newFlags(inv, "novactl mcp status", "novactl mcp status [--agent ID[,ID...]|all] [--command PATH] [--json]", mcpVerbHelp["status"])
	agentFlag := fs.String("agent", "all", "agents: "+strings.Join(agentconf.AgentIDs(), ", ")+", or all")
	command := fs.String("command", "", "the novactl the entries should start (default: this novactl, as install)")
	jsonOut := fs.Bool("json", false, "print JSON")
	pos, code := parseArgs(inv, fs, args)
	if code >= 0 {
		return code
	}
	fail := func(code int, msg string) int { return commandError(inv, *jsonOut, "novactl mcp status", code, msg) }
	if len(pos) > 0 {
		return fail(ExitUsage, fmt.Sprintf("unexpected argument %q", pos[0]))
	}
	selected, _, err := agentconf.Select(*agentFlag)
	if err != nil {
		return fail(ExitUsage, err.Error())
	}
	if err := needUserHome(inv.Environ); err != nil {
		return fail(ExitFailure, err.Error())
	}
	home, err := paths.Resolve(inv.Environ)
	if err == nil && *command == "" {
		*command, err = novactlPath(inv.Environ, deps)
	}
	var entry agentconf.Entry
	if err == nil {
		entry, err = mcpEntry(inv.Environ, home, *command)
	}
	if err != nil {
		return fail(ExitFailure, err.Error())
	}
	recs, err := agentconf.LoadRecords(agentconf.RecordsFile(home))
	if err != nil && !errors.Is(err, agentconf.ErrBadRecords) {
		return fail(ExitFailure, err.Error())
	}
	code = ExitOK
	var out []mcpStatusAgent
	for _, a := range selected {
		path := a.Path(inv.Environ)
		r := mcpStatusAgent{Agent: a.ID, Name: a.Name, File: path, Detected: a.Detected(inv.Environ)}
		if r.Status, err = agentconf.Inspect(a, path, entry, recs.Get(path)); err != nil {
			r.Error, code = err.Error(), ExitFailure
		}
		if more, err := agentconf.InspectDir(a, inv.Dir, inv.Environ, entry); err != nil {
			r.ProjectError, code = err.Error(), ExitFailure
			if !*jsonOut {
				fmt.Fprintf(inv.Stderr, "novactl mcp status: %v\n", err)
			}
		} else {
			r.Shadows = append(r.Shadows, more...)
		}
		out = append(out, r)
	}
	if *jsonOut {
		printJSON(inv.Stdout, map[string]any{"command": entry.Command, "novaHome": entry.Env[paths.EnvHome], "agents": out})
		return code
	}
	w := inv.Stdout
	for _, r := range out {
		fmt.Fprintf(w, "%-12s %s: %s\n", r.Name, paths.Tilde(r.File, inv.Environ), mcpStateText(r))
		for _, p := range r.Shadows {
			printShadow(inv, r.Name, p)
		}
	}
	return code
}

func mcpStateText(r mcpStatusAgent) string {
	if r.Error != "" {
		return "cannot read it: " + r.Error
	}
	switch r.State {
	case agentconf.StateAbsent:
		if !r.Detected {
			return "not installed (agent not found here)"
		}
		return "not installed: run `novactl mcp install`"
	case agentconf.StateCurrent:
		if r.Note != "" {
			return "installed, current (" + r.Note + ")"
		}
		return "installed, current"
	case agentconf.StateStale:
		return "installed for another novactl or NOVA_HOME (" + strings.Join(r.Differs, "; ") + "): `novactl mcp install` updates it"
	case agentconf.StateForeign:
		return `a "nova" server novactl did not install (` + strings.Join(r.Differs, "; ") + "): remove or rename it, then run `novactl mcp install`"
	}
	return string(r.State)
}

// shadowNotes are the warnings about a's per-project "nova" entries in
// path, and in the project file of the directory novactl runs in, that
// differ from e (Claude Code's and Cursor's; see agentconf.ProjectEntry).
func shadowNotes(inv *Invocation, a agentconf.Agent, path string, e agentconf.Entry) []string {
	st, err := agentconf.Inspect(a, path, e, nil)
	if err != nil {
		return nil // the install itself reported what it could not read
	}
	var out []string
	more, err := agentconf.InspectDir(a, inv.Dir, inv.Environ, e)
	if err != nil {
		out = append(out, fmt.Sprintf("warning: %v", err))
	}
	for _, sh := range append(st.Shadows, more...) {
		out = append(out, shadowText(a.Name, sh))
	}
	return out
}

// projectEntryNotes name, after uninstall, each of a's per-project
// "nova" entries in path (Claude Code's), which remain: like `claude mcp
// remove nova -s user`, uninstall leaves other scopes alone (Claude Code's
// own remove takes one scope at a time), and these are the person's,
// added with `claude mcp add`, perhaps on purpose for that project.
func projectEntryNotes(inv *Invocation, a agentconf.Agent, path string) []string {
	entries, err := agentconf.ProjectEntries(a, path)
	if err != nil {
		return nil // the uninstall itself reported what it could not read
	}
	// The .mcp.json here too; the zero entry matches none, so every
	// "nova" there is named.
	if here, err := agentconf.InspectDir(a, inv.Dir, inv.Environ, agentconf.Entry{}); err == nil {
		entries = append(entries, here...)
	}
	var out []string
	for _, p := range entries {
		cmd, home := p.Command, ""
		if cmd == "" {
			cmd = "(none)"
		}
		if p.NovaHome != "" {
			home = ", " + paths.EnvHome + " " + p.NovaHome
		}
		where := "project " + p.Project
		if p.Scope == agentconf.ScopeProject {
			where = p.File
		}
		out = append(out, fmt.Sprintf("note: %s keeps its own \"nova\" server (command %s%s), which %s still starts there; uninstall leaves it. Remove it: %s",
			where, cmd, home, a.Name, p.Remove))
	}
	return out
}

// printShadow warns about sh, a "nova" entry that the agent called name
// starts in sh's project instead of the user-level one.
func printShadow(inv *Invocation, name string, sh agentconf.ProjectEntry) {
	fmt.Fprintf(inv.Stdout, "%-12s %s\n", "", shadowText(name, sh))
}

// shadowText is printShadow's warning.
func shadowText(name string, sh agentconf.ProjectEntry) string {
	where := "project " + sh.Project
	if sh.Scope == agentconf.ScopeProject {
		// The file is the project's, often committed: removing the entry
		// changes it for everyone who uses the repository.
		where = sh.File + " (the project's own, shared with the repository)"
	}
	return fmt.Sprintf("warning: %s has its own \"nova\" server, which %s starts there instead (%s). Remove it: %s",
		where, name, strings.Join(sh.Differs, "; "), sh.Remove)
}
