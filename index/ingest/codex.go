package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// codexLine is the envelope of every rollout line.
type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// codexPayload holds the fields the reader uses of the response_item and
// event_msg payloads it keeps.
type codexPayload struct {
	Type string `json:"type"`
	// response_item message
	Role    string             `json:"role"`
	Content []codexContentItem `json:"content"`
	// response_item message, event_msg agent_message: commentary,
	// final_answer or absent.
	Phase string `json:"phase"`
	// response_item function_call (Arguments is a JSON string) and
	// custom_tool_call (Input is free text, e.g. a patch).
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Input     string `json:"input"`
	// response_item local_shell_call and web_search_call.
	Action *struct {
		Command []string `json:"command"`
		Query   string   `json:"query"`
	} `json:"action"`
	// event_msg user_message and agent_message
	Message string   `json:"message"`
	Images  []string `json:"images"`
}

type codexContentItem struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// codexScaffolding are the openings of user-role texts that the Codex
// runtime injects (environment, sandbox permissions, AGENTS.md and user
// instructions, abort notices); they are not the user speaking.
var codexScaffolding = []string{
	"<environment_context>",
	"<permissions instructions>",
	"<user_instructions>",
	"<developer_instructions>",
	"<turn_aborted>",
	"# AGENTS.md instructions",
}

// codexIDERequest separates the editor context the Codex IDE extension
// prepends to a prompt from the prompt itself.
const codexIDERequest = "## My request for Codex:"

// codexStream says which of the two copies of an utterance a message came
// from: Codex writes each one as a response_item and as an event_msg.
type codexStream int

const (
	streamItem codexStream = iota
	streamEvent
)

// codexReader holds the state of reading one rollout.
type codexReader struct {
	path string
	sink Sink
	// session is the rollout's session id: session_meta's, else the uuid
	// in the file name.
	session  string
	metaSeen bool
	// cwd is the working directory of the current turn.
	cwd string
	// lastTime is the latest line timestamp, for lines without one.
	lastTime time.Time
	// seen counts, per (role, normalized text), the copies read from each
	// stream (see keep).
	seen map[string]*[2]int
	// tools are summaries of tool calls not yet attached to an answer.
	tools []string
}

// readCodexFile reads one Codex CLI rollout (rollout-*.jsonl, or
// rollout-*.jsonl.zst when no plain sibling exists) and emits one record
// per user prompt and assistant answer. Runtime scaffolding, reasoning,
// commentary, tool output and telemetry are dropped; the tool calls made
// before an answer are attached to it as one-line summaries.
func readCodexFile(ctx context.Context, src config.Source, path, rel string, sink Sink) error {
	compressed := strings.HasSuffix(path, ".zst")
	if compressed {
		// Codex may compress a rollout while keeping the plain file; the
		// plain one is authoritative and carries the same records.
		if _, err := os.Stat(strings.TrimSuffix(path, ".zst")); err == nil {
			return nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("stat plain rollout: %w", err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open rollout: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if compressed {
		zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return fmt.Errorf("zstd rollout: %w", err)
		}
		defer zr.Close()
		r = zstdErrors{zr}
	}
	cr := &codexReader{path: path, sink: sink, session: codexFileSession(path), seen: map[string]*[2]int{}}
	problem := func(line int, reason string) {
		sink.Problem(Problem{Source: src.Name, Path: path, Line: line, Reason: reason})
	}
	return eachJSONLine(ctx, r, problem, func(n int, l *codexLine) error {
		return cr.line(n, l, problem)
	})
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

func (cr *codexReader) line(n int, l *codexLine, problem func(int, string)) error {
	if _, t, ok := ParseDate(l.Timestamp); ok && !t.IsZero() {
		cr.lastTime = t
	}
	// Look at the payload's type first, so that a payload this reader
	// does not use is skipped whatever its shape (formats drift).
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(l.Payload, &head) != nil || !codexUses(l.Type, head.Type) {
		return nil
	}
	switch l.Type {
	case "session_meta", "turn_context":
		var meta struct {
			ID  string `json:"id"`
			Cwd string `json:"cwd"`
		}
		if err := json.Unmarshal(l.Payload, &meta); err != nil {
			problem(n, fmt.Sprintf("unexpected %s payload: %s", l.Type, trimErr(err)))
			return nil
		}
		cr.meta(l.Type, meta.ID, meta.Cwd)
		return nil
	}
	var p codexPayload
	if err := json.Unmarshal(l.Payload, &p); err != nil {
		problem(n, fmt.Sprintf("unexpected %s %s payload: %s", l.Type, head.Type, trimErr(err)))
		return nil
	}
	if l.Type == "response_item" {
		return cr.responseItem(n, &p)
	}
	return cr.event(n, &p)
}

// meta follows the session's identity and working directory.
func (cr *codexReader) meta(item, id, cwd string) {
	if item == "turn_context" {
		if cwd != "" {
			cr.cwd = cwd
		}
		return
	}
	// A rollout starts with its own session_meta; only the first one
	// names the session, so a session_meta copied in later (a forked
	// history) cannot rename it halfway.
	if cr.metaSeen {
		return
	}
	cr.metaSeen = true
	if id != "" {
		cr.session = id
	}
	if cwd != "" {
		cr.cwd = cwd
	}
}

func (cr *codexReader) responseItem(n int, p *codexPayload) error {
	switch p.Type {
	case "message":
		if p.Role != "user" && p.Role != "assistant" {
			return nil // developer and system prompts
		}
		if !finalPhase(p.Phase) {
			return nil
		}
		var parts []string
		for _, c := range p.Content {
			switch c.Type {
			case "input_text", "output_text":
				t := c.Text
				if p.Role == "user" {
					t = codexUserText(t)
				}
				if t != "" {
					parts = append(parts, t)
				}
			case "input_image":
				parts = append(parts, imageMark)
			}
		}
		return cr.keep(n, p.Role, strings.Join(parts, "\n"), streamItem)
	case "function_call":
		var args map[string]json.RawMessage
		// Arguments that are not a JSON object leave just the name.
		_ = json.Unmarshal([]byte(p.Arguments), &args)
		arg := toolArg(args)
		if arg == "" {
			arg = jsonArg(args["input"])
		}
		cr.tool(codexToolSummary(p.Name, arg))
	case "custom_tool_call":
		cr.tool(codexToolSummary(p.Name, p.Input))
	case "local_shell_call":
		if p.Action != nil {
			cr.tool(codexToolSummary("shell", strings.Join(p.Action.Command, " ")))
		}
	case "web_search_call":
		if p.Action != nil {
			cr.tool(formatToolSummary("web_search", p.Action.Query))
		}
	}
	// reasoning, function_call_output and the rest are dropped.
	return nil
}

func (cr *codexReader) event(n int, p *codexPayload) error {
	switch p.Type {
	case "user_message":
		parts := []string{codexUserText(p.Message)}
		for range p.Images {
			parts = append(parts, imageMark)
		}
		return cr.keep(n, "user", strings.Join(parts, "\n"), streamEvent)
	case "agent_message":
		if !finalPhase(p.Phase) {
			return nil
		}
		return cr.keep(n, "assistant", p.Message, streamEvent)
	}
	return nil
}

// codexUses reports whether the reader uses a line of this item type and
// payload type.
func codexUses(item, payload string) bool {
	switch item {
	case "session_meta", "turn_context":
		return true
	case "response_item":
		switch payload {
		case "message", "function_call", "custom_tool_call", "local_shell_call", "web_search_call":
			return true
		}
	case "event_msg":
		return payload == "user_message" || payload == "agent_message"
	}
	return false
}

// finalPhase reports whether an assistant message is an answer rather than
// commentary between tool calls.
func finalPhase(phase string) bool {
	return phase == "" || phase == "final_answer"
}

// codexUserText returns what the user said in one user-role text: ""
// for runtime scaffolding, and only the request when the IDE extension
// wrapped it in editor context.
func codexUserText(text string) string {
	trimmed := strings.TrimSpace(text)
	for _, prefix := range codexScaffolding {
		if strings.HasPrefix(trimmed, prefix) {
			return ""
		}
	}
	if i := strings.LastIndex(trimmed, codexIDERequest); i >= 0 {
		trimmed = strings.TrimSpace(trimmed[i+len(codexIDERequest):])
	}
	return trimmed
}

// keep emits one utterance unless it is the second copy of one already
// emitted. Codex writes every utterance twice, as a response_item and as
// an event_msg, so a copy from one stream is a duplicate while that stream
// has no more copies of the same (role, text) than the other. Unlike a
// plain seen-set, this keeps a prompt the user really repeated ("go on").
func (cr *codexReader) keep(n int, role, text string, stream codexStream) error {
	key := role + "\x00" + normalizeSpace(strings.ReplaceAll(text, imageMark, ""))
	if key == role+"\x00" {
		return nil
	}
	counts := cr.seen[key]
	if counts == nil {
		counts = &[2]int{}
		cr.seen[key] = counts
	}
	counts[stream]++
	if counts[stream] <= counts[1-stream] {
		return nil
	}
	if role == "assistant" {
		text = appendTools(text, cr.tools)
	}
	// Tool calls belong to the answer that follows them; a new prompt
	// starts a new turn.
	cr.tools = nil
	m := message{role: role, text: text, time: cr.lastTime, cwd: cr.cwd, line: n}
	rec, ok := m.record(config.KindCodex, cr.path, cr.session, cr.session+":"+strconv.Itoa(n), cr.session)
	if !ok {
		return nil
	}
	return cr.sink.Record(rec)
}

func (cr *codexReader) tool(summary string) {
	cr.tools = append(cr.tools, summary)
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

// message is one kept utterance of a transcript before cleaning.
type message struct {
	role string
	text string
	time time.Time
	cwd  string
	// line is the 1-based line of the message's first line in its file.
	line int
}

// record turns a message into a dialogue record of kind (which is also
// the agent name), or reports false when nothing is left after cleaning.
// conversation is the session (or sidechain) whose turns are neighbours.
func (m message) record(kind, path, session, id, conversation string) (memory.Record, bool) {
	text, redactions := cleanText(m.text)
	if !hasContent(text) {
		return memory.Record{}, false
	}
	rec := memory.Record{
		ID:           id,
		Text:         text,
		Role:         m.role,
		Agent:        kind,
		Project:      ProjectFromCwd(m.cwd),
		SessionID:    session,
		Time:         m.time,
		Path:         path,
		Line:         m.line,
		Kind:         kind,
		Layer:        "dialogue",
		Conversation: kind + ":" + conversation,
		Redactions:   redactions,
	}
	if !m.time.IsZero() {
		rec.Date = m.time.UTC().Format("2006-01-02")
	}
	return rec, true
}

// eachJSONLine decodes every non-blank line of a JSONL transcript into a
// T and calls fn with it and its 1-based line number. A line that is not
// JSON, or is longer than maxLineBytes, is reported to problem and
// skipped, except an unterminated last line that does not parse: that is
// an append in progress and is read on the next pass. An error from fn
// or from the reader (a corrupt zstd stream) stops the scan.
func eachJSONLine[T any](ctx context.Context, r io.Reader, problem func(line int, reason string), fn func(n int, v *T) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	for n := 1; ; n++ {
		if n%256 == 1 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		line, terminated, tooLong, err := nextLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read line %d: %w", n, err)
		}
		if err != nil && len(line) == 0 && !tooLong {
			return nil
		}
		switch line = bytes.TrimSpace(line); {
		case tooLong:
			problem(n, fmt.Sprintf("line is longer than %d bytes", maxLineBytes))
		case len(line) == 0:
		default:
			var v T
			if jerr := json.Unmarshal(line, &v); jerr != nil {
				if terminated {
					problem(n, "not a JSON object: "+trimErr(jerr))
				}
			} else if ferr := fn(n, &v); ferr != nil {
				return ferr
			}
		}
		if err != nil {
			return nil
		}
	}
}

// nextLine reads one line of any length without its line ending,
// dropping (but consuming) lines longer than maxLineBytes. terminated is
// false for a last line with no newline.
func nextLine(r *bufio.Reader) (line []byte, terminated, tooLong bool, err error) {
	for {
		chunk, e := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLineBytes+2 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(e, bufio.ErrBufferFull) {
			continue
		}
		if e != nil {
			return line, false, tooLong, e
		}
		return bytes.TrimRight(line, "\r\n"), true, tooLong, nil
	}
}
