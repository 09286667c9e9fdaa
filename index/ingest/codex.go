package ingest

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/nova-recall/nova/config"
)

// Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, and
// ~/.codex/archived_sessions/rollout-*.jsonl once a thread is archived) are
// read line by line into one record per user prompt and per assistant
// message, whatever the rollout's version (and the sessions the
// TypeScript CLI of 2025 saved as one JSON document, rollout-*.json, item
// by item: see readCodexLegacy):
//
//   - 0.42 to 0.146 write {"timestamp","type","payload"} lines of types
//     session_meta, turn_context, response_item, event_msg, compacted and
//     (newer) world_state and inter-agent metadata;
//   - older rollouts wrote a bare session meta line and bare response
//     items, without the envelope;
//   - newer ones write a large session_meta (and a few markers) in a file
//     of its own, the line only naming it (rollout_payload_artifact, see
//     hydrate);
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
// (exited_review_mode) the assistant's answer, read from the
// item_completed events that carry them in paginated rollouts (newer
// builds, session_meta history_mode "paginated"), and a goal set for a
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
// an action, the reviewer a /review runs) are not read at all. A message one agent sends another (a
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
	codexSummaryPrefix,
	"Warning: apply_patch was requested via ",
	"Warning: The maximum number of unified exec processes you can keep open is",
	"Warning: Your account was flagged for potentially high-risk cyber activity",
}

// codexSummaryPrefix opens the line Codex puts before the summary of a
// compaction it made itself (not by the provider's compaction endpoint)
// to hand it to the model: in the message of the user-role summary it
// replaces the history with and, as of 0.5x, in the compacted line's
// message.
const codexSummaryPrefix = "Another language model started to solve this problem and produced a summary"

// codexIDERequest separates the editor context the Codex IDE extension
// prepends to a prompt from the prompt itself.
const codexIDERequest = "## My request for Codex:"

// Known shapes that carry nothing to remember; anything else not handled
// is reported (see shapeReports).
var (
	// tool_manifest (the tools offered) and sampling_boundary (a model
	// request's bounds and timing) are the markers newer builds keep for
	// replay, as the model_reroute, model_verification, hook_started,
	// hook_completed and thread_settings_applied events are (codex-rs
	// rollout policy.rs, 2026-11): a hook's output is no one's words.
	codexQuietLines = setOf("world_state", "inter_agent_communication_metadata", "security_risk_score",
		"token_usage_record", "tool_manifest", "sampling_boundary")
	// agent_message items (2026) are messages between agents, not the
	// answer (the assistant message and the agent_message event are).
	codexQuietItems = setOf("reasoning", "function_call_output", "custom_tool_call_output", "tool_search_call",
		"tool_search_output", "image_generation_call", "compaction", "compaction_summary", "context_compaction",
		"ghost_snapshot", "additional_tools", "agent_message", "other")
	codexQuietEvents = setOf("agent_reasoning", "agent_reasoning_raw_content", "agent_reasoning_section_break",
		"token_count", "task_started", "task_complete", "turn_started", "turn_complete", "turn_aborted",
		"context_compacted", "patch_apply_begin", "patch_apply_end", "exec_command_begin", "exec_command_end",
		"mcp_tool_call_begin", "mcp_tool_call_end", "web_search_begin", "web_search_end",
		"image_generation_begin", "image_generation_end", "view_image_tool_call", "item_started",
		"plan_update", "turn_diff", "error", "stream_error", "warning", "background_event", "guardian_assessment",
		"session_configured", "shutdown_complete", "undo_started", "undo_completed", "deprecation_notice",
		"mcp_startup_update", "mcp_startup_complete", "collab_agent_spawn_end", "collab_agent_interaction_end",
		"collab_waiting_end", "collab_close_end", "collab_resume_end", "dynamic_tool_call_request",
		"dynamic_tool_call_response", "conversation_path", "get_history_entry_response",
		"sub_agent_activity", "model_reroute", "model_verification", "hook_started", "hook_completed",
		"thread_settings_applied")
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
	// InReview is set from a review's entered_review_mode to its
	// exited_review_mode: the user_message events between them are the
	// reviewer's thread's, sent on (see reviewRequest).
	InReview bool `json:"inReview,omitempty"`
	// ReviewItems is set once a review was read from its item_completed
	// events: the entered_review_mode and exited_review_mode events of
	// the rollout are then their copies (see itemCompleted).
	ReviewItems bool `json:"reviewItems,omitempty"`
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
			// The reviewer's prompt is no item of this thread: a prompt
			// that is ends a review whose exit was never written (Codex
			// stopped mid-review).
			h.st.InReview = false
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
	// A prompt's text names each image pasted into it ("[Image #1] why
	// ..."): the name is the image's mark, and only images it does not
	// name are marked where they are (as Claude Code's are).
	imgRef := imageRef()
	refs, images := 0, 0
	if role == "user" {
		for i, c := range items {
			if codexTextItems[c.Type] && !codexMediaLabel(items, i) {
				refs += len(imgRef.FindAllStringIndex(c.Text, -1))
			}
		}
	}
	for i, c := range items {
		switch c.Type {
		case "input_text", "output_text", "text":
			if codexMediaLabel(items, i) {
				continue
			}
			if mark := codexMediaErrorMark(c.Text); mark != "" && role == "user" {
				// The image Codex could not attach is still the one
				// the text names.
				if mark != imageMark {
					parts = append(parts, mark)
				} else if images++; images > refs {
					parts = append(parts, mark)
				}
				continue
			}
			if t := h.userText(role, c.Text); t != "" {
				if refs > 0 {
					t = imgRef.ReplaceAllString(t, imageMark)
				}
				parts = append(parts, t)
				texts = append(texts, t)
			}
		case "input_image", "output_image", "image":
			if images++; images > refs {
				parts = append(parts, imageMark)
			}
		case "input_audio":
			parts = append(parts, audioMark)
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

// codexMediaLabel reports whether item i is one of the text items Codex
// puts around an image or an audio file it sends (newer builds):
// "<image name=[Image #1] path=...>" or "<image>" before an image and
// "</image>" after it, "<audio name=[Audio #1] path=...>" or "<audio>"
// and "</audio>" around an audio file. The event_msg copy of the message
// has no such items, so they would also keep the two copies from being
// found the same.
func codexMediaLabel(items []codexContentItem, i int) bool {
	isMedia := func(j int, kind string) bool {
		return j >= 0 && j < len(items) && codexMediaItems[items[j].Type] == kind
	}
	t := strings.TrimSpace(items[i].Text)
	for _, kind := range []string{"image", "audio"} {
		switch {
		case t == "</"+kind+">":
			return isMedia(i-1, kind)
		case t == "<"+kind+">", strings.HasPrefix(t, "<"+kind+" name=") && strings.HasSuffix(t, ">"):
			return isMedia(i+1, kind)
		}
	}
	return false
}

// codexMediaMarks removes the marks of the files a prompt holds, which
// its event copy does not have (its images are a field of their own, its
// local files are not marked).
var codexMediaMarks = strings.NewReplacer(imageMark, "", audioMark, "")

// codexTextItems are the content items of text.
var codexTextItems = setOf("input_text", "output_text", "text")

// codexMediaItems are the content items of an image or an audio file.
var codexMediaItems = map[string]string{
	"input_image": "image", "output_image": "image", "image": "image",
	"input_audio": "audio",
}

// codexMediaError matches the text Codex puts in a prompt in place of a
// local image or audio file it could not attach (codex-rs protocol
// models.rs: local_image_error_placeholder or, newer,
// local_media_error_placeholder, invalid_image_error_placeholder,
// unsupported_image_error_placeholder, unsupported_audio_error_placeholder):
// the file the user gave, not their words, and absent from the
// user_message copy, so kept as its mark (the copies are then found the
// same). Its groups name the kind of file, image when none does.
var codexMediaError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("\\A(?:Codex could not read the local (image|audio) at `[^`]*`: |" +
		"Image located at `[^`]*` is invalid: |Codex cannot attach (image|audio) at `[^`]*`: unsupported )")
})

// codexMediaErrorMark returns the mark of the file a text stands in for
// (see codexMediaError), or "" when it is none.
func codexMediaErrorMark(text string) string {
	m := codexMediaError().FindStringSubmatch(text)
	switch {
	case m == nil:
		return ""
	case m[1]+m[2] == "audio":
		return audioMark
	}
	return imageMark
}

func (h *codexHandler) userText(role, text string) string {
	if role != "user" {
		return text
	}
	// Rollouts without a session_meta cwd name the working directory
	// only in the environment context the runtime injects.
	if m := codexEnvCwd().FindStringSubmatch(text); m != nil && strings.HasPrefix(strings.TrimSpace(text), "<environment_context>") {
		h.st.Cwd = strings.TrimSpace(m[1])
	}
	return codexUserText(text)
}

// codexEnvCwd finds the working directory in an environment context.
var codexEnvCwd = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<cwd>([^<]+)</cwd>`) })

// event reads an event_msg of one of the codexReadEvents types.
func (h *codexHandler) event(n int, p *codexPayload, payload json.RawMessage) error {
	switch p.Type {
	case "user_message":
		if h.st.InReview {
			return nil // the reviewer's prompt, which Codex wrote
		}
		text := codexUserText(p.Message)
		refs := len(imageRef().FindAllStringIndex(text, -1))
		parts := []string{imageRef().ReplaceAllString(text, imageMark)}
		for range max(len(p.Images)-refs, 0) {
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
		if h.st.ReviewItems {
			return nil // read from its item
		}
		return h.reviewRequest(n, payload)
	case "exited_review_mode":
		if h.st.ReviewItems {
			return nil
		}
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

// codexUserText returns what the user said in one user-role text: ""
// for runtime scaffolding, and only the request when the IDE extension
// wrapped it in editor context.
func codexUserText(text string) string {
	if m := codexShellCommand().FindStringSubmatch(text); m != nil {
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
var codexShellCommand = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?is)\A\s*<user_shell_command>\s*<command>\s*(.*?)\s*</command>`)
})

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
	norm := normalizeSpace(codexMediaMarks.Replace(text))
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

// patchFile matches the file lines of a Codex apply_patch envelope, which
// opens with patchBegin.
var patchFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\*\*\* (?:Add|Update|Delete) File: (.+)$`) })

const patchBegin = "*** Begin Patch"

// patchFiles returns the files an apply_patch envelope touches.
func patchFiles(patch string) []string {
	var files []string
	for _, m := range patchFile().FindAllStringSubmatch(patch, -1) {
		files = append(files, strings.TrimSpace(m[1]))
	}
	return files
}

// codexToolSummary summarizes a Codex tool call. An apply_patch envelope
// (given to the apply_patch tool, or to shell in older builds) becomes the
// list of files it touches: the patch body is an edit, not something to
// remember.
func codexToolSummary(name, arg string) string {
	if !strings.Contains(arg, patchBegin) {
		return formatToolSummary(name, arg)
	}
	return formatToolSummary("apply_patch", strings.Join(patchFiles(arg), " "))
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
var codexFileCitation = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`【F:([^†]+)†L(\d+)(?:-L(?:\d+|\?))?】`) })

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
		raw = codexFileCitation().ReplaceAllString(raw, "$1:$2")
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
