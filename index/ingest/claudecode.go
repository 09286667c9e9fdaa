package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// Claude Code transcripts (projects/<encoded-cwd>/<sessionId>.jsonl, and
// sub-agent sidechains under <sessionId>/subagents/ or, in older builds,
// agent-<id>.jsonl beside the session; not the agent that compacts the
// session nor the one that suggests the next prompt, see kindExcludes)
// are read line by line into one
// record per human prompt and per assistant text line, for every 1.x and
// 2.x shape: 1.x writes a whole reply on one line, 2.x one line per
// content block (thinking, text, tool use) sharing the message id.
// Thinking, tool results, injected reminders, meta lines, binary blocks,
// the placeholders Claude Code writes in place of a reply and the turns a
// forked or resumed session copies from the one it continues (read from
// that one's file) are dropped; tool calls are summarized on the next
// text of the assistant (or of the same line), but for the plan the
// assistant presents for approval (ExitPlanMode) and the message it sends
// the user in brief mode (SendUserMessage), which are its text. The prompt that hands an
// approved plan to a new session is kept without Claude Code's pointer
// and hint. The summary written when
// the session was compacted, and the recap written for a person coming
// back to it, are assistant records, as Codex's summaries are. A slash
// command typed with arguments is the user's "/name arguments", from the
// user line that echoes it or, for the commands the CLI runs itself in
// 2.1, from a system line of subtype local_command; its output is not. The
// session's title (a summary line, an AI title, a title the user set) is
// the title of every record read after it. A message one agent of a team
// sends another (teammate-message) is the assistant's, not the user's,
// and the team's protocol notices are dropped. A prompt typed while a
// turn ran is read from the user line or attachment that carries it, or,
// when the turn took it in and no line does, from the queue's line of it
// (see queueOperation), by the reply or, when none follows, at the end of
// what is written (see end). The prompt Claude Code sends itself to
// resume a cut-off turn is dropped (claudeResumePing), and a /btw aside's
// file gives its question and answer only (see claudeAside). A line
// shape the reader does not know is reported once per file.

// claudeLine is one line of a Claude Code transcript, with the fields the
// reader uses.
type claudeLine struct {
	Type             string `json:"type"`
	UUID             string `json:"uuid"`
	SessionID        string `json:"sessionId"`
	Timestamp        string `json:"timestamp"`
	Cwd              string `json:"cwd"`
	IsMeta           bool   `json:"isMeta"`
	IsCompactSummary bool   `json:"isCompactSummary"`
	IsSidechain      bool   `json:"isSidechain"`
	AgentID          string `json:"agentId"`
	// Origin ({"kind": ...}) and PromptSource (2.1) say who wrote a user
	// line: Claude Code marks the turns it injects itself (see
	// claudeInjected). Raw, so that a shape of theirs this reader does not
	// expect costs only the mark, not the line.
	Origin       json.RawMessage `json:"origin"`
	PromptSource json.RawMessage `json:"promptSource"`
	// TurnOrigin (2.1) says the same in a word; a scheduled task's run
	// is "scheduled" there, though its origin may be "human".
	TurnOrigin json.RawMessage `json:"turnOrigin"`
	// IsAPIErrorMessage marks a synthetic assistant line reporting a
	// failed API call.
	IsAPIErrorMessage bool            `json:"isApiErrorMessage"`
	Message           json.RawMessage `json:"message"`
	// Titles: summary lines (1.x and 2.x), ai-title and custom-title
	// lines (2.1).
	Summary     string `json:"summary"`
	AITitle     string `json:"aiTitle"`
	CustomTitle string `json:"customTitle"`
	// Attachment is what an attachment line (2.1) carries: among hook
	// results and listings, a prompt typed while a turn was running.
	Attachment json.RawMessage `json:"attachment"`
	// ForkedFrom ({"sessionId", "messageUuid"}, 2.1) marks a line a
	// forked session starts with: a copy of a line of the session it was
	// forked from.
	ForkedFrom json.RawMessage `json:"forkedFrom"`
	// Subtype and Content are a system line's kind and text.
	Subtype string          `json:"subtype"`
	Content json.RawMessage `json:"content"`
	// PlanContent is the plan a plan handoff quotes (see claudeHandoff).
	PlanContent string `json:"planContent"`
	// Operation and Reason are what a queue-operation line did to the
	// queue of prompts typed while a turn ran, and why (see
	// queueOperation); its Content is the prompt.
	Operation string `json:"operation"`
	Reason    string `json:"reason"`
	// ToolUseResult is what a tool gave, on the user line that hands it
	// to the model: never on a typed prompt (see commandOutput).
	ToolUseResult json.RawMessage `json:"toolUseResult"`
}

type claudeMessage struct {
	// ID is the API message id shared by all the lines of one reply.
	ID string `json:"id"`
	// Model is the model that wrote an assistant message, or
	// claudeSynthetic for one Claude Code wrote itself.
	Model string `json:"model"`
	// Content is a string (a typed prompt) or a list of blocks.
	Content json.RawMessage `json:"content"`
}

type claudeBlock struct {
	Type  string                     `json:"type"`
	Text  string                     `json:"text"`
	Name  string                     `json:"name"`
	Input map[string]json.RawMessage `json:"input"`
}

// claudeScaffolding are the blocks Claude Code wraps into user text that
// the user did not write: reminders injected by the runtime and the echo
// of slash commands and their local output. Some open with attributes
// (<mcp-resource-update server="..." uri="...">).
var claudeScaffolding = sync.OnceValue(func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, tag := range []string{
		"system-reminder", "command-name", "command-message", "command-args",
		"local-command-stdout", "local-command-stderr", "local-command-caveat", "bash-stdout", "bash-stderr",
		// A background shell or agent that finished (2.0 and 2.1).
		"bash-notification", "task-notification",
		// Context added to a prompt: the file open and the lines selected
		// in the editor (IDE extensions), a prompt hook's output.
		"ide_opened_file", "ide_selection", "user-prompt-submit-hook",
		// Notices Claude Code hands the model as user turns (2.1): an MCP
		// resource changed or a polled tool's state did, activity on a
		// GitHub pull request the session watches, the standing
		// instructions of a forked sub-agent (its task follows them).
		"mcp-resource-update", "mcp-polling-update", "github-webhook-activity", "fork-boilerplate",
		// The prompt of a scheduled task's run, which Claude Code sends
		// itself (and marks of origin "human").
		"scheduled-task",
		// A SessionStart hook's output handed to the model in a user line,
		// and the wake-up proactive mode sends itself (the user's local
		// time): the Agent SDK's session listing skips prompts that begin
		// with either.
		"session-start-hook", "tick",
	} {
		out = append(out, regexp.MustCompile(`(?s)<`+tag+`(?:\s[^>]*)?>.*?</`+tag+`>`))
	}
	return out
})

// Placeholders Claude Code writes where there is no reply: the model of
// an assistant message it made up itself ("No response requested." after
// an interruption, API errors) and the text of an empty streamed block.
const (
	claudeSynthetic = "<synthetic>"
	claudeNoContent = "(no content)"
)

var (
	// claudeCommandName and claudeCommandArgs find the echo of a slash
	// command, whose arguments are what the user typed after its name.
	claudeCommandName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<command-name>(.*?)</command-name>`) })
	claudeCommandArgs = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<command-args>(.*?)</command-args>`) })
	// claudeBashInput is a shell command the user ran in bash mode ("!"),
	// claudeMemoryInput what they asked Claude Code to remember ("#",
	// 1.x), claudeChannel a message they sent from a chat app through a
	// channel (2.1), whose attributes name the chat.
	claudeBashInput   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<bash-input>(.*?)</bash-input>`) })
	claudeMemoryInput = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)<user-memory-input>\s*(.*?)\s*</user-memory-input>`)
	})
	claudeChannel     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<channel(?:\s[^>]*)?>\s*(.*?)\s*</channel>`) })
	claudeCaveat      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Caveat: The messages below were generated.*$`) })
	claudeInterrupted = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[Request interrupted by user[^\]]*\]`) })
	// claudeLoopWake is a prompt /loop sends itself when the wake-up it
	// scheduled fires (ScheduleWakeup): the loop's sentinel, which stands
	// for the loop's prompt, already kept from the /loop the user typed.
	claudeLoopWake = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)\A\s*<<autonomous-loop(?:-dynamic)?>>.*`) })
	// claudeHookFeedback is what a hook that blocked the end of a turn
	// (Stop, SubagentStop) or a task's change (TaskCreated,
	// TaskCompleted, TeammateIdle) said, which Claude Code hands the model
	// as a user line so that it goes on: the hook's words, not the
	// user's. Builds of 2.1 mark that line isMeta; older ones did not always.
	claudeHookFeedback = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)\A\s*(?:Stop|SubagentStop|TaskCreated|TaskCompleted|TeammateIdle) hook feedback:\s.*`)
	})
	// claudeSkillBody opens the body of a skill Claude Code loads into
	// the conversation as a user line (a /skill the user ran, the Skill
	// tool the model called): the skill's instructions, not the user's
	// words. Builds mark the line isMeta, though not every one did.
	claudeSkillBody = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)\A\s*Base directory for this skill: .*`) })
	// claudeImageSource is the note Claude Code adds to a prompt, beside
	// or in place of an image block, of where the image came from (its
	// copy under ~/.claude/image-cache, or the file dragged in): a path,
	// not the user's words. A line whose image is only that note keeps a
	// placeholder for it (see userBlocks).
	claudeImageSource = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[Image: source: [^\]\n]*\]`) })
	// claudeImageResized is the note Claude Code adds when it scaled a
	// pasted image down (its size before and after, how to map
	// coordinates back), in the prompt's line or a line of its own: the
	// runtime's, not the user's words, and the image block beside it
	// already has its placeholder.
	claudeImageResized = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[Image: original \d+x\d+[^\]\n]*\]`) })
)

// claudeResumePing is the prompt Claude Code sends itself when it
// resumes a session whose turn was cut off (the desktop app after a
// crash, a reload or an update; claude --resume of an interrupted turn):
// a user line asking the model to go on, which the person never typed
// (claude-code issue 89265). Some builds mark it isMeta, and it is
// dropped with the meta lines; the desktop app's is a plain user line.
const claudeResumePing = "Continue from where you left off."

// claudeInjected are the origins of user lines Claude Code writes itself
// (2.1): a background task that finished, a message from another Claude
// Code session, a turn continued on its own. Typed prompts are of origin
// "human", or have none.
var claudeInjected = setOf("task-notification", "peer", "auto-continuation")

// claudeInjectedTurns are the turnOrigin values of the user lines Claude
// Code writes itself: a background task's notice, another session's
// message, a scheduled task's run.
var claudeInjectedTurns = setOf("task_notification", "peer", "scheduled")

// Known shapes that carry nothing to remember; any other line type or
// content block type is reported (see shapeReports). As of 2.1.2xx
// (2026-09) a session writes a dozen bookkeeping lines besides its turns:
// modes and latches, file backups, costs, hook context saved for resume,
// the rolling task summary "claude ps" shows (stale by design, and the
// turns say the same), context-collapse state (whose summaries stand for
// turns the file still holds), workflow journal steps; and, in the
// session writer's table of 2.1.195 and later, the session's tag, the
// mark of a conversation the model ended, the session it continued in,
// latches and modes, observer and API request records.
var (
	claudeQuietLines = setOf("system", "file-history-snapshot", "queue-operation", "progress", "pr-link",
		"agent-name", "last-prompt", "permission-mode", "agent-setting", "bridge-session",
		"worktree-state", "tag",
		"mode", "atis-latch", "file-history-delta", "cost-state", "saved_hook_context", "attribution-snapshot",
		"frame-link", "agent-color", "task-summary", "speculation-accept", "content-replacement",
		"marble-origami-commit", "marble-origami-snapshot", "fork-context-ref", "relocated", "started", "result",
		"artifact-autoreact-ledger", "artifact-comment-monitor",
		"ended-by-model", "continued-in", "isolation-latch", "marble-origami-reset", "history-suppression",
		"observer-ref", "memory-mode", "dev-mods", "api-request", "api-request-shape", "api-request-blob")
	claudeQuietBlocks = setOf("thinking", "redacted_thinking", "tool_result", "web_search_tool_result",
		"web_fetch_tool_result", "code_execution_tool_result", "bash_code_execution_tool_result",
		"text_editor_code_execution_tool_result", "mcp_tool_result", "container_upload", "advisor_tool_result",
		"tool_reference", "search_result")
)

// claudeRecentWindow is how many recent line uuids the duplicate check
// remembers: a line written twice (a retried append) is written again
// right away.
const claudeRecentWindow = 32

// claudeKeptWindow is how many uuids of lines that gave a record or a tool
// call the duplicate check also remembers: Claude Code can append a
// session's earlier lines to it again, hundreds of lines later and the
// same but for their cwd (the VS Code extension reopened, claude-code
// issue 56196). Each costs keptKeyBytes in the file's stored cursor, which
// every sync writes again for every file: 1 024 of them are 8 KiB of
// base64 for a long session.
const claudeKeptWindow = 1024

// claudeState is what reading a transcript carries from line to line,
// and from one read to the next (as the Cursor's State).
type claudeState struct {
	Summary     string       `json:"summary,omitempty"`
	AITitle     string       `json:"aiTitle,omitempty"`
	CustomTitle string       `json:"customTitle,omitempty"`
	Pending     pendingTools `json:"pending,omitzero"`
	// Recent are the uuids of the last lines read.
	Recent []string `json:"recent,omitempty"`
	// Kept are digests of the uuids of the last claudeKeptWindow lines
	// that gave a record or a tool call, keptKeyBytes each, oldest first
	// (packed: JSON stores them as one base64 string).
	Kept []byte `json:"kept,omitempty"`
	// Reply is the message id of the last assistant line and ReplyTexts
	// digests of the texts kept from it: a text block written twice in one
	// reply is kept once.
	Reply      string       `json:"reply,omitempty"`
	ReplyTexts []string     `json:"replyTexts,omitempty"`
	Reported   shapeReports `json:"reported,omitempty"`
	// Plan is the digest of the last plan kept (see claudePlan), so that
	// the copy of it in the approval is not kept again.
	Plan string `json:"plan,omitempty"`
	// Cwd is the working directory of the last line that named one, for
	// a line that does not (an attachment line carries only its own
	// fields).
	Cwd string `json:"cwd,omitempty"`
	// Queued are the prompts typed while a turn ran that no later line
	// has carried yet, oldest first (see queueOperation).
	Queued []claudeQueued `json:"queued,omitempty"`
	// AsideAsked is set once a /btw aside's question was kept (see
	// claudeAside).
	AsideAsked bool `json:"asideAsked,omitempty"`
}

// claudeQueued is a prompt of the queue: its words (redacted, as all
// state is), role, line and time, and whether the running turn took it
// in.
type claudeQueued struct {
	Text     string `json:"text"`
	Role     string `json:"role,omitempty"`
	Line     int    `json:"line"`
	Time     string `json:"time,omitempty"`
	Session  string `json:"session,omitempty"`
	Departed bool   `json:"departed,omitempty"`
	// Kept is set once a read that reached the end of what is written
	// kept the prompt, taken in with no reply after it yet (see end).
	Kept bool `json:"kept,omitempty"`
}

// title is the session's title: one the user set, else the AI's, else
// the latest summary.
func (st *claudeState) title() string {
	for _, t := range []string{st.CustomTitle, st.AITitle, st.Summary} {
		if t != "" {
			return t
		}
	}
	return ""
}

// claudeHandler reads the lines of one transcript.
type claudeHandler struct {
	fc *fileCtx
	st claudeState
	// kept is the window st.Kept packs; keptLine is set when the line
	// being read gives a record or a tool call.
	kept     idWindow
	keptLine bool
	// stem is the file name without .jsonl; fallbackSession the session
	// of lines that do not name theirs.
	stem, fallbackSession string
	// sidechain is set for a sub-agent's file, whose lines name the main
	// session; resumed holds, for each other session a line of a main
	// session's file names, the digests of the uuids in that session's
	// own file (see resumedCopy).
	sidechain bool
	resumed   map[string]map[uint64]bool
	// aside is set for the file of a /btw aside (see claudeAside); held
	// are the records of its lines this read, and asked is set once this
	// read found its question.
	aside bool
	held  []memory.Record
	asked bool
}

func newClaudeHandler(fc *fileCtx, state json.RawMessage) (*claudeHandler, error) {
	h := &claudeHandler{fc: fc, kept: idWindow{size: claudeKeptWindow}}
	if err := decodeState(state, &h.st); err != nil {
		return nil, err
	}
	h.stem = strings.TrimSuffix(filepath.Base(fc.path), ".jsonl")
	h.fallbackSession = h.stem
	if filepath.Base(filepath.Dir(fc.path)) == "subagents" {
		h.fallbackSession = filepath.Base(filepath.Dir(filepath.Dir(fc.path)))
	}
	h.sidechain = h.fallbackSession != h.stem || strings.HasPrefix(h.stem, "agent-")
	h.aside = strings.HasPrefix(h.stem, claudeAsidePrefix)
	return h, nil
}

// claudeAsidePrefix begins the name of the file of a /btw aside, beside
// a session's sub-agents: subagents/agent-aside_question-<id>.jsonl.
const claudeAsidePrefix = "agent-aside_question-"

// claudeAside reads the file of a /btw aside: a question the user asks on
// the side while a turn runs, answered apart from the session. Claude
// Code forks the session for it, and the file first replays the
// session's turns (the same messages, which the session's own file
// gives) before the aside's own question and answer. Only those are
// kept: its records wait for the end of a read (a finisher, read in one
// piece), and each prompt drops what came before it, so the last prompt,
// the question, and its answer are what is left. A question the user
// typed is theirs, though the file is a sidechain. A read that finds
// another prompt after a question an earlier read kept is ErrFileChanged:
// that question was part of the replay, and the file is read again whole.
type claudeAside struct{ *claudeHandler }

// finish emits the question and answer held, once this read or an
// earlier one found the question; the replay alone gives nothing.
func (a claudeAside) finish() error {
	held := a.held
	a.held = nil
	if !a.asked && !a.st.AsideAsked {
		return nil
	}
	a.st.AsideAsked = true
	for _, rec := range held {
		if err := a.fc.emit(rec); err != nil {
			return err
		}
	}
	return nil
}

// asideQuestion notes a prompt of an aside's file: the records before it
// were the replay.
func (h *claudeHandler) asideQuestion() error {
	if h.st.AsideAsked {
		return fmt.Errorf("%w: a /btw aside asks again after the question read before", ErrFileChanged)
	}
	h.held, h.asked = nil, true
	return nil
}

func (h *claudeHandler) state() (json.RawMessage, error) { return json.Marshal(h.st) }

func (h *claudeHandler) line(n int, data []byte) error {
	var l claudeLine
	if err := json.Unmarshal(data, &l); err != nil {
		return h.misfit(n, data, err)
	}
	// A line that gave a record or a tool call, appended again later, is
	// read once.
	if l.UUID != "" && h.keptBefore(l.UUID) {
		return nil
	}
	if l.Cwd != "" {
		h.st.Cwd = l.Cwd
	}
	if l.copied() || h.resumedCopy(&l) {
		// The parent session's file holds it, and is read (and its memory
		// kept once the file is gone).
		return nil
	}
	h.keptLine = false
	defer func() {
		if h.keptLine && l.UUID != "" {
			h.keep(l.UUID)
		}
	}()
	switch l.Type {
	case "user", "assistant":
	case "summary":
		h.st.Summary = stateText(l.Summary)
		return nil
	case "ai-title":
		h.st.AITitle = stateText(l.AITitle)
		return nil
	case "custom-title":
		h.st.CustomTitle = stateText(l.CustomTitle)
		return nil
	case "attachment":
		return h.queuedPrompt(n, &l)
	case "queue-operation":
		h.queueOperation(n, &l)
		return nil
	case "system":
		switch l.Subtype {
		case "away_summary":
			return h.recap(n, &l)
		case "local_command":
			return h.localCommand(n, &l)
		}
		return nil
	default:
		if !claudeQuietLines[l.Type] {
			h.st.Reported.report(h.fc, n, "line type "+strconv.Quote(l.Type))
		}
		return nil
	}
	if l.IsMeta || l.IsAPIErrorMessage {
		return nil
	}
	if l.Type == "assistant" {
		if err := h.uncarriedPrompts(); err != nil {
			return err
		}
	}
	if l.Type == "user" && l.injected() {
		return nil // written by Claude Code, not the user
	}
	// A line written twice (a retried append) is read once.
	if l.UUID != "" {
		if slices.Contains(h.st.Recent, l.UUID) {
			return nil
		}
		if len(h.st.Recent) == claudeRecentWindow {
			h.st.Recent = h.st.Recent[1:]
		}
		h.st.Recent = append(h.st.Recent, l.UUID)
	}
	if l.IsCompactSummary {
		return h.compactSummary(n, &l)
	}
	var msg claudeMessage
	if err := json.Unmarshal(l.Message, &msg); err != nil {
		h.fc.problem(n, fmt.Sprintf("unexpected %s message: %s", l.Type, trimErr(err)))
		return nil
	}
	blocks, err := claudeBlocks(msg.Content)
	if err != nil {
		h.fc.problem(n, fmt.Sprintf("unexpected %s content: %s", l.Type, trimErr(err)))
		return nil
	}
	var parts []string
	if l.Type == "user" {
		if l.commandOutput(msg.Content) {
			return nil
		}
		var human bool
		parts, human = h.userBlocks(n, blocks)
		if words := claudeToolResultWords(msg.Content, l.ToolUseResult); len(words) > 0 {
			parts, human = append(words, parts...), true
		}
		if !human {
			// Tool results only: not a human turn, but the plan the user
			// approved, when its call did not carry it, is the
			// assistant's.
			if plan := claudeApprovedPlan(msg.Content); plan != "" && textKey(plan) != h.st.Plan {
				h.st.Plan = textKey(plan)
				return h.emit(n, &l, "assistant", h.st.Pending.take(plan))
			}
			return nil
		}
	} else {
		if msg.Model == claudeSynthetic {
			return nil // Claude Code's own placeholder, not a reply
		}
		if msg.ID == "" || msg.ID != h.st.Reply {
			h.st.Reply, h.st.ReplyTexts = msg.ID, nil
		}
		parts = h.assistantBlocks(n, blocks)
	}
	text := strings.Join(parts, "\n\n")
	role := l.speaker()
	if l.Type == "user" {
		if err := h.carried(text); err != nil {
			return err
		}
		text = claudeHandoff(text, l.PlanContent)
		if said, ok := claudeTeammateText(text); ok {
			text, role = said, "assistant"
		}
	}
	if !hasContent(text) {
		// Nothing left after cleaning (a slash-command echo, a tool call):
		// pending tool calls wait for the next text.
		return nil
	}
	if h.aside && l.Type == "user" && role == l.speaker() {
		if err := h.asideQuestion(); err != nil {
			return err
		}
		role = "user" // the user's own question, in a sidechain
	}
	if l.Type == "assistant" {
		text = h.st.Pending.take(text)
	}
	// A prompt drops the tool calls of the turn before it.
	h.st.Pending = pendingTools{}
	return h.emit(n, &l, role, text)
}

// claudeTeammate is the envelope in which Claude Code hands a message
// from one agent of a team (agent teams, 2.1) to another, in a user line
// or a queued prompt: the lead's task in a teammate's session, a
// teammate's report in the lead's.
var claudeTeammate = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)<teammate-message(?:\s[^>]*)?>(.*?)</teammate-message>`)
})

// claudePeerLeadIn is the line Claude Code may put before such envelopes.
var claudePeerLeadIn = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:Another Claude session|A peer session) sent a message(?: while you were working)?:`)
})

// claudeTeammateText returns the words of the teammate messages in text
// and whether it held any. They are an agent's words, not the user's: the
// record is the assistant's. The notices of the team's protocol, a JSON
// object in the envelope, are dropped (idle, shutdown, plan approval) but
// for the task a lead assigns, whose subject and description are its
// words; so are the envelopes and the lead-in; any other text is kept.
func claudeTeammateText(text string) (string, bool) {
	if !strings.Contains(text, "<teammate-message") {
		return text, false
	}
	found := false
	var said []string
	rest := claudeTeammate().ReplaceAllStringFunc(text, func(m string) string {
		found = true
		if words := claudeTeammateWords(strings.TrimSpace(claudeTeammate().FindStringSubmatch(m)[1])); words != "" {
			said = append(said, words)
		}
		return ""
	})
	if !found {
		return text, false
	}
	rest = strings.TrimSpace(claudePeerLeadIn().ReplaceAllString(rest, ""))
	if rest != "" {
		said = append(said, rest)
	}
	return strings.Join(said, "\n\n"), true
}

// claudeTeammateWords returns the words of one teammate message: the
// message itself, or, for a notice of the team's protocol (a JSON object
// with a type), the subject and description of an assigned task and
// nothing for any other.
func claudeTeammateWords(body string) string {
	if !strings.HasPrefix(body, "{") {
		return body
	}
	var notice struct {
		Type        string `json:"type"`
		Subject     string `json:"subject"`
		Description string `json:"description"`
	}
	if json.Unmarshal([]byte(body), &notice) != nil || notice.Type == "" {
		return body
	}
	if notice.Type != "task_assignment" {
		return ""
	}
	return strings.TrimSpace(strings.TrimSpace(notice.Subject) + "\n\n" + strings.TrimSpace(notice.Description))
}

// misfit handles a line that claudeLine does not decode: one that is not
// JSON, or a JSON object whose fields are not of the types the turns'
// are. Such a turn is reported; a line of any other type, a shape a later
// build writes, is skipped as its type is (see claudeQuietLines), not
// reported as if it were not JSON at every line.
func (h *claudeHandler) misfit(n int, data []byte, err error) error {
	typ, ok := lineType(data)
	if !ok {
		return notJSON(err)
	}
	switch {
	case typ == "user" || typ == "assistant":
		h.fc.problem(n, fmt.Sprintf("unexpected %s line: %s", typ, trimErr(err)))
	case !claudeQuietLines[typ]:
		h.st.Reported.report(h.fc, n, "line type "+strconv.Quote(typ))
	}
	return nil
}

// queuedPrompt reads an attachment line: one of a queued command that a
// person typed while a turn was running is their prompt, handed to the
// model with the next tool result (2.1). It becomes no user line, so this
// is the only place those words are written. Other attachments (hook
// results, listings, a background task handed over the same way) carry
// nothing to remember, nor does a queued command Claude Code marks isMeta
// (2.1.26x and later: a message from the coordinator of a sub-agent or
// from a peer), which no person typed and which it hides as it does a
// meta user line.
func (h *claudeHandler) queuedPrompt(n int, l *claudeLine) error {
	var a struct {
		Type        string          `json:"type"`
		CommandMode string          `json:"commandMode"`
		Prompt      json.RawMessage `json:"prompt"`
		Origin      json.RawMessage `json:"origin"`
		IsMeta      bool            `json:"isMeta"`
	}
	if json.Unmarshal(l.Attachment, &a) != nil || a.Type != "queued_command" ||
		(a.CommandMode != "" && a.CommandMode != "prompt") {
		return nil
	}
	if l.Origin == nil {
		l.Origin = a.Origin
	}
	if l.injected() {
		return nil
	}
	blocks, err := claudeBlocks(a.Prompt)
	if err != nil {
		return nil
	}
	parts, human := h.userBlocks(n, blocks)
	text, role := strings.Join(parts, "\n\n"), "user"
	if err := h.carried(text); err != nil {
		return err
	}
	if a.IsMeta {
		// Carried all the same: its enqueue line is not the user's either.
		return nil
	}
	if said, ok := claudeTeammateText(text); ok {
		text, role = said, "assistant"
	}
	if !human || !hasContent(text) {
		return nil
	}
	// The turn it was typed into goes on: its tool calls stay pending for
	// the answer.
	return h.emit(n, l, role, text)
}

// claudeQueueSize bounds the prompts a file's state holds waiting for
// the line that carries them: a person queues a few at a time.
const claudeQueueSize = 16

// claudeAbsorbed are the reasons of a queue-operation "remove" for a
// prompt the running turn took in (2.1.246 and later; earlier builds
// give no reason): the model read it, though no user line may carry it.
var claudeAbsorbed = setOf("", "absorbed_mid_turn", "delivered_to_agent")

// queueOperation follows the queue of prompts a person types while a
// turn runs (2.1). Every such prompt is first an "enqueue" line. One the
// turn's end sends ("dequeue", which names none) comes again as a user
// line; one the running turn takes in ("remove", for a reason in
// claudeAbsorbed) comes again as a queued_command attachment, before or
// after the remove, but the desktop app hands it to the model inside a
// tool result and writes it nowhere else. So a prompt taken in that no
// user line or attachment carried by the next reply is the user's, read
// from its enqueue line (see uncarriedPrompts). A prompt pulled back
// into the editor ("popAll") or removed for another reason was not
// sent: what the person sends instead is.
func (h *claudeHandler) queueOperation(n int, l *claudeLine) {
	if l.SessionID != "" && l.SessionID != h.fallbackSession {
		return // the queue of the session this one continues
	}
	var content string
	_ = json.Unmarshal(l.Content, &content)
	switch l.Operation {
	case "enqueue":
		text, role := claudeQueuedText(content)
		if text == "" {
			return
		}
		if len(h.st.Queued) == claudeQueueSize {
			h.st.Queued = h.st.Queued[1:]
		}
		h.st.Queued = append(h.st.Queued, claudeQueued{Text: text, Role: role, Line: n, Time: l.Timestamp, Session: l.SessionID})
	case "remove":
		// A remove of what was not queued (a task's notice) removes none.
		text, _ := claudeQueuedText(content)
		if i := h.waiting(text); i >= 0 {
			if claudeAbsorbed[l.Reason] {
				h.st.Queued[i].Departed = true
			} else {
				h.st.Queued = slices.Delete(h.st.Queued, i, i+1)
			}
		}
	case "popAll":
		h.st.Queued = slices.DeleteFunc(h.st.Queued, func(q claudeQueued) bool { return !q.Departed })
	}
}

// claudeQueuedText returns the words of a queued prompt as a record holds
// them, and their role: "" for what is no one's words (a background
// task's notice, a bare slash command, whose user line keeps nothing
// either), the assistant's for a message from another agent of a team.
func claudeQueuedText(content string) (string, string) {
	text, role := imageRef().ReplaceAllString(claudeUserText(content), imageMark), "user"
	if said, ok := claudeTeammateText(text); ok {
		text, role = said, "assistant"
	}
	if claudeBareCommand(text) {
		return "", ""
	}
	if !hasContent(text) {
		return "", ""
	}
	return stateText(text), role
}

// queuedKey is what the words of a queued prompt and of the line that
// carries it share: their text without images, in any layout.
func queuedKey(text string) string {
	return normalizeSpace(strings.ReplaceAll(imageRef().ReplaceAllString(text, ""), imageMark, ""))
}

// waiting returns the index of the oldest prompt still in the queue whose
// words are text, or -1.
func (h *claudeHandler) waiting(text string) int {
	key := queuedKey(text)
	if key == "" {
		return -1
	}
	return slices.IndexFunc(h.st.Queued, func(q claudeQueued) bool {
		return !q.Departed && queuedKey(q.Text) == key
	})
}

// carried drops the queued prompts that the words of a user line or a
// queued_command attachment hold (several queued prompts may be sent as
// one): that line is their record. One an earlier read kept already, at
// the end of what was written then (see end), has its record at its
// enqueue line, where a whole read gives it at this one: the file is to
// be read again whole (ErrFileChanged) rather than keep it twice.
func (h *claudeHandler) carried(text string) error {
	if len(h.st.Queued) == 0 {
		return nil
	}
	said := queuedKey(stateText(text))
	kept := false
	h.st.Queued = slices.DeleteFunc(h.st.Queued, func(q claudeQueued) bool {
		if !strings.Contains(said, queuedKey(q.Text)) {
			return false
		}
		kept = kept || q.Kept
		return true
	})
	if kept {
		return fmt.Errorf("%w: a prompt read at the end of the file is carried by a later line", ErrFileChanged)
	}
	return nil
}

// uncarriedPrompts keeps, as the reply to them begins, the prompts that
// left the queue for the model and that no line carried (see
// queueOperation). The turn they were typed into goes on: its tool calls
// stay pending for the answer.
func (h *claudeHandler) uncarriedPrompts() error {
	kept := h.keptLine
	defer func() { h.keptLine = kept }()
	var waiting []claudeQueued
	for _, q := range h.st.Queued {
		if !q.Departed {
			waiting = append(waiting, q)
			continue
		}
		if q.Kept {
			continue // kept at the end of an earlier read
		}
		if err := h.emitQueued(q); err != nil {
			return err
		}
	}
	h.st.Queued = waiting
	return nil
}

// emitQueued makes the record of a queued prompt, at its enqueue line.
func (h *claudeHandler) emitQueued(q claudeQueued) error {
	l := claudeLine{Type: "user", SessionID: q.Session, Timestamp: q.Time}
	return h.emit(q.Line, &l, q.Role, q.Text)
}

// end keeps, once a read has reached the end of what is written, the
// prompts the running turn took in that no line carried and no reply
// followed yet: the session may end there (closed, or its turn cut off
// before a reply was written), and a person's last words are to be
// found. They are marked kept, so that the reply that may still come
// does not keep them again (see uncarriedPrompts); a line that carries
// one after all has the file read again whole (see carried). A /btw
// aside has no queue of its own.
func (h *claudeHandler) end() (bool, error) {
	if h.aside {
		return false, nil
	}
	ended := false
	for i := range h.st.Queued {
		q := &h.st.Queued[i]
		if !q.Departed || q.Kept {
			continue
		}
		if err := h.emitQueued(*q); err != nil {
			return false, err
		}
		q.Kept, ended = true, true
	}
	return ended, nil
}

// compactSummary keeps the summary Claude Code wrote when it compacted
// the session, as Codex's are kept: the assistant's account of the
// conversation so far, without the framing around it (the notice that the
// session continues, the analysis written before the summary, the order
// to carry on).
func (h *claudeHandler) compactSummary(n int, l *claudeLine) error {
	var msg claudeMessage
	if err := json.Unmarshal(l.Message, &msg); err != nil {
		h.fc.problem(n, "unexpected compact summary message: "+trimErr(err))
		return nil
	}
	blocks, err := claudeBlocks(msg.Content)
	if err != nil {
		h.fc.problem(n, "unexpected compact summary content: "+trimErr(err))
		return nil
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	text := strings.Join(parts, "\n\n")
	if i := strings.Index(text, "\nSummary:\n"); i >= 0 {
		text = text[i+len("\nSummary:\n"):]
	}
	for _, re := range []*regexp.Regexp{claudeCompactIntro(), claudeCompactOutro()} {
		text = re.ReplaceAllString(text, "")
	}
	if !hasContent(text) {
		return nil
	}
	return h.emit(n, l, "assistant", strings.TrimSpace(text))
}

// recap keeps the recap Claude Code writes for a person coming back to
// an idle session (a system line of subtype away_summary, 2.1): the
// model's account of where the session stands and what comes next, as a
// compact summary is, without the hint that ends it.
func (h *claudeHandler) recap(n int, l *claudeLine) error {
	var text string
	if json.Unmarshal(l.Content, &text) != nil {
		return nil
	}
	text = strings.TrimSpace(claudeRecapHint().ReplaceAllString(text, ""))
	if !hasContent(text) {
		return nil
	}
	return h.emit(n, l, "assistant", text)
}

// localCommand reads a system line of subtype local_command: Claude
// Code 2.1 writes there the slash command the user typed that runs in
// the CLI itself (/model, /add-dir, ...), and then its output, which
// older builds wrote as the content of user lines. Read as such a user
// line is (claudeUserText), a command typed with arguments is the
// user's "/name arguments" and its echo without any, or its output,
// nothing; so is the plain echo ("/status") that 2.1.2xx writes of a
// command it refuses before running it. It starts no turn: the tool
// calls pending stay for the reply.
func (h *claudeHandler) localCommand(n int, l *claudeLine) error {
	var content string
	if json.Unmarshal(l.Content, &content) != nil {
		return nil
	}
	text := claudeUserText(content)
	if !hasContent(text) || claudeBareCommand(text) {
		return nil
	}
	return h.emit(n, l, "user", text)
}

// claudeBareCommand reports whether text is a slash command alone, with
// no arguments: the name of what the user ran, not their words.
func claudeBareCommand(text string) bool {
	return strings.HasPrefix(text, "/") && !strings.ContainsAny(text, " \t\n")
}

// claudeRecapHint is how Claude Code ends a recap.
var claudeRecapHint = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*\(disable recaps in /config\)\s*$`) })

// The framing of a compact summary: the notice that opens it and the
// paragraphs Claude Code appends after it, each on a line of its own. As
// of 2.1 those are a pointer to the session's transcript, a note that the
// recent messages were kept, the order to resume (reworded from 2.0's)
// and, in proactive mode, the order to keep working; kept, every
// compaction's record said the same words and a path.
var (
	claudeCompactIntro = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^This session is being continued from a previous conversation.*$`)
	})
	claudeCompactOutro = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^(?:Please continue the conversation from where we left (?:it )?off` +
			`|Continue the conversation from where it left off without asking` +
			`|If you need specific details from before compaction ` +
			`|Recent messages are preserved verbatim\.` +
			`|You are running in autonomous/proactive mode\. ).*$`)
	})
)

// emit makes the record of line n. The main transcript's file is named
// after its session; a sidechain file (subagents/agent-x.jsonl, or
// agent-x.jsonl in older builds) shares the session id, so its name keeps
// its record ids distinct and its turns in their own conversation, and a
// sidechain written into the main file (1.x) is its own conversation too.
func (h *claudeHandler) emit(n int, l *claudeLine, role, text string) error {
	session := l.SessionID
	if session == "" {
		session = h.fallbackSession
	}
	id, conversation := session, session
	if h.stem != session {
		id += "/" + h.stem
		conversation += "/" + h.stem
	} else if l.IsSidechain {
		conversation += "/sidechain"
		if l.AgentID != "" {
			conversation += "-" + l.AgentID
		}
	}
	_, t, _ := parseDate(l.Timestamp, h.fc.loc)
	cwd := l.Cwd
	if cwd == "" {
		cwd = h.st.Cwd
	}
	m := message{role: role, text: text, title: h.st.title(), time: t, cwd: cwd, line: n}
	rec, ok := m.record(h.fc, config.KindClaudeCode, session, id+":"+strconv.Itoa(n), conversation)
	if !ok {
		return nil
	}
	h.keptLine = true
	if h.aside {
		h.held = append(h.held, rec) // see claudeAside
		return nil
	}
	return h.fc.emit(rec)
}

// keptBefore reports whether a line of this uuid gave a record or a tool
// call already.
func (h *claudeHandler) keptBefore(uuid string) bool { return h.kept.has(h.st.Kept, uuid) }

// keep remembers that the line of this uuid gave a record or a tool call.
func (h *claudeHandler) keep(uuid string) { h.st.Kept = h.kept.add(h.st.Kept, uuid) }

// speaker is the role of a line's record. A prompt in a sidechain is the
// task the main agent gave its sub-agent (no one types into a sidechain),
// so it is the assistant's, unless Claude Code marks it as typed.
func (l *claudeLine) speaker() string {
	if l.Type != "user" || !l.IsSidechain {
		return l.Type
	}
	var origin struct {
		Kind string `json:"kind"`
	}
	if json.Unmarshal(l.Origin, &origin) == nil && origin.Kind == "human" {
		return "user"
	}
	return "assistant"
}

// commandOutput reports whether a user line is the output of a command
// run for the model (a slash command it ran through a tool, /context's
// terminal report with its colour codes): a plain string, not a list of
// tool results, that Claude Code marks with a toolUseResult, which no
// prompt the person typed carries. The words a person gives in a tool
// result (a rejection's reason, their answers) are in such a list.
func (l *claudeLine) commandOutput(content json.RawMessage) bool {
	result := bytes.TrimSpace(l.ToolUseResult)
	content = bytes.TrimSpace(content)
	return len(result) > 0 && string(result) != "null" && len(content) > 0 && content[0] == '"'
}

// copied reports whether the line is a turn (or a recap) a forked
// session copied from the session it was forked from. Only those are: a
// title line names the fork.
func (l *claudeLine) copied() bool {
	switch l.Type {
	case "user", "assistant", "attachment", "system":
		raw := bytes.TrimSpace(l.ForkedFrom)
		return len(raw) > 0 && string(raw) != "null"
	}
	return false
}

// claudeResumedSessions bounds the other sessions a file's lines may
// name that resumedCopy looks up: a resumed session names the one it
// continues.
const claudeResumedSessions = 8

// resumedCopy reports whether the line is a copy of a line of the session
// this one resumed. A resumed session's file (claude --resume, /resume)
// starts with the turns of the session it continues, under that
// session's id and with their uuids and times, then goes on with its own
// turns under its own id; read as they are, those turns were indexed a
// second time, as a conversation of their own. Only a line whose uuid
// the named session's own file (beside this one) holds is a copy: once
// Claude Code has deleted that file (after cleanupPeriodDays), the copy
// is all that is left of those turns, and is read.
func (h *claudeHandler) resumedCopy(l *claudeLine) bool {
	session := l.SessionID
	if h.sidechain || l.UUID == "" || session == "" || session == h.stem ||
		strings.ContainsAny(session, `/\`) || strings.HasPrefix(session, ".") {
		return false
	}
	switch l.Type {
	case "user", "assistant", "attachment", "system":
	default:
		return false
	}
	uuids, ok := h.resumed[session]
	if !ok {
		if len(h.resumed) == claudeResumedSessions {
			return false
		}
		if h.resumed == nil {
			h.resumed = map[string]map[uint64]bool{}
		}
		uuids = h.fileUUIDs(filepath.Join(filepath.Dir(h.fc.path), session+".jsonl"))
		h.resumed[session] = uuids
	}
	return uuids[keptKey(l.UUID)]
}

// fileUUIDs returns the digests (keptKey) of the line uuids of the
// transcript at path, or nil when it cannot be read.
func (h *claudeHandler) fileUUIDs(path string) map[uint64]bool {
	f, err := openSource(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	uuids := map[uint64]bool{}
	// Scanned as the file itself is read, so that a line too long to
	// keep whole is kept cut here too, and its copy known.
	sc := h.fc.lines(f)
	for i := 0; ; i++ {
		if i%256 == 0 && h.fc.ctx.Err() != nil {
			return uuids
		}
		l, err := sc.next()
		if err != nil {
			return uuids
		}
		var line struct {
			UUID string `json:"uuid"`
		}
		if json.Unmarshal(l.data, &line) == nil && line.UUID != "" {
			uuids[keptKey(line.UUID)] = true
		}
	}
}

// injected reports whether Claude Code marked the line as a turn it wrote
// itself rather than a prompt.
func (l *claudeLine) injected() bool {
	var origin struct {
		Kind string `json:"kind"`
	}
	var source, turn string
	_ = json.Unmarshal(l.Origin, &origin)
	_ = json.Unmarshal(l.PromptSource, &source)
	_ = json.Unmarshal(l.TurnOrigin, &turn)
	return claudeInjected[origin.Kind] || source == "system" || claudeInjectedTurns[turn]
}

// claudeBlocks decodes message content: a plain string is one text block.
func claudeBlocks(raw json.RawMessage) ([]claudeBlock, error) {
	return contentBlocks(raw, func(s string) claudeBlock { return claudeBlock{Type: "text", Text: s} })
}

// contentBlocks decodes the content of a message that is either a plain
// string (the one text block textBlock makes of it) or a list of blocks,
// as Claude Code and OpenClaw (pi-agent) write it.
func contentBlocks[B any](raw json.RawMessage, textBlock func(string) B) ([]B, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []B{textBlock(s)}, nil
	}
	var blocks []B
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, err
	}
	return blocks, nil
}

// What Claude Code writes into a tool result around words the user typed:
// why they rejected a tool call, and their answers to the assistant's
// questions (AskUserQuestion; "Your questions have been answered" in
// older builds).
const (
	claudeRejected     = "The user doesn't want to proceed with this tool use."
	claudeRejectReason = "To tell you how to proceed, the user said:"
)

var claudeAnswers = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)^(?:User has answered your questions|Your questions have been answered): (.*?)\.?(?: You can now continue.*)?$`)
})

// claudeToolResultWords returns what the user said in the tool results of
// a user line's content: the reason they gave for rejecting a tool call,
// the answers they gave the assistant's questions. toolUseResult is the
// line's, whose answers name the questions asked (see claudeAnswerWords).
func claudeToolResultWords(content, toolUseResult json.RawMessage) []string {
	if !bytes.Contains(content, []byte("the user said:")) && !bytes.Contains(content, []byte("answered your questions")) &&
		!bytes.Contains(content, []byte("questions have been answered")) && !bytes.Contains(content, []byte("Questions asked:")) {
		return nil
	}
	var words []string
	for _, t := range claudeToolResultTexts(content) {
		if !strings.HasPrefix(t, claudeRejected) {
			m := claudeAnswers().FindStringSubmatch(t)
			if m == nil {
				continue
			}
			t = claudeAnswerWords(m[1], claudeAskedQuestions(toolUseResult))
		} else if loc := claudeQuestionsAsked().FindStringIndex(t); loc != nil {
			// "Chat about this" on the questions: Claude Code's request to
			// clarify is not the user's, the answers given so far are.
			t = claudeClarifyWords(t[loc[1]:])
		} else if _, reason, ok := strings.Cut(t, claudeRejectReason); ok {
			t = reason
		} else {
			continue
		}
		if t = claudeUserText(t); t != "" {
			words = append(words, t)
		}
	}
	return words
}

// How Claude Code 2.1 writes the user's answers to AskUserQuestion (its
// mapToolResultToToolResultBlockParam, as the public tools that read them
// parse it): `"question"="answer"` pairs joined by ", ", each followed by
// the preview of the option picked and the notes the user added, if any.
// The preview (a mockup or a snippet) is the assistant's, written into the
// option it offered; an answer typed in "Other" comes back as its notes
// too.
const (
	claudeAnswerPreview = "\" selected preview:\n"
	claudeAnswerNotes   = " user notes: "
)

// claudeAnswerPair finds a pair's start when the questions are not known.
var claudeAnswerPair = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:\A|, )"([^"]*)"="`) })

// claudeAskedQuestions returns the questions a line's toolUseResult gives
// answers to ({"answers": {question: answer}, ...}), or nil.
func claudeAskedQuestions(toolUseResult json.RawMessage) []string {
	var r struct {
		Answers map[string]json.RawMessage `json:"answers"`
	}
	if json.Unmarshal(toolUseResult, &r) != nil {
		return nil
	}
	var qs []string
	for q := range r.Answers {
		qs = append(qs, q)
	}
	return qs
}

// claudeAnswerWords returns the user's answers as `"question"="answer"`
// pairs, with their notes but without the previews of the options they
// picked. Pairs are found where a question asked (questions, when known)
// begins one, else where any quoted text followed by =" does; body is
// returned as it is when none is found.
func claudeAnswerWords(body string, questions []string) string {
	type start struct {
		at, text int // where the pair begins, where its answer does
		question string
	}
	var starts []start
	for _, q := range questions {
		if i := strings.Index(body, `"`+q+`"="`); i >= 0 {
			starts = append(starts, start{i, i + len(q) + 4, q})
		}
	}
	if len(starts) == 0 {
		for _, m := range claudeAnswerPair().FindAllStringSubmatchIndex(body, -1) {
			at := m[0]
			if at > 0 {
				at += len(", ")
			}
			starts = append(starts, start{at, m[1], body[m[2]:m[3]]})
		}
	}
	if len(starts) == 0 || slices.IndexFunc(starts, func(s start) bool { return s.at == 0 }) < 0 {
		return body
	}
	slices.SortFunc(starts, func(a, b start) int { return a.at - b.at })
	var pairs []string
	for i, s := range starts {
		end := len(body)
		if i+1 < len(starts) {
			end = strings.LastIndex(body[:starts[i+1].at], ", ")
			if end < s.text {
				return body // pairs that overlap: not the shape known
			}
		}
		seg := body[s.text:end]
		answer, notes := seg, ""
		if j := strings.Index(seg, claudeAnswerPreview); j >= 0 {
			answer, notes = seg[:j], ""
			if k := strings.LastIndex(seg[j:], claudeAnswerNotes); k >= 0 {
				notes = seg[j+k+len(claudeAnswerNotes):]
			}
		} else if j := strings.Index(seg, `"`+claudeAnswerNotes); j >= 0 {
			answer, notes = seg[:j], seg[j+1+len(claudeAnswerNotes):]
		}
		pairs = append(pairs, claudeAnswerText(s.question, strings.TrimSuffix(answer, `"`), notes))
	}
	return strings.Join(pairs, ", ")
}

// claudeAnswerText is one answer as a record holds it: the question, the
// answer and the user's notes, the notes once when they repeat the answer.
func claudeAnswerText(question, answer, notes string) string {
	answer, notes = strings.TrimSpace(answer), strings.TrimSpace(notes)
	if answer == "" && notes == "" {
		return ""
	}
	text := `"` + question + `"`
	if answer != "" {
		text += `="` + answer + `"`
	}
	if notes != "" && notes != answer {
		text += claudeAnswerNotes + notes
	}
	return text
}

// claudeQuestionsAsked begins the list of questions, and the answers given
// so far, that Claude Code appends to the rejection it writes when the
// user picks "Chat about this" instead of answering (claude-code issues
// 33511 and 56402): `- "question"`, then `  Answer: ...`, `  User notes:
// ...` or `  (No answer provided)`.
var claudeQuestionsAsked = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\n[ \t]*Questions asked:\n`) })

// claudeClarifyAnswer is one question of that list and what follows it.
var claudeClarifyAnswer = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)\A"(.*?)"\n  (.*)\z`) })

// claudeClarifyWords returns the answers given in such a list, as
// claudeAnswerWords does.
func claudeClarifyWords(list string) string {
	var pairs []string
	// A question may hold lines of its own that begin "- ".
	for _, item := range strings.Split("\n"+list, "\n- \"") {
		m := claudeClarifyAnswer().FindStringSubmatch(`"` + item)
		if m == nil {
			continue
		}
		answer, notes, _ := strings.Cut(m[2], "\n  User notes: ")
		if a, ok := strings.CutPrefix(answer, "User notes: "); ok {
			answer, notes = "", a
		}
		answer = strings.TrimPrefix(answer, "Answer: ")
		if answer == "(No answer provided)" {
			answer = ""
		}
		if p := claudeAnswerText(m[1], answer, notes); p != "" {
			pairs = append(pairs, p)
		}
	}
	return strings.Join(pairs, ", ")
}

// claudeToolResultTexts returns the text blocks of the tool results in a
// user line's content, trimmed.
func claudeToolResultTexts(content json.RawMessage) []string {
	var results []struct {
		Type    string          `json:"type"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(content, &results) != nil {
		return nil
	}
	var texts []string
	for _, r := range results {
		if r.Type != "tool_result" {
			continue
		}
		blocks, err := claudeBlocks(r.Content)
		if err != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "text" {
				texts = append(texts, strings.TrimSpace(b.Text))
			}
		}
	}
	return texts
}

// userBlocks returns the human part of a user line and whether the line
// was a human turn at all: a line that carries only tool results is the
// runtime answering a tool call.
func (h *claudeHandler) userBlocks(n int, blocks []claudeBlock) ([]string, bool) {
	var parts []string
	human := false
	// The prompt's text names each image pasted into it ("[Image #1] the
	// legend overlaps"): the image is marked there, as a queued prompt's
	// is (claudeQueuedText), and an image block only when the text does
	// not name it.
	imgRef, imgSource := imageRef(), claudeImageSource()
	texts, refs := make([]string, len(blocks)), 0
	for i, b := range blocks {
		if b.Type == "text" {
			texts[i] = claudeUserText(b.Text)
			refs += len(imgRef.FindAllStringIndex(texts[i], -1))
		}
	}
	sources, images := 0, 0
	for i, b := range blocks {
		switch b.Type {
		case "text":
			human = true
			sources += len(imgSource.FindAllStringIndex(b.Text, -1))
			if t := texts[i]; t != "" {
				parts = append(parts, imgRef.ReplaceAllString(t, imageMark))
			}
		case "image":
			human = true
			images++
			if images > refs {
				parts = append(parts, imageMark)
			}
		case "document":
			human = true
			parts = append(parts, documentMark)
		default:
			h.quietBlock(n, b.Type)
		}
	}
	// An image named only by its source note (no image block in the
	// line, no name in the text) is still an image the user gave.
	for range max(sources-max(images, refs), 0) {
		parts = append(parts, imageMark)
	}
	return parts, human
}

// assistantBlocks returns the text of one assistant line and adds its
// tool calls to the pending ones. Thinking is dropped; a text block
// repeated within one reply is kept once.
func (h *claudeHandler) assistantBlocks(n int, blocks []claudeBlock) []string {
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			t := strings.TrimSpace(b.Text)
			if t == "" || t == claudeNoContent {
				continue
			}
			key := textKey(t)
			if slices.Contains(h.st.ReplyTexts, key) {
				continue
			}
			h.st.ReplyTexts = append(h.st.ReplyTexts, key)
			parts = append(parts, t)
		case "tool_use", "server_tool_use", "mcp_tool_use":
			h.keptLine = true
			if plan := claudePlan(&b); plan != "" {
				// The plan the assistant asks the user to approve is
				// what it means to do: its text, not a tool call.
				if key := textKey(plan); !slices.Contains(h.st.ReplyTexts, key) {
					h.st.ReplyTexts = append(h.st.ReplyTexts, key)
					h.st.Plan = key
					parts = append(parts, plan)
				}
				continue
			}
			if said := claudeSaid(&b); said != "" {
				if key := textKey(said); !slices.Contains(h.st.ReplyTexts, key) {
					h.st.ReplyTexts = append(h.st.ReplyTexts, key)
					parts = append(parts, said)
				}
				continue
			}
			h.st.Pending.add(toolSummary(b.Name, b.Input))
		case "image":
			parts = append(parts, imageMark)
		case "document":
			parts = append(parts, documentMark)
		default:
			h.quietBlock(n, b.Type)
		}
	}
	return parts
}

// claudeExitPlanMode is the tool by which the assistant, in plan mode,
// presents its plan (input "plan", Markdown) for the user to approve or
// reject; the user's reason for a rejection is read from the tool result
// like any rejected tool call's.
const claudeExitPlanMode = "ExitPlanMode"

// claudePlan returns the plan of an ExitPlanMode call, or "".
func claudePlan(b *claudeBlock) string {
	if b.Name != claudeExitPlanMode {
		return ""
	}
	return strings.TrimSpace(jsonArg(b.Input["plan"]))
}

// claudeSendUserMessage is the tool by which the assistant speaks to the
// user in brief mode (2.1): its input "message" (Markdown) is what the
// user reads, and the assistant's plain text is not shown to them.
const claudeSendUserMessage = "SendUserMessage"

// claudeSaid returns the message of a SendUserMessage call, or "".
func claudeSaid(b *claudeBlock) string {
	if b.Name != claudeSendUserMessage {
		return ""
	}
	return strings.TrimSpace(jsonArg(b.Input["message"]))
}

// What Claude Code answers an ExitPlanMode call the user approved with:
// the approval, then (in 2.1 builds, whose calls may carry no plan: the
// plan is in a file) the plan itself after claudeApprovedHeading, or
// after claudeEditedHeading when the user edited it before approving it
// (ExitPlanModeV2's planWasEdited): then the plan approved is not the one
// the call presented.
const (
	claudePlanApproved    = "User has approved your plan."
	claudeApprovedHeading = "## Approved Plan:\n"
	claudeEditedHeading   = "## Approved Plan (edited by user):\n"
)

// claudeApprovedPlan returns the plan quoted in the tool result of an
// approved ExitPlanMode call, or "".
func claudeApprovedPlan(content json.RawMessage) string {
	if !bytes.Contains(content, []byte("## Approved Plan")) {
		return ""
	}
	for _, t := range claudeToolResultTexts(content) {
		if !strings.HasPrefix(t, claudePlanApproved) {
			continue
		}
		for _, heading := range []string{claudeApprovedHeading, claudeEditedHeading} {
			if _, plan, ok := strings.Cut(t, heading); ok {
				return strings.TrimSpace(plan)
			}
		}
	}
	return ""
}

// What Claude Code writes when the user approves a plan and has the
// context cleared (2.1): the first prompt of a new session, the plan
// after claudeHandoffPrompt, then a pointer to the planning session's
// transcript (claudeHandoffPointer), maybe a hint to split the work among
// a team, and the user's feedback on the plan after
// claudeHandoffFeedback. The line carries the plan apart, as planContent.
const (
	claudeHandoffPrompt   = "Implement the following plan:"
	claudeHandoffPointer  = "\n\nIf you need specific details from before exiting plan mode"
	claudeHandoffFeedback = "\n\nUser feedback on this plan: "
)

// claudeHandoff returns a plan handoff without Claude Code's bookkeeping
// (the pointer to the planning transcript and the hint to split the work
// among a team): the request that the plan be implemented, the plan, and
// the user's feedback. The plan is also the assistant's in the planning
// session, but a reader sees one file, and that session may not hold it
// (a build whose ExitPlanMode call carried none, a transcript Claude Code
// has cleaned up): kept twice rather than risk keeping it nowhere. Any
// other text is returned as it is.
func claudeHandoff(text, planContent string) string {
	rest, ok := strings.CutPrefix(text, claudeHandoffPrompt)
	if !ok {
		return text
	}
	plan, tail, ok := strings.Cut(rest, claudeHandoffPointer)
	if !ok {
		return text // a plan the user pasted: their words
	}
	if p := strings.TrimSpace(planContent); p != "" {
		plan = p
	}
	words := []string{claudeHandoffPrompt, strings.TrimSpace(plan)}
	if _, feedback, ok := strings.Cut(tail, claudeHandoffFeedback); ok {
		words = append(words, strings.TrimSpace(feedback))
	}
	return strings.Join(words, "\n\n")
}

// quietBlock reports a content block type that is neither read nor known
// to carry nothing to remember.
func (h *claudeHandler) quietBlock(n int, typ string) {
	if !claudeQuietBlocks[typ] {
		h.st.Reported.report(h.fc, n, "content block type "+strconv.Quote(typ))
	}
}

// claudeUserText removes the runtime's scaffolding from user text. A slash
// command given arguments is kept as the user typed it ("/review the
// rounding change"): its arguments are the user's words, and the prompt
// the command expands to is a meta line. A shell command run in bash mode
// is kept as typed ("!git status"), its output dropped; so is a memory
// added with "#" ("# always use pnpm"); a message sent through a channel
// is kept without its envelope; a /loop's own wake-up and the prompt
// Claude Code sends when it resumes a cut-off turn are dropped.
func claudeUserText(s string) string {
	command := ""
	if args := claudeCommandArgs().FindStringSubmatch(s); args != nil && strings.TrimSpace(args[1]) != "" {
		if name := claudeCommandName().FindStringSubmatch(s); name != nil {
			command = "/" + strings.TrimPrefix(strings.TrimSpace(name[1]), "/") + " " + strings.TrimSpace(args[1])
		}
	}
	for _, re := range claudeScaffolding() {
		s = re.ReplaceAllString(s, "")
	}
	s = claudeBashInput().ReplaceAllString(s, "!$1")
	s = claudeMemoryInput().ReplaceAllString(s, "# $1")
	s = claudeChannel().ReplaceAllString(s, "$1")
	s = claudeCaveat().ReplaceAllString(s, "")
	s = claudeInterrupted().ReplaceAllString(s, "")
	s = claudeLoopWake().ReplaceAllString(s, "")
	s = claudeImageSource().ReplaceAllString(s, "")
	s = claudeImageResized().ReplaceAllString(s, "")
	s = claudeHookFeedback().ReplaceAllString(s, "")
	s = claudeSkillBody().ReplaceAllString(s, "")
	if command != "" {
		s = command + "\n\n" + s
	}
	s = strings.TrimSpace(s)
	if s == claudeResumePing {
		return ""
	}
	return s
}

// inDir reports whether the slash-separated relative path has dir as one
// of its directories.
func inDir(rel, dir string) bool {
	parts := strings.Split(rel, "/")
	for _, p := range parts[:len(parts)-1] {
		if p == dir {
			return true
		}
	}
	return false
}
