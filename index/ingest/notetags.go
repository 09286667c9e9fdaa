package ingest

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The #tags of a note's text, as Obsidian reads them (Bear's and
// Logseq's forms too): where a tag may start and what it holds, what
// hides one (code, math, HTML comments and blocks), and the tag lines that tag a
// whole note. readMarkdown decides which section each tag belongs to.

// inlineTag is a #tag in a note's text, as Obsidian reads one: after a
// blank (the no-break and ideographic spaces too) or a pipe (a table
// cell's text is read on its own: "|#a|"), at the start of a line or
// right after another tag (findTags: "#a#b"); of letters with their
// combining marks (an accent written decomposed, a Hindi or Thai vowel
// sign), digits, emoji (symbols, with their skin tones and variation
// selectors: "#🚀launch", "#idea💡"), "_", "-" and "/"; or Logseq's tag
// of several words, #[[machine learning]].
var inlineTag = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s\x{A0}\x{3000}|])#(?:\[\[([^\]|#]+)\]\]|([\p{L}\p{N}\p{So}_/-][\p{L}\p{M}\p{N}\p{So}\x{1F3FB}-\x{1F3FF}_/-]*))`)
})

// inlineTagAfter is inlineTag from its "#" on, anchored there: see
// inlineTagIndex.
var inlineTagAfter = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^#(?:\[\[([^\]|#]+)\]\]|([\p{L}\p{N}\p{So}_/-][\p{L}\p{M}\p{N}\p{So}\x{1F3FB}-\x{1F3FF}_/-]*))`)
})

// inlineTagIndex is inlineTag().FindAllStringSubmatchIndex(text, -1): it
// looks for a "#" after a blank (or at the start) and tries the pattern
// there alone. The unanchored pattern was tried at every byte of every
// line, most of the time a note took to read.
func inlineTagIndex(text string) [][]int {
	var out [][]int
	after := inlineTagAfter()
	for at := 0; at < len(text); {
		j := strings.IndexByte(text[at:], '#')
		if j < 0 {
			break
		}
		i := at + j
		at = i + 1
		start := i
		if i > 0 {
			// inlineTag's blank: \s (ASCII), the no-break or the
			// ideographic space; or a pipe.
			r, size := utf8.DecodeLastRuneInString(text[:i])
			if r != ' ' && r != '\t' && r != '\n' && r != '\f' && r != '\r' && r != '\u00a0' && r != '\u3000' && r != '|' {
				continue
			}
			start = i - size
		}
		m := after.FindStringSubmatchIndex(text[i:])
		if m == nil {
			continue
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += i
			}
		}
		m[0] = start
		out = append(out, m)
		at = m[1]
	}
	return out
}

// bearTag is Bear's tag of several words, closed by a "#" right after
// its last word: "#multi word tag#". Its words cross no NUL, code or
// math blanked (lineTags), nor a pipe: a table row's cells
// ("|#a|notes#|") are no tag's words.
var bearTag = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s\x{A0}\x{3000}|])#([\p{L}\p{N}\p{So}_/-][^#|\n\x00]*[^\s\x{A0}\x{3000}#|])#`)
})

// inlineTags are the #tags in prose (a line's text outside code): Bear's
// of several words (bearTag), then the others (inlineTag). Bear's is one
// only where its closing "#" ends a word of two letters or more, before
// a blank, punctuation or the line's end: "#todo learn C#" is the tag
// todo, as a note that knows nothing of Bear means it.
func inlineTags(p string) []string {
	tags := findTags(p)
	if tags == nil {
		return nil
	}
	out := make([]string, len(tags))
	for i, f := range tags {
		out[i] = f.tag
	}
	return out
}

// lineTags are the #tags of the nth line of those hide follows: those
// outside its math, comments (hiddenSpans) and code spans. Each is
// blanked with NUL, not cut out: a "#" right after one ("`x`#y") follows
// no blank, and is no tag.
func lineTags(hide *hiddenSpans, n int, line string) []string {
	text, _ := hide.text(n, line)
	if strings.IndexByte(text, '#') < 0 {
		return nil
	}
	if strings.IndexByte(line, '`') >= 0 {
		b := []byte(text)
		for at := 0; at < len(line); {
			j := strings.IndexByte(line[at:], '`')
			if j < 0 {
				break
			}
			end := afterCodeSpan(line, at+j)
			clear(b[at+j : end])
			at = end
		}
		text = string(b)
	}
	return inlineTags(text)
}

// headingTags are the #tags of a heading (as written, its markup in
// it) outside its code spans, math and comments: Obsidian counts a
// heading's tags as it counts those of text.
func headingTags(h string) []string {
	var hide hiddenSpans
	return lineTags(&hide, 0, h)
}

// hiddenSpans follows a section's lines (outside code blocks) for the
// spans that are text but hold no #tag, as Obsidian reads none there:
// math, $...$ in a line and $$...$$ in a line or across lines, HTML
// comments, <!-- ... --> in a line or across lines, and HTML blocks
// (htmlBlockStart). (Its %% comments are cut before, see
// withoutComments.) A $$ block opens only where a later line holds a
// "$$" that may close it: "$$$ money" hides nothing after it. The zero
// value is outside all, and opens no $$ or HTML block: a heading's text
// is neither (see newHiddenSpans).
type hiddenSpans struct {
	math    bool // a $$ block is open
	comment bool // an HTML comment is open
	// lastDollars is the index of the last line that holds "$$": a
	// block opens only before it.
	lastDollars int
	// blocks: HTML blocks open (lines of text, not a heading's).
	blocks bool
	// html is the HTML block open: its kind (htmlBlockStart), 0 for none.
	html int
	// para: the line before (the last followed, the one just before
	// it) is a paragraph's, which a line of one HTML tag alone does not
	// break.
	para bool
	last int // 1 + the index of the last line followed
}

// newHiddenSpans follows lines, which it looks ahead in for the "$$"
// that closes a block. htmlBlocks: the lines are Markdown, whose HTML
// blocks hide tags; an HTML note's text (htmlNoteText) has none, its
// markup gone, and a line of it that reads like a tag ("<div>") is words.
func newHiddenSpans(lines []string, htmlBlocks bool) hiddenSpans {
	return hiddenSpans{lastDollars: lastDollarsLine(lines), blocks: htmlBlocks}
}

// htmlBlockStarts are the lines that open an HTML block, as CommonMark
// reads them, by kind (1 to 7, its numbers; 2, a comment, is followed as
// comments are): <pre>, <script>, <style> or <textarea> up to their
// closing tag; <?...?>; <!X...>; <![CDATA[...]]>; a block element's tag
// (<div>, <p>, <table>, </div>...) up to a blank line; and any other tag
// alone on its line, up to a blank line too, where it breaks no
// paragraph. Compiled with htmlBlockEnds on the first HTML line a note
// holds.
var htmlBlockStarts = sync.OnceValue(func() *[8]*regexp.Regexp {
	return &[...]*regexp.Regexp{
		1: regexp.MustCompile(`^ {0,3}<(?i:pre|script|style|textarea)(?:[ \t>]|$)`),
		3: regexp.MustCompile(`^ {0,3}<\?`),
		4: regexp.MustCompile(`^ {0,3}<![A-Za-z]`),
		5: regexp.MustCompile(`^ {0,3}<!\[CDATA\[`),
		6: regexp.MustCompile(`^ {0,3}</?(?i:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:[ \t]|/?>|$)`),
		7: regexp.MustCompile(`^ {0,3}(?:<[A-Za-z][A-Za-z0-9-]*(?:[ \t]+[A-Za-z_:][A-Za-z0-9_.:-]*(?:[ \t]*=[ \t]*(?:[^ \t"'=<>\x60]+|'[^']*'|"[^"]*"))?)*[ \t]*/?>|</[A-Za-z][A-Za-z0-9-]*[ \t]*>)[ \t]*$`),
	}
})

// htmlBlockEnds are the texts that close an HTML block of the kind, in
// the line that holds them; the others close at a blank line.
var htmlBlockEnds = sync.OnceValue(func() *[6]*regexp.Regexp {
	return &[...]*regexp.Regexp{
		1: regexp.MustCompile(`(?i)</(?:pre|script|style|textarea)>`),
		3: regexp.MustCompile(`\?>`),
		4: regexp.MustCompile(`>`),
		5: regexp.MustCompile(`\]\]>`),
	}
})

// htmlBlockStart returns the kind of HTML block line opens
// (htmlBlockStarts), or 0. para: it follows a paragraph's line.
func htmlBlockStart(line string, para bool) int {
	for kind, re := range htmlBlockStarts() {
		if re != nil && (kind != 7 || !para) && re.MatchString(line) {
			return kind
		}
	}
	return 0
}

// htmlBlock returns whether line, the nth followed, is in an HTML block
// (one it opens, too), and notes where blocks open and close. A blank
// line closes one of kinds 6 and 7, and is in none.
func (h *hiddenSpans) htmlBlock(n int, line string) bool {
	trimmed := strings.TrimLeft(line, " \t")
	blank := trimmed == ""
	para := h.para && h.last == n // the line just before is followed
	h.last = n + 1
	if h.html == 0 {
		// The common line, which opens none, left without a pattern's
		// scan; the patterns allow up to three spaces before its "<".
		if !h.blocks || h.math || h.comment || !strings.HasPrefix(trimmed, "<") {
			h.para = !blank && !h.math
			return false
		}
		if h.html = htmlBlockStart(line, para); h.html == 0 {
			h.para = true
			return false
		}
	} else if blank && h.html >= 6 {
		h.html, h.para = 0, false
		return false
	}
	if ends := htmlBlockEnds(); h.html < len(ends) && ends[h.html] != nil && ends[h.html].MatchString(line) {
		h.html = 0
	}
	h.para = false
	return true
}

// lastDollarsLine is the index of the last of lines that holds "$$", or
// -1.
func lastDollarsLine(lines []string) int {
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "$$") {
			return i
		}
	}
	return -1
}

// text returns line, the nth of those followed, with the spans it hides
// blanked, byte for byte (the offsets of what is left hold), and notes
// the blocks it opens or closes. A blanked byte is NUL, which is no
// blank a tag may follow: a "#" right after math or a comment ("$x$#y")
// is no tag, as it was none when the "$" was before it. shown reports
// whether the line has anything but blanks outside comments (math and
// HTML blocks are shown). A "$" or "<!--" in a code span opens nothing, nor does an
// escaped "\$".
func (h *hiddenSpans) text(n int, line string) (_ string, shown bool) {
	if h.htmlBlock(n, line) {
		return strings.Repeat("\x00", len(line)), strings.TrimSpace(line) != ""
	}
	if !h.math && !h.comment && strings.IndexByte(line, '$') < 0 && !strings.Contains(line, "<!--") {
		// The common line, left without a scan.
		return line, strings.TrimSpace(line) != ""
	}
	b := []byte(line)
	blank := func(from, to int) {
		for k := from; k < to; k++ {
			if b[k] != ' ' && b[k] != '\t' && !h.comment {
				shown = true
			}
			b[k] = 0
		}
	}
	for at := 0; at < len(line); {
		switch {
		case h.comment:
			j := strings.Index(line[at:], "-->")
			if j < 0 {
				blank(at, len(line))
				return string(b), shown
			}
			blank(at, at+j+3)
			at += j + 3
			h.comment = false
		case h.math:
			j := unescaped(line, at, "$$")
			if j < 0 {
				blank(at, len(line))
				return string(b), shown
			}
			blank(at, j+2)
			at = j + 2
			h.math = false
		case line[at] == '`':
			end := afterCodeSpan(line, at)
			shown = true
			at = end
		case line[at] == '\\':
			shown = true
			at += 2
		case strings.HasPrefix(line[at:], "<!--"):
			h.comment = true
			blank(at, at+4)
			at += 4
		case strings.HasPrefix(line[at:], "$$"):
			// Closed in the line, or a block the line opens with: a
			// "$$" after text that nothing closes is text ("$$$").
			if j := unescaped(line, at+2, "$$"); j >= 0 {
				blank(at, j+2)
				at = j + 2
			} else if strings.TrimSpace(line[:at]) == "" && h.lastDollars > n {
				h.math = true
				blank(at, len(line))
				return string(b), shown
			} else {
				shown = true
				at += 2
			}
		case line[at] == '$':
			if end := inlineMathEnd(line, at); end > 0 {
				blank(at, end)
				at = end
			} else {
				shown = true
				at++
			}
		default:
			if line[at] != ' ' && line[at] != '\t' {
				shown = true
			}
			at++
		}
	}
	return string(b), shown
}

// unescaped returns where in line, from at on, the first s not escaped
// by a backslash is, or -1.
func unescaped(line string, at int, s string) int {
	for at < len(line) {
		if line[at] == '\\' {
			at += 2
			continue
		}
		if strings.HasPrefix(line[at:], s) {
			return at
		}
		at++
	}
	return -1
}

// inlineMathEnd returns where the math that line[at] ("$") opens ends,
// after its closing "$", or 0 when it opens none. As in Pandoc (and
// Obsidian, which reads "$S_n $" as no math), the "$" that opens is
// followed by a non-blank, the next "$" closes, and only if a non-blank
// comes before it and no digit after: "$5 and $6" is two prices.
func inlineMathEnd(line string, at int) int {
	if at+1 >= len(line) || line[at+1] == ' ' || line[at+1] == '\t' {
		return 0
	}
	j := unescaped(line, at+1, "$")
	if j < 0 || line[j-1] == ' ' || line[j-1] == '\t' || j+1 < len(line) && line[j+1] >= '0' && line[j+1] <= '9' {
		return 0
	}
	return j + 1
}

// uniqueTags returns tags once each whatever their case, as first
// written, each a copy (a tag is a piece of the text it was found in).
func uniqueTags(tags []string) []string {
	if len(tags) == 0 {
		return nil
	}
	out := make([]string, 0, len(tags))
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		if k := foldKey(t); !seen[k] {
			seen[k] = true
			out = append(out, strings.Clone(t))
		}
	}
	return out
}

// foundTag is a #tag findTags found: p[at:end] is all of it, from its
// "#" (or the blank before it) to its last character (a Bear tag's
// closing "#").
type foundTag struct {
	at, end int
	tag     string
}

// findTags returns the #tags of p as inlineTags reads them, where each
// is written.
func findTags(p string) []foundTag {
	if strings.IndexByte(p, '#') < 0 {
		return nil // no tag: the common line, left without a pattern's scan
	}
	var tags []foundTag
	// text is p with Bear's tags blanked, copied only when it has one.
	text := p
	var rest []byte
	var bear [][]int
	if strings.Count(p, "#") >= 2 { // a tag's "#" and its closing one
		bear = bearTag().FindAllStringSubmatchIndex(p, -1)
	}
	for _, m := range bear {
		words := strings.Fields(p[m[2]:m[3]])
		next, _ := utf8.DecodeRuneInString(p[m[1]:])
		if utf8.RuneCountInString(words[len(words)-1]) < 2 || unicode.IsLetter(next) || unicode.IsNumber(next) {
			continue
		}
		tags = append(tags, foundTag{m[2] - 1, m[1], strings.Join(words, " ")})
		// Its words are no tags of their own: "#multi" is not one.
		if rest == nil {
			rest = []byte(p)
		}
		for i := m[2] - 1; i < m[1]; i++ {
			rest[i] = ' '
		}
	}
	if rest != nil {
		text = string(rest)
	}
	after := inlineTagAfter()
	for _, m := range inlineTagIndex(text) {
		for {
			var tag string
			for g := 2; g < len(m); g += 2 {
				if m[g] >= 0 {
					tag += strings.TrimSpace(text[m[g]:m[g+1]])
				}
			}
			// A number is no tag: issue #123.
			if !digitsOnly(tag) {
				tags = append(tags, foundTag{m[0], m[1], tag})
			}
			// A "#" right after a tag starts another: Obsidian reads
			// "#a#b" as the tags a and b, not "a" alone.
			end := m[1]
			if end >= len(text) || text[end] != '#' {
				break
			}
			if m = after.FindStringSubmatchIndex(text[end:]); m == nil {
				break
			}
			for k := range m {
				if m[k] >= 0 {
					m[k] += end
				}
			}
		}
	}
	// In the order they are written.
	slices.SortStableFunc(tags, func(a, b foundTag) int { return cmp.Compare(a.at, b.at) })
	return tags
}

// digitsOnly reports whether tag is made of digits alone, which makes
// it no tag in Obsidian: #1984, not #y1984.
func digitsOnly(tag string) bool {
	return strings.IndexFunc(tag, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
}

// topTags are the tags of the lines of tags alone that open lines (a
// note's text before its first heading), blank lines aside: "#travel
// #area/home", as a note is tagged whole in Bear or Obsidian. They stop
// at the first line with anything else, text or a fence, whose tags are
// its section's. An HTML comment is no text here, and holds no tag
// (hiddenSpans), nor does math; htmlBlocks is newHiddenSpans's.
func topTags(lines []string, htmlBlocks bool) []string {
	var out []string
	hide := newHiddenSpans(lines, htmlBlocks)
	for i, written := range lines {
		line, shown := hide.text(i, written)
		if !shown {
			continue
		}
		// A line indented four columns is code here (indentedCode).
		tags := findTags(line)
		if tags == nil || indentOf(written) >= 4 {
			break
		}
		// Between the tags only punctuation and blanks: "#a, #b", "- #a".
		at := 0
		for _, f := range tags {
			if !noWords(line[at:f.at]) {
				return out
			}
			at = f.end
		}
		if !noWords(line[at:]) {
			break
		}
		for _, f := range tags {
			out = append(out, f.tag)
		}
	}
	return out
}
