package memory

import (
	"strings"
	"unicode/utf8"

	"github.com/nova-recall/nova/lexical"
)

// ContextParams say how a record's neighbouring context is made: the
// Turns records before and after it in its conversation each lend their
// first Words words. A generation stores them, because the context is
// not stored: it is derived from the neighbours whenever it is needed.
type ContextParams struct {
	Turns int `json:"contextTurns"`
	Words int `json:"contextWords"`
}

// LeadWords returns the words a record lends its neighbours: the first
// Words words of its first piece (the redacted text, as indexed). Text
// written without spaces (Chinese, Japanese) counts two characters as a
// word, about the length of a Chinese word, so that a Chinese turn lends
// as much context as an English one rather than all of its text.
func (p ContextParams) LeadWords(firstPiece string) string {
	n := p.Words
	if lead, ok := asciiLeadWords(firstPiece, n); ok {
		if len(lead) == len(firstPiece) {
			return lead
		}
		// A copy: a conversation keeps its last records' words until its
		// source is read, and a piece would keep the whole text.
		return strings.Clone(lead)
	}
	// Fields one at a time: a text has many more words than a context
	// takes from it.
	out := make([]string, 0, max(n, 0))
	for w := range strings.FieldsSeq(firstPiece) {
		if n <= 0 {
			break
		}
		cjk := 0
		for i, r := range w {
			if lexical.IsCJK(r) {
				cjk++
				if cjk > 2*n {
					w = w[:i]
					break
				}
			}
		}
		out = append(out, w)
		n -= max(1, (cjk+1)/2)
	}
	return strings.Join(out, " ")
}

// ContextSeparator joins the neighbours' words in a context.
const ContextSeparator = " … "

// NeighbourContext returns the context of a record whose neighbours lend
// words (before: the records before it, nearest last; after: those after
// it) and the part of it that comes before. A question about a turn is
// often answered in words of the turns around it (an elliptic "Some fun
// ones like charades" after the turn that names the picnic). The
// before-part holds only earlier turns, so appending a turn to a
// conversation never changes what the dense channel embedded for the turns
// already there.
func NeighbourContext(before, after []string) (context, beforePart string) {
	// Written once into a buffer of its size, the words before first:
	// beforePart is the start of it. Joining each side, then the two, cost
	// five allocations a record.
	n := len(ContextSeparator)
	for _, ws := range [2][]string{before, after} {
		for _, w := range ws {
			if w != "" {
				n += len(w) + len(ContextSeparator)
			}
		}
	}
	var b strings.Builder
	b.Grow(n)
	join := func(ws []string) {
		first := true
		for _, w := range ws {
			if w == "" {
				continue
			}
			if !first {
				b.WriteString(ContextSeparator)
			}
			b.WriteString(w)
			first = false
		}
	}
	join(before)
	end := b.Len()
	b.WriteString(ContextSeparator)
	join(after)
	s := b.String()
	return strings.TrimSpace(s), s[:end]
}

// asciiLeadWords is LeadWords for the usual text, without splitting and
// joining it: when the first n words are ASCII and one space apart, they
// are a piece of the text itself. ok is false for any other text.
func asciiLeadWords(s string, n int) (string, bool) {
	if n <= 0 {
		return "", false
	}
	i := 0
	for i < len(s) && asciiSpace(s[i]) {
		i++
	}
	start, words := i, 0
	for i < len(s) {
		for i < len(s) && !asciiSpace(s[i]) {
			if s[i] >= utf8.RuneSelf {
				return "", false
			}
			i++
		}
		if words++; words == n {
			return s[start:i], true
		}
		end := i // of the word
		for i < len(s) && asciiSpace(s[i]) {
			i++
		}
		if i == len(s) {
			return s[start:end], true // the text ends: every word is in
		}
		if i-end != 1 || s[end] != ' ' {
			return "", false // joined by one space, the words are not the text
		}
	}
	return s[start:], true // empty, or only white space
}

// asciiSpace reports the ASCII white space strings.Fields splits at.
func asciiSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}
