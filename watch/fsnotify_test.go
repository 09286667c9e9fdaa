package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/paths"
)

// TestRealNotifications runs the watcher on real fsnotify over real
// folders (real time, short debounce): an append, a folder tree created
// after start, and a file in it each lead to a sync without any rescan.
func TestRealNotifications(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	must(t, os.MkdirAll(src, 0o755))
	a := filepath.Join(src, "a.jsonl")
	must(t, os.WriteFile(a, []byte("{}\n"), 0o644))
	// runReal returns once the watcher has saved its first state, which it
	// does after placing its watches.
	s, home := runReal(t, src, nil)
	waitSyncs := func(n int, what string) {
		t.Helper()
		waitFor(t, 20*time.Second, fmt.Sprintf("sync %d, after %s", n, what), func() bool { return len(s.times()) >= n })
	}
	f, err := os.OpenFile(a, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, _ = f.WriteString("{\"id\":\"2\"}\n")
	must(t, f.Close())
	waitSyncs(1, "an append")

	day := filepath.Join(src, "2026", "12", "01")
	must(t, os.MkdirAll(day, 0o755))
	must(t, os.WriteFile(filepath.Join(day, "rollout.jsonl"), []byte("{}\n"), 0o644))
	waitSyncs(2, "a new nested folder with a file")

	// The new folders are watched now (the state says so): a second file
	// in the deepest is seen too.
	waitFor(t, 10*time.Second, "the new folders to be watched", func() bool {
		st, err := freshness.Read(home)
		return err == nil && st.Watched.Dirs == 4
	})
	must(t, os.WriteFile(filepath.Join(day, "rollout-2.jsonl"), []byte("{}\n"), 0o644))
	waitSyncs(3, "a file in the folder created after start")
}

// TestRealWatchBudget caps the watches at one: the source root is
// watched, its subfolder is left to the rescan, the state says so, and a
// file written there is still found.
func TestRealWatchBudget(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	sub := filepath.Join(src, "project")
	must(t, os.MkdirAll(sub, 0o755))
	home := paths.Home{Root: filepath.Join(root, "home")}
	s := &fakeSyncer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Home: home, Sources: []config.Source{{Name: "s", Kind: config.KindJSONL, Path: src}},
			Syncer: s, Lister: jsonlLister, WatchBudget: 1,
			Quiet: 20 * time.Millisecond, MaxWait: 100 * time.Millisecond, Rescan: time.Hour, LimitedRescan: 300 * time.Millisecond})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := freshness.Read(home)
		if err == nil && st.Watched.Dirs == 1 && st.Watched.PolledDirs == 1 && len(st.Limits) == 1 && st.Limits[0].Name == budgetLimit {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("state does not show the budget: %+v %v", st, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	must(t, os.WriteFile(filepath.Join(sub, "late.jsonl"), []byte("{}\n"), 0o644))
	for len(s.times()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("a file in a folder beyond the watch budget was never found")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// runReal runs the watcher with real fsnotify over src (one jsonl source)
// with a short debounce and no rescan to speak of, until the test ends.
func runReal(t *testing.T, src string, tune func(*Options)) (*fakeSyncer, paths.Home) {
	t.Helper()
	home := paths.Home{Root: filepath.Join(t.TempDir(), "home")}
	s := &fakeSyncer{}
	opts := Options{Home: home, Sources: []config.Source{{Name: "s", Kind: config.KindJSONL, Path: src}},
		Syncer: s, Lister: jsonlLister,
		Quiet: 20 * time.Millisecond, MaxWait: 100 * time.Millisecond, Rescan: time.Hour}
	if tune != nil {
		tune(&opts)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	waitFor(t, 10*time.Second, "the watcher to start", func() bool { _, err := freshness.Read(home); return err == nil })
	return s, home
}

// waitFor polls cond until it holds, failing after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestRealDeepTreesCreatedQuickly: folders created as fast as mkdir -p
// makes them (a Codex day folder) all get a watch, however the creation
// of each subfolder falls against the watcher adding its parent, and a
// line appended to a file in any leaf is seen.
func TestRealDeepTreesCreatedQuickly(t *testing.T) {
	src := filepath.Join(t.TempDir(), "sessions")
	must(t, os.MkdirAll(src, 0o755))
	s, home := runReal(t, src, nil)
	const trees = 100
	var leaves []string
	for i := range trees {
		// Each level a little later than the last, by 0 to 400 µs: the
		// watcher lists and watches the level above meanwhile.
		gap := time.Duration(i%40) * 10 * time.Microsecond
		leaf := filepath.Join(src, fmt.Sprintf("y%02d", i))
		for _, part := range []string{"", "01", "02", "03"} {
			leaf = filepath.Join(leaf, part)
			must(t, os.Mkdir(leaf, 0o755))
			for start := time.Now(); time.Since(start) < gap; {
			}
		}
		must(t, os.WriteFile(filepath.Join(leaf, "rollout.jsonl"), []byte("{}\n"), 0o644))
		leaves = append(leaves, leaf)
		time.Sleep(20 * time.Millisecond)
	}
	// The source root and four folders per tree.
	waitFor(t, 10*time.Second, "every folder to be watched", func() bool {
		st, err := freshness.Read(home)
		return err == nil && st.Watched.Dirs == 1+4*trees
	})
	for i, leaf := range leaves {
		n := len(s.times())
		f, err := os.OpenFile(filepath.Join(leaf, "rollout.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
		must(t, err)
		_, err = f.WriteString("{\"id\":\"2\"}\n")
		must(t, err)
		must(t, f.Close())
		waitFor(t, 20*time.Second, fmt.Sprintf("a sync after an append in leaf %d", i), func() bool { return len(s.times()) > n })
	}
}

// TestRealSourceFolderRecreated: a source folder moved away and made
// again, and the folder of a one-file source removed and made again, are
// watched again within moments (the rescan is an hour away): the new
// file in each leads to a sync, and so does a later append to it.
func TestRealSourceFolderRecreated(t *testing.T) {
	root := t.TempDir()
	notes, exports := filepath.Join(root, "notes"), filepath.Join(root, "exports")
	export := filepath.Join(exports, "memory.jsonl")
	must(t, os.MkdirAll(notes, 0o755))
	must(t, os.MkdirAll(exports, 0o755))
	must(t, os.WriteFile(filepath.Join(notes, "seed.jsonl"), []byte("{}\n"), 0o644))
	must(t, os.WriteFile(export, []byte("{}\n"), 0o644))
	s, home := runReal(t, notes, func(o *Options) {
		o.Sources = append(o.Sources, config.Source{Name: "export", Kind: config.KindJSONL, Path: export})
	})
	step := func(what string, do func()) {
		t.Helper()
		n := len(s.times())
		do()
		waitFor(t, 20*time.Second, "a sync after "+what, func() bool { return len(s.times()) > n })
		time.Sleep(100 * time.Millisecond) // quiet again
	}
	appendTo := func(p string) {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		must(t, err)
		_, err = f.WriteString("{\"id\":\"2\"}\n")
		must(t, err)
		must(t, f.Close())
	}

	step("the notes folder moved away", func() { must(t, os.Rename(notes, notes+".old")) })
	step("a note in the notes folder made again", func() {
		must(t, os.Mkdir(notes, 0o755))
		must(t, os.WriteFile(filepath.Join(notes, "r.jsonl"), []byte("{}\n"), 0o644))
	})
	step("an append to that note", func() { appendTo(filepath.Join(notes, "r.jsonl")) })

	step("the export's folder removed", func() { must(t, os.RemoveAll(exports)) })
	step("the export made again", func() {
		must(t, os.Mkdir(exports, 0o755))
		time.Sleep(50 * time.Millisecond) // the folder first, the file a moment later
		must(t, os.WriteFile(export, []byte("{}\n"), 0o644))
	})
	step("an append to the export", func() { appendTo(export) })

	// The folders above, watched while the sources were missing, are not
	// any more: the two source folders are.
	if st, err := freshness.Read(home); err != nil || st.Watched.Dirs != 2 {
		t.Fatalf("watched at the end: %+v, %v; want the two source folders", st, err)
	}
}

// TestRealPermissionChange: a note that could not be read and is made
// readable (chmod only: size, time and inode stay) leads to a sync
// through the real notifications. As root the file was readable all
// along; the event and the stat are what this checks.
func TestRealPermissionChange(t *testing.T) {
	src := filepath.Join(t.TempDir(), "notes")
	must(t, os.MkdirAll(src, 0o755))
	locked := filepath.Join(src, "locked.jsonl")
	must(t, os.WriteFile(locked, []byte("{}\n"), 0o644))
	must(t, os.Chmod(locked, 0))
	if os.Geteuid() != 0 {
		if _, err := os.ReadFile(locked); err == nil {
			t.Fatal("a mode 000 file is readable")
		}
	}
	s, _ := runReal(t, src, nil)
	time.Sleep(100 * time.Millisecond)
	must(t, os.Chmod(locked, 0o644))
	waitFor(t, 20*time.Second, "a sync after the note was made readable", func() bool { return len(s.times()) > 0 })
}

// TestRealMissingSourcesCreatedQuickly: source folders that do not exist
// yet, made level by level as fast as mkdir -p makes them (Codex's first
// run makes ~/.codex/sessions), are each watched as soon as they exist,
// however the creation of each level falls against the watcher moving
// its anchor down: a file written in each, and a line appended to it,
// lead to a sync without the rescan (an hour away).
func TestRealMissingSourcesCreatedQuickly(t *testing.T) {
	root := t.TempDir()
	const sources = 60
	var srcs []config.Source
	for i := range sources {
		srcs = append(srcs, config.Source{Name: fmt.Sprintf("s%02d", i), Kind: config.KindJSONL,
			Path: filepath.Join(root, fmt.Sprintf("y%02d", i), "a", "b", "sessions")})
	}
	s, home := runReal(t, filepath.Join(root, "unused"), func(o *Options) { o.Sources = srcs })
	for i, src := range srcs {
		gap := time.Duration(i%30) * 10 * time.Microsecond
		rel, _ := filepath.Rel(root, src.Path)
		dir := root
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			dir = filepath.Join(dir, part)
			must(t, os.Mkdir(dir, 0o755))
			for start := time.Now(); time.Since(start) < gap; {
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	waitFor(t, 10*time.Second, "every source folder to be watched", func() bool {
		st, err := freshness.Read(home)
		return err == nil && st.Watched.Dirs == sources
	})
	for i, src := range srcs {
		n := len(s.times())
		f, err := os.OpenFile(filepath.Join(src.Path, "rollout.jsonl"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		must(t, err)
		_, err = f.WriteString("{\"id\":\"2\"}\n")
		must(t, err)
		must(t, f.Close())
		waitFor(t, 20*time.Second, fmt.Sprintf("a sync after a file was written in source %d", i), func() bool { return len(s.times()) > n })
	}
}

// lossyNotifier is real fsnotify whose events are lost, as in a full
// inotify queue, from when lose is called until one for the marker path
// arrives; then it reports the overflow, as the kernel does.
type lossyNotifier struct {
	notifier
	events chan fsnotify.Event
	errs   chan error
	done   chan struct{}
	mu     sync.Mutex
	marker string
}

func newLossyNotifier() (notifier, *lossyNotifier, error) {
	n, err := newFSNotifier()
	if err != nil {
		return nil, nil, err
	}
	l := &lossyNotifier{notifier: n, events: make(chan fsnotify.Event), errs: make(chan error), done: make(chan struct{})}
	go func() {
		for {
			select {
			case ev, ok := <-n.Events():
				if !ok {
					return
				}
				l.mu.Lock()
				lost := l.marker != ""
				last := lost && filepath.Clean(ev.Name) == l.marker
				if last {
					l.marker = ""
				}
				l.mu.Unlock()
				switch {
				case last:
					select {
					case l.errs <- fsnotify.ErrEventOverflow:
					case <-l.done:
						return
					}
				case !lost:
					select {
					case l.events <- ev:
					case <-l.done:
						return
					}
				}
			case err, ok := <-n.Errors():
				if !ok {
					return
				}
				select {
				case l.errs <- err:
				case <-l.done:
					return
				}
			}
		}
	}()
	return l, l, nil
}

// lose drops every event until one for marker, then reports an overflow.
func (l *lossyNotifier) lose(marker string) {
	l.mu.Lock()
	l.marker = marker
	l.mu.Unlock()
}

func (l *lossyNotifier) Events() <-chan fsnotify.Event { return l.events }
func (l *lossyNotifier) Errors() <-chan error          { return l.errs }
func (l *lossyNotifier) Close() error {
	close(l.done)
	return l.notifier.Close()
}

// TestRealFolderReplacedDuringAnOverflow: a folder deleted and made again
// while the events were lost (a restore from a backup overflows the
// inotify queue) is found by the rescan the overflow triggers, and is
// watched again: a file written in it later leads to a sync at once,
// not at the next rescan (an hour away here).
func TestRealFolderReplacedDuringAnOverflow(t *testing.T) {
	src := filepath.Join(t.TempDir(), "notes")
	proj := filepath.Join(src, "proj")
	must(t, os.MkdirAll(proj, 0o755))
	must(t, os.WriteFile(filepath.Join(proj, "a.jsonl"), []byte("{}\n"), 0o644))
	var lossy *lossyNotifier
	s, _ := runReal(t, src, func(o *Options) {
		o.newNotifier = func() (notifier, error) {
			n, l, err := newLossyNotifier()
			lossy = l
			return n, err
		}
	})
	marker := filepath.Join(src, "marker")
	lossy.lose(marker)
	must(t, os.RemoveAll(proj))
	must(t, os.Mkdir(proj, 0o755))
	must(t, os.WriteFile(filepath.Join(proj, "b.jsonl"), []byte("{}\n"), 0o644))
	must(t, os.WriteFile(marker, nil, 0o644))
	waitFor(t, 20*time.Second, "a sync after the overflow", func() bool { return len(s.times()) == 1 })
	time.Sleep(100 * time.Millisecond) // quiet again

	must(t, os.WriteFile(filepath.Join(proj, "c.jsonl"), []byte("{}\n"), 0o644))
	waitFor(t, 20*time.Second, "a sync after a file was written in the folder made again", func() bool { return len(s.times()) == 2 })
}

// TestRealFolderRenamedOver: a folder renamed over an empty watched one
// (rename(2) replaces an empty folder; only a Create says so) is watched
// in its place: a file written in it later leads to a sync.
func TestRealFolderRenamedOver(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "notes")
	proj := filepath.Join(src, "proj")
	must(t, os.MkdirAll(proj, 0o755))
	s, _ := runReal(t, src, nil)
	incoming := filepath.Join(root, "incoming")
	must(t, os.Mkdir(incoming, 0o755))
	must(t, os.WriteFile(filepath.Join(incoming, "a.jsonl"), []byte("{}\n"), 0o644))
	must(t, syscall.Rename(incoming, proj)) // os.Rename refuses an existing folder
	waitFor(t, 20*time.Second, "a sync after the rename", func() bool { return len(s.times()) == 1 })
	time.Sleep(100 * time.Millisecond) // quiet again

	must(t, os.WriteFile(filepath.Join(proj, "c.jsonl"), []byte("{}\n"), 0o644))
	waitFor(t, 20*time.Second, "a sync after a file was written in the folder renamed over", func() bool { return len(s.times()) == 2 })
}

// TestRealLinkedSourceFolder: a source whose path is a link to a folder
// (notes linked from a synced drive) is watched as the folder is, read
// through ingest's listing: an append syncs, and so does a file in a
// folder made in it after start, which is watched too.
func TestRealLinkedSourceFolder(t *testing.T) {
	root := t.TempDir()
	vault := filepath.Join(root, "vault")
	must(t, os.MkdirAll(vault, 0o755))
	a := filepath.Join(vault, "a.jsonl")
	must(t, os.WriteFile(a, []byte("{}\n"), 0o644))
	link := filepath.Join(root, "notes")
	must(t, os.Symlink(vault, link))
	s, home := runReal(t, link, func(o *Options) {
		o.Lister = SourceFiles
	})
	// The linked folder, and the folder holding the link (see linkParent).
	waitFor(t, 10*time.Second, "the linked folder to be watched", func() bool {
		st, err := freshness.Read(home)
		return err == nil && st.Watched.Dirs == 2
	})
	f, err := os.OpenFile(a, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, _ = f.WriteString("{\"id\":\"2\"}\n")
	must(t, f.Close())
	waitFor(t, 20*time.Second, "a sync after an append", func() bool { return len(s.times()) >= 1 })

	day := filepath.Join(vault, "2026")
	must(t, os.MkdirAll(day, 0o755))
	must(t, os.WriteFile(filepath.Join(day, "b.jsonl"), []byte("{}\n"), 0o644))
	waitFor(t, 20*time.Second, "a sync after a file in a new folder", func() bool { return len(s.times()) >= 2 })
	waitFor(t, 10*time.Second, "the new folder to be watched", func() bool {
		st, err := freshness.Read(home)
		return err == nil && st.Watched.Dirs == 3
	})
}

// TestRealLinkedSourceRetargeted: a source that is a link to a folder,
// pointed at another folder (ln -sfn, or a new link renamed over it, as
// tools that publish a folder by a link swap do), is watched where it
// points now: the change of target syncs, and so does a file written in
// the new folder. Nothing watched the folder holding the link, so neither
// raised an event, and the watches stayed on the old folder: the source
// was stale until the next rescan.
func TestRealLinkedSourceRetargeted(t *testing.T) {
	for _, how := range []string{"rename", "replace"} {
		t.Run(how, func(t *testing.T) {
			root := t.TempDir()
			vault, vault2 := filepath.Join(root, "vault"), filepath.Join(root, "vault2")
			must(t, os.MkdirAll(vault, 0o755))
			must(t, os.MkdirAll(vault2, 0o755))
			must(t, os.WriteFile(filepath.Join(vault, "a.jsonl"), []byte("{}\n"), 0o644))
			must(t, os.WriteFile(filepath.Join(vault2, "a.jsonl"), []byte("{}\n{}\n"), 0o644))
			link := filepath.Join(root, "notes")
			must(t, os.Symlink(vault, link))
			s, home := runReal(t, link, func(o *Options) {
				o.Lister = SourceFiles
			})
			waitFor(t, 10*time.Second, "the linked folder to be watched", func() bool {
				st, err := freshness.Read(home)
				return err == nil && st.Watched.Files == 1
			})
			if how == "rename" {
				tmp := filepath.Join(root, ".notes.tmp")
				must(t, os.Symlink(vault2, tmp))
				must(t, os.Rename(tmp, link))
			} else {
				must(t, os.Remove(link))
				must(t, os.Symlink(vault2, link))
			}
			waitFor(t, 20*time.Second, "a sync after the link was pointed elsewhere", func() bool { return len(s.times()) >= 1 })
			waitFor(t, 10*time.Second, "the sync to finish", func() bool {
				st, err := freshness.Read(home)
				return err == nil && st.Running == nil && st.PendingSince.IsZero()
			})
			must(t, os.WriteFile(filepath.Join(vault2, "b.jsonl"), []byte("{}\n"), 0o644))
			waitFor(t, 20*time.Second, "a sync after a file written in the new folder", func() bool { return len(s.times()) >= 2 })
		})
	}
}

// TestRealLinkedSourceFile: a source that is one file, a link to a file
// in another folder (a transcript or an export linked from a synced
// drive), syncs when the file it points to is written. Only the folder
// holding the link was watched, where writing the file raises no event:
// it was stale until the next rescan.
func TestRealLinkedSourceFile(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "drive", ".exports", "memory.jsonl")
	must(t, os.MkdirAll(filepath.Dir(target), 0o755))
	must(t, os.WriteFile(target, []byte("{}\n"), 0o644))
	link := filepath.Join(root, "notes", "memory.jsonl")
	must(t, os.MkdirAll(filepath.Dir(link), 0o755))
	must(t, os.Symlink(target, link))
	s, home := runReal(t, link, func(o *Options) {
		o.Lister = func(src config.Source) ([]string, error) { return []string{src.Path}, nil }
	})
	waitFor(t, 10*time.Second, "the file to be known", func() bool {
		st, err := freshness.Read(home)
		return err == nil && st.Watched.Files == 1
	})
	f, err := os.OpenFile(target, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, _ = f.WriteString("{\"id\":\"2\"}\n")
	must(t, f.Close())
	waitFor(t, 20*time.Second, "a sync after the linked file was written", func() bool { return len(s.times()) >= 1 })

	// Pointed at a file in yet another folder: that one is watched now.
	other := filepath.Join(root, "other", "memory.jsonl")
	must(t, os.MkdirAll(filepath.Dir(other), 0o755))
	must(t, os.WriteFile(other, []byte("{}\n{}\n"), 0o644))
	tmp := filepath.Join(filepath.Dir(link), ".memory.jsonl.tmp")
	must(t, os.Symlink(other, tmp))
	must(t, os.Rename(tmp, link))
	waitFor(t, 20*time.Second, "a sync after the link was pointed elsewhere", func() bool { return len(s.times()) >= 2 })
	waitFor(t, 10*time.Second, "the sync to finish", func() bool {
		st, err := freshness.Read(home)
		return err == nil && st.Running == nil && st.PendingSince.IsZero()
	})
	f, err = os.OpenFile(other, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, _ = f.WriteString("{\"id\":\"3\"}\n")
	must(t, f.Close())
	waitFor(t, 20*time.Second, "a sync after the file it points to now was written", func() bool { return len(s.times()) >= 3 })
}

// TestRealLinkedFileInSourceFolder: a file of a folder source that is a
// link to a file elsewhere syncs when that file is written, and stops
// being followed there once the link goes. Only the source's folders were
// watched: it was stale until the next rescan.
func TestRealLinkedFileInSourceFolder(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "drive", "x.jsonl")
	must(t, os.MkdirAll(filepath.Dir(target), 0o755))
	must(t, os.WriteFile(target, []byte("{}\n"), 0o644))
	src := filepath.Join(root, "src")
	must(t, os.MkdirAll(src, 0o755))
	link := filepath.Join(src, "x.jsonl")
	must(t, os.Symlink(target, link))
	s, home := runReal(t, src, func(o *Options) {
		o.Lister = SourceFiles
	})
	waitFor(t, 10*time.Second, "the source and the linked file's folder to be watched", func() bool {
		st, err := freshness.Read(home)
		return err == nil && st.Watched.Files == 1 && st.Watched.Dirs == 2
	})
	f, err := os.OpenFile(target, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, _ = f.WriteString("{\"id\":\"2\"}\n")
	must(t, f.Close())
	waitFor(t, 20*time.Second, "a sync after the linked file was written", func() bool { return len(s.times()) >= 1 })

	must(t, os.Remove(link))
	waitFor(t, 20*time.Second, "a sync after the link went", func() bool { return len(s.times()) >= 2 })
	waitFor(t, 10*time.Second, "the linked file's folder to be left", func() bool {
		st, err := freshness.Read(home)
		return err == nil && st.Watched.Files == 0 && st.Watched.Dirs == 1
	})
}

// kqueueAdds gives a notifier the Add of fsnotify's kqueue backend (a
// Mac): adding a path it watches already keeps the descriptor it opened,
// on the folder the path named then, where inotify's Add watches the
// folder the path names now.
type kqueueAdds struct {
	notifier
	mu    sync.Mutex
	added map[string]bool
}

func (k *kqueueAdds) Add(p string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.added[p] {
		return nil
	}
	if err := k.notifier.Add(p); err != nil {
		return err
	}
	k.added[p] = true
	return nil
}

func (k *kqueueAdds) Remove(p string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.added, p)
	return k.notifier.Remove(p)
}

// TestRealLinkRetargetedUnseenOnAMac: a source that is a link to a
// folder, pointed at another folder with no event to say so (kqueue
// reports nothing when a link in a watched folder is replaced: fsnotify
// watches what the link pointed to, and the name was seen before), is
// watched where it points now once the watcher looks again (here the
// rescan after an overflow; on a Mac the periodic one): a file written in
// the new folder leads to a sync at once, not at the next rescan (an hour
// away here). Adding the link's path again, which inotify follows, kept
// kqueue on the old folder for as long as the watcher ran.
func TestRealLinkRetargetedUnseenOnAMac(t *testing.T) {
	root := t.TempDir()
	vault, vault2 := filepath.Join(root, "vault"), filepath.Join(root, "vault2")
	must(t, os.MkdirAll(vault, 0o755))
	must(t, os.MkdirAll(vault2, 0o755))
	must(t, os.WriteFile(filepath.Join(vault, "a.jsonl"), []byte("{}\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(vault2, "b.jsonl"), []byte("{}\n"), 0o644))
	link := filepath.Join(root, "notes")
	must(t, os.Symlink(vault, link))
	var lossy *lossyNotifier
	s, home := runReal(t, link, func(o *Options) {
		o.Lister = SourceFiles
		o.newNotifier = func() (notifier, error) {
			n, l, err := newLossyNotifier()
			lossy = l
			return &kqueueAdds{notifier: n, added: map[string]bool{}}, err
		}
	})
	waitFor(t, 10*time.Second, "the linked folder to be watched", func() bool {
		st, err := freshness.Read(home)
		return err == nil && st.Watched.Files == 1
	})
	// The loss ends at a file in a folder still watched: the one holding
	// the link.
	marker := filepath.Join(root, "marker")
	lossy.lose(marker)
	tmp := filepath.Join(root, ".notes.tmp")
	must(t, os.Symlink(vault2, tmp))
	must(t, os.Rename(tmp, link))
	must(t, os.WriteFile(marker, nil, 0o644))
	waitFor(t, 20*time.Second, "a sync after the events were lost", func() bool { return len(s.times()) == 1 })
	time.Sleep(100 * time.Millisecond) // quiet again

	must(t, os.WriteFile(filepath.Join(vault2, "c.jsonl"), []byte("{}\n"), 0o644))
	waitFor(t, 20*time.Second, "a sync after a file was written in the folder the link points to now", func() bool { return len(s.times()) == 2 })
}

// TestRealLockKeptWhenStateRemoved: state/ deleted while a watcher runs
// (a cleanup of the home) takes its lock file with it, and to every other
// process the home then has no watcher. The watcher locks a new file at
// once, not at its next rescan (an hour here; five minutes by default),
// so that a second watcher started a moment later is refused rather than
// run beside it.
func TestRealLockKeptWhenStateRemoved(t *testing.T) {
	src := filepath.Join(t.TempDir(), "notes")
	must(t, os.MkdirAll(src, 0o755))
	s, home := runReal(t, src, nil)
	for round := range 20 { // the new state/ is watched too
		// The watcher waits for the removal to end (state/ quiet for
		// relockQuiet) before it makes state/ again, so that rm -rf does
		// not fail with "Directory not empty". A loaded machine can stall
		// the removal between its last unlink and its rmdir for longer
		// than that (a clean-clone CI run did, at round 13): rm -rf then
		// fails once, as it may beside any process writing there, and a
		// second one ends it.
		err := os.RemoveAll(home.StateDir())
		for retry := 0; errors.Is(err, syscall.ENOTEMPTY) && retry < 3; retry++ {
			t.Logf("round %d: %v; removing again", round, err)
			err = os.RemoveAll(home.StateDir())
		}
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		waitFor(t, 5*time.Second, fmt.Sprintf("the watcher to lock its home again (round %d)", round), func() bool { return freshness.Running(home) })
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Run(ctx, Options{Home: home, Syncer: s, Lister: jsonlLister}); !errors.Is(err, freshness.ErrRunning) {
		t.Errorf("second watcher after state/ was removed: %v, want ErrRunning", err)
	}
	must(t, os.RemoveAll(home.Root))
	waitFor(t, 5*time.Second, "the watcher to lock its home again after the home was removed", func() bool { return freshness.Running(home) })
}
