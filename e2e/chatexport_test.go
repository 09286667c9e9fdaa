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
	t.Parallel()
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

// TestChatExport_documentVersions: a document revised in a conversation
// (a ChatGPT canvas rewritten by canmore.update_textdoc, a Claude.ai
// artifact changed by the artifacts tool's update) is served by novad
// at its final version first, and the versions before it say they are
// superseded by it, as versions of a JSONL subject do.
func TestChatExport_documentVersions(t *testing.T) {
	const gpt = `[{"id": "e2e-canvas", "title": "Rollout", "create_time": 1772359200, "current_node": "a2", "mapping": {
    "u": {"id": "u", "parent": null, "children": ["a1"], "message": {"id": "u", "author": {"role": "user"}, "create_time": 1772359201,
      "content": {"content_type": "text", "parts": ["Write the rollout plan in a canvas."]}}},
    "a1": {"id": "a1", "parent": "u", "children": ["a2"], "message": {"id": "a1", "author": {"role": "assistant"}, "create_time": 1772359202,
      "recipient": "canmore.create_textdoc", "content": {"content_type": "code", "text": "{\"name\": \"plan\", \"type\": \"document\", \"content\": \"The zephyrine rollout plan: canary on Monday.\"}"}}},
    "a2": {"id": "a2", "parent": "a1", "children": [], "message": {"id": "a2", "author": {"role": "assistant"}, "create_time": 1772359300,
      "recipient": "canmore.update_textdoc", "content": {"content_type": "code", "text": "{\"updates\": [{\"pattern\": \".*\", \"multiple\": false, \"replacement\": \"The zephyrine rollout plan: canary on Tuesday, then the fleet.\"}]}"}}}}}]`
	const claude = `[{"uuid": "e2e-artifact", "name": "Runbook", "created_at": "2026-03-03T10:00:00Z", "chat_messages": [
    {"uuid": "m1", "sender": "assistant", "created_at": "2026-03-03T10:00:01Z", "text": "", "content": [{"type": "tool_use", "name": "artifacts",
      "input": {"id": "runbook", "type": "text/markdown", "title": "Quorvex runbook", "command": "create", "content": "Restart the quorvex broker with systemctl."}}]},
    {"uuid": "m2", "sender": "assistant", "created_at": "2026-03-03T10:05:00Z", "text": "", "content": [{"type": "tool_use", "name": "artifacts",
      "input": {"id": "runbook", "command": "update", "old_str": "with systemctl", "new_str": "with its drain script, then systemctl"}}]}]}]`
	exports := filepath.Join(t.TempDir(), "exports")
	for dir, data := range map[string]string{"chatgpt": gpt, "claude": claude} {
		novatest.Must(t, os.MkdirAll(filepath.Join(exports, dir), 0o700))
		novatest.Must(t, os.WriteFile(filepath.Join(exports, dir, "conversations.json"), []byte(data), 0o600))
	}
	h := novatest.NewHome(t, fmt.Sprintf("  - {name: chats, kind: chat-export, path: %q}\n", exports))
	if out, errOut, code := h.Novactl("index", "sync"); code != 0 {
		t.Fatalf("sync exit %d: %s %s", code, out, errOut)
	}
	d := h.Start()
	for _, c := range []struct{ query, newest, older string }{
		{"zephyrine rollout plan canary", "e2e-canvas:a2", "e2e-canvas:a1"},
		{"quorvex broker runbook restart", "e2e-artifact:m2:runbook", "e2e-artifact:m1:runbook"},
	} {
		r := search(t, d.Facade, `{"query":"`+c.query+`","topK":5}`)
		if r.status != 200 {
			t.Fatalf("search %q: %d %s", c.query, r.status, r.body)
		}
		results, _ := r.json(t)["results"].([]any)
		ids := map[string]map[string]any{}
		var first string
		for i, x := range results {
			m, _ := x.(map[string]any)
			sid, _ := m["sourceId"].(string)
			ids[sid] = m
			if i == 0 {
				first = sid
			}
		}
		newest, older := ids[c.newest], ids[c.older]
		if first != c.newest || newest == nil || older == nil {
			t.Fatalf("search %q: first %q, want %s, then %s: %.800s", c.query, first, c.newest, c.older, r.body)
		}
		if newest["superseded"] == true || older["superseded"] != true || older["supersededBy"] != newest["id"] {
			t.Errorf("search %q: newest superseded %v; older superseded %v by %v, want by %v", c.query,
				newest["superseded"], older["superseded"], older["supersededBy"], newest["id"])
		}
	}
}
