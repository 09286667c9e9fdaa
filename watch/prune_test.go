package watch

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/paths"
)

// recordingNotifier is real fsnotify that remembers the folders it
// watches, so a test can compare the watched set with the listing's.
type recordingNotifier struct {
	notifier
	mu      sync.Mutex
	watched map[string]bool
}

func (r *recordingNotifier) Add(p string) error {
	err := r.notifier.Add(p)
	if err == nil {
		r.mu.Lock()
		r.watched[p] = true
		r.mu.Unlock()
	}
	return err
}

func (r *recordingNotifier) Remove(p string) error {
	r.mu.Lock()
	delete(r.watched, p)
	r.mu.Unlock()
	return r.notifier.Remove(p)
}

// set returns the watched folders relative to root, sorted.
func (r *recordingNotifier) set(root string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for p := range r.watched {
		if !paths.Within(p, root) {
			continue // the folder of the watcher lock (see watchLock)
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel))
	}
	sort.Strings(out)
	return out
}

// TestRealWatchesOnlyWhatTheListingEnters: over an OpenClaw state folder
// with a source exclude glob, the watcher watches exactly the folders
// ingest.List descends into: not a hidden folder, not one the source
// excludes (archive/**), not one the kind excludes (the browser profile,
// extensions, top-level memory/, node_modules at any depth). A file
// written in a skipped folder leads to no sync while an append to a
// session does; a folder made later below a skipped one is not watched,
// one made later below a watched one is, and so is its session.
func TestRealWatchesOnlyWhatTheListingEnters(t *testing.T) {
	src := filepath.Join(t.TempDir(), ".openclaw")
	session := filepath.Join(src, "agents", "main", "sessions", "s1.jsonl")
	for _, d := range []string{
		"agents/main/sessions", "workspace/memory", "workspace/proj/node_modules/pkg/lib",
		".git/objects/ab", "archive/2024/01", "browser/Default/Cache/Cache_Data", "browser/Default/Extensions",
		"extensions/ext1/dist", "memory", "cron/runs", "logs", "media/inbound",
	} {
		must(t, os.MkdirAll(filepath.Join(src, filepath.FromSlash(d)), 0o755))
	}
	must(t, os.WriteFile(session, []byte("{}\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(src, "workspace", "MEMORY.md"), []byte("# M\n"), 0o644))
	var rec *recordingNotifier
	s, home := runReal(t, src, func(o *Options) {
		o.Sources = []config.Source{{Name: "openclaw", Kind: config.KindOpenClaw, Path: src, Exclude: []string{"archive/**"}}}
		o.Lister = SourceFiles
		o.newNotifier = func() (notifier, error) {
			n, err := newFSNotifier()
			if err != nil {
				return nil, err
			}
			rec = &recordingNotifier{notifier: n, watched: map[string]bool{}}
			return rec, nil
		}
	})
	want := []string{".", "agents", "agents/main", "agents/main/sessions", "workspace", "workspace/memory", "workspace/proj"}
	if got := rec.set(src); !slices.Equal(got, want) {
		t.Fatalf("watched at start:\n %s\nwant\n %s", strings.Join(got, " "), strings.Join(want, " "))
	}
	if st, err := freshness.Read(home); err != nil || st.Watched.Dirs != len(want) {
		t.Fatalf("state: %+v, %v; want %d watched folders", st, err, len(want))
	}

	// Files in every skipped folder, matching the kind's globs where the
	// folder did not exclude them: no sync.
	for _, f := range []string{
		".git/objects/ab/x.jsonl", "archive/2024/01/s.jsonl", "browser/Default/Cache/Cache_Data/f_000001",
		"extensions/ext1/dist/index.js", "memory/main.sqlite", "workspace/proj/node_modules/pkg/lib/MEMORY.md",
	} {
		must(t, os.WriteFile(filepath.Join(src, filepath.FromSlash(f)), []byte("x\n"), 0o644))
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(s.times()); n != 0 {
		t.Fatalf("%d syncs for files written in folders the listing skips", n)
	}
	f, err := os.OpenFile(session, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString("{\"id\":\"2\"}\n")
	must(t, err)
	must(t, f.Close())
	waitFor(t, 5*time.Second, "a sync after an append to a session", func() bool { return len(s.times()) == 1 })

	// Folders made after start: below skipped ones, or skipped
	// themselves, and below watched ones.
	for _, d := range []string{
		"browser/Default/Local Storage/leveldb", "archive/2025/02", "logs/2026", ".trash/old",
		"workspace/proj/node_modules/other", "agents/ops/sessions", "workspace/proj/src",
	} {
		must(t, os.MkdirAll(filepath.Join(src, filepath.FromSlash(d)), 0o755))
	}
	must(t, os.WriteFile(filepath.Join(src, "agents", "ops", "sessions", "s2.jsonl"), []byte("{}\n"), 0o644))
	waitFor(t, 5*time.Second, "a sync after a session in a new agent folder", func() bool { return len(s.times()) == 2 })
	want = append(want, "agents/ops", "agents/ops/sessions", "workspace/proj/src")
	sort.Strings(want)
	waitFor(t, 5*time.Second, "the new folders to be watched", func() bool { return slices.Equal(rec.set(src), want) })
	time.Sleep(200 * time.Millisecond) // nothing more comes
	if got := rec.set(src); !slices.Equal(got, want) {
		t.Fatalf("watched after new folders:\n %s\nwant\n %s", strings.Join(got, " "), strings.Join(want, " "))
	}
	must(t, os.WriteFile(filepath.Join(src, "archive", "2025", "02", "s.jsonl"), []byte("{}\n"), 0o644))
	time.Sleep(300 * time.Millisecond)
	if n := len(s.times()); n != 2 {
		t.Fatalf("%d syncs, want 2: a file in a new folder below an excluded one was synced", n)
	}
}

// TestOverlappingSourcesKeepTheirEvents: a folder one source excludes
// and another reads is watched, and a file made there syncs: the first
// source's rule does not silence the second. A folder made later that
// no source enters is neither watched nor listed again.
func TestOverlappingSourcesKeepTheirEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var archive string
		h := start(t, func(o *Options, _ *fakeNotifier, _ *fakeSyncer) {
			archive = filepath.Join(o.Sources[0].Path, "archive")
			must(t, os.MkdirAll(filepath.Join(archive, "2024"), 0o755))
			o.Sources[0].Exclude = []string{"archive/**"}
			o.Sources = append(o.Sources, config.Source{Name: "archive", Kind: config.KindJSONL, Path: archive})
			o.Lister = SourceFiles
		})
		for _, d := range []string{h.src, archive, filepath.Join(archive, "2024")} {
			if !h.n.watched(d) {
				t.Fatalf("%s not watched", d)
			}
		}
		old := filepath.Join(archive, "2024", "old.jsonl")
		must(t, os.WriteFile(old, []byte("{}\n"), 0o644))
		h.n.events <- fsnotify.Event{Name: old, Op: fsnotify.Create}
		time.Sleep(5 * time.Second)
		if n := len(h.s.times()); n != 1 {
			t.Fatalf("%d syncs after a file in a folder the second source reads, want 1", n)
		}
		cache := filepath.Join(h.src, ".cache", "x")
		must(t, os.MkdirAll(cache, 0o755))
		h.n.events <- fsnotify.Event{Name: filepath.Dir(cache), Op: fsnotify.Create}
		time.Sleep(5 * time.Second)
		if h.n.watched(filepath.Dir(cache)) || h.n.watched(cache) {
			t.Fatal("a hidden folder made later is watched")
		}
		if n := len(h.s.times()); n != 1 {
			t.Fatalf("%d syncs, want 1", n)
		}
		h.stop()
	})
}
