package index_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
)

// TestSync_gemini: a Gemini CLI home through real syncs. A message Gemini
// appends is read on from the cursor; a rewind is read whole again and
// the turns it removed are gone from search; a message written again
// with its tool calls replaces its earlier record; a legacy recording
// and the .jsonl Gemini migrates it to give each record once.
func TestSync_gemini(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "gemini")
	chats := filepath.Join(home, "tmp", "billing", "chats")
	live := filepath.Join(chats, "session-2026-03-02T11-00-9e0f1a2b.jsonl")
	writeFile(t, filepath.Join(home, "projects.json"), `{"projects":{"/home/dev/src/billing":"billing"}}`)
	writeFile(t, live, `{"sessionId":"9e0f1a2b-0000-4000-8000-000000000001","projectHash":"x","startTime":"2026-03-02T11:00:00.000Z","kind":"main"}
{"id":"u-1","timestamp":"2026-03-02T11:00:05.000Z","type":"user","content":[{"text":"Why does the invoice job stall on Mondays?"}]}
{"id":"g-1","timestamp":"2026-03-02T11:00:19.000Z","type":"gemini","content":"The Monday batch waits on the ledger lock held by the weekly export."}
`)
	legacy := filepath.Join(chats, "session-2026-03-01T10-00-7c7c7c7c.json")
	writeFile(t, legacy, `{"sessionId":"7c7c7c7c-0000-4000-8000-000000000002","messages":[{"id":"m-1","timestamp":"2026-03-01T10:00:05.000Z","type":"user","content":"Which port does staging use?"}]}`)
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "gm", Kind: config.KindGemini, Path: home})
	clk := newClock(epoch)
	ix := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})
	mustSync(t, ix)

	texts := func() map[string]string {
		t.Helper()
		_, g := active(t, cfg.Home)
		out := map[string]string{}
		for _, c := range chunkByID(t, g) {
			if _, dup := out[c.SourceID]; dup {
				t.Fatalf("record %s indexed twice", c.SourceID)
			}
			if c.Agent != "gemini" || c.Project != "billing" || c.SourceSet != "agent-transcripts" {
				t.Errorf("%s: agent %q project %q source set %q", c.SourceID, c.Agent, c.Project, c.SourceSet)
			}
			out[c.SourceID] = c.Text
		}
		return out
	}
	const s1 = "9e0f1a2b-0000-4000-8000-000000000001"
	if got := texts(); len(got) != 3 || got[s1+":g-1"] == "" || got["7c7c7c7c-0000-4000-8000-000000000002:m-1"] == "" {
		t.Fatalf("first sync: %v", got)
	}

	// Gemini appends a turn: read on from the cursor.
	appendFile(t, live, `{"id":"u-2","timestamp":"2026-03-02T11:01:00.000Z","type":"user","content":"Move the weekly export to Sunday night then."}`+"\n")
	b := mustSync(t, ix).Build
	if b.Mode != index.ModeIncremental || b.FilesResumed != 1 {
		t.Errorf("after an append: mode %s, %d files resumed, want incremental and 1", b.Mode, b.FilesResumed)
	}
	if got := texts()[s1+":u-2"]; got != "Move the weekly export to Sunday night then." {
		t.Errorf("the appended turn: %q", got)
	}
	if ids := searchIDs(t, cfg.Home, "weekly export Sunday night"); len(ids) == 0 || ids[0] != s1+":u-2" {
		t.Errorf("search for the appended turn: %v", ids)
	}

	// The user rewinds to before that prompt and asks something else: the
	// file is read whole, and the removed prompt is gone from search.
	appendFile(t, live, `{"$rewindTo":"u-2"}
{"id":"u-3","timestamp":"2026-03-02T11:02:00.000Z","type":"user","content":"Give the export its own lock instead."}
`)
	b = mustSync(t, ix).Build
	if b.FilesResumed != 0 {
		t.Errorf("after a rewind: %d files resumed, want the file read whole", b.FilesResumed)
	}
	got := texts()
	if _, ok := got[s1+":u-2"]; ok || got[s1+":u-3"] != "Give the export its own lock instead." {
		t.Errorf("after the rewind: %v", got)
	}
	for _, id := range searchIDs(t, cfg.Home, "weekly export Sunday night") {
		if id == s1+":u-2" {
			t.Errorf("the rewound prompt is still found: %v", id)
		}
	}

	// Gemini writes its answer, then the same message again with its tool
	// call: one record, with the call.
	appendFile(t, live, `{"id":"g-3","timestamp":"2026-03-02T11:02:20.000Z","type":"gemini","content":"Added a separate export lock."}`+"\n")
	mustSync(t, ix)
	appendFile(t, live, `{"id":"g-3","timestamp":"2026-03-02T11:02:20.000Z","type":"gemini","content":"Added a separate export lock.","toolCalls":[{"id":"t","name":"replace","args":{"file_path":"jobs/export.go"},"result":[{"functionResponse":{"response":{"output":"ok"}}}]}],"tokens":{"input":9,"output":3}}`+"\n")
	b = mustSync(t, ix).Build
	if got := texts()[s1+":g-3"]; got != "Added a separate export lock.\n[tool: replace jobs/export.go]" || b.DuplicateIDs != 0 {
		t.Errorf("the message written again: %q, %d duplicate ids", got, b.DuplicateIDs)
	}

	// Gemini compresses the session: the summary and the model's
	// acknowledgement, then the turn it kept, in the message list. The
	// earlier turns stay, the summary is found, the acknowledgement is not
	// a record.
	appendFile(t, live, `{"$set":{"messages":[{"id":"c-1","timestamp":"2026-03-02T11:03:00.000Z","type":"user","content":[{"text":"<state_snapshot><key_knowledge>The Monday invoice stall is the weekly export holding the ledger lock.</key_knowledge></state_snapshot>"}]},{"id":"c-2","timestamp":"2026-03-02T11:03:00.000Z","type":"gemini","content":[{"text":"Got it. Thanks for the additional context!"}]},{"id":"g-3","timestamp":"2026-03-02T11:02:20.000Z","type":"gemini","content":[{"text":"Added a separate export lock."}]}]}}`+"\n")
	b = mustSync(t, ix).Build
	got = texts()
	if b.DuplicateIDs != 0 || got[s1+":u-1"] == "" || got[s1+":c-2"] != "" ||
		got[s1+":c-1"] != "<key_knowledge>The Monday invoice stall is the weekly export holding the ledger lock.</key_knowledge>" {
		t.Errorf("after a compression: %d duplicate ids, %v", b.DuplicateIDs, got)
	}

	// Gemini resumes the legacy session: it migrates it to a .jsonl beside
	// it and appends there. Each record once, the legacy file's from the
	// .jsonl.
	migrated := legacy + "l"
	writeFile(t, migrated, `{"sessionId":"7c7c7c7c-0000-4000-8000-000000000002","projectHash":"x","startTime":"2026-03-01T10:00:00.000Z"}
{"id":"m-1","timestamp":"2026-03-01T10:00:05.000Z","type":"user","content":"Which port does staging use?"}
{"id":"m-2","timestamp":"2026-03-03T09:00:00.000Z","type":"user","content":"And production?"}
`)
	b = syncOK(t, ix).Build
	got = texts()
	if b.DuplicateIDs != 0 || got["7c7c7c7c-0000-4000-8000-000000000002:m-2"] != "And production?" || len(got) != 7 {
		t.Errorf("after the migration: %d duplicate ids, %v", b.DuplicateIDs, got)
	}
	_, g := active(t, cfg.Home)
	for _, c := range chunkByID(t, g) {
		if strings.HasSuffix(c.SourcePath, ".json") {
			t.Errorf("%s is still the legacy file's", c.SourceID)
		}
	}
	if _, err := os.Stat(legacy); err != nil {
		t.Fatal(err)
	}
}

// TestSync_geminiLegacyContext: the messages of a legacy recording (one
// JSON object, which gives them no line of their own) are each other's
// neighbours, after a full build and after Gemini rewrites the file with
// one more message (the one before it takes it into its context).
func TestSync_geminiLegacyContext(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "gemini")
	legacy := filepath.Join(home, "tmp", "billing", "chats", "session-2026-03-01T10-00-7c7c7c7c.json")
	msgs := []string{
		`{"id":"m-1","timestamp":"2026-03-01T10:00:05.000Z","type":"user","content":"Which port does staging use?"}`,
		`{"id":"m-2","timestamp":"2026-03-01T10:00:09.000Z","type":"gemini","content":"Staging listens on 8443 behind the balancer."}`,
		`{"id":"m-3","timestamp":"2026-03-01T10:00:30.000Z","type":"user","content":"Thanks, noted."}`,
		`{"id":"m-4","timestamp":"2026-03-01T10:01:00.000Z","type":"gemini","content":"Rotate the certificate before Friday."}`,
	}
	write := func(n int) {
		writeFile(t, legacy, `{"sessionId":"7c7c7c7c-0000-4000-8000-000000000002","messages":[`+strings.Join(msgs[:n], ",")+`]}`)
	}
	write(3)
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "gm", Kind: config.KindGemini, Path: home})
	// The delta is left as the sync wrote it: a compaction would write
	// the generation again, context and all.
	ix := index.New(cfg, index.Options{NoRemote: true, NoCompact: true, Now: newClock(epoch).Now})
	analyzer := lexical.NewAnalyzer()
	check := func(when string, want map[string][]string) {
		t.Helper()
		_, g := active(t, cfg.Home)
		docs := map[string]int{}
		for d, c := range g.All() {
			docs[strings.TrimPrefix(c.SourceID, "7c7c7c7c-0000-4000-8000-000000000002:")] = d
		}
		for id, words := range want {
			d, ok := docs[id]
			if !ok {
				t.Fatalf("%s: %s is not indexed: %v", when, id, docs)
			}
			ctx, _ := g.Context(d)
			for _, w := range words {
				hits := g.SearchContext(g.Resolve(analyzer.Terms(w)), 10, nil)
				if !strings.Contains(ctx, w) || !slices.ContainsFunc(hits, func(h lexical.Hit) bool { return h.Doc == d }) {
					t.Errorf("%s: context of %s is %q, want %q in it, and found by the context field", when, id, ctx, w)
				}
			}
		}
	}
	mustSync(t, ix)
	check("full build", map[string][]string{"m-1": {"8443", "Thanks"}, "m-2": {"staging", "Thanks"}, "m-3": {"staging", "8443"}})
	write(4)
	if b := mustSync(t, ix).Build; b.Mode != index.ModeIncremental {
		t.Fatalf("second sync: %s, want incremental", b.Mode)
	}
	check("after a message is added", map[string][]string{"m-2": {"staging", "Thanks", "certificate"}, "m-3": {"8443", "certificate"}, "m-4": {"8443", "Thanks"}})
}
