package manifest_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/manifest"
)

// waitNotified fails t unless w fires within d. The poll is an hour in
// these tests, so only a filesystem event can make it fire.
func waitNotified(t *testing.T, w *manifest.Watcher, d time.Duration, what string) {
	t.Helper()
	select {
	case <-w.C:
	case <-time.After(d):
		t.Fatalf("no notification within %s after %s (watch error: %v)", d, what, w.Err())
	}
}

func drain(w *manifest.Watcher) {
	for {
		select {
		case <-w.C:
		case <-time.After(300 * time.Millisecond):
			return
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestWatch_directoryThatDoesNotExistYet(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "nova", "index") // two levels missing
	w := manifest.Watch(dir, "manifest.json", manifest.WatchOptions{Debounce: 20 * time.Millisecond, Poll: time.Hour})
	defer w.Close()
	time.Sleep(50 * time.Millisecond) // let the watch arm

	// What the first sync does: create the directories, then the manifest.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "manifest.json"), "{}")
	waitNotified(t, w, 2*time.Second, "the index directory and manifest appeared")

	// Once moved down, it watches the manifest itself.
	drain(w)
	writeFile(t, filepath.Join(dir, "manifest.json"), "{\"a\":1}")
	waitNotified(t, w, 2*time.Second, "the manifest was rewritten")

	// Other files in the directory do not count.
	drain(w)
	writeFile(t, filepath.Join(dir, "history.jsonl"), "x")
	select {
	case <-w.C:
		t.Fatal("a change to another file notified")
	case <-time.After(300 * time.Millisecond):
	}
}

func TestWatch_directoryRemovedAndRecreated(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "index")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	w := manifest.Watch(dir, "manifest.json", manifest.WatchOptions{Debounce: 20 * time.Millisecond, Poll: time.Hour})
	defer w.Close()
	time.Sleep(50 * time.Millisecond)

	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	waitNotified(t, w, 2*time.Second, "the index directory was removed")
	drain(w)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "manifest.json"), "{}")
	waitNotified(t, w, 2*time.Second, "the index directory came back with a manifest")
}

// TestWatch_directoryReplacedByRename: index/ replaced by another
// directory renamed over it (a restore from a backup, a sync tool's
// atomic directory swap) is watched from then on: the watch followed the
// old directory, and the new one was never watched, so each later
// promotion waited for the poll.
func TestWatch_directoryReplacedByRename(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "index")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	w := manifest.Watch(dir, "manifest.json", manifest.WatchOptions{Debounce: 20 * time.Millisecond, Poll: time.Hour})
	defer w.Close()

	restored := filepath.Join(home, "index.restored")
	if err := os.Mkdir(restored, 0o700); err != nil {
		t.Fatal(err)
	}
	// Over the empty index/, in one step (os.Rename refuses to replace a
	// directory; rename(2) does it).
	if err := syscall.Rename(restored, dir); err != nil {
		t.Fatal(err)
	}
	waitNotified(t, w, 2*time.Second, "index/ was replaced")
	drain(w)
	writeFile(t, filepath.Join(dir, "manifest.json"), "{}")
	waitNotified(t, w, 2*time.Second, "a manifest was written into the new index/")
}

// TestWatch_homeRemovedAndRecreated: the home itself removed and made
// again (wiped, or restored from a backup) while watched: the manifest a
// first sync then writes into it is seen at once, not at the next poll.
// The watch on the home went with the removed directory, and the
// watcher, believing it still held it, watched nothing in the new one.
func TestWatch_homeRemovedAndRecreated(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	dir := filepath.Join(home, "index")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	w := manifest.Watch(dir, "manifest.json", manifest.WatchOptions{Debounce: 20 * time.Millisecond, Poll: time.Hour})
	defer w.Close()

	if err := os.RemoveAll(home); err != nil {
		t.Fatal(err)
	}
	waitNotified(t, w, 2*time.Second, "the home was removed")
	drain(w)
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // let the watcher see the new home before index/ appears in it
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "manifest.json"), "{}")
	waitNotified(t, w, 2*time.Second, "a first sync wrote index/manifest.json into the new home")
}
