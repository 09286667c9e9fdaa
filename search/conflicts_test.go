package search_test

import (
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
)

// TestSupersession_taskBoardConflictCopies: a sync service's conflict
// copy of an untitled board (Syncthing's board.sync-conflict-…,
// Dropbox's "board (Mac's conflicted copy …)", Google Drive's
// "board (1)") is a snapshot of the board it copies: its lanes chain
// with the board's and a card the newer board dropped is superseded, not
// current forever. Its text stays indexed and searchable. Before, each
// copy was a board of its own ("board sync conflict abcdefg") and all
// its lanes were returned as current beside the board's newer ones.
func TestSupersession_taskBoardConflictCopies(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "board.md"), "---\ndate: 2026-07-01\n---\n## Todo\n\nBilby fence repair, final.\n")
	writeFile(t, filepath.Join(dir, "board.sync-conflict-20260601-101010-ABCDEFG.md"), "---\ndate: 2026-06-01\n---\n## Todo\n\nBilby fence repair, draft.\n\n## Doing\n\nBilby burrow survey.\n")
	writeFile(t, filepath.Join(dir, "ops.md"), "---\ndate: 2026-07-01\n---\n## Todo\n\nBilby gate oiling, final.\n")
	writeFile(t, filepath.Join(dir, "ops (Mac's conflicted copy 2026-06-01).md"), "---\ndate: 2026-06-01\n---\n## Todo\n\nBilby gate oiling, draft.\n")
	writeFile(t, filepath.Join(dir, "plan.md"), "---\ndate: 2026-07-01\n---\n## Todo\n\nBilby nest boxes, final.\n")
	writeFile(t, filepath.Join(dir, "plan (1).md"), "---\ndate: 2026-06-01\n---\n## Todo\n\nBilby nest boxes, draft.\n")
	snap := newLiveHome(t, config.Source{Name: "board", Kind: config.KindMarkdown, Path: dir, SourceSet: "task-board-snapshot"}).sync(t)
	wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "bilby fence gate nest burrow", TopK: 20})), map[string]string{
		"board.md#todo": "current",
		"board.sync-conflict-20260601-101010-ABCDEFG.md#todo":  "by board:board.md#todo",
		"board.sync-conflict-20260601-101010-ABCDEFG.md#doing": "by board:board.md#todo",
		"ops.md#todo": "current",
		"ops (Mac's conflicted copy 2026-06-01).md#todo": "by board:ops.md#todo",
		"plan.md#todo":     "current",
		"plan (1).md#todo": "by board:plan.md#todo",
	})
}
