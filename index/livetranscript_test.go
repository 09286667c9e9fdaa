package index_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
)

// TestLive_agentTranscriptsFollowTheFiles runs a real watcher and a real
// Indexer over agent folders as agents write them: a Claude Code projects
// folder that does not exist when the watcher starts, a project made in
// it afterwards, a transcript appended a half line at a time (read once
// complete, and once), rewritten shorter (a compaction), its project
// folder deleted and made again, and a Codex sessions tree taking a new
// day folder. After each, the index holds what the files hold.
func TestLive_agentTranscriptsFollowTheFiles(t *testing.T) {
	t.Parallel() // its own home; it mostly waits for the watcher
	root := t.TempDir()
	notes := filepath.Join(root, "notes")
	writeFile(t, filepath.Join(notes, "n.jsonl"), jsonlLines(t, rec{ID: "1", Text: "first memory about the ledger"}))
	claude := filepath.Join(root, "claude", "projects")
	codex := filepath.Join(root, "codex", "sessions")
	must(t, os.MkdirAll(codex, 0o755))
	cfg := testConfig(t, filepath.Join(root, "home"),
		config.Source{Name: "notes", Kind: config.KindJSONL, Path: notes},
		config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: claude},
		config.Source{Name: "codex", Kind: config.KindCodex, Path: codex})
	started := time.Now()
	watchLive(t, cfg)
	caughtUp(t, cfg, started)
	const note = "../../notes/n.jsonl|1|first memory about the ledger"
	word := func(i int) string {
		if i%2 == 1 {
			return "question"
		}
		return "answer"
	}
	// line is the memory of claudeLine(i) read as the pos-th line of s1
	// (the reader numbers a session's lines).
	line := func(pos, i int) string {
		return fmt.Sprintf("-src-app/s1.jsonl|s1:%d|%s %03d about the quarterly ledger export", pos, word(i), i)
	}

	s1 := filepath.Join(claude, "-src-app", "s1.jsonl")
	writeFile(t, s1, claudeLine(1, word(1))+claudeLine(2, word(2)))
	settle(t, cfg, claude, "a projects folder and a project made after start", note, line(1, 1), line(2, 2))

	third := claudeLine(3, word(3))
	changed := time.Now()
	appendFile(t, s1, third[:40])
	caughtUpWith(t, cfg, changed)
	settle(t, cfg, claude, "half a line appended", note, line(1, 1), line(2, 2))
	appendFile(t, s1, third[40:])
	settle(t, cfg, claude, "the line completed", note, line(1, 1), line(2, 2), line(3, 3))
	appendFile(t, s1, claudeLine(4, word(4)))
	settle(t, cfg, claude, "one more line", note, line(1, 1), line(2, 2), line(3, 3), line(4, 4))

	writeFile(t, s1, claudeLine(3, word(3))+claudeLine(4, word(4)))
	settle(t, cfg, claude, "rewritten shorter", note, line(1, 3), line(2, 4))

	changed = time.Now()
	must(t, os.RemoveAll(filepath.Join(claude, "-src-app")))
	caughtUpWith(t, cfg, changed)
	writeFile(t, s1, claudeLine(5, word(5)))
	settle(t, cfg, claude, "the project folder deleted and made again", note, line(1, 5))

	plain, err := os.ReadFile(filepath.Join("ingest", "testdata", "codex", "sessions", "2026", "03", "02", codexRollout))
	must(t, err)
	writeFile(t, filepath.Join(codex, "2026", "12", "06", codexRollout), string(plain))
	deadline := time.Now().Add(60 * time.Second)
	for !slicesHavePrefix(memoryOf(cfg, codex), "2026/12/06/"+codexRollout+"|") {
		if time.Now().After(deadline) {
			t.Fatalf("a rollout in a new day folder never came into the index: %q", memoryOf(cfg, codex))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func slicesHavePrefix(s []string, prefix string) bool {
	for _, e := range s {
		if strings.HasPrefix(e, prefix) {
			return true
		}
	}
	return false
}
