package index_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSync_claudeCodeAutoMemory: what Claude Code keeps in its auto
// memory (<project>/memory/*.md) is searchable through a claude-code
// source, and an edit of it replaces what was indexed on the next sync.
func TestSync_claudeCodeAutoMemory(t *testing.T) {
	dir := t.TempDir()
	projects := filepath.Join(dir, "projects")
	memoryFile := filepath.Join(projects, "-Users-ana-src-billing", "memory", "MEMORY.md")
	writeFile(t, filepath.Join(projects, "-Users-ana-src-billing", "s1.jsonl"),
		`{"type":"user","cwd":"/Users/ana/src/billing","sessionId":"s1","uuid":"u1","timestamp":"2026-03-02T10:00:00.000Z","message":{"role":"user","content":"Why do invoice totals drift by a cent?"}}`+"\n")
	writeFile(t, memoryFile, "# Billing memory\n\n- The ledger replica lags by up to ninety seconds; wait before comparing exports.\n")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: projects})
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now, NoCompact: true})
	mustSync(t, ix)
	inMemory := func(query string) bool {
		ids := searchIDs(t, cfg.Home, query)
		return len(ids) > 0 && strings.Contains(ids[0], "MEMORY.md")
	}
	if !inMemory("ledger replica lag") {
		t.Fatalf("the auto memory's fact is not found first: %v", searchIDs(t, cfg.Home, "ledger replica lag"))
	}
	writeFile(t, memoryFile, "# Billing memory\n\n- Staging deploys need the canary flag since the March outage.\n")
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(memoryFile, later, later); err != nil {
		t.Fatal(err)
	}
	mustSync(t, ix)
	if !inMemory("staging canary flag") {
		t.Errorf("the edited memory is not found: %v", searchIDs(t, cfg.Home, "staging canary flag"))
	}
	if inMemory("ledger replica lag") {
		t.Error("the memory as it was before the edit is still found")
	}
}
