package index_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestHistory_staysBounded: the watcher syncs after every burst an agent
// writes, each sync appends its build, promotion and prune to
// history.jsonl, and retention reads the file whole at every sync. Under
// a day of agent work it must not grow without end; the events retention
// needs (the newest activations) must survive the trim, so rollback still
// finds the generation active before.
func TestHistory_staysBounded(t *testing.T) {
	const limit = 4096
	defer index.SetHistoryLimit(limit)()
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})
	var runs []string
	// 20 syncs: the file first passes the limit at the 9th and is trimmed
	// three times, once just after a compaction's longer event; without
	// the trim the 9th sync fails the bound.
	for i := range 20 {
		appendFile(t, src, jsonlLines(t, rec{ID: fmt.Sprintf("append-%03d", i), Text: fmt.Sprintf("Append %d: the deploy of build %d went out to the canary pool.", i, 7000+i)}))
		runs = append(runs, mustSync(t, ix).Active())
		fi, err := os.Stat(cfg.Home.History())
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > limit {
			t.Fatalf("after %d syncs history.jsonl holds %d bytes, want at most %d", i+1, fi.Size(), limit)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Fatalf("history.jsonl mode %v, want 0600", fi.Mode().Perm())
		}
	}
	ev := history(t, cfg.Home)
	raw, err := os.ReadFile(cfg.Home.History())
	if err != nil {
		t.Fatal(err)
	}
	if lines := bytes.Count(raw, []byte("\n")); lines != len(ev) || !bytes.HasSuffix(raw, []byte("\n")) {
		t.Errorf("the trimmed history holds %d lines but %d events: it was cut inside a line", lines, len(ev))
	}
	if len(ev) == 0 || !hasEvent(ev, index.EventPromote, runs[len(runs)-1]) {
		t.Fatalf("the trimmed history lost the newest promotion of %s: %v", runs[len(runs)-1], eventSummary(ev))
	}
	p, err := ix.Rollback(context.Background(), "")
	if err != nil {
		t.Fatalf("rollback after the history was trimmed: %v", err)
	}
	if p.RunID != runs[len(runs)-2] {
		t.Errorf("rollback went to %s, want the generation active before, %s", p.RunID, runs[len(runs)-2])
	}
}

// TestDeltaSyncsLogAtDebug: the watcher syncs a delta after every burst
// an agent writes and logs one line for it itself; the index's account of
// the same routine work (its candidate, its promotion) is debug detail,
// or the watcher's log, a file nothing rotates under launchd, grows by a
// kilobyte a sync. A full build stays in the log.
func TestDeltaSyncsLogAtDebug(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	var logs bytes.Buffer
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now, NoCompact: true,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	mustSync(t, ix)
	if !strings.Contains(logs.String(), "mode=full") {
		t.Errorf("the first (full) build is not logged:\n%s", logs.String())
	}
	logs.Reset()
	for i := range 5 {
		appendFile(t, src, jsonlLines(t, rec{ID: fmt.Sprintf("delta-%d", i), Text: fmt.Sprintf("Delta %d: the canary of build %d passed.", i, 8100+i)}))
		if r := mustSync(t, ix); r.Build.Mode != index.ModeIncremental {
			t.Fatalf("sync %d built %s, want a delta", i, r.Build.Mode)
		}
	}
	if logs.Len() > 0 {
		t.Errorf("5 delta syncs logged at Info, want nothing (the watcher logs each once):\n%s", logs.String())
	}
}
