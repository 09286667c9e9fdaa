package ingest

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// atxText is the text atxHeading or listHeading gives an ATX heading,
// with nothing but its closing sequence left: "### ###" is an empty
// heading, as in CommonMark, where the pattern leaves the "###" it
// finds no blank before.
func atxText(text string) string {
	if strings.Trim(text, "#") == "" {
		return ""
	}
	return text
}

// setextUnderline is a setext heading's underline: "=" for level 1, "-"
// for level 2, indented at most three spaces.
var setextUnderline = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`) })

// setextLevel returns the heading level line underlines, or 0.
func setextLevel(line string) int {
	m := setextUnderline().FindStringSubmatch(line)
	switch {
	case m == nil:
		return 0
	case m[1][0] == '=':
		return 1
	}
	return 2
}

// paragraphEnd returns how many of the last lines form the paragraph a
// setext underline turns into a heading (0: none). As in CommonMark, the
// lines must follow a blank line, a thematic break or the start of lines
// and read as plain text: after a list item, a quote, a table's row (its
// outer pipes left out too) or indented code, "---" is a thematic break
// instead.
func paragraphEnd(lines []string) int {
	n := 0
	brk, listQuote := thematicBreak(), listOrQuote()
	for n < len(lines) {
		line := lines[len(lines)-1-n]
		if strings.TrimSpace(line) == "" || brk.MatchString(line) {
			break
		}
		// A list item or a quote ends the paragraph before it, and takes
		// the lines after it as its own.
		if listQuote.MatchString(line) {
			return 0
		}
		n++
	}
	if n == 0 {
		return 0
	}
	first := lines[len(lines)-n]
	if strings.HasPrefix(first, "    ") || strings.HasPrefix(first, "\t") || tableRow().MatchString(first) || htmlStart(first) {
		return 0
	}
	// A table without its outer pipes ("a | b" over "--- | ---", as
	// GFM allows) runs to the underline, which follows its rows, not a
	// paragraph: "---" ends it, "===" is a row.
	delim := tableDelimiter()
	for k := len(lines) - n + 1; k < len(lines); k++ {
		if strings.IndexByte(lines[k], '|') >= 0 && delim.MatchString(lines[k]) && strings.IndexByte(lines[k-1], '|') >= 0 {
			return 0
		}
	}
	return n
}

// htmlStart reports whether line opens an HTML block (htmlBlockStart),
// a comment (<!--) included, which is no paragraph text. Inline HTML a
// paragraph begins with ("<kbd>Ctrl</kbd> shortcuts") opens none.
func htmlStart(line string) bool {
	t := strings.TrimLeft(line, " ")
	return len(line)-len(t) <= 3 && strings.HasPrefix(t, "<") &&
		(strings.HasPrefix(t, "<!--") || htmlBlockStart(line, false) != 0)
}

var (
	// tableRow starts a table's row, which is no paragraph text.
	tableRow = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}\|`) })
	// tableDelimiter is a GFM table's delimiter row ("--- | :---:"),
	// which holds a pipe besides (a one-column table's "--- |").
	tableDelimiter = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$`)
	})
	// listOrQuote starts a list item or a quote.
	listOrQuote = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}(?:[-*+] |\d{1,9}[.)] |>)`) })
	// thematicBreak is a line of three or more "-", "*" or "_", spaces
	// between them allowed.
	thematicBreak = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)
	})
)

// codeFence returns the fence that begins line, as CommonMark reads one:
// the whole run of three or more backticks or tildes, so that only a run
// as long, alone on its line, closes it ("````" around an example's
// "```" lines). A run of backticks with another backtick after it on the
// line is inline code (```npm ci```), not a fence: "".
func codeFence(line string) string {
	fence := fenceMarker(line)
	if fence == "" {
		return ""
	}
	fence = line[:len(line)-len(strings.TrimLeft(line, fence[:1]))]
	if fence[0] == '`' && strings.Contains(line[len(fence):], "`") {
		return ""
	}
	return fence
}

// fences follows a note's fenced code blocks line by line. The zero
// value is outside any block.
type fences struct {
	open  string
	items listItems
}

// line reports whether line is code, a fence or a line in a block, and
// notes where blocks open and close: only a fence of the same character,
// as long or longer and alone on its line, closes one. As in CommonMark,
// a fence is indented three columns at most past the list item it is in
// (listItems): one indented four is an indented code block's line, or a
// paragraph's.
func (f *fences) line(line string) bool {
	indent := indentOf(line)
	base := f.items.base(indent)
	trimmed := strings.TrimSpace(line)
	item := false
	if f.open == "" {
		// A block may open on a list item's line ("- ```sh", as Logseq
		// writes every code block), however deep (see listItems).
		if mark := f.items.line(line, indent); mark != "" {
			trimmed, item = strings.TrimSpace(strings.TrimLeft(line, " \t")[len(mark):]), true
		}
	}
	if indent-base > 3 && !item {
		return f.open != ""
	}
	fence := codeFence(trimmed)
	switch {
	case fence == "":
		return f.open != ""
	case f.open == "":
		f.open = fence
	case fence[0] == f.open[0] && len(fence) >= len(f.open) && fence == trimmed:
		f.open = ""
	}
	return true
}

// indented reports whether line, which line found no fenced block's,
// is an indented code block's where no paragraph goes on into it, as in
// CommonMark: indented four columns or more past the list item it is in
// (a list item's line is none, see listItems).
func (f *fences) indented(line string) bool {
	if line == "" || line[0] != ' ' && line[0] != '\t' {
		return false // the common line, left without a count of its blanks
	}
	indent := indentOf(line)
	t := strings.TrimLeft(line, " \t")
	return t != "" && indent-f.items.base(indent) >= 4 && !(mayBeListItem(t) && listItemMark().MatchString(t))
}

// listItems follows the list items a note's lines are in, for the
// column blocks in one are indented from (CommonMark's 5.2 List items:
// that of the item's content). Only as far as fences and indented code
// need it: a line indented less than an item's content after a blank
// line is out of it, a line without a blank before it (a lazy one) is
// in; a list item's line is taken for one however deep it is indented,
// as Logseq nests its blocks by tabs (a section's lines are read without
// the items its heading is in). The zero value is in no list.
type listItems struct {
	cols  []int // the content columns of the items open, the innermost last
	blank bool  // the line before was blank
}

// base returns the column a line indented indent is indented from: the
// content column of the innermost item open that it reaches, else 0.
func (l *listItems) base(indent int) int {
	for k := len(l.cols) - 1; k >= 0; k-- {
		if l.cols[k] <= indent {
			return l.cols[k]
		}
	}
	return 0
}

// line notes the items line (indented indent) opens or closes, and
// returns the list item's mark it begins with (listItemMark), or "".
func (l *listItems) line(line string, indent int) string {
	t := strings.TrimLeft(line, " \t")
	if t == "" {
		l.blank = true
		return ""
	}
	mark := ""
	if mayBeListItem(t) {
		mark = listItemMark().FindString(t)
	}
	item := mark != ""
	if l.blank || item {
		for len(l.cols) > 0 && l.cols[len(l.cols)-1] > indent {
			l.cols = l.cols[:len(l.cols)-1]
		}
	}
	l.blank = false
	if item {
		width := len(strings.TrimRight(mark, " \t"))
		// The content begins after the blanks past the mark, one to
		// four of them; five or more begin indented code, one column on.
		if blanks := indentOf(mark[width:]); blanks <= 4 && len(t) > len(mark) {
			width += blanks
		} else {
			width++
		}
		l.cols = append(l.cols, indent+width)
	}
	return mark
}

// listItemMark begins a list item's line: "- ", "* ", "+ ", "1. ", "1) ".
var listItemMark = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:[-*+]|\d{1,9}[.)])[ \t]+`) })

// mayBeListItem reports whether line, its blanks left out, begins as a
// list item's mark does (listItemMark, listHeading): the cheap test
// before their patterns, on every line of a note.
func mayBeListItem(line string) bool {
	t := strings.TrimLeft(line, " \t")
	return t != "" && (t[0] == '-' || t[0] == '*' || t[0] == '+' || t[0] >= '0' && t[0] <= '9')
}

// in reports whether the lines so far left a block open.
func (f *fences) in() bool { return f.open != "" }

func fenceMarker(line string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(line, f) {
			return f
		}
	}
	return ""
}

// withoutComments cuts Obsidian's comments (%% ... %%, in a line or
// across lines) out of a note's lines, as Obsidian hides them, before
// the lines are read for headings: a heading in a comment opens no
// section. "%%" in code (a fenced block, a code span) is code (a shell's
// ${f%%.*}, a batch file's %%f), and a "%%" that nothing closes is text.
// hidden marks the lines that held nothing but comment. It cuts them in
// lines itself (out is lines): a note's lines may be millions.
func withoutComments(lines []string) (out []string, hidden []bool) {
	type pos struct{ line, col int }
	var spans [][2]pos
	var open pos
	var code fences
	inComment := false
	for i, line := range lines {
		if !inComment && code.line(line) {
			continue
		}
		for col := 0; col < len(line); {
			switch {
			case inComment:
				j := strings.Index(line[col:], "%%")
				if j < 0 {
					col = len(line)
					break
				}
				col += j + 2
				spans = append(spans, [2]pos{open, {i, col}})
				inComment = false
			case line[col] == '`':
				col = afterCodeSpan(line, col)
			case strings.HasPrefix(line[col:], "%%"):
				open, inComment = pos{i, col}, true
				col += 2
			default:
				col++
			}
		}
	}
	out, hidden = lines, make([]bool, len(lines))
	// From the last span back, so that the columns of those before it on
	// the same line still hold.
	for k := len(spans) - 1; k >= 0; k-- {
		from, to := spans[k][0], spans[k][1]
		for i := from.line; i <= to.line; i++ {
			start, end := 0, len(out[i])
			if i == from.line {
				start = from.col
			}
			if i == to.line {
				end = to.col
			}
			out[i] = strings.TrimRight(out[i][:start]+out[i][end:], " \t")
			hidden[i] = strings.TrimSpace(out[i]) == ""
		}
	}
	return out, hidden
}

// afterCodeSpan returns where the code span that begins at line[at] (a
// run of backticks) ends: after the next run as long, or, when there is
// none, after the run itself, which is then text.
func afterCodeSpan(line string, at int) int {
	n := len(line[at:]) - len(strings.TrimLeft(line[at:], "`"))
	for i := at + n; i < len(line); {
		j := strings.IndexByte(line[i:], '`')
		if j < 0 {
			break
		}
		i += j
		m := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
		if m == n {
			return i + m
		}
		i += m
	}
	return at + n
}

// indentedCode follows a section's lines (outside fenced blocks) for
// CommonMark's indented code blocks: lines indented four columns or more
// after a blank line or the section's start, or after another such line,
// outside a list, where an item's paragraphs are indented as deep. Its
// zero value is after a line of text.
type indentedCode struct {
	blank bool // the line before was blank, or there is none
	in    bool // the line before was indented code
	list  bool // a list item opened, and no text unindented after a blank line closed it
}

// line reports whether line is indented code, and notes what it opens or
// closes.
func (c *indentedCode) line(line string) bool {
	indent := indentOf(line)
	if strings.TrimSpace(line) == "" {
		c.blank = true
		return c.in
	}
	afterBlank := c.blank
	c.blank = false
	if indent >= 4 && !c.list && (afterBlank || c.in) {
		c.in = true
		return true
	}
	c.in = false
	if mayBeListItem(line) && listItemMark().MatchString(strings.TrimLeft(line, " \t")) {
		c.list = true
	} else if indent == 0 && afterBlank {
		c.list = false
	}
	return false
}

// indentOf returns the columns line is indented by, a tab reaching the
// next multiple of four as in CommonMark.
func indentOf(line string) int {
	indent := 0
	for _, r := range line {
		switch r {
		case ' ':
			indent++
		case '\t':
			indent += 4 - indent%4
		default:
			return indent
		}
	}
	return indent
}

// blankLines reports whether lines hold nothing but white space.
func blankLines(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

// noWords reports whether s holds no letter and no digit.
func noWords(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) < 0
}
