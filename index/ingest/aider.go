package ingest

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/nova-recall/nova/config"
)

// An Aider source is a folder that holds the user's repositories (~/src):
// Aider writes each repository's chat history to .aider.chat.history.md
// in its root (the git root, or the folder it ran in when it found no
// repository), and every such file below the source's path is read; a
// source whose path is a file is that history, whatever its name
// (Aider's --chat-history-file moves it). Only a repository's root and
// the folders right inside it are looked at, not the rest of it nor its
// build output (see insideRepository), nor node_modules, virtual
// environments or hidden folders.
// The file is Markdown that Aider only appends to, read line by line
// from a Cursor like the JSONL transcripts:
//
//   - each run begins with "# aider chat started at YYYY-MM-DD HH:MM:SS",
//     the machine's wall-clock time without a zone (read in the machine's
//     zone, as parseDate reads any time written without an offset). A run
//     is a session, named by the file and its header's time and line, so
//     that it keeps its name as the file grows; its records carry the
//     header's time, as Aider writes no time per message;
//   - "#### " lines (from the first column, as all of Aider's own lines
//     are) are what the user typed, one line each, and adjacent
//     ones one prompt. A prompt that is an Aider command ("/add x.py",
//     "/run make", "!make") is not dialogue, but /ask, /code, /architect
//     and /context carry a message: it is the prompt. "<blank>", what
//     Aider records for an empty input, is not one. What Aider sends
//     the model on its own it writes as a prompt too (base_coder.py's
//     run with a message): the message of such a command, right after
//     it, and in architect mode the reply just read, handed to the
//     editor model; a prompt that repeats the one before it or the reply
//     before it that way is not read again (see aiderState.Echo), and of
//     the one /help writes, the question and the documentation Aider
//     found for it, only the question is read (see aiderHelpQuestion),
//     and the linter's report /lint sends is not read at all;
//   - "> " lines are Aider's own output (its command line, files added,
//     token counts and costs, questions and their answers, warnings,
//     "Applied edit to x", a command's output), with the lines that
//     continue them: not dialogue. Aider quotes only the first line of a
//     message of several (tool_output: a Markdown blockquote's lazy
//     continuation), writes the others as they are, blank ones included
//     (a command's output has them), and ends the last with its line
//     break (two spaces), as it ends every line of its own; so in a run
//     whose lines carry that break, a "> " line without it opens a
//     message that goes on to the next line with it, and in one whose
//     lines lack it (a history an editor trimmed) to a blank line. Such
//     a "> " line inside a reply may be the model's blockquote: when
//     Aider writes on (a "> " or "#### " line with its break, after a
//     blank line) before a line has ended the message, the lines since
//     were the reply's, and stay in it. Only
//     "> Commit <sha> <message>", the commit Aider made of the edits, is
//     kept, as a one-line summary ("[tool: commit <sha> <message>]") on
//     the assistant's turn it follows;
//   - everything else is the assistant's Markdown. The reasoning Aider
//     writes before the answer of a model that reasons (between its
//     <thinking-content-...> tag and the closing one, or the model's
//     <think> tags) is dropped, whatever lines it holds. A fenced code block is
//     read before anything else, so that its "> " and "#### " lines are
//     code (a Markdown heading or quote the model wrote); what Aider
//     writes after a reply cut short inside a fence ends it, known by
//     the line break Aider ends its lines with, and so does the next
//     run's header (see aiderResumes). A SEARCH/REPLACE edit block
//     ("<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE") becomes the line
//     "[tool: edit <file>]" (the file named on the line before it) and
//     the replacement's first maxEditLines lines, the code it replaces
//     being dropped; the body of any other fenced block is cut to
//     maxEditLines lines too (Aider's "whole" and "udiff" edit formats
//     write a whole file or a diff there). A reply after Aider's output
//     (the editor model's answer in architect mode, a reply to a failed
//     edit) is a turn of its own.
//
// A record's id is its session and its line. A turn's end is only known
// from the line after it, so the last turn of a file is emitted when a
// read reaches the end of what is written (see ender); lines appended
// later that add to it give ErrFileChanged, and the file is read again
// whole (a rare race: Aider writes a prompt, a reply and each of its own
// messages in one append each, but a commit comes a moment after the
// reply it follows). The project is the folder that holds the history
// (ProjectFromCwd of it), the repository Aider ran in unless the history
// was moved.
//
// .aider.input.history (what was typed, again, with each input's time)
// is not read: the chat history holds every prompt already. Nor is
// .aider.llm.history, the raw model traffic (system prompts, repository
// maps, whole files sent back and forth): not what anyone said.

// aiderHistoryName is the name of Aider's chat history in a repository.
const aiderHistoryName = ".aider.chat.history.md"

// maxEditLines bounds the lines of code kept of an edit block's
// replacement or a fenced block: enough to recognise a change by, where
// a whole file rewritten would swamp the turn.
const maxEditLines = 20

// aiderBlankInput is what Aider records for an empty input (io.py's
// user_input): Enter on an empty prompt, not a prompt.
const aiderBlankInput = "<blank>"

// /help <question> (commands.py's cmd_help) sends the model the question
// with the pages of Aider's documentation it found for it and the lines
// Aider announced at its start (help.py's ask), and writes all of that as
// a prompt: only the question is the user's.
const (
	aiderHelpQuestion = "# Question: "
	aiderHelpDocs     = "\n# Relevant docs:"
)

// aiderLintRequest begins what /lint (and aider --lint) sends the model
// for a file its linter found errors in (linter.py's Linter.lint): the
// linter's output and the lines it points at, written as a prompt, none
// of it the user's.
const aiderLintRequest = "# Fix any errors below, if possible."

// aiderRunPrefix begins the line each run of Aider appends first.
const aiderRunPrefix = "# aider chat started at "

// aiderPatterns are the patterns the Aider reader matches lines with,
// compiled together on first use (aiderRes) and fetched once per file.
type aiderPatterns struct {
	// search, divider and replace are the lines of an edit block (Aider
	// accepts 5 to 9 marker characters).
	search, divider, replace *regexp.Regexp
	// commit is the message Aider writes for a commit it made.
	commit *regexp.Regexp
	// reasoningStart and reasoningEnd are the tags around the reasoning
	// Aider writes before an answer: its own opening tag
	// (reasoning_tags.py's REASONING_TAG) and the model's reasoning tag
	// or its own closing one, or the model's tags in its content.
	reasoningStart, reasoningEnd *regexp.Regexp
}

// aiderRes compiles aiderPatterns once, when the first Aider history is read.
var aiderRes = sync.OnceValue(func() *aiderPatterns {
	return &aiderPatterns{
		search:         regexp.MustCompile(`^<{5,9} SEARCH\s*$`),
		divider:        regexp.MustCompile(`^={5,9}\s*$`),
		replace:        regexp.MustCompile(`^>{5,9} REPLACE\s*$`),
		commit:         regexp.MustCompile(`^Commit ([0-9a-f]{7,40}) (.+)$`),
		reasoningStart: regexp.MustCompile(`(?i)^<(?:thinking-content-[0-9a-f]+|` + reasoningTags + `)>`),
		reasoningEnd:   regexp.MustCompile(`(?i)</(?:thinking-content-[0-9a-f]+|` + reasoningTags + `)>`),
	}
})

// aiderMessageCommands are the Aider commands whose argument is a
// message to the model; any other command is an operation.
var aiderMessageCommands = setOf("/ask", "/code", "/architect", "/context")

// Where a line of an assistant turn is, in an edit block.
const (
	aiderOutside = iota
	aiderInSearch
	aiderInReplace
)

// aiderTurn is the turn being read: a prompt, or a reply.
type aiderTurn struct {
	Role string `json:"role"`
	Line int    `json:"line"`
	// Lines are its text so far; dropped once it is emitted.
	Lines []string `json:"lines,omitempty"`
	// Tools are the commits that follow a reply.
	Tools pendingTools `json:"tools,omitzero"`
	// Fence is the marker of the fenced block the reply is in ("" when
	// none); Edit is where it is in an edit block; Kept and Cut count the
	// lines of code kept and dropped of the current block.
	Fence string `json:"fence,omitempty"`
	Edit  int    `json:"edit,omitempty"`
	Kept  int    `json:"kept,omitempty"`
	Cut   int    `json:"cut,omitempty"`
	// After is set once Aider's output follows the reply: the next text
	// is another reply.
	After bool `json:"after,omitempty"`
	// Reasoning is set inside the reasoning before the reply's answer.
	Reasoning bool `json:"reasoning,omitempty"`
	// Emitted is set when the turn was emitted at the end of a read: a
	// later read that adds to it gives ErrFileChanged.
	Emitted bool `json:"emitted,omitempty"`
	// Sum is the digest of a reply's lines as the model wrote them (see
	// aiderSum), to know the prompt that repeats it.
	Sum uint64 `json:"sum,omitempty"`
}

// aiderState is what reading a history carries from line to line, and
// from one read to the next (as the Cursor's State).
type aiderState struct {
	// Run is the line of the current run's header (0: none yet), Start
	// its time (RFC 3339, "" when it could not be read).
	Run   int    `json:"run,omitempty"`
	Start string `json:"start,omitempty"`
	// Quote is set after a line of Aider's output, up to a blank line.
	Quote bool `json:"quote,omitempty"`
	// Open is set inside a message of Aider's of several lines, up to its
	// last line, the one that ends with Aider's line break.
	Open bool `json:"open,omitempty"`
	// Held are the lines of such a message that began inside a reply, as
	// the model's blockquote does too: Aider's message ends with its line
	// break, and the lines are dropped; a line of Aider's after a blank
	// line, the message still open, shows they were the reply's (see
	// unhold).
	Held []string `json:"held,omitempty"`
	// Marks is set once a line of the run's prompts or of Aider's output
	// ended with Aider's line break (see aiderBreak): the run's lines keep
	// it, so it tells Aider's lines from the model's.
	Marks bool `json:"marks,omitempty"`
	// Blank is set when the last line was blank.
	Blank bool `json:"blank,omitempty"`
	// Echo is the digest (aiderSum) of the prompt Aider may write next
	// for what it sends the model on its own: the message of an /ask,
	// /code, /architect or /context prompt, or the reply just read, which
	// architect mode hands the editor model. Such a prompt is not read.
	Echo uint64     `json:"echo,omitempty"`
	Turn *aiderTurn `json:"turn,omitempty"`
}

// aiderHandler reads one chat history.
type aiderHandler struct {
	fc *fileCtx
	re *aiderPatterns
	st aiderState
	// file names the history in session ids; cwd is the folder that holds
	// it.
	file, cwd string
}

func newAiderHandler(fc *fileCtx, state json.RawMessage) (*aiderHandler, error) {
	h := &aiderHandler{fc: fc, re: aiderRes(), file: textKey(fc.path), cwd: filepath.Dir(fc.path)}
	if err := decodeState(state, &h.st); err != nil {
		return nil, err
	}
	return h, nil
}

func (h *aiderHandler) textLines() {}

func (h *aiderHandler) state() (json.RawMessage, error) { return json.Marshal(h.st) }

func (h *aiderHandler) line(n int, data []byte) error {
	line := string(noteText(data))
	brk := aiderBreak(line)
	// A line of spaces is not a blank line in a message of Aider's: it
	// pads a blank line of a subject of several lines (confirm_ask pads
	// them all to the longest), and the message goes on after it.
	padding := line != "" && strings.TrimSpace(line) == ""
	line = strings.TrimRight(line, " \t")
	t := strings.TrimSpace(line)
	afterBlank := h.st.Blank
	h.st.Blank = t == ""
	turn := h.st.Turn
	reply := turn != nil && turn.Role == "assistant"
	if strings.HasPrefix(t, aiderRunPrefix) {
		if err := h.close(); err != nil {
			return err
		}
		h.st = aiderState{Run: n}
		if _, at, ok := parseDate(strings.TrimPrefix(t, aiderRunPrefix), h.fc.loc); ok && !at.IsZero() {
			h.st.Start = at.Format(time.RFC3339)
		}
		return nil
	}
	// Aider writes its own lines from the first column (and its own reader
	// of the history knows them only there): an indented "> " or "#### "
	// line is the model's Markdown or a command's output.
	prompt := line == "####" || strings.HasPrefix(line, "#### ")
	quote := line == ">" || strings.HasPrefix(line, "> ")
	if h.st.Open {
		if h.st.Held == nil || !h.aiderResumes(prompt, quote, afterBlank, brk) {
			h.st.Open, h.st.Quote = !brk, brk
			if h.st.Held != nil {
				h.st.Held = append(h.st.Held, line)
			}
			if !h.st.Open {
				h.st.Held = nil // Aider's message, ended
			}
			return nil
		}
		// Aider writes on, and no line ended a message of its: the lines
		// held were the model's blockquote and the rest of its reply.
		if err := h.unhold(n); err != nil {
			return err
		}
		turn = h.st.Turn
		reply = turn != nil && turn.Role == "assistant"
	}
	if (prompt || quote) && brk {
		h.st.Marks = true
	}
	if reply && turn.Reasoning {
		if !h.aiderResumes(prompt, quote, afterBlank, brk) {
			return h.reasoning(n, line)
		}
		// Aider writes again after an answer cut short in its reasoning.
		turn.Reasoning = false
	}
	if reply && !turn.After && prompt && h.st.Marks && !(afterBlank && brk) {
		// A heading the model wrote in its prose: Aider's prompt lines
		// follow a blank line and end with its line break.
		return h.reply(n, line)
	}
	if reply && (turn.Fence != "" || turn.Edit != aiderOutside) {
		if !h.aiderResumes(prompt, quote, afterBlank, brk) {
			return h.reply(n, line)
		}
		// Aider writes again after a reply cut short inside a block.
		turn.Fence, turn.Edit = "", aiderOutside
		if err := h.addCutMark(); err != nil {
			return err
		}
	}
	switch {
	case prompt:
		h.st.Quote = false
		text := strings.TrimPrefix(strings.TrimPrefix(t, "####"), " ")
		if turn != nil && turn.Role == "user" {
			return h.add(text)
		}
		if err := h.close(); err != nil {
			return err
		}
		h.st.Turn = &aiderTurn{Role: "user", Line: n, Lines: []string{text}}
		return nil
	case quote:
		h.st.Quote = true
		h.st.Open = h.st.Marks && !brk
		if h.st.Open && reply && !turn.After {
			// A blockquote of the model's in its reply, or a message of
			// Aider's of several lines after it: held until known.
			h.st.Held = []string{line}
		}
		return h.output(n, strings.TrimSpace(strings.TrimPrefix(t, ">")))
	case t == "" && padding && h.st.Quote:
		return nil
	case t == "":
		h.st.Quote = false
		switch {
		case turn != nil && turn.Role == "user":
			return h.close() // a prompt is its adjacent lines
		case reply && !turn.After:
			return h.add("")
		}
		return nil
	case h.st.Quote:
		return nil // the rest of a message of Aider's
	case reply && !turn.After:
		return h.reply(n, line)
	}
	if err := h.close(); err != nil {
		return err
	}
	h.st.Turn = &aiderTurn{Role: "assistant", Line: n}
	return h.reply(n, line)
}

// aiderBreak reports whether line ends as Aider ends every line of a
// prompt and the last line of each message of its own: with two spaces,
// a Markdown line break (io.py's append_chat_history). A line the model
// wrote rarely does.
func aiderBreak(line string) bool {
	return strings.HasSuffix(line, "  ")
}

// aiderResumes reports whether a line read inside a fenced or edit block
// of a reply is one Aider wrote after it, which ends the block: a reply
// cut short (^C, the output limit) leaves its fence open. Aider sets off
// what it appends after a reply with a blank line, and ends a prompt's
// lines and its own messages with its line break, so in a run whose
// lines carry that break, a "#### " or "> " line after a blank line that
// ends with it is Aider's, and any other one (a Markdown heading or
// quote the model wrote in a ```markdown fence, a README's heading in an
// edit) is code. A run whose lines lack the break (a history an editor
// trimmed) cannot tell them apart: there a "#### " line ends the block,
// so that one fence left open does not swallow every later prompt. In
// either, the next run's header ends it, as it ends the run.
func (h *aiderHandler) aiderResumes(prompt, quote, afterBlank, brk bool) bool {
	if !h.st.Marks {
		return prompt
	}
	return (prompt || quote) && afterBlank && brk
}

// output reads a line of Aider's own output: only a commit is kept, on
// the reply it follows (or as a turn of its own, after a /commit).
func (h *aiderHandler) output(n int, text string) error {
	turn := h.st.Turn
	m := h.re.commit.FindStringSubmatch(text)
	if m == nil {
		if turn != nil && turn.Role == "user" {
			return h.close()
		}
		if turn != nil {
			turn.After = true
		}
		return nil
	}
	if turn == nil || turn.Role != "assistant" {
		if err := h.close(); err != nil {
			return err
		}
		turn = &aiderTurn{Role: "assistant", Line: n}
		h.st.Turn = turn
	}
	if turn.Emitted {
		return h.grew()
	}
	turn.After = true
	turn.Tools.add(formatToolSummary("commit", m[1]+" "+m[2]))
	return nil
}

// reply reads a line of the assistant's Markdown: the reasoning before
// its answer, then fenced blocks and edit blocks first.
func (h *aiderHandler) reply(n int, line string) error {
	turn := h.st.Turn
	t := strings.TrimSpace(line)
	turn.Sum = aiderSum(turn.Sum, t)
	if turn.Edit == aiderOutside && turn.Fence == "" && strings.TrimSpace(strings.Join(turn.Lines, "")) == "" {
		if loc := h.re.reasoningStart.FindStringIndex(t); loc != nil {
			turn.Reasoning = true
			return h.reasoning(n, t[loc[1]:])
		}
	}
	switch turn.Edit {
	case aiderInSearch:
		if h.re.divider.MatchString(t) {
			turn.Edit, turn.Kept, turn.Cut = aiderInReplace, 0, 0
		}
		return h.changed() // the code replaced is dropped
	case aiderInReplace:
		if h.re.replace.MatchString(t) {
			turn.Edit = aiderOutside
			return h.addCutMark()
		}
		return h.code(line)
	}
	if h.re.search.MatchString(t) {
		if turn.Emitted {
			return h.grew()
		}
		turn.Edit = aiderInSearch
		turn.Lines = editSummary(turn.Lines)
		return nil
	}
	if fence := fenceMarker(t); fence != "" {
		switch {
		case turn.Fence == "":
			turn.Fence, turn.Kept, turn.Cut = fence, 0, 0
			return h.add(line)
		case strings.HasPrefix(t, turn.Fence) && strings.Trim(t, fence[:1]) == "":
			turn.Fence = ""
			if err := h.addCutMark(); err != nil {
				return err
			}
			return h.add(line)
		}
	}
	if turn.Fence != "" {
		return h.code(line)
	}
	return h.add(line)
}

// unhold gives the reply the lines held as a message of Aider's (see
// aiderState.Held): they were the model's.
func (h *aiderHandler) unhold(n int) error {
	held := h.st.Held
	h.st.Open, h.st.Held = false, nil
	if h.st.Turn == nil || h.st.Turn.Role != "assistant" {
		return nil // a state no read leaves: nothing to give the lines to
	}
	h.st.Turn.After = false
	for _, l := range held {
		if err := h.reply(n, l); err != nil {
			return err
		}
	}
	return nil
}

// reasoning reads a line of the reasoning before a reply's answer: it is
// dropped, up to the tag that ends it, whatever it holds (fences, "> "
// and "#### " lines are the model's thoughts, not Aider's).
func (h *aiderHandler) reasoning(n int, line string) error {
	loc := h.re.reasoningEnd.FindStringIndex(line)
	if loc == nil {
		return h.changed()
	}
	h.st.Turn.Reasoning = false
	if rest := strings.TrimSpace(line[loc[1]:]); rest != "" {
		return h.reply(n, rest)
	}
	return h.changed()
}

// code keeps a line of code of the current block, up to maxEditLines.
func (h *aiderHandler) code(line string) error {
	turn := h.st.Turn
	if turn.Kept >= maxEditLines {
		turn.Cut++
		return h.changed()
	}
	turn.Kept++
	return h.add(line)
}

// addCutMark says how many lines of the block just ended were dropped,
// if any.
func (h *aiderHandler) addCutMark() error {
	turn := h.st.Turn
	if turn.Cut == 0 {
		return nil
	}
	cut := turn.Cut
	turn.Cut = 0
	return h.add("[+" + strconv.Itoa(cut) + " more lines]")
}

// editSummary replaces the file name that precedes an edit block (and
// the fence it opens, if any) with the block's summary line.
func editSummary(lines []string) []string {
	i := len(lines) - 1
	fence := ""
	if i >= 0 && fenceMarker(strings.TrimSpace(lines[i])) != "" {
		fence, i = lines[i], i-1
	}
	name := ""
	if i >= 0 {
		name = strings.Trim(strings.TrimSpace(lines[i]), "`*#: ")
	}
	if name != "" && !strings.ContainsAny(name, " \t") {
		lines = lines[:i] // the file name, on its own line
	} else {
		name, lines = "", lines[:i+1]
	}
	lines = append(lines, formatToolSummary("edit", name))
	if fence != "" {
		lines = append(lines, fence)
	}
	return lines
}

// add appends a line of text to the turn; text added to a turn already
// emitted is ErrFileChanged (a blank line adds nothing).
func (h *aiderHandler) add(line string) error {
	turn := h.st.Turn
	if turn.Emitted {
		if strings.TrimSpace(line) == "" {
			return nil
		}
		return h.grew()
	}
	turn.Lines = append(turn.Lines, line)
	return nil
}

// changed notes a line that changes the turn without adding text (code
// dropped): a turn already emitted is ErrFileChanged, conservatively.
func (h *aiderHandler) changed() error {
	if h.st.Turn.Emitted {
		return h.grew()
	}
	return nil
}

func (h *aiderHandler) grew() error {
	return fmt.Errorf("%w: an Aider turn read before goes on", ErrFileChanged)
}

// close emits the turn being read, unless it was emitted already.
func (h *aiderHandler) close() error {
	turn := h.st.Turn
	h.st.Turn = nil
	if turn == nil || turn.Emitted {
		return nil
	}
	return h.emit(turn)
}

// end emits the last turn of what is written (see ender).
func (h *aiderHandler) end() (bool, error) {
	turn := h.st.Turn
	if turn == nil || turn.Emitted {
		return false, nil
	}
	if err := h.emit(turn); err != nil {
		return false, err
	}
	turn.Emitted, turn.Lines, turn.Tools = true, nil, pendingTools{}
	return true, nil
}

// emit makes the record of a turn.
func (h *aiderHandler) emit(turn *aiderTurn) error {
	text := strings.Join(turn.Lines, "\n")
	if turn.Role == "user" {
		echo := h.st.Echo
		h.st.Echo = 0
		var ok bool
		if text, ok = aiderPrompt(text); !ok {
			return nil
		}
		sum := uint64(0)
		for l := range strings.SplitSeq(text, "\n") {
			sum = aiderSum(sum, strings.TrimSpace(l))
		}
		if sum == echo {
			return nil // what Aider sent the model on its own: read already
		}
		if strings.HasPrefix(strings.TrimSpace(turn.Lines[0]), "/") {
			h.st.Echo = sum // a message command: Aider writes its message next
		}
	} else {
		h.st.Echo = turn.Sum
		text = turn.Tools.take(strings.TrimSpace(text))
	}
	var at time.Time
	if h.st.Start != "" {
		at, _ = time.Parse(time.RFC3339, h.st.Start)
	}
	session := h.file + "-" + strconv.Itoa(h.st.Run)
	if !at.IsZero() {
		session = h.file + "-" + at.Format("20060102T150405") + "-" + strconv.Itoa(h.st.Run)
	}
	m := message{role: turn.Role, text: text, time: at, cwd: h.cwd, line: turn.Line}
	rec, ok := m.record(h.fc, config.KindAider, session, session+":"+strconv.Itoa(turn.Line), session)
	if !ok {
		return nil
	}
	return h.fc.emit(rec)
}

// aiderSum adds a line (trimmed) to the digest sum of a text's lines:
// blank lines add nothing, as Aider writes a blank line of a text it
// repeats as a prompt as "####" with its line break.
func aiderSum(sum uint64, line string) uint64 {
	if line == "" {
		return sum
	}
	return xxh3.HashStringSeed(line, sum)
}

// aiderPrompt returns what a prompt says to the model: false for an
// Aider command that is an operation, the message of one that carries
// one.
func aiderPrompt(text string) (string, bool) {
	text = strings.TrimSpace(text)
	if text == aiderBlankInput {
		return "", false
	}
	if strings.HasPrefix(text, "!") {
		return "", false // /run's shorthand
	}
	if strings.HasPrefix(text, aiderLintRequest) {
		return "", false
	}
	if q, ok := strings.CutPrefix(text, aiderHelpQuestion); ok {
		if q, _, ok := strings.Cut(q, aiderHelpDocs); ok {
			return strings.TrimSpace(q), true
		}
	}
	if !strings.HasPrefix(text, "/") {
		return text, true
	}
	cmd, rest, _ := strings.Cut(text, " ")
	if !aiderMessageCommands[cmd] {
		return "", false
	}
	return strings.TrimSpace(rest), true
}
