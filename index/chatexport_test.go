package index_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
)

// chatGPTTurns is a ChatGPT conversation (export shape) of one prompt
// and its answer.
func chatGPTTurns(id, prompt, answer string) string {
	return `{"id":"` + id + `","title":"` + id + `","create_time":1772445600,"current_node":"a2","mapping":{` +
		`"a1":{"id":"a1","parent":null,"children":["a2"],"message":{"id":"a1","author":{"role":"user"},"create_time":1772445601,"content":{"content_type":"text","parts":["` + prompt + `"]}}},` +
		`"a2":{"id":"a2","parent":"a1","children":[],"message":{"id":"a2","author":{"role":"assistant"},"create_time":1772445602,"content":{"content_type":"text","parts":["` + answer + `"]}}}}}`
}

// TestSync_chatExport: a chat-export source through real syncs. A newer
// export of the account, which ChatGPT writes with the new conversation
// first, replaces the older one: the conversations both hold keep their
// records' ids, nothing is indexed twice, and the new conversation is
// found. Both exports kept side by side index each turn once and report
// the second copies as duplicate ids.
func TestSync_chatExport(t *testing.T) {
	dir := t.TempDir()
	exports := filepath.Join(dir, "exports")
	older := chatGPTTurns("c-backups", "Where do the billing backups go?", "They go to the cold-storage bucket every night.")
	writeFile(t, filepath.Join(exports, "2026-02", "conversations.json"), "["+older+"]")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "chats", Kind: config.KindChatExport, Path: exports})
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})
	mustSync(t, ix)
	ids := func() []string {
		t.Helper()
		_, g := active(t, cfg.Home)
		var out []string
		for _, c := range chunkByID(t, g) {
			if c.Agent != "chatgpt" || c.SourceSet != "agent-transcripts" {
				t.Errorf("%s: agent %q source set %q", c.SourceID, c.Agent, c.SourceSet)
			}
			out = append(out, c.SourceID)
		}
		slices.Sort(out)
		return out
	}
	if got := ids(); !slices.Equal(got, []string{"c-backups:a1", "c-backups:a2"}) {
		t.Fatalf("first sync: %v", got)
	}

	newer := "[" + chatGPTTurns("c-deploy", "What changed in the quillfeather deploy?", "The quillfeather deploy moved the workers to the new queue.") + "," + older + "]"
	writeFile(t, filepath.Join(exports, "2026-02", "conversations.json"), newer)
	b := mustSync(t, ix).Build
	if got := ids(); !slices.Equal(got, []string{"c-backups:a1", "c-backups:a2", "c-deploy:a1", "c-deploy:a2"}) || b.DuplicateIDs != 0 {
		t.Errorf("after the newer export: %v, %d duplicate ids", got, b.DuplicateIDs)
	}
	if found := searchIDs(t, cfg.Home, "quillfeather deploy workers queue"); !slices.Contains(found, "c-deploy:a2") {
		t.Errorf("search for the new conversation: %v", found)
	}

	writeFile(t, filepath.Join(exports, "2026-03", "conversations.json"), newer)
	b = mustSync(t, ix).Build
	if got := ids(); len(got) != 4 || b.DuplicateIDs != 4 {
		t.Errorf("with both exports: %v, %d duplicate ids, want 4 records and 4 duplicates", got, b.DuplicateIDs)
	}
}

// claudeAIChat is a Claude.ai conversation (export shape) whose turns
// alternate between the human and the assistant.
func claudeAIChat(id string, turns ...string) string {
	var b strings.Builder
	b.WriteString(`{"uuid":"` + id + `","name":"` + id + `","created_at":"2026-03-03T10:00:00Z","updated_at":"2026-03-03T10:05:00Z","chat_messages":[`)
	for i, text := range turns {
		sender := "human"
		if i%2 == 1 {
			sender = "assistant"
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"uuid":"m%d","sender":"%s","text":%q,"created_at":"2026-03-03T10:00:%02dZ"}`, i+1, sender, text, i+1)
	}
	b.WriteString("]}")
	return b.String()
}

// TestSync_chatExportContext: the turns of an export's conversation are
// each other's neighbours, as a transcript's are, though an export (one
// JSON list, often on one line) gives them no line of their own: each
// turn's context holds the turns beside it and nothing of the other
// conversations of the file, after a full build and after an
// incremental sync that adds a turn (the turn before it takes the new
// one into its context).
func TestSync_chatExportContext(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "exports", "2026-03", "conversations.json")
	picnic := []string{"What games suit the church picnic?", "Some fun ones like charades and sack races.", "Great, thanks a lot."}
	backups := claudeAIChat("c-backups", "Where do the billing backups go?", "The cold-storage bucket, every night.")
	writeFile(t, file, "["+claudeAIChat("c-picnic", picnic...)+","+backups+"]")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "chats", Kind: config.KindChatExport, Path: filepath.Join(dir, "exports")})
	// The delta is left as the sync wrote it: a compaction would write
	// the generation again, context and all.
	ix := index.New(cfg, index.Options{NoRemote: true, NoCompact: true, Now: newClock(epoch).Now})
	analyzer := lexical.NewAnalyzer()
	check := func(when string, want map[string][]string, not []string) {
		t.Helper()
		_, g := active(t, cfg.Home)
		docs := map[string]int{}
		for d, c := range g.All() {
			docs[c.SourceID] = d
		}
		for id, words := range want {
			d, ok := docs[id]
			if !ok {
				t.Fatalf("%s: %s is not indexed: %v", when, id, docs)
			}
			ctx, _ := g.Context(d)
			for _, w := range words {
				if !strings.Contains(ctx, w) {
					t.Errorf("%s: context of %s is %q, want %q in it", when, id, ctx, w)
				}
				// What the context field indexed is the same context.
				hits := g.SearchContext(g.Resolve(analyzer.Terms(w)), 10, nil)
				if !slices.ContainsFunc(hits, func(h lexical.Hit) bool { return h.Doc == d }) {
					t.Errorf("%s: the context field does not find %s for %q", when, id, w)
				}
			}
			for _, w := range not {
				if slices.Contains(words, w) {
					continue
				}
				if strings.Contains(ctx, w) {
					t.Errorf("%s: context of %s is %q, which crosses into %q", when, id, ctx, w)
				}
				hits := g.SearchContext(g.Resolve(analyzer.Terms(w)), 10, nil)
				if slices.ContainsFunc(hits, func(h lexical.Hit) bool { return h.Doc == d }) {
					t.Errorf("%s: the context field finds %s for %q, of another conversation or beyond its neighbours", when, id, w)
				}
			}
		}
	}
	mustSync(t, ix)
	not := []string{"billing", "cold-storage", "restores", "church", "charades", "thanks", "sunscreen"}
	check("full build", map[string][]string{
		"c-picnic:m1":  {"charades", "thanks"},
		"c-picnic:m2":  {"church", "thanks"},
		"c-picnic:m3":  {"church", "charades"},
		"c-backups:m1": {"cold-storage"},
		"c-backups:m2": {"billing"},
	}, not)

	// A turn added to each conversation: both are affected by one delta,
	// and their turns have the same places (lines) in the file.
	backups = claudeAIChat("c-backups", "Where do the billing backups go?", "The cold-storage bucket, every night.", "Are restores rehearsed?")
	writeFile(t, file, "["+claudeAIChat("c-picnic", append(picnic, "Bring sunscreen for the meadow.")...)+","+backups+"]")
	if b := mustSync(t, ix).Build; b.Mode != index.ModeIncremental {
		t.Fatalf("second sync: %s, want incremental", b.Mode)
	}
	check("after a turn is added", map[string][]string{
		"c-picnic:m2":  {"church", "thanks", "sunscreen"},
		"c-picnic:m3":  {"church", "charades", "sunscreen"},
		"c-picnic:m4":  {"charades", "thanks"},
		"c-backups:m1": {"cold-storage", "restores"},
		"c-backups:m2": {"billing", "restores"},
		"c-backups:m3": {"billing", "cold-storage"},
	}, not)
}

// TestSync_claudeAIProjectRenamed: a Claude.ai project memory is titled
// with its project's name, which the export's projects.json (or
// projects/<uuid>.json) holds, not memories.json: a later export that
// renames the project, or adds its file, while memories.json stays as it
// was, retitles the memory on the next sync. The sync skipped the
// unchanged memories.json, and the old title stayed.
func TestSync_claudeAIProjectRenamed(t *testing.T) {
	dir := t.TempDir()
	export := filepath.Join(dir, "exports")
	writeFile(t, filepath.Join(export, "memories.json"), `[{"conversations_memory":"","project_memories":{"p-bill":"Ledger entries apply in sequence order.","p-ops":"Pages go to the secondary after 15 minutes."},"account_uuid":"acct-1"}]`)
	project := func(uuid, name string) string {
		return `{"uuid":"` + uuid + `","name":"` + name + `","is_starter_project":false,"docs":[]}`
	}
	writeFile(t, filepath.Join(export, "projects.json"), "["+project("p-bill", "Billing")+"]")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "chats", Kind: config.KindChatExport, Path: export})
	clk := newClock(epoch)
	ix := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})
	titles := func() map[string]string {
		t.Helper()
		_, g := active(t, cfg.Home)
		out := map[string]string{}
		for _, c := range chunkByID(t, g) {
			out[c.SourceID] = c.Title
		}
		return out
	}
	mustSync(t, ix)
	if got := titles(); got["memory:acct-1:p-bill"] != "Claude.ai project memory: Billing" || got["memory:acct-1:p-ops"] != "Claude.ai project memory" {
		t.Fatalf("first sync: titles %q", got)
	}

	writeFile(t, filepath.Join(export, "projects.json"), "["+project("p-bill", "Ledger and invoices")+"]")
	writeFile(t, filepath.Join(export, "projects", "p-ops.json"), project("p-ops", "Ops on-call"))
	mustSync(t, ix)
	got := titles()
	if got["memory:acct-1:p-bill"] != "Claude.ai project memory: Ledger and invoices" || got["memory:acct-1:p-ops"] != "Claude.ai project memory: Ops on-call" {
		t.Errorf("after the projects changed: titles %q", got)
	}
	if ids := searchIDs(t, cfg.Home, "on-call secondary"); len(ids) == 0 || ids[0] != "memory:acct-1:p-ops" {
		t.Errorf("search by the project's new name: %v", ids)
	}
}
