package index_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
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
	for i := range 40 {
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
