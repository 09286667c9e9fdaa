package index_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSync_noteTooLargeIsRecorded: a note larger than a note may be (a
// 50 MB exported chat) is skipped with its reason in its file's state,
// as a binary note is: the next sync leaves it unread until it changes
// (it read 32 MiB of it and promoted a new generation at every sync), and
// doctor names it (its input check saw nothing skipped, and its
// freshness check called it not yet indexed: "run novactl index sync").
func TestSync_noteTooLargeIsRecorded(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes")
	small, big := filepath.Join(notes, "small.md"), filepath.Join(notes, "export.md")
	writeFile(t, small, "# Deploys\nThe canary gets 5% of traffic for 30 minutes.\n")
	writeFile(t, big, "# Exported chat\nThe first question of a long chat.\n")
	// Sparse: larger than a note may be, at no cost in disk.
	if err := os.Truncate(big, 48<<20); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindMarkdown, Path: notes})
	clk := newClock(epoch)
	r := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})).Build
	if len(r.Problems) != 1 || r.Problems[0].Path != big || !strings.Contains(r.Problems[0].Reason, "larger than") {
		t.Fatalf("first sync's problems: %+v; want export.md's, larger than a note may be", r.Problems)
	}
	st, ok := activeStates(t, cfg.Home)[big]
	if !ok || st.Problems != 1 || !strings.Contains(st.Problem, "larger than") {
		t.Fatalf("state of export.md: %+v (recorded %v); want 1 problem, larger than a note may be", st, ok)
	}
	r2 := syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})).Build
	if r2.Mode != index.ModeUnchanged || r2.FilesRead != 0 {
		t.Errorf("second sync, nothing changed: mode %s, %d files read; want %s, none", r2.Mode, r2.FilesRead, index.ModeUnchanged)
	}
}
