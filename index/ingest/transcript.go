package ingest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nova-recall/nova/memory"
)

// message is one kept utterance of a transcript before cleaning.
type message struct {
	role  string
	text  string
	title string
	time  time.Time
	cwd   string
	// line is the 1-based line of the utterance in its file.
	line int
}

// record turns a message of fc's file into a dialogue record of kind (of
// agent fc.agent(kind)), or reports false when nothing is left after
// cleaning. conversation is the session (or sidechain) whose turns are
// neighbours.
func (m message) record(fc *fileCtx, kind, session, id, conversation string) (memory.Record, bool) {
	text, redactions := cleanText(m.text)
	if !hasContent(text) {
		return memory.Record{}, false
	}
	rec := memory.Record{
		ID:           id,
		Text:         text,
		Title:        m.title,
		Role:         m.role,
		Agent:        fc.agent(kind),
		Project:      ProjectFromCwd(m.cwd),
		SessionID:    session,
		Time:         m.time,
		Path:         fc.path,
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

// pendingTools are the tool-call summaries waiting for the next answer
// of a transcript: the first maxToolLines of them and how many more.
type pendingTools struct {
	Tools []string `json:"tools,omitempty"`
	More  int      `json:"more,omitempty"`
}

func (p *pendingTools) add(summary string) {
	if len(p.Tools) < maxToolLines {
		p.Tools = append(p.Tools, summary)
		return
	}
	p.More++
}

// take appends the pending summaries to text, one per line, and clears
// them.
func (p *pendingTools) take(text string) string {
	text = appendTools(text, p.Tools, p.More)
	p.Tools, p.More = nil, 0
	return text
}

// ReasonUnknownShape begins the problem a reader reports for a line of a
// shape it does not know: a format newer than the reader, in a file that
// is as its agent wrote it (a newer Nova reads it; nothing is to fix).
const ReasonUnknownShape = "line shape this reader does not understand"

// maxShapeReports bounds the unknown line shapes remembered per file.
const maxShapeReports = 32

// shapeReports are the line shapes of a file a reader did not
// understand and already reported: each new shape is reported once, at
// its first line, rather than at every line (formats drift, and a new
// event type can fill a transcript).
type shapeReports []string

func (s *shapeReports) report(fc *fileCtx, n int, shape string) {
	if slices.Contains(*s, shape) {
		return
	}
	if len(*s) < maxShapeReports {
		*s = append(*s, shape)
	}
	fc.problem(n, ReasonUnknownShape+" ("+shape+"): not read; later ones in this file are not reported again")
}

// textKey is a short digest of a text, for the bounded windows of
// recently seen texts that readers keep in their cursor state.
func textKey(s string) string {
	h := fnv.New64a()
	h.Write([]byte(s))
	return strconv.FormatUint(h.Sum64(), 36)
}

// lineType returns the "type" of a line that is a JSON object, and
// whether it is one: a line a reader does not decode into its own struct
// may still be JSON, of a shape a later build of its agent writes, and is
// then not to be reported as a line that is not JSON.
func lineType(data []byte) (string, bool) {
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(data, &head) != nil {
		return "", false
	}
	return head.Type, true
}

// decodeState decodes a reader's cursor state into v; an empty state is
// the start of a file.
func decodeState(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("decode reader state: %w", err)
	}
	return nil
}

// reasoningTags are the tags models wrap the reasoning they write into
// their text in (Qwen3, DeepSeek R1, Hermes 4 through some providers),
// as Hermes knows them.
const reasoningTags = `think|thinking|thought|reasoning|reasoning_scratchpad`

// reasoningBlock is that reasoning, closed; reasoningOpen is a block
// left open at the start of a text (a reply cut short inside its
// reasoning), which runs to the end. An open tag elsewhere is prose that
// names it.
var (
	reasoningBlock = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?is)<(?:` + reasoningTags + `)>.*?</(?:` + reasoningTags + `)>`)
	})
	reasoningOpen = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)\A\s*<(?:` + reasoningTags + `)>.*`) })
)

// withoutReasoning is a model's text without its inline reasoning. The
// tags are looked for before the expression runs: most texts have none.
func withoutReasoning(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	s = reasoningBlock().ReplaceAllString(s, "")
	return strings.TrimSpace(reasoningOpen().ReplaceAllString(s, ""))
}
