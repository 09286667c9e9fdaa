// Package chunk cuts long texts into pieces of bounded size with overlap,
// preferring paragraph, line, sentence and word boundaries, keeping code
// blocks, tables and long words (URLs) whole when they fit in a piece and
// never cutting inside a character a reader sees, counting in characters
// (runes) so CJK text is cut as safely as English.
package chunk

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/graphemes"
)

// Options bound the pieces.
type Options struct {
	// MaxChars is the largest piece, in characters.
	MaxChars int
	// OverlapChars is how much of the end of one piece the next repeats.
	OverlapChars int
}

// Split returns text cut into pieces of at most o.MaxChars characters.
// Text that fits is returned as one piece. Pieces are trimmed of
// surrounding space and invisible characters (blank); empty pieces are
// dropped, and so is a text of markup and punctuation alone ("---", an
// empty code block): it holds nothing a search could find.
func Split(text string, o Options) []string {
	text = strings.TrimFunc(text, blank)
	if !strings.ContainsFunc(text, content) {
		return nil
	}
	if o.MaxChars <= 0 {
		return []string{text}
	}
	// Most texts fit: counted without decoding them into runes.
	if utf8.RuneCountInString(text) <= o.MaxChars {
		return []string{text}
	}
	runes := []rune(text)
	starts := clusterStarts(text, len(runes))
	blocks := runeRanges(text, blocks(text))
	overlap := max(0, min(o.OverlapChars, o.MaxChars/2-1))
	var out []string
	start, done := 0, 0 // done: where the text the pieces hold so far ends
	for start < len(runes) {
		// A window starts at text, not on the blanks before it: a piece
		// of a window of blanks is small, and the next repeats it whole.
		for blank(runes[start]) {
			start++ // the text ends in a non-blank: this stops
		}
		end := start + o.MaxChars
		if end >= len(runes) {
			out = appendPiece(out, runes[start:])
			break
		}
		cut := bestCut(runes, starts, start, end, blocks)
		if from := max(start, done); from < cut && slices.ContainsFunc(runes[from:cut], notBlank) {
			out = appendPiece(out, runes[start:cut])
			done = cut
		} else {
			// Beyond the overlap the window holds only blanks, or it ends
			// before the last piece did (where a word too long for the
			// rest of the window starts): its piece would repeat the end
			// of the last one, and nothing else.
			start = cut
			continue
		}
		next := cut - overlap
		if next <= start {
			next = cut
		}
		// Nor does the overlap begin inside a block the piece closes:
		// the next piece would open with code and a closing fence, which
		// reads as an opening one, or with rows and no header.
		for _, b := range blocks {
			if b[0] < next && next < b[1] && b[1] <= cut {
				next = b[1]
			}
		}
		// Start the overlap on a word boundary so no piece begins
		// mid-word (nor inside a character: a CJK one may carry a mark).
		for next < cut && (!wordBreak(runes[next-1]) && !isCJK(runes[next]) || !starts[next]) {
			next++
		}
		start = next
	}
	return out
}

func appendPiece(out []string, r []rune) []string {
	if s := strings.TrimFunc(string(r), blank); s != "" {
		out = append(out, s)
	}
	return out
}

// bestCut picks where to end a piece that must end by end: the last
// paragraph break, line break, sentence end or space in the second half of
// the window, else a hard cut between characters (starts, clusterStarts);
// outside blocks (code blocks and tables, as rune ranges) when the window
// has such a boundary there.
func bestCut(runes []rune, starts []bool, start, end int, blocks [][2]int) int {
	floor := start + (end-start)/2
	find := func(match func(i int) bool) int {
		for i := end; i > floor; i-- {
			if match(i) {
				return i
			}
		}
		return -1
	}
	boundaries := []func(i int) bool{
		// A paragraph ends in a blank line, which may hold spaces or
		// end in CRLF as the line ends of the text do.
		func(i int) bool {
			if runes[i-1] != '\n' {
				return false
			}
			j := i - 2
			for j >= 0 && (runes[j] == ' ' || runes[j] == '\t' || runes[j] == '\r') {
				j--
			}
			return j >= 0 && runes[j] == '\n'
		},
		func(i int) bool { return runes[i-1] == '\n' },
		func(i int) bool {
			switch runes[i-1] {
			case '。', '！', '？', '；':
				return true
			case '.', '!', '?', ';':
				return i < len(runes) && unicode.IsSpace(runes[i])
			}
			return false
		},
		func(i int) bool { return wordBreak(runes[i-1]) },
	}
	if len(blocks) > 0 {
		for _, b := range boundaries {
			if c := find(func(i int) bool { return b(i) && !inRange(blocks, i) }); c > 0 {
				return c
			}
		}
		// A block that opens in the first half and fits in a piece of
		// its own goes whole to the next piece, though this one is short.
		for _, b := range blocks {
			if start < b[0] && b[0] <= floor && b[1] > end && b[1]-b[0] <= end-start {
				return b[0]
			}
		}
	}
	for _, b := range boundaries {
		if c := find(b); c > 0 {
			return c
		}
	}
	// A word the window's end would cut that fits in a piece of its own
	// (a URL, a path, a hash) goes whole to the next piece, though this
	// one is short. A run of CJK may be cut anywhere.
	if !isCJK(runes[end-1]) && !isCJK(runes[end]) {
		w := end
		for w > start && !wordBreak(runes[w-1]) {
			w--
		}
		e := end
		for e < len(runes) && !wordBreak(runes[e]) && e-w <= end-start {
			e++
		}
		if w > start && e-w <= end-start {
			return w
		}
	}
	// A hard cut: between two characters a reader sees, not between a
	// letter and its marks (Thai, decomposed accents), inside a joined
	// emoji or between a flag's halves; anywhere only when the whole
	// window is one such character.
	if c := find(func(i int) bool { return starts[i] }); c > 0 {
		return c
	}
	return end
}

// Fences returns the byte ranges of text's fenced code blocks (Markdown
// ``` or ~~~ fences indented at most three spaces), each from the start
// of its opening line to the end of its closing line, or of the text when
// no fence closes it, in order.
func Fences(text string) [][2]int {
	if !strings.Contains(text, "```") && !strings.Contains(text, "~~~") {
		return nil
	}
	var out [][2]int
	fence, open := "", 0
	for off := 0; off < len(text); {
		l, end := line(text, off)
		marker := strings.TrimLeft(l, " ")
		if len(l)-len(marker) <= 3 && (strings.HasPrefix(marker, "```") || strings.HasPrefix(marker, "~~~")) {
			switch {
			case fence == "":
				fence, open = marker[:3], off
			case strings.HasPrefix(marker, fence):
				out = append(out, [2]int{open, end})
				fence = ""
			}
		}
		off = end
	}
	if fence != "" {
		out = append(out, [2]int{open, len(text)})
	}
	return out
}

// blocks returns the byte ranges of text that a piece keeps whole when it
// can: its fenced code blocks and its Markdown tables (a header row, a
// delimiter row and the rows after it), in order.
func blocks(text string) [][2]int {
	fences := Fences(text)
	if !strings.Contains(text, "|") {
		return fences
	}
	var tables [][2]int
	for off := 0; off < len(text); {
		header, next := line(text, off)
		delim, after := line(text, next)
		if !strings.Contains(header, "|") || !delimiterRow(delim) || inRange(fences, off) {
			off = next
			continue
		}
		end := after
		for end < len(text) {
			row, n := line(text, end)
			if strings.TrimSpace(row) == "" || !strings.Contains(row, "|") {
				break
			}
			end = n
		}
		tables = append(tables, [2]int{off, end})
		off = end
	}
	all := append(fences, tables...)
	slices.SortFunc(all, func(a, b [2]int) int { return a[0] - b[0] })
	return all
}

// line returns the line of text at byte off, with its line break, and
// where the next one starts.
func line(text string, off int) (string, int) {
	end := len(text)
	if i := strings.IndexByte(text[off:], '\n'); i >= 0 {
		end = off + i + 1
	}
	return text[off:end], end
}

// delimiterRow reports whether l is a table's delimiter row: pipes,
// dashes, colons and spaces only, with a pipe and a dash ("|---|:--:|").
func delimiterRow(l string) bool {
	l = strings.TrimSpace(l)
	return strings.Contains(l, "|") && strings.Contains(l, "-") &&
		strings.Trim(l, "|-: \t") == ""
}

// runeRanges converts byte ranges of text, in order, to rune ranges.
func runeRanges(text string, ranges [][2]int) [][2]int {
	if len(ranges) == 0 {
		return nil
	}
	out := make([][2]int, len(ranges))
	at, n := 0, 0 // a byte offset and its rune offset
	for k, r := range ranges {
		for j, b := range r {
			n += utf8.RuneCountInString(text[at:b])
			at = b
			out[k][j] = n
		}
	}
	return out
}

// inRange reports whether a cut before rune i falls inside one of ranges
// (after its start, before its end).
func inRange(ranges [][2]int, i int) bool {
	for _, r := range ranges {
		if r[0] < i && i < r[1] {
			return true
		}
	}
	return false
}

// clusterStarts marks the indexes of text's n runes at which a grapheme
// cluster, a character a reader sees, starts (and n): a piece cut
// elsewhere splits a letter from its marks (Thai, decomposed accents), a
// joined emoji or a flag.
func clusterStarts(text string, n int) []bool {
	starts := make([]bool, n+1)
	i := 0
	for g := graphemes.FromString(text); g.Next(); {
		starts[i] = true
		i += utf8.RuneCountInString(g.Value())
	}
	starts[n] = true
	return starts
}

// blank reports the characters a piece is trimmed of: white space, and
// the invisible ones a text may carry at its ends (a byte-order mark
// copied from a file, zero-width spaces and joiners, a word joiner), so
// that a text with them and without them is the same piece, and a text of
// nothing else is none.
func blank(r rune) bool {
	switch r {
	case '\ufeff', '\u200b', '\u200c', '\u200d', '\u2060':
		return true
	}
	return unicode.IsSpace(r)
}

// content reports the characters a text is about: letters (CJK among
// them), digits and symbols such as emoji, not markup or punctuation.
func content(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.So, r)
}

func notBlank(r rune) bool { return !blank(r) }

// wordBreak reports the characters after which a word ends: white space,
// and the zero-width space that marks word ends in text written without
// spaces (Thai, Khmer).
func wordBreak(r rune) bool { return r == '\u200b' || unicode.IsSpace(r) }

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}
