package ingest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/memory"
)

// chatExports is a folder of two unzipped exports, written for these
// tests in the shapes public parsers describe (see chatexport.go): a
// ChatGPT conversations.json (a regenerated answer off the branch the
// user sees, hidden system and custom-instruction messages, an image
// part, a tool call, tool output, a content type of a later export, a
// message without a time, a malformed conversation and one named by
// conversation_id only) beside the export's user.json, and a Claude.ai
// conversations.json (reasoning, tool and unknown blocks, a message of
// text only, an empty one and a malformed conversation).
const chatExports = "testdata/chatexport"

const (
	gptInvoices = "6a1f0c2e-0000-4000-8000-000000000001"
	gptCron     = "6a1f0c2e-0000-4000-8000-000000000003"
	claudePort  = "0b7e5d3a-0000-4000-8000-0000000000a1"
	claudeOut   = "0b7e5d3a-0000-4000-8000-0000000000a3"
)

// chatWant is what a chat-export test checks of one record.
type chatWant struct {
	ID, Agent, Role, Title, Text, Session, Time string
	Redactions                                  int
}

func chatGot(r memory.Record) chatWant {
	return chatWant{ID: r.ID, Agent: r.Agent, Role: r.Role, Title: r.Title, Text: r.Text, Session: r.SessionID,
		Time: r.Time.UTC().Format(time.RFC3339Nano), Redactions: r.Redactions}
}

// TestReadChatExport_records: each turn of the branch the user sees is a
// dialogue record of agent chatgpt or claude.ai, keyed by conversation
// and message, titled with the conversation, at the message's time;
// hidden, system and tool messages, tool calls, reasoning and the
// regenerated answer the user replaced are not read, secrets are
// redacted, a malformed conversation is reported by its index and the
// rest of the file is read, and a content type of a later export is
// reported once.
func TestReadChatExport_records(t *testing.T) {
	recs, problems := collect(t, config.Source{Name: "chats", Kind: config.KindChatExport, Path: chatExports})
	gpt := func(conv, msg, role, title, text, ts string, redactions int) chatWant {
		return chatWant{ID: conv + ":" + msg, Agent: "chatgpt", Role: role, Title: title, Text: text, Session: conv, Time: ts, Redactions: redactions}
	}
	claude := func(conv, msg, role, title, text, ts string, redactions int) chatWant {
		return chatWant{ID: conv + ":" + msg, Agent: "claude.ai", Role: role, Title: title, Text: text, Session: conv, Time: ts, Redactions: redactions}
	}
	want := []chatWant{
		gpt(gptInvoices, "n2", "user", "Invoice export timeouts", "Why does the invoice export time out on large accounts?", "2026-03-02T10:00:01.25Z", 0),
		gpt(gptInvoices, "n3", "assistant", "Invoice export timeouts", "It loads every invoice into memory before writing;\nstream it in pages of 500.", "2026-03-02T10:00:20.125Z", 0),
		gpt(gptInvoices, "n4", "user", "Invoice export timeouts", "[image]\nHere is the trace; the staging key is [redacted]", "2026-03-02T10:06:40Z", 1),
		// No time of its own: the one of the message before it.
		gpt(gptInvoices, "n7", "assistant", "Invoice export timeouts", "The trace confirms it: switch to the streaming writer.", "2026-03-02T10:08:35Z", 0),
		gpt(gptCron, "b1", "user", "Cron after the migration", "Why did the nightly cron fail after the database migration?", "2026-03-01T10:00:01Z", 0),
		gpt(gptCron, "b2", "assistant", "Cron after the migration", "The cron still pointed at the old replica's host name.", "2026-03-01T10:00:02Z", 0),
		claude(claudePort, "m1", "user", "Staging port", "Which port does the staging API listen on?", "2026-03-03T09:00:01.5Z", 0),
		claude(claudePort, "m2", "assistant", "Staging port", "Staging listens on port 8443,\nbehind the internal load balancer.", "2026-03-03T09:00:05Z", 0),
		claude(claudePort, "m3", "user", "Staging port", "And the token is [redacted], right?", "2026-03-03T09:01:00Z", 1),
		claude(claudeOut, "m6", "user", "", "Summarize the dashboard outage.", "2026-03-04T08:00:00Z", 0),
	}
	// An export has no line per turn: a turn's line is its place in its
	// conversation (the index orders a conversation's neighbours by it).
	turns := map[string]int{}
	for i, r := range recs {
		turns[r.SessionID]++
		if r.Kind != config.KindChatExport || r.Layer != "dialogue" || r.Line != turns[r.SessionID] {
			t.Errorf("record %d: kind %q layer %q line %d, want line %d", i, r.Kind, r.Layer, r.Line, turns[r.SessionID])
		}
		if r.Conversation != config.KindChatExport+":"+r.SessionID {
			t.Errorf("record %d: conversation %q", i, r.Conversation)
		}
		if r.Date != r.Time.UTC().Format("2006-01-02") {
			t.Errorf("record %d: date %q, time %v", i, r.Date, r.Time)
		}
		if !strings.HasSuffix(r.Path, "conversations.json") {
			t.Errorf("record %d: path %q", i, r.Path)
		}
		if m := noiseLeak.FindString(r.Text); m != "" {
			t.Errorf("record %d: %q leaked into %q", i, m, r.Text)
		}
	}
	if len(recs) != len(want) {
		for _, r := range recs {
			t.Logf("got %+v", chatGot(r))
		}
		t.Fatalf("got %d records, want %d", len(recs), len(want))
	}
	for i, w := range want {
		if got := chatGot(recs[i]); got != w {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, got, w)
		}
	}
	var reasons []string
	for _, p := range problems {
		reasons = append(reasons, filepath.Base(filepath.Dir(p.Path))+": "+p.Reason)
	}
	wantProblems := []string{
		"chatgpt-2026-03: " + ReasonUnknownShape + ` (content type "hologram")`,
		`chatgpt-2026-03: conversations[1] ("6a1f0c2e-0000-4000-8000-000000000002") is malformed ("mapping" is a JSON string)`,
		"claude-2026-03: " + ReasonUnknownShape + ` (content block "hologram")`,
		`claude-2026-03: conversations[1] ("0b7e5d3a-0000-4000-8000-0000000000a2") is malformed ("chat_messages" is a JSON object)`,
	}
	if len(reasons) != len(wantProblems) {
		t.Fatalf("problems = %q, want %q", reasons, wantProblems)
	}
	for i, w := range wantProblems {
		if !strings.HasPrefix(reasons[i], w) {
			t.Errorf("problem %d = %q, want it to start %q", i, reasons[i], w)
		}
	}
	if DefaultSourceSet(config.KindChatExport) != "agent-transcripts" {
		t.Errorf("source set %q", DefaultSourceSet(config.KindChatExport))
	}
}

// sameRecords reports the records read when they are not want, one to a
// line.
func sameRecords(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// writeExport writes data as dir/name and returns the path.
func writeExport(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// gptExportOf is a ChatGPT conversation of one user turn.
func gptExportOf(id, text string) string {
	return `{"id":"` + id + `","title":"t","create_time":1772445600,"current_node":"a","mapping":{"a":{"id":"a","parent":null,"children":[],` +
		`"message":{"id":"a","author":{"role":"user"},"create_time":1772445601,"content":{"content_type":"text","parts":["` + text + `"]}}}}}`
}

// TestReadChatExport_reexport: a later export of the same account lists
// a new conversation first (ChatGPT writes the newest first); the
// records of the conversations it shares with the earlier export keep
// their ids, so a sync replaces them rather than adding copies.
func TestReadChatExport_reexport(t *testing.T) {
	dir := t.TempDir()
	src := config.Source{Name: "chats", Kind: config.KindChatExport, Path: dir}
	writeExport(t, dir, "conversations.json", "["+gptExportOf("c-old", "Where do the billing backups go?")+"]")
	before, _ := collect(t, src)
	writeExport(t, dir, "conversations.json", "["+gptExportOf("c-new", "What changed in the deploy?")+","+
		gptExportOf("c-old", "Where do the billing backups go?")+"]")
	after, problems := collect(t, src)
	if len(before) != 1 || len(after) != 2 || len(problems) != 0 {
		t.Fatalf("before %d records, after %d, problems %v", len(before), len(after), problems)
	}
	if after[1].ID != before[0].ID || after[1].ID != "c-old:a" || after[0].ID != "c-new:a" {
		t.Errorf("ids before %q, after %q and %q", before[0].ID, after[0].ID, after[1].ID)
	}
}

// TestReadChatExport_otherFiles: a file of neither shape is reported by
// its path and skipped (a JSON object, a list of other objects, not
// JSON), an empty export is no problem, and a file cut short keeps the
// conversations before the cut and reports where it stopped.
func TestReadChatExport_otherFiles(t *testing.T) {
	dir := t.TempDir()
	obj := writeExport(t, dir, "a/conversations.json", `{"conversations": []}`)
	list := writeExport(t, dir, "b/conversations.json", `[{"id": "x", "messages": []}]`)
	text := writeExport(t, dir, "c/conversations.json", "not json at all")
	writeExport(t, dir, "d/conversations.json", "[]\n")
	cut := writeExport(t, dir, "e/conversations.json", "["+gptExportOf("c-1", "Why is the queue backed up?")+`, {"id": "c-2", "mapp`)
	recs, problems := collect(t, config.Source{Name: "chats", Kind: config.KindChatExport, Path: dir})
	if len(recs) != 1 || recs[0].ID != "c-1:a" {
		t.Errorf("records %v, want the one before the cut", recs)
	}
	want := map[string]string{obj: "not a ChatGPT or Claude.ai export", list: "not a ChatGPT or Claude.ai export",
		text: "not a ChatGPT or Claude.ai export", cut: "cut short after conversations[0]"}
	if len(problems) != len(want) {
		t.Fatalf("problems %v, want one for each of %v", problems, want)
	}
	for _, p := range problems {
		if w, ok := want[p.Path]; !ok || !strings.Contains(p.Reason, w) {
			t.Errorf("problem %s: %q, want %q", p.Path, p.Reason, w)
		}
	}
}

// TestReadChatExport_noCurrentNode: a ChatGPT conversation whose
// current_node is null, absent or not in its mapping is read, not
// skipped as malformed: its branch is the one that ends at the newest
// leaf (an answer regenerated last), as public parsers fall back to
// (slyubarskiy/chatgpt-conversation-extractor
// docs/00_conversation_json_technical_reference.md, "Missing Current
// Node": current_node "may be null - need fallback").
func TestReadChatExport_noCurrentNode(t *testing.T) {
	conv := func(id, current string) string {
		return `{"id":"` + id + `","title":"Queue lag","create_time":1772445600,` + current + `"mapping":{` +
			`"r":{"id":"r","parent":null,"children":["u"],"message":null},` +
			`"u":{"id":"u","parent":"r","children":["old","new"],"message":{"id":"u","author":{"role":"user"},"create_time":1772445601,"content":{"content_type":"text","parts":["Why is the queue lagging?"]}}},` +
			// The first answer, replaced by the one regenerated after it.
			`"old":{"id":"old","parent":"u","children":[],"message":{"id":"old","author":{"role":"assistant"},"create_time":1772445602,"content":{"content_type":"text","parts":["Too few consumers."]}}},` +
			`"new":{"id":"new","parent":"u","children":[],"message":{"id":"new","author":{"role":"assistant"},"create_time":1772445700,"content":{"content_type":"text","parts":["A consumer is stuck on a poison message."]}}}}}`
	}
	dir := t.TempDir()
	writeExport(t, dir, "conversations.json", "["+conv("c-null", `"current_node":null,`)+","+conv("c-absent", "")+","+
		conv("c-gone", `"current_node":"pruned",`)+"]")
	recs, problems := collect(t, config.Source{Name: "chats", Kind: config.KindChatExport, Path: dir})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.ID+" "+r.Text)
	}
	var want []string
	for _, c := range []string{"c-null", "c-absent", "c-gone"} {
		want = append(want, c+":u Why is the queue lagging?", c+":new A consumer is stuck on a poison message.")
	}
	sameRecords(t, got, want)
}

// TestReadChatExport_citationMarkers: the markers ChatGPT writes into an
// answer for its web and file citations are not read, an entity it links
// keeps the name the user sees, and the text of a cited span stays. The
// shapes are the ones a conversations.json holds
// (daugaard47/ChatGPT_Conversations_To_Markdown issue #8:
// \ue200entity\ue202["people", "name", 0]\ue201 and
// \ue200cite\ue202turn0search3\ue202turn0search8\ue201;
// pionxzh/chatgpt-exporter issue #259: U+E203 and U+E204 around a cited
// span, and the older 【8†source】; CherryHQ/cherry-studio
// ChatgptImporter: \ue200url\ue202label\ue202target\ue201, a link
// whose label the user read).
func TestReadChatExport_citationMarkers(t *testing.T) {
	answer := `The review by \ue200entity\ue202[\"people\", \"Nathaniel L. Erb-Satullo\", 0]\ue201 dates smelted iron to 2000 BCE. ` +
		`\ue200cite\ue202turn0search3\ue202turn0search8\ue201\n\ue203Anatolia has the most robust evidence\ue204 \ue200cite\ue202turn1view0\ue201, ` +
		`as older answers put it 【8†source】【10†source】, and the notes you uploaded agree \ue200filecite\ue202turn0file0\ue202L8-L13\ue201 ` +
		`with \ue200url\ue202the survey\ue202https://example.org/iron\ue201.`
	dir := t.TempDir()
	writeExport(t, dir, "conversations.json", `[{"id":"c-iron","title":"Iron","create_time":1772445600,"current_node":"a","mapping":{`+
		`"u":{"id":"u","parent":null,"children":["a"],"message":{"id":"u","author":{"role":"user"},"create_time":1772445601,"content":{"content_type":"text","parts":["When was iron first smelted?"]}}},`+
		`"a":{"id":"a","parent":"u","children":[],"message":{"id":"a","author":{"role":"assistant"},"create_time":1772445602,"recipient":"all","content":{"content_type":"text","parts":["`+answer+`"]}}}}}]`)
	recs, problems := collect(t, config.Source{Name: "chats", Kind: config.KindChatExport, Path: dir})
	if len(recs) != 2 || len(problems) != 0 {
		t.Fatalf("records %v, problems %v", recs, problems)
	}
	want := "The review by Nathaniel L. Erb-Satullo dates smelted iron to 2000 BCE.\nAnatolia has the most robust evidence, " +
		"as older answers put it, and the notes you uploaded agree with the survey."
	if got := recs[1].Text; got != want {
		t.Errorf("answer\n got %q\nwant %q", got, want)
	}
}

// TestReadChatExport_claudeAITags: a Claude.ai answer of an older export
// holds in its text what the app shows apart or not at all: the model's
// <antThinking> before an artifact is not read, and an artifact keeps
// its title and content without the <antArtifact> tag's attributes. The
// shape is the one public importers of the export handle (meltylabs/chorus
// AnthropicImporter: antThinking, antArtifact with identifier, type,
// language and title), in the text field and in a text block alike.
func TestReadChatExport_claudeAITags(t *testing.T) {
	answer := `<antThinking>A script the user will rerun is a good artifact; new identifier.</antThinking>\nHere is the rotation script.\n\n` +
		`<antArtifact identifier=\"rotate-logs\" type=\"application/vnd.ant.code\" language=\"bash\" title=\"Log rotation script\">\n` +
		`find /var/log/app -mtime +7 -delete\n</antArtifact>\n\nRun it from cron nightly.`
	msg := func(id, sender, fields string) string {
		return `{"uuid":"` + id + `","sender":"` + sender + `","created_at":"2026-03-03T09:00:0` + id[1:] + `Z",` + fields + `}`
	}
	dir := t.TempDir()
	writeExport(t, dir, "conversations.json", `[{"uuid":"c-logs","name":"Logs","created_at":"2026-03-03T09:00:00Z","chat_messages":[`+
		msg("m1", "human", `"text":"How do I rotate the app logs?"`)+","+
		msg("m2", "assistant", `"text":"`+answer+`"`)+","+
		msg("m3", "assistant", `"text":"","content":[{"type":"text","text":"`+answer+`"}]`)+`]}]`)
	recs, problems := collect(t, config.Source{Name: "chats", Kind: config.KindChatExport, Path: dir})
	if len(recs) != 5 || len(problems) != 0 {
		t.Fatalf("records %v, problems %v", recs, problems)
	}
	// The artifact is a record of its own after the answer's words (see
	// TestReadChatExport_claudeAIArtifactTagVersions).
	answer, doc := "Here is the rotation script.\n\nRun it from cron nightly.", "Log rotation script\nfind /var/log/app -mtime +7 -delete"
	for i, want := range []string{"c-logs:m2 " + answer, "c-logs:m2:rotate-logs " + doc, "c-logs:m3 " + answer, "c-logs:m3:rotate-logs " + doc} {
		if got := recs[i+1].ID + " " + recs[i+1].Text; got != want {
			t.Errorf("record %d\n got %q\nwant %q", i+1, got, want)
		}
	}
}

// TestReadChatExport_canvas: a document ChatGPT writes in a canvas is
// the assistant's words, read once as it was created: the assistant's
// call to canmore.create_textdoc holds it as JSON {name, type, content}
// (the canmore tool's schema, as public copies of ChatGPT's system
// prompt show it, and public exporters that read "Canvas artifacts" from
// messages whose recipient is canmore.create_textdoc); the tool's reply
// is not read.
func TestReadChatExport_canvas(t *testing.T) {
	doc := `{\"name\":\"release_notes\",\"type\":\"document\",\"content\":\"# Release 2.4\\n\\nInvoices now export in pages of 500.\"}`
	dir := t.TempDir()
	writeExport(t, dir, "conversations.json", `[{"id":"c-notes","title":"Notes","create_time":1772445600,"current_node":"a2","mapping":{`+
		`"u":{"id":"u","parent":null,"children":["a1"],"message":{"id":"u","author":{"role":"user"},"create_time":1772445601,"content":{"content_type":"text","parts":["Draft the release notes in a canvas."]}}},`+
		`"a1":{"id":"a1","parent":"u","children":["t"],"message":{"id":"a1","author":{"role":"assistant"},"create_time":1772445602,"recipient":"canmore.create_textdoc","content":{"content_type":"code","language":"json","text":"`+doc+`"}}},`+
		`"t":{"id":"t","parent":"a1","children":["a2"],"message":{"id":"t","author":{"role":"tool","name":"canmore.create_textdoc"},"create_time":1772445603,"recipient":"all","content":{"content_type":"text","parts":["Successfully created text document 'Release Notes' which will be referenced in all future messages with the unique identifier textdoc_id: '67f0'"]}}},`+
		`"a2":{"id":"a2","parent":"t","children":[],"message":{"id":"a2","author":{"role":"assistant"},"create_time":1772445604,"recipient":"all","content":{"content_type":"text","parts":["The notes are in the canvas."]}}}}}]`)
	recs, problems := collect(t, config.Source{Name: "chats", Kind: config.KindChatExport, Path: dir})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.ID+" "+r.Role+": "+r.Text)
	}
	want := []string{
		"c-notes:u user: Draft the release notes in a canvas.",
		"c-notes:a1 assistant: release_notes\n# Release 2.4\n\nInvoices now export in pages of 500.",
		"c-notes:a2 assistant: The notes are in the canvas.",
	}
	sameRecords(t, got, want)
}

// TestReadChatExport_claudeAIArtifactTool: in a Claude.ai export whose
// messages have content blocks, an artifact the assistant creates is a
// tool_use block of the artifacts tool, its input {id, type, title,
// command, content} (the shape a public schema of the export notes,
// "Tools Available: artifacts"); its title and content are the
// assistant's words, as they are inline in an older export's text, read
// as a record of their own after the answer's words (an artifact is
// revised apart from them, see TestReadChatExport_claudeAIArtifactVersions),
// and the tool's "OK" is not read.
func TestReadChatExport_claudeAIArtifactTool(t *testing.T) {
	dir := t.TempDir()
	writeExport(t, dir, "conversations.json", `[{"uuid":"c-logs","name":"Logs","created_at":"2026-03-03T09:00:00Z","chat_messages":[`+
		`{"uuid":"m1","sender":"human","created_at":"2026-03-03T09:00:01Z","text":"How do I rotate the app logs?","content":[{"type":"text","text":"How do I rotate the app logs?"}]},`+
		`{"uuid":"m2","sender":"assistant","created_at":"2026-03-03T09:00:02Z","text":"","content":[`+
		`{"type":"text","text":"Here is the rotation script."},`+
		`{"type":"tool_use","name":"artifacts","input":{"id":"rotate-logs","type":"application/vnd.ant.code","title":"Log rotation script","command":"create","content":"find /var/log/app -mtime +7 -delete","version_uuid":"v1"}},`+
		`{"type":"tool_result","name":"artifacts","content":[{"type":"text","text":"OK"}],"is_error":false},`+
		`{"type":"text","text":"Run it from cron nightly."}]}]}]`)
	recs, problems := collect(t, config.Source{Name: "chats", Kind: config.KindChatExport, Path: dir})
	if len(recs) != 3 || len(problems) != 0 {
		t.Fatalf("records %v, problems %v", recs, problems)
	}
	if got, want := recs[1].Text, "Here is the rotation script.\nRun it from cron nightly."; got != want {
		t.Errorf("answer\n got %q\nwant %q", got, want)
	}
	if got, want := recs[2].ID+" "+recs[2].Role+": "+recs[2].Text, "c-logs:m2:rotate-logs assistant: Log rotation script\nfind /var/log/app -mtime +7 -delete"; got != want {
		t.Errorf("artifact\n got %q\nwant %q", got, want)
	}
}

// TestReadChatExport_claudeAIBranches: a Claude.ai export whose messages
// carry parent_message_uuid lists every branch of a conversation (an
// edited prompt, a regenerated answer) in one chat_messages list; only
// the branch the user sees is read: the one that ends at
// current_leaf_message_uuid when the export names it, else at the last
// message listed, as CherryHQ/cherry-studio AnthropicImporter reads it
// (its PR #16164 review: "chat_messages cannot be directly strung
// together as a conversation in array order"). The root's parent is a
// sentinel uuid no message has. A token_budget block (the same importer's
// AnthropicTokenBudgetBlock) is not dialogue and no problem.
func TestReadChatExport_claudeAIBranches(t *testing.T) {
	const root = "00000000-0000-4000-8000-000000000000"
	msg := func(id, parent, sender, text string) string {
		return `{"uuid":"` + id + `","parent_message_uuid":"` + parent + `","sender":"` + sender + `","created_at":"2026-03-03T09:00:0` + id[1:] + `Z",` +
			`"text":"` + text + `","content":[{"type":"text","text":"` + text + `"},{"type":"token_budget"}]}`
	}
	messages := msg("m1", root, "human", "Why is the cache cold after deploys?") + "," +
		msg("m2", "m1", "assistant", "The deploy clears it.") + "," +
		// The answer regenerated, and the conversation going on from it.
		msg("m3", "m1", "assistant", "Each deploy starts new pods with empty caches.") + "," +
		msg("m4", "m3", "human", "How do I warm them?") + "," +
		msg("m5", "m4", "assistant", "Run the warmup job before switching traffic.")
	dir := t.TempDir()
	writeExport(t, dir, "conversations.json", `[`+
		`{"uuid":"c-last","name":"Cache","created_at":"2026-03-03T09:00:00Z","chat_messages":[`+messages+`]},`+
		`{"uuid":"c-leaf","name":"Cache","created_at":"2026-03-03T09:00:00Z","current_leaf_message_uuid":"m2","chat_messages":[`+messages+`]}]`)
	recs, problems := collect(t, config.Source{Name: "chats", Kind: config.KindChatExport, Path: dir})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.ID)
	}
	want := []string{"c-last:m1", "c-last:m3", "c-last:m4", "c-last:m5", "c-leaf:m1", "c-leaf:m2"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("records %v, want %v", got, want)
	}
}

// TestReadChatExport_claudeAIAttachments: what the user pasted or
// uploaded into a Claude.ai prompt is theirs, read with the prompt: a
// message's attachments [{file_name, file_size, file_type,
// extracted_content}] and files (files_v2 in newer exports) [{file_uuid,
// file_name, file_kind}], as public readers of the export list them
// (Sinity/polylogue docs: "attachments / files arrays with file
// metadata"; its importer reads a message's files or files_v2, an image
// being of file_kind image). A pasted file's text is read under its
// name, and a prompt that is only a pasted log gives a record of the
// user's; an uploaded file without extracted text is a placeholder, as
// an image part is; the log's secret is redacted.
func TestReadChatExport_claudeAIAttachments(t *testing.T) {
	dir := t.TempDir()
	writeExport(t, dir, "conversations.json", `[{"uuid":"c-logs","name":"Worker crash","created_at":"2026-03-03T09:00:00Z","chat_messages":[`+
		`{"uuid":"m1","sender":"human","created_at":"2026-03-03T09:00:01Z","text":"","content":[{"type":"text","text":""}],`+
		`"attachments":[{"file_name":"worker.log","file_size":120,"file_type":"text/plain","extracted_content":"panic: nil map write in ledger.Apply\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}],"files":[]},`+
		`{"uuid":"m2","sender":"assistant","created_at":"2026-03-03T09:00:02Z","text":"The ledger map is never initialised.","content":[{"type":"text","text":"The ledger map is never initialised."}]},`+
		`{"uuid":"m3","sender":"human","created_at":"2026-03-03T09:00:03Z","text":"Here is the spec and the screenshot.","content":[{"type":"text","text":"Here is the spec and the screenshot."}],`+
		`"attachments":[{"file_name":"ledger-spec.md","file_type":"text/markdown","extracted_content":"# Ledger\nEntries are applied in order of their sequence number."}],`+
		`"files_v2":[{"file_uuid":"f1","file_name":"screen.png","file_kind":"image"},{"file_uuid":"f2","file_name":"contract.pdf","file_kind":"document"}]},`+
		`{"uuid":"m4","sender":"human","created_at":"2026-03-03T09:00:04Z","text":"","content":[],"files":[{"file_uuid":"f3","file_name":"only.png","file_kind":"image"}]}]}]`)
	recs, problems := collect(t, config.Source{Name: "chats", Kind: config.KindChatExport, Path: dir})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.ID+" "+r.Role+": "+r.Text)
	}
	want := []string{
		"c-logs:m1 user: worker.log\npanic: nil map write in ledger.Apply\nAWS_SECRET_ACCESS_KEY=[redacted]",
		"c-logs:m2 assistant: The ledger map is never initialised.",
		"c-logs:m3 user: Here is the spec and the screenshot.\nledger-spec.md\n# Ledger\nEntries are applied in order of their sequence number.\n[image]\n[document]",
	}
	sameRecords(t, got, want)
}

// TestReadChatExport_canvasUpdates: a canvas document ChatGPT revises is
// read at each version, the one the user ends with included: the
// assistant's call to canmore.update_textdoc holds {updates: [{pattern,
// multiple, replacement}]} (the canmore tool's schema, as public copies
// of ChatGPT's system prompt show it: LouisShark/chatgpt_system_prompt
// prompts/official-product/openai/gpt40_with_canvas.md; "pattern" is a
// Python regular expression, ".*" rewriting the whole document, and
// "replacement" is expanded as re.Match.expand does), applied to the
// document the conversation last wrote. Every version has the subject of
// the document, so that the newest supersedes the others; an answer has
// none. An update whose pattern is not in the document is not a version
// (what it changed is not known).
func TestReadChatExport_canvasUpdates(t *testing.T) {
	call := func(id, parent, child, recipient string, at int, body string) string {
		return `"` + id + `":{"id":"` + id + `","parent":"` + parent + `","children":["` + child + `"],"message":{"id":"` + id + `","author":{"role":"assistant"},` +
			`"create_time":` + strconv.Itoa(at) + `,"recipient":"` + recipient + `","content":{"content_type":"code","language":"json","text":"` + body + `"}}},`
	}
	reply := func(id, parent, child string, at int) string {
		return `"` + id + `":{"id":"` + id + `","parent":"` + parent + `","children":["` + child + `"],"message":{"id":"` + id + `","author":{"role":"tool","name":"canmore.update_textdoc"},` +
			`"create_time":` + strconv.Itoa(at) + `,"recipient":"all","content":{"content_type":"text","parts":["Successfully updated text document with textdoc_id '67f0'"]}}},`
	}
	dir := t.TempDir()
	writeExport(t, dir, "conversations.json", `[{"id":"c-notes","title":"Notes","create_time":1772445600,"current_node":"a9","mapping":{`+
		`"u":{"id":"u","parent":null,"children":["a1"],"message":{"id":"u","author":{"role":"user"},"create_time":1772445601,"content":{"content_type":"text","parts":["Draft the release notes in a canvas."]}}},`+
		call("a1", "u", "t1", "canmore.create_textdoc", 1772445602, `{\"name\":\"release_notes\",\"type\":\"document\",\"content\":\"# Release 2.4\\n\\nInvoices export in pages of 500.\"}`)+
		reply("t1", "a1", "a2", 1772445603)+
		// A whole rewrite.
		call("a2", "t1", "t2", "canmore.update_textdoc", 1772445610, `{\"updates\":[{\"pattern\":\".*\",\"multiple\":false,\"replacement\":\"# Release 2.5\\n\\nInvoices export in pages of 500.\\nRefunds are faster.\"}]}`)+
		reply("t2", "a2", "a3", 1772445611)+
		// A change in place, a group kept.
		call("a3", "t2", "t3", "canmore.update_textdoc", 1772445620, `{\"updates\":[{\"pattern\":\"pages of (\\\\d+)\",\"multiple\":true,\"replacement\":\"batches of \\\\1\"}]}`)+
		reply("t3", "a3", "a4", 1772445621)+
		// A pattern that is not in the document.
		call("a4", "t3", "a9", "canmore.update_textdoc", 1772445630, `{\"updates\":[{\"pattern\":\"Chargebacks\",\"multiple\":false,\"replacement\":\"Disputes\"}]}`)+
		`"a9":{"id":"a9","parent":"a4","children":[],"message":{"id":"a9","author":{"role":"assistant"},"create_time":1772445640,"recipient":"all","content":{"content_type":"text","parts":["The notes say batches now."]}}}}}]`)
	recs, problems := collect(t, config.Source{Name: "chats", Kind: config.KindChatExport, Path: dir})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var got []string
	subjects := map[string]string{}
	for _, r := range recs {
		got = append(got, r.ID+" "+r.Role+": "+r.Text)
		subjects[r.ID] = r.Subject
	}
	want := []string{
		"c-notes:u user: Draft the release notes in a canvas.",
		"c-notes:a1 assistant: release_notes\n# Release 2.4\n\nInvoices export in pages of 500.",
		"c-notes:a2 assistant: release_notes\n# Release 2.5\n\nInvoices export in pages of 500.\nRefunds are faster.",
		"c-notes:a3 assistant: release_notes\n# Release 2.5\n\nInvoices export in batches of 500.\nRefunds are faster.",
		"c-notes:a9 assistant: The notes say batches now.",
	}
	sameRecords(t, got, want)
	if s := subjects["c-notes:a1"]; s == "" || subjects["c-notes:a2"] != s || subjects["c-notes:a3"] != s {
		t.Errorf("the versions' subjects %q, want one subject", subjects)
	}
	if subjects["c-notes:u"] != "" || subjects["c-notes:a9"] != "" {
		t.Errorf("turns that are not the document have subjects %q", subjects)
	}
}

// TestReadChatExport_claudeAIArtifactVersions: an artifact a Claude.ai
// answer revises is read at each version, the final one included, as a
// record of its own beside the answer's words: the artifacts tool's
// input is {id, type, title, command, content} to create or rewrite
// one, {id, command: update, old_str, new_str} to change it in place
// (the commands public exports show: "command": "rewrite" with id,
// title and content in a tool_use block of the artifacts tool, as
// exported conversations published on GitHub hold it). Every version of
// an artifact has its subject, so that the newest supersedes the others;
// another artifact has another. An update whose old_str is not in the
// artifact is not a version.
func TestReadChatExport_claudeAIArtifactVersions(t *testing.T) {
	tool := func(input string) string {
		return `{"type":"tool_use","name":"artifacts","input":` + input + `},{"type":"tool_result","name":"artifacts","content":[{"type":"text","text":"OK"}]}`
	}
	msg := func(id, sender, blocks string) string {
		return `{"uuid":"` + id + `","sender":"` + sender + `","created_at":"2026-03-03T09:00:0` + id[1:] + `Z","text":"","content":[` + blocks + `]}`
	}
	text := func(s string) string { return `{"type":"text","text":"` + s + `"}` }
	dir := t.TempDir()
	writeExport(t, dir, "conversations.json", `[{"uuid":"c-logs","name":"Logs","created_at":"2026-03-03T09:00:00Z","chat_messages":[`+
		msg("m1", "human", text("How do I rotate the app logs?"))+","+
		msg("m2", "assistant", text("Here is the rotation script and a note.")+","+
			tool(`{"id":"rotate-logs","type":"application/vnd.ant.code","title":"Log rotation script","command":"create","content":"find /var/log/app -mtime +7 -delete","version_uuid":"v1"}`)+","+
			tool(`{"id":"ops-note","type":"text/markdown","title":"Ops note","command":"create","content":"Rotation runs nightly.","version_uuid":"v2"}`))+","+
		msg("m3", "human", text("Keep two weeks, and gzip first."))+","+
		msg("m4", "assistant", text("Changed.")+","+
			tool(`{"id":"rotate-logs","command":"update","old_str":"-mtime +7","new_str":"-mtime +14","version_uuid":"v3"}`)+","+
			tool(`{"id":"rotate-logs","command":"update","old_str":"find","new_str":"gzip -r /var/log/app\nfind","version_uuid":"v4"}`))+","+
		msg("m5", "assistant", tool(`{"id":"rotate-logs","command":"rewrite","title":"Log rotation","content":"logrotate /etc/logrotate.d/app","version_uuid":"v5"}`)+","+
			tool(`{"id":"rotate-logs","command":"update","old_str":"not there","new_str":"x","version_uuid":"v6"}`))+`]}]`)
	recs, problems := collect(t, config.Source{Name: "chats", Kind: config.KindChatExport, Path: dir})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var got []string
	subjects := map[string]string{}
	for _, r := range recs {
		got = append(got, r.ID+" "+r.Role+": "+r.Text)
		subjects[r.ID] = r.Subject
	}
	want := []string{
		"c-logs:m1 user: How do I rotate the app logs?",
		"c-logs:m2 assistant: Here is the rotation script and a note.",
		"c-logs:m2:rotate-logs assistant: Log rotation script\nfind /var/log/app -mtime +7 -delete",
		"c-logs:m2:ops-note assistant: Ops note\nRotation runs nightly.",
		"c-logs:m3 user: Keep two weeks, and gzip first.",
		"c-logs:m4 assistant: Changed.",
		"c-logs:m4:rotate-logs assistant: Log rotation script\ngzip -r /var/log/app\nfind /var/log/app -mtime +14 -delete",
		"c-logs:m5:rotate-logs assistant: Log rotation\nlogrotate /etc/logrotate.d/app",
	}
	sameRecords(t, got, want)
	s := subjects["c-logs:m2:rotate-logs"]
	if s == "" || subjects["c-logs:m4:rotate-logs"] != s || subjects["c-logs:m5:rotate-logs"] != s {
		t.Errorf("the script's versions have subjects %q, want one", subjects)
	}
	if o := subjects["c-logs:m2:ops-note"]; o == "" || o == s {
		t.Errorf("the note's subject %q, the script's %q: want another", o, s)
	}
	for _, id := range []string{"c-logs:m1", "c-logs:m2", "c-logs:m4"} {
		if subjects[id] != "" {
			t.Errorf("%s has subject %q", id, subjects[id])
		}
	}
}

// TestReadChatExport_claudeAIProjects: the projects a Claude.ai user
// made are their own words and read: an export's projects.json (a list;
// newer exports write projects/<uuid>.json, one project a file) holds
// each project's {uuid, name, description, is_private,
// is_starter_project, prompt_template, created_at, updated_at, creator,
// docs: [{uuid, filename, content, created_at}]} (public readers of the
// export list these fields, and skip is_starter_project, the example
// project Claude.ai makes for every account). The instructions
// (description and prompt_template) are one record of the user's,
// titled with the project, and each doc is one under its file name.
func TestReadChatExport_claudeAIProjects(t *testing.T) {
	project := func(uuid, name string, starter bool, prompt, docs string) string {
		return `{"uuid":"` + uuid + `","name":"` + name + `","description":"Billing service work","is_private":true,"is_starter_project":` + strconv.FormatBool(starter) +
			`,"prompt_template":"` + prompt + `","created_at":"2026-02-01T09:00:00Z","updated_at":"2026-02-03T09:00:00Z","creator":{"uuid":"u1","full_name":"A"},"docs":[` + docs + `]}`
	}
	doc := func(uuid, name, content string) string {
		return `{"uuid":"` + uuid + `","filename":"` + name + `","content":"` + content + `","created_at":"2026-02-02T09:00:00Z"}`
	}
	dir := t.TempDir()
	writeExport(t, dir, "claude/projects.json", `[`+
		project("p-bill", "Billing", false, "Answer as a billing engineer; invoices are in cents.", doc("d1", "ledger-spec.md", "# Ledger\\nEntries apply in sequence order."))+","+
		project("p-start", "How to use Claude", true, "An example project.", doc("d2", "intro.md", "Welcome to projects."))+`]`)
	writeExport(t, dir, "claude-new/projects/p-ops.json", project("p-ops", "Ops", false, "", doc("d3", "oncall.md", "Page the secondary after 15 minutes.")))
	recs, problems := collect(t, config.Source{Name: "chats", Kind: config.KindChatExport, Path: dir})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.ID+" "+r.Agent+" "+r.Role+" "+r.Title+" "+r.Date+": "+r.Text)
	}
	want := []string{ // claude-new/ is walked before claude/
		"project:p-ops claude.ai user Ops 2026-02-03: Billing service work",
		"project:p-ops:d3 claude.ai user Ops 2026-02-02: oncall.md\nPage the secondary after 15 minutes.",
		"project:p-bill claude.ai user Billing 2026-02-03: Billing service work\nAnswer as a billing engineer; invoices are in cents.",
		"project:p-bill:d1 claude.ai user Billing 2026-02-02: ledger-spec.md\n# Ledger\nEntries apply in sequence order.",
	}
	sameRecords(t, got, want)
}

// TestReadChatExport_claudeAIArtifactTagVersions: an older Claude.ai
// export writes an artifact into the answer's text, whole, at each
// version, under the same identifier (meltylabs/chorus
// AnthropicImporter reads <antArtifact identifier=… title=…>): each
// version is a record of its own after the answer's words, all of one
// subject, as the artifacts tool's are, so that the newest supersedes
// the others.
func TestReadChatExport_claudeAIArtifactTagVersions(t *testing.T) {
	artifact := func(content string) string {
		return `<antArtifact identifier=\"rotate-logs\" type=\"application/vnd.ant.code\" language=\"bash\" title=\"Log rotation script\">\n` + content + `\n</antArtifact>`
	}
	dir := t.TempDir()
	writeExport(t, dir, "conversations.json", `[{"uuid":"c-logs","name":"Logs","created_at":"2026-03-03T09:00:00Z","chat_messages":[`+
		`{"uuid":"m1","sender":"assistant","created_at":"2026-03-03T09:00:01Z","text":"Here it is.\n\n`+artifact("find /var/log/app -mtime +7 -delete")+`\n\nRun it nightly."},`+
		`{"uuid":"m2","sender":"assistant","created_at":"2026-03-03T09:00:02Z","text":"`+artifact("find /var/log/app -mtime +14 -delete")+`"},`+
		// Without an identifier, nothing names its versions: it stays
		// in the answer.
		`{"uuid":"m3","sender":"assistant","created_at":"2026-03-03T09:00:03Z","text":"See:\n<antArtifact title=\"Cron line\">\n0 3 * * * rotate\n</antArtifact>"}]}]`)
	recs, problems := collect(t, config.Source{Name: "chats", Kind: config.KindChatExport, Path: dir})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var got []string
	subjects := map[string]string{}
	for _, r := range recs {
		got = append(got, r.ID+": "+r.Text)
		subjects[r.ID] = r.Subject
	}
	want := []string{
		"c-logs:m1: Here it is.\n\nRun it nightly.",
		"c-logs:m1:rotate-logs: Log rotation script\nfind /var/log/app -mtime +7 -delete",
		"c-logs:m2:rotate-logs: Log rotation script\nfind /var/log/app -mtime +14 -delete",
		"c-logs:m3: See:\nCron line\n0 3 * * * rotate",
	}
	sameRecords(t, got, want)
	if s := subjects["c-logs:m1:rotate-logs"]; s == "" || subjects["c-logs:m2:rotate-logs"] != s || subjects["c-logs:m1"] != "" {
		t.Errorf("subjects %q", subjects)
	}
}

// TestReadChatExport_claudeAIMemories: a Claude.ai export's memories.json
// is the memory Claude.ai keeps of the user, [{conversations_memory,
// project_memories: {project uuid: text}, account_uuid}] (the shape
// public readers of the export take, e.g. a runbook that calls it
// "biographical free-text" plus "per-project rich memory", and test
// exports written as [{"conversations_memory": "...", "project_memories":
// {pid: "..."}, "account_uuid": ...}]), Markdown in sections
// ("**Work context**"). It is read as the agent's memory notes are (a
// Hermes home's, Claude Code's auto memory): notes of agent claude.ai,
// the account's memory and each project's, dated by the file (it holds no
// time), each of a subject that a later export's memory supersedes; an
// empty memory is no record, and a file of another shape is reported.
func TestReadChatExport_claudeAIMemories(t *testing.T) {
	dir := t.TempDir()
	mem := writeExport(t, dir, "data-2026-11-02/memories.json", `[{"conversations_memory":"**Work context**\n\nAna runs the billing service; invoices are in cents.\n\n**Personal context**\n\nWorks from Lisbon, in UTC.",`+
		`"project_memories":{"p-bill":"Ledger entries apply in sequence order.","p-empty":"  "},"account_uuid":"acct-1"}]`)
	other := writeExport(t, dir, "data-2026-11-02/memories (1).json", `{"memories":"elsewhere"}`)
	writeExport(t, dir, "data-2026-12-01/memories.json", `[{"conversations_memory":"**Work context**\n\nAna runs billing and payouts.","project_memories":{},"account_uuid":"acct-1"}]`)
	stamp := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	novatest.Must(t, os.Chtimes(mem, stamp, stamp))
	recs, problems := collect(t, config.Source{Name: "chats", Kind: config.KindChatExport, Path: dir})
	if len(problems) != 1 || problems[0].Path != other || !strings.Contains(problems[0].Reason, "not a Claude.ai export's memories") {
		t.Errorf("problems %v, want one for %s", problems, other)
	}
	var got []string
	subjects := map[string][]string{}
	for _, r := range recs {
		if r.Layer != "note" || r.SourceSet != "notes" || r.Kind != config.KindChatExport || r.Role != "" {
			t.Errorf("%s: layer %q source set %q kind %q role %q", r.ID, r.Layer, r.SourceSet, r.Kind, r.Role)
		}
		got = append(got, filepath.Base(filepath.Dir(r.Path))+" "+r.ID+" "+r.Agent+" "+r.Title+": "+r.Text)
		subjects[r.Subject] = append(subjects[r.Subject], r.ID)
	}
	want := []string{
		"data-2026-11-02 memory:acct-1 claude.ai Claude.ai memory: **Work context**\n\nAna runs the billing service; invoices are in cents.\n\n**Personal context**\n\nWorks from Lisbon, in UTC.",
		"data-2026-11-02 memory:acct-1:p-bill claude.ai Claude.ai project memory: Ledger entries apply in sequence order.",
		"data-2026-12-01 memory:acct-1 claude.ai Claude.ai memory: **Work context**\n\nAna runs billing and payouts.",
	}
	sameRecords(t, got, want)
	if len(subjects) != 2 {
		t.Errorf("subjects %v, want the account's memory (both exports) and the project's", subjects)
	}
	for _, r := range recs {
		if filepath.Base(filepath.Dir(r.Path)) == "data-2026-11-02" && r.Date != "2026-11-02" {
			t.Errorf("%s dated %q, want the file's 2026-11-02", r.ID, r.Date)
		}
	}
}

// TestReadChatExport_claudeAIVoiceNote: a prompt spoken in Claude.ai's
// voice mode is a content block {"type": "voice_note", "transcript"} (a
// public reader of the export, a ClaudeAdapter's tests, reads its
// transcript as the message's words): the transcript is the user's
// prompt, not an unknown block, and a message of it alone is read.
func TestReadChatExport_claudeAIVoiceNote(t *testing.T) {
	dir := t.TempDir()
	writeExport(t, dir, "conversations.json", `[{"uuid":"c-voice","name":"Fees","created_at":"2026-10-03T09:00:00Z","chat_messages":[`+
		`{"uuid":"m1","sender":"human","created_at":"2026-10-03T09:00:01Z","text":"","content":[{"type":"voice_note","transcript":"Book the two card fees in March."}]},`+
		`{"uuid":"m2","sender":"assistant","created_at":"2026-10-03T09:00:02Z","text":"","content":[{"type":"text","text":"Both are booked on March 31."}]}]}]`)
	recs, problems := collect(t, config.Source{Name: "chats", Kind: config.KindChatExport, Path: dir})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.ID+" "+r.Role+": "+r.Text)
	}
	sameRecords(t, got, []string{"c-voice:m1 user: Book the two card fees in March.", "c-voice:m2 assistant: Both are booked on March 31."})
}

// TestReadChatExport_claudeAIProjectMemoryTitle: a project's memory in
// memories.json names its project by uuid only; the export's projects
// (projects.json beside it, or projects/<uuid>.json in newer exports)
// give the project's name, which titles the memory as the project's own
// records are titled. A project the export does not hold, or one without
// a name, leaves the plain title; a projects file that cannot be read
// changes nothing but the titles.
func TestReadChatExport_claudeAIProjectMemoryTitle(t *testing.T) {
	dir := t.TempDir()
	writeExport(t, dir, "data-2026-11-02/memories.json", `[{"conversations_memory":"","project_memories":{"p-bill":"Ledger entries apply in sequence order.","p-gone":"Asked for weekly digests."},"account_uuid":"acct-1"}]`)
	writeExport(t, dir, "data-2026-11-02/projects.json", `[{"uuid":"p-bill","name":"Billing","description":"","is_private":true,"is_starter_project":false,"prompt_template":"","created_at":"2026-02-01T09:00:00Z","updated_at":"2026-02-03T09:00:00Z","docs":[{"uuid":"d1","filename":"ledger-spec.md","content":"# Ledger","created_at":"2026-02-02T09:00:00Z"}]}]`)
	writeExport(t, dir, "data-2026-12-01/memories.json", `[{"conversations_memory":"","project_memories":{"p-ops":"Pages go to the secondary after 15 minutes.","p-anon":"Keeps runbooks short."},"account_uuid":"acct-1"}]`)
	writeExport(t, dir, "data-2026-12-01/projects/p-ops.json", `{"uuid":"p-ops","name":"Ops on-call","description":"","is_starter_project":false,"prompt_template":"","created_at":"2026-02-01T09:00:00Z","updated_at":"2026-02-03T09:00:00Z","docs":[]}`)
	writeExport(t, dir, "data-2026-12-01/projects/p-anon.json", `{"uuid":"p-anon","name":" ","is_starter_project":false,"docs":[]}`)
	recs, problems := collect(t, config.Source{Name: "chats", Kind: config.KindChatExport, Path: dir})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var got []string
	for _, r := range recs {
		if r.Layer == "note" {
			got = append(got, r.ID+" "+r.Title+": "+r.Text)
		}
	}
	want := []string{
		"memory:acct-1:p-bill Claude.ai project memory: Billing: Ledger entries apply in sequence order.",
		"memory:acct-1:p-gone Claude.ai project memory: Asked for weekly digests.",
		"memory:acct-1:p-anon Claude.ai project memory: Keeps runbooks short.",
		"memory:acct-1:p-ops Claude.ai project memory: Ops on-call: Pages go to the secondary after 15 minutes.",
	}
	sameRecords(t, got, want)
}
