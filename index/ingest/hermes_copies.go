package ingest

import (
	"slices"
	"strconv"
	"strings"
)

// When Hermes compresses a conversation it ends the session and goes on
// in a continuation (see continues) whose first rows are the handoff:
// the protected head (the conversation's first messages), the compaction
// summary, the protected tail (its last messages), each a new row with a
// new id in the continuation (SessionDB.publish_compression_child in
// NousResearch/hermes-agent hermes_state_compression.py; the head and
// tail are ContextCompressor.compress's, agent/context_compressor.py).
// Rows the parent received while the summary was written are cloned
// after the handoff, every column but the id kept. Read as is, each of
// these turns is indexed twice in one conversation, so the copies are
// dropped and the original, where Hermes first wrote it, keeps its place.
//
// A copy is known the way Hermes' own lineage display knows it
// (_display_dedupe_key in hermes_state_messages.py): the same role, text
// and tool calls, and the same timestamp, since Hermes gives a carried
// row its original's timestamp (#59661) and a clone keeps it. Each
// original stands for one copy per continuation, so that a turn the user
// typed twice stays twice. Older builds stamped the copies anew; for
// them the handoff's shape places a copy instead: the rows before the
// continuation's first summary that repeat, in order, the conversation's
// first turns, and the run of rows from the summary on that repeats its
// last turns, up to its end. A repeated text anywhere else, a reply
// typed again after the compression, is a turn of its own.
//
// A compaction summary is copied too: builds before #57835 kept an
// earlier compression's summary in the next continuation's protected head
// (or stacked it before the new summary), a new row with the same summary
// under the current or an older prefix. A summary that repeats one the
// conversation before it already has is that copy: Hermes writes a new
// summary for each compression, so no two are the same.

// hermesMaxTail bounds the protected tail looked for after a summary.
// Hermes protects the last messages by a token budget, 20 of them by
// default: a run of 512 that repeats the conversation's end is no
// continuation of it.
const hermesMaxTail = 512

// hermesIdent is what the copy rule compares of a message: its role, its
// own words (a merged summary split off) and its tool calls, by their
// ids when every call has one (ids are the calls' identity; the JSON
// around them is re-serialized on a copy). Empty for a message that
// says nothing and calls nothing (a bare summary, the harness's turns):
// it makes no record and places nothing.
func hermesIdent(role, own, toolCalls string, calls []hermesToolCall) string {
	tools := strings.TrimSpace(toolCalls)
	ids := make([]string, 0, len(calls))
	for _, c := range calls {
		ids = append(ids, c.ID)
	}
	if len(ids) > 0 && !slices.Contains(ids, "") {
		tools = strings.Join(ids, ",")
	}
	if own == "" && tools == "" {
		return ""
	}
	return role + "\x00" + own + "\x00" + tools
}

// stampedIdent is m's ident with its timestamp as stored, or "" when it
// has none: Hermes' display identity of a message.
func (m *hermesMessage) stampedIdent() string {
	if m.ident == "" || !m.stamped {
		return ""
	}
	return m.ident + "\x00" + strconv.FormatFloat(m.stamp, 'g', -1, 64)
}

// markCopies sets copy on the messages of each continuation that repeat
// a turn of the conversation before it. The conversation before a
// session is the turns its compression ancestors kept, root first: a
// second continuation's head repeats the root's first turns, not the
// first continuation's copies of them.
func (st *hermesState) markCopies() {
	bySession := map[string][]*hermesMessage{}
	for i := range st.messages {
		m := &st.messages[i]
		if !st.skipped(m) {
			bySession[m.session] = append(bySession[m.session], m)
		}
	}
	kept := map[string][]*hermesMessage{}
	summaries := map[string][]string{}
	for id := range bySession {
		var conv []*hermesMessage
		var convSummaries []string
		for _, s := range append(st.continuationPath(id), id) {
			turns, done := kept[s]
			if !done {
				markSessionCopies(bySession[s], conv)
				turns = []*hermesMessage{}
				var sums []string
				for _, m := range bySession[s] {
					if m.ident != "" && !m.copy {
						turns = append(turns, m)
					}
					if m.isSummary && m.summaryText != "" {
						key := normalizeSpace(m.summaryText)
						m.summaryCopy = slices.Contains(convSummaries, key)
						if !m.summaryCopy {
							sums = append(sums, key)
						}
					}
				}
				kept[s], summaries[s] = turns, sums
			}
			conv = append(conv, turns...)
			convSummaries = append(convSummaries, summaries[s]...)
		}
	}
}

// markSessionCopies marks the messages of one session (in row order)
// that copy a turn of conv, the conversation before it.
func markSessionCopies(ms, conv []*hermesMessage) {
	if len(conv) == 0 {
		return
	}
	originals := map[string]int{}
	for _, c := range conv {
		if k := c.stampedIdent(); k != "" {
			originals[k]++
		}
	}
	for _, m := range ms {
		if k := m.stampedIdent(); k != "" && originals[k] > 0 {
			originals[k]--
			m.copy = true
		}
	}
	summary := slices.IndexFunc(ms, func(m *hermesMessage) bool { return m.isSummary })
	if summary < 0 {
		return
	}
	head := 0
	for _, m := range ms[:summary] {
		if m.ident == "" {
			continue
		}
		if head == len(conv) || conv[head].ident != m.ident {
			break
		}
		m.copy = true
		head++
	}
	// The tail starts at the summary: merged into the first tail
	// message, it leaves that message's own words.
	var tail []*hermesMessage
	for _, m := range ms[summary:] {
		if m.ident != "" {
			tail = append(tail, m)
		}
	}
	for n := min(len(tail), len(conv), hermesMaxTail); n > 0; n-- {
		if slices.EqualFunc(tail[:n], conv[len(conv)-n:], func(a, b *hermesMessage) bool { return a.ident == b.ident }) {
			for _, m := range tail[:n] {
				m.copy = true
			}
			break
		}
	}
}
