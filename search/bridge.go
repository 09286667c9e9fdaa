package search

import "github.com/nova-recall/nova/memory"

// LeverBridges lends a turn's share of score, as propagation does, to the
// answer of the question the other speaker asks right after it, across
// the question: "I signed up for a half" / "Which one?" / "The Yorkshire
// Coast one in September, thirty-eight quid to enter". The statement holds
// the topic, the answer the detail, and the question between them often
// neither. It is part of propagation: with that lever off it is off too.
const LeverBridges = "bridges"

// bridgeShare is neighbourShare for the answer two turns after a
// statement. Of 0.2, 0.25 and 0.3, 0.3 (propagation's own share) gained
// most on every dialogue set; later, on fourteen sets, 0.5 raised R@5 on
// five (zh-dialogue-2, -5 and -7 .787 -> .800, .767 -> .780, .787 -> .800)
// and lowered it on none, where 0.7 lowered two (BENCHMARKS.md).
const bridgeShare = 0.5

// bridgedAnswer returns the turn after next when next, the turn after
// stmt, is a single question by another speaker of the same session
// (oneQuestion) and the turn after it, by stmt's speaker, is no question
// itself: the answer to a question about stmt. A question turn that
// states something first ("OK. CI has been red since yesterday, what's
// going on?") opens a topic of its own, and its answer is about that: on
// the coding-session set such bridges cost a question at rank 5.
func (e *Engine) bridgedAnswer(q *query, stmt, next int) (int, bool) {
	if !e.on(LeverBridges) || next < 0 {
		return -1, false
	}
	g := q.snap.Gen
	_, ans := g.Adjacent(next)
	if ans < 0 || !g.Live(ans) || (q.accept != nil && !q.accept(ans)) {
		return -1, false
	}
	// The question's text is read first, and only its text: most turns
	// are followed by none, and neither that turn nor the answer is then
	// decoded in full.
	if !oneQuestion(q.text(next)) {
		return -1, false
	}
	qc := q.chunk(next)
	if qc == nil {
		return -1, false
	}
	a := q.chunk(ans)
	if !sameExchange(q.chunk(stmt), qc, a) || asksOnly(a.Text) {
		return -1, false
	}
	return ans, true
}

// sameExchange reports whether s and a are by one speaker and qc, between
// them, by another, all three in one session.
func sameExchange(s, qc, a *memory.Chunk) bool {
	return s != nil && qc != nil && a != nil && s.Agent != "" && s.Agent == a.Agent && qc.Agent != s.Agent &&
		s.SessionID != "" && s.SessionID == qc.SessionID && s.SessionID == a.SessionID
}
