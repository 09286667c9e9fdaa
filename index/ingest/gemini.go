package ingest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
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
	"time"

	"github.com/zeebo/xxh3"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// A Gemini CLI source is its home (~/.gemini). Gemini CLI records each
// conversation under tmp/<project>/chats/:
//
//   - session-<YYYY-MM-DDTHH-MM>-<8 hex>.jsonl, append-only: a metadata
//     line (sessionId, projectHash, startTime, kind), then message
//     records (those with an id), {"$set": {...}} metadata updates (the
//     summary, ...) and {"$rewindTo": "<id>"}, which removes that message
//     and every later one. A message updated (its tool calls, its token
//     counts, a tool output masked) is appended again whole: the last
//     record of an id wins, in the place of its first. A "$set" of
//     "messages" is the history Gemini sends the model from then on (its
//     history sync: after a compression, a request that failed, tool
//     output masked); it changes no message it leaves out (see history).
//   - the legacy session-*.json, one object with the messages, rewritten
//     in place, read a message at a time: one cut short (a read during a rewrite, a
//     crash in one) gives the messages before the cut. Gemini migrates one it resumes to the .jsonl
//     beside it (the same name with an "l"), which holds every message of
//     it: the legacy file is then not read, so the session is indexed
//     once (see Companions).
//   - a sub-agent's conversation, chats/<parentSessionId>/<sessionId>.jsonl
//     (metadata kind "subagent"): its prompts are the main agent's tasks,
//     so they are the assistant's, as in a Claude Code sidechain.
//
// A message is user, gemini (the model), or info, error and warning (the
// CLI's own notices: not dialogue). Its content is a string or a list of
// parts: text is read (a part marked as a thought is reasoning: dropped),
// inline or file data is a placeholder, a function call a one-line
// summary, a function response (tool output) dropped: a user message of
// function responses, how Gemini records the tool output it sends back,
// is not a prompt, and the calls it answers wait for the next text. A
// prompt's displayContent, what the user typed, is read in place of the
// content the CLI sent, which carries the files an @path pulled in; the
// @path to an image pasted into it, a file the CLI saved, is an image's
// placeholder (geminiClipboardImage); a command run in shell mode is the
// user's "!command", without its output. The model's
// thoughts and the tool calls' results are dropped; each tool call is
// summarized on its message's text, or, for a message that is only tool
// calls, on the next text. The summary Gemini writes when it compresses
// a conversation is the assistant's (as Claude Code's and Codex's
// compaction summaries are): the snapshot without the scratchpad before
// it, and without the acknowledgement the model is made to answer it
// with. The session context Gemini puts first in the model's history,
// its acknowledgement, the editor's state it adds in IDE mode, and a
// hook's context added to a prompt are not dialogue, nor are the prompts
// the CLI sends by itself to make the model go on (geminiContinue).
// Gemini CLI runs no job by itself, so no prompt is automation.
//
// A record's id is the session id and the message id: a legacy file and
// its migrated .jsonl, or a session read again after a rewind, give the
// same ids. Records are held until a read's last line, so that a later
// record of an id replaces the earlier one; reading on from a cursor,
// lines that change what an earlier read gave (a $rewindTo, a message id
// read before, a new summary or message list) give ErrFileChanged and
// the file is read again whole. The project is the project root Gemini
// registered for the folder: tmp/<slug>/.project_root, else projects.json
// ({"projects": {"/abs/path": "slug"}}), whose paths also name the
// sha256 folders of older installs; else the slug itself.
//
// The home's GEMINI.md, where Gemini CLI's save_memory tool appends what
// it was asked to remember (under "## Gemini Added Memories") beside the
// user's own context, is read by the Markdown reader as notes of agent
// gemini; so is a project's private memory, tmp/<project>/memory/*.md
// (MEMORY.md, the index save_memory appends to for one project, the topic
// files beside it, a legacy private GEMINI.md), whose notes are of that
// project (not its skills/, the skill drafts Auto Memory writes). The rest of a Gemini home is not read: logs.json repeats the prompts
// the recordings hold, checkpoints/ and history/ are the file snapshots
// /restore uses, and settings, credentials, extensions and skills are
// not memory.

// geminiLine is one line of a chat recording (and a legacy file's top
// object), with the fields the reader uses; a line is a message when it
// has an id.
type geminiLine struct {
	// Metadata.
	SessionID string          `json:"sessionId"`
	StartTime string          `json:"startTime"`
	Kind      string          `json:"kind"`
	Summary   string          `json:"summary"`
	Messages  json.RawMessage `json:"messages"`
	// Message.
	ID             string          `json:"id"`
	Timestamp      string          `json:"timestamp"`
	Type           string          `json:"type"`
	Content        json.RawMessage `json:"content"`
	DisplayContent json.RawMessage `json:"displayContent"`
	ToolCalls      json.RawMessage `json:"toolCalls"`
	// Updates.
	Set      json.RawMessage `json:"$set"`
	RewindTo *string         `json:"$rewindTo"`
}

// geminiPart is one part of a message's content (a Gemini API Part).
type geminiPart struct {
	Text       *string          `json:"text"`
	Thought    bool             `json:"thought"`
	InlineData *geminiBlob      `json:"inlineData"`
	FileData   *geminiBlob      `json:"fileData"`
	Call       *geminiToolCall  `json:"functionCall"`
	Response   *json.RawMessage `json:"functionResponse"`
	Code       *json.RawMessage `json:"executableCode"`
	CodeResult *json.RawMessage `json:"codeExecutionResult"`
}

type geminiBlob struct {
	MimeType string `json:"mimeType"`
}

// geminiToolCall is a tool call: a toolCalls entry or a functionCall
// part. Its result is never decoded.
type geminiToolCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// Message types that are not dialogue: the CLI's notices.
var geminiQuietTypes = setOf("info", "error", "warning")

// geminiReferencedFiles is what Gemini CLI appends to a prompt for each
// @path in it: the files' content, which the user did not type.
var geminiReferencedFiles = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)\n*--- Content from referenced files ---.*?(?:--- End of content ---|$)`)
})

// An image pasted into a Gemini CLI prompt is saved to a file and named
// in the prompt as an @path to it (InputPrompt, clipboardUtils.ts
// saveClipboardImage), relative to the project: clipboard-<ms>.png (or
// .jpg, ...) in <project>/.gemini-clipboard/, in newer builds in the
// project's temp folder, ~/.gemini/tmp/<project>/images/. The image
// itself is sent among the referenced files (geminiReferencedFiles), which
// are cut. The path is not what the user said: it reads as imageMark,
// once per image, as Claude Code's "[Image #1]" does; an @path the user
// typed to a file of theirs stays.
var geminiClipboardImage = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|\s)@(?:\\ |\S)*?(?:\.gemini-clipboard|[/\\]\.gemini[/\\]tmp[/\\](?:\\ |\S)+?[/\\]images)[/\\]clipboard-\d+(?:-[0-9A-Za-z]+)?\.(?i:png|jpe?g|gif|tiff?|bmp|webp|heic|heif)\b`)
})

// geminiPastedImages reads the paths of pasted images in a prompt as
// imageMark (see geminiClipboardImage).
func geminiPastedImages(text string) string {
	if !strings.Contains(text, "clipboard-") {
		return text // the cheap test: most prompts paste no image
	}
	return geminiClipboardImage().ReplaceAllString(text, "${1}"+imageMark)
}

// When Gemini compresses a conversation, the summary of the turns it
// compressed enters the history as a user turn: the model's scratchpad,
// if any, then the summary, a <state_snapshot> (a turn of type
// geminiSummary once read); the model's canned acknowledgement follows.
var geminiSnapshot = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)<state_snapshot>(.*?)(?:</state_snapshot>\s*)?$`)
})

const (
	geminiSummary    = "summary"
	geminiSummaryAck = "Got it. Thanks for the additional context!"
)

// A command the user runs in shell mode ("!") enters the history as a
// user turn Gemini CLI writes (useShellCommandProcessor,
// addShellCommandToGeminiHistory): the command in a fenced sh block,
// then its output. The command is what the user typed, kept as
// "!command" as Claude Code's bash mode is (claudeBashInput); the output
// is not theirs.
const geminiShellIntro = "I ran the following shell command:"

var geminiShellCommand = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?s)\\AI ran the following shell command:\\s*```[a-z]*\\n(.*?)\\n```\\s*This produced the following result:")
})

// geminiToolResponse is the type of a turn that is a user message of
// function responses.
const geminiToolResponse = "tool response"

// Gemini CLI starts the model's history with the session context (the
// date, the operating system, the workspace's folders), wrapped in
// <session_context> (geminiContextIntro opens it in older builds), which
// the model is made to acknowledge; a hook's context is added to a
// prompt in <hook_context>. Neither is what the user said: the context
// is a turn of type geminiContext once read, and both are cut from a
// prompt.
var geminiInjected = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)<session_context>.*?(?:</session_context>|$)|<hook_context>.*?(?:</hook_context>|$)`)
})

// In IDE mode Gemini CLI adds the editor's state (the active file, the
// cursor, the selection, the other open files) to the history as a user
// turn of its own, whole or as the changes since the last one: context,
// like the session's, not what the user said.
var geminiEditorContext = []string{
	"Here is the user's editor context as a JSON object.",
	"Here is a summary of changes in the user's editor context",
}

// geminiContinue are the prompts Gemini CLI sends by itself to make the
// model go on (core/client.ts sendMessageStream): after the next-speaker
// check says the model should speak, and after an invalid stream. Its
// chat records them as user messages; no one typed them, and the tool
// calls before one wait for the answer after it.
var geminiContinue = setOf("Please continue.", "System: Please continue.")

// geminiContinued is the type of a turn that is one of geminiContinue.
const geminiContinued = "continue"

const (
	geminiContext      = "context"
	geminiContextIntro = "This is the Gemini CLI. We are setting up the context for our chat."
	geminiContextAck   = "Got it. Thanks for the context!"
)

// geminiSeenWindow bounds the message ids a file's cursor remembers
// (digests, keptKeyBytes each). Gemini appends again mostly its latest
// messages (tool calls and token counts come after the text), but also
// an older one whose tool output it masked, however far back: a message
// written again keeps its timestamp, so one the window no longer holds
// is told from a new one by its time (geminiState.Latest).
const geminiSeenWindow = 1024

// geminiTurn is one message kept from a read, until the read's last line.
type geminiTurn struct {
	id, typ string
	line    int
	time    time.Time
	// own is set when time is the message's own timestamp.
	own   bool
	text  string
	tools []string
}

// geminiState is what reading a recording carries from one read to the
// next (as the Cursor's State).
type geminiState struct {
	// Session is the metadata's session id; Subagent is set by its kind.
	Session  string `json:"session,omitempty"`
	Subagent bool   `json:"subagent,omitempty"`
	// Summary is the session's summary, the title of its records.
	Summary   string `json:"summary,omitempty"`
	StartTime string `json:"startTime,omitempty"`
	LastTime  string `json:"lastTime,omitempty"`
	// Pending are the tool calls of the last messages that had no text.
	Pending pendingTools `json:"pending,omitzero"`
	// Seen are digests of the ids of the messages read so far (the last
	// geminiSeenWindow), packed as claudeState.Kept is.
	Seen []byte `json:"seen,omitempty"`
	// Forgot is set once Seen has let an id go; Latest is then the
	// latest timestamp of a message read so far. A message Gemini writes
	// again keeps its timestamp and a new one has the time it was made,
	// so a message read on that Seen does not hold and that is not later
	// than Latest (or has no time) may be one written again: the file is
	// read whole. Two numbers in place of every id read; a new message
	// stamped no later than the latest before it (a clock set back) costs
	// a whole read, never a record twice.
	Forgot   bool         `json:"forgot,omitempty"`
	Latest   string       `json:"latest,omitempty"`
	Reported shapeReports `json:"reported,omitempty"`
}

// geminiHandler reads one recording.
type geminiHandler struct {
	fc *fileCtx
	st geminiState
	// turns are the messages of this read by id, order their ids in the
	// order they first came; changed is why this read changes what an
	// earlier read gave ("" when it does not).
	turns map[string]*geminiTurn
	order []string
	// held counts the turns held by what they say (geminiContent).
	held    map[uint64]int
	changed string
	seen    idWindow
	// latest is st.Latest parsed, as the earlier reads left it.
	latest time.Time
	// ack is the acknowledgement the model is made to answer the last
	// message kept with, when it is a compression summary or the
	// session context.
	ack string
	// onward is set on a read that goes on from an earlier one's cursor.
	onward bool
	// parent is the session a sub-agent's folder names; stem the file
	// name without its extension; cwd the project root.
	parent, stem, cwd, project string
}

func newGeminiHandler(fc *fileCtx, state json.RawMessage) (*geminiHandler, error) {
	h := &geminiHandler{fc: fc, turns: map[string]*geminiTurn{}, held: map[uint64]int{}, seen: idWindow{size: geminiSeenWindow}, onward: len(bytes.TrimSpace(state)) > 0}
	if err := decodeState(state, &h.st); err != nil {
		return nil, err
	}
	_, h.latest, _ = parseDate(h.st.Latest, h.fc.loc)
	name := filepath.Base(fc.path)
	h.stem = strings.TrimSuffix(strings.TrimSuffix(name, ".jsonl"), ".json")
	if dir := filepath.Dir(fc.path); filepath.Base(dir) != "chats" && filepath.Base(filepath.Dir(dir)) == "chats" {
		h.parent = filepath.Base(dir)
	}
	h.cwd, h.project = geminiProject(fc.path)
	return h, nil
}

func (h *geminiHandler) state() (json.RawMessage, error) { return json.Marshal(h.st) }

func (h *geminiHandler) line(n int, data []byte) error {
	var l geminiLine
	if err := json.Unmarshal(data, &l); err != nil {
		return undecodedLine(h.fc, n, data, err)
	}
	switch {
	case l.RewindTo != nil:
		h.rewind(*l.RewindTo)
	case l.ID != "":
		h.message(n, &l)
	case len(l.Set) > 0:
		h.set(n, l.Set)
	case l.SessionID != "":
		h.meta(&l)
	default:
		h.st.Reported.report(h.fc, n, "a line without id, $set or $rewindTo")
	}
	return nil
}

// meta reads the metadata line (or a legacy file's top object).
func (h *geminiHandler) meta(l *geminiLine) {
	if h.st.Session == "" {
		h.st.Session = strings.TrimSpace(l.SessionID)
	}
	if l.Kind == "subagent" {
		h.st.Subagent = true
	}
	if h.st.StartTime == "" {
		h.st.StartTime = l.StartTime
	}
	if s := stateText(l.Summary); s != "" {
		h.st.Summary = s
	}
}

// set reads a metadata update: a new summary names the records, a list
// of messages is the history Gemini sends the model from then on.
func (h *geminiHandler) set(n int, raw json.RawMessage) {
	var upd geminiLine
	if err := json.Unmarshal(raw, &upd); err != nil {
		h.fc.problem(n, "unexpected $set: "+trimErr(err))
		return
	}
	if s := stateText(upd.Summary); s != "" && s != h.st.Summary {
		h.change("a new summary")
		h.st.Summary = s
	}
	if b := bytes.TrimSpace(upd.Messages); len(b) > 0 && string(b) != "null" {
		var msgs []json.RawMessage
		if err := json.Unmarshal(b, &msgs); err != nil {
			h.fc.problem(n, "unexpected $set of messages: "+trimErr(err))
			return
		}
		h.change("the message list written again")
		h.history(n, msgs)
	}
}

// history reads the message list of a $set, written when Gemini changes
// the history it sends the model: a compression (the summary of the
// earlier turns and the model's acknowledgement, then the turns kept),
// a turn rolled back after a failed request, tool output masked. It
// changes what the model is sent next, not what was said: a message it
// leaves out stays, one it lists again is its last version, and a copy
// of a message already read under a fresh id (a sub-agent's compression
// gives the kept turns new ids) is not read again.
func (h *geminiHandler) history(n int, msgs []json.RawMessage) {
	for _, m := range msgs {
		var l geminiLine
		if json.Unmarshal(m, &l) != nil || l.ID == "" {
			continue
		}
		t := h.turn(n, &l)
		if _, ok := h.turns[t.id]; !ok && h.held[geminiContent(t)] > 0 {
			continue
		}
		h.keep(t)
	}
}

// geminiContent is a digest of what a turn says (0: nothing), to know a
// copy of one under another id.
func geminiContent(t *geminiTurn) uint64 {
	if t.text == "" {
		return 0
	}
	return xxh3.HashStringSeed(t.text, xxh3.HashString(t.typ))
}

// hold counts a turn held (by what it says) when by is 1, or forgets it
// when by is -1.
func (h *geminiHandler) hold(t *geminiTurn, by int) {
	if k := geminiContent(t); k != 0 {
		if h.held[k] += by; h.held[k] <= 0 {
			delete(h.held, k)
		}
	}
}

// rewind removes the message id and every later one; an id not read
// removes them all, as Gemini CLI's loader does.
func (h *geminiHandler) rewind(id string) {
	h.change("a rewind")
	i := 0
	for i < len(h.order) && h.order[i] != id {
		i++
	}
	if i == len(h.order) {
		i = 0
	}
	for _, gone := range h.order[i:] {
		h.hold(h.turns[gone], -1)
		delete(h.turns, gone)
	}
	h.order = h.order[:i]
}

// change notes that this read changes records an earlier read gave.
func (h *geminiHandler) change(why string) {
	if h.changed == "" && h.onward {
		h.changed = why
	}
}

// message keeps a message record, in the place of an earlier one of its
// id.
func (h *geminiHandler) message(n int, l *geminiLine) { h.keep(h.turn(n, l)) }

// turn reads a message record.
func (h *geminiHandler) turn(n int, l *geminiLine) *geminiTurn {
	t, own := h.when(l.Timestamp)
	if h.onward && h.readBefore(l.ID, t, own) {
		h.change("message " + strconv.Quote(l.ID) + " written again")
	}
	turn := &geminiTurn{id: l.ID, typ: l.Type, line: n, time: t, own: own}
	switch {
	case l.Type == "user" || l.Type == "gemini":
		content := l.Content
		if l.Type == "user" && geminiHasText(l.DisplayContent) {
			content = l.DisplayContent
		}
		text, tools, responses := h.content(n, content)
		turn.text, turn.tools = text, geminiCalls(tools, h.toolCalls(n, l.ToolCalls))
		if l.Type == "user" && responses {
			// The tool responses Gemini sends back, recorded as the
			// user's: not a prompt, so the calls they answer stay
			// pending for the answer.
			turn.typ, turn.text, turn.tools = geminiToolResponse, "", nil
		} else if l.Type == "user" {
			text = geminiPastedImages(text)
			// The tags are looked for before the expressions run: most
			// prompts have none.
			cut := text
			if strings.Contains(text, "_context>") {
				cut = strings.TrimSpace(geminiInjected().ReplaceAllString(text, ""))
			}
			var m []string
			if strings.Contains(text, "<state_snapshot>") {
				m = geminiSnapshot().FindStringSubmatch(text)
			}
			switch {
			case m != nil:
				turn.typ, turn.text, turn.tools = geminiSummary, strings.TrimSpace(m[1]), nil
			case cut == "" && text != "", strings.HasPrefix(text, geminiContextIntro), geminiEditorState(text):
				turn.typ, turn.text, turn.tools = geminiContext, "", nil
			case geminiContinue[cut]:
				turn.typ, turn.text, turn.tools = geminiContinued, "", nil
			case strings.HasPrefix(cut, geminiShellIntro):
				turn.text = cut
				if m := geminiShellCommand().FindStringSubmatch(cut); m != nil {
					turn.text = "!" + m[1]
				}
			default:
				turn.text = cut
			}
		}
	case geminiQuietTypes[l.Type]:
	default:
		h.st.Reported.report(h.fc, n, "message type "+strconv.Quote(l.Type))
	}
	return turn
}

// keep holds a turn until the read's last line, in the place of an
// earlier one of its id. The model's canned acknowledgement of a
// compression summary or of the session context is not dialogue.
func (h *geminiHandler) keep(t *geminiTurn) {
	if h.ack != "" && t.typ == "gemini" && t.text == h.ack && len(t.tools) == 0 {
		t.typ = "info"
	}
	switch t.typ {
	case geminiSummary:
		h.ack = geminiSummaryAck
	case geminiContext:
		h.ack = geminiContextAck
	default:
		h.ack = ""
	}
	if old, ok := h.turns[t.id]; ok {
		h.hold(old, -1)
	} else {
		h.order = append(h.order, t.id)
	}
	h.hold(t, 1)
	h.turns[t.id] = t
}

// content reads a message's content: its text, and the summaries of the
// function calls among its parts; responses is set when a part is a
// function response.
func (h *geminiHandler) content(n int, raw json.RawMessage) (text string, tools []string, responses bool) {
	parts, err := geminiParts(raw)
	if err != nil {
		h.fc.problem(n, "unexpected content: "+trimErr(err))
		return "", nil, false
	}
	var b strings.Builder
	mark := func(m string) {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(m + "\n")
	}
	for _, p := range parts {
		switch {
		case p.Text != nil:
			if !p.Thought {
				b.WriteString(*p.Text)
			}
		case p.InlineData != nil:
			mark(geminiBlobMark(p.InlineData))
		case p.FileData != nil:
			mark(geminiBlobMark(p.FileData))
		case p.Call != nil:
			tools = append(tools, toolSummary(p.Call.Name, toolArguments(p.Call.Args)))
		case p.Response != nil:
			responses = true // tool output: not dialogue
		case p.Code != nil, p.CodeResult != nil:
			// The code the model ran and its output: not dialogue.
		default:
			h.st.Reported.report(h.fc, n, "content part without text, data or call")
		}
	}
	text = geminiReferencedFiles().ReplaceAllString(b.String(), "")
	return strings.TrimSpace(text), tools, responses
}

// toolCalls summarizes a gemini message's toolCalls.
func (h *geminiHandler) toolCalls(n int, raw json.RawMessage) []string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var calls []geminiToolCall
	if err := json.Unmarshal(raw, &calls); err != nil {
		h.fc.problem(n, "unexpected toolCalls: "+trimErr(err))
		return nil
	}
	out := make([]string, 0, len(calls))
	for _, c := range calls {
		out = append(out, toolSummary(c.Name, toolArguments(c.Args)))
	}
	return out
}

// finish emits the messages of this read in their order, each at the
// line of its last record, or returns ErrFileChanged when this read, on
// from a cursor, changes what an earlier read gave.
func (h *geminiHandler) finish() error {
	if h.changed != "" {
		return fmt.Errorf("%w: %s", ErrFileChanged, h.changed)
	}
	for _, id := range h.order {
		t := h.turns[id]
		h.remember(t)
		if err := h.emit(t); err != nil {
			return err
		}
	}
	if !h.latest.IsZero() {
		h.st.Latest = h.latest.UTC().Format(time.RFC3339Nano)
	}
	return nil
}

// readBefore reports whether an earlier read may have read message id
// (at time t, its own when own is set): the window holds it, or the
// window let ids go and the message is no later than the latest read.
func (h *geminiHandler) readBefore(id string, t time.Time, own bool) bool {
	if h.seen.has(h.st.Seen, id) {
		return true
	}
	return h.st.Forgot && (!own || h.latest.IsZero() || !t.After(h.latest))
}

// remember adds a kept message to the window of those read, and keeps
// the latest time read.
func (h *geminiHandler) remember(t *geminiTurn) {
	if h.seen.full(h.st.Seen) && !h.seen.has(h.st.Seen, t.id) {
		h.st.Forgot = true
	}
	h.st.Seen = h.seen.add(h.st.Seen, t.id)
	if t.own && t.time.After(h.latest) {
		h.latest = t.time
	}
}

// emit makes the record of a kept message.
func (h *geminiHandler) emit(t *geminiTurn) error {
	role := ""
	switch t.typ {
	case "user":
		// A prompt drops the tool calls of the turn before it.
		h.st.Pending = pendingTools{}
		role = "user"
		if h.st.Subagent || h.parent != "" {
			role = "assistant"
		}
	case "gemini":
		for _, tool := range t.tools {
			h.st.Pending.add(tool)
		}
		role = "assistant"
	case geminiSummary:
		// The assistant's account of the turns before, as Claude Code's
		// and Codex's compaction summaries are.
		role = "assistant"
	default:
		return nil
	}
	if !hasContent(t.text) {
		return nil // a message of tool calls only: they wait for the next text
	}
	text := t.text
	if t.typ == "gemini" {
		text = h.st.Pending.take(text)
	}
	session := h.st.Session
	if session == "" {
		session = h.stem
	}
	owner, conversation := session, session
	if h.parent != "" {
		owner, conversation = h.parent, h.parent+"/"+session
	}
	m := message{role: role, text: text, title: h.st.Summary, time: t.time, cwd: h.cwd, line: t.line}
	rec, ok := m.record(h.fc, config.KindGemini, owner, session+":"+t.id, conversation)
	if !ok {
		return nil
	}
	if h.cwd == "" {
		rec.Project = h.project
	}
	return h.fc.emit(rec)
}

// when returns a message's time: its timestamp (own), else the last time
// read, else the session's start.
func (h *geminiHandler) when(ts string) (t time.Time, own bool) {
	if _, t, _ := parseDate(ts, h.fc.loc); !t.IsZero() {
		h.st.LastTime = t.UTC().Format(time.RFC3339Nano)
		return t, true
	}
	for _, s := range []string{h.st.LastTime, h.st.StartTime} {
		if _, t, _ := parseDate(s, h.fc.loc); !t.IsZero() {
			return t, false
		}
	}
	return time.Time{}, false
}

// geminiCalls joins the summaries of a message's functionCall parts and
// of its toolCalls: a call in both (Gemini records a turn of calls with
// its parts and then adds the calls' records, and its history sync
// writes the model's parts back) is one call.
func geminiCalls(parts, calls []string) []string {
	out := slices.Clone(parts)
	matched := make([]bool, len(parts))
next:
	for _, c := range calls {
		for i, p := range parts {
			if !matched[i] && p == c {
				matched[i] = true
				continue next
			}
		}
		out = append(out, c)
	}
	return out
}

// geminiParts decodes content: a string, one part, or a list of parts
// and strings.
func geminiParts(raw json.RawMessage) ([]geminiPart, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	one := func(r json.RawMessage) (geminiPart, error) {
		r = bytes.TrimSpace(r)
		if len(r) > 0 && r[0] == '"' {
			var s string
			err := json.Unmarshal(r, &s)
			return geminiPart{Text: &s}, err
		}
		var p geminiPart
		err := json.Unmarshal(r, &p)
		return p, err
	}
	if raw[0] != '[' {
		p, err := one(raw)
		if err != nil {
			return nil, err
		}
		return []geminiPart{p}, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	parts := make([]geminiPart, 0, len(list))
	for _, r := range list {
		p, err := one(r)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// geminiEditorState reports whether a user turn is the editor's state
// Gemini CLI added in IDE mode (see geminiEditorContext).
func geminiEditorState(text string) bool {
	for _, p := range geminiEditorContext {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// geminiHasText reports whether content holds any text (a prompt's
// displayContent may be empty).
func geminiHasText(raw json.RawMessage) bool {
	parts, err := geminiParts(raw)
	if err != nil {
		return false
	}
	for _, p := range parts {
		if p.Text != nil && !p.Thought && strings.TrimSpace(*p.Text) != "" {
			return true
		}
	}
	return false
}

// geminiBlobMark is the placeholder of inline or file data.
func geminiBlobMark(b *geminiBlob) string {
	if strings.HasPrefix(strings.ToLower(b.MimeType), "image/") {
		return imageMark
	}
	return documentMark
}

// geminiProject returns the project root of a recording at path (under
// <home>/tmp/<project>/chats/), and the project folder's name for one
// whose root is not known.
func geminiProject(path string) (cwd, project string) {
	dir := filepath.Dir(path)
	if filepath.Base(dir) != "chats" {
		dir = filepath.Dir(dir) // a sub-agent's folder
	}
	if filepath.Base(dir) != "chats" {
		return "", ""
	}
	return geminiProjectDir(filepath.Dir(dir))
}

// geminiProjectDir returns the project root of a project folder of a
// Gemini home (tmp/<project>), and the folder's name for one whose root
// is not known.
func geminiProjectDir(projectDir string) (cwd, project string) {
	id := filepath.Base(projectDir)
	if b, err := readSmall(filepath.Join(projectDir, ".project_root")); err == nil {
		if root := strings.TrimSpace(string(b)); filepath.IsAbs(root) || strings.HasPrefix(root, "/") {
			return root, ProjectFromCwd(root)
		}
	}
	hashed := geminiHashDir(id)
	if tmp := filepath.Dir(projectDir); filepath.Base(tmp) == "tmp" {
		if b, err := readSmall(filepath.Join(filepath.Dir(tmp), "projects.json")); err == nil {
			var reg struct {
				Projects map[string]string `json:"projects"`
			}
			if json.Unmarshal(b, &reg) == nil {
				for root, slug := range reg.Projects {
					if slug == id || hashed && geminiHash(root) == id {
						return root, ProjectFromCwd(root)
					}
				}
			}
		}
	}
	if hashed {
		return "", "" // a hash names no project
	}
	return "", id
}

// readGeminiNote reads a Markdown memory file of a Gemini home: the
// home's GEMINI.md, or a file of a project's private memory
// (tmp/<project>/memory/), whose notes are of that project.
func readGeminiNote(fc *fileCtx) error {
	dir := filepath.Dir(fc.path)
	if filepath.Base(dir) != "memory" || filepath.Base(filepath.Dir(filepath.Dir(dir))) != "tmp" {
		return readAgentNote(fc, config.KindGemini)
	}
	_, project := geminiProjectDir(filepath.Dir(dir))
	note := *fc
	record := fc.sink.Record
	note.sink.Record = func(r memory.Record) error {
		if r.Project == "" {
			r.Project = project
		}
		return record(r)
	}
	return readAgentNote(&note, config.KindGemini)
}

// geminiHashDir reports whether a project folder's name is the sha256 of
// its root (older Gemini CLI installs).
func geminiHashDir(id string) bool {
	if len(id) != 64 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}

func geminiHash(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:])
}

// geminiSmallFile bounds the registry files the reader reads.
const geminiSmallFile = 1 << 20

// readSmall reads a file of at most geminiSmallFile bytes.
func readSmall(p string) ([]byte, error) {
	f, err := openSource(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, geminiSmallFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > geminiSmallFile {
		return nil, fmt.Errorf("%s is larger than %d bytes", p, geminiSmallFile)
	}
	return b, nil
}

// geminiMaxLegacy bounds a legacy recording read. It is read a message
// at a time, so what it holds is about its largest message, not its size.
const geminiMaxLegacy = 256 << 20

// geminiMigrated returns the .jsonl a legacy recording at path is
// migrated to.
func geminiMigrated(path string) string { return path + "l" }

// readGeminiLegacy reads a legacy recording (one JSON object with the
// messages), unless Gemini migrated it to a .jsonl, which holds it all.
func readGeminiLegacy(fc *fileCtx) error {
	if _, err := os.Stat(geminiMigrated(fc.path)); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := openSource(fc.path)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return err
	} else if fi.Size() > geminiMaxLegacy {
		fc.problem(0, fmt.Sprintf("larger than %d bytes: skipped", geminiMaxLegacy))
		return nil
	}
	br := bufio.NewReaderSize(f, lineBufferBytes)
	head, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return err
	}
	if binaryContent(string(head)) {
		fc.problem(0, "binary content (NUL bytes or mostly invalid UTF-8), not text: skipped")
		return nil
	}
	if bytes.HasPrefix(head, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM))
	}
	h, err := newGeminiHandler(fc, nil)
	if err != nil {
		return err
	}
	r := geminiLegacy{fc: fc, h: h, dec: json.NewDecoder(br)}
	cut := r.object()
	if r.notRecording != nil {
		fc.problem(0, "not a Gemini CLI recording: "+trimErr(r.notRecording))
		return nil
	}
	if r.fields == 0 && r.n == 0 && cut != nil {
		fc.problem(0, "not a Gemini CLI recording: "+trimErr(cut)) // not even the start of an object
		return nil
	}
	if r.notList {
		fc.problem(0, "unexpected messages: not a JSON list")
		return nil
	}
	if cut != nil {
		fc.problem(0, fmt.Sprintf("cut short after %d messages (a rewrite in progress, or one a crash interrupted): the rest is not read (%s)", r.n, trimErr(cut)))
	}
	return h.finish()
}

// geminiLegacy reads a legacy recording's top object with a streaming
// decoder, a field or a message at a time: the file may be hundreds of
// megabytes, most of it tool output that is not read. Gemini CLI
// rewrites the file in place (truncated, then written), so a read during
// that write, or the file a crash left, holds only its start: what is
// whole of it is read.
type geminiLegacy struct {
	fc  *fileCtx
	h   *geminiHandler
	dec *json.Decoder
	// fields counts the top object's fields read, n its messages.
	fields, n int
	// notRecording is why a field is not a recording's; notList is set
	// when the messages are not a list.
	notRecording error
	notList      bool
}

// object reads the top object, its metadata into the handler and its
// messages as turns, up to its end or the first value cut short (the
// error returned, nil for a whole object).
func (r *geminiLegacy) object() error {
	if tok, err := r.dec.Token(); err != nil {
		return err
	} else if tok != json.Delim('{') {
		r.notRecording = fmt.Errorf("a JSON %v, not an object", tok)
		return nil
	}
	for r.dec.More() {
		tok, err := r.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		r.fields++
		if key == "messages" {
			if err := r.messages(); err != nil || r.notList {
				return err
			}
			continue
		}
		var v json.RawMessage
		if err := r.dec.Decode(&v); err != nil {
			return err
		}
		// Field by field: a recording names its session and start
		// before its messages, whose times may fall back on the start.
		b, err := json.Marshal(map[string]json.RawMessage{key: v})
		var top geminiLine
		if err == nil {
			err = json.Unmarshal(b, &top)
		}
		if err != nil {
			r.notRecording = err
			return nil
		}
		r.h.meta(&top)
	}
	_, err := r.dec.Token()
	return err
}

// messages reads the messages list, each message a turn kept in the
// handler; a value that is not a list sets notList.
func (r *geminiLegacy) messages() error {
	tok, err := r.dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if tok != json.Delim('[') {
		r.notList = true
		return nil
	}
	for r.dec.More() {
		var m json.RawMessage
		if err := r.dec.Decode(&m); err != nil {
			return err
		}
		r.n++
		var l geminiLine
		if err := json.Unmarshal(m, &l); err != nil || l.ID == "" {
			r.h.st.Reported.report(r.fc, 0, "a message without an id")
			continue
		}
		// The object gives its messages no line of their own: a
		// message's line is its place in the list, which the index
		// knows a record and orders its neighbours by.
		turn := r.h.turn(0, &l)
		turn.line = r.n
		r.h.keep(turn)
	}
	_, err = r.dec.Token()
	return err
}
