package index_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSync_openclaw: an OpenClaw state directory through real syncs. Its
// session is indexed as agent transcripts and its daily memory as notes;
// a line OpenClaw appends is read on from the cursor; the session
// archived by /reset (renamed x.jsonl.reset.<ts>), then copied to
// x.jsonl.deleted.<ts> and removed, keeps one copy of each record, under
// its new name.
func TestSync_openclaw(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "openclaw")
	sessions := filepath.Join(state, "agents", "main", "sessions")
	live := filepath.Join(sessions, "s1.jsonl")
	writeFile(t, live, `{"type":"session","version":3,"id":"s1","timestamp":"2026-03-02T08:00:00.000Z","cwd":"/home/dev/.openclaw/workspace"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2026-03-02T08:00:05.000Z","message":{"role":"user","content":[{"type":"text","text":"Which quarter does the ledger export cover?"}],"timestamp":1772438405000}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-03-02T08:00:09.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"The ledger export covers the fourth quarter of 2025."}]}}
`)
	writeFile(t, filepath.Join(sessions, "sessions.json"), `{"agent:main:main":{"sessionId":"s1"}}`)
	writeFile(t, filepath.Join(state, "workspace", "memory", "2026-03-02.md"), "The ledger export moved to the first of each month.\n")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "oc", Kind: config.KindOpenClaw, Path: state})
	clk := newClock(epoch)
	ix := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})
	mustSync(t, ix)

	got := recordsBySource(t, cfg)
	for id, want := range map[string]string{"s1:2": "agent-transcripts", "s1:3": "agent-transcripts", "workspace/memory/2026-03-02.md#top": "notes"} {
		c, ok := got[id]
		if !ok || c.Agent != "openclaw" || c.SourceSet != want {
			t.Errorf("%s: %+v, want agent openclaw in %s", id, c, want)
		}
	}
	if c := got["s1:2"]; c.Project != "main" || c.Time != "2026-03-02T08:00:05Z" || c.Conversation != "openclaw:s1" {
		t.Errorf("s1:2 project %q time %q conversation %q", c.Project, c.Time, c.Conversation)
	}
	if len(got) != 3 {
		t.Errorf("%d records, want 3: %v", len(got), slices.Sorted(func(yield func(string) bool) {
			for k := range got {
				if !yield(k) {
					return
				}
			}
		}))
	}

	// OpenClaw appends a turn: read on from the cursor.
	appendFile(t, live, `{"type":"message","id":"a3","parentId":"a2","timestamp":"2026-03-02T08:01:00.000Z","message":{"role":"user","content":"And which currency?"}}`+"\n")
	b := mustSync(t, ix).Build
	if b.Mode != index.ModeIncremental || b.FilesResumed != 1 {
		t.Errorf("after an append: mode %s, %d files resumed, want incremental and 1", b.Mode, b.FilesResumed)
	}
	if c, ok := recordsBySource(t, cfg)["s1:4"]; !ok || c.Text != "And which currency?" {
		t.Errorf("the appended turn: %+v", c)
	}

	// /reset archives the session under another name.
	archived := live + ".reset.2026-03-02T09-00-00.000Z"
	if err := os.Rename(live, archived); err != nil {
		t.Fatal(err)
	}
	b = syncOK(t, ix).Build
	got = recordsBySource(t, cfg)
	if b.DuplicateIDs != 0 || len(got) != 4 || len(b.Sources[0].Gone) != 0 {
		t.Errorf("after the reset: %d records, %d duplicate ids, gone %v; want 4, 0, none", len(got), b.DuplicateIDs, b.Sources[0].Gone)
	}
	if c := got["s1:3"]; !strings.HasSuffix(c.SourcePath, ".reset.2026-03-02T09-00-00.000Z") {
		t.Errorf("s1:3 is %s's, want the archived file's", c.SourcePath)
	}

	// A copy under another name (another inode), the first removed: the
	// session's ids say it is the same session.
	deleted := live + ".deleted.2026-03-02T10-00-00.000Z"
	body, err := os.ReadFile(archived)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, deleted, string(body))
	if err := os.Remove(archived); err != nil {
		t.Fatal(err)
	}
	b = syncOK(t, ix).Build
	got = recordsBySource(t, cfg)
	if b.DuplicateIDs != 0 || len(got) != 4 || len(b.Sources[0].Gone) != 0 {
		t.Errorf("after the copy: %d records, %d duplicate ids, gone %v; want 4, 0, none", len(got), b.DuplicateIDs, b.Sources[0].Gone)
	}
	if c := got["s1:4"]; !strings.HasSuffix(c.SourcePath, ".deleted.2026-03-02T10-00-00.000Z") {
		t.Errorf("s1:4 is %s's, want the copy's", c.SourcePath)
	}
}

// TestSync_openclawSourceDefaults: the agent and sourceSet configured on
// an OpenClaw source reach, through a real sync, both its sessions and
// its workspace notes.
func TestSync_openclawSourceDefaults(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "openclaw")
	writeFile(t, filepath.Join(state, "agents", "main", "sessions", "s1.jsonl"), `{"type":"session","version":3,"id":"s1","timestamp":"2026-03-02T08:00:00.000Z","cwd":"/home/dev/.openclaw/workspace"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2026-03-02T08:00:05.000Z","message":{"role":"user","content":[{"type":"text","text":"Which quarter does the ledger export cover?"}],"timestamp":1772438405000}}
`)
	writeFile(t, filepath.Join(state, "workspace", "memory", "2026-03-02.md"), "The ledger export moved to the first of each month.\n")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "oc", Kind: config.KindOpenClaw, Path: state, Agent: "claw-laptop", SourceSet: "claw-log"})
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now}))
	_, g := active(t, cfg.Home)
	got := map[string]string{}
	for _, c := range chunkByID(t, g) {
		got[c.SourceID] = c.Agent + " " + c.SourceSet
	}
	want := map[string]string{"s1:2": "claw-laptop claw-log", "workspace/memory/2026-03-02.md#top": "claw-laptop claw-log"}
	if !maps.Equal(got, want) {
		t.Errorf("records %v, want %v", got, want)
	}
}
