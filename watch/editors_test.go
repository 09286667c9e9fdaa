package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/freshness"
)

// TestRealEditorSaves: each way real programs save a note, through real
// files and real notifications, leads to a sync: a temp file renamed over
// the note (vim with backupcopy=no keeps the old one as a backup first;
// VS Code and Obsidian's atomic saves rename a temp file), the note
// truncated and written again in place to the same size, and the note
// deleted and made again.
func TestRealEditorSaves(t *testing.T) {
	src := filepath.Join(t.TempDir(), "notes")
	must(t, os.MkdirAll(src, 0o755))
	note := filepath.Join(src, "a.jsonl")
	must(t, os.WriteFile(note, []byte("{\"id\":\"1\"}\n"), 0o644))
	s, _ := runReal(t, src, nil)
	step := func(what string, do func()) {
		t.Helper()
		n := len(s.times())
		do()
		waitFor(t, 10*time.Second, "a sync after "+what, func() bool { return len(s.times()) > n })
		time.Sleep(150 * time.Millisecond) // quiet again, and the sync spaced out
	}
	step("a hidden temp file renamed over the note", func() {
		tmp := filepath.Join(src, ".a.jsonl.tmp")
		must(t, os.WriteFile(tmp, []byte("{\"id\":\"2\"}\n"), 0o644))
		must(t, os.Rename(tmp, note))
	})
	step("vim's save: the note renamed to a backup, written anew", func() {
		must(t, os.Rename(note, note+"~"))
		must(t, os.WriteFile(note, []byte("{\"id\":\"3\"}\n"), 0o644))
		must(t, os.Remove(note+"~"))
	})
	step("the note truncated and written again, same size", func() {
		must(t, os.WriteFile(note, []byte("{\"id\":\"4\"}\n"), 0o644))
	})
	step("the note deleted and made again", func() {
		must(t, os.Remove(note))
		must(t, os.WriteFile(note, []byte("{\"id\":\"5\"}\n"), 0o644))
	})
}

// TestRealBurstIsOneSync: 500 files written within a second, with the
// default debounce, make one sync (not 500), and the watcher knows every
// one of them when it runs.
func TestRealBurstIsOneSync(t *testing.T) {
	src := filepath.Join(t.TempDir(), "sessions")
	must(t, os.MkdirAll(src, 0o755))
	s, home := runReal(t, src, func(o *Options) { o.Quiet, o.MaxWait = DefaultQuiet, DefaultMaxWait })
	const files = 500
	start, last := time.Now(), time.Now()
	var gap time.Duration // the longest pause between two writes
	for i := range files {
		must(t, os.WriteFile(filepath.Join(src, fmt.Sprintf("s%03d.jsonl", i)), []byte("{}\n"), 0o644))
		gap, last = max(gap, time.Since(last)), time.Now()
		time.Sleep(time.Second / files / 2)
	}
	t.Logf("%d files written in %v", files, time.Since(start).Round(time.Millisecond))
	waitFor(t, 10*time.Second, "a sync after the burst", func() bool { return len(s.times()) >= 1 })
	time.Sleep(3 * DefaultQuiet)
	want := 1
	if gap > DefaultQuiet/2 {
		// A loaded machine paused the writer for most of the quiet
		// period: the burst may fairly be seen as two.
		t.Logf("a pause of %v between two writes", gap)
		want = 2
	}
	if n := len(s.times()); n > want {
		t.Errorf("%d syncs after a burst of %d files, want %d", n, files, want)
	}
	if st, err := freshness.Read(home); err != nil || st.Watched.Files != files {
		t.Errorf("the watcher knows %+v files (%v), want %d", st.Watched, err, files)
	}
}
