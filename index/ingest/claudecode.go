package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/nova-recall/nova/config"
)

// claudeLine is one line of a Claude Code transcript, with the fields the
// reader uses. Other line types (progress, attachment, summary, system,
// file-history-snapshot, ...) only need Type to be skipped.
type claudeLine struct {
	Type             string `json:"type"`
	UUID             string `json:"uuid"`
	SessionID        string `json:"sessionId"`
	Timestamp        string `json:"timestamp"`
	Cwd              string `json:"cwd"`
	IsMeta           bool   `json:"isMeta"`
	IsCompactSummary bool   `json:"isCompactSummary"`
	// IsAPIErrorMessage marks a synthetic assistant line reporting a
	// failed API call.
	IsAPIErrorMessage bool            `json:"isApiErrorMessage"`
	Message           json.RawMessage `json:"message"`
}

type claudeMessage struct {
	// ID is the API message id shared by all the lines of one reply.
	ID string `json:"id"`
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
// of slash commands and their local output.
var claudeScaffolding = func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, tag := range []string{
		"system-reminder", "command-name", "command-message", "command-args",
		"local-command-stdout", "local-command-stderr", "bash-stdout", "bash-stderr",
	} {
		out = append(out, regexp.MustCompile(`(?s)<`+tag+`>.*?</`+tag+`>`))
	}
	return out
}()

var (
	claudeCaveat      = regexp.MustCompile(`(?m)^Caveat: The messages below were generated.*$`)
	claudeInterrupted = regexp.MustCompile(`\[Request interrupted by user[^\]]*\]`)
)

// claudeEntry is one message being assembled: a user turn, or an
// assistant reply merged from the lines that share its message id.
type claudeEntry struct {
	message
	session string
	// parts are the text blocks, in order; tools the tool-call summaries.
	parts []string
	tools []string
}

// readClaudeCodeFile reads one Claude Code transcript
// (projects/<encoded-cwd>/<sessionId>.jsonl, or a sub-agent sidechain
// under <sessionId>/subagents/) and emits one record per human prompt and
// per assistant reply. The lines of one reply are merged; thinking, tool
// results, injected reminders, meta lines and binary blocks are dropped;
// a reply's tool calls are summarized on one line each. Files under
// tool-results/ are externalized tool output and are skipped.
func readClaudeCodeFile(ctx context.Context, src config.Source, path, rel string, sink Sink) error {
	if inDir(rel, "tool-results") {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open transcript: %w", err)
	}
	defer f.Close()

	stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	fallbackSession := stem
	if filepath.Base(filepath.Dir(path)) == "subagents" {
		fallbackSession = filepath.Base(filepath.Dir(filepath.Dir(path)))
	}
	problem := func(line int, reason string) {
		sink.Problem(Problem{Source: src.Name, Path: path, Line: line, Reason: reason})
	}

	// A reply's lines may be interleaved with the tool results they
	// caused, so the whole file is assembled before anything is emitted.
	var entries []*claudeEntry
	replies := map[string]*claudeEntry{}
	seenLines := map[string]bool{}
	err = eachJSONLine(ctx, f, problem, func(n int, l *claudeLine) error {
		if l.Type != "user" && l.Type != "assistant" {
			return nil
		}
		if l.IsMeta || l.IsCompactSummary || l.IsAPIErrorMessage {
			return nil
		}
		// A line written twice (a retried append) is read once.
		if l.UUID != "" {
			if seenLines[l.UUID] {
				return nil
			}
			seenLines[l.UUID] = true
		}
		var msg claudeMessage
		if err := json.Unmarshal(l.Message, &msg); err != nil {
			problem(n, fmt.Sprintf("unexpected %s message: %s", l.Type, trimErr(err)))
			return nil
		}
		blocks, err := claudeBlocks(msg.Content)
		if err != nil {
			problem(n, fmt.Sprintf("unexpected %s content: %s", l.Type, trimErr(err)))
			return nil
		}
		e := replies[msg.ID]
		if l.Type == "user" || msg.ID == "" || e == nil {
			session := l.SessionID
			if session == "" {
				session = fallbackSession
			}
			_, t, _ := ParseDate(l.Timestamp)
			e = &claudeEntry{message: message{role: l.Type, time: t, cwd: l.Cwd, line: n}, session: session}
			if l.Type == "user" {
				if !addUserBlocks(e, blocks) {
					return nil // tool results only: not a human turn
				}
			} else if msg.ID != "" {
				replies[msg.ID] = e
			}
			entries = append(entries, e)
		}
		if l.Type == "assistant" {
			addAssistantBlocks(e, blocks)
		}
		return nil
	})
	if err != nil {
		return err
	}

	// Tool calls of replies without text (a run of tool use) are attached
	// to the next reply with text, and dropped at the next prompt. Lines
	// left empty by cleaning (a slash-command echo) change nothing.
	var pending []string
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.role == "assistant" {
			pending = append(pending, e.tools...)
		}
		text := strings.Join(e.parts, "\n\n")
		if !hasContent(text) {
			continue
		}
		if e.role == "assistant" {
			text = appendTools(text, pending)
		}
		pending = nil
		e.text = text
		// The main transcript's file is named after its session; a
		// sidechain file (subagents/agent-x.jsonl, or agent-x.jsonl in
		// older builds) shares the session id, so its name keeps its
		// record ids distinct and its turns in their own conversation.
		id, conversation := e.session, e.session
		if stem != e.session {
			id += "/" + stem
			conversation += "/" + stem
		}
		rec, ok := e.record(config.KindClaudeCode, path, e.session, id+":"+strconv.Itoa(e.line), conversation)
		if !ok {
			continue
		}
		if err := sink.Record(rec); err != nil {
			return err
		}
	}
	return nil
}

// claudeBlocks decodes message content: a plain string is one text block.
func claudeBlocks(raw json.RawMessage) ([]claudeBlock, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []claudeBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []claudeBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, err
	}
	return blocks, nil
}

// addUserBlocks adds the human part of a user line to e and reports
// whether the line was a human turn at all: a line that carries only tool
// results is the runtime answering a tool call.
func addUserBlocks(e *claudeEntry, blocks []claudeBlock) bool {
	human := false
	for _, b := range blocks {
		switch b.Type {
		case "text":
			human = true
			if t := claudeUserText(b.Text); t != "" {
				e.parts = append(e.parts, t)
			}
		case "image":
			human = true
			e.parts = append(e.parts, imageMark)
		case "document":
			human = true
			e.parts = append(e.parts, documentMark)
		}
	}
	return human
}

// addAssistantBlocks adds the text and tool calls of one line of a reply.
// Thinking is dropped. A text block repeated within one reply is kept once.
func addAssistantBlocks(e *claudeEntry, blocks []claudeBlock) {
	for _, b := range blocks {
		switch b.Type {
		case "text":
			t := strings.TrimSpace(b.Text)
			if t != "" && !slices.Contains(e.parts, t) {
				e.parts = append(e.parts, t)
			}
		case "tool_use", "server_tool_use":
			e.tools = append(e.tools, toolSummary(b.Name, b.Input))
		case "image":
			e.parts = append(e.parts, imageMark)
		}
	}
}

// claudeUserText removes the runtime's scaffolding from user text.
func claudeUserText(s string) string {
	for _, re := range claudeScaffolding {
		s = re.ReplaceAllString(s, "")
	}
	s = claudeCaveat.ReplaceAllString(s, "")
	s = claudeInterrupted.ReplaceAllString(s, "")
	return strings.TrimSpace(s)
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
