package skill

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/nova-recall/nova/agents"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/paths"
)

// Target is one skills root Nova writes <Root>/nova-recall/SKILL.md into,
// and the agents that load skills from that root.
//
// Codex reads ~/.agents/skills (its current user root), and so do Gemini
// CLI and OpenClaw; one file there reaches all three. Nova therefore does
// not also write ~/.gemini/skills or ~/.openclaw/skills: those agents scan
// both roots and would list two skills of the same name. A nova-recall
// found in such a second root is reported as a duplicate.
type Target struct {
	// ID names the target: claude-code, codex (shared with gemini and
	// openclaw) or hermes. It names the backup directory too.
	ID string `json:"target"`
	// Agents are the agents that read Root.
	Agents []string `json:"agents"`
	// Root is the skills root.
	Root string `json:"root"`
	// environ resolves the agents' own directories: when none exists,
	// the agents are probably not installed.
	environ []string
	// otherRoots are further roots the same agents scan, where a second
	// nova-recall would be a duplicate.
	otherRoots []Duplicate
}

// Duplicate is a second nova-recall skill directory an agent also loads.
type Duplicate struct {
	// Dir is the other skill directory.
	Dir string `json:"dir"`
	// Agent is the agent that loads both.
	Agent string `json:"agent"`
	// KeepFor is the target whose agents need Dir, for a duplicate no copy
	// of which may go: Cursor loads Claude Code's root and Codex's, each
	// the only one its own agent reads. "" for a copy Nova never writes.
	KeepFor string `json:"keepFor,omitempty"`
}

// Dir is the skill directory, <Root>/nova-recall.
func (t Target) Dir() string { return filepath.Join(t.Root, ID) }

// File is the skill file, <Root>/nova-recall/SKILL.md.
func (t Target) File() string { return filepath.Join(t.Dir(), FileName) }

// Home is the Nova home the target's skill commands use: "" for the
// default ~/.nova, else the home NOVA_HOME names (see paths.Relocated).
func (t Target) Home() string { return paths.Relocated(t.environ) }

// Facade is the base URL of the facade the target's skill names for
// HTTP calls (see facadeURL).
func (t Target) Facade() string { return facadeURL(t.environ) }

// facadeURL is the base URL of the facade of environ's Nova home, as its
// configuration (config.yaml and NOVA_* variables) sets it: "" for the
// default, http://127.0.0.1:3036, and a URL with port 0 when novad takes
// a new port at each start. An HTTP call the skill describes must reach
// this home's novad: on the default port another home's novad, or
// another program, may answer. A configuration that cannot be read counts
// as the default, whose text says another port may be configured (novad
// does not start with it anyway, and doctor says why).
func facadeURL(environ []string) string {
	cfg, err := config.Load(environ)
	if err != nil {
		return ""
	}
	url := func(c config.Config) string {
		return "http://" + net.JoinHostPort(config.BindHost(c.Server.Host), strconv.Itoa(c.Facade.Port))
	}
	if u := url(cfg); u != url(config.Defaults()) {
		return u
	}
	return ""
}

// InstalledFor is the last line's agent list for this target.
func (t Target) InstalledFor() string { return strings.Join(t.Agents, ", ") }

// Detected reports whether any of the target's agents seems installed for
// this user: its own directory exists, or the skills root's parent does
// (~/.agents for the shared root).
func (t Target) Detected() bool {
	if fi, err := os.Stat(filepath.Dir(t.Root)); err == nil && fi.IsDir() {
		return true
	}
	return slices.ContainsFunc(t.Agents, func(id string) bool {
		a, _ := agents.Lookup(id)
		return a.Installed(t.environ)
	})
}

// Duplicates returns the other nova-recall skill directories that this
// target's agents also load, which make them see the skill twice.
func (t Target) Duplicates() []Duplicate {
	var out []Duplicate
	for _, r := range t.otherRoots {
		if _, err := os.Lstat(r.Dir); err != nil {
			continue
		}
		if _, err := os.Lstat(t.Dir()); r.KeepFor != "" && err != nil {
			continue // one of Nova's two copies alone is no duplicate
		}
		out = append(out, r)
	}
	return out
}

// Targets returns every target, with roots resolved from environ (HOME
// and the agents' own variables, see package agents): one a skills root,
// shared by the agents that load skills from it first, in agent order.
// An agent Nova writes no skill for (Cursor) has none.
func Targets(environ []string) []Target {
	var out []Target
	for _, a := range agents.All() {
		if !a.HasSkillRoots() {
			continue
		}
		roots := a.SkillRoots(environ)
		i := slices.IndexFunc(out, func(t Target) bool { return t.Root == roots[0] })
		if i < 0 {
			out = append(out, Target{ID: a.ID, Root: roots[0], environ: environ})
			i = len(out) - 1
		}
		out[i].Agents = append(out[i].Agents, a.ID)
		for _, r := range roots[1:] {
			out[i].otherRoots = append(out[i].otherRoots, Duplicate{Dir: filepath.Join(r, ID), Agent: a.ID})
		}
	}
	// An agent Nova writes no skill for may load the roots of several
	// targets (Cursor: Claude Code's and Codex's). Each target after the
	// first it loads names the first's copy, so the pair is named once.
	// An agent not installed here loads nothing twice.
	for _, a := range agents.All() {
		if !a.Installed(environ) {
			continue
		}
		loads := a.LoadsSkillsFrom(environ)
		first := -1
		for i := range out {
			if !slices.Contains(loads, out[i].Root) {
				continue
			}
			if first < 0 {
				first = i
				continue
			}
			out[i].otherRoots = append(out[i].otherRoots, Duplicate{Dir: out[first].Dir(), Agent: a.ID, KeepFor: out[first].ID})
		}
	}
	return out
}

// Select returns the targets for spec (see agents.Select): every target
// for "all", else the targets of the agents named. Agents that share a
// root share one target.
func Select(environ []string, spec string) (targets []Target, explicit bool, err error) {
	selected, explicit, err := agents.Select(spec)
	if err != nil {
		return nil, false, err
	}
	for _, t := range Targets(environ) {
		if slices.ContainsFunc(selected, func(a agents.Agent) bool { return slices.Contains(t.Agents, a.ID) }) {
			targets = append(targets, t)
		}
	}
	return targets, explicit, nil
}
