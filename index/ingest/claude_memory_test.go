package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestReadClaudeCode_autoMemory: Claude Code's auto memory, the Markdown
// it keeps beside a project's sessions (<project>/memory/MEMORY.md and
// its topic files), is read by the claude-code source as notes of agent
// claude-code, a section each, beside the sessions; other Markdown in the
// projects folder is not, and neither is anything under tool-results.
func TestReadClaudeCode_autoMemory(t *testing.T) {
	projects := t.TempDir()
	project := filepath.Join(projects, "-Users-ana-src-billing")
	session := `{"type":"user","cwd":"/Users/ana/src/billing","sessionId":"s1","uuid":"u1","timestamp":"2026-03-02T10:00:00.000Z","message":{"role":"user","content":"Why do invoice totals drift by a cent?"}}` + "\n"
	files := map[string]string{
		"s1.jsonl":                    session,
		"memory/MEMORY.md":            "# Billing memory\n\n- Invoice totals use banker's rounding at the end, never per line.\n- [Debugging](debugging.md)\n",
		"memory/debugging.md":         "# Debugging\n\nThe ledger replica lags by up to ninety seconds; wait before comparing.\n",
		"notes.md":                    "# Not memory\n\nA stray note beside the sessions.\n",
		"s1/tool-results/memory/x.md": "# Tool output\n\nexternalized tool output\n",
	}
	for rel, text := range files {
		p := filepath.Join(project, rel)
		novatest.Must(t, os.MkdirAll(filepath.Dir(p), 0o700))
		novatest.Must(t, os.WriteFile(p, []byte(text), 0o600))
	}
	recs, problems := collect(t, config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: projects})
	if len(problems) > 0 {
		t.Errorf("problems: %+v", problems)
	}
	var notes []string
	dialogue := 0
	for _, r := range recs {
		if r.Layer == "dialogue" {
			dialogue++
			continue
		}
		if r.Agent != config.KindClaudeCode || r.SourceSet != "notes" || filepath.Base(filepath.Dir(r.Path)) != "memory" {
			t.Errorf("note %s: path %s agent %q source set %q layer %q", r.ID, r.Path, r.Agent, r.SourceSet, r.Layer)
		}
		notes = append(notes, r.Text)
	}
	all := strings.Join(notes, "\n")
	if dialogue != 1 || len(notes) != 2 || !strings.Contains(all, "banker's rounding") || !strings.Contains(all, "ninety seconds") {
		t.Errorf("%d dialogue records and the notes %q; want the session's prompt and the two memory files", dialogue, notes)
	}
	if strings.Contains(all, "stray note") || strings.Contains(all, "externalized") {
		t.Errorf("Markdown outside memory/ was read: %q", notes)
	}
	// A source that is one project reads its memory folder too.
	recs, _ = collect(t, config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: project})
	found := false
	for _, r := range recs {
		found = found || strings.Contains(r.Text, "ninety seconds")
	}
	if !found {
		t.Error("a source of one project does not read its memory folder")
	}
}
