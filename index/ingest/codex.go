package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
	"github.com/zeebo/xxh3"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, and
// ~/.codex/archived_sessions/rollout-*.jsonl once a thread is archived) are
// read line by line into one record per user prompt and per assistant
// message, whatever the rollout's version:
//
//   - 0.42 to 0.146 write {"timestamp","type","payload"} lines of types
//     session_meta, turn_context, response_item, event_msg, compacted and
//     (newer) world_state and inter-agent metadata;
//   - older rollouts wrote a bare session meta line and bare response
//     items, without the envelope;
//   - message content items are input_text, output_text or (older) text;
//     assistant messages carry a phase (commentary, final_answer, output)
//     or none, and every phase is kept; their memory citations are
//     dropped and a Plan-mode proposed plan is kept without its tags.
//
// The user's answers to the agent's questions (request_user_input, in
// its tool output and a retained_context line) are the user's words, and
// the transcript of a voice conversation (realtime_item lines) is read as
// the user's and the assistant's utterances. A /review is the user's
// request (entered_review_mode) and the reviewer's findings
// (exited_review_mode) the assistant's answer, and a goal set for a
// long-running task (thread_goal_updated) is the user's, once per
// objective.
// A sub-agent's rollout (a thread Codex spawned) starts with a copy of
// its parent's history, which the parent's rollout already gave: the
// lines before its own (subagent_history_start_ordinal) and the messages
// marked inherited are not read again, and its prompts, which the main
// agent wrote, are the assistant's. Nor is the history a forked thread
// (by the user, or an agent spawned with its parent's history in builds
// that number no lines) starts with, when the rollout it was copied from
// is there to give it (see copied). The helper threads Codex records for
// itself (a compaction, a memory consolidation, the guardian's review of
// an action) are not read at all. A message one agent sends another (a
// sub-agent's task, its result: inter_agent_communication lines, or
// message items holding it as JSON in earlier builds) is the
// assistant's, without Codex's envelope (see interAgent).
// Runtime scaffolding, reasoning, tool output and telemetry are dropped;
// the tool calls made before an answer are attached to it as one-line
// summaries. Codex writes each utterance twice (a response_item and an
// event_msg); the second copy is dropped. A line shape the reader does not
// know is reported once per file.
//
// The turns the user takes back (Esc-Esc backtrack, editing an earlier
// prompt, the app's undo) are no longer part of the conversation: Codex
// appends a thread_rolled_back event, and the records of the lines it
// takes back are not read (see rollback). A read looks ahead for those
// events before it reads (see lookAhead), so nothing it takes back is
// ever emitted; one that takes back lines an earlier read gave makes the
// read on from the cursor ErrFileChanged, and the file is read whole.

// codexLine is the envelope of every rollout line.
type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	// RecordType marks the state lines of envelope-less rollouts.
	RecordType string `json:"record_type"`
	// ID is set on the bare session meta line of envelope-less rollouts.
	ID string `json:"id"`
	// Ordinal numbers the lines of newer rollouts (0 for the first).
	Ordinal *int64 `json:"ordinal"`
	// Metadata is the harness's note on a response_item (newer builds).
	Metadata struct {
		// InheritedUserMessage marks a message copied from the parent
		// thread into a sub-agent's or a fork's rollout.
		InheritedUserMessage bool `json:"inherited_user_message"`
	} `json:"metadata"`
}

// codexPayload holds the fields the reader uses of the response_item and
// event_msg payloads it keeps.
type codexPayload struct {
	Type string `json:"type"`
	// response_item message: content is a list of items (or, in some
	// builds, a plain string).
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	// response_item function_call (Arguments is a JSON string) and
	// custom_tool_call (Input is free text, e.g. a patch).
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Input     string `json:"input"`
	// response_item local_shell_call and web_search_call.
	Action *codexAction `json:"action"`
	// event_msg user_message and agent_message (injected_message has
	// its text in Content, a string)
	Message string   `json:"message"`
	Images  []string `json:"images"`
	// event_msg thread_name_updated
	ThreadName string `json:"thread_name"`
	// response_item function_call: the id its output answers.
	CallID string `json:"call_id"`
}

// codexAction is what a local_shell_call ran (command) or what a
// web_search_call did: a search (query, or several queries in newer
// builds), a page opened (url), a pattern looked for in one (pattern and
// url).
type codexAction struct {
	Command []string `json:"command"`
	Query   string   `json:"query"`
	Queries []string `json:"queries"`
	URL     string   `json:"url"`
	Pattern string   `json:"pattern"`
}

// searched is the argument a web search's summary shows: what was
// searched for, or the page opened and what was looked for in it.
func (a *codexAction) searched() string {
	if a.Query != "" {
		return a.Query
	}
	if len(a.Queries) > 0 {
		return strings.Join(a.Queries, " ")
	}
	return strings.TrimSpace(a.Pattern + " " + a.URL)
}

type codexContentItem struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// codexScaffolding are the openings of user-role texts that the Codex
// runtime injects (environment, sandbox permissions, AGENTS.md and user
// instructions, abort notices, the body of a skill or the plugins a
// prompt named, the output of a shell command the user ran with "!"
// (whose command is theirs: codexShellCommand), a sub-agent's report, the reviewer's findings handed back
// after /review, whose rendering is the assistant message that follows,
// and the envelope of a message a timer or another program delivered,
// whose text the injected_message event gives); they are not the user
// speaking. Newer builds also hide context of their own in user-role
// messages that no user_message event repeats: the skills and the plugins
// on offer, context an app or an extension adds (<external_KEY>,
// <external_context ...>), the prompt a hook continues a turn with, the
// goal's continuation prompt, a notice of a post on the agents' message
// board, the summary a compaction hands the model (the compacted line
// gives it as the assistant's), and the warnings older builds gave the
// model. Codex itself matches them in any case.
var codexScaffolding = []string{
	"<environment_context>",
	"<permissions instructions>",
	"<user_instructions>",
	"<developer_instructions>",
	"<turn_aborted>",
	"# AGENTS.md instructions",
	"<skill>",
	"<skills_instructions>",
	"<plugins>",
	"<recommended_plugins>",
	"Here is a list of plugins that are available but not installed.",
	"<user_shell_command>",
	"<subagent_notification>",
	"<user_action>",
	"<timer_message>",
	"<external_",
	"<extension_context>",
	"<codex_message>",
	"<codex_internal_context ",
	"<goal_context>",
	"<hook_prompt ",
	"<agent_message_board_notification>",
	"Another language model started to solve this problem and produced a summary",
	"Warning: apply_patch was requested via ",
	"Warning: The maximum number of unified exec processes you can keep open is",
	"Warning: Your account was flagged for potentially high-risk cyber activity",
}

// codexIDERequest separates the editor context the Codex IDE extension
// prepends to a prompt from the prompt itself.
const codexIDERequest = "## My request for Codex:"

// Known shapes that carry nothing to remember; anything else not handled
// is reported (see shapeReports).
var (
	codexQuietLines = setOf("world_state", "inter_agent_communication_metadata", "security_risk_score",
		"token_usage_record")
	// agent_message items (2026) are messages between agents, not the
	// answer (the assistant message and the agent_message event are).
	codexQuietItems = setOf("reasoning", "function_call_output", "custom_tool_call_output", "tool_search_call",
		"tool_search_output", "image_generation_call", "compaction", "compaction_summary", "context_compaction",
		"ghost_snapshot", "additional_tools", "agent_message", "other")
	codexQuietEvents = setOf("agent_reasoning", "agent_reasoning_raw_content", "agent_reasoning_section_break",
		"token_count", "task_started", "task_complete", "turn_started", "turn_complete", "turn_aborted",
		"context_compacted", "patch_apply_begin", "patch_apply_end", "exec_command_begin", "exec_command_end",
		"mcp_tool_call_begin", "mcp_tool_call_end", "web_search_begin", "web_search_end",
		"image_generation_begin", "image_generation_end", "view_image_tool_call", "item_started", "item_completed",
		"plan_update", "turn_diff", "error", "stream_error", "warning", "background_event", "guardian_assessment",
		"session_configured", "shutdown_complete", "undo_started", "undo_completed", "deprecation_notice",
		"mcp_startup_update", "mcp_startup_complete", "collab_agent_spawn_end", "collab_agent_interaction_end",
		"collab_waiting_end", "collab_close_end", "collab_resume_end", "dynamic_tool_call_request",
		"dynamic_tool_call_response", "conversation_path", "get_history_entry_response",
		"sub_agent_activity")
	codexSilentRoles = setOf("developer", "system", "tool")
	// The payloads responseItem and event read; any other type not quiet
	// is reported.
	codexReadItems  = setOf("message", "function_call", "custom_tool_call", "local_shell_call", "web_search_call")
	codexReadEvents = setOf("user_message", "injected_message", "agent_message", "entered_review_mode",
		"exited_review_mode", "thread_goal_updated", "thread_name_updated", "thread_rolled_back")
)

func setOf(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}

// codexStream says which of the two copies of an utterance a message came
// from: Codex writes each one as a response_item and as an event_msg.
type codexStream int

const (
	streamItem codexStream = iota
	streamEvent
)

// codexSeenWindow is how many recent utterances the duplicate check
// remembers: the two copies of one utterance are written next to each
// other, so a short window finds every pair and keeps the cursor small.
const codexSeenWindow = 32

// codexSeen counts the copies of one recent utterance read from each
// stream (see keep).
type codexSeen struct {
	Key string `json:"k"`
	N   [2]int `json:"n"`
}

// codexState is what reading a rollout carries from line to line, and
// from one read to the next (as the Cursor's State).
type codexState struct {
	// Session is the rollout's session id: its first session_meta's,
	// else the uuid in the file name.
	Session  string `json:"session,omitempty"`
	MetaSeen bool   `json:"metaSeen,omitempty"`
	// SubAgent is set when the rollout is a thread Codex spawned: no one
	// types into it, so its prompts are the main agent's.
	SubAgent bool `json:"subAgent,omitempty"`
	// Helper is set when the rollout is one of Codex's own helper
	// threads (see codexMeta.helper): nothing in it is read.
	Helper bool `json:"helper,omitempty"`
	// OwnFrom is the first ordinal of a sub-agent's own lines: those
	// before it are the parent's history, copied in for context.
	OwnFrom int64 `json:"ownFrom,omitempty"`
	// CopyOf is the thread whose history is being read at the start of
	// the rollout, copied in when Codex forked this thread from it, and
	// CopyEnded set once that history has ended (see copied).
	CopyOf    string `json:"copyOf,omitempty"`
	CopyEnded bool   `json:"copyEnded,omitempty"`
	// Cwd is the working directory of the current turn.
	Cwd string `json:"cwd,omitempty"`
	// Title is the thread name the user gave the session, if any.
	Title string `json:"title,omitempty"`
	// LastTime is the latest line timestamp, for lines without one.
	LastTime string       `json:"lastTime,omitempty"`
	Seen     []codexSeen  `json:"seen,omitempty"`
	Pending  pendingTools `json:"pending,omitzero"`
	Reported shapeReports `json:"reported,omitempty"`
	// Asked are the questions of the request_user_input calls not
	// answered yet, and Answered the calls whose answers were kept (the
	// tool output and the retained context both carry them).
	Asked    []codexAsked `json:"asked,omitempty"`
	Answered []string     `json:"answered,omitempty"`
	// ReviewKept is set once a review's findings were kept from its
	// exited_review_mode event, until the next assistant message or
	// prompt: newer builds follow the event with an assistant message
	// that renders the same findings for the model.
	ReviewKept bool `json:"reviewKept,omitempty"`
	// Goal is the digest (textKey) of the last goal objective kept:
	// Codex writes the goal again at every change of its status and
	// usage.
	Goal string `json:"goal,omitempty"`
	// Turns are the lines the turns of the conversation start at, as a
	// rollback counts them (see codexTurnBoundary), the last codexTurnWindow
	// of them; TurnsForgot is set once older ones were let go.
	Turns       []int `json:"turns,omitempty"`
	TurnsForgot bool  `json:"turnsForgot,omitempty"`
	// Ahead are the lines that rollbacks not read yet take back, found by
	// looking ahead (see lookAhead), and Scanned the offset up to which
	// the file was looked through for rollbacks.
	Ahead   []codexSpan `json:"ahead,omitempty"`
	Scanned int64       `json:"scanned,omitempty"`
}

// codexSpan is the lines a rollback takes back: from From to To, the
// line of the rollback itself.
type codexSpan struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// codexTurnWindow bounds the turn starts a rollout's cursor remembers:
// a rollback of more turns than that, read on from a cursor, has the
// file read whole.
const codexTurnWindow = 1024

// codexAsked is one request_user_input call: its call id and its
// questions (id and text), in the order they were asked.
type codexAsked struct {
	Call      string      `json:"call"`
	Questions [][2]string `json:"q,omitempty"`
}

// codexAskWindow bounds the open request_user_input calls and the
// answered ones a rollout's state remembers: a call is answered within
// its turn, a few lines later.
const codexAskWindow = 8

// codexRequestUserInput is the tool by which the agent (Plan mode) asks
// the user questions; its output, and a retained_context
// verified_answer line, hold the user's answers.
const codexRequestUserInput = "request_user_input"

// codexCreateGoal is the tool by which the model sets a goal the user
// asked for; its objective is then in thread_goal_updated too.
const codexCreateGoal = "create_goal"

// codexHandler reads the lines of one rollout.
type codexHandler struct {
	fc *fileCtx
	st codexState
	// copyLines are the lines of st.CopyOf's rollout (see
	// codexThreadLines); nil until looked up.
	copyLines map[uint64]bool
	// dry is set on a handler that looks ahead (see lookAhead): it emits
	// nothing, and found are the spans its rollbacks take back.
	dry   bool
	found []codexSpan
}

func newCodexHandler(fc *fileCtx, state json.RawMessage) (*codexHandler, error) {
	h := &codexHandler{fc: fc}
	if err := decodeState(state, &h.st); err != nil {
		return nil, err
	}
	if h.st.Session == "" {
		h.st.Session = codexFileSession(fc.path)
	}
	return h, nil
}

func (h *codexHandler) state() (json.RawMessage, error) {
	st := h.st
	if len(st.Turns) > codexTurnWindow {
		st.Turns, st.TurnsForgot = st.Turns[len(st.Turns)-codexTurnWindow:], true
	}
	return json.Marshal(st)
}

// readCodexZst reads a compressed rollout whole, unless the plain rollout
// it was made from is still there: Codex may compress a rollout while
// keeping the plain file, which is authoritative and has the same lines.
func readCodexZst(fc *fileCtx) error {
	if _, err := os.Stat(strings.TrimSuffix(fc.path, ".zst")); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("stat plain rollout: %w", err)
	}
	f, err := openSource(fc.path)
	if err != nil {
		return fmt.Errorf("open rollout: %w", err)
	}
	defer f.Close()
	zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return fmt.Errorf("zstd rollout: %w", err)
	}
	defer zr.Close()
	h, err := newCodexHandler(fc, nil)
	if err != nil {
		return err
	}
	err = h.lookAhead(func() (io.ReadCloser, error) {
		f, err := openSource(fc.path)
		if err != nil {
			return nil, fmt.Errorf("open rollout: %w", err)
		}
		zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("zstd rollout: %w", err)
		}
		return zstdStream{zstdErrors{zr}, zr, f}, nil
	}, Cursor{}, true)
	if err != nil {
		return err
	}
	_, _, err = readLines(fc, zstdErrors{zr}, h, Cursor{}, true, 0, nil)
	return err
}

// zstdStream is a decompressed rollout to read once and close.
type zstdStream struct {
	io.Reader
	zr *zstd.Decoder
	f  *os.File
}

func (z zstdStream) Close() error {
	z.zr.Close()
	return z.f.Close()
}

// codexRollbackMark is the type of a rollback event as a rollout line
// writes it: a JSON string of its own, which a text that quotes it (its
// quotes escaped) does not hold.
var codexRollbackMark = []byte(`"thread_rolled_back"`)

// lookAhead learns, before a read from the cursor from, what the
// rollbacks after it take back (st.Ahead), so that the read never emits
// those lines' records: the bytes from it to the end of what is written
// are looked through for a rollback (those up to st.Scanned were, by an
// earlier read), and when there is one they are read without emitting
// anything. A rollback that takes back lines up to the cursor, read
// before, is ErrFileChanged: the file is to be read whole. open returns
// the bytes from from.Offset on; whole is readLines'.
func (h *codexHandler) lookAhead(open func() (io.ReadCloser, error), from Cursor, whole bool) error {
	r, err := open()
	if err != nil {
		return err
	}
	defer r.Close()
	skip := max(h.st.Scanned-from.Offset, 0)
	if _, err := io.CopyN(io.Discard, r, skip); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("look for rollbacks: %w", err)
	}
	found, lines, err := scanMark(r, codexRollbackMark)
	if err != nil {
		return fmt.Errorf("look for rollbacks: %w", err)
	}
	if !found {
		h.st.Scanned = from.Offset + skip + lines
		return nil
	}
	quiet := *h.fc
	quiet.sink = Sink{Record: func(memory.Record) error { return nil }, Problem: func(Problem) {}}
	dry, err := newCodexHandler(&quiet, from.State)
	if err != nil {
		return err
	}
	dry.dry, dry.copyLines = true, h.copyLines
	again, err := open()
	if err != nil {
		return err
	}
	defer again.Close()
	end, _, err := readLines(&quiet, again, dry, from, whole, 0, nil)
	if err != nil {
		return fmt.Errorf("look for rollbacks: %w", err)
	}
	for _, span := range dry.found {
		if span.From <= from.Line {
			return fmt.Errorf("%w: a rollback at line %d takes back lines read before", ErrFileChanged, span.To)
		}
		if !slices.Contains(h.st.Ahead, span) {
			h.st.Ahead = append(h.st.Ahead, span)
		}
	}
	h.st.Scanned = end.Offset
	return nil
}

// scanMark reports whether r holds mark and, when it does not, how many
// of its bytes come before the end of its last line ending: a mark on a
// line still being written is looked for again once it is whole.
func scanMark(r io.Reader, mark []byte) (found bool, lines int64, err error) {
	buf := make([]byte, 256<<10)
	var read int64 // bytes of r read before buf[keep:]
	keep := 0      // the end of the chunk before, where a mark may start
	for {
		n, err := r.Read(buf[keep:])
		if n > 0 {
			chunk := buf[:keep+n]
			if bytes.Contains(chunk, mark) {
				return true, 0, nil
			}
			if i := bytes.LastIndexByte(chunk[keep:], '\n'); i >= 0 {
				lines = read + int64(i) + 1
			}
			read += int64(n)
			keep = min(len(mark)-1, len(chunk))
			copy(buf, chunk[len(chunk)-keep:])
		}
		if errors.Is(err, io.EOF) {
			return false, lines, nil
		}
		if err != nil {
			return false, 0, err
		}
	}
}

// PlainRollout returns the plain rollout (rollout-*.jsonl) that the file
// at path, of a source of kind, is the compressed copy of, or "" when it
// is none. Codex (0.137 and later) compresses a rollout left alone for a
// week into rollout-*.jsonl.zst beside it and then deletes the plain file:
// the copy is the same rollout, with the same records, under another name.
func PlainRollout(kind, path string) string {
	if kind != config.KindCodex || !strings.HasSuffix(path, ".jsonl.zst") {
		return ""
	}
	return strings.TrimSuffix(path, ".zst")
}

// zstdErrors names decompression as the cause of a read error, which the
// decoder's own messages ("magic number mismatch") do not.
type zstdErrors struct{ r io.Reader }

func (z zstdErrors) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("decompress zstd: %w", err)
	}
	return n, err
}

// rolloutUUID matches the session uuid at the end of a rollout file name.
var rolloutUUID = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// codexFileSession returns the session id in a rollout's file name (the
// same for the .jsonl and the .jsonl.zst), or the file name itself.
func codexFileSession(path string) string {
	name := filepath.Base(path)
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".zst"), ".jsonl")
	if m := rolloutUUID.FindString(name); m != "" {
		return m
	}
	return name
}

func (h *codexHandler) line(n int, data []byte) error {
	var l codexLine
	if err := json.Unmarshal(data, &l); err != nil {
		return notJSON(err)
	}
	if _, t, ok := parseDate(l.Timestamp, h.fc.loc); ok && !t.IsZero() {
		h.st.LastTime = l.Timestamp
	}
	item, payload := l.Type, l.Payload
	if len(payload) == 0 {
		// An envelope-less rollout: a bare session meta, bare response
		// items, and state lines.
		switch {
		case l.RecordType != "":
			return nil
		case l.Type == "" && l.ID != "":
			item, payload = "session_meta", json.RawMessage(data)
		case l.Type != "":
			item, payload = "response_item", json.RawMessage(data)
		default:
			h.st.Reported.report(h.fc, n, "a line without type or payload")
			return nil
		}
	}
	if item != "session_meta" && h.st.Helper {
		return nil // a helper thread of Codex's own
	}
	if item != "session_meta" && h.st.OwnFrom > 0 && l.Ordinal != nil && *l.Ordinal < h.st.OwnFrom ||
		h.copied(payload) {
		return nil // the parent's history, read from the parent's rollout
	}
	switch item {
	case "session_meta", "turn_context":
		var meta codexMeta
		if !h.payload(n, payload, item, &meta) {
			return nil
		}
		h.meta(item, &meta)
		return nil
	case "compacted":
		return h.compacted(n, payload)
	case "retained_context":
		return h.retained(n, payload)
	case "realtime_item":
		return h.realtime(n, payload)
	case "inter_agent_communication":
		return h.interAgent(n, payload)
	case "response_item", "event_msg":
	default:
		if !codexQuietLines[item] {
			h.st.Reported.report(h.fc, n, "line type "+strconv.Quote(item))
		}
		return nil
	}
	// The payload's type first, so that a payload this reader does not
	// use is skipped whatever the rest of its shape (formats drift).
	var head struct {
		Type string `json:"type"`
	}
	if !h.payload(n, payload, item, &head) {
		return nil
	}
	if item == "response_item" && head.Type == "function_call_output" && len(h.st.Asked) > 0 {
		return h.toolOutput(n, payload)
	}
	if item == "response_item" && head.Type == "agent_message" {
		h.turn(n) // another agent's message: not read, but a turn
	}
	if (item == "response_item" && codexQuietItems[head.Type]) || (item == "event_msg" && codexQuietEvents[head.Type]) {
		return nil
	}
	if (item == "response_item" && !codexReadItems[head.Type]) || (item == "event_msg" && !codexReadEvents[head.Type]) {
		// Reported by its type alone: the rest of a shape this reader
		// does not know may not decode as the payloads it reads do.
		h.st.Reported.report(h.fc, n, item+" type "+strconv.Quote(head.Type))
		return nil
	}
	var p codexPayload
	if !h.payload(n, payload, item+" "+head.Type, &p) {
		return nil
	}
	if item == "response_item" {
		return h.responseItem(n, &p, l.Metadata.InheritedUserMessage)
	}
	return h.event(n, &p, payload)
}

// codexMeta holds the fields the reader uses of session_meta and
// turn_context payloads.
type codexMeta struct {
	ID  string `json:"id"`
	Cwd string `json:"cwd"`
	// Source is a string ("cli", "vscode", "exec") for a thread a person
	// started, and {"subagent": ...} for one Codex spawned; newer builds
	// also say "subagent" in ThreadSource.
	Source                      json.RawMessage `json:"source"`
	ThreadSource                string          `json:"thread_source"`
	SubagentHistoryStartOrdinal int64           `json:"subagent_history_start_ordinal"`
}

// codexHelpers are the helper threads Codex runs for itself and records
// in sessions/ beside the user's: the compaction of a thread, the
// consolidation of its memories, the guardian that assesses an action for
// approval. Their prompts are Codex's (the guardian's carry the whole
// conversation it assesses, already read from its own rollout) and their
// answers are for Codex, not for anyone to recall.
var codexHelpers = setOf("compact", "memory_consolidation", "guardian", "guardian_review")

// helper reports whether the session meta is that of a helper thread:
// a source of {"internal": ...}, or of a sub-agent or a thread source
// that codexHelpers names ({"subagent": "compact"}, {"subagent":
// {"other": "guardian"}}).
func (m *codexMeta) helper() bool {
	if codexHelpers[m.ThreadSource] {
		return true
	}
	var source map[string]json.RawMessage
	if json.Unmarshal(m.Source, &source) != nil {
		return false
	}
	if _, ok := source["internal"]; ok {
		return true
	}
	var name string
	var other struct {
		Other string `json:"other"`
	}
	sub := source["subagent"]
	return json.Unmarshal(sub, &name) == nil && codexHelpers[name] ||
		json.Unmarshal(sub, &other) == nil && codexHelpers[other.Other]
}

// subAgent reports whether the session meta is that of a spawned thread.
func (m *codexMeta) subAgent() bool {
	var source map[string]json.RawMessage
	_ = json.Unmarshal(m.Source, &source)
	_, spawned := source["subagent"]
	return spawned || m.ThreadSource == "subagent"
}

// meta follows the session's identity and working directory.
func (h *codexHandler) meta(item string, m *codexMeta) {
	id, cwd := m.ID, m.Cwd
	if item == "turn_context" {
		if cwd != "" {
			h.st.Cwd = cwd
		}
		return
	}
	// A rollout starts with its own session_meta; only the first one
	// names the session, so a session_meta copied in later (a forked
	// history) cannot rename it halfway.
	if h.st.MetaSeen {
		if id != "" && id != h.st.Session && h.st.OwnFrom == 0 && h.st.CopyOf == "" && !h.st.CopyEnded {
			h.st.CopyOf = id // the start of its history, copied in
		}
		return
	}
	h.st.MetaSeen = true
	h.st.SubAgent = m.subAgent()
	h.st.Helper = m.helper()
	h.st.OwnFrom = m.SubagentHistoryStartOrdinal
	if id != "" {
		h.st.Session = id
	}
	if cwd != "" {
		h.st.Cwd = cwd
	}
}

// copied reports whether a line (its payload) is one of the history of
// another thread that Codex copied into this rollout when it forked this
// thread from it: a thread the user forked (/fork, an earlier message
// edited), one an agent spawned with its history (spawn_agent with
// fork_context) or forked (builds that number no lines; newer ones say
// where the spawned thread's own begin: OwnFrom). Such a rollout starts
// with its own session_meta, then the other thread's lines as that
// thread's rollout holds them (its session_meta first, times rewritten),
// then its own. Read again, each of the other thread's prompts and
// answers was indexed once more per fork (a spawned agent's prompts as
// the assistant's). Only lines that the other thread's rollout holds, from
// its session_meta on and up to the first that it does not, are that
// history: when that rollout is not found, every line is read.
func (h *codexHandler) copied(payload json.RawMessage) bool {
	if h.st.CopyOf == "" {
		return false
	}
	if h.copyLines == nil {
		h.copyLines = codexThreadLines(h.fc, h.st.CopyOf)
	}
	if h.copyLines[xxh3.Hash(payload)] {
		return true
	}
	h.st.CopyOf, h.st.CopyEnded = "", true
	return false
}

// codexThreadCache keeps the lines of the last rollout codexThreadLines
// read: the agents spawned together with one history are read one after
// the other.
var codexThreadCache struct {
	sync.Mutex
	key   string
	lines map[uint64]bool
}

// codexThreadLines returns the digests of the payloads (of the whole
// line, in rollouts without the envelope) of the rollout of thread id:
// beside the rollout fc reads, or anywhere in the source's folder. It is
// empty when there is none, and never written to.
func codexThreadLines(fc *fileCtx, id string) map[uint64]bool {
	path := codexFindRollout(fc, id)
	if path == "" {
		return map[uint64]bool{}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return map[uint64]bool{}
	}
	key := fmt.Sprintf("%s\x00%d\x00%d", path, fi.Size(), fi.ModTime().UnixNano())
	codexThreadCache.Lock()
	defer codexThreadCache.Unlock()
	if codexThreadCache.key == key {
		return codexThreadCache.lines
	}
	lines := map[uint64]bool{}
	f, err := openSource(path)
	if err != nil {
		return lines
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".zst") {
		zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return lines
		}
		defer zr.Close()
		r = zr
	}
	sc := newLineScanner(r)
	for i := 0; ; i++ {
		if i%256 == 0 && fc.ctx.Err() != nil {
			return lines // not kept: the read stops
		}
		l, err := sc.next()
		if err != nil {
			break
		}
		data := bytes.TrimSpace(l.data)
		var line struct {
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(data, &line) != nil {
			continue
		}
		if len(line.Payload) == 0 {
			line.Payload = data
		}
		lines[xxh3.Hash(line.Payload)] = true
	}
	codexThreadCache.key, codexThreadCache.lines = key, lines
	return lines
}

// codexFindRollout returns the path of thread id's rollout (the plain
// one when it is still there), looked for beside the rollout fc reads,
// then in the source's folder; "" when there is none.
func codexFindRollout(fc *fileCtx, id string) string {
	if !rolloutUUID.MatchString(id) || len(id) != 36 {
		return ""
	}
	suffix := "-" + id + ".jsonl"
	pick := func(dir string) string {
		for _, name := range []string{suffix, suffix + ".zst"} {
			if m, _ := filepath.Glob(filepath.Join(dir, "rollout-*"+name)); len(m) > 0 {
				return m[0]
			}
		}
		return ""
	}
	if p := pick(filepath.Dir(fc.path)); p != "" {
		return p
	}
	if fi, err := os.Stat(fc.src.Path); err != nil || !fi.IsDir() {
		return ""
	}
	found, root := "", WalkRoot(fc.src.Path)
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		switch {
		case d.IsDir() && p != root && skipsWalk(fc.src, root, p):
			// The folders the listing does not enter (hidden ones, the
			// Codex app's worktrees/ in a Codex home) hold no rollout.
			return fs.SkipDir
		case d.IsDir() || !strings.HasPrefix(name, "rollout-"):
		case strings.HasSuffix(name, suffix):
			found = p
			return fs.SkipAll
		case strings.HasSuffix(name, suffix+".zst"):
			found = p
			if _, err := os.Stat(strings.TrimSuffix(p, ".zst")); err == nil {
				found = strings.TrimSuffix(p, ".zst")
			}
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// skipsWalk reports whether SkipsDir skips the folder at path p under
// root, the folder src's listing walks.
func skipsWalk(src config.Source, root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err != nil || SkipsDir(src, filepath.ToSlash(rel))
}

// responseItem reads a response_item of one of the codexReadItems
// types. An inherited message, copied from the parent thread, is not read
// again, but counts as seen so that its event_msg copy is not read
// either.
func (h *codexHandler) responseItem(n int, p *codexPayload, inherited bool) error {
	switch p.Type {
	case "message":
		if codexSilentRoles[p.Role] {
			return nil
		}
		if p.Role != "user" && p.Role != "assistant" {
			h.st.Reported.report(h.fc, n, "message role "+strconv.Quote(p.Role))
			return nil
		}
		if m, ok := codexInterAgentItem(p.Content); ok {
			// A message between agents, as builds before the
			// inter_agent_communication line wrote it: a turn, as Codex
			// counts them, whatever its role.
			h.turn(n)
			if inherited {
				return nil
			}
			return h.interAgentWords(n, &m)
		}
		if codexTurnBoundary(p) {
			h.turn(n)
		}
		text, parts, ok := h.content(n, p.Role, p.Content)
		if !ok {
			return nil
		}
		key := text
		if p.Role == "assistant" {
			text, key = codexAssistantText(text)
			if len(parts) > 1 {
				// Newer builds show the text items of one answer as one
				// text, joined without a separator.
				_, key = codexAssistantText(strings.Join(parts, ""))
			}
		}
		if inherited {
			h.fresh(p.Role, key, streamItem)
			if p.Role == "assistant" {
				h.answerParts(parts)
			}
			return nil
		}
		if p.Role == "assistant" && h.reviewCopy(key, streamItem) {
			return nil
		}
		if p.Role == "assistant" && h.answerParts(parts) {
			return nil
		}
		return h.keepAs(n, p.Role, text, key, streamItem)
	case "function_call":
		var args map[string]json.RawMessage
		// Arguments that are not a JSON object leave just the name.
		_ = json.Unmarshal([]byte(p.Arguments), &args)
		arg := toolArg(args)
		if arg == "" {
			arg = jsonArg(args["input"])
		}
		if p.Name == codexCreateGoal {
			// The goal the model sets at the user's request is its own
			// words: kept with the call, not again from the goal event.
			arg = strings.TrimSpace(jsonArg(args["objective"]))
			h.st.Goal = textKey(arg)
		}
		h.st.Pending.add(codexToolSummary(p.Name, arg))
		if p.Name == codexRequestUserInput {
			h.asked(p.CallID, args["questions"])
		}
	case "custom_tool_call":
		h.st.Pending.add(codexToolSummary(p.Name, p.Input))
	case "local_shell_call":
		if p.Action != nil {
			h.st.Pending.add(codexToolSummary("shell", strings.Join(p.Action.Command, " ")))
		}
	case "web_search_call":
		if p.Action != nil {
			h.st.Pending.add(formatToolSummary("web_search", p.Action.searched()))
		}
	}
	return nil
}

// answerParts counts the text items of an assistant message of several
// (parts) as seen in the item stream, and reports whether every one was
// seen in the event stream already: older builds write one agent_message
// event per text item, so those events, not the whole message, are then
// the copies of it.
func (h *codexHandler) answerParts(parts []string) bool {
	if len(parts) < 2 {
		return false
	}
	seen := true
	for _, part := range parts {
		_, key := codexAssistantText(part)
		if h.fresh("assistant", key, streamItem) {
			seen = false
		}
	}
	return seen
}

// content returns the text of a message's content: a list of items (text
// items joined, images as a placeholder) or a plain string. texts are the
// text items kept, one by one.
func (h *codexHandler) content(n int, role string, raw json.RawMessage) (text string, texts []string, ok bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return h.userText(role, s), nil, true
	}
	var items []codexContentItem
	if err := json.Unmarshal(raw, &items); err != nil {
		h.fc.problem(n, "unexpected message content: "+trimErr(err))
		return "", nil, false
	}
	var parts []string
	for i, c := range items {
		switch c.Type {
		case "input_text", "output_text", "text":
			if codexImageLabel(items, i) {
				continue
			}
			if t := h.userText(role, c.Text); t != "" {
				parts = append(parts, t)
				texts = append(texts, t)
			}
		case "input_image", "output_image", "image":
			parts = append(parts, imageMark)
		case "input_file", "file":
			parts = append(parts, documentMark)
		case "refusal":
		default:
			h.st.Reported.report(h.fc, n, "message content item type "+strconv.Quote(c.Type))
		}
	}
	return joinItems(parts), texts, true
}

// joinItems joins the items of a message's content. Items are joined on a
// new line, but one that goes on mid-sentence (it starts with punctuation
// or a space, or the one before ends with a space) follows without one:
// newer builds split an answer's text where the stream did ("a file
// saved by Excel" then ", with a BOM") and show the pieces joined.
func joinItems(parts []string) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 && !continues(parts[i-1], p) {
			b.WriteByte('\n')
		}
		b.WriteString(p)
	}
	return b.String()
}

// continues reports whether next goes on from prev's sentence.
func continues(prev, next string) bool {
	last, _ := utf8.DecodeLastRuneInString(prev)
	first, _ := utf8.DecodeRuneInString(next)
	return unicode.IsSpace(last) || unicode.IsSpace(first) || unicode.IsPunct(first) && !strings.ContainsRune("([{\"'`#*-", first)
}

// codexImageLabel reports whether item i is one of the text items Codex
// puts around an image it sends (newer builds): "<image name=[Image #1]>" or
// "<image>" before it and "</image>" after it. The event_msg copy of the
// message has no such items, so they would also keep the two copies from
// being found the same.
func codexImageLabel(items []codexContentItem, i int) bool {
	isImage := func(j int) bool {
		return j >= 0 && j < len(items) && codexImageItems[items[j].Type]
	}
	t := strings.TrimSpace(items[i].Text)
	switch {
	case t == "</image>":
		return isImage(i - 1)
	case t == "<image>", strings.HasPrefix(t, "<image name=") && strings.HasSuffix(t, ">"):
		return isImage(i + 1)
	}
	return false
}

var codexImageItems = setOf("input_image", "output_image", "image")

func (h *codexHandler) userText(role, text string) string {
	if role != "user" {
		return text
	}
	// Rollouts without a session_meta cwd name the working directory
	// only in the environment context the runtime injects.
	if m := codexEnvCwd.FindStringSubmatch(text); m != nil && strings.HasPrefix(strings.TrimSpace(text), "<environment_context>") {
		h.st.Cwd = strings.TrimSpace(m[1])
	}
	return codexUserText(text)
}

// codexEnvCwd finds the working directory in an environment context.
var codexEnvCwd = regexp.MustCompile(`<cwd>([^<]+)</cwd>`)

// event reads an event_msg of one of the codexReadEvents types.
func (h *codexHandler) event(n int, p *codexPayload, payload json.RawMessage) error {
	switch p.Type {
	case "user_message":
		parts := []string{codexUserText(p.Message)}
		for range p.Images {
			parts = append(parts, imageMark)
		}
		return h.keep(n, "user", strings.Join(parts, "\n"), streamEvent)
	case "injected_message":
		// A prompt a timer or another program delivered into the thread,
		// shown as the user's; its response_item is an envelope, dropped.
		var content string
		_ = json.Unmarshal(p.Content, &content)
		return h.keep(n, "user", strings.TrimSpace(content), streamEvent)
	case "agent_message":
		text, key := codexAssistantText(p.Message)
		if h.reviewCopy(key, streamEvent) {
			return nil
		}
		return h.keepAs(n, "assistant", text, key, streamEvent)
	case "entered_review_mode":
		return h.reviewRequest(n, payload)
	case "exited_review_mode":
		return h.reviewFindings(n, payload)
	case "thread_goal_updated":
		return h.goal(n, payload)
	case "thread_name_updated":
		if t := stateText(p.ThreadName); t != "" {
			h.st.Title = t
		}
	case "thread_rolled_back":
		return h.rollback(n, payload)
	}
	return nil
}

// codexTurnBoundary reports whether a response item starts a turn, as
// Codex counts the turns a rollback takes back (codex-rs context
// manager, is_user_turn_boundary): a user message that is not context the
// runtime injected (codexScaffolding, the summary of a compaction
// included), or a message from another agent (an agent_message item). A
// turn the user interrupted before any answer is a turn all the same.
func codexTurnBoundary(p *codexPayload) bool {
	if p.Type == "agent_message" {
		return true
	}
	if p.Type != "message" || p.Role != "user" {
		return false
	}
	var s string
	if json.Unmarshal(p.Content, &s) == nil {
		return !codexIsScaffolding(s)
	}
	var items []codexContentItem
	if json.Unmarshal(p.Content, &items) != nil {
		return false
	}
	for _, c := range items {
		switch c.Type {
		case "input_text", "output_text", "text":
			if codexIsScaffolding(c.Text) {
				return false
			}
		}
	}
	return len(items) > 0
}

// codexInterAgent is the payload of an inter_agent_communication line
// (multi-agent builds, 2026): a message one agent of a thread tree sends
// another (a task for a sub-agent, a sub-agent's result for its parent),
// named by their paths (/root, /root/explorer), as the recipient's
// rollout records it. Its content is rendered for the recipient's model
// in Codex's envelope (codexInterAgentEnvelope), or encrypted.
type codexInterAgent struct {
	Author      string `json:"author"`
	Recipient   string `json:"recipient"`
	Content     string `json:"content"`
	TriggerTurn bool   `json:"trigger_turn"`
}

// codexInterAgentEnvelope is the header Codex renders a message between
// agents in: its kind (NEW_TASK, MESSAGE, FINAL_ANSWER), the recipient,
// the sender, then the payload on the lines after "Payload:".
var codexInterAgentEnvelope = regexp.MustCompile(`\A\s*Message Type: [^\n]*\nTask name: [^\n]*\nSender: [^\n]*\nPayload:[ \t]*\n?`)

// interAgent reads an inter_agent_communication line at line n. A
// message that wakes its recipient to run on it (trigger_turn) starts a
// turn, as Codex counts the turns a rollback takes back (an agent's
// message is a turn boundary there, as a prompt is). Its words are an
// agent's, not the user's: the assistant's, as a sub-agent's prompt is;
// they start the recipient's turn, so the tool calls before them are no
// answer's. An encrypted message gives nothing.
func (h *codexHandler) interAgent(n int, payload json.RawMessage) error {
	var m codexInterAgent
	if !h.payload(n, payload, "inter_agent_communication", &m) {
		return nil
	}
	if m.TriggerTurn {
		h.turn(n)
	}
	return h.interAgentWords(n, &m)
}

// interAgentWords keeps the words of a message between agents at line n.
func (h *codexHandler) interAgentWords(n int, m *codexInterAgent) error {
	text := strings.TrimSpace(codexInterAgentEnvelope.ReplaceAllString(m.Content, ""))
	if text == "" {
		return nil
	}
	h.st.Pending, h.st.ReviewKept = pendingTools{}, false
	return h.record(n, "assistant", text)
}

// codexInterAgentItem returns the message between agents that a response
// item's content is, if it is one: earlier multi-agent builds wrote such
// a message into the recipient's history as a message item whose one
// text is the message as JSON (author, recipient, content, trigger_turn),
// the assistant's (commentary) or, for one that wakes its recipient, the
// user's. Read as it is, the JSON was a record, and the user's.
func codexInterAgentItem(content json.RawMessage) (codexInterAgent, bool) {
	var items []codexContentItem
	if json.Unmarshal(content, &items) != nil || len(items) != 1 {
		return codexInterAgent{}, false
	}
	text := strings.TrimSpace(items[0].Text)
	if !strings.HasPrefix(text, "{") || !strings.Contains(text, `"recipient"`) {
		return codexInterAgent{}, false
	}
	var m codexInterAgent
	if json.Unmarshal([]byte(text), &m) != nil || m.Author == "" || m.Recipient == "" {
		return codexInterAgent{}, false
	}
	return m, true
}

// turn notes that a turn starts at line n.
func (h *codexHandler) turn(n int) { h.st.Turns = append(h.st.Turns, n) }

// rollback reads a thread_rolled_back event at line n: the user took
// back the last num_turns turns (all of them when there are fewer, what
// came before the first staying), counted back from the turns still in
// the conversation, so that repeated rollbacks add up. Newer builds also
// say where what they take back starts (rollback_start_index, the
// 0-based index of the rollout's line), which is then taken as it is.
// The lines from there to the rollback give no record: a look ahead
// found them before they were read (see lookAhead); a rollback it did
// not find, of lines read already, is ErrFileChanged.
//
// The turns are those of this rollout's own lines: a fork's or a
// sub-agent's copy of its parent's history gave no record here, so a
// rollback of more turns than its own takes back all of its own.
func (h *codexHandler) rollback(n int, payload json.RawMessage) error {
	var r struct {
		NumTurns uint64 `json:"num_turns"`
		Start    *int64 `json:"rollback_start_index"`
	}
	if !h.payload(n, payload, "thread_rolled_back", &r) {
		return nil
	}
	// The turn that was going on is over: its tool calls are no
	// answer's.
	h.st.Pending, h.st.ReviewKept = pendingTools{}, false
	var from int
	turns := h.st.Turns
	switch {
	case r.Start != nil && *r.Start >= 0 && *r.Start+1 < int64(n):
		from = int(*r.Start) + 1
		keep := len(turns)
		for keep > 0 && turns[keep-1] >= from {
			keep--
		}
		h.st.Turns = turns[:keep]
	case r.NumTurns == 0:
		return nil
	case r.NumTurns < uint64(len(turns)):
		from = turns[len(turns)-int(r.NumTurns)]
		h.st.Turns = turns[:len(turns)-int(r.NumTurns)]
	case h.st.TurnsForgot:
		// Turns before the ones remembered: they start before any line
		// this read knows of.
		from, h.st.Turns = 0, nil
	case len(turns) == 0:
		return nil // no turn to take back
	default:
		from, h.st.Turns = turns[0], nil
	}
	span := codexSpan{From: from, To: n}
	if h.dry {
		h.found = append(h.found, span)
		return nil
	}
	if !slices.Contains(h.st.Ahead, span) {
		return fmt.Errorf("%w: the rollback at line %d takes back lines read before it was found", ErrFileChanged, n)
	}
	h.st.Ahead = slices.DeleteFunc(h.st.Ahead, func(s codexSpan) bool { return s.To <= n })
	return nil
}

// rolledBack reports whether a rollback after it takes line n back.
func (h *codexHandler) rolledBack(n int) bool {
	return slices.ContainsFunc(h.st.Ahead, func(s codexSpan) bool { return s.From <= n && n < s.To })
}

// reviewRequest keeps the user's /review (entered_review_mode) as a
// prompt: "/review" and what Codex shows of its target (user_facing_hint:
// "current changes", "changes against 'main'", or the user's own
// instructions for a custom review, which newer builds also give in the
// target). The reviewer's prompt that older builds add is Codex's, not
// the user's.
func (h *codexHandler) reviewRequest(n int, payload json.RawMessage) error {
	var r struct {
		Hint   string `json:"user_facing_hint"`
		Target struct {
			Instructions string `json:"instructions"`
		} `json:"target"`
	}
	if !h.payload(n, payload, "entered_review_mode", &r) {
		return nil
	}
	h.st.ReviewKept = false
	what := strings.TrimSpace(r.Hint)
	if what == "" {
		what = strings.TrimSpace(r.Target.Instructions)
	}
	if what == "" {
		return nil
	}
	return h.emit(n, "user", "/review "+what)
}

// payload decodes the payload of line n, of kind what, into v, or
// reports its unexpected shape.
func (h *codexHandler) payload(n int, payload json.RawMessage, what string, v any) bool {
	if err := json.Unmarshal(payload, v); err != nil {
		h.fc.problem(n, "unexpected "+what+" payload: "+trimErr(err))
		return false
	}
	return true
}

// codexReviewOutput holds the fields the reader uses of a review's
// output (exited_review_mode's review_output).
type codexReviewOutput struct {
	Findings []struct {
		Title        string `json:"title"`
		Body         string `json:"body"`
		CodeLocation struct {
			Path  string `json:"absolute_file_path"`
			Lines struct {
				Start int `json:"start"`
				End   int `json:"end"`
			} `json:"line_range"`
		} `json:"code_location"`
	} `json:"findings"`
	Explanation string `json:"overall_explanation"`
}

// reviewFindings keeps what the reviewer found (exited_review_mode) as
// the assistant's answer, the way Codex shows it: the overall
// explanation, then each finding with its location and body. Older builds
// write the findings nowhere else a reader keeps (the <user_action>
// message that hands them to the model is scaffolding); newer ones follow
// the event with an assistant message of the same findings, which is
// then not read again (see reviewCopy). An interrupted review has no
// output.
func (h *codexHandler) reviewFindings(n int, payload json.RawMessage) error {
	var r struct {
		Output *codexReviewOutput `json:"review_output"`
	}
	if !h.payload(n, payload, "exited_review_mode", &r) {
		return nil
	}
	if r.Output == nil {
		return nil
	}
	var sections []string
	if e := strings.TrimSpace(r.Output.Explanation); e != "" {
		sections = append(sections, e)
	}
	if len(r.Output.Findings) > 0 {
		var b strings.Builder
		if len(r.Output.Findings) > 1 {
			b.WriteString("Full review comments:")
		} else {
			b.WriteString("Review comment:")
		}
		for _, f := range r.Output.Findings {
			loc := f.CodeLocation
			fmt.Fprintf(&b, "\n\n- %s — %s:%d-%d", strings.TrimSpace(f.Title), loc.Path, loc.Lines.Start, loc.Lines.End)
			for line := range strings.Lines(strings.TrimSpace(f.Body)) {
				b.WriteString("\n  " + strings.TrimRight(line, "\r\n"))
			}
		}
		sections = append(sections, b.String())
	}
	if len(sections) == 0 {
		return nil
	}
	if err := h.emit(n, "assistant", strings.Join(sections, "\n\n")); err != nil {
		return err
	}
	h.st.ReviewKept = true
	return nil
}

// reviewCopy reports whether an assistant message (its key, from
// stream) is the rendering of findings already kept from their
// exited_review_mode event: the first assistant message after it. It is
// counted as seen, so that its copy in the other stream is not read
// either.
func (h *codexHandler) reviewCopy(key string, stream codexStream) bool {
	if !h.st.ReviewKept {
		return false
	}
	h.st.ReviewKept = false
	h.fresh("assistant", key, stream)
	return true
}

// goal keeps the objective of a goal the user set for a long-running
// task with /goal (thread_goal_updated), the user's words: no other line
// holds them (the continuation prompts that repeat them are the
// developer's, or hidden context: see codexScaffolding). Codex writes the goal again at each change of its status
// or usage, so an objective is kept once, until another replaces it; one
// the model set with create_goal is kept with that call. The turn goes
// on, so its tool calls stay pending for the answer.
func (h *codexHandler) goal(n int, payload json.RawMessage) error {
	var g struct {
		Goal struct {
			Objective string `json:"objective"`
		} `json:"goal"`
	}
	if !h.payload(n, payload, "thread_goal_updated", &g) {
		return nil
	}
	objective := strings.TrimSpace(g.Goal.Objective)
	key := textKey(objective)
	if objective == "" || key == h.st.Goal {
		return nil
	}
	h.st.Goal = key
	if h.dry {
		return nil
	}
	// The goal is the thread's, not a turn's: a rollback leaves it.
	return h.put(n, "user", objective)
}

// compacted keeps the summary Codex wrote when it compacted the session.
// Its replacement_history is the history Codex kept in its place: copies
// of messages already read from this rollout (or the one it was forked
// from), so they are not read again.
func (h *codexHandler) compacted(n int, payload json.RawMessage) error {
	var c struct {
		Message            string            `json:"message"`
		ReplacementHistory []json.RawMessage `json:"replacement_history"`
	}
	if !h.payload(n, payload, "compacted", &c) {
		return nil
	}
	if len(c.ReplacementHistory) > 0 {
		h.compactTurns(c.ReplacementHistory)
	}
	if strings.TrimSpace(c.Message) == "" {
		return nil
	}
	return h.emit(n, "assistant", c.Message)
}

// compactTurns keeps the turns a compaction kept: the history that
// replaces the conversation holds the last prompts (those that fit), so
// a rollback after it counts back over those only, and one of more
// takes back all of them, not the turns the compaction let go.
func (h *codexHandler) compactTurns(history []json.RawMessage) {
	kept := 0
	for _, raw := range history {
		var p codexPayload
		if json.Unmarshal(raw, &p) == nil && codexTurnBoundary(&p) {
			kept++
		}
	}
	if kept <= len(h.st.Turns) {
		h.st.Turns, h.st.TurnsForgot = h.st.Turns[len(h.st.Turns)-kept:], false
	}
}

// asked remembers the questions of a request_user_input call, for the
// answers its output gives by question id.
func (h *codexHandler) asked(call string, raw json.RawMessage) {
	var questions []struct {
		ID       string `json:"id"`
		Question string `json:"question"`
	}
	if call == "" || json.Unmarshal(raw, &questions) != nil {
		return
	}
	a := codexAsked{Call: call}
	for _, q := range questions {
		a.Questions = append(a.Questions, [2]string{q.ID, stateText(q.Question)})
	}
	if len(h.st.Asked) == codexAskWindow {
		h.st.Asked = h.st.Asked[1:]
	}
	h.st.Asked = append(h.st.Asked, a)
}

// toolOutput reads the output of a tool call: that of a request_user_input
// call is the user's answers ({"answers": {question id: {"answers":
// [...]}}}), kept as the user's words; any other is dropped.
func (h *codexHandler) toolOutput(n int, payload json.RawMessage) error {
	var out struct {
		CallID string          `json:"call_id"`
		Output json.RawMessage `json:"output"`
	}
	if json.Unmarshal(payload, &out) != nil {
		return nil
	}
	i := slices.IndexFunc(h.st.Asked, func(a codexAsked) bool { return a.Call == out.CallID })
	if i < 0 {
		return nil
	}
	asked := h.st.Asked[i]
	h.st.Asked = slices.Delete(h.st.Asked, i, i+1)
	var resp struct {
		Answers map[string]struct {
			Answers []string `json:"answers"`
		} `json:"answers"`
	}
	if json.Unmarshal([]byte(codexOutputText(out.Output)), &resp) != nil {
		return nil // cancelled, or an error the model was told
	}
	var pairs [][2]string
	for _, q := range asked.Questions {
		if a, ok := resp.Answers[q[0]]; ok {
			pairs = append(pairs, [2]string{q[1], strings.Join(a.Answers, ", ")})
		}
	}
	return h.answers(n, asked.Call, pairs)
}

// codexOutputText returns the text of a tool output: a string, or a list
// of content items whose texts are joined.
func codexOutputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var items []codexContentItem
	if json.Unmarshal(raw, &items) != nil {
		return ""
	}
	var parts []string
	for _, it := range items {
		parts = append(parts, it.Text)
	}
	return strings.Join(parts, "")
}

// retained reads a retained_context line: a verified_answer is the
// questions of a request_user_input call with the user's answers, written
// beside the tool output (or without it, when that was lost).
func (h *codexHandler) retained(n int, payload json.RawMessage) error {
	var r struct {
		Type      string `json:"type"`
		CallID    string `json:"call_id"`
		Questions []struct {
			Question string `json:"question"`
			Answer   string `json:"answer"`
		} `json:"questions"`
	}
	if !h.payload(n, payload, "retained_context", &r) {
		return nil
	}
	if r.Type != "verified_answer" {
		return nil
	}
	h.st.Asked = slices.DeleteFunc(h.st.Asked, func(a codexAsked) bool { return a.Call == r.CallID })
	var pairs [][2]string
	for _, q := range r.Questions {
		pairs = append(pairs, [2]string{strings.TrimSpace(q.Question), q.Answer})
	}
	return h.answers(n, r.CallID, pairs)
}

// answers keeps the user's answers to one request_user_input call, once
// whichever line gives them first: each as "question"="answer" (the form
// Claude Code writes its AskUserQuestion answers in), one per line. The
// turn goes on, so its tool calls stay pending for the answer.
func (h *codexHandler) answers(n int, call string, pairs [][2]string) error {
	if call != "" {
		if slices.Contains(h.st.Answered, call) {
			return nil
		}
		if len(h.st.Answered) == codexAskWindow {
			h.st.Answered = h.st.Answered[1:]
		}
		h.st.Answered = append(h.st.Answered, call)
	}
	var lines []string
	for _, p := range pairs {
		answer := strings.TrimSpace(p[1])
		switch {
		case answer == "":
		case p[0] == "":
			lines = append(lines, answer)
		default:
			lines = append(lines, `"`+p[0]+`"="`+answer+`"`)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return h.record(n, "user", strings.Join(lines, "\n"))
}

// realtime reads a realtime_item line: a transcript_segment is what the
// user or the assistant said in a voice conversation, which no other line
// holds; the session's start, end and presentation marks carry nothing to
// remember. The segment's role and text are fields of the payload; some
// builds nest them in a "data" object.
func (h *codexHandler) realtime(n int, payload json.RawMessage) error {
	type segment struct {
		Role string `json:"role"`
		Text string `json:"text"`
	}
	var r struct {
		Type string `json:"type"`
		segment
		Data *segment `json:"data"`
	}
	if !h.payload(n, payload, "realtime_item", &r) {
		return nil
	}
	switch r.Type {
	case "transcript_segment":
	case "realtime_session_started", "realtime_session_closed", "bem_item_promoted":
		return nil
	default:
		h.st.Reported.report(h.fc, n, "realtime_item type "+strconv.Quote(r.Type))
		return nil
	}
	seg := r.segment
	if r.Data != nil {
		seg = *r.Data
	}
	if seg.Role != "user" && seg.Role != "assistant" {
		h.st.Reported.report(h.fc, n, "realtime transcript role "+strconv.Quote(seg.Role))
		return nil
	}
	return h.emit(n, seg.Role, strings.TrimSpace(seg.Text))
}

// codexUserText returns what the user said in one user-role text: ""
// for runtime scaffolding, and only the request when the IDE extension
// wrapped it in editor context.
func codexUserText(text string) string {
	if m := codexShellCommand.FindStringSubmatch(text); m != nil {
		return "!" + m[1]
	}
	if codexIsScaffolding(text) {
		return ""
	}
	trimmed := strings.TrimSpace(text)
	if i := strings.LastIndex(trimmed, codexIDERequest); i >= 0 {
		trimmed = strings.TrimSpace(trimmed[i+len(codexIDERequest):])
	}
	return trimmed
}

// codexShellCommand finds the command in the record Codex makes of a
// shell command the user ran with "!" (codex-rs user_shell_command.rs:
// <user_shell_command>, <command>, then the exit code and output in
// <result>). The command is what the user typed, kept as "!command" as
// Claude Code's bash mode is (claudeBashInput); the output is not theirs.
var codexShellCommand = regexp.MustCompile(`(?is)\A\s*<user_shell_command>\s*<command>\s*(.*?)\s*</command>`)

// codexIsScaffolding reports whether a user-role text is runtime
// scaffolding (codexScaffolding), not the user speaking.
func codexIsScaffolding(text string) bool {
	trimmed := strings.TrimSpace(text)
	for _, prefix := range codexScaffolding {
		if len(trimmed) >= len(prefix) && strings.EqualFold(trimmed[:len(prefix)], prefix) {
			return true
		}
	}
	return false
}

// keep emits one utterance unless it is the second copy of one already
// emitted. Codex writes every utterance twice, as a response_item and as
// an event_msg, so a copy from one stream is a duplicate while that stream
// has no more copies of the same (role, text) than the other. Unlike a
// plain seen-set, this keeps a prompt the user really repeated ("go on").
func (h *codexHandler) keep(n int, role, text string, stream codexStream) error {
	return h.keepAs(n, role, text, text, stream)
}

// keepAs is keep for an utterance whose two copies are told the same by
// key rather than by the text kept (see codexAssistantText).
func (h *codexHandler) keepAs(n int, role, text, key string, stream codexStream) error {
	if !h.fresh(role, key, stream) {
		return nil
	}
	return h.emit(n, role, text)
}

// fresh counts one copy of an utterance from stream and reports whether
// it is the first copy of it (see keep).
func (h *codexHandler) fresh(role, text string, stream codexStream) bool {
	norm := normalizeSpace(strings.ReplaceAll(text, imageMark, ""))
	if norm == "" {
		return false
	}
	key := textKey(role + "\x00" + norm)
	i := -1
	for j := range h.st.Seen {
		if h.st.Seen[j].Key == key {
			i = j
			break
		}
	}
	var seen codexSeen
	if i >= 0 {
		seen = h.st.Seen[i]
		h.st.Seen = append(h.st.Seen[:i], h.st.Seen[i+1:]...)
	} else {
		seen.Key = key
		if len(h.st.Seen) == codexSeenWindow {
			h.st.Seen = h.st.Seen[1:]
		}
	}
	seen.N[stream]++
	h.st.Seen = append(h.st.Seen, seen)
	return seen.N[stream] > seen.N[1-stream]
}

// emit makes the record of line n. Tool calls belong to the answer that
// follows them; a new prompt starts a new turn and drops them. A
// sub-agent's prompt is the main agent's: the assistant's.
func (h *codexHandler) emit(n int, role, text string) error {
	if role == "assistant" {
		text = h.st.Pending.take(text)
	}
	h.st.Pending = pendingTools{}
	if role == "user" {
		h.st.ReviewKept = false
	}
	if role == "user" && h.st.SubAgent {
		role = "assistant"
	}
	return h.record(n, role, text)
}

// record makes the record of line n, leaving pending tool calls alone;
// none when a rollback takes the line back, or when looking ahead.
func (h *codexHandler) record(n int, role, text string) error {
	if h.dry || h.rolledBack(n) {
		return nil
	}
	return h.put(n, role, text)
}

// put makes the record of line n.
func (h *codexHandler) put(n int, role, text string) error {
	_, t, _ := parseDate(h.st.LastTime, h.fc.loc)
	m := message{role: role, text: text, title: h.st.Title, time: t, cwd: h.st.Cwd, line: n}
	session := h.st.Session
	rec, ok := m.record(h.fc, config.KindCodex, session, session+":"+strconv.Itoa(n), session)
	if !ok {
		return nil
	}
	return h.fc.emit(rec)
}

// patchFile matches the file lines of a Codex apply_patch envelope.
var patchFile = regexp.MustCompile(`(?m)^\*\*\* (?:Add|Update|Delete) File: (.+)$`)

// codexToolSummary summarizes a Codex tool call. An apply_patch envelope
// (given to the apply_patch tool, or to shell in older builds) becomes the
// list of files it touches: the patch body is an edit, not something to
// remember.
func codexToolSummary(name, arg string) string {
	if !strings.Contains(arg, "*** Begin Patch") {
		return formatToolSummary(name, arg)
	}
	var files []string
	for _, m := range patchFile.FindAllStringSubmatch(arg, -1) {
		files = append(files, strings.TrimSpace(m[1]))
	}
	return formatToolSummary("apply_patch", strings.Join(files, " "))
}

// Markup Codex hides from an assistant message's visible text (codex-rs
// utils/stream-parser): a memory citation, written inline and ended by its
// close tag or the end of the text (<oai-mem-citation>, <citation> in the
// builds before it), and, in Plan mode, a proposed plan between tags that
// stand alone on their lines.
//
// <citation> is also an element of XML an answer may show (JATS, TEI), so
// that tag is taken for Codex's only around the <citation_entries> Codex
// writes in it, and only when closed.
var codexCitationTags = []struct{ open, close, inner string }{
	{"<oai-mem-citation>", "</oai-mem-citation>", ""},
	{"<citation>", "</citation>", "<citation_entries>"},
}

const (
	codexPlanOpen  = "<proposed_plan>"
	codexPlanClose = "</proposed_plan>"
)

// codexFileCitation matches the source citations of older Codex models,
// 【F:path†L10-L20】, which the CLI (codex-rs tui citation_regex.rs)
// showed as a link labelled path:10.
var codexFileCitation = regexp.MustCompile(`【F:([^†]+)†L(\d+)(?:-L(?:\d+|\?))?】`)

// codexAssistantText returns the text to keep of an assistant message and
// the key its copies are told the same by. The response_item holds the
// model's raw text; its event_msg copy holds what Codex shows, without the
// memory citations and (in Plan mode) without the proposed plan, which the
// UI shows apart (an item_completed Plan event). The citation names memory
// files and rollout ids, nothing said, so it is dropped; the plan is what
// the user asked for in Plan mode, so its text is kept without its tags,
// and the key leaves it out so that the shown copy is found the same. A
// message that is only a plan is keyed by the plan (its shown copy is
// empty and is never kept). A source citation, in both copies, is kept as
// the path:line the CLI showed.
func codexAssistantText(raw string) (text, key string) {
	if strings.Contains(raw, "【F:") {
		raw = codexFileCitation.ReplaceAllString(raw, "$1:$2")
	}
	if !strings.Contains(raw, codexPlanOpen) && !slices.ContainsFunc(codexCitationTags, func(tag struct{ open, close, inner string }) bool {
		return strings.Contains(raw, tag.open)
	}) {
		return raw, raw
	}
	for _, tag := range codexCitationTags {
		raw = stripCodexCitations(raw, tag.open, tag.close, tag.inner)
	}
	var kept, shown strings.Builder
	inPlan := false
	for line := range strings.SplitAfterSeq(raw, "\n") {
		switch t := strings.TrimSpace(line); {
		case !inPlan && t == codexPlanOpen:
			inPlan = true
		case inPlan && t == codexPlanClose:
			inPlan = false
		default:
			kept.WriteString(line)
			if !inPlan {
				shown.WriteString(line)
			}
		}
	}
	text, key = kept.String(), shown.String()
	if strings.TrimSpace(key) == "" {
		key = text
	}
	return text, key
}

// stripCodexCitations removes the memory citations between openTag and
// closeTag from text; one left open runs to the end of the text, as Codex
// reads it. With inner, only closed ones that hold inner are citations.
func stripCodexCitations(text, openTag, closeTag, inner string) string {
	var out strings.Builder
	for {
		i := strings.Index(text, openTag)
		if i < 0 {
			break
		}
		rest := text[i+len(openTag):]
		j := strings.Index(rest, closeTag)
		switch {
		case j < 0 && inner == "":
			text = text[:i]
		case j < 0:
			out.WriteString(text)
			text = ""
		case inner != "" && !strings.Contains(rest[:j], inner):
			out.WriteString(text[:i+len(openTag)])
			text = rest
			continue
		default:
			out.WriteString(text[:i])
			text = rest[j+len(closeTag):]
			continue
		}
		break
	}
	out.WriteString(text)
	return out.String()
}
