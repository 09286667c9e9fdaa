package watch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/paths"
)

// TestRealNotifications runs the watcher on real fsnotify over real
// folders (real time, short debounce): an append, a folder tree created
// after start, and a file in it each lead to a sync without any rescan.
func TestRealNotifications(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "src")
	must(t, os.MkdirAll(src, 0o755))
	a := filepath.Join(src, "a.jsonl")
	must(t, os.WriteFile(a, []byte("{}\n"), 0o644))
	s := &fakeSyncer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Home: paths.Home{Root: filepath.Join(root, "home")},
			Sources: []config.Source{{Name: "s", Kind: config.KindJSONL, Path: src}},
			Syncer:  s, Lister: jsonlLister,
			Quiet: 20 * time.Millisecond, MaxWait: 100 * time.Millisecond, Rescan: time.Hour})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	waitSyncs := func(n int, what string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for len(s.times()) < n {
			if time.Now().After(deadline) {
				t.Fatalf("no sync after %s (%d syncs)", what, len(s.times()))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	time.Sleep(200 * time.Millisecond) // the watches are in place
	f, err := os.OpenFile(a, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, _ = f.WriteString("{\"id\":\"2\"}\n")
	must(t, f.Close())
	waitSyncs(1, "an append")

	day := filepath.Join(src, "2026", "12", "01")
	must(t, os.MkdirAll(day, 0o755))
	must(t, os.WriteFile(filepath.Join(day, "rollout.jsonl"), []byte("{}\n"), 0o644))
	waitSyncs(2, "a new nested folder with a file")

	// The new folder is watched now: a second file in it is seen too.
	time.Sleep(200 * time.Millisecond)
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
