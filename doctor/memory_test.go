package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
)

// TestUnreadAgentMemory: the memory of an agent found on this machine that
// no source reads (an agent that came after config init, Codex's archived
// threads beside a source that names its sessions folder) is named, with
// the source line that reads it; nothing is said once every one is read.
// Nothing said it: that memory was silently never recalled.
func TestUnreadAgentMemory(t *testing.T) {
	f := newFixture(t)
	base := filepath.Dir(f.home.Root)
	mk := func(rel string) {
		t.Helper()
		p := filepath.Join(base, rel)
		novatest.Must(t, os.MkdirAll(filepath.Dir(p), 0o700))
		novatest.Must(t, os.WriteFile(p, []byte("{}\n"), 0o600))
	}
	mk(".claude/projects/-home-ada-shop/0a0b0c0d-0000-4000-8000-000000000001.jsonl")
	mk(".codex/sessions/2026/12/01/rollout-2026-12-01T09-00-00-0a0b0c0d-0000-4000-8000-000000000002.jsonl")
	mk(".codex/archived_sessions/rollout-2026-11-01T09-00-00-0a0b0c0d-0000-4000-8000-000000000003.jsonl")
	f.extra = "  - {name: codex, kind: codex, path: " + filepath.Join(base, ".codex", "sessions") + "}\n"
	f.writeConfig()

	c := check(t, f.run(Options{}), "agent-memory")
	if c.State != Ready {
		t.Errorf("state %s: leaving an agent out may be the person's choice", c.State)
	}
	for _, want := range []string{"Claude Code", "~/.claude/projects", "~/.codex/archived_sessions"} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("message %q lacks %q", c.Message, want)
		}
	}
	for _, want := range []string{"- {name: claude, kind: claude-code, path: ~/.claude/projects}", "set source codex's path to ~/.codex"} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("message %q lacks %q", c.Message, want)
		}
	}

	// Cursor's agent transcripts, under ~/.cursor/projects, are memory a
	// cursor source reads: named until one does.
	mk(".cursor/mcp.json")
	mk(".cursor/projects/home-ada-shop/agent-transcripts/s/s.jsonl")
	f.extra = "  - {name: codex, kind: codex, path: " + filepath.Join(base, ".codex") + "}\n" +
		"  - {name: claude, kind: claude-code, path: " + filepath.Join(base, ".claude", "projects", "-home-ada-shop") + "}\n"
	f.writeConfig()
	c = check(t, f.run(Options{}), "agent-memory")
	if !strings.Contains(c.Message, "Cursor's ~/.cursor/projects") || !strings.Contains(c.Message, "- {name: cursor, kind: cursor, path: ~/.cursor/projects}") {
		t.Errorf("message %q does not name Cursor's transcripts and the source that reads them", c.Message)
	}
	f.extra += "  - {name: cursor, kind: cursor, path: " + filepath.Join(base, ".cursor", "projects") + "}\n"
	f.writeConfig()
	for _, c := range f.run(Options{}).Checks {
		if c.ID == "agent-memory" {
			t.Errorf("every agent's memory is read (one project of Claude Code's, by choice), yet: %+v", c)
		}
	}
}
