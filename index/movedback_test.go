package index_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSync_folderMovedOutAndBackElsewhere: a folder moved out of a source
// (a sync sees its notes gone and keeps their memory) and later moved back
// into it under another name holds the same files: their memory is
// indexed once, under the new names, and nothing is left gone. Only a file
// that vanished since the last sync was looked for under a new name: once
// a sync had seen it gone, it was kept as gone beside the same text read
// again under its new name, so every note of the folder was found twice.
func TestSync_folderMovedOutAndBackElsewhere(t *testing.T) {
	for _, full := range []bool{false, true} {
		name := "incremental"
		if full {
			name = "full"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "notes")
			writeFile(t, filepath.Join(src, "alpha", "ledger.md"), "# Ledger\n\nThe quarterly ledger closes on the fifth working day.\n")
			writeFile(t, filepath.Join(src, "alpha", "deploy.md"), "# Deploy\n\nThe staging deploy runs after the migration gate.\n")
			cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindMarkdown, Path: src})
			clk := newClock(epoch)
			sync := func() *index.SyncResult {
				return syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true, Full: full}))
			}
			mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))

			away := filepath.Join(dir, "desktop", "alpha")
			if err := os.MkdirAll(filepath.Dir(away), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(filepath.Join(src, "alpha"), away); err != nil {
				t.Fatal(err)
			}
			if gone := sync().Build.Sources[0].Gone; len(gone) != 2 {
				t.Fatalf("gone %v while the folder is away, want its 2 notes", gone)
			}
			if err := os.MkdirAll(filepath.Join(src, "archive"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(away, filepath.Join(src, "archive", "alpha-2026")); err != nil {
				t.Fatal(err)
			}
			r := sync()
			_, g := active(t, cfg.Home)
			var got []string
			for _, c := range g.All() {
				rel, _ := filepath.Rel(src, c.SourcePath)
				got = append(got, rel+": "+c.Text)
			}
			slices.Sort(got)
			want := []string{
				"archive/alpha-2026/deploy.md: The staging deploy runs after the migration gate.",
				"archive/alpha-2026/ledger.md: The quarterly ledger closes on the fifth working day.",
			}
			if !slices.Equal(got, want) {
				t.Errorf("the index holds %q, want %q", got, want)
			}
			if gone := r.Build.Sources[0].Gone; len(gone) != 0 {
				t.Errorf("gone %v once the folder is back, want none", gone)
			}
		})
	}
}
