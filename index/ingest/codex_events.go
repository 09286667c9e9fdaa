package ingest

// The Codex event lines other than messages: one agent's message to
// another, a rollback, a /review, a goal, a compaction, a tool's output,
// the user's answers to the agent's questions and a voice conversation's
// transcript (see the reader's description in codex.go).

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// codexInterAgent is the payload of an inter_agent_communication line
// (multi-agent builds, 2026): a message one agent of a thread tree sends
// another (a task for a sub-agent, a sub-agent's result for its parent),
// named by their paths (/root, /root/explorer), as the recipient's
// rollout records it. Its content is rendered for the recipient's model
// in Codex's envelope (codexInterAgentEnvelope), or encrypted.
type codexInterAgent struct {
	Author      string `json:"author"`
	Recipient   string `json:"recipient"`
	Content     string `json:"content"`
	TriggerTurn bool   `json:"trigger_turn"`
}

// codexInterAgentEnvelope is the header Codex renders a message between
// agents in: its kind (NEW_TASK, MESSAGE, FINAL_ANSWER), the recipient,
// the sender, then the payload on the lines after "Payload:".
var codexInterAgentEnvelope = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\A\s*Message Type: [^\n]*\nTask name: [^\n]*\nSender: [^\n]*\nPayload:[ \t]*\n?`)
})

// interAgent reads an inter_agent_communication line at line n. A
// message that wakes its recipient to run on it (trigger_turn) starts a
// turn, as Codex counts the turns a rollback takes back (an agent's
// message is a turn boundary there, as a prompt is). Its words are an
// agent's, not the user's: the assistant's, as a sub-agent's prompt is;
// they start the recipient's turn, so the tool calls before them are no
// answer's. An encrypted message gives nothing.
func (h *codexHandler) interAgent(n int, payload json.RawMessage) error {
	var m codexInterAgent
	if !h.payload(n, payload, "inter_agent_communication", &m) {
		return nil
	}
	if m.TriggerTurn {
		h.turn(n)
	}
	return h.interAgentWords(n, &m)
}

// interAgentWords keeps the words of a message between agents at line n.
func (h *codexHandler) interAgentWords(n int, m *codexInterAgent) error {
	text := strings.TrimSpace(codexInterAgentEnvelope().ReplaceAllString(m.Content, ""))
	if text == "" {
		return nil
	}
	h.st.Pending, h.st.ReviewKept = pendingTools{}, false
	return h.record(n, "assistant", text)
}

// codexInterAgentItem returns the message between agents that a response
// item's content is, if it is one: earlier multi-agent builds wrote such
// a message into the recipient's history as a message item whose one
// text is the message as JSON (author, recipient, content, trigger_turn),
// the assistant's (commentary) or, for one that wakes its recipient, the
// user's. Read as it is, the JSON was a record, and the user's.
func codexInterAgentItem(content json.RawMessage) (codexInterAgent, bool) {
	var items []codexContentItem
	if json.Unmarshal(content, &items) != nil || len(items) != 1 {
		return codexInterAgent{}, false
	}
	text := strings.TrimSpace(items[0].Text)
	if !strings.HasPrefix(text, "{") || !strings.Contains(text, `"recipient"`) {
		return codexInterAgent{}, false
	}
	var m codexInterAgent
	if json.Unmarshal([]byte(text), &m) != nil || m.Author == "" || m.Recipient == "" {
		return codexInterAgent{}, false
	}
	return m, true
}

// turn notes that a turn starts at line n.
func (h *codexHandler) turn(n int) { h.st.Turns = append(h.st.Turns, n) }

// rollback reads a thread_rolled_back event at line n: the user took
// back the last num_turns turns (all of them when there are fewer, what
// came before the first staying), counted back from the turns still in
// the conversation, so that repeated rollbacks add up. Newer builds also
// say where what they take back starts (rollback_start_index, the
// 0-based index of the rollout's line), which is then taken as it is.
// The lines from there to the rollback give no record: a look ahead
// found them before they were read (see lookAhead); a rollback it did
// not find, of lines read already, is ErrFileChanged.
//
// The turns are those of this rollout's own lines: a fork's or a
// sub-agent's copy of its parent's history gave no record here, so a
// rollback of more turns than its own takes back all of its own.
func (h *codexHandler) rollback(n int, payload json.RawMessage) error {
	var r struct {
		NumTurns uint64 `json:"num_turns"`
		Start    *int64 `json:"rollback_start_index"`
	}
	if !h.payload(n, payload, "thread_rolled_back", &r) {
		return nil
	}
	// The turn that was going on is over: its tool calls are no
	// answer's.
	h.st.Pending, h.st.ReviewKept = pendingTools{}, false
	var from int
	turns := h.st.Turns
	switch {
	case r.Start != nil && *r.Start >= 0 && *r.Start+1 < int64(n):
		from = int(*r.Start) + 1
		keep := len(turns)
		for keep > 0 && turns[keep-1] >= from {
			keep--
		}
		h.st.Turns = turns[:keep]
	case r.NumTurns == 0:
		return nil
	case r.NumTurns < uint64(len(turns)):
		from = turns[len(turns)-int(r.NumTurns)]
		h.st.Turns = turns[:len(turns)-int(r.NumTurns)]
	case h.st.TurnsForgot:
		// Turns before the ones remembered: they start before any line
		// this read knows of.
		from, h.st.Turns = 0, nil
	case len(turns) == 0:
		return nil // no turn to take back
	default:
		from, h.st.Turns = turns[0], nil
	}
	span := codexSpan{From: from, To: n}
	if h.dry {
		h.found = append(h.found, span)
		return nil
	}
	if !slices.Contains(h.st.Ahead, span) {
		return fmt.Errorf("%w: the rollback at line %d takes back lines read before it was found", ErrFileChanged, n)
	}
	h.st.Ahead = slices.DeleteFunc(h.st.Ahead, func(s codexSpan) bool { return s.To <= n })
	return nil
}

// rolledBack reports whether a rollback after it takes line n back.
func (h *codexHandler) rolledBack(n int) bool {
	return slices.ContainsFunc(h.st.Ahead, func(s codexSpan) bool { return s.From <= n && n < s.To })
}

// reviewRequest keeps the user's /review (entered_review_mode) as a
// prompt: "/review" and what Codex shows of its target (user_facing_hint:
// "current changes", "changes against 'main'", or the user's own
// instructions for a custom review, which newer builds also give in the
// target). The reviewer's prompt that older builds add is Codex's, not
// the user's; so is the user_message event of it that newer builds send on
// from the reviewer's thread (codex-rs tasks/review.rs,
// process_review_events) until exited_review_mode, which is not read.
func (h *codexHandler) reviewRequest(n int, payload json.RawMessage) error {
	var r struct {
		Hint   string `json:"user_facing_hint"`
		Target struct {
			Instructions string `json:"instructions"`
		} `json:"target"`
	}
	if !h.payload(n, payload, "entered_review_mode", &r) {
		return nil
	}
	h.st.ReviewKept, h.st.InReview = false, true
	what := strings.TrimSpace(r.Hint)
	if what == "" {
		what = strings.TrimSpace(r.Target.Instructions)
	}
	if what == "" {
		return nil
	}
	return h.emit(n, "user", "/review "+what)
}

// itemCompleted reads an item_completed event: the form a paginated
// rollout keeps a turn's items in, in place of the legacy events
// (codex-rs rollout policy.rs, should_persist_event_msg, 2026). Its
// item is a TurnItem tagged by its variant's name (codex-rs protocol
// items.rs). A review's request and findings (EnteredReviewMode,
// ExitedReviewMode) are read as their legacy events are, with the same
// fields; every other item has a response_item the reader keeps
// instead (messages), or nothing to remember. Codex emits an item
// before the legacy event it derives from it, so once a review was read
// from its items, the legacy review events are copies (ReviewItems).
func (h *codexHandler) itemCompleted(n int, payload json.RawMessage) error {
	var e struct {
		Item json.RawMessage `json:"item"`
	}
	if !h.payload(n, payload, "item_completed", &e) {
		return nil
	}
	var item struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(e.Item, &item) != nil {
		return nil // an item of a shape of its own: not a review
	}
	switch item.Type {
	case "EnteredReviewMode":
		h.st.ReviewItems = true
		return h.reviewRequest(n, e.Item)
	case "ExitedReviewMode":
		h.st.ReviewItems = true
		return h.reviewFindings(n, e.Item)
	}
	return nil
}

// payload decodes the payload of line n, of kind what, into v, or
// reports its unexpected shape.
func (h *codexHandler) payload(n int, payload json.RawMessage, what string, v any) bool {
	if err := json.Unmarshal(payload, v); err != nil {
		h.fc.problem(n, "unexpected "+what+" payload: "+trimErr(err))
		return false
	}
	return true
}

// codexReviewOutput holds the fields the reader uses of a review's
// output (exited_review_mode's review_output).
type codexReviewOutput struct {
	Findings []struct {
		Title        string `json:"title"`
		Body         string `json:"body"`
		CodeLocation struct {
			Path  string `json:"absolute_file_path"`
			Lines struct {
				Start int `json:"start"`
				End   int `json:"end"`
			} `json:"line_range"`
		} `json:"code_location"`
	} `json:"findings"`
	Explanation string `json:"overall_explanation"`
}

// reviewFindings keeps what the reviewer found (exited_review_mode) as
// the assistant's answer, the way Codex shows it: the overall
// explanation, then each finding with its location and body. Older builds
// write the findings nowhere else a reader keeps (the <user_action>
// message that hands them to the model is scaffolding); newer ones follow
// the event with an assistant message of the same findings, which is
// then not read again (see reviewCopy). An interrupted review has no
// output.
func (h *codexHandler) reviewFindings(n int, payload json.RawMessage) error {
	var r struct {
		Output *codexReviewOutput `json:"review_output"`
	}
	h.st.InReview = false
	if !h.payload(n, payload, "exited_review_mode", &r) {
		return nil
	}
	if r.Output == nil {
		return nil
	}
	var sections []string
	if e := strings.TrimSpace(r.Output.Explanation); e != "" {
		sections = append(sections, e)
	}
	if len(r.Output.Findings) > 0 {
		var b strings.Builder
		if len(r.Output.Findings) > 1 {
			b.WriteString("Full review comments:")
		} else {
			b.WriteString("Review comment:")
		}
		for _, f := range r.Output.Findings {
			loc := f.CodeLocation
			fmt.Fprintf(&b, "\n\n- %s — %s:%d-%d", strings.TrimSpace(f.Title), loc.Path, loc.Lines.Start, loc.Lines.End)
			for line := range strings.Lines(strings.TrimSpace(f.Body)) {
				b.WriteString("\n  " + strings.TrimRight(line, "\r\n"))
			}
		}
		sections = append(sections, b.String())
	}
	if len(sections) == 0 {
		return nil
	}
	if err := h.emit(n, "assistant", strings.Join(sections, "\n\n")); err != nil {
		return err
	}
	h.st.ReviewKept = true
	return nil
}

// reviewCopy reports whether an assistant message (its key, from
// stream) is the rendering of findings already kept from their
// exited_review_mode event: the first assistant message after it. It is
// counted as seen, so that its copy in the other stream is not read
// either.
func (h *codexHandler) reviewCopy(key string, stream codexStream) bool {
	if !h.st.ReviewKept {
		return false
	}
	h.st.ReviewKept = false
	h.fresh("assistant", key, stream)
	return true
}

// goal keeps the objective of a goal the user set for a long-running
// task with /goal (thread_goal_updated), the user's words: no other line
// holds them (the continuation prompts that repeat them are the
// developer's, or hidden context: see codexScaffolding). Codex writes the goal again at each change of its status
// or usage, so an objective is kept once, until another replaces it; one
// the model set with create_goal is kept with that call. The turn goes
// on, so its tool calls stay pending for the answer.
func (h *codexHandler) goal(n int, payload json.RawMessage) error {
	var g struct {
		Goal struct {
			Objective string `json:"objective"`
		} `json:"goal"`
	}
	if !h.payload(n, payload, "thread_goal_updated", &g) {
		return nil
	}
	objective := strings.TrimSpace(g.Goal.Objective)
	key := textKey(objective)
	if objective == "" || key == h.st.Goal {
		return nil
	}
	h.st.Goal = key
	if h.dry {
		return nil
	}
	// The goal is the thread's, not a turn's: a rollback leaves it.
	return h.put(n, "user", objective)
}

// compacted keeps the summary Codex wrote when it compacted the session,
// without the line that hands it to the model (codexSummaryPrefix).
// Its replacement_history is the history Codex kept in its place: copies
// of messages already read from this rollout (or the one it was forked
// from), so they are not read again.
func (h *codexHandler) compacted(n int, payload json.RawMessage) error {
	var c struct {
		Message            string            `json:"message"`
		ReplacementHistory []json.RawMessage `json:"replacement_history"`
	}
	if !h.payload(n, payload, "compacted", &c) {
		return nil
	}
	if len(c.ReplacementHistory) > 0 {
		h.compactTurns(c.ReplacementHistory)
	}
	msg := c.Message
	if strings.HasPrefix(msg, codexSummaryPrefix) {
		// Codex's words to the model, on the first line: the summary
		// follows it.
		_, msg, _ = strings.Cut(msg, "\n")
	}
	if strings.TrimSpace(msg) == "" {
		return nil
	}
	return h.emit(n, "assistant", msg)
}

// compactTurns keeps the turns a compaction kept: the history that
// replaces the conversation holds the last prompts (those that fit), so
// a rollback after it counts back over those only, and one of more
// takes back all of them, not the turns the compaction let go.
func (h *codexHandler) compactTurns(history []json.RawMessage) {
	kept := 0
	for _, raw := range history {
		var p codexPayload
		if json.Unmarshal(raw, &p) == nil && codexTurnBoundary(&p) {
			kept++
		}
	}
	if kept <= len(h.st.Turns) {
		h.st.Turns, h.st.TurnsForgot = h.st.Turns[len(h.st.Turns)-kept:], false
	}
}

// asked remembers the questions of a request_user_input call, for the
// answers its output gives by question id.
func (h *codexHandler) asked(call string, raw json.RawMessage) {
	var questions []struct {
		ID       string `json:"id"`
		Question string `json:"question"`
	}
	if call == "" || json.Unmarshal(raw, &questions) != nil {
		return
	}
	a := codexAsked{Call: call}
	for _, q := range questions {
		a.Questions = append(a.Questions, [2]string{q.ID, stateText(q.Question)})
	}
	if len(h.st.Asked) == codexAskWindow {
		h.st.Asked = h.st.Asked[1:]
	}
	h.st.Asked = append(h.st.Asked, a)
}

// toolOutput reads the output of a tool call: that of a request_user_input
// call is the user's answers ({"answers": {question id: {"answers":
// [...]}}}), kept as the user's words; any other is dropped.
func (h *codexHandler) toolOutput(n int, payload json.RawMessage) error {
	var out struct {
		CallID string          `json:"call_id"`
		Output json.RawMessage `json:"output"`
	}
	if json.Unmarshal(payload, &out) != nil {
		return nil
	}
	i := slices.IndexFunc(h.st.Asked, func(a codexAsked) bool { return a.Call == out.CallID })
	if i < 0 {
		return nil
	}
	asked := h.st.Asked[i]
	h.st.Asked = slices.Delete(h.st.Asked, i, i+1)
	var resp struct {
		Answers map[string]struct {
			Answers []string `json:"answers"`
		} `json:"answers"`
	}
	if json.Unmarshal([]byte(codexOutputText(out.Output)), &resp) != nil {
		return nil // cancelled, or an error the model was told
	}
	var pairs [][2]string
	for _, q := range asked.Questions {
		if a, ok := resp.Answers[q[0]]; ok {
			pairs = append(pairs, [2]string{q[1], strings.Join(a.Answers, ", ")})
		}
	}
	return h.answers(n, asked.Call, pairs)
}

// codexOutputText returns the text of a tool output: a string, or a list
// of content items whose texts are joined.
func codexOutputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var items []codexContentItem
	if json.Unmarshal(raw, &items) != nil {
		return ""
	}
	var parts []string
	for _, it := range items {
		parts = append(parts, it.Text)
	}
	return strings.Join(parts, "")
}

// retained reads a retained_context line: a verified_answer is the
// questions of a request_user_input call with the user's answers, written
// beside the tool output (or without it, when that was lost).
func (h *codexHandler) retained(n int, payload json.RawMessage) error {
	var r struct {
		Type      string `json:"type"`
		CallID    string `json:"call_id"`
		Questions []struct {
			Question string `json:"question"`
			Answer   string `json:"answer"`
		} `json:"questions"`
	}
	if !h.payload(n, payload, "retained_context", &r) {
		return nil
	}
	if r.Type != "verified_answer" {
		return nil
	}
	h.st.Asked = slices.DeleteFunc(h.st.Asked, func(a codexAsked) bool { return a.Call == r.CallID })
	var pairs [][2]string
	for _, q := range r.Questions {
		pairs = append(pairs, [2]string{strings.TrimSpace(q.Question), q.Answer})
	}
	return h.answers(n, r.CallID, pairs)
}

// answers keeps the user's answers to one request_user_input call, once
// whichever line gives them first: each as "question"="answer" (the form
// Claude Code writes its AskUserQuestion answers in), one per line. The
// turn goes on, so its tool calls stay pending for the answer.
func (h *codexHandler) answers(n int, call string, pairs [][2]string) error {
	if call != "" {
		if slices.Contains(h.st.Answered, call) {
			return nil
		}
		if len(h.st.Answered) == codexAskWindow {
			h.st.Answered = h.st.Answered[1:]
		}
		h.st.Answered = append(h.st.Answered, call)
	}
	var lines []string
	for _, p := range pairs {
		answer := strings.TrimSpace(p[1])
		switch {
		case answer == "":
		case p[0] == "":
			lines = append(lines, answer)
		default:
			lines = append(lines, `"`+p[0]+`"="`+answer+`"`)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return h.record(n, "user", strings.Join(lines, "\n"))
}

// realtime reads a realtime_item line: a transcript_segment is what the
// user or the assistant said in a voice conversation, which no other line
// holds; the session's start, end and presentation marks carry nothing to
// remember. The segment's role and text are fields of the payload; some
// builds nest them in a "data" object.
func (h *codexHandler) realtime(n int, payload json.RawMessage) error {
	type segment struct {
		Role string `json:"role"`
		Text string `json:"text"`
	}
	var r struct {
		Type string `json:"type"`
		segment
		Data *segment `json:"data"`
	}
	if !h.payload(n, payload, "realtime_item", &r) {
		return nil
	}
	switch r.Type {
	case "transcript_segment":
	case "realtime_session_started", "realtime_session_closed", "bem_item_promoted":
		return nil
	default:
		h.st.Reported.report(h.fc, n, "realtime_item type "+strconv.Quote(r.Type))
		return nil
	}
	seg := r.segment
	if r.Data != nil {
		seg = *r.Data
	}
	if seg.Role != "user" && seg.Role != "assistant" {
		h.st.Reported.report(h.fc, n, "realtime transcript role "+strconv.Quote(seg.Role))
		return nil
	}
	return h.emit(n, seg.Role, strings.TrimSpace(seg.Text))
}
