package doctor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/mcpserver/agentconf"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/skill"
)

// userHome is the fixture's HOME.
func (f *fixture) userHome() string { return paths.UserHome(f.environ) }

// write writes content to rel under the fixture's HOME.
func (f *fixture) write(rel, content string) {
	f.t.Helper()
	p := filepath.Join(f.userHome(), rel)
	novatest.Must(f.t, os.MkdirAll(filepath.Dir(p), 0o700))
	novatest.Must(f.t, os.WriteFile(p, []byte(content), 0o600))
}

// novaEntry is the entry novactl mcp install writes for the fixture's home.
func (f *fixture) novaEntry() agentconf.Entry {
	return agentconf.Entry{Command: "/opt/nova/bin/novactl", Args: []string{"mcp"}, Env: map[string]string{paths.EnvHome: f.home.Root}}
}

// TestAgents_nothingInstalled: agents found here without Nova's MCP entry
// or skill are reported, and that is Ready: both are optional.
func TestAgents_nothingInstalled(t *testing.T) {
	f := newFixture(t)
	e := f.novaEntry()
	if rep := f.run(Options{Agents: &AgentOptions{MCPEntry: &e}}); hasCheck(rep, "mcp") || hasCheck(rep, "skill") {
		t.Errorf("no agent is installed here, yet: %+v", rep.Checks)
	}

	novatest.Must(t, os.MkdirAll(filepath.Join(f.userHome(), ".claude"), 0o700))
	f.write(".claude.json", `{"numStartups": 3, "mcpServers": {}}`)
	rep := f.run(Options{Agents: &AgentOptions{MCPEntry: &e}})
	for id, name := range map[string]string{"mcp": "Claude Code: not installed", "skill": "Claude Code: not installed"} {
		c := want(t, rep, id, Ready, "")
		if c.Message != name {
			t.Errorf("%s: %q, want %q", id, c.Message, name)
		}
	}
	// novad is not running here: the agents' checks add nothing to that.
	if base := f.run(Options{}); rep.Blocked != base.Blocked || rep.Degraded != base.Degraded || rep.Agents == nil || len(rep.Agents.MCP) != 1 || rep.Agents.MCP[0].State != agentconf.StateAbsent ||
		len(rep.Agents.Skills) != 1 || rep.Agents.Skills[0].State != skill.ClassMissing {
		t.Errorf("report: blocked %d degraded %d %+v", rep.Blocked, rep.Degraded, rep.Agents)
	}
}

// TestAgents_stale: an MCP entry of another novactl, a Claude Code
// project's own "nova" and a skill written for another home are each a
// warning (Degraded, never Blocked) with the command that fixes it; a
// current entry and skill are said to be current. --json carries each
// agent's state.
func TestAgents_stale(t *testing.T) {
	f := newFixture(t)
	e := f.novaEntry()
	entry := func(cmd, home string) string {
		b, err := json.Marshal(map[string]any{"command": cmd, "args": []string{"mcp"}, "env": map[string]string{paths.EnvHome: home}})
		novatest.Must(t, err)
		return string(b)
	}
	f.write(".claude.json", `{"projects": {"/src/app": {"mcpServers": {"nova": `+entry("/old/bin/novactl", "/old/nova")+`}}},
 "mcpServers": {"nova": `+entry(e.Command, f.home.Root)+`}}`)
	f.write(".codex/config.toml", "[mcp_servers.nova]\ncommand = \"/usr/local/Cellar/nova/0.3/bin/novactl\"\nargs = [\"mcp\"]\nenv = { NOVA_HOME = \""+f.home.Root+"\" }\n")
	novatest.Must(t, os.MkdirAll(filepath.Join(f.userHome(), ".hermes"), 0o700))
	f.write(".claude/skills/nova-recall/SKILL.md", string(skill.Render("claude-code", "/elsewhere/nova")))
	for _, tg := range skill.Targets(f.environ) {
		if tg.ID == "codex" { // the file install writes: this home, and its facade
			f.write(".agents/skills/nova-recall/SKILL.md", string(skill.PlanInstall(tg, false).Want))
		}
	}

	rep := f.run(Options{Agents: &AgentOptions{MCPEntry: &e}})
	if base := f.run(Options{}); rep.Blocked != base.Blocked || rep.Degraded != base.Degraded+2 {
		t.Errorf("blocked %d degraded %d, without the agents' checks %d and %d", rep.Blocked, rep.Degraded, base.Blocked, base.Degraded)
	}
	c := want(t, rep, "mcp", Degraded, CodeMCPStale)
	for _, s := range []string{"Claude Code: current", "Codex: stale", "/usr/local/Cellar/nova/0.3/bin/novactl", "Hermes: not installed", "/src/app"} {
		if !strings.Contains(c.Message, s) {
			t.Errorf("mcp message lacks %q: %s", s, c.Message)
		}
	}
	for _, s := range []string{"NOVA_HOME=" + f.home.Root + " /opt/nova/bin/novactl mcp install --agent codex", "cd /src/app && claude mcp remove nova -s local"} {
		if !strings.Contains(c.Advice, s) {
			t.Errorf("mcp advice lacks %q: %s", s, c.Advice)
		}
	}
	c = want(t, rep, "skill", Degraded, CodeSkillStale)
	for _, s := range []string{"Claude Code: stale", "/elsewhere/nova", "Codex, Gemini CLI, OpenClaw: current"} {
		if !strings.Contains(c.Message, s) {
			t.Errorf("skill message lacks %q: %s", s, c.Message)
		}
	}
	if !strings.Contains(c.Advice, "NOVA_HOME="+f.home.Root+" novactl skill install --agent claude-code") {
		t.Errorf("skill advice: %s", c.Advice)
	}

	b, err := json.Marshal(rep)
	novatest.Must(t, err)
	var doc struct {
		Agents struct {
			MCP []struct {
				Agent, State, Command string
				ProjectEntries        []struct{ Project, Remove string }
			}
			Skills []struct {
				Target, State, File string
			}
		}
	}
	novatest.Must(t, json.Unmarshal(b, &doc))
	states := map[string]string{}
	for _, a := range doc.Agents.MCP {
		states[a.Agent] = a.State
		if a.Agent == "claude-code" && (len(a.ProjectEntries) != 1 || !strings.Contains(a.ProjectEntries[0].Remove, "claude mcp remove")) {
			t.Errorf("json claude-code project entries: %+v", a.ProjectEntries)
		}
	}
	if states["claude-code"] != "current" || states["codex"] != "stale" || states["hermes"] != "absent" || len(states) != 3 {
		t.Errorf("json mcp states: %v\n%s", states, b)
	}
	if len(doc.Agents.Skills) != 3 || doc.Agents.Skills[0].State != string(skill.ClassOtherHome) || doc.Agents.Skills[1].State != string(skill.ClassCurrent) {
		t.Errorf("json skills: %+v", doc.Agents.Skills)
	}
}
