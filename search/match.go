package search

import (
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nova-recall/nova/lexical"
)

// textView is a piece of text prepared for term matching (normalised).
type textView struct {
	norm string
	// meta is metaScore(norm) for a candidate's own text (query.view),
	// computed once: a pass and the quality gate both ask. It is 0 when
	// the query is itself about retrieval quality, which never asks.
	meta float64
	// keys has bit i set when the text covers the query's key term i
	// (the first maxKeyBits of them), for a candidate's own text: the
	// pass, the gate, the citations and each result's coverage all ask,
	// and matching a term is a search of the whole text.
	keys uint64
	// parts are the words of the text's camelCase identifiers
	// (lexical.CamelParts), which the index holds as terms: "config" is
	// in "parseConfig" as much as in "parse config".
	parts string
}

// maxKeyBits is how many key terms textView.keys holds.
const maxKeyBits = 64

// newTextView prepares s. Its white space is collapsed to single spaces,
// as a query's is, so that a phrase the text wraps onto the next line or
// spaces twice is found.
func newTextView(_ *lexical.Analyzer, s string) textView {
	return textView{norm: collapseSpace(lexical.Normalize(s)), parts: lexical.CamelParts(s)}
}

// collapseSpace replaces each run of white space in s, normalised text,
// with one space, and drops it at either end, as strings.Fields would
// split it. Text with no line break, tab or double space is returned as
// it is, found by a scan of its bytes: NFKC has made every other space
// character a plain one, and a search prepares the text of every head
// candidate. Other text is copied once, a run of words at a time: a
// candidate's view always holds the line break after its title, and
// splitting it into words first allocated a string per word.
func collapseSpace(s string) string {
	if !needsCollapse(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	kept := 0 // s[kept:i] is copied as it is
	for i := 0; i < len(s); {
		// A character that is not white space is stepped over here, not
		// by a call per byte: a view is mostly words.
		if c := s[i]; c < utf8.RuneSelf {
			if c != ' ' && (c < '\t' || c > '\r') {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(s[i:]); !unicode.IsSpace(r) {
			i += size
			continue
		}
		end := spaceRunEnd(s, i)
		// A single plain space between two words stays as it is.
		if end == i+1 && s[i] == ' ' && i > 0 && end < len(s) {
			i = end
			continue
		}
		b.WriteString(s[kept:i])
		if b.Len() > 0 && end < len(s) {
			b.WriteByte(' ')
		}
		i, kept = end, end
	}
	b.WriteString(s[kept:])
	return b.String()
}

// spaceRunEnd returns where the run of white space (unicode.IsSpace)
// that starts at s[i] ends: i when s[i] is not white space.
func spaceRunEnd(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c != ' ' && (c < '\t' || c > '\r') {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			return i
		}
		i += size
	}
	return i
}

// needsCollapse reports whether s holds a line break, a tab or two
// spaces in a row.
func needsCollapse(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n', '\t', '\r', '\v', '\f':
			return true
		case ' ':
			if i+1 < len(s) && s[i+1] == ' ' {
				return true
			}
		}
	}
	return false
}

// matchTerm is a query term prepared for covers. Whether it is CJK, and
// the stem a word may begin with instead, are worked out once per query:
// a term is looked for in the text of every candidate of the head of a
// pass (and of the gate's and the results' retrieval text), and was
// stemmed again for each (0.8% of a search's CPU at 10 000 records).
type matchTerm struct {
	text string
	cjk  bool
	// stem is matched at the start of a word when the term itself is not
	// found ("": no stem is matched).
	stem string
	// lemma is the term's stem as the index stems a word (its lemma, then
	// Porter2; Russian's rules for a Russian word), and lemmaAt the start
	// of every word that stems so (the stem without the e or i Porter2 may
	// end it in: citi is city's, hope is hoping's). A word of the text
	// beginning with lemmaAt covers the term when it stems to lemma:
	// cities and city, running and run, ran and run, which retrieval
	// matched alike ("": none).
	lemma, lemmaAt string
	analyzer       *lexical.Analyzer
	// connected are the term's letters and number with a connector
	// between them (utf-8, utf.8, utf_8 for utf8), which the analyzer
	// joins into the term (nova-analyzer-v3); nil for other terms.
	connected []string
}

func newMatchTerm(a *lexical.Analyzer, term string) matchTerm {
	t := matchTerm{text: term, cjk: lexical.HasCJK(term)}
	if letters := strings.TrimRight(term, "0123456789"); len(letters) < len(term) && letters != "" && isASCIIWord(letters) {
		for _, c := range "-._" {
			t.connected = append(t.connected, letters+string(c)+term[len(letters):])
		}
	}
	if !t.cjk && lexical.Stemmed(term) && !isASCIIWord(term) {
		// A Russian word: its stem is what every form of it begins
		// with (Russian's rules only cut endings), so a word of the
		// text that begins so and stems alike covers it (базы for база).
		if stem := a.Stem(term); utf8.RuneCountInString(stem) >= 2 {
			t.lemma, t.lemmaAt, t.analyzer = stem, stem, a
		}
		return t
	}
	if t.cjk || !isASCIIWord(term) || len(term) < 3 {
		return t
	}
	stem := a.Stem(term)
	if len(term) > 4 && len(stem) >= 4 {
		t.stem = stem
	}
	at := stem
	if strings.HasSuffix(at, "e") || strings.HasSuffix(at, "i") {
		at = at[:len(at)-1]
	}
	if len(at) >= 3 {
		t.lemma, t.lemmaAt, t.analyzer = stem, at, a
	}
	return t
}

func newMatchTerms(a *lexical.Analyzer, terms []string) []matchTerm {
	out := make([]matchTerm, len(terms))
	for i, t := range terms {
		out[i] = newMatchTerm(a, t)
	}
	return out
}

// covers reports whether the text contains term: CJK terms as substrings
// (CJK has no word boundaries); phrases, identifiers and numbers at token
// boundaries only (so "ip" never matches "pipeline" and "06" never matches
// "2060"); plain words also by stem at the start of a word ("outages"
// covers "outage", "unavailable" covers "unavailability"), and as the
// words of a camelCase identifier; letters and a number typed joined also
// with a connector between them ("utf8" covers "UTF-8").
func (v textView) covers(t matchTerm) bool {
	switch {
	case t.text == "":
		return false
	case t.cjk:
		return strings.Contains(v.norm, t.text)
	case containsAtBoundary(v.norm, t.text):
		return true
	case v.parts != "" && containsAtBoundary(v.parts, t.text):
		return true
	}
	for _, c := range t.connected {
		if containsAtBoundary(v.norm, c) {
			return true
		}
	}
	if t.stem != "" && (containsWordPrefix(v.norm, t.stem) || v.parts != "" && containsWordPrefix(v.parts, t.stem)) {
		return true
	}
	return t.lemmaAt != "" && (t.stemsIn(v.norm) || v.parts != "" && t.stemsIn(v.parts))
}

// stemsIn reports whether a word of hay that begins with t.lemmaAt stems
// to t.lemma.
func (t matchTerm) stemsIn(hay string) bool {
	for start := 0; start <= len(hay)-len(t.lemmaAt); {
		i := strings.Index(hay[start:], t.lemmaAt)
		if i < 0 {
			return false
		}
		i += start
		start = i + 1
		if before, _ := utf8.DecodeLastRuneInString(hay[:i]); i > 0 && joined(before, firstRune(t.lemmaAt)) {
			continue
		}
		// The word's end: its letters a to z, or its Russian letters
		// for a Russian term (any other letter or digit after them
		// makes a word that does not stem so).
		end := i + len(t.lemmaAt)
		for end < len(hay) {
			r, size := rune(hay[end]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(hay[end:])
			}
			if !('a' <= r && r <= 'z' || 'а' <= r && r <= 'я') {
				break
			}
			end += size
		}
		if after, _ := utf8.DecodeRuneInString(hay[end:]); end < len(hay) && joined(lastRune(hay[:end]), after) {
			continue
		}
		if t.analyzer.Stem(hay[i:end]) == t.lemma {
			return true
		}
	}
	return false
}

// isASCIIWord reports whether s is lower-case ASCII letters only, the
// words the analyzer stems.
func isASCIIWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return s != ""
}

// containsWordPrefix finds prefix at the start of a word of hay.
func containsWordPrefix(hay, prefix string) bool {
	for start := 0; start <= len(hay)-len(prefix); {
		i := strings.Index(hay[start:], prefix)
		if i < 0 {
			return false
		}
		i += start
		before, _ := utf8.DecodeLastRuneInString(hay[:i])
		if i == 0 || !joined(before, firstRune(prefix)) {
			return true
		}
		start = i + 1
	}
	return false
}

func isPlainWord(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return s != ""
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// joined reports whether a and b, written side by side, are of one word:
// both letters or digits, and both CJK or neither. Chinese and Japanese
// write an English word, an identifier or a number into their text with
// no space ("我用Docker部署", "端口改成5433了"), and the analyzer indexes
// such a Latin or digit run as a word of its own: so a term matched there
// is bounded, as retrieval found it, while "docker" in "dockerfile" or
// "5433" in "54330" is still no match.
func joined(a, b rune) bool {
	return isWordRune(a) && isWordRune(b) && lexical.IsCJK(a) == lexical.IsCJK(b)
}

// containsAtBoundary finds needle in hay where the characters around the
// match are not of one word with it (joined).
func containsAtBoundary(hay, needle string) bool {
	for start := 0; start <= len(hay)-len(needle); {
		i := strings.Index(hay[start:], needle)
		if i < 0 {
			return false
		}
		i += start
		if boundedAt(hay, i, needle) {
			return true
		}
		_, size := utf8.DecodeRuneInString(hay[i:])
		start = i + size
	}
	return false
}

// boundedAt reports whether the match of needle at hay[i:] has no
// character of one word with it (joined) on either side: a letter or
// digit of its own script, where a CJK character next to a Latin or digit
// end is a boundary.
func boundedAt(hay string, i int, needle string) bool {
	n := len(needle)
	before, _ := utf8.DecodeLastRuneInString(hay[:i])
	after, _ := utf8.DecodeRuneInString(hay[i+n:])
	okBefore := i == 0 || !joined(before, firstRune(needle))
	okAfter := i+n == len(hay) || !joined(lastRune(needle), after)
	return okBefore && okAfter
}

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }
func lastRune(s string) rune  { r, _ := utf8.DecodeLastRuneInString(s); return r }

// metaMarkers flag text that discusses retrieval quality itself (an eval
// transcript about a fact is not evidence of the fact). English markers are
// matched at token boundaries, CJK as substrings.
var metaMarkers = []string{
	"召回质量", "召回失败", "弱召回", "检索质量", "质量硬化", "质量问题", "召回率", "真实索引", "真实查询", "真正证据", "真正包含", "测试结果",
	"内置 eval", "passrate", "benchmark", "top-1000", "top-20", "topk", "默认 top-5", "q0-q2", "exact/entity coverage",
	"quality gate", "quality hardening", "retrieval quality", "needsmoreevidence", "recall@k", "recall@10", "rag eval",
}

// metaScore is min(1, markers/3): how much text reads as discussion of
// retrieval quality.
func metaScore(v textView) float64 {
	return min(1, float64(metaSet.count(v.norm))/3)
}

// markerSet finds which of a few markers (at least two bytes each) occur in
// a text, in one pass: ASCII ones at word boundaries, as containsAtBoundary
// would, CJK ones anywhere, as strings.Contains would (CJK has no word
// boundaries). A search weighs the text of every head candidate against
// all of them, and a search of the text per marker was a tenth of a
// query's CPU (for Chinese text, whose every other byte begins a CJK
// marker's character, most of it). Only where the text's next two bytes
// begin some marker is it compared.
type markerSet struct {
	markers []string
	// anywhere has bit i set when marker i is CJK.
	anywhere uint64
	starts   [1 << 16 / 64]uint64 // bit: two bytes some marker begins with
	// rank[w] counts the bits of starts' words before w: the markers that
	// begin with the bytes k are byStart[rank[k/64] + the bits of word
	// k/64 below k%64]. A map keyed by k was a third of count's time, its
	// hashing at every English "re", "to" or "pa".
	rank    [1 << 16 / 64]uint16
	byStart [][]int
}

func newMarkerSet(markers []string) *markerSet {
	if len(markers) > 64 {
		panic("search: a markerSet holds at most 64 markers")
	}
	m := &markerSet{markers: markers}
	for i, s := range markers {
		if len(s) < 2 {
			panic("search: a marker needs two bytes: " + s)
		}
		if lexical.HasCJK(s) {
			m.anywhere |= 1 << i
		}
		k := uint16(s[0])<<8 | uint16(s[1])
		m.starts[k/64] |= 1 << (k % 64)
	}
	n := 0
	for w, b := range m.starts {
		m.rank[w] = uint16(n)
		n += bits.OnesCount64(b)
	}
	m.byStart = make([][]int, n)
	for i, s := range markers {
		at := m.at(uint16(s[0])<<8 | uint16(s[1]))
		m.byStart[at] = append(m.byStart[at], i)
	}
	return m
}

// at is the index in byStart of the markers that begin with the bytes k,
// a bit of starts.
func (m *markerSet) at(k uint16) int {
	below := m.starts[k/64] & (1<<(k%64) - 1)
	return int(m.rank[k/64]) + bits.OnesCount64(below)
}

// count returns how many of the markers occur in hay.
func (m *markerSet) count(hay string) int {
	var found uint64
	for i := 0; i+1 < len(hay); i++ {
		k := uint16(hay[i])<<8 | uint16(hay[i+1])
		if m.starts[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		for _, j := range m.byStart[m.at(k)] {
			s := m.markers[j]
			if found&(1<<j) == 0 && strings.HasPrefix(hay[i:], s) && (m.anywhere&(1<<j) != 0 || boundedAt(hay, i, s)) {
				found |= 1 << j
			}
		}
	}
	return bits.OnesCount64(found)
}

var metaSet = newMarkerSet(metaMarkers)
