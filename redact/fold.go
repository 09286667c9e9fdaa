package redact

import (
	"sort"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// foldedSpans adds the byte ranges, in text, of the secrets the rules find
// in text's compatibility-composed (NFKC) form, which is how the index
// reads it (lexical.Normalize): a label in decomposed Hangul or kana
// (비밀번호, パスワード as pasted from a macOS app) or a password typed in
// full-width letters (a CJK input method's full-width mode) is a label
// and a password there, and was indexed and found as one, but no rule,
// written for composed text and ASCII secrets, saw it. Only text with a
// character of that kind (foldable) is composed; a range is widened to
// the whole characters it came from.
func foldedSpans(text string, out []span) []span {
	if !foldable(text) {
		return out
	}
	// starts[i] is where the i-th normalisation segment starts in folded,
	// at[i] where it started in text; the last entries are the ends.
	var (
		it     norm.Iter
		folded = make([]byte, 0, len(text))
		starts []int
		at     []int
	)
	it.InitString(norm.NFKC, text)
	for !it.Done() {
		starts, at = append(starts, len(folded)), append(at, it.Pos())
		folded = append(folded, it.Next()...)
	}
	starts, at = append(starts, len(folded)), append(at, len(text))
	f := string(folded)
	for _, s := range brokenLineSpans(f, secretSpans(f, nil)) {
		// The segment holding s.start, and the first one at or after s.end.
		i := sort.SearchInts(starts, s.start+1) - 1
		j := sort.SearchInts(starts, s.end)
		out = append(out, span{at[i], at[j]})
	}
	return out
}

// foldable reports whether text holds a character NFKC changes into one
// a rule reads: a conjoining Hangul jamo (of a CJK label), a combining kana
// voiced mark (ド of パスワード), or a full-width ASCII letter or digit (of
// a secret). A combining accent does not count: no label has one, and a
// Latin letter it composes with is no secret's. Full-width
// punctuation alone (the commas of Chinese prose) does not count: the
// rules know the full-width colon, and a second pass over every Chinese
// text would double its cost for nothing.
func foldable(text string) bool {
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		// Conjoining Hangul jamo, combining kana voiced marks, full-width
		// digits and letters.
		if 0x1100 <= r && r <= 0x11FF || r == 0x3099 || r == 0x309A ||
			0xFF10 <= r && r <= 0xFF19 || 0xFF21 <= r && r <= 0xFF3A || 0xFF41 <= r && r <= 0xFF5A {
			return true
		}
	}
	return false
}
