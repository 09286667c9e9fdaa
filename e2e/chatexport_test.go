package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
)

// chatGPTExport and claudeAIExport are one-conversation exports in the
// shapes of ChatGPT's and Claude.ai's conversations.json (see
// index/ingest/chatexport.go), written for this test.
const (
	chatGPTExport = `[{"id": "e2e-gpt-1", "title": "Cron after the migration", "create_time": 1772359200, "update_time": 1772359300,
  "current_node": "b2", "mapping": {
    "b1": {"id": "b1", "parent": null, "children": ["b2"], "message": {"id": "b1", "author": {"role": "user"}, "create_time": 1772359201,
      "content": {"content_type": "text", "parts": ["Why did the nightly quillfeather cron fail after the database migration?"]}}},
    "b2": {"id": "b2", "parent": "b1", "children": [], "message": {"id": "b2", "author": {"role": "assistant"}, "create_time": 1772359202,
      "content": {"content_type": "text", "parts": ["The quillfeather cron still pointed at the old replica's host name."]}}}}}]`
	claudeAIExport = `[{"uuid": "e2e-claude-1", "name": "Staging port", "created_at": "2026-03-03T10:00:00Z", "updated_at": "2026-03-03T10:05:00Z",
  "chat_messages": [
    {"uuid": "m1", "sender": "human", "text": "Which port does the marrowgate staging API listen on?", "created_at": "2026-03-03T10:00:01Z"},
    {"uuid": "m2", "sender": "assistant", "text": "", "content": [{"type": "text", "text": "The marrowgate staging API listens on port 8443."}],
      "created_at": "2026-03-03T10:00:05Z"}]}]`
)

// TestChatExport_syncAndSearch: a chat-export source over a folder of
// unzipped ChatGPT and Claude.ai exports is synced by novactl, and novad
// finds a turn of each, as the service's agent.
func TestChatExport_syncAndSearch(t *testing.T) {
	exports := filepath.Join(t.TempDir(), "exports")
	for dir, data := range map[string]string{"chatgpt-2026-03": chatGPTExport, "claude-2026-03": claudeAIExport} {
		novatest.Must(t, os.MkdirAll(filepath.Join(exports, dir), 0o700))
		novatest.Must(t, os.WriteFile(filepath.Join(exports, dir, "conversations.json"), []byte(data), 0o600))
	}
	h := novatest.NewHome(t, fmt.Sprintf("  - {name: chats, kind: chat-export, path: %q}\n", exports))
	out, errOut, code := h.Novactl("index", "sync", "-v")
	if code != 0 {
		t.Fatalf("sync exit %d: %s %s", code, out, errOut)
	}
	if !strings.Contains(out, "source chats (chat-export): 2 files") {
		t.Errorf("sync does not read both exports:\n%s%s", out, errOut)
	}
	d := h.Start()
	for _, c := range []struct{ query, agent, want string }{
		{"quillfeather cron replica host", "chatgpt", "old replica's host name"},
		{"marrowgate staging API port", "claude.ai", "listens on port 8443"},
	} {
		r := search(t, d.Facade, `{"query":"`+c.query+`","topK":5,"agent":"`+c.agent+`"}`)
		if r.status != 200 {
			t.Fatalf("search %q: %d %s", c.query, r.status, r.body)
		}
		results, _ := r.json(t)["results"].([]any)
		found := false
		for _, x := range results {
			m, _ := x.(map[string]any)
			text, _ := m["text"].(string)
			preview, _ := m["textPreview"].(string)
			if m["agent"] == c.agent && strings.Contains(text+preview, c.want) {
				found = true
			}
		}
		if !found {
			t.Errorf("search %q (agent %s) does not find %q: %.600s", c.query, c.agent, c.want, r.body)
		}
	}
}
