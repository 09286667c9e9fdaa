package ingest

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// An OpenClaw source is the state directory (~/.openclaw). Its sessions,
// agents/<agentId>/sessions/<sessionId>.jsonl and the archived
// <sessionId>.jsonl.reset.<ts> and .jsonl.deleted.<ts> copies, are
// pi-agent transcripts, read line by line like Claude Code's into one
// record per user prompt and per assistant text:
//
//   - a "session" header (id, timestamp, cwd), then entries with id and
//     parentId: "message" ({role, content, timestamp in ms}, roles user,
//     assistant and toolResult; content a string or text, thinking,
//     toolCall and image blocks), "compaction" and "branch_summary"
//     (summary) and events that carry nothing to remember
//     (model_change, thinking_level_change, custom, custom_message, and
//     whatever types later builds add: ignored, never a problem);
//   - thinking and tool results are dropped (the results of memory_search
//     and Nova's own tools are our recall echoed back); tool calls are
//     summarized on the assistant's next text; images are a placeholder;
//     the <relevant-memories> a memory plugin injects into a prompt, the
//     time the gateway puts before a prompt ("[Wed 2026-01-28 22:30
//     EST]"), the channel metadata OpenClaw puts before a message ("Conversation info
//     (untrusted metadata):" and its fenced JSON, ...), the runtime events
//     it put before a prompt ("System: [<time>] ..."), thinking tags and
//     reply directives ([[reply_to_current]]) in text are cut; a prompt a
//     cron job injected ("[cron: ...") or OpenClaw sent by itself (a
//     heartbeat poll, the memory flush before a compaction, the startup
//     of a new session, the notice that a background command ended) and
//     the turn it starts are automation, not dialogue; the task a
//     sub-agent's session starts with ("[Subagent Task]: ...") is the
//     main agent's, so the assistant's; the announcement
//     of a sub-agent's result ("[System Message] ...") is not a prompt,
//     but the reply to it is the assistant's; a reply of silent
//     housekeeping (starting NO_REPLY) or a
//     heartbeat's HEARTBEAT_OK says nothing; the copies OpenClaw writes
//     as the assistant's of delivered text (a delivery mirror) and of a
//     CLI backend's final text are read only when they repeat none of the
//     latest replies, nor the turn's replies joined (see openclawMirror
//     and openclawCLI).
//
// The agent is openclaw (or the source's agent) and the project the agent id (its cwd is its
// workspace, the same for every conversation). A record's id is the
// session's (the header's id, else the file name's stem) and its line:
// a session archived under another name between two reads keeps its ids.
// The workspace's Markdown memory (workspace/MEMORY.md, DREAMS.md and the
// daily memory/YYYY-MM-DD*.md, in workspace-<agentId>/ for other agents)
// is read by the Markdown reader as notes of the same agent, in the
// source's sourceSet when it names one (the sessions' too), else in notes.

// openclawLine is one line of an OpenClaw session, with the fields the
// reader uses.
type openclawLine struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Message   json.RawMessage `json:"message"`
	// Summary is the text of a compaction or branch_summary entry.
	Summary string `json:"summary"`
}

type openclawMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	// Model is openclawMirror on a copy of delivered text, API
	// openclawCLI on the final text of a run of a CLI backend.
	Model string `json:"model"`
	API   string `json:"api"`
	// Timestamp is epoch milliseconds (a string in some writers).
	Timestamp json.RawMessage `json:"timestamp"`
}

type openclawBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
	Name string `json:"name"`
	// Arguments is an object, or an object encoded in a string.
	Arguments json.RawMessage `json:"arguments"`
}

// Known shapes that carry nothing to remember; any other role or content
// block type is reported once per file (see shapeReports).
var (
	openclawQuietRoles  = setOf("toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary", "system")
	openclawQuietBlocks = setOf("thinking", "redacted_thinking", "toolResult")
)

// Replies no one reads: OpenClaw delivers nothing of a reply that starts
// with openclawNoReply (housekeeping such as the memory flush before a
// compaction), and openclawHeartbeatOK is the whole answer to a
// heartbeat poll when there is nothing to report.
const (
	openclawNoReply     = "NO_REPLY"
	openclawHeartbeatOK = "HEARTBEAT_OK"
)

// openclawScaffolding is text OpenClaw or its plugins put into messages
// that no one wrote: recalled memories injected into a prompt; the
// metadata OpenClaw puts before a message from a channel (the
// conversation, the sender, the message replied to or forwarded, the
// thread's first message, the chat since the last reply: fenced JSON
// under an "(untrusted ...)" label); reasoning in the tags some models
// write into their text; the reply directives a model writes for the
// channel ([[reply_to_current]], [[reply_to:<id>]], [[audio_as_voice]],
// [[tts:...]]); control tokens. (A reply cut short inside its reasoning
// goes too: see withoutReasoning.)
var openclawScaffolding = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`(?s)<relevant-memories>.*?</relevant-memories>`),
		regexp.MustCompile("(?:Conversation info|Sender|Thread starter|Replied message|Forwarded message context|Chat history since last reply) \\(untrusted(?: metadata|,\\s+for\\s+context)\\):\\r?\\n```json\\r?\\n(?s:.*?)\\r?\\n```[ \\t]*(?:\\r?\\n)*"),
		reasoningBlock(),
		regexp.MustCompile(`\[\[\s*(?:reply_to_current|reply_to\s*:[^\]\n]*|audio_as_voice|/?tts(?::[^\]\n]*)?)\s*\]\]`),
		regexp.MustCompile(`<\|[a-z_]+\|>`),
		openclawSystemEvents(),
	}
})

// openclawSystemEvents are the lines OpenClaw puts before a prompt, one
// per runtime event queued since the last turn (a background command
// that ended, with the head of its output; a channel that connected), as
// "System: [<time>] <event>", "System (untrusted): ..." in later builds;
// builds from 2026-04-27 (openclaw/openclaw PR #72761) no longer put them
// in the prompt. Tool output and OpenClaw's notices, not what the person
// typed (openclaw/openclaw #56489, #70373).
var openclawSystemEvents = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^System(?: \(untrusted\))?: \[\d{4}-\d{2}-\d{2}[^\]\n]*\][^\n]*(?:\r?\n|$)`)
})

// openclawStamp is the time OpenClaw's gateway puts before a prompt that
// reaches the agent through its agent and chat.send handlers (the TUI,
// the web chat, a spawned sub-agent's task, sessions_send, a heartbeat
// wake): "[Wed 2026-01-28 22:30 EST] " (openclaw/openclaw
// src/gateway/server-methods/agent-timestamp.ts, injectTimestamp). It is
// context for the model, not the person's words, and it hides the
// prefixes the reader looks for.
var openclawStamp = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\A\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d{2}-\d{2} \d{2}:\d{2}(?: [^\]\n]{1,40})?\]\s*`)
})

// openclawCron begins a prompt a cron job injected.
const openclawCron = "[cron:"

// openclawHousekeeping reports whether a prompt is one OpenClaw sends by
// itself: a heartbeat poll ("... If nothing needs attention, reply
// HEARTBEAT_OK.", every 30 minutes by default), the memory flush before
// a compaction ("... If nothing to store, reply with NO_REPLY."), the
// startup of a new session, or the notice that a background command
// ended (openclawAsyncExec). Both
// name the silent reply they allow, which no person types; indexed, the
// same poll would come back dozens of times a day.
func openclawHousekeeping(text string) bool {
	return strings.Contains(text, openclawHeartbeatOK) || strings.Contains(text, openclawNoReply) ||
		strings.HasPrefix(text, openclawSessionStartup) || strings.HasPrefix(text, openclawAsyncExec)
}

// openclawAnnounce begins the prompt OpenClaw sends the main session
// when a sub-agent (or a cron job run apart) ends: its result, then the
// instruction to tell the user in the assistant's own words, or reply
// NO_REPLY when that was done already (openclaw/openclaw's subagent
// announce; #56489). The prompt is not the person's, and the reply is
// the assistant's message to them, not automation: a sub-agent's
// findings reach the user only through it.
const openclawAnnounce = "[System Message] "

// The prompt OpenClaw gives a sub-agent's session when the main agent
// spawns it (openclaw/openclaw src/agents/subagent-spawn.ts,
// childTaskMessage): "[Subagent Context] ..." lines that tell the model
// it is a sub-agent, then "[Subagent Task]: <task>". The task is the main
// agent's words, so it is the assistant's, as a Claude Code sidechain's
// prompt is; the context lines are no one's.
const (
	openclawSubagentContext = "[Subagent Context]"
	openclawSubagentTask    = "[Subagent Task]:"
)

// openclawAsyncExec begins the prompt OpenClaw sends by itself when a
// command the agent ran in the background ends: the command's output is
// in the system event lines before it (see openclawSystemEvents), and
// the agent is told to handle it or relay it.
const openclawAsyncExec = "An async command you ran earlier has completed."

// openclawSessionStartup begins the prompt OpenClaw sends by itself when
// a session starts (/new, /reset): read the workspace's files and greet
// the user. The greeting that answers it says nothing to remember.
const openclawSessionStartup = "A new session was started via /new or /reset."

// openclawRecentWindow is how many recent entry ids the duplicate check
// remembers (an entry appended twice by a retried write).
const openclawRecentWindow = 32

// openclawMirror is the model OpenClaw names on an assistant message it
// writes itself, with no model behind it, to record what it delivered to
// a channel: the text of a reply the session already holds (every
// channel's final reply in some builds, the replies a queued message's
// wake delivered again, a mirror appended twice), or the text the
// message tool sent, which the session holds only as a tool call's
// argument (openclaw/openclaw #64152, #87994, #126090, PR #67185; its
// transcript writer's createAssistantMirrorMessage). OpenClaw's own
// history drops a mirror whose text is the latest reply's.
const openclawMirror = "delivery-mirror"

// openclawCLI is the api of the assistant message OpenClaw writes with a
// run's final text when a CLI backend (claude-cli, codex-cli, ...) ran
// the turn, the only record of the reply when the backend's own messages
// are not mirrored into the session. When they are, it repeats them: the
// reply the session holds already (an embedded run's gap fill,
// openclaw/openclaw #83427), or all the texts of the turn joined by a
// blank line (#143106).
const openclawCLI = "cli"

// openclawRepliesWindow is how many of the latest replies a mirror is
// compared with: a wake delivers again the replies of the turn it split,
// one mirror after the other.
const openclawRepliesWindow = 8

// openclawTurnWindow bounds the replies of one turn a CLI run's final
// text is compared with (a longer turn's copy is read).
const openclawTurnWindow = 64

// openclawState is what reading a session carries from line to line, and
// from one read to the next (as the Cursor's State).
type openclawState struct {
	// Session is the header's id.
	Session string `json:"session,omitempty"`
	// LastTime is the latest time read, for a line without one.
	LastTime string `json:"lastTime,omitempty"`
	// Automated is set from a cron prompt to the next prompt a person
	// typed: the turn in between is the job's.
	Automated bool         `json:"automated,omitempty"`
	Pending   pendingTools `json:"pending,omitzero"`
	Recent    []string     `json:"recent,omitempty"`
	// Replies are digests (XXH3-64) of the latest replies' text (the
	// last openclawRepliesWindow), so that a delivery mirror of one is
	// not read again (see openclawMirror).
	Replies []uint64 `json:"replies,omitempty"`
	// Turn are the digests of the replies since the last prompt (the
	// first openclawTurnWindow), in order: a copy of them all joined is
	// not read again.
	Turn     []uint64     `json:"turn,omitempty"`
	Reported shapeReports `json:"reported,omitempty"`
}

// openclawHandler reads the lines of one session.
type openclawHandler struct {
	fc *fileCtx
	st openclawState
	// stem is the session's file name without .jsonl and any archive
	// suffix; agent the agent id of the folder it is in.
	stem, agent string
}

func newOpenClawHandler(fc *fileCtx, state json.RawMessage) (*openclawHandler, error) {
	h := &openclawHandler{fc: fc, stem: openclawStem(fc.path)}
	if err := decodeState(state, &h.st); err != nil {
		return nil, err
	}
	if dir := filepath.Dir(fc.path); filepath.Base(dir) == "sessions" {
		h.agent = filepath.Base(filepath.Dir(dir))
	}
	return h, nil
}

// openclawStem is a session file's name without ".jsonl" and what follows
// it: x.jsonl, x.jsonl.reset.<ts> and x.jsonl.deleted.<ts> are session x.
func openclawStem(path string) string {
	name := filepath.Base(path)
	if i := strings.Index(name, ".jsonl"); i > 0 {
		return name[:i]
	}
	return name
}

// agentNote reports whether path, of an OpenClaw, Gemini or Claude Code
// source, is a Markdown memory file rather than a session.
func agentNote(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".md" || ext == ".markdown"
}

func (h *openclawHandler) state() (json.RawMessage, error) { return json.Marshal(h.st) }

func (h *openclawHandler) line(n int, data []byte) error {
	var l openclawLine
	if err := json.Unmarshal(data, &l); err != nil {
		// JSON whose fields are not of the types the reader's are: an
		// event of a later build is ignored as any other is, not
		// reported as if it were not JSON.
		typ, ok := lineType(data)
		if !ok {
			return notJSON(err)
		}
		switch typ {
		case "session", "message", "compaction", "branch_summary":
			h.fc.problem(n, "unexpected "+typ+" line: "+trimErr(err))
		}
		return nil
	}
	if l.ID != "" {
		if slices.Contains(h.st.Recent, l.ID) {
			return nil // written twice
		}
		if len(h.st.Recent) == openclawRecentWindow {
			h.st.Recent = h.st.Recent[1:]
		}
		h.st.Recent = append(h.st.Recent, l.ID)
	}
	switch l.Type {
	case "session":
		if h.st.Session == "" {
			h.st.Session = strings.TrimSpace(l.ID)
		}
		h.when(l.Timestamp, nil)
		return nil
	case "message":
	case "compaction", "branch_summary":
		// The assistant's account of the conversation so far (or of a
		// branch left), as Codex's and Claude Code's compactions are kept.
		t := h.when(l.Timestamp, nil)
		if h.st.Automated || !hasContent(l.Summary) {
			return nil
		}
		return h.emit(n, "assistant", strings.TrimSpace(l.Summary), t)
	default:
		// Model and thinking-level changes, extension state, and event
		// types of later builds: metadata at most.
		h.when(l.Timestamp, nil)
		return nil
	}
	var msg openclawMessage
	if err := json.Unmarshal(l.Message, &msg); err != nil {
		h.fc.problem(n, "unexpected message: "+trimErr(err))
		return nil
	}
	t := h.when(l.Timestamp, msg.Timestamp)
	blocks, err := contentBlocks(msg.Content, func(s string) openclawBlock { return openclawBlock{Type: "text", Text: s} })
	if err != nil {
		h.fc.problem(n, "unexpected "+msg.Role+" content: "+trimErr(err))
		return nil
	}
	switch msg.Role {
	case "user":
		return h.user(n, blocks, t)
	case "assistant":
		return h.assistant(n, blocks, t, msg.Model == openclawMirror || msg.API == openclawCLI)
	}
	if !openclawQuietRoles[msg.Role] {
		h.st.Reported.report(h.fc, n, "message role "+strconv.Quote(msg.Role))
	}
	return nil
}

// user reads a prompt. One a cron job injected, or OpenClaw's own
// housekeeping, starts a turn of automation, which lasts until a person
// types again.
func (h *openclawHandler) user(n int, blocks []openclawBlock, t time.Time) error {
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			s := openclawStamp().ReplaceAllString(openclawText(b.Text), "")
			if strings.HasPrefix(s, openclawSubagentContext) {
				_, task, _ := strings.Cut(s, openclawSubagentTask)
				h.st.Automated, h.st.Pending, h.st.Turn = false, pendingTools{}, nil
				if task = strings.TrimSpace(task); !hasContent(task) {
					return nil
				}
				return h.emit(n, "assistant", task, t)
			}
			if strings.HasPrefix(s, openclawAnnounce) {
				// Not the person's words, but what the reply
				// says is the assistant's to them.
				h.st.Automated = false
				return nil
			}
			if strings.HasPrefix(s, openclawCron) || openclawHousekeeping(s) {
				h.st.Automated, h.st.Pending, h.st.Turn = true, pendingTools{}, nil
				return nil
			}
			if s != "" {
				parts = append(parts, s)
			}
		case "image":
			parts = append(parts, imageMark)
		default:
			h.quietBlock(n, b.Type)
		}
	}
	text := strings.Join(parts, "\n\n")
	if !hasContent(text) {
		return nil // only scaffolding: not a turn
	}
	// A prompt drops the tool calls of the turn before it, and starts a
	// turn.
	h.st.Automated, h.st.Pending, h.st.Turn = false, pendingTools{}, nil
	return h.emit(n, "user", text, t)
}

// assistant reads a reply: its text, with the tool calls made since the
// last text summarized under it. A copy OpenClaw wrote of delivered or
// final text (copied set: a delivery mirror, a CLI run's final text) that
// repeats one of the latest replies, or the turn's replies joined, is
// not read.
func (h *openclawHandler) assistant(n int, blocks []openclawBlock, t time.Time, copied bool) error {
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if s := withoutReasoning(openclawText(b.Text)); s != "" && s != openclawHeartbeatOK && !strings.HasPrefix(s, openclawNoReply) {
				parts = append(parts, s)
			}
		case "toolCall":
			if !h.st.Automated {
				h.st.Pending.add(toolSummary(b.Name, toolArguments(b.Arguments)))
			}
		case "image":
			parts = append(parts, imageMark)
		default:
			h.quietBlock(n, b.Type)
		}
	}
	text := strings.Join(parts, "\n\n")
	if h.st.Automated || !hasContent(text) {
		return nil // tool calls wait for the next text
	}
	sum := xxh3.HashString(text)
	if copied && (slices.Contains(h.st.Replies, sum) || joinsReplies(text, h.st.Turn)) {
		return nil
	}
	if len(h.st.Replies) == openclawRepliesWindow {
		h.st.Replies = h.st.Replies[1:]
	}
	h.st.Replies = append(h.st.Replies, sum)
	if len(h.st.Turn) < openclawTurnWindow {
		h.st.Turn = append(h.st.Turn, sum)
	}
	return h.emit(n, "assistant", h.st.Pending.take(text), t)
}

// joinsReplies reports whether text is two or more replies, whose digests
// are turn, joined by blank lines: each reply ends where a blank line
// starts (or the text ends) and the text from there is the next one's.
func joinsReplies(text string, turn []uint64) bool {
	if len(turn) < 2 {
		return false
	}
	const sep = "\n\n"
	start := 0
	for i, want := range turn {
		last := i == len(turn)-1
		found := false
		for end := start; end <= len(text); {
			j := strings.Index(text[end:], sep)
			cut := len(text)
			if j >= 0 && !last {
				cut = end + j
			}
			if xxh3.HashString(text[start:cut]) == want {
				start, found = cut+len(sep), true
				break
			}
			if j < 0 || last {
				break
			}
			end += j + 1
		}
		if !found {
			return false
		}
	}
	return true
}

// toolArguments decodes a tool call's arguments: an object, or an object
// encoded in a string (anything else is no argument to show).
func toolArguments(raw json.RawMessage) map[string]json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		raw = []byte(s)
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil {
		return nil
	}
	return args
}

// openclawText is a text block without the scaffolding around it.
func openclawText(s string) string {
	for _, re := range openclawScaffolding() {
		s = re.ReplaceAllString(s, "")
	}
	return strings.TrimSpace(s)
}

// when returns the time of a line: its ISO timestamp, else its message's
// epoch milliseconds, else the last time read.
func (h *openclawHandler) when(line string, msgTime json.RawMessage) time.Time {
	_, t, _ := parseDate(line, h.fc.loc)
	if t.IsZero() && len(msgTime) > 0 {
		var ms float64
		var s string
		switch {
		case json.Unmarshal(msgTime, &ms) == nil && ms > 0:
			t = time.UnixMilli(int64(ms)).UTC()
		case json.Unmarshal(msgTime, &s) == nil:
			_, t, _ = parseDate(s, h.fc.loc)
		}
	}
	if t.IsZero() {
		_, t, _ = parseDate(h.st.LastTime, h.fc.loc)
		return t
	}
	h.st.LastTime = t.UTC().Format(time.RFC3339Nano)
	return t
}

// quietBlock reports a content block type that is neither read nor known
// to carry nothing to remember.
func (h *openclawHandler) quietBlock(n int, typ string) {
	if !openclawQuietBlocks[typ] {
		h.st.Reported.report(h.fc, n, "content block type "+strconv.Quote(typ))
	}
}

// emit makes the record of line n. Its id is the session's, so an
// archived copy of the session gives the same ids; a file whose name is
// not its session's (a topic thread's) keeps its records apart.
func (h *openclawHandler) emit(n int, role, text string, t time.Time) error {
	session := h.st.Session
	if session == "" {
		session = h.stem
	}
	conversation := session
	if h.stem != session {
		conversation += "/" + h.stem
	}
	m := message{role: role, text: text, time: t, line: n}
	rec, ok := m.record(h.fc, config.KindOpenClaw, session, conversation+":"+strconv.Itoa(n), conversation)
	if !ok {
		return nil
	}
	rec.Project = h.agent
	return h.fc.emit(rec)
}

// readAgentNote reads an agent's Markdown memory file (an OpenClaw
// workspace's, a Gemini CLI home's GEMINI.md and project memory, Claude Code's auto memory
// in a project's memory/ folder) as the Markdown reader
// reads any note, as the agent's, and of the source's source set, as the
// sessions are (else of the notes source set), unless its front matter
// says otherwise.
func readAgentNote(fc *fileCtx, agent string) error {
	note := *fc
	record := fc.sink.Record
	note.sink.Record = func(r memory.Record) error {
		if r.Agent == "" {
			r.Agent = fc.agent(agent)
		}
		if r.SourceSet == "" {
			r.SourceSet = fc.noteSourceSet()
		}
		return record(r)
	}
	return readMarkdown(&note)
}
