package index_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSync_aider: a folder of repositories with Aider chat histories
// through real syncs. A reply Aider appends after a prompt the last sync
// read is read on from the cursor and found by search; a commit that
// follows a reply already indexed is read whole again, and the reply then
// carries it, once; a repository Aider starts in later is found, and a
// history in a repository's top folder.
func TestSync_aider(t *testing.T) {
	dir := t.TempDir()
	srcDir := filepath.Join(dir, "src")
	history := filepath.Join(srcDir, "billing", ".aider.chat.history.md")
	writeFile(t, history, "\n# aider chat started at 2026-03-02 14:20:11\n\n> aider --model sonnet  \n> Added jobs/invoice.py to the chat  \n\n"+
		"#### why does the invoice job stall on Mondays?  \n")
	writeFile(t, filepath.Join(srcDir, "billing", "node_modules", "x", ".aider.chat.history.md"), "\n#### a dependency's history, never read\n")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "ai", Kind: config.KindAider, Path: srcDir})
	clk := newClock(epoch)
	ix := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})
	mustSync(t, ix)

	texts := func() map[string]string {
		t.Helper()
		_, g := active(t, cfg.Home)
		out := map[string]string{}
		for _, c := range chunkByID(t, g) {
			if _, dup := out[c.SourceID]; dup {
				t.Fatalf("record %s indexed twice", c.SourceID)
			}
			if c.Agent != "aider" || c.SourceSet != "agent-transcripts" || c.Time == "" {
				t.Errorf("%s: agent %q source set %q time %q", c.SourceID, c.Agent, c.SourceSet, c.Time)
			}
			out[c.SourceID] = c.Project + ": " + c.Text
		}
		return out
	}
	withText := func(got map[string]string, text string) string {
		for id, s := range got {
			if s == text {
				return id
			}
		}
		return ""
	}
	if got := texts(); len(got) != 1 || withText(got, "billing: why does the invoice job stall on Mondays?") == "" {
		t.Fatalf("first sync: %v", got)
	}

	// Aider appends its reply and the token count: read on from the
	// cursor.
	appendFile(t, history, "\nThe Monday batch waits on the ledger lock the weekly export holds.\n\n> Tokens: 2k sent, 40 received.  \n")
	b := mustSync(t, ix).Build
	if b.Mode != index.ModeIncremental || b.FilesResumed != 1 {
		t.Errorf("after an append: mode %s, %d files resumed, want incremental and 1", b.Mode, b.FilesResumed)
	}
	got := texts()
	reply := withText(got, "billing: The Monday batch waits on the ledger lock the weekly export holds.")
	if len(got) != 2 || reply == "" {
		t.Fatalf("after the reply: %v", got)
	}
	if ids := searchIDs(t, cfg.Home, "ledger lock weekly export"); len(ids) == 0 || ids[0] != reply {
		t.Errorf("search for the reply: %v, want %s first", ids, reply)
	}

	// Aider applies an edit and commits it: the reply indexed gains the
	// commit, so the file is read whole again; each record once.
	appendFile(t, history, "> Applied edit to jobs/invoice.py  \n> Commit 5e6f7a8 fix: give the weekly export its own lock  \n")
	b = mustSync(t, ix).Build
	if b.FilesResumed != 0 || b.DuplicateIDs != 0 {
		t.Errorf("after a commit: %d files resumed, %d duplicate ids; want the file read whole", b.FilesResumed, b.DuplicateIDs)
	}
	got = texts()
	if len(got) != 2 || !strings.HasSuffix(got[reply], "\n[tool: commit 5e6f7a8 fix: give the weekly export its own lock]") {
		t.Errorf("after the commit: %v", got)
	}

	// Aider starts in another repository.
	writeFile(t, filepath.Join(srcDir, "shop", ".aider.chat.history.md"), "\n# aider chat started at 2026-03-03 09:00:00\n\n#### which queue does the mailer use?  \n")
	mustSync(t, ix)
	if got := texts(); len(got) != 3 || withText(got, "shop: which queue does the mailer use?") == "" {
		t.Errorf("a new repository: %v", got)
	}

	// Aider runs in a folder of a repository where it found none (the
	// repository was made later): that history is found, one deeper in
	// the repository's source tree is not walked to.
	writeFile(t, filepath.Join(srcDir, "shop", ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(srcDir, "shop", "frontend", ".aider.chat.history.md"), "\n# aider chat started at 2026-03-04 10:00:00\n\n#### why is the cart badge stale?  \n")
	writeFile(t, filepath.Join(srcDir, "shop", "frontend", "src", ".aider.chat.history.md"), "\n#### too deep, never read  \n")
	mustSync(t, ix)
	if got := texts(); len(got) != 4 || withText(got, "frontend: why is the cart badge stale?") == "" {
		t.Errorf("a history in a repository's folder: %v", got)
	}
}
