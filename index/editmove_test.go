package index_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// needBirthTime skips a test on a file system that gives no birth time
// to files made under dir (tmpfs and overlayfs may not): telling a file
// edited and moved from a new file that reused a freed inode needs it.
func needBirthTime(t *testing.T, dir string) {
	t.Helper()
	probe := filepath.Join(dir, "birth-probe")
	writeFile(t, probe, "probe")
	defer os.Remove(probe)
	if index.BirthTimeForTest(probe) == 0 {
		t.Skipf("the file system under %s gives files no birth time", dir)
	}
}

// editMoveKind is one kind of source the edit-and-move tests run on: the
// file's content before and after the edit, and the texts each holds.
type editMoveKind struct {
	kind, ext        string
	before, after    string
	other            string // another file of the source, left alone
	fresh, freshText string // a new file's content (record ids of its own), and its text
	oldText, newText []string
}

func editMoveKinds(t *testing.T) []editMoveKind {
	return []editMoveKind{
		{
			kind: config.KindMarkdown, ext: ".md",
			before:    "# Ledger\n\nThe old note about the quarterly ledger close.\n",
			other:     "# Other\n\nAn unrelated note about lunch.\n",
			fresh:     "# Standup\n\nA new note: the standup moves to ten.\n",
			freshText: "A new note: the standup moves to ten.",
			after:     "# Ledger\n\nThe edited note about the quarterly ledger close, with the new owner.\n",
			oldText:   []string{"The old note about the quarterly ledger close."},
			newText:   []string{"The edited note about the quarterly ledger close, with the new owner."},
		},
		{
			// A record edited and one removed: the edit keeps no record
			// of the old version whole, so no record id takes the old
			// file's memory over.
			kind: config.KindJSONL, ext: ".jsonl",
			before: jsonlLines(t, rec{ID: "m1", Text: "the ledger export runs at noon"},
				rec{ID: "m2", Text: "the ledger export was moved to the reporting host"}),
			other:     jsonlLines(t, rec{ID: "o1", Text: "an unrelated note about lunch"}),
			fresh:     jsonlLines(t, rec{ID: "n1", Text: "a new note: the standup moves to ten"}),
			freshText: "a new note: the standup moves to ten",
			after:     jsonlLines(t, rec{ID: "m1", Text: "the ledger export runs at midnight now, with a longer window"}),
			oldText:   []string{"the ledger export runs at noon", "the ledger export was moved to the reporting host"},
			newText:   []string{"the ledger export runs at midnight now, with a longer window"},
		},
	}
}

// TestSync_fileEditedAndMovedIsIndexedOnce: a note edited and then moved
// or renamed (or moved, then edited) before the next sync is the same
// file: its memory is its new content, once, under its new path, and its
// old path is not kept as gone. The rename was told from the file's
// inode with its size and time, which the edit changed, so the old
// version stayed in memory, gone, beside the new one.
func TestSync_fileEditedAndMovedIsIndexedOnce(t *testing.T) {
	moves := []struct {
		name      string
		to        string // under the source
		editAfter bool   // edited after the move, not before
	}{
		{"edited then renamed", "ledger-renamed", false},
		{"edited then moved to another folder", filepath.Join("archive", "2026", "ledger"), false},
		{"renamed then edited", "ledger-renamed", true},
	}
	for _, k := range editMoveKinds(t) {
		for _, mv := range moves {
			for _, full := range []bool{false, true} {
				name := k.kind + "/" + mv.name
				if full {
					name += "/full"
				}
				t.Run(name, func(t *testing.T) {
					dir := t.TempDir()
					needBirthTime(t, dir)
					src := filepath.Join(dir, "notes")
					from := filepath.Join(src, "ledger"+k.ext)
					to := filepath.Join(src, mv.to+k.ext)
					writeFile(t, from, k.before)
					writeFile(t, filepath.Join(src, "other"+k.ext), k.other)
					cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: k.kind, Path: src})
					clk := newClock(epoch)
					mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))

					if !mv.editAfter {
						writeFile(t, from, k.after)
					}
					if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.Rename(from, to); err != nil {
						t.Fatal(err)
					}
					if mv.editAfter {
						writeFile(t, to, k.after)
					}
					r := syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true, Full: full}))
					if gone := r.Build.Sources[0].Gone; len(gone) != 0 {
						t.Errorf("gone %v after the file was edited and moved, want none", gone)
					}
					_, g := active(t, cfg.Home)
					var got []string
					for _, c := range g.All() {
						if strings.Contains(c.Text, "lunch") {
							continue
						}
						got = append(got, c.Text)
						if c.SourcePath != to {
							t.Errorf("%q is the memory of %s, want %s", c.Text, c.SourcePath, to)
						}
					}
					slices.Sort(got)
					if !slices.Equal(got, k.newText) {
						t.Errorf("memory %q, want only the edited version %q (not the old %q)", got, k.newText, k.oldText)
					}
				})
			}
		}
	}
}

// TestSync_statesWithoutBirthTimes: an index whose file states hold no
// birth time (written before they were recorded, or on a file system that
// gave none) still loads, and a sync of it reads nothing again and
// duplicates nothing. It records the birth times of the files it did not
// read, so that a note of it edited and then moved after is indexed once:
// without them a file read before the upgrade could only be told moved by
// its size and time.
func TestSync_statesWithoutBirthTimes(t *testing.T) {
	dir := t.TempDir()
	needBirthTime(t, dir)
	src := filepath.Join(dir, "notes")
	from, to := filepath.Join(src, "ledger.md"), filepath.Join(src, "archive", "ledger.md")
	writeFile(t, from, "# Ledger\n\nThe old note about the quarterly ledger close.\n")
	writeFile(t, filepath.Join(src, "lunch.md"), "# Lunch\n\nAn unrelated note about lunch.\n")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindMarkdown, Path: src})
	clk := newClock(epoch)
	restore := index.WithoutBirthTimes()
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))
	restore()
	for path, st := range activeStates(t, cfg.Home) {
		if st.Birth != 0 {
			t.Fatalf("%s has a birth time %d in an index made without", path, st.Birth)
		}
	}

	r := syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))
	if r.Build.FilesRead != 0 || r.Build.Added != 0 || r.Build.Retired != 0 {
		t.Errorf("the sync of states without birth times read %d files, added %d chunks, retired %d; want none", r.Build.FilesRead, r.Build.Added, r.Build.Retired)
	}
	for path, st := range activeStates(t, cfg.Home) {
		if st.Birth == 0 {
			t.Errorf("%s: no birth time recorded by the sync after", path)
		}
	}

	writeFile(t, from, "# Ledger\n\nThe edited note about the quarterly ledger close, with the new owner.\n")
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
	r = syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))
	if gone := r.Build.Sources[0].Gone; len(gone) != 0 {
		t.Errorf("gone %v after the file was edited and moved, want none", gone)
	}
	_, g := active(t, cfg.Home)
	var got []string
	for _, c := range g.All() {
		got = append(got, c.Text)
	}
	slices.Sort(got)
	if want := []string{"An unrelated note about lunch.", "The edited note about the quarterly ledger close, with the new owner."}; !slices.Equal(got, want) {
		t.Errorf("memory %q, want %q", got, want)
	}
}

// TestSync_copiedThenDeleted: a file copied and the original deleted (a
// move across file systems, cp then rm) is a new file, with a new inode:
// it is read whole under its new path. Its memory is held once when the
// delete is seen, whether a sync saw the copy beside the original first
// or not.
func TestSync_copiedThenDeleted(t *testing.T) {
	for _, k := range editMoveKinds(t) {
		for _, between := range []bool{false, true} {
			for _, full := range []bool{false, true} {
				name := k.kind
				if between {
					name += "/synced between"
				}
				if full {
					name += "/full"
				}
				t.Run(name, func(t *testing.T) {
					dir := t.TempDir()
					src := filepath.Join(dir, "notes")
					from, to := filepath.Join(src, "ledger"+k.ext), filepath.Join(src, "archive", "ledger"+k.ext)
					writeFile(t, from, k.before)
					writeFile(t, filepath.Join(src, "other"+k.ext), k.other)
					cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: k.kind, Path: src})
					clk := newClock(epoch)
					mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))

					writeFile(t, to, k.before)
					if between {
						syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))
					}
					if err := os.Remove(from); err != nil {
						t.Fatal(err)
					}
					r := syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true, Full: full}))
					_, g := active(t, cfg.Home)
					var got []string
					for _, c := range g.All() {
						if strings.Contains(c.Text, "lunch") {
							continue
						}
						got = append(got, c.Text)
					}
					slices.Sort(got)
					if !slices.Equal(got, k.oldText) {
						t.Errorf("memory %q, want the copy's %q once (gone: %v)", got, k.oldText, r.Build.Sources[0].Gone)
					}
				})
			}
		}
	}
}

// TestSync_deletedThenInodeReusedByANote: a note deleted and a new one
// made that takes its freed inode (ext4 hands it to the next file
// created) is a new file, not the deleted one edited and moved: the new
// note is read, and the deleted one's memory is kept as gone, in an
// incremental and a full sync alike.
func TestSync_deletedThenInodeReusedByANote(t *testing.T) {
	for _, k := range editMoveKinds(t) {
		for _, full := range []bool{false, true} {
			name := k.kind
			if full {
				name += "/full"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				needBirthTime(t, dir)
				src := filepath.Join(dir, "notes")
				from, to := filepath.Join(src, "ledger"+k.ext), filepath.Join(src, "archive", "ledger"+k.ext)
				writeFile(t, from, k.before)
				writeFile(t, filepath.Join(src, "other"+k.ext), k.other)
				cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: k.kind, Path: src})
				clk := newClock(epoch)
				mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true}))

				ino := index.InodeForTest(from)
				if err := os.Remove(from); err != nil {
					t.Fatal(err)
				}
				// The next file made in the folder takes the freed inode on
				// ext4; a few tries find it where another was handed out.
				reused := false
				var tries []string
				for i := 0; i < 16 && !reused; i++ {
					tmp := filepath.Join(src, fmt.Sprintf("new-%d.tmp", i))
					writeFile(t, tmp, k.fresh)
					if reused = index.InodeForTest(tmp) == ino; reused {
						if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
							t.Fatal(err)
						}
						if err := os.Rename(tmp, to); err != nil {
							t.Fatal(err)
						}
					} else {
						tries = append(tries, tmp)
					}
				}
				for _, tmp := range tries {
					if err := os.Remove(tmp); err != nil {
						t.Fatal(err)
					}
				}
				if !reused {
					t.Skipf("the file system handed no new file the freed inode %d", ino)
				}
				r := syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true, Full: full}))
				if gone := r.Build.Sources[0].Gone; !slices.Equal(gone, []string{from}) {
					t.Errorf("gone %v, want the deleted note [%s]", gone, from)
				}
				_, g := active(t, cfg.Home)
				var got []string
				for _, c := range g.All() {
					if !strings.Contains(c.Text, "lunch") {
						got = append(got, c.Text)
					}
				}
				slices.Sort(got)
				want := slices.Sorted(slices.Values(append(slices.Clone(k.oldText), k.freshText)))
				if !slices.Equal(got, want) {
					t.Errorf("memory %q, want the deleted note's kept and the new one's: %q", got, want)
				}
			})
		}
	}
}
