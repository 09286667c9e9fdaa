package index_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
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
