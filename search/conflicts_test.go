package search_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	writeFile(t, filepath.Join(dir, "tasks.md"), "---\ndate: 2026-07-01\n---\n## Todo\n\nBilby water troughs, final.\n")
	writeFile(t, filepath.Join(dir, "tasks_conflict-20260601-101010.md"), "---\ndate: 2026-06-01\n---\n## Todo\n\nBilby water troughs, draft.\n")
	snap := newLiveHome(t, config.Source{Name: "board", Kind: config.KindMarkdown, Path: dir, SourceSet: "task-board-snapshot"}).sync(t)
	wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "bilby fence gate nest burrow water troughs", TopK: 20})), map[string]string{
		"board.md#todo": "current",
		"board.sync-conflict-20260601-101010-ABCDEFG.md#todo":  "by board:board.md#todo",
		"board.sync-conflict-20260601-101010-ABCDEFG.md#doing": "by board:board.md#todo",
		"ops.md#todo": "current",
		"ops (Mac's conflicted copy 2026-06-01).md#todo": "by board:ops.md#todo",
		"plan.md#todo":                           "current",
		"plan (1).md#todo":                       "by board:plan.md#todo",
		"tasks.md#todo":                          "current",
		"tasks_conflict-20260601-101010.md#todo": "by board:tasks.md#todo",
	})
}

// TestSupersession_conflictCopySameDay: a conflict copy is made when two
// devices change a file within one sync, most often on one day; a note
// without a date is of its file's day, so the board and its copy are
// of one time. The board is the state its owner keeps: at one time its
// lanes are current and the copy's are superseded by them, for a board
// without a title (its dropped lanes) and one with a title (each card's
// chain) alike. Before, the later name won the tie
// ("board.sync-conflict-…" after "board.md"), and the copy's stale
// lanes were current, the board's superseded by them.
func TestSupersession_conflictCopySameDay(t *testing.T) {
	dir := t.TempDir()
	day := time.Date(2026, 7, 10, 9, 0, 0, 0, time.Local)
	files := map[string]string{
		"board.md": "## Todo\n\nNumbat tracker firmware, final.\n\n## Doing\n\nNumbat tracker batteries.\n",
		"board.sync-conflict-20260710-101010-ABCDEFG.md": "## Todo\n\nNumbat tracker firmware, draft.\n",
		"ops.md": "# Ops\n\n## NOVA-12 numbat tracker antenna\n\nStatus: done, mounted.\n",
		"ops (Mac's conflicted copy 2026-07-10).md": "# Ops\n\n## NOVA-12 numbat tracker antenna\n\nStatus: blocked, waiting for parts.\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		writeFile(t, p, text)
		if err := os.Chtimes(p, day, day); err != nil {
			t.Fatal(err)
		}
	}
	snap := newLiveHome(t, config.Source{Name: "board", Kind: config.KindMarkdown, Path: dir, SourceSet: "task-board-snapshot"}).sync(t)
	wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "numbat tracker firmware batteries antenna", TopK: 20})), map[string]string{
		"board.md#todo":  "current",
		"board.md#doing": "current",
		"board.sync-conflict-20260710-101010-ABCDEFG.md#todo":                          "by board:board.md#todo",
		"ops.md#ops-nova-12-numbat-tracker-antenna":                                    "current",
		"ops (Mac's conflicted copy 2026-07-10).md#ops-nova-12-numbat-tracker-antenna": "by board:ops.md#ops-nova-12-numbat-tracker-antenna",
	})
}

// TestSearch_conflictCopyIdenticalText: a note and a sync service's
// conflict copies of it that say the same are one result, and it cites
// the note, the file its owner keeps (a copy is removed once resolved,
// and an agent told to change the note would change the copy); what
// only a copy says is still found, cited from the copy. Before, the
// copy ranked first by its name was the result kept.
func TestSearch_conflictCopyIdenticalText(t *testing.T) {
	dir := t.TempDir()
	same := "# Kiosk\n\n## Setup\n\nThe quokka kiosk boots from the red USB stick and joins the guest network.\n"
	writeFile(t, filepath.Join(dir, "kiosk.md"), same)
	writeFile(t, filepath.Join(dir, "kiosk.sync-conflict-20260601-101010-ABCDEFG.md"), same+"\n## Lost\n\nThe quokka kiosk admin PIN is taped under the stand.\n")
	writeFile(t, filepath.Join(dir, "kiosk (1).md"), same)
	writeFile(t, filepath.Join(dir, "kiosk (Mac's conflicted copy 2026-06-01).md"), same)
	writeFile(t, filepath.Join(dir, "kiosk 2.md"), same) // iCloud Drive's copy
	snap := newLiveHome(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir}).sync(t)
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "quokka kiosk red USB stick guest network", TopK: 10})
	var setup []string
	for _, r := range resp.Results {
		if strings.HasSuffix(r.SourceID, "#kiosk-setup") {
			setup = append(setup, r.SourceID)
		}
	}
	if len(setup) != 1 || setup[0] != "kiosk.md#kiosk-setup" {
		t.Errorf("the setup section's results are %q, want kiosk.md#kiosk-setup alone", setup)
	}
	lost := ask(t, engineWith(), snap, api.SearchRequest{Query: "quokka kiosk admin PIN", TopK: 10})
	if rank(lost, "kiosk.sync-conflict-20260601-101010-ABCDEFG.md#kiosk-lost") < 0 {
		t.Errorf("the copy's own section is not found")
	}
}

// TestSearch_unicodeEncodingConflictCopy: Dropbox (and Koofr) keep the
// second of two files whose names differ only in Unicode form (a note
// named on macOS, decomposed, and one named elsewhere, composed) as
// "name (Unicode Encoding Conflict)": the copy names its original in the
// other form. A note and such a copy that say the same are one result
// citing the note, and such a copy of a board is a snapshot of it.
// Before, the mark was no conflict copy's: the copy could be the result
// kept, and the copy's lanes were a board of their own, current beside
// the board's.
func TestSearch_unicodeEncodingConflictCopy(t *testing.T) {
	dir := t.TempDir()
	same := "# Kiosk\n\n## Setup\n\nThe potoroo kiosk boots from the blue USB stick and joins the café network.\n"
	writeFile(t, filepath.Join(dir, "notes", "Café kiosk.md"), same)
	writeFile(t, filepath.Join(dir, "notes", nfd("Café kiosk (Unicode Encoding Conflict).md")), same)
	snap := newLiveHome(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: filepath.Join(dir, "notes")}).sync(t)
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "potoroo kiosk blue USB stick café network", TopK: 10})
	var setup []string
	for _, r := range resp.Results {
		if strings.HasSuffix(r.SourceID, "#kiosk-setup") {
			setup = append(setup, r.SourceID)
		}
	}
	if len(setup) != 1 || setup[0] != "Café kiosk.md#kiosk-setup" {
		t.Errorf("the setup section's results are %q, want Café kiosk.md#kiosk-setup alone", setup)
	}

	writeFile(t, filepath.Join(dir, "board", nfd("Équipe.md")), "---\ndate: 2026-07-01\n---\n## Todo\n\nPotoroo gate oiling, final.\n")
	writeFile(t, filepath.Join(dir, "board", "Équipe (Unicode Encoding Conflict).md"), "---\ndate: 2026-06-01\n---\n## Todo\n\nPotoroo gate oiling, draft.\n\n## Doing\n\nPotoroo burrow survey.\n")
	snap = newLiveHome(t, config.Source{Name: "board", Kind: config.KindMarkdown, Path: filepath.Join(dir, "board"), SourceSet: "task-board-snapshot"}).sync(t)
	wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "potoroo gate oiling burrow survey", TopK: 20})), map[string]string{
		nfd("Équipe.md") + "#todo":                    "current",
		"Équipe (Unicode Encoding Conflict).md#todo":  "by board:" + nfd("Équipe.md") + "#todo",
		"Équipe (Unicode Encoding Conflict).md#doing": "by board:" + nfd("Équipe.md") + "#todo",
	})
}

// TestSupersession_taskBoardICloudCopy: iCloud Drive names its copy of
// a board a number after the board's name ("board 2.md" of "board.md");
// beside the board it is a snapshot of it, its dropped lanes superseded.
// A name with a number and no board of the name without it ("sprint
// 2.md", "sprint 3.md") is a board of its own. Before, the copy was a
// board of its own ("board 2") and all its lanes were current.
func TestSupersession_taskBoardICloudCopy(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "board.md"), "---\ndate: 2026-07-01\n---\n## Todo\n\nDunnart camera traps, final.\n")
	writeFile(t, filepath.Join(dir, "board 2.md"), "---\ndate: 2026-06-01\n---\n## Todo\n\nDunnart camera traps, draft.\n\n## Doing\n\nDunnart nest survey.\n")
	writeFile(t, filepath.Join(dir, "board 2 2.md"), "---\ndate: 2026-05-01\n---\n## Done\n\nDunnart permit.\n")
	writeFile(t, filepath.Join(dir, "sprint 2.md"), "---\ndate: 2026-06-01\n---\n## Todo\n\nDunnart camera batteries.\n")
	writeFile(t, filepath.Join(dir, "sprint 3.md"), "---\ndate: 2026-07-01\n---\n## Todo\n\nDunnart camera mounts.\n")
	snap := newLiveHome(t, config.Source{Name: "board", Kind: config.KindMarkdown, Path: dir, SourceSet: "task-board-snapshot"}).sync(t)
	wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "dunnart camera traps nest survey batteries mounts permit", TopK: 20})), map[string]string{
		"board.md#todo":     "current",
		"board 2.md#todo":   "by board:board.md#todo",
		"board 2.md#doing":  "by board:board.md#todo",
		"board 2 2.md#done": "by board:board.md#todo",
		"sprint 2.md#todo":  "current",
		"sprint 3.md#todo":  "current",
	})
}
