package ingest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/nova-recall/nova/config"
)

const openclawSession = "7d1e0c9a-2100-4000-8000-000000000001"

// TestReadOpenClaw_records: the example lines of an OpenClaw session are
// dialogue records of agent openclaw, of the agent id's project, keyed by
// the session id and line.
func TestReadOpenClaw_records(t *testing.T) {
	recs, problems := collect(t, config.Source{Name: "oc", Kind: config.KindOpenClaw, Path: driftRoot + "/openclaw/example-lines"})
	checkRecords(t, config.KindOpenClaw, recs, []wantRecord{
		{ID: openclawSession + ":2", Role: "user", Text: "What did we decide about invoice rounding?", Project: "main",
			Session: openclawSession, Conversation: "openclaw:" + openclawSession, Time: "2026-03-02T08:00:05Z", Line: 2},
		{ID: openclawSession + ":5", Role: "assistant", Text: "We decided on banker's rounding (ROUND_HALF_EVEN), applied once per invoice total.\n[tool: memory_search invoice rounding]",
			Project: "main", Session: openclawSession, Conversation: "openclaw:" + openclawSession, Time: "2026-03-02T08:00:10Z", Line: 5},
	})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	for _, r := range recs {
		if r.SourceSet != "" {
			t.Errorf("record %s: source set %q, want the source's (agent-transcripts)", r.ID, r.SourceSet)
		}
	}
	if got := DefaultSourceSet(config.KindOpenClaw); got != "agent-transcripts" {
		t.Errorf("DefaultSourceSet(openclaw) = %q", got)
	}
}

// TestReadOpenClaw_notes: the workspace's Markdown memory is read by the
// Markdown reader, as notes of agent openclaw dated by their file name
// (the curated MEMORY.md and DREAMS.md by their modification time).
func TestReadOpenClaw_notes(t *testing.T) {
	root := t.TempDir()
	mtime := time.Date(2026, 2, 20, 12, 0, 0, 0, time.UTC)
	for rel, body := range map[string]string{
		"workspace/MEMORY.md":                   "# Preferences\n\nShort answers, in English.\n",
		"workspace/DREAMS.md":                   "The deploy freeze and the cert renewal both fall on Thursdays.\n",
		"workspace/memory/2026-03-02.md":        "Renewed the staging certificate.\n",
		"workspace/memory/2026-03-03-vendor.md": "---\nagent: someone-else\n---\nThe vendor call moved to Monday.\n",
		"workspace/AGENTS.md":                   "Instructions, not memory.\n",
		"workspace/notes/todo.md":               "Not memory either.\n",
		"memory/notes.md":                       "The builtin index's folder.\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	recs, problems := collect(t, config.Source{Name: "oc", Kind: config.KindOpenClaw, Path: root})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var got []string
	for _, r := range recs {
		got = append(got, strings.Join([]string{r.ID, r.Agent, r.Kind, r.Layer, r.SourceSet, r.Date, r.Text}, "|"))
		if LineBased(config.KindOpenClaw, r.Path) {
			t.Errorf("%s is read as a transcript", r.Path)
		}
	}
	want := []string{
		"workspace/DREAMS.md#top|openclaw|markdown|note|notes|2026-02-20|The deploy freeze and the cert renewal both fall on Thursdays.",
		"workspace/MEMORY.md#preferences|openclaw|markdown|note|notes|2026-02-20|Short answers, in English.",
		"workspace/memory/2026-03-02.md#top|openclaw|markdown|note|notes|2026-03-02|Renewed the staging certificate.",
		"workspace/memory/2026-03-03-vendor.md#top|someone-else|markdown|note|notes|2026-03-03|The vendor call moved to Monday.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestReadOpenClaw_notesTakeTheSourceSet: a sourceSet configured on the
// source is the notes' too, as it is the sessions' (a note's front matter
// still wins); without one the notes are notes.
func TestReadOpenClaw_notesTakeTheSourceSet(t *testing.T) {
	root := t.TempDir()
	for rel, body := range map[string]string{
		"workspace/memory/2026-03-02.md":        "Renewed the staging certificate.\n",
		"workspace/memory/2026-03-03-vendor.md": "---\nsourceSet: lessons\n---\nThe vendor call moved to Monday.\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for set, want := range map[string][]string{
		"claw-log": {"workspace/memory/2026-03-02.md#top claw-log", "workspace/memory/2026-03-03-vendor.md#top lessons"},
		"":         {"workspace/memory/2026-03-02.md#top notes", "workspace/memory/2026-03-03-vendor.md#top lessons"},
	} {
		recs, problems := collect(t, config.Source{Name: "oc", Kind: config.KindOpenClaw, Path: root, SourceSet: set})
		var got []string
		for _, r := range recs {
			got = append(got, r.ID+" "+r.SourceSet)
		}
		if len(problems) != 0 || !slices.Equal(got, want) {
			t.Errorf("sourceSet %q: %v (problems %v), want %v", set, got, problems, want)
		}
	}
}

// TestReadOpenClaw_archivedKeepsIDs: a session archived by /reset (x.jsonl
// renamed x.jsonl.reset.<ts>) gives the records it gave under its first
// name, ids included, so that nothing is indexed twice.
func TestReadOpenClaw_archivedKeepsIDs(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(driftRoot, "openclaw", "example-lines", "agents", "main", "sessions", openclawSession+".jsonl")
	body, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(dir, openclawSession+".jsonl")
	if err := os.WriteFile(live, body, 0o600); err != nil {
		t.Fatal(err)
	}
	source := config.Source{Name: "oc", Kind: config.KindOpenClaw, Path: root}
	before, _ := collect(t, source)
	if err := os.Rename(live, live+".reset.2026-03-02T09-00-00.000Z"); err != nil {
		t.Fatal(err)
	}
	after, _ := collect(t, source)
	if len(before) != 2 || len(after) != len(before) {
		t.Fatalf("%d records before the reset, %d after", len(before), len(after))
	}
	for i := range before {
		if after[i].ID != before[i].ID || after[i].Conversation != before[i].Conversation || after[i].Text != before[i].Text {
			t.Errorf("record %d: %s %q before, %s %q after", i, before[i].ID, before[i].Conversation, after[i].ID, after[i].Conversation)
		}
	}
	// A session without a header is named by its file's stem, archived or not.
	for _, name := range []string{"abc.jsonl", "abc.jsonl.deleted.2026-03-02T09-00-00.000Z"} {
		if got := openclawStem(name); got != "abc" {
			t.Errorf("openclawStem(%q) = %q", name, got)
		}
	}
}

// TestReadOpenClaw_appended: a session is read on from its cursor as
// OpenClaw appends to it: a torn last line waits, and the tool call read
// before the cursor is summarized on the answer read after it.
func TestReadOpenClaw_appended(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "agents", "main", "sessions", "s1.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	head := `{"type":"session","version":3,"id":"s1","timestamp":"2026-03-02T08:00:00.000Z","cwd":"/home/dev/.openclaw/workspace"}` + "\n" +
		`{"type":"message","id":"a1","timestamp":"2026-03-02T08:00:05.000Z","message":{"role":"user","content":[{"type":"text","text":"Which disk is full?"}]}}` + "\n" +
		`{"type":"message","id":"a2","timestamp":"2026-03-02T08:00:06.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"exec","arguments":{"command":"df -h"}}]}}` + "\n"
	answer := `{"type":"message","id":"a3","timestamp":"2026-03-02T08:00:09.000Z","message":{"role":"assistant","content":[{"type":"text","text":"/var is at 97%."}]}}` + "\n"
	src := config.Source{Name: "oc", Kind: config.KindOpenClaw, Path: root}
	if !LineBased(src.Kind, path) || !appendOnly(src.Kind) {
		t.Fatal("an OpenClaw session is not read on from a cursor")
	}
	if err := os.WriteFile(path, []byte(head+answer[:40]), 0o600); err != nil {
		t.Fatal(err)
	}
	var res readResult
	readFrom(t, src, path, "agents/main/sessions/s1.jsonl", Cursor{}, &res)
	if len(res.records) != 1 || res.cursor.Line != 3 || len(res.problems) != 0 {
		t.Fatalf("first read: %d records, cursor %+v, problems %v", len(res.records), res.cursor, res.problems)
	}
	if err := os.WriteFile(path, []byte(head+answer), 0o600); err != nil {
		t.Fatal(err)
	}
	readFrom(t, src, path, "agents/main/sessions/s1.jsonl", storedCursor(t, res.cursor), &res)
	if len(res.records) != 2 {
		t.Fatalf("after the line was completed: %d records", len(res.records))
	}
	if r := res.records[1]; r.ID != "s1:4" || r.Text != "/var is at 97%.\n[tool: exec df -h]" {
		t.Errorf("the answer read on: %s %q", r.ID, r.Text)
	}
}

// TestReadOpenClaw_deliveryMirror: the assistant messages OpenClaw writes
// itself, model "delivery-mirror" (provider openclaw, usage all zero),
// to record what it delivered to a channel are not read again when they
// repeat one of the latest replies: a channel's final reply mirrored
// after the reply (openclaw/openclaw #87994, #126090), the replies of a
// split turn mirrored again one after the other when a queued message
// wakes the agent (#64152), a mirror appended twice (#44109). A mirror of
// what the message tool sent (openclawDeliveryMirror kind
// "message-tool-source-reply", openclaw/openclaw's gateway chat.history
// tests) repeats no reply, and is the only place that text is a text, so
// it is read. The shape is OpenClaw's transcript writer's
// createAssistantMirrorMessage. Each repeated reply was indexed twice or
// three times.
func TestReadOpenClaw_deliveryMirror(t *testing.T) {
	const session = "5e1f0a77-2100-4000-8000-000000000051"
	recs, problems := collect(t, config.Source{Name: "oc", Kind: config.KindOpenClaw, Path: driftRoot + "/openclaw/delivery-mirror"})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var lines []int
	for _, r := range recs {
		if r.Role == "assistant" {
			lines = append(lines, r.Line)
		}
	}
	// Line 9 is the message tool's delivery; 4, 15, 16 and 17 mirror the
	// replies of lines 3, 12 and 14.
	if want := []int{3, 9, 12, 14}; !slices.Equal(lines, want) {
		t.Errorf("assistant records at lines %v, want %v", lines, want)
	}
	for _, r := range recs {
		if r.Line == 9 && r.Text != "Reminder: order the cable tray before Friday.\n[tool: message]" {
			t.Errorf("the message tool's delivery: %q", r.Text)
		}
		if r.SessionID != session {
			t.Errorf("record %s: session %q", r.ID, r.SessionID)
		}
	}
}

// TestReadOpenClaw_cliBackendCopies: when a CLI backend (claude-cli) runs
// a turn, OpenClaw writes the run's final text as an assistant message of
// api "cli" (its persistTextTurnTranscript, idempotencyKey
// cli-assistant:<run>). Where the backend's own messages are in the
// session too, that message repeats them: every text of the turn joined
// by a blank line (openclaw/openclaw #143106), or the reply just read
// (#83427); both were indexed again. A final text the session holds
// nowhere else is the only record of the reply, and is read.
func TestReadOpenClaw_cliBackendCopies(t *testing.T) {
	recs, problems := collect(t, config.Source{Name: "oc", Kind: config.KindOpenClaw, Path: driftRoot + "/openclaw/cli-backend-turns"})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var lines []int
	for _, r := range recs {
		if r.Role == "assistant" {
			lines = append(lines, r.Line)
		}
	}
	// Line 7 joins lines 4 and 6, line 12 repeats line 11; line 9 is
	// the only copy of its reply.
	if want := []int{4, 6, 9, 11}; !slices.Equal(lines, want) {
		t.Errorf("assistant records at lines %v, want %v", lines, want)
	}
}

// TestJoinsReplies: a text is the turn's replies joined when it cuts at
// blank lines into exactly those replies, in order; a blank line inside
// one reply is not a cut.
func TestJoinsReplies(t *testing.T) {
	d := func(ss ...string) []uint64 {
		var out []uint64
		for _, s := range ss {
			out = append(out, xxh3.HashString(s))
		}
		return out
	}
	for _, c := range []struct {
		name string
		text string
		turn []uint64
		want bool
	}{
		{"two", "a\n\nb", d("a", "b"), true},
		{"three", "a\n\nb\n\nc", d("a", "b", "c"), true},
		{"blank line inside a reply", "a\n\nx\n\ny\n\nb", d("a", "x\n\ny", "b"), true},
		{"a third newline", "a\n\n\nb", d("a", "\nb"), true},
		{"one reply is a repeat, not a join", "a", d("a"), false},
		{"order", "b\n\na", d("a", "b"), false},
		{"a reply left out", "a\n\nb", d("a", "b", "c"), false},
		{"more than the replies", "a\n\nb\n\nc", d("a", "b"), false},
		{"another separator", "a\nb", d("a", "b"), false},
		{"empty", "", d("", ""), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := joinsReplies(c.text, c.turn); got != c.want {
				t.Errorf("joinsReplies(%q) = %v, want %v", c.text, got, c.want)
			}
		})
	}
}

// TestReadOpenClaw_systemEvents: the runtime events OpenClaw put before a
// prompt ("System: [<time>] ..." lines, "System (untrusted): ..." in
// later builds, until openclaw/openclaw PR #72761) are not the person's
// words, and the prompt OpenClaw sends by itself when a background
// command ends ("An async command you ran earlier has completed. ...",
// with the command's output in the event lines before it; the shape of
// #56489 and #70373 and of the transcripts users pasted in them) starts
// a turn of automation, as a heartbeat poll does. Each was indexed as
// the user's prompt, command output and all.
func TestReadOpenClaw_systemEvents(t *testing.T) {
	recs, problems := collect(t, config.Source{Name: "oc", Kind: config.KindOpenClaw, Path: driftRoot + "/openclaw/system-events"})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Role+": "+r.Text)
	}
	want := []string{
		"user: Did the backup of the photos finish?",
		"assistant: Yes: the three photo folders were synced to /srv/backup at 10:00.",
		"user: Great, then send the link to Tom.",
		"assistant: Sent the preview link to Tom.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("records %q, want %q", got, want)
	}
}

// TestReadOpenClaw_subagentAnnounce: when a sub-agent ends, OpenClaw
// sends the main session its result as a prompt ("[System Message] A
// subagent task ... just completed successfully.", the result, then the
// instruction to tell the user in the assistant's own words or reply
// NO_REPLY: OpenClaw's subagent announce, the shape #56489 and the
// announce parsers in public OpenClaw tooling show). The prompt names
// NO_REPLY, so it was taken for housekeeping and the reply that tells the
// user the sub-agent's findings was dropped as automation; it is the
// assistant's. The prompt itself is still not the user's.
func TestReadOpenClaw_subagentAnnounce(t *testing.T) {
	recs, problems := collect(t, config.Source{Name: "oc", Kind: config.KindOpenClaw, Path: driftRoot + "/openclaw/subagent-announce"})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Role+": "+r.Text)
	}
	want := []string{
		"user: Research which of the three NAS boxes supports ZFS natively.",
		"assistant: I started a sub-agent on it; I'll report back.\n[tool: sessions_spawn]",
		"assistant: Only the TrueNAS Mini runs ZFS natively. The Synology uses Btrfs, and the QNAP has ZFS only on its QuTS hero models.",
		"user: Order the TrueNAS Mini then.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("records %q, want %q", got, want)
	}
}

// TestReadOpenClaw_subagentTask: a sub-agent's session starts with the
// prompt OpenClaw writes when the main agent spawns it: "[Subagent
// Context] ..." lines (one more for a persistent, thread-bound session)
// and "[Subagent Task]: <task>" (openclaw/openclaw src/agents/
// subagent-spawn.ts, childTaskMessage). No person typed it: the task is
// the main agent's, so the assistant's, without the context lines; a
// follow-up a person types in the sub-agent's thread is the user's. The
// gateway puts the time before both ("[Wed 2026-06-03 16:00 GMT+2] ",
// src/gateway/server-methods/agent-timestamp.ts injectTimestamp), which
// is no one's words either, and hid the task's prefix.
func TestReadOpenClaw_subagentTask(t *testing.T) {
	recs, problems := collect(t, config.Source{Name: "oc", Kind: config.KindOpenClaw, Path: driftRoot + "/openclaw/subagent-task"})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Role+": "+r.Text)
	}
	want := []string{
		"assistant: Compare ZFS support of the three NAS boxes",
		"assistant: Only the TrueNAS Mini runs ZFS natively.\n[tool: web_search TrueNAS Mini ZFS]",
		"user: Does the QNAP one support it with another OS?",
		"assistant: Yes, with QuTS hero.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("records %q, want %q", got, want)
	}
}
