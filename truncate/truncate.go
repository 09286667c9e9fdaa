// Package truncate shortens text without ever cutting inside a UTF-8
// character (nor, by characters, inside a grapheme cluster): by terminal cells for what people read in a terminal (wide
// East Asian characters count two, escape sequences none), by characters
// where a limit is stated in characters (the search preview), and by bytes
// where a budget is in bytes (MCP text output).
package truncate

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/clipperhouse/uax29/v2/graphemes"
)

// Ellipsis marks where Width and Left cut.
const Ellipsis = "…"

// Width shortens s to at most w terminal cells, ending in Ellipsis when it
// cuts.
func Width(s string, w int) string { return ansi.Truncate(s, max(w, 0), Ellipsis) }

// Left shortens s to at most w terminal cells by dropping its start, so
// the end (a file name, say) stays; it begins with Ellipsis when it cuts.
func Left(s string, w int) string {
	w = max(w, 0)
	width := ansi.StringWidth(s)
	if width <= w {
		return s
	}
	// TruncateLeft keeps a wide character the cut falls inside, a cell
	// more than asked for: drop one cell more until what is left fits.
	for n := width - w + ansi.StringWidth(Ellipsis); n < width; n++ {
		if out := ansi.TruncateLeft(s, n, Ellipsis); ansi.StringWidth(out) <= w {
			return out
		}
	}
	if ansi.StringWidth(Ellipsis) <= w {
		return Ellipsis
	}
	return ""
}

// Runes returns the longest prefix of s of at most n characters (code
// points, the unit the contract's limits count) that ends between grapheme
// clusters, the characters a reader sees, with no marker: a cut inside one
// says something else (a family emoji becomes a man, a flag a letter, a
// syllable loses its vowel sign). A first cluster longer than n (text
// stacked with marks) is cut between code points.
func Runes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if cut := codePoints(s, n); len(cut) == len(s) {
		return s
	}
	end, count := 0, 0
	for g := graphemes.FromString(s); g.Next(); {
		k := utf8.RuneCountInString(g.Value())
		if count+k > n {
			break
		}
		count += k
		end = g.End()
	}
	if end == 0 {
		return codePoints(s, n)
	}
	return s[:end]
}

// codePoints returns the first n code points of s.
func codePoints(s string, n int) string {
	i := 0
	for count := 0; i < len(s); count++ {
		if count == n {
			return s[:i]
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s
}

// Bytes returns the longest prefix of s of at most n bytes that ends on a
// character boundary, with no marker.
func Bytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Words returns the first n characters of s, with no marker, cut back to
// the end of the last whole word when the cut falls inside one and that
// end is in the second half: a word or identifier cut short names
// something else ("parseConfigFromEn", "src/internal/con"). A cut that
// already falls between words stays (it loses no word), Chinese and
// Japanese are cut between any two characters (each may end a word), and
// a word longer than half the cut (a hash, a URL) is cut where it is.
func Words(s string, n int) string {
	if n <= 0 {
		return ""
	}
	cut := Runes(s, n)
	if len(cut) == len(s) {
		return s
	}
	last, _ := utf8.DecodeLastRuneInString(cut)
	next, _ := utf8.DecodeRuneInString(s[len(cut):])
	if inWord(last) && inWord(next) {
		if i := strings.LastIndexFunc(cut, func(r rune) bool { return !inWord(r) }); i >= len(cut)/2 {
			_, size := utf8.DecodeRuneInString(cut[i:])
			cut = cut[:i+size]
		}
	}
	return strings.TrimRight(cut, " ")
}

// inWord reports whether r continues a word or identifier: a letter (but
// not a Han, kana or Hangul character, which may end a word of its own),
// mark or digit, or what joins an identifier's or a path's parts.
func inWord(r rune) bool {
	if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r) || strings.ContainsRune("_-./\\:@#", r)
}
