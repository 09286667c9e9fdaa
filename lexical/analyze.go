// Package lexical is Nova's lexical channel: a Unicode analyzer (NFKC,
// lower case, traditional to simplified Chinese, Latin and Greek letters
// without their diacritics, English and Russian stop words, irregular
// forms joined through a lemma table, Snowball stemming (English rules for
// ASCII words, Russian ones for Russian words), CJK character bigrams beside
// the dictionary words of Chinese text, whole
// compound identifiers such as rc-204 or src/app.py kept as extra terms,
// camelCase identifiers such as parseConfig split into their words beside
// the whole) and a BM25 index with its on-disk format.
package lexical

import (
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/russian"
)

// Analyzer turns text into index terms. The same analyzer must be used at
// build and query time. It is safe for concurrent use; its zero value is
// not usable (use NewAnalyzer).
type Analyzer struct {
	opts Options
	// stems memoises stem (word to stem); nStems counts its entries. A
	// sync.Map: the build analyses on every core at once, and a mutex
	// around a plain map made them queue for a lookup a word.
	stems  sync.Map
	nStems atomic.Int64
}

// maxStemCache bounds the stem memo; English vocabulary is Zipfian, so a
// small cache serves almost every lookup.
const maxStemCache = 200_000

// Version names the rules by which the analyzer turns text into terms. An
// index keeps the version it was built with: a change of the rules (a
// table, the segmenter, the stemmer) must change it, so that the next sync
// rebuilds every index with the new terms (searching the old one with the
// new query terms goes on working, less well, until then).
const Version = "nova-analyzer-v10"

// Version is the version of the terms a makes: Version, with the levers
// it has switched off (an evaluation's ablations) named after it.
func (a *Analyzer) Version() string {
	v := Version
	if a.opts.NoLemmas {
		v += "+nolemmas"
	}
	if a.opts.NoSegmentation {
		v += "+nosegmentation"
	}
	return v
}

// NewAnalyzer returns Nova's analyzer.
func NewAnalyzer() *Analyzer { return NewAnalyzerWith(Options{}) }

// NewAnalyzerWith returns an analyzer with some levers switched off.
func NewAnalyzerWith(o Options) *Analyzer {
	return &Analyzer{opts: o}
}

// IsCJK reports whether r is of a script indexed as character bigrams:
// Han, Hiragana, Katakana and Hangul, and Thai, Lao, Khmer and Myanmar,
// which are written without spaces between words too (a Thai sentence
// was one term, so a question naming one of its words found nothing).
// The marks Japanese writes inside such words are of no script of their
// own (Unicode's Common): the long vowel ー (サーバー; ｰ half-width) and
// the repeat 々 (人々). Read as punctuation, they cut サーバー into single
// characters and joined ー to a Latin word after it (ーsrv).
func IsCJK(r rune) bool {
	if r < firstCJK {
		return false // most text: the table lookups below cost more than the rest of the analysis
	}
	if r < 0x1100 {
		return SoutheastAsian(r)
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) || cjkMark(r) ||
		SoutheastAsian(r)
}

// SoutheastAsian reports whether r is Thai, Lao, Khmer or Myanmar: the
// scripts IsCJK counts whose letters carry marks (appendClusterBigrams)
// and for which Nova has no dictionary of words.
func SoutheastAsian(r rune) bool {
	return unicode.In(r, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

// cjkMark reports whether r is one of the Common-script marks written
// inside CJK words (see IsCJK).
func cjkMark(r rune) bool { return r == 'ー' || r == 'ｰ' || r == '々' }

// HasCJK reports whether s holds a CJK character. Only a byte from
// firstCJKLead up begins a code point from firstCJK up, and such a byte is
// never inside another character's encoding, so the text is scanned byte by
// byte and decoded only there: a search asks this of every candidate's
// text, and most of it is ASCII.
func HasCJK(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= firstCJKLead {
			if r, _ := utf8.DecodeRuneInString(s[i:]); IsCJK(r) {
				return true
			}
		}
	}
	return false
}

// firstCJKLead is the first byte of firstCJK's UTF-8 encoding (E0 B8 80).
const firstCJKLead = 0xE0

// firstCJK is below every character of the scripts (Thai starts at
// U+0E00; a test checks every code point).
const firstCJK = 0x0E00

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	// Marks, the spacing ones too: the vowel signs of Devanagari, Bengali,
	// Tamil and the other Indic scripts are inside their words.
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) && !IsCJK(r)
}

func isConnector(r rune) bool {
	switch r {
	case '-', '_', '.', '/', ':', '@', '#', '+', '~', '\\':
		return true
	}
	return false
}

// Terms returns the index terms of text, in order, with repeats.
func (a *Analyzer) Terms(text string) []string {
	var buf [camelBuf]camelWord
	norm, camel := normalizeCamel(buf[:0], text)
	// About one term per seven bytes of English, and the parts of the
	// camelCase words: one allocation for most texts instead of a slice
	// grown step by step.
	return a.appendTerms(make([]string, 0, len(norm)/7+1+3*len(camel)), norm, camel)
}

// AppendTerms appends the index terms of text to dst and returns the
// extended slice: Terms for a caller that joins the terms of several
// pieces of one text.
func (a *Analyzer) AppendTerms(dst []string, text string) []string {
	var buf [camelBuf]camelWord
	norm, camel := normalizeCamel(buf[:0], text)
	return a.appendTerms(dst, norm, camel)
}

// camelBuf is how many camelCase words of a text are kept without
// allocating.
const camelBuf = 32

// Words splits already-normalised text into plain words (no stemming, no
// stop-word removal, no CJK): the unit that key-term and tag matching use.
func Words(normalized string) []string {
	return strings.FieldsFunc(normalized, notWordRune)
}

// WordsSeq yields the words Words returns, without building the slice:
// for a caller that looks at each word once. ASCII bytes are classed by
// a table: a build asks this of every chunk's text (for its tags), and a
// call per character was most of the cost.
func WordsSeq(normalized string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, w := range WordsAt(normalized) {
			if !yield(w) {
				return
			}
		}
	}
}

// WordsAt yields the words WordsSeq does, each with the byte offset in
// normalized where it starts: for a caller that looks at the text around
// a word and would otherwise search for it again.
func WordsAt(normalized string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		s := normalized
		start := -1 // of the current word
		for i := 0; i < len(s); {
			word, size := true, 1
			if c := s[i]; c < utf8.RuneSelf {
				word = asciiClass[c]&classWord != 0
			} else {
				var r rune
				r, size = utf8.DecodeRuneInString(s[i:])
				word = isWordRune(r)
			}
			switch {
			case word && start < 0:
				start = i
			case !word && start >= 0:
				if !yield(start, s[start:i]) {
					return
				}
				start = -1
			}
			i += size
		}
		if start >= 0 {
			yield(start, s[start:])
		}
	}
}

// Classes of an ASCII byte in the analyzer's scans.
const (
	classWord = 1 << iota
	classConnector
)

// asciiClass is isWordRune and isConnector for every ASCII byte.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range rune(utf8.RuneSelf) {
		if isWordRune(c) {
			t[c] |= classWord
		}
		if isConnector(c) {
			t[c] |= classConnector
		}
	}
	return t
}()

func notWordRune(r rune) bool { return !isWordRune(r) }

// appendTerms appends the terms of the normalised text s, whose camelCase
// words are camel (in order).
func (a *Analyzer) appendTerms(out []string, s string, camel []camelWord) []string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case IsCJK(r):
			j, han := i, true
			for j < len(s) {
				r2, sz := utf8.DecodeRuneInString(s[j:])
				if !IsCJK(r2) {
					break
				}
				han = han && unicode.Is(unicode.Han, r2)
				j += sz
			}
			switch {
			case !a.opts.NoSegmentation && han:
				out = appendChinese(out, s[i:j])
			case han:
				out = appendBigrams(out, s[i:j])
			case SoutheastAsian(r):
				out = appendClusterBigrams(out, s[i:j])
			default:
				out = appendBigrams(out, s[i:j])
				out = appendKoreanNoun(appendLoneHan(out, s[i:j]), s[i:j])
			}
			i = j
		case isWordRune(r) || isConnector(r):
			// The run's end, and whether it joins words with
			// connectors; ASCII bytes are classed by a table.
			j, joined := i, false
			for j < len(s) {
				if c := s[j]; c < utf8.RuneSelf {
					class := asciiClass[c]
					if class == 0 {
						break
					}
					joined = joined || class&classConnector != 0
					j++
					continue
				}
				r2, sz := utf8.DecodeRuneInString(s[j:])
				if !isWordRune(r2) {
					break // no connector is outside ASCII
				}
				j += sz
			}
			// The camelCase words of the run.
			k := 0
			for k < len(camel) && camel[k].at < j {
				k++
			}
			if joined || !nextToApostrophe(s, i, j) || !contractionPiece(s, i, j) {
				out = a.appendRun(out, s[i:j], joined, i, camel[:k])
			}
			camel = camel[k:]
			if j-i <= 3 && j < len(s) && s[j] == ',' {
				if n := thousands(s, i, j); n != "" {
					out = append(out, n)
				}
			}
			i = j
		default:
			i += size
		}
	}
	return out
}

// contractionPiece reports whether the run s[i:j] is a piece of an
// English contraction that is no word of its own: the auxiliary before
// n't (won, haven, isn: "won't" was indexed as win, won's lemma, and
// "haven't" as haven) or the clitic after the apostrophe (re, ll, ve).
// Those that are stop words (don, can) and single letters (s, t, d, m)
// are dropped anyway. Only a run beside an apostrophe is looked up.
func contractionPiece(s string, i, j int) bool {
	if n := apostropheBefore(s, i); n > 0 && wordRuneBefore(s, i-n) {
		return clitics[s[i:j]]
	}
	if n := apostropheAt(s, j); n > 0 && j+n < len(s) && s[j+n] == 't' && !wordRuneAfter(s, j+n+1) {
		return negatedAuxiliaries[s[i:j]]
	}
	return false
}

// nextToApostrophe reports whether the run s[i:j] may have an apostrophe
// before or after it, by the byte on either side (' or the last or first
// byte of ’): most runs have none, and are not looked at further.
func nextToApostrophe(s string, i, j int) bool {
	return i > 0 && (s[i-1] == '\'' || s[i-1] == 0x99) || j < len(s) && (s[j] == '\'' || s[j] == 0xE2)
}

// apostropheAt returns the length of the apostrophe (' or ’) at s[i:],
// or 0.
func apostropheAt(s string, i int) int {
	switch {
	case i < len(s) && s[i] == '\'':
		return 1
	case strings.HasPrefix(s[i:], "’"):
		return len("’")
	}
	return 0
}

// apostropheBefore returns the length of the apostrophe that ends s[:i],
// or 0.
func apostropheBefore(s string, i int) int {
	switch {
	case i > 0 && s[i-1] == '\'':
		return 1
	case strings.HasSuffix(s[:i], "’"):
		return len("’")
	}
	return 0
}

var (
	clitics            = map[string]bool{"re": true, "ve": true, "ll": true}
	negatedAuxiliaries = map[string]bool{
		"ain": true, "aren": true, "couldn": true, "didn": true, "doesn": true, "hadn": true, "hasn": true,
		"haven": true, "isn": true, "mightn": true, "mustn": true, "needn": true, "shan": true,
		"shouldn": true, "wasn": true, "weren": true, "won": true, "wouldn": true,
	}
)

// thousands returns the number written from s[i:j], a run of one to
// three digits, on with commas between groups of three digits, without
// the commas (1,250,000: 1250000), or "" when no such number starts
// there: a person types 1000 for what a memory wrote as 1,000.
func thousands(s string, i, j int) string {
	for k := i; k < j; k++ {
		if !isDigit(s[k]) {
			return ""
		}
	}
	if i >= 2 && s[i-1] == ',' && isDigit(s[i-2]) {
		return "" // a group of a number that started before
	}
	end := j
	for end+4 <= len(s) && s[end] == ',' && isDigit(s[end+1]) && isDigit(s[end+2]) && isDigit(s[end+3]) &&
		!wordRuneAfter(s, end+4) {
		end += 4
	}
	if end == j {
		return ""
	}
	return strings.ReplaceAll(s[i:end], ",", "")
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isDigits(w string) bool {
	for i := 0; i < len(w); i++ {
		if !isDigit(w[i]) {
			return false
		}
	}
	return w != ""
}

// appendRun emits the words of a run such as "src/app.py" and, when the
// run joins several words with connectors, the whole run as one more term
// so an exact identifier matches exactly. joined says whether the run
// holds a connector (its scan found out). The run starts at offset at of
// the normalised text, and camel are the camelCase words in it: each
// word that is one is preceded by its parts.
func (a *Analyzer) appendRun(out []string, run string, joined bool, at int, camel []camelWord) []string {
	if !joined {
		// One plain word, most runs: nothing to split.
		if len(camel) == 1 && camel[0].at == at && len(camel[0].word) == len(run) {
			out = a.appendCamelParts(out, run, camel[0].word)
		}
		if t, ok := a.wordTerm(run); ok {
			out = append(out, t)
		}
		return out
	}
	words, end := 0, 0 // end: of the last word, in run
	var first, second string
	for w := range WordsSeq(run) {
		words++
		switch words {
		case 1:
			first = w
		case 2:
			second = w
		}
		if len(camel) > 0 {
			// Where w is: the first place from the last word's end,
			// as only other characters lie between two words.
			start := end + strings.Index(run[end:], w)
			end = start + len(w)
			for len(camel) > 0 && camel[0].at < at+start {
				camel = camel[1:] // not a whole word here (the scan of the text as written saw another)
			}
			if len(camel) > 0 && camel[0].at == at+start && len(camel[0].word) == len(w) {
				out = a.appendCamelParts(out, w, camel[0].word)
				camel = camel[1:]
			}
		}
		if t, ok := a.wordTerm(w); ok {
			out = append(out, t)
		}
	}
	if words >= 2 {
		whole := strings.TrimFunc(run, isConnector)
		if n := len(whole); n >= 3 && n <= 64 {
			out = append(out, whole)
		}
		// Letters and a number, one connector between them (utf-8,
		// gpt-4, h.264), are also typed joined (utf8, gpt4).
		if words == 2 && len(whole) == len(first)+1+len(second) && len(whole) <= 64 &&
			strings.IndexByte("-._", whole[len(first)]) >= 0 && isASCIILetters(first) && isDigits(second) {
			out = append(out, first+second)
		}
	} else if name := plusOrSharpName(run); name != "" {
		out = append(out, name)
	}
	return out
}

// plusOrSharpName returns the name that the run of one word is when the
// word has ++ or # after it (c++, c#, f#, g++, notepad++), without the
// connectors around it, or "": the word alone is a single letter, which
// is no term, or another name, so a memory about C++ had no term for it.
func plusOrSharpName(run string) string {
	name := strings.TrimFunc(run, func(r rune) bool { return isConnector(r) && r != '+' && r != '#' })
	word := strings.TrimSuffix(name, "++")
	if len(word) == len(name) {
		word = strings.TrimSuffix(name, "#")
	}
	if word == "" || len(word) == len(name) || len(name) > 64 || strings.ContainsFunc(word, func(r rune) bool { return !isWordRune(r) }) {
		return ""
	}
	return name
}

// wordTerm returns the index term of one word: stop words and single ASCII
// letters are dropped, ASCII words (English, and the other Latin-script
// languages once folded) are stemmed by English rules, Russian words by
// Russian ones, and words with digits and other scripts are kept as they
// are.
func (a *Analyzer) wordTerm(w string) (string, bool) {
	if len(w) == 1 && w[0] < utf8.RuneSelf && !(w[0] >= '0' && w[0] <= '9') {
		return "", false
	}
	if !isASCIILetters(w) {
		if !isRussianWord(w) {
			return w, true
		}
		if russian.IsStopWord(w) {
			return "", false
		}
		return a.stem(w), true
	}
	if english.IsStopWord(w) {
		return "", false
	}
	return a.stem(w), true
}

// Stem returns the stem of a word Stemmed reports, and any other word as
// it is.
func (a *Analyzer) Stem(w string) string {
	if !Stemmed(w) {
		return w
	}
	return a.stem(w)
}

// Stemmed reports whether the analyzer stems the normalised word w: w is
// lower-case ASCII letters or Russian letters.
func Stemmed(w string) bool { return isASCIILetters(w) || isRussianWord(w) }

// StopWord reports whether the analyzer drops the normalised word w as a
// function word of English or Russian.
func StopWord(w string) bool {
	return isASCIILetters(w) && english.IsStopWord(w) || isRussianWord(w) && russian.IsStopWord(w)
}

// isRussianWord reports whether w, lower case with ё folded to е, is
// written in Russian's letters only (а to я). Russian marks a noun's case
// and number and a verb's person with endings (база, базы, базе), so its
// words are stemmed, by Russian rules: a word with a Cyrillic letter
// Russian lacks (і, ї, є, ґ, ў, ј, љ, ...) is Ukrainian, Belarusian,
// Serbian or Macedonian, whose endings those rules would cut wrongly.
func isRussianWord(w string) bool {
	if w == "" || w[0] != 0xD0 && w[0] != 0xD1 {
		return false // not Cyrillic: the common case, decided by the first byte
	}
	for _, r := range w {
		if r < 'а' || r > 'я' {
			return false
		}
	}
	return true
}

func (a *Analyzer) stem(w string) string {
	if s, ok := a.stems.Load(w); ok {
		return s.(string)
	}
	// w is a slice of the text being analysed, and the stem may be a
	// slice of w: kept in the memo, either would keep the whole text
	// for as long as the analyzer lives (the watcher's and novad's live
	// for weeks).
	w = strings.Clone(w)
	var s string
	if isASCIILetters(w) {
		base := w
		if !a.opts.NoLemmas {
			if l, ok := lemmas()[w]; ok {
				base = l
			}
		}
		s = english.Stem(base, true)
	} else {
		s = russian.Stem(w, true) // stemmed words are ASCII or Russian
	}
	if a.nStems.Add(1) > maxStemCache {
		a.stems.Clear()
		a.nStems.Store(1)
	}
	a.stems.Store(w, s)
	return s
}

func isASCIILetters(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return w != ""
}

// appendLoneHan emits each Han character of a CJK run of other scripts
// too (Japanese) that stands alone between them (猫 in 猫が好き, 本 in
// 本を読む), unless it is a function word, as a Chinese one-character
// word is emitted: a kanji is often a word by itself, and the run's
// bigrams hold it only beside a kana, which a question naming the word
// (猫, 私の猫) does not have. A longer run of kanji is a bigram already.
func appendLoneHan(out []string, run string) []string {
	prevHan := false // whether the character before is Han
	for i, r := range run {
		han := unicode.Is(unicode.Han, r)
		if han && !prevHan {
			size := utf8.RuneLen(r)
			next, _ := utf8.DecodeRuneInString(run[i+size:])
			if w := run[i : i+size]; (i+size == len(run) || !unicode.Is(unicode.Han, next)) && !isZhStopWord(w) {
				out = append(out, w)
			}
		}
		prevHan = han
	}
	return out
}

// appendKoreanNoun emits the noun of a Korean word that is a noun of one
// syllable and a particle (책 of 책을, 집 of 집에서): Korean writes its
// particles onto the noun, so the word's bigrams hold a one-syllable noun
// only beside its particle, which a question naming the noun (책) does
// not have. A longer noun is among the bigrams already.
func appendKoreanNoun(out []string, run string) []string {
	if n, ok := KoreanNoun(run); ok && len(n) < len(run) && utf8.RuneLen(firstRune(n)) == len(n) {
		out = append(out, n)
	}
	return out
}

// KoreanNoun returns the noun of w, a normalised word, and whether w is
// Korean (Hangul only). Korean writes a particle onto the end of a noun
// (회의를, 집에서), so the noun is the word without it, the longer
// particle first (집 of 집으로, not 집으), or the whole word when it ends
// in none. A word that merely ends in a particle's syllable (고양이, cat)
// loses it too: what is left is a piece of the word, which a text
// holding the word holds.
func KoreanNoun(w string) (string, bool) {
	if w == "" {
		return w, false
	}
	for _, r := range w {
		if !unicode.Is(unicode.Hangul, r) {
			return w, false
		}
	}
	for cut := max(1, len(w)-maxParticle); cut < len(w); cut++ {
		if utf8.RuneStart(w[cut]) && koParticles[w[cut:]] {
			return w[:cut], true
		}
	}
	return w, true
}

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }

// koParticles are the Korean particles written after a noun (case,
// topic and the commonest adverbial ones), of maxParticle bytes at most.
var koParticles = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range strings.Fields(`은 는 이 가 을 를 의 에 도 와 과 로 만
		에서 에게 으로 까지 부터 처럼 보다 한테 이랑 하고`) {
		m[p] = true
	}
	return m
}()

// maxParticle is the length of the longest of koParticles: two syllables.
const maxParticle = 6

// appendClusterBigrams emits the overlapping bigrams of the clusters of a
// Thai, Lao, Khmer or Myanmar run, or its one cluster: a cluster is a
// letter with the vowel signs and tone marks written on it (ข้, มู), so
// no term begins with a mark, and ฐานข้อมูล gives ฐา าน นข้ ข้อ อมู มูล
// wherever it is written.
func appendClusterBigrams(out []string, run string) []string {
	var startsBuf [64]int
	starts := startsBuf[:0] // of the clusters, and the run's end
	for i, r := range run {
		if i == 0 || !unicode.IsMark(r) {
			starts = append(starts, i)
		}
	}
	starts = append(starts, len(run))
	if len(starts) <= 3 {
		return append(out, run)
	}
	for k := 0; k+2 < len(starts); k++ {
		out = append(out, run[starts[k]:starts[k+2]])
	}
	return out
}

// appendBigrams emits overlapping character bigrams of a CJK run, or the
// single character of a one-character run, as pieces of it.
func appendBigrams(out []string, run string) []string {
	if _, size := utf8.DecodeRuneInString(run); size == len(run) {
		return append(out, run)
	}
	return appendBigramsOf(out, run)
}
