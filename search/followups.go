package search

import (
	"strings"
	"unicode/utf8"

	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/memory"
)

// LeverFollowUps ranks the answer to a follow-up question in place of the
// statement the question followed (followUpAnswers).
const LeverFollowUps = "followups"

// followUpAnswers ranks a turn that answers a follow-up question in place
// of the statement the question asked about: one speaker says something
// ("I signed up for pottery classes"), the other asks for more ("How long
// does each session last?") and the first answers ("Two hours"). The
// statement holds the topic words a query about it shares; the answer,
// two turns later, holds the detail the query asks for and few of those
// words. It applies when the follow-up asks the kind of thing the query
// asks (QueryAnswerType: how long, how much, where, when) or is only a
// short question of no kind (买了？, 考得怎么样？: shortQuestion), the
// answer holds an expression of the query's kind and the statement does
// not; a follow-up that turns to another subject rarely asks the query's
// kind, or names the subject (学费呢？). Short questions of no kind
// raised R@1 on five of the twelve recall sets (the Chinese ones most:
// "钓到了吗？" before "五条鲫鱼") and lowered none (BENCHMARKS.md).
// The two trade places, so that the turns ranked between them keep
// theirs: lifting the answer just above the statement pushed down every
// turn between them, and cost the third Chinese set a question at rank 10.
//
// own says whether in may be changed in place, as for propagate.
func (e *Engine) followUpAnswers(q *query, in []scored, own bool) ([]scored, bool) {
	g := q.snap.Gen
	out := in
	at := make(map[int]int, len(out))
	for i := range out {
		at[out[i].doc] = i
	}
	lifted := false
	for i := range out {
		if !out[i].dialogue {
			continue
		}
		stmt := out[i].doc
		_, ask := g.Adjacent(stmt)
		if ask < 0 {
			continue
		}
		_, ans := g.Adjacent(ask)
		ai, ok := at[ans]
		if ans < 0 || !ok || out[ai].score >= out[i].score {
			continue
		}
		s, qc, a := q.chunk(stmt), q.chunk(ask), q.chunk(ans)
		if s == nil || qc == nil || a == nil || s.Agent == "" || s.Agent != a.Agent || qc.Agent == s.Agent ||
			s.SessionID == "" || s.SessionID != qc.SessionID || s.SessionID != a.SessionID || !asksSomething(qc.Text) {
			continue
		}
		if t := QueryAnswerType(qc.Text); q.answerType == "" || !(t == q.answerType || t == "" && shortQuestion(qc.Text)) || !q.holdsAnswer(ans, a) || q.holdsAnswer(stmt, s) {
			continue
		}
		if !own {
			out = append(q.list(len(in)), in...)
			own = true
		}
		// The two trade places: the turns ranked between them keep theirs.
		d := out[i].score - out[ai].score
		out[ai].score += d
		out[ai].comp.neighbourBoost += d
		out[ai].comp.has |= hasNeighbour
		out[i].score -= d
		out[i].comp.neighbourBoost -= d
		out[i].comp.has |= hasNeighbour
		lifted = true
	}
	if lifted {
		sortScored(out, g.IDLess)
	}
	return out, own
}

// shortQuestion reports whether a turn is only a short question that goes
// on with the subject of the turn before: a few words (买了？, 考得怎么样？,
// "Did it work?"), not one that names a new subject (学费呢？, "What about
// the fee?").
func shortQuestion(text string) bool {
	t := strings.TrimSpace(text)
	if !asksOnly(t) {
		return false
	}
	if lexical.HasCJK(t) {
		return utf8.RuneCountInString(t) <= 12 && !strings.HasSuffix(strings.TrimRight(t, "?？"), "呢")
	}
	lower := strings.ToLower(t)
	return len(strings.Fields(t)) <= 6 && !strings.HasPrefix(lower, "what about") && !strings.HasPrefix(lower, "how about")
}

// asksSomething reports whether a turn holds a question mark anywhere:
// "Really? Which one?", "叫什么名字？下次一起去。".
func asksSomething(text string) bool {
	return strings.ContainsAny(text, "?？")
}

// holdsAnswer reports whether document doc holds an expression of the
// kind the query asks for, cached as answerPrior caches it.
func (q *query) holdsAnswer(doc int, c *memory.Chunk) bool {
	q.mu.Lock()
	has, ok := q.answerForms[doc]
	q.mu.Unlock()
	if ok {
		return has
	}
	raw := c.Text
	if c.Title != "" {
		raw = c.Title + "\n" + c.Text
	}
	has = hasAnswerForm(q.answerType, raw, lexical.Normalize(raw))
	q.mu.Lock()
	q.answerForms[doc] = has
	q.mu.Unlock()
	return has
}
