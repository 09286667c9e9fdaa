package ingest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Older Cursor builds wrote an agent transcript as plain text,
// agent-transcripts/<session>.txt. As of 2026-12 its shape is not
// documented by Cursor either; public parsers read it alike
// (kenn-io/agentsview internal/parser/cursor.go and its PR #64, which
// also reads the JSONL of a session written both ways, not its text):
//
//   - a line "user:" or "assistant:", alone, opens a turn, which runs to
//     the next such line;
//   - a user's turn holds the prompt in <user_query> tags (and the
//     context Cursor adds), as a JSONL user line does;
//   - an assistant's turn holds its text and, each on a line of its own
//     from the first column, "[Thinking] ...", "[Tool call] <name>" and
//     "[Tool result] <name>", each followed by a body of indented (or
//     blank) lines: a tool call's body its arguments, "key: value" or a
//     JSON object.
//
// The turns are read as the JSONL lines are (see cursorHandler.say):
// reasoning and tool output are dropped, a tool call is a one-line
// summary on the next answer. A record's id is the session and the line
// that opens its turn. A turn's end is known only from the line after
// it, so the last turn is emitted when a read reaches the end of what is
// written (see ender), and a line that later adds to it reads the file
// again (ErrFileChanged).

// cursorTextExt is the extension of a plain-text transcript.
const cursorTextExt = ".txt"

// The lines that open a turn, and those that open a part of an
// assistant's turn that is not its text.
const (
	cursorTextUser      = "user:"
	cursorTextAssistant = "assistant:"
	cursorTextThinking  = "[Thinking]"
	cursorTextToolCall  = "[Tool call]"
	cursorTextResult    = "[Tool result]"
)

// cursorTextTurn is the turn of a plain-text transcript being read.
type cursorTextTurn struct {
	Role string `json:"role"`
	// Line is the line that opened it, its record's line.
	Line int `json:"line"`
	// Lines are its lines so far; dropped once it is emitted.
	Lines []string `json:"lines,omitempty"`
	// Emitted is set when the turn was emitted at the end of a read.
	Emitted bool `json:"emitted,omitempty"`
}

// cursorTextHandler reads a plain-text transcript: a cursorHandler fed
// whole turns rather than lines.
type cursorTextHandler struct{ *cursorHandler }

func (h *cursorTextHandler) textLines() {}

func (h *cursorTextHandler) line(n int, data []byte) error {
	if h.st.Copy {
		return nil
	}
	line := string(data)
	switch strings.TrimSpace(line) {
	case cursorTextUser, cursorTextAssistant:
		if err := h.close(); err != nil {
			return err
		}
		h.st.Turn = &cursorTextTurn{Role: strings.TrimSuffix(strings.TrimSpace(line), ":"), Line: n}
		return nil
	}
	turn := h.st.Turn
	switch {
	case turn == nil:
		// Before the first turn: nothing Cursor writes.
		return nil
	case turn.Emitted && strings.TrimSpace(line) == "":
		return nil
	case turn.Emitted:
		return fmt.Errorf("%w: a Cursor turn read before goes on", ErrFileChanged)
	}
	turn.Lines = append(turn.Lines, line)
	return nil
}

// close emits the turn being read, unless it was emitted already.
func (h *cursorTextHandler) close() error {
	turn := h.st.Turn
	h.st.Turn = nil
	if turn == nil || turn.Emitted {
		return nil
	}
	return h.emitTurn(turn)
}

// end emits the last turn of what is written (see ender).
func (h *cursorTextHandler) end() (bool, error) {
	turn := h.st.Turn
	if turn == nil || turn.Emitted || h.st.Copy {
		return false, nil
	}
	if err := h.emitTurn(turn); err != nil {
		return false, err
	}
	turn.Emitted, turn.Lines = true, nil
	return true, nil
}

// emitTurn reads a turn's lines: a user's are its prompt; an assistant's
// are its text, with its tool calls waiting for an answer.
func (h *cursorTextHandler) emitTurn(turn *cursorTextTurn) error {
	if turn.Role == "user" {
		return h.say(turn.Line, turn.Role, strings.Join(turn.Lines, "\n"))
	}
	var texts []string
	for i := 0; i < len(turn.Lines); {
		head := strings.TrimSpace(turn.Lines[i])
		if !cursorTextMarker(head) {
			texts = append(texts, turn.Lines[i])
			i++
			continue
		}
		end := i + 1
		for end < len(turn.Lines) && !cursorTextBodyEnd(turn.Lines[end]) {
			end++
		}
		if name, ok := strings.CutPrefix(head, cursorTextToolCall); ok {
			h.st.Pending.add(cursorToolCall(strings.TrimSpace(name), cursorTextArguments(turn.Lines[i+1:end])))
		}
		i = end
	}
	return h.say(turn.Line, turn.Role, strings.Join(texts, "\n"))
}

// cursorTextMarker reports whether a line (trimmed) opens a part of an
// assistant's turn that is not its text.
func cursorTextMarker(s string) bool {
	return strings.HasPrefix(s, cursorTextThinking) || strings.HasPrefix(s, cursorTextToolCall) || strings.HasPrefix(s, cursorTextResult)
}

// cursorTextBodyEnd reports whether line ends the body of a part: the
// next part, or text from the first column.
func cursorTextBodyEnd(line string) bool {
	s := strings.TrimSpace(line)
	return cursorTextMarker(s) || s != "" && line[0] != ' ' && line[0] != '\t'
}

// cursorTextArguments are a tool call's arguments from its body: a JSON
// object, or "key: value" lines.
func cursorTextArguments(body []string) map[string]json.RawMessage {
	joined := strings.TrimSpace(strings.Join(body, "\n"))
	if strings.HasPrefix(joined, "{") {
		return toolArguments(json.RawMessage(joined))
	}
	args := map[string]json.RawMessage{}
	for _, l := range body {
		key, value, ok := strings.Cut(strings.TrimSpace(l), ":")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			continue
		}
		if _, seen := args[key]; seen {
			continue
		}
		if v, err := json.Marshal(strings.TrimSpace(value)); err == nil {
			args[key] = v
		}
	}
	return args
}
