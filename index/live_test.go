package index_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/watch"
)

// These tests run a real watcher (fsnotify over real folders) in front of
// a real Indexer, as novactl index watch does, change the files as
// writers do, and wait for the index to hold what the files hold. They
// assert what memory ends up as, never how soon.

// watchLive runs a real watcher over cfg's sources, with a real Indexer
// behind it, until the test ends.
func watchLive(t *testing.T, cfg config.Config) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ix := index.New(cfg, index.Options{NoRemote: true, NoCompact: true})
	go func() {
		done <- watch.Run(ctx, watch.Options{Home: cfg.Home, Sources: cfg.Sources, Syncer: watch.IndexSyncer(ix),
			Quiet: 50 * time.Millisecond, MaxWait: 300 * time.Millisecond, Rescan: time.Hour,
			BusyRetry: 100 * time.Millisecond, MaxBackoff: time.Second, SyncAtStart: true})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("watch.Run: %v", err)
		}
	})
}

// memoryOf lists what the active generation holds, "path|record id|text",
// paths relative to root.
func memoryOf(cfg config.Config, root string) []string {
	_, g, err := index.OpenActive(context.Background(), cfg.Home, lexical.NewAnalyzer())
	if err != nil {
		return []string{"no active generation: " + err.Error()}
	}
	var out []string
	for _, c := range g.All() {
		rel, _ := filepath.Rel(root, c.SourcePath)
		out = append(out, filepath.ToSlash(rel)+"|"+c.SourceID+"|"+c.Text)
	}
	slices.Sort(out)
	return out
}

// settle waits for the watcher's syncs to bring the index to hold want
// (see memoryOf), and fails when they never do.
func settle(t *testing.T, cfg config.Config, root, what string, want ...string) {
	t.Helper()
	slices.Sort(want)
	var got []string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got = memoryOf(cfg, root); slices.Equal(got, want) {
			return
		}
	}
	t.Fatalf("%s: the index never came to hold what the files do:\n got %q\nwant %q", what, got, want)
}

// caughtUp waits until the watcher has synced everything the sources
// held at since, and nothing waits. since is taken before the watcher
// starts: its caught-up time is the start of its last sync, which can
// come before a time.Now() taken after it started, and then no later sync
// moves it.
func caughtUp(t *testing.T, cfg config.Config, since time.Time) *freshness.State {
	t.Helper()
	return waitWatcher(t, cfg, func(st *freshness.State) bool { return !st.CaughtUpAt.Before(since) })
}

// caughtUpWith waits until the watcher has seen a change made after
// changed (taken before it) and synced it, and nothing waits.
func caughtUpWith(t *testing.T, cfg config.Config, changed time.Time) *freshness.State {
	t.Helper()
	return waitWatcher(t, cfg, func(st *freshness.State) bool {
		return !st.SourcesChangedAt.Before(changed) && !st.CaughtUpAt.Before(st.SourcesChangedAt)
	})
}

// waitWatcher waits until the watcher runs no sync, has none pending, and
// its state satisfies done.
func waitWatcher(t *testing.T, cfg config.Config, done func(*freshness.State) bool) *freshness.State {
	t.Helper()
	var st *freshness.State
	var err error
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		st, err = freshness.Read(cfg.Home)
		if err == nil && st.Running == nil && st.PendingSince.IsZero() && done(st) {
			return st
		}
	}
	// The watcher's last state says where it stood (a sync running, one
	// pending, or caught up before the change).
	t.Fatalf("the watcher never caught up: state %+v, %v", st, err)
	return nil
}

// TestLive_memoryFollowsTheFiles: a transcript appended mid-line (the
// line is read once complete), rewritten in place with the same size and
// shorter, saved through a temporary file of its own kind renamed over
// it, moved to a subfolder, renamed in case only, its folder moved out
// and back under another name, and that folder deleted and made again:
// after each, the index comes to hold what the files hold, nothing twice.
func TestLive_memoryFollowsTheFiles(t *testing.T) {
	t.Parallel() // its own home; it mostly waits for the watcher
	root := t.TempDir()
	src := filepath.Join(root, "src")
	a := filepath.Join(src, "a.jsonl")
	writeFile(t, a, jsonlLines(t, rec{ID: "1", Text: "first memory about the ledger"}))
	cfg := testConfig(t, filepath.Join(root, "home"), config.Source{Name: "s", Kind: config.KindJSONL, Path: src})
	watchLive(t, cfg)
	settle(t, cfg, src, "start", "a.jsonl|1|first memory about the ledger")

	changed := time.Now()
	appendFile(t, a, `{"id":"2","text":"second mem`)
	caughtUpWith(t, cfg, changed)
	settle(t, cfg, src, "a line half written", "a.jsonl|1|first memory about the ledger")
	appendFile(t, a, `ory about the ledger"}`+"\n")
	settle(t, cfg, src, "the line completed", "a.jsonl|1|first memory about the ledger", "a.jsonl|2|second memory about the ledger")

	writeFile(t, a, jsonlLines(t, rec{ID: "1", Text: "FIRST memory about the ledger"}, rec{ID: "2", Text: "second memory about the ledger"}))
	settle(t, cfg, src, "rewritten, same size", "a.jsonl|1|FIRST memory about the ledger", "a.jsonl|2|second memory about the ledger")
	writeFile(t, a, jsonlLines(t, rec{ID: "2", Text: "second memory about the ledger"}))
	settle(t, cfg, src, "rewritten shorter", "a.jsonl|2|second memory about the ledger")

	tmp := filepath.Join(src, "tmp4711.jsonl")
	changed = time.Now()
	writeFile(t, tmp, jsonlLines(t, rec{ID: "2", Text: "second memory about the ledger"}, rec{ID: "3", Text: "third memory"}))
	caughtUpWith(t, cfg, changed) // the temporary file is indexed too
	must(t, os.Rename(tmp, a))
	settle(t, cfg, src, "saved through a temporary file", "a.jsonl|2|second memory about the ledger", "a.jsonl|3|third memory")

	must(t, os.MkdirAll(filepath.Join(src, "sub"), 0o755))
	must(t, os.Rename(a, filepath.Join(src, "sub", "b.jsonl")))
	settle(t, cfg, src, "moved to a subfolder", "sub/b.jsonl|2|second memory about the ledger", "sub/b.jsonl|3|third memory")
	must(t, os.Rename(filepath.Join(src, "sub", "b.jsonl"), filepath.Join(src, "sub", "B.jsonl")))
	settle(t, cfg, src, "renamed in case only", "sub/B.jsonl|2|second memory about the ledger", "sub/B.jsonl|3|third memory")

	out := filepath.Join(root, "outside")
	changed = time.Now()
	must(t, os.Rename(filepath.Join(src, "sub"), out))
	caughtUpWith(t, cfg, changed)
	must(t, os.Rename(out, filepath.Join(src, "back")))
	settle(t, cfg, src, "folder moved out and back", "back/B.jsonl|2|second memory about the ledger", "back/B.jsonl|3|third memory")

	must(t, os.RemoveAll(filepath.Join(src, "back")))
	writeFile(t, filepath.Join(src, "back", "B.jsonl"), jsonlLines(t, rec{ID: "4", Text: "fourth memory"}))
	settle(t, cfg, src, "folder deleted and made again", "back/B.jsonl|4|fourth memory")
}

// TestLive_notesMovedOutAndBackAreIndexedOnce: a folder of notes moved
// out of the source (the watcher syncs, and keeps their memory as gone)
// and later back into it under another name: the notes are indexed once,
// under their new names. The old names' memory stayed beside them.
func TestLive_notesMovedOutAndBackAreIndexedOnce(t *testing.T) {
	t.Parallel() // its own home; it mostly waits for the watcher
	root := t.TempDir()
	src := filepath.Join(root, "notes")
	writeFile(t, filepath.Join(src, "alpha", "ledger.md"), "# Ledger\n\nThe quarterly ledger closes on the fifth working day.\n")
	writeFile(t, filepath.Join(src, "alpha", "deploy.md"), "# Deploy\n\nThe staging deploy runs after the migration gate.\n")
	cfg := testConfig(t, filepath.Join(root, "home"), config.Source{Name: "notes", Kind: config.KindMarkdown, Path: src})
	watchLive(t, cfg)
	settle(t, cfg, src, "start", "alpha/deploy.md|alpha/deploy.md#deploy|The staging deploy runs after the migration gate.",
		"alpha/ledger.md|alpha/ledger.md#ledger|The quarterly ledger closes on the fifth working day.")

	away := filepath.Join(root, "desktop")
	changed := time.Now()
	must(t, os.Rename(filepath.Join(src, "alpha"), away))
	if st := caughtUpWith(t, cfg, changed); st.Gone.Count != 2 {
		t.Fatalf("%d files gone while the folder is away, want 2", st.Gone.Count)
	}
	must(t, os.MkdirAll(filepath.Join(src, "archive"), 0o755))
	must(t, os.Rename(away, filepath.Join(src, "archive", "alpha")))
	settle(t, cfg, src, "the folder back under another name",
		"archive/alpha/deploy.md|archive/alpha/deploy.md#deploy|The staging deploy runs after the migration gate.",
		"archive/alpha/ledger.md|archive/alpha/ledger.md#ledger|The quarterly ledger closes on the fifth working day.")
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
