package skill

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nova-recall/nova/paths"
)

// AgentIDs are the agents the skill can be installed for, in display order.
var AgentIDs = []string{"claude-code", "codex", "gemini", "openclaw", "hermes"}

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
	// homes are the agents' own directories: when none exists, the
	// agents are probably not installed.
	homes []string
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
}

// Dir is the skill directory, <Root>/nova-recall.
func (t Target) Dir() string { return filepath.Join(t.Root, ID) }

// File is the skill file, <Root>/nova-recall/SKILL.md.
func (t Target) File() string { return filepath.Join(t.Dir(), FileName) }

// InstalledFor is the last line's agent list for this target.
func (t Target) InstalledFor() string { return strings.Join(t.Agents, ", ") }

// Detected reports whether any of the target's agents seems installed for
// this user (its home directory exists).
func (t Target) Detected() bool {
	for _, h := range t.homes {
		if fi, err := os.Stat(h); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// Duplicates returns the other nova-recall skill directories that this
// target's agents also load, which make them see the skill twice.
func (t Target) Duplicates() []Duplicate {
	var out []Duplicate
	for _, r := range t.otherRoots {
		if _, err := os.Lstat(r.Dir); err == nil {
			out = append(out, r)
		}
	}
	return out
}

// Targets returns every target, with roots resolved from environ (HOME,
// CODEX_HOME, HERMES_HOME).
func Targets(environ []string) []Target {
	home := paths.UserHome(environ)
	in := func(parts ...string) string { return filepath.Join(append([]string{home}, parts...)...) }
	envOr := func(key string, def string) string {
		if v := paths.Lookup(environ, key); v != "" {
			return paths.ExpandHome(v, environ)
		}
		return def
	}
	codexHome := envOr("CODEX_HOME", in(".codex"))
	hermesHome := envOr("HERMES_HOME", in(".hermes"))
	return []Target{
		{
			ID: "claude-code", Agents: []string{"claude-code"},
			Root:  in(".claude", "skills"),
			homes: []string{in(".claude")},
		},
		{
			ID: "codex", Agents: []string{"codex", "gemini", "openclaw"},
			Root:  in(".agents", "skills"),
			homes: []string{in(".agents"), codexHome, in(".gemini"), in(".openclaw")},
			// $CODEX_HOME/skills is deprecated but still scanned by Codex;
			// Gemini CLI and OpenClaw have their own user roots besides.
			otherRoots: []Duplicate{
				{filepath.Join(codexHome, "skills", ID), "codex"},
				{in(".gemini", "skills", ID), "gemini"},
				{in(".openclaw", "skills", ID), "openclaw"},
			},
		},
		{
			ID: "hermes", Agents: []string{"hermes"},
			Root:  filepath.Join(hermesHome, "skills"),
			homes: []string{hermesHome},
		},
	}
}

// Select returns the targets for spec: "all" (or "") for every target, or
// a comma-separated list of agent ids. explicit is false for "all".
// Agents that share a root share one target.
func Select(environ []string, spec string) (targets []Target, explicit bool, err error) {
	all := Targets(environ)
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == "all" {
		return all, false, nil
	}
	want := map[string]bool{}
	for _, id := range strings.Split(spec, ",") {
		id = strings.TrimSpace(id)
		if !slices.Contains(AgentIDs, id) {
			return nil, false, fmt.Errorf("unknown agent %q (want %s or all)", id, strings.Join(AgentIDs, ", "))
		}
		want[id] = true
	}
	for _, t := range all {
		if slices.ContainsFunc(t.Agents, func(a string) bool { return want[a] }) {
			targets = append(targets, t)
		}
	}
	return targets, true, nil
}
