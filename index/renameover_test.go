package index_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSync_fileRenamedOverAnother: a file renamed over another file of
// the source (mv draft.md note.md; an editor's or a tool's save through a
// temporary file the source lists) is that file under the name it took:
// its memory is indexed once, under the new name, and the old name is not
// kept as gone. The rename was only found when the new name was new to
// the index: renamed over a name the index knew, the old name's memory
// was carried as gone beside the same text read again under the new one,
// and search found it twice.
func TestSync_fileRenamedOverAnother(t *testing.T) {
	for _, full := range []bool{false, true} {
		name := "incremental"
		if full {
			name = "full"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "notes")
			writeFile(t, filepath.Join(src, "note.md"), "# Ledger\n\nThe old note about the quarterly ledger close.\n")
			writeFile(t, filepath.Join(src, "draft.md"), "# Ledger\n\nThe new note about the quarterly ledger close, drafted.\n")
			cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindMarkdown, Path: src})
			clk := newClock(epoch)
			mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))

			if err := os.Rename(filepath.Join(src, "draft.md"), filepath.Join(src, "note.md")); err != nil {
				t.Fatal(err)
			}
			r := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true, Full: full}))
			_, g := active(t, cfg.Home)
			var got []string
			for _, c := range g.All() {
				rel, _ := filepath.Rel(src, c.SourcePath)
				got = append(got, rel+": "+c.Text)
			}
			slices.Sort(got)
			if want := []string{"note.md: The new note about the quarterly ledger close, drafted."}; !slices.Equal(got, want) {
				t.Errorf("the index holds %q, want %q", got, want)
			}
			if gone := r.Build.Sources[0].Gone; len(gone) != 0 {
				t.Errorf("gone %v after a rename, want none", gone)
			}
		})
	}
}
