package doctor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nova-recall/nova/agents"
	"github.com/nova-recall/nova/mcpserver/agentconf"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/shellword"
	"github.com/nova-recall/nova/skill"
)

// AgentOptions configure the checks of what the agents found here hold of
// Nova: its MCP entry (novactl mcp install) and its skill (novactl skill
// install). Both are optional, so these checks are never Blocked.
type AgentOptions struct {
	// MCPEntry is the entry novactl mcp install would write now (this
	// novactl, this NOVA_HOME); nil skips the MCP check.
	MCPEntry *agentconf.Entry
	// Dir is the working directory, whose .mcp.json Claude Code reads
	// when started there; "" skips it.
	Dir string
}

// AgentsReport is what each agent found here holds of Nova.
type AgentsReport struct {
	// MCP lists the agents found here, or holding a "nova" MCP entry.
	MCP []MCPAgent `json:"mcp,omitempty"`
	// Skills lists the skills roots of agents found here, or holding the
	// skill.
	Skills []SkillFile `json:"skills,omitempty"`
}

// MCPAgent is one agent's user-level MCP configuration, as novactl mcp
// status reports it.
type MCPAgent struct {
	Agent string `json:"agent"`
	Name  string `json:"name"`
	File  string `json:"file"`
	agentconf.Status
	Error string `json:"error,omitempty"`
}

// SkillFile is one skills root's nova-recall skill, as novactl skill
// status reports it.
type SkillFile struct {
	Target string      `json:"target"`
	Agents []string    `json:"agents"`
	File   string      `json:"file"`
	State  skill.Class `json:"state"`
	Detail string      `json:"detail,omitempty"`
}

// agentChecks reports Nova's MCP entry and skill in each agent found
// here: Ready when installed and current or not installed at all,
// Degraded when stale (another novactl, another NOVA_HOME, an older
// skill), with the command that brings it up to date.
func agentChecks(environ []string, home paths.Home, opts *AgentOptions) ([]Check, *AgentsReport) {
	rep := &AgentsReport{}
	var checks []Check
	if opts.MCPEntry != nil {
		if c, ok := mcpCheck(environ, home, *opts.MCPEntry, opts.Dir, rep); ok {
			checks = append(checks, c)
		}
	}
	if c, ok := skillCheck(environ, home, rep); ok {
		checks = append(checks, c)
	}
	if len(rep.MCP) == 0 && len(rep.Skills) == 0 {
		return checks, nil
	}
	return checks, rep
}

// fixCommand is the command line a person runs to fix what doctor
// reports: program (a novactl) with args, with this home's NOVA_HOME in
// front when it is set, as install would see it.
func fixCommand(environ []string, home paths.Home, program, args string) string {
	if paths.Lookup(environ, paths.EnvHome) == "" {
		return program + " " + args
	}
	return paths.EnvHome + "=" + shellword.Quote(home.Root) + " " + program + " " + args
}

func mcpCheck(environ []string, home paths.Home, e agentconf.Entry, dir string, rep *AgentsReport) (Check, bool) {
	// An unreadable record only makes stale entries look foreign.
	recs, _ := agentconf.LoadRecords(agentconf.RecordsFile(home))
	var parts, stale, remove, starters []string
	for _, a := range agentconf.Agents() {
		path := a.Path(environ)
		r := MCPAgent{Agent: a.ID, Name: a.Name, File: path}
		st, err := agentconf.Inspect(a, path, e, recs.Get(path))
		if err == nil {
			var more []agentconf.ProjectEntry
			more, err = agentconf.InspectDir(a, dir, environ, e)
			st.Shadows = append(st.Shadows, more...)
		}
		r.Status = st
		if err != nil {
			r.Error = err.Error()
		}
		if err == nil && st.State == agentconf.StateAbsent && len(st.Shadows) == 0 && !a.Detected(environ) {
			continue
		}
		rep.MCP = append(rep.MCP, r)
		switch {
		case err != nil:
			parts = append(parts, a.Name+": cannot read "+paths.Tilde(path, environ)+": "+firstLine(err.Error()))
		case st.State == agentconf.StateAbsent:
			parts = append(parts, a.Name+": not installed")
		case st.State == agentconf.StateCurrent && st.Note != "":
			parts = append(parts, a.Name+": current ("+st.Note+")")
		case st.State == agentconf.StateCurrent:
			parts = append(parts, a.Name+": current")
		case st.State == agentconf.StateStale:
			parts = append(parts, a.Name+": stale ("+strings.Join(st.Differs, "; ")+")")
			stale = append(stale, a.ID)
		default:
			// Not novactl's: install refuses it, and it may be the
			// person's own setup; say what it is, no more.
			parts = append(parts, a.Name+`: a "nova" server novactl did not install (`+strings.Join(st.Differs, "; ")+")")
		}
		for _, p := range st.Shadows {
			where := "project " + p.Project
			if p.Scope == agentconf.ScopeProject {
				where = p.File
			}
			parts = append(parts, fmt.Sprintf(`%s %s: its own "nova" differs (%s)`, a.Name, where, strings.Join(p.Differs, "; ")))
			remove = append(remove, p.Remove)
			if !slices.Contains(starters, a.Name) {
				starters = append(starters, a.Name)
			}
		}
	}
	if len(parts) == 0 {
		return Check{}, false
	}
	msg := strings.Join(parts, "; ")
	if len(stale) == 0 && len(remove) == 0 {
		return ready("mcp", "MCP server in agents", msg), true
	}
	var advice []string
	if len(stale) > 0 {
		// The novactl the entries should start, by its path: install
		// writes the path it was started by, and a novactl found first on
		// PATH may be the very one the stale entries name.
		advice = append(advice, fixCommand(environ, home, shellword.Quote(e.Command), "mcp install --agent "+strings.Join(stale, ","))+" updates the stale entries")
	}
	if len(remove) > 0 {
		verb := " starts"
		if len(starters) > 1 {
			verb = " start"
		}
		advice = append(advice, "in those projects "+strings.Join(starters, " and ")+verb+" their own entry; remove it: "+strings.Join(remove, "; "))
	}
	return degraded("mcp", "MCP server in agents", CodeMCPStale, msg, strings.Join(advice, "; ")), true
}

func skillCheck(environ []string, home paths.Home, rep *AgentsReport) (Check, bool) {
	var parts, stale []string
	for _, t := range skill.Targets(environ) {
		st := skill.Inspect(t)
		if st.Class == skill.ClassMissing && !t.Detected() {
			continue
		}
		rep.Skills = append(rep.Skills, SkillFile{Target: t.ID, Agents: t.Agents, File: t.File(), State: st.Class, Detail: st.Detail})
		name := targetName(t)
		switch st.Class {
		case skill.ClassMissing:
			parts = append(parts, name+": not installed")
		case skill.ClassCurrent:
			parts = append(parts, name+": current")
		case skill.ClassOlder, skill.ClassOtherHome:
			parts = append(parts, name+": stale ("+st.Detail+")")
			stale = append(stale, t.ID)
		default:
			// Edited, newer or unreadable: install keeps it (see novactl
			// skill status), so there is nothing doctor can advise.
			parts = append(parts, fmt.Sprintf("%s: %s (%s)", name, st.Class, st.Detail))
		}
	}
	if len(parts) == 0 {
		return Check{}, false
	}
	msg := strings.Join(parts, "; ")
	if len(stale) == 0 {
		return ready("skill", "Skill in agents", msg), true
	}
	return degraded("skill", "Skill in agents", CodeSkillStale, msg,
		fixCommand(environ, home, "novactl", "skill install --agent "+strings.Join(stale, ","))+" updates it (after a backup)"), true
}

// targetName names a skill target by the agents that read it, as the MCP
// check names each agent: one file in a shared root (~/.agents/skills)
// serves Codex, Gemini CLI and OpenClaw alike.
func targetName(t skill.Target) string {
	names := make([]string, 0, len(t.Agents))
	for _, id := range t.Agents {
		if a, ok := agents.Lookup(id); ok {
			names = append(names, a.Name)
		} else {
			names = append(names, id)
		}
	}
	return strings.Join(names, ", ")
}
