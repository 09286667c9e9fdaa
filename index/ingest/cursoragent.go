package ingest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nova-recall/nova/config"
)

// A Cursor source is ~/.cursor/projects (or one project folder of it).
// Cursor's agent, in the editor and in the cursor-agent CLI, writes each
// conversation as JSONL, appended to as it goes, at
// <project>/agent-transcripts/<session>/<session>.jsonl, and a
// sub-agent's conversation at <session>/subagents/<sub-session>.jsonl
// (older builds: agent-transcripts/<session>.jsonl, and before them
// agent-transcripts/<session>.txt, plain text: see cursortext.go).
// <project> is the workspace's absolute path with its separators as
// dashes (Users-dev-src-billing-api).
//
// As of 2026-12 nothing of this is documented by Cursor; the shapes are
// the ones public parsers agree on (Dicklesworthstone/
// coding_agent_session_search #306, MemPalace/mempalace #232,
// caura-ai/caura #612 and receptron/mulmoterminal #2072, both read
// against real transcripts, kenn-io/agentsview #1627 and #1662, a sample
// of 814 sessions and 967 sub-agents, tenequm/pond #207,
// fwdai/fletch #782):
//
//   - a line is {"role": "user"|"assistant", "message": {"content": ...}},
//     its content a string or a list of Anthropic-style blocks (text,
//     thinking, tool_use {name, input}, tool_result); lines carry no id,
//     no time and no working directory;
//   - {"type": "turn_ended", "status": ..., "error": ...} ends a turn;
//   - a prompt is the user's words in <user_query>...</user_query>, after
//     a <timestamp>Tuesday, Jul 21, 2026, 1:11 PM (UTC+3)</timestamp> tag
//     (missing in the oldest transcripts), and followed by context Cursor
//     adds (<context>, open files): only the query is the user's; what
//     the user attached comes before the tag ("[Image]" and the
//     <image_files> Cursor saved a pasted image to, <uploaded_documents>),
//     read as an image's placeholder (a public note on the format, written
//     against 857 real records, found it before 10 of 109 prompts); a
//     query right after a <system_notification> (a background task
//     ended) is Cursor's request to report it, not a prompt;
//   - an assistant text block ends with "[REDACTED]" where Cursor cut its
//     reasoning out, and a turn of reasoning only is that marker alone;
//   - a sub-agent's file starts with the prompt the main agent's Task (or
//     Subagent) call gave it, as a user line: it is the assistant's, as a
//     Claude Code sidechain's and a Gemini CLI sub-agent's are;
//   - the same sub-agent session may also be written as a transcript of
//     its own, agent-transcripts/<sub-session>/<sub-session>.jsonl
//     (agentsview #1628): the copy under subagents/ is then not read, so
//     the session is indexed once (see Companions), and the transcript
//     is read as the sub-agent's of the session whose subagents/ names
//     it (cursorParent), also once that copy is gone; a copy found under
//     several sessions' subagents/ folders is read under the first.
//     Finding the session costs a look into every session's folder of
//     the project, once per listing whose transcripts are read (not per
//     look at them: see Companions; and not per read: see listingMemo).
//
// Guesses, not seen in any public sample: a tool_result, image or other
// block in a user line (tool output, dropped; an image is a placeholder),
// and the encoding of characters other than "/" in the project folder's
// name (taken as a dash, like "/").
//
// A prompt's words are the user's, the text blocks of the assistant's
// lines the assistant's, with the tool calls before them as one-line
// summaries; reasoning, tool output and Cursor's context are dropped. A
// record's id is its session (the file's name) and line; its time is the
// last <timestamp> read, else the file's modification time. The project
// is the workspace folder the project folder's name encodes, found on
// this machine (cursorProject); the SQLite stores of Cursor's older chat
// (state.vscdb) are not read.

// cursorLine is one line of a Cursor agent transcript.
type cursorLine struct {
	Role    string          `json:"role"`
	Type    string          `json:"type"`
	Message json.RawMessage `json:"message"`
}

// cursorBlock is one block of a message's content.
type cursorBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// cursorQuietBlocks are the content blocks that are not dialogue: the
// model's reasoning and the tools' output.
var cursorQuietBlocks = setOf("thinking", "redacted_thinking", "redacted", "tool_result", "command_output")

// cursorTimestamp is the tag Cursor puts before a prompt (only there: a
// tag inside the query is the user's words), and cursorQuery the user's
// words in it. What Cursor attaches to a prompt comes before the tag:
// "[Image]" and <image_files> naming where it saved a pasted image,
// <uploaded_documents>; so in a prompt with a query, the tag is looked
// for anywhere before the query (cursorPreambleTimestamp).
var (
	cursorTimestamp         = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\A\s*<timestamp>\s*([^<]{0,80}?)\s*</timestamp>`) })
	cursorPreambleTimestamp = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<timestamp>\s*([^<]{0,80}?)\s*</timestamp>`) })
	cursorQuery             = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<user_query>(.*?)(?:</user_query>|$)`) })
)

// cursorNotificationEnd closes the <system_notification> Cursor writes
// as a user line when a background task (a sub-agent, a shell command)
// ends, followed by a query of its own asking the model to report it
// ("The above subagent result is already visible to the user...",
// "Briefly inform the user about the task result..."): Cursor's words,
// not the user's, as public exports of real sessions show.
const cursorNotificationEnd = "</system_notification>"

// cursorImageMark is Cursor's mark, before a prompt's query, of an image
// the user pasted into it (one per image).
const cursorImageMark = "[Image]"

// cursorReasoningMark is what Cursor leaves of the reasoning it cut out
// of an assistant's text.
const cursorReasoningMark = "[REDACTED]"

// cursorState is what reading a transcript carries from one read to the
// next (as the Cursor's State).
type cursorState struct {
	// Copy is set when the file is a sub-agent's copy of a transcript
	// read from its own file: nothing of it is read.
	Copy bool `json:"copy,omitempty"`
	// Parent is the session that ran the sub-agent whose own transcript
	// the file is ("" for a main session's, and a copy's: its folder
	// names it), as a copy under the parent's subagents/ folder named it
	// when the file was first read: the copy may go since (see
	// cursorParent).
	Parent string `json:"parent,omitempty"`
	// Time is the time of the last prompt that carried one (RFC 3339).
	Time string `json:"time,omitempty"`
	// Project is the project the folder names, found once per file.
	Project  string       `json:"project,omitempty"`
	Pending  pendingTools `json:"pending,omitzero"`
	Reported shapeReports `json:"reported,omitempty"`
	// Turn is the turn being read of a plain-text transcript (see
	// cursorTextHandler).
	Turn *cursorTextTurn `json:"turn,omitempty"`
}

// cursorHandler reads one transcript.
type cursorHandler struct {
	fc *fileCtx
	st cursorState
	// session is the file's session; parent the session whose sub-agent
	// it is ("" for a main session).
	session, parent string
	// mod is the file's modification time, the time of records before
	// any prompt's timestamp.
	mod time.Time
}

func newCursorHandler(fc *fileCtx, state json.RawMessage) (*cursorHandler, error) {
	h := &cursorHandler{fc: fc}
	if err := decodeState(state, &h.st); err != nil {
		return nil, err
	}
	h.session, h.parent = cursorSession(fc.path)
	copied := cursorCopy(fc.path, fc.memo) != ""
	if len(bytes.TrimSpace(state)) > 0 && copied != h.st.Copy {
		// The sub-agent's own transcript came (or went) since the last
		// read: what was read of this file is to be read again, or gone.
		return nil, errors.New("the sub-agent's own transcript came or went")
	}
	h.st.Copy = copied
	if h.parent == "" && !copied {
		found := cursorParent(fc.path, fc.memo)
		switch {
		case found == "" && len(bytes.TrimSpace(state)) > 0:
			// The copy went since the last read: the sub-agent stays one.
		case len(bytes.TrimSpace(state)) > 0 && found != h.st.Parent:
			return nil, errors.New("a copy under another session names the transcript a sub-agent's")
		default:
			h.st.Parent = found
		}
		h.parent = h.st.Parent
	}
	if !copied && h.st.Project == "" {
		h.st.Project = cursorProject(fc.path)
	}
	h.mod = fc.mod
	if h.mod.IsZero() {
		if fi, err := os.Stat(fc.path); err == nil {
			h.mod = fi.ModTime()
		}
	}
	return h, nil
}

func (h *cursorHandler) state() (json.RawMessage, error) { return json.Marshal(h.st) }

func (h *cursorHandler) line(n int, data []byte) error {
	if h.st.Copy {
		return nil
	}
	var l cursorLine
	if err := json.Unmarshal(data, &l); err != nil {
		return undecodedLine(h.fc, n, data, err)
	}
	switch {
	case l.Role == "user" || l.Role == "assistant":
		return h.message(n, l.Role, l.Message)
	case l.Role == "" && l.Type == "turn_ended":
		// The end of a turn (its status, an abort's error): no words.
	case l.Role != "":
		h.st.Reported.report(h.fc, n, "role "+strconv.Quote(l.Role))
	default:
		h.st.Reported.report(h.fc, n, "type "+strconv.Quote(l.Type))
	}
	return nil
}

// message reads a user or assistant line.
func (h *cursorHandler) message(n int, role string, raw json.RawMessage) error {
	var msg struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		h.fc.problem(n, "unexpected message: "+trimErr(err))
		return nil
	}
	blocks, err := cursorBlocks(msg.Content)
	if err != nil {
		h.fc.problem(n, "unexpected content: "+trimErr(err))
		return nil
	}
	var texts []string
	for _, b := range blocks {
		switch {
		case b.Type == "text":
			texts = append(texts, b.Text)
		case b.Type == "tool_use":
			h.st.Pending.add(cursorToolSummary(b.Name, b.Input))
		case b.Type == "image":
			texts = append(texts, imageMark)
		case cursorQuietBlocks[b.Type]:
		default:
			h.st.Reported.report(h.fc, n, "content block "+strconv.Quote(b.Type))
		}
	}
	return h.say(n, role, strings.Join(texts, "\n"))
}

// say makes the record of a user's or an assistant's words at line n
// (the tool calls made before them wait in the state): a prompt's words
// are its <user_query>, an answer's its text without the marks of cut
// reasoning. Tool output only, or tool calls only, give no record.
func (h *cursorHandler) say(n int, role, text string) error {
	if role == "user" {
		text = h.prompt(text)
		if !hasContent(text) {
			return nil // tool output only: the turn goes on
		}
		// A prompt drops the tool calls of the turn before it.
		h.st.Pending = pendingTools{}
		if h.parent != "" {
			role = "assistant" // the main agent's task for its sub-agent
		}
	} else {
		text = withoutReasoning(cursorAnswer(text))
		if !hasContent(text) {
			return nil // tool calls only: they wait for the next text
		}
		text = h.st.Pending.take(text)
	}
	return h.emit(n, role, text)
}

// prompt is a user line's words: the <user_query> in it (the rest is
// the context Cursor adds), or all of it in a transcript without one;
// its <timestamp> is the time of the turn.
func (h *cursorHandler) prompt(text string) string {
	preamble, _, hasQuery := strings.Cut(text, "<user_query>")
	m := cursorTimestamp().FindStringSubmatch(text)
	if m == nil && hasQuery {
		m = cursorPreambleTimestamp().FindStringSubmatch(preamble)
	}
	if m != nil {
		if t, ok := cursorTime(m[1], h.fc.loc); ok {
			h.st.Time = t.UTC().Format(time.RFC3339)
		}
	}
	queries := cursorQuery().FindAllStringSubmatchIndex(text, -1)
	if len(queries) == 0 {
		return strings.TrimSpace(cursorTimestamp().ReplaceAllString(text, ""))
	}
	words := make([]string, 0, len(queries))
	for _, q := range queries {
		if strings.HasSuffix(strings.TrimSpace(text[:q[0]]), cursorNotificationEnd) {
			continue // Cursor's request to report a task that ended
		}
		if s := strings.TrimSpace(text[q[2]:q[3]]); s != "" {
			words = append(words, s)
		}
	}
	if len(words) == 0 {
		return ""
	}
	for range strings.Count(preamble, cursorImageMark) {
		words = append(words, imageMark)
	}
	return strings.Join(words, "\n\n")
}

// cursorToolSummary summarizes a tool call. ApplyPatch's input is not
// an object but the patch itself, a string in Codex's envelope ("***
// Begin Patch", "*** Update File: ..."): the files it touches say what it
// did (see patchFiles).
func cursorToolSummary(name string, input json.RawMessage) string {
	var patch string
	if json.Unmarshal(input, &patch) == nil && strings.Contains(patch, patchBegin) {
		return formatToolSummary(name, strings.Join(patchFiles(patch), " "))
	}
	return cursorToolCall(name, toolArguments(input))
}

// cursorCallMCP is the tool through which Cursor's agent calls every MCP
// tool: the tool it called is in its input, {"server", "toolName",
// "arguments"}, as public parsers of Cursor's transcripts read it
// (paxel's names it mcp__<server>__<tool>;
// buildkite/buildkite-mcp-server #381 reads the nested arguments).
const cursorCallMCP = "CallMcpTool"

// cursorToolCall summarizes a tool call from its arguments. A
// CallMcpTool call is named as Claude Code names an MCP tool,
// mcp__<server>__<tool>, with what its own arguments say: the wrapper's
// name says only that some MCP tool ran.
func cursorToolCall(name string, args map[string]json.RawMessage) string {
	if strings.TrimSpace(name) != cursorCallMCP {
		return toolSummary(name, args)
	}
	server := jsonArg(args["server"])
	tool := cmp.Or(jsonArg(args["toolName"]), jsonArg(args["tool_name"]))
	if strings.TrimSpace(server) == "" || strings.TrimSpace(tool) == "" {
		return toolSummary(name, args)
	}
	inner := toolArguments(args["arguments"])
	if inner == nil {
		inner = toolArguments(args["args"])
	}
	return toolSummary("mcp__"+strings.TrimSpace(server)+"__"+strings.TrimSpace(tool), inner)
}

// cursorAnswer is an assistant's text without the marks Cursor leaves of
// the reasoning it cut out.
func cursorAnswer(text string) string {
	text = strings.TrimSpace(text)
	for {
		t, ok := strings.CutSuffix(text, cursorReasoningMark)
		if !ok {
			return text
		}
		text = strings.TrimSpace(t)
	}
}

// emit makes the record of line n.
func (h *cursorHandler) emit(n int, role, text string) error {
	when := h.mod
	if t, err := time.Parse(time.RFC3339, h.st.Time); err == nil {
		when = t
	}
	owner, conversation := h.session, h.session
	if h.parent != "" {
		owner, conversation = h.parent, h.parent+"/"+h.session
	}
	m := message{role: role, text: text, time: when, line: n}
	rec, ok := m.record(h.fc, config.KindCursor, owner, h.session+":"+strconv.Itoa(n), conversation)
	if !ok {
		return nil
	}
	rec.Project = h.st.Project
	return h.fc.emit(rec)
}

// cursorBlocks decodes a message's content: a string is one text block.
func cursorBlocks(raw json.RawMessage) ([]cursorBlock, error) {
	return contentBlocks(raw, func(s string) cursorBlock { return cursorBlock{Type: "text", Text: s} })
}

// cursorTime parses the text of a <timestamp> tag, "Tuesday, Jul 21,
// 2026, 1:11 PM (UTC+3)" (minutes, and the zone as an offset from UTC; a
// time without one is this machine's), or an RFC 3339 time.
func cursorTime(s string, loc *time.Location) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if _, t, ok := parseDate(s, loc); ok && !t.IsZero() {
		return t, true
	}
	zone := loc
	if i := strings.LastIndex(s, "("); i >= 0 && strings.HasSuffix(s, ")") {
		z, ok := cursorZone(s[i+1 : len(s)-1])
		if !ok {
			return time.Time{}, false
		}
		zone, s = z, strings.TrimSpace(s[:i])
	}
	if i := strings.Index(s, ", "); i >= 0 && !strings.ContainsAny(s[:i], "0123456789") {
		if _, err := time.Parse("Monday", s[:i]); err == nil {
			s = s[i+2:] // the day's name says nothing the date does not
		}
	}
	for _, layout := range []string{"Jan 2, 2006, 3:04 PM", "January 2, 2006, 3:04 PM", "Jan 2, 2006, 15:04"} {
		if t, err := parseWallClock(layout, s, zone); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// cursorZone reads "UTC", "UTC+3", "UTC-5", "UTC+5:30" or "UTC+05:30".
func cursorZone(s string) (*time.Location, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "UTC")
	if !ok {
		rest, ok = strings.CutPrefix(strings.TrimSpace(s), "GMT")
	}
	if !ok {
		return nil, false
	}
	if rest == "" {
		return time.UTC, true
	}
	sign := 1
	switch rest[0] {
	case '+':
	case '-':
		sign = -1
	default:
		return nil, false
	}
	hours, mins, _ := strings.Cut(rest[1:], ":")
	h, err := strconv.Atoi(hours)
	if err != nil || h > 14 {
		return nil, false
	}
	m := 0
	if mins != "" {
		if m, err = strconv.Atoi(mins); err != nil || m > 59 {
			return nil, false
		}
	}
	return time.FixedZone("UTC"+rest, sign*(h*3600+m*60)), true
}

// cursorSession returns the session of the transcript at p (its file's
// name) and, for a sub-agent's, the session whose subagents/ folder
// holds it.
func cursorSession(p string) (session, parent string) {
	session = strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
	if dir := filepath.Dir(p); filepath.Base(dir) == "subagents" {
		parent = filepath.Base(filepath.Dir(dir))
	}
	return session, parent
}

// cursorOwnTranscript is where a sub-agent session whose transcript is
// at p, under a session's subagents/ folder, has its own transcript when
// Cursor writes one; "" for a main session's transcript.
func cursorOwnTranscript(p string) string {
	session, parent := cursorSession(p)
	if parent == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(p))), session, session+".jsonl")
}

// cursorJSONL is where the session of a plain-text transcript at p
// (agent-transcripts/<session>.txt) may also be written as JSONL: beside
// it, and in the session's folder; nil for a JSONL transcript.
func cursorJSONL(p string) []string {
	if filepath.Ext(p) != cursorTextExt {
		return nil
	}
	session, _ := cursorSession(p)
	dir := filepath.Dir(p)
	return []string{filepath.Join(dir, session+".jsonl"), filepath.Join(dir, session, session+".jsonl")}
}

// cursorCompanions are the files whose existence decides whether the
// transcript at p is read (see Companions): the sub-agent's own
// transcript for its copy under a session's subagents/ folder, the JSONL
// of the same session for a plain-text transcript.
func cursorCompanions(p string) []string {
	if own := cursorOwnTranscript(p); own != "" {
		return []string{own}
	}
	return cursorJSONL(p)
}

// cursorCopy returns the transcript read in place of the one at p when
// p's session is also written there, else "": the sub-agent session's
// own transcript when p is its copy under a session's subagents/ folder,
// or its copy under the first session whose subagents/ folder holds one
// when there are several (each would give the same records; memo is
// the listing's, see cursorFirstParent); the JSONL of a session an older
// build also wrote as plain text.
func cursorCopy(p string, memo *listingMemo) string {
	for _, c := range cursorCompanions(p) {
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	session, parent := cursorSession(p)
	if parent == "" {
		return ""
	}
	transcripts := filepath.Dir(filepath.Dir(filepath.Dir(p)))
	if first := cursorFirstParent(transcripts, session, memo); first != "" && first != parent {
		return filepath.Join(transcripts, first, "subagents", filepath.Base(p))
	}
	return ""
}

// cursorParent is the session that ran the sub-agent whose own
// transcript is at p, agent-transcripts/<session>/<session>.jsonl: the
// first session whose subagents/ folder holds a copy of it (see
// cursorFirstParent), as memo found it; "" for a main session's, or a
// file of another place.
func cursorParent(p string, memo *listingMemo) string {
	session, parent := cursorSession(p)
	dir := filepath.Dir(p)
	if parent != "" || filepath.Ext(p) != ".jsonl" || filepath.Base(dir) != session {
		return ""
	}
	return cursorFirstParent(filepath.Dir(dir), session, memo)
}

// cursorFirstParent is the first session (by name) of the
// agent-transcripts folder transcripts whose subagents/ folder holds
// session's transcript, "" when none does (see cursorParents), as memo,
// the memo of the file's listing, found it (nil: looked up now).
func cursorFirstParent(transcripts, session string, memo *listingMemo) string {
	return memo.cursorParents(transcripts)[session]
}

// cursorParents maps each session of the agent-transcripts folder
// transcripts that some other session's subagents/ folder holds a
// transcript of to the first such session by name. Only the folders a
// listing walks count: a link to a folder, or a hidden one, is not
// walked (see List), so a copy there is never read. It reads every
// session's folder: it runs when a transcript is read, not at every look
// at one (Companions), and once per listing (listingMemo), not once per
// transcript read, which cost a full read of n sessions n² looks.
func cursorParents(transcripts string) map[string]string {
	entries, err := cursorReadDir(transcripts)
	if err != nil {
		return nil
	}
	parents := map[string]string{}
	for _, e := range entries { // by name
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		subs, err := os.ReadDir(filepath.Join(transcripts, e.Name(), "subagents"))
		if err != nil {
			continue
		}
		for _, sub := range subs {
			session, ok := strings.CutSuffix(sub.Name(), ".jsonl")
			if _, seen := parents[session]; !ok || seen || session == e.Name() {
				continue
			}
			if fi, err := os.Stat(filepath.Join(transcripts, e.Name(), "subagents", sub.Name())); err == nil && fi.Mode().IsRegular() {
				parents[session] = e.Name()
			}
		}
	}
	return parents
}

// cursorReadDir is os.ReadDir; tests replace it to count the looks into
// an agent-transcripts folder.
var cursorReadDir = os.ReadDir

// cursorProject is the project of the transcript at p: the last folder
// of the workspace its project folder (the one holding agent-transcripts)
// names. Cursor names it after the workspace's path with every "/" a
// dash, so Users-dev-src-billing-api may be /Users/dev/src/billing-api or
// /Users/dev/src-billing/api: the folders that exist on this machine
// decide (cursorWorkspace). What is left once no folder matches (a
// workspace removed since) is taken as the last folder's name.
func cursorProject(p string) string {
	slug := ""
	for dir := filepath.Dir(p); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if filepath.Base(dir) == "agent-transcripts" {
			slug = filepath.Base(filepath.Dir(dir))
			break
		}
	}
	if slug == "" {
		return ""
	}
	budget := cursorWalkBudget
	ws, rest := cursorWorkspace(string(filepath.Separator), slug, &budget)
	if rest == "" {
		return ProjectFromCwd(ws)
	}
	return rest
}

// cursorWalkBudget bounds the folders cursorWorkspace reads for one
// slug: a name that fits many ways (a-b-c-d under folders a, a-b, ...)
// costs no more than that.
const cursorWalkBudget = 64

// cursorWorkspace follows slug down from dir through the folders that
// exist: it returns the deepest folder whose encoded path is a prefix of
// slug at a dash, and what of slug is left ("" when the whole of it is a
// folder). Where two folders fit ("src" and "src-billing"), the longer
// is tried first.
func cursorWorkspace(dir, slug string, budget *int) (string, string) {
	if *budget <= 0 {
		return dir, slug
	}
	*budget--
	entries, err := os.ReadDir(dir)
	if err != nil {
		return dir, slug
	}
	bestDir, bestRest := dir, slug
	var fits []string
	for _, e := range entries {
		if !e.IsDir() && !cursorLinkedDir(dir, e) {
			continue
		}
		enc := cursorEncode(e.Name())
		if enc == slug {
			return filepath.Join(dir, e.Name()), ""
		}
		if strings.HasPrefix(slug, enc+"-") {
			fits = append(fits, e.Name())
		}
	}
	// Longest first: its rest is the shortest.
	slices.SortStableFunc(fits, func(a, b string) int { return len(b) - len(a) })
	for _, name := range fits {
		d, rest := cursorWorkspace(filepath.Join(dir, name), slug[len(cursorEncode(name))+1:], budget)
		if rest == "" {
			return d, ""
		}
		if len(rest) < len(bestRest) {
			bestDir, bestRest = d, rest
		}
	}
	return bestDir, bestRest
}

// cursorLinkedDir reports whether the entry e of dir is a link to a
// folder (macOS's /var and /tmp are: a workspace in a temporary folder
// is reached through one).
func cursorLinkedDir(dir string, e os.DirEntry) bool {
	if e.Type()&os.ModeSymlink == 0 {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, e.Name()))
	return err == nil && fi.IsDir()
}

// cursorEncode is a folder name as Cursor writes it in a project
// folder's name: every character but a letter or a digit a dash (a
// guess beyond "/": see the package's note on Cursor).
func cursorEncode(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, name)
}
