package ingest

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/nova-recall/nova/redact"
)

// isHTMLNote reports whether a markdown source's file at path is an HTML
// note (.html or .htm, as Apple Notes exporters and Google Takeout write
// notes), which is read as its text (htmlNoteText), not as its markup.
func isHTMLNote(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".html", ".htm":
		return true
	}
	return false
}

// htmlBlocks are the elements that end a line of text before and after
// them; the rest (b, i, span, a) run on in the line.
var htmlBlocks = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true, "br": true, "dd": true, "div": true,
	"dl": true, "dt": true, "figcaption": true, "figure": true, "footer": true, "form": true, "header": true,
	"hr": true, "li": true, "main": true, "nav": true, "ol": true, "p": true, "pre": true, "section": true,
	"table": true, "td": true, "th": true, "tr": true, "ul": true,
}

// htmlAttrTags are the elements whose attributes htmlNoteText reads:
// a class that marks an exporter's title, heading, label, checkbox or
// properties, an input's checkbox, an image's alt text, a meta's value.
var htmlAttrTags = map[string]bool{"article": true, "div": true, "span": true, "table": true, "input": true, "img": true, "meta": true, "en-todo": true}

// evernoteAttrsColour is the background of the table of a note's
// attributes (created, tags, source) Evernote's HTML export writes under
// its title.
const evernoteAttrsColour = "#D4DDE5"

// htmlHeadTags are the elements a head holds; any other ends a head left
// open.
var htmlHeadTags = map[string]bool{"head": true, "title": true, "meta": true, "link": true, "base": true, "style": true, "script": true, "noscript": true, "template": true}

// htmlHidden are the elements whose content is no words of the note:
// the head (its title is the note's, see htmlExport), styles, scripts
// and drawings (an svg's words are an icon's tooltip).
var htmlHidden = map[string]bool{"head": true, "script": true, "style": true, "noscript": true, "template": true, "svg": true}

// htmlNoteText is the text of an HTML note as Markdown the note reader
// reads: a heading (h1 to h6) a "#" heading line, so that it opens a
// section; a list item a "- " line; a checkbox (an input, ENML's
// en-todo, Notion's checkbox div, Keep's ☐ and ☑ bullets) a task list's
// "[ ] " or "[x] "; a table a Markdown table (its first row the header);
// every other block its own line, a line of dashes parted from the one
// above by a blank line (a divider, no setext underline); a pre a fenced
// code block, its lines' indentation kept; an image its alt text; the
// white space of a line collapsed as a browser shows it; entities as
// their characters; no markup, and nothing of the head, a style or a
// script. What an exporter writes of the note besides its text is its
// front matter (see htmlExport), not its words; the head's title is the
// name the note goes by where no heading names it, in place of its
// file's.
func htmlNoteText(body []byte) ([]byte, frontMatter, string) {
	z := html.NewTokenizer(bytes.NewReader(body))
	w := htmlNote{preStart: -1}
	for {
		switch tt := z.Next(); tt {
		case html.ErrorToken:
			if words := w.ex.unfinished(); words != "" {
				// An element read apart and never closed (a file cut
				// short): its words are the note's, not lost.
				w.space()
				w.line.WriteString(words)
			}
			if w.tb.tables > 0 {
				w.endTable() // a table left open at the end
			}
			w.flush()
			if w.preStart >= 0 {
				w.endPre() // a pre left open at the end
			}
			return w.out.Bytes(), w.ex.frontMatter(), strings.Join(strings.Fields(w.ex.title), " ")
		case html.TextToken:
			w.text(string(z.Text()))
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			w.tag(z, tt)
		}
	}
}

// htmlNote is htmlNoteText's state: the Markdown written (out) and the
// line being written (line), how deep it is in hidden elements (hidden)
// and in pre elements (pre, the outer one's lines beginning at preStart
// in out, -1 for none), what the exporter wrote of the note (ex), whether
// it is in the head's <title> (inTitle), in the head (inHead) or in an
// svg (svg, how deep), and whether the body has begun (inBody).
type htmlNote struct {
	out         bytes.Buffer
	line        strings.Builder
	hidden, pre int
	preStart    int
	// firstLineEnd is where the first line of out ends (after its line
	// break), 0 until one is written (see titleAlone).
	firstLineEnd    int
	ex              htmlExport
	inTitle, inBody bool
	inHead          bool
	svg             int
	// tb is the table it is in. A table is written as Markdown's, one row
	// a line, so that redaction knows a cell under a "Password" header,
	// or beside a "DB_PASSWORD" cell, as it does in a Markdown note; a
	// cell a line, a password was a word alone on its line.
	tb htmlTable
	// boxEnd: the end tag of Notion's checkbox div is no line's end.
	boxEnd bool
}

// bare reports whether the line is only a mark (a list item's, a
// checkbox's, a heading's) that the words of a block inside it go on
// (Notion's <li><div class="checkbox">, <h1><div>): alone it is no line.
func (w *htmlNote) bare() bool {
	s := w.line.String()
	for _, mark := range []string{"- [ ] ", "- [x] ", "- ", "[ ] ", "[x] "} {
		if s == mark {
			return true
		}
	}
	return strings.Trim(s, "#") == " " && len(s) <= 7
}

// flush ends the line: written to out unless it has no words; a line of
// code as it is.
func (w *htmlNote) flush() {
	if w.pre > 0 && w.preStart >= 0 {
		// A line of code keeps its indentation.
		if s := strings.TrimRight(w.line.String(), " \t\r"); strings.TrimSpace(s) != "" {
			w.out.WriteString(s)
			w.out.WriteByte('\n')
		}
		w.line.Reset()
		return
	}
	if w.bare() {
		w.line.Reset()
		return
	}
	if s := strings.TrimSpace(w.line.String()); s != "" {
		if strings.Trim(s, "-= \t") == "" && w.out.Len() > 0 && !bytes.HasSuffix(w.out.Bytes(), []byte("\n\n")) {
			// A divider of dashes typed in the note is no setext
			// underline of the line above: a blank line parts them.
			w.out.WriteByte('\n')
		}
		w.out.WriteString(s)
		w.out.WriteByte('\n')
	}
	w.line.Reset()
}

// endPre fences the lines of the pre that ends, as a Markdown note's
// code block, so that a line of code that reads like a heading ("#
// install deps") or a setext underline is code; the fence is longer than
// any run of backticks in the code.
func (w *htmlNote) endPre() {
	if w.preStart < w.firstLineEnd {
		w.firstLineEnd = 0 // the first line is the code's, rewritten
	}
	code := string(w.out.Bytes()[w.preStart:])
	w.out.Truncate(w.preStart)
	w.preStart = -1
	if strings.TrimSpace(code) == "" {
		return
	}
	fence := strings.Repeat("`", max(3, longestRun(code, '`')+1))
	w.out.WriteString(fence + "\n" + code + fence + "\n")
}

// longestRun is the length of the longest run of c in s. One pass: a
// fence lengthened until the code held no run as long took a pass per
// backtick of the longest run (64 KiB of backticks in a pre: 1.7 s).
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return longest
}

// titleAlone reports whether the text written is one line, a heading's.
// Where the first line ends is found once: a count of the lines written
// at every table made a note of many tables quadratic (64 Ki empty tables
// after an Evernote note's title: 1 s).
func (w *htmlNote) titleAlone() bool {
	b := w.out.Bytes()
	if w.firstLineEnd == 0 {
		w.firstLineEnd = bytes.IndexByte(b, '\n') + 1
	}
	return w.firstLineEnd == len(b) && len(b) > 0 && bytes.HasPrefix(b, []byte("# "))
}

// space writes a blank between words, one where the line has one.
func (w *htmlNote) space() {
	if s := w.line.String(); s != "" && !strings.HasSuffix(s, " ") {
		w.line.WriteByte(' ')
	}
}

// box writes a checkbox, a task list's mark, at the start of a line
// or after its list item's.
func (w *htmlNote) box(checked bool) {
	mark := "[ ] "
	if checked {
		mark = "[x] "
	}
	switch s := w.line.String(); {
	case s == "- ":
		w.line.WriteString(mark)
	case strings.TrimSpace(s) == "":
		w.line.Reset()
		w.line.WriteString("- " + mark)
	default:
		w.space()
		w.line.WriteString(mark)
	}
}

// endRow ends a table's row. The first is underlined as the table's
// header, unless it names a secret and gives it (redact.NameValueRow)
// with no header cell: made a header, its value would be read as a
// column's name, not as the secret beside it.
func (w *htmlNote) endRow() {
	if w.tb.cells < 0 {
		return
	}
	w.line.WriteString(" |")
	row := strings.TrimSpace(w.line.String())
	w.flush()
	if w.tb.rows++; w.tb.rows == 1 && (w.tb.th || !redact.NameValueRow(row)) {
		w.out.WriteString("|" + strings.Repeat(" --- |", max(w.tb.cells, 1)) + "\n")
	}
	w.tb.cells, w.tb.th = -1, false
}

// endTable ends a table with a blank line: the next one's header is its
// own.
func (w *htmlNote) endTable() {
	w.endRow()
	w.flush()
	if w.tb.rows > 0 {
		w.out.WriteByte('\n')
	}
}

// startCell opens a cell, and its row when none is open.
func (w *htmlNote) startCell(th bool) {
	if w.tb.cells <= 0 {
		if w.tb.cells < 0 {
			w.flush() // a cell without its row's tag
		}
		w.tb.cells = 0
		w.line.WriteString("| ")
	} else {
		w.line.WriteString(" | ")
	}
	w.tb.cells++
	w.tb.th = w.tb.th || th
}

// inCell reports whether a block here is a space of a cell's line, not
// a line.
func (w *htmlNote) inCell() bool { return w.tb.tables > 0 && w.tb.cells > 0 }

// endHead ends a head left open: what follows is the body's.
func (w *htmlNote) endHead() {
	w.inHead, w.inBody = false, true
	if w.hidden > 0 {
		w.hidden--
	}
}

// text writes a text token's words, raw as the tokenizer unescaped them.
func (w *htmlNote) text(raw string) {
	if w.inTitle {
		w.ex.title += raw
		return
	}
	if w.inHead && w.hidden == 1 && strings.TrimSpace(raw) != "" {
		w.endHead() // words a browser shows: the body's
	}
	if w.hidden > 0 {
		return
	}
	text := strings.ReplaceAll(raw, "\u00a0", " ")
	if w.ex.capturing() {
		w.ex.text(text)
		return
	}
	if w.bare() && strings.HasPrefix(w.line.String(), "- ") {
		// Keep's checklist: a ☐ or ☑ bullet opens the item.
		if t := strings.TrimLeft(text, " \t\r\n"); strings.HasPrefix(t, "☐") || strings.HasPrefix(t, "☑") || strings.HasPrefix(t, "☒") {
			r, size := utf8.DecodeRuneInString(t)
			w.line.Reset()
			w.box(r != '☐')
			text = t[size:]
		}
	}
	if w.tb.tables > 0 {
		if w.tb.cells <= 0 {
			// Between rows and cells: white space, or words a
			// browser shows as a line of their own (a caption).
			if words := strings.Join(strings.Fields(text), " "); words != "" {
				w.line.WriteString(words)
				w.flush()
			}
			return
		}
		// A '|' of a cell's words does not end the cell.
		text = strings.ReplaceAll(text, "|", `\|`)
	}
	if w.pre > 0 && !w.inCell() {
		for i, part := range strings.Split(text, "\n") {
			if i > 0 {
				w.flush()
			}
			w.line.WriteString(part)
		}
		return
	}
	// A run of white space is one space, as a browser shows it.
	if f := strings.Fields(text); len(f) > 0 {
		if text[0] == ' ' || text[0] == '\t' || text[0] == '\n' || text[0] == '\r' {
			w.space()
		}
		w.line.WriteString(strings.Join(f, " "))
		if last := text[len(text)-1]; last == ' ' || last == '\t' || last == '\n' || last == '\r' {
			w.line.WriteByte(' ')
		}
	} else if text != "" {
		w.space()
	}
}

// tag writes what a tag means to the note's text: the tag of kind tt
// that z has just read.
func (w *htmlNote) tag(z *html.Tokenizer, tt html.TokenType) {
	name, hasAttr := z.TagName()
	tag := string(name)
	start := tt != html.EndTagToken
	var attrs map[string]string
	if hasAttr && start && htmlAttrTags[tag] {
		attrs = make(map[string]string, 4)
		for more := true; more; {
			var k, v []byte
			k, v, more = z.TagAttr()
			// Only those read: an image's src may be megabytes
			// of base64 (Apple Notes exporters inline them).
			switch key := string(k); key {
			case "class", "type", "checked", "alt", "name", "content", "bgcolor":
				attrs[key] = string(v)
			}
		}
	}
	switch {
	case tag == "body":
		// The head ends where the body starts, closed or not.
		w.hidden, w.inBody, w.inHead = 0, true, false
	case tag == "head":
		w.inHead = tt == html.StartTagToken
	case tag == "svg" && tt == html.StartTagToken:
		w.svg++
	case tag == "svg" && tt == html.EndTagToken && w.svg > 0:
		w.svg--
	case w.inHead && w.hidden == 1 && start && !htmlHeadTags[tag]:
		// A tag of the body ends a head left open (both </head> and
		// <body> may be left out), as a browser reads it: the whole
		// note was hidden.
		w.endHead()
	}
	if tag == "title" {
		// The head's title, the note's whole (a file's name may
		// not hold its "/" or ":"); not an svg's, which is an icon's
		// tooltip, with or without a body tag before it.
		w.inTitle = tt == html.StartTagToken && !w.inBody && w.svg == 0 && w.ex.title == ""
		return
	}
	if htmlHidden[tag] {
		if tt == html.StartTagToken {
			w.hidden++
		} else if tt == html.EndTagToken && w.hidden > 0 {
			w.hidden--
		}
		return
	}
	if tag == "meta" {
		w.ex.meta(attrs["name"], attrs["content"])
		return
	}
	if w.hidden > 0 {
		return
	}
	if w.ex.capturing() {
		w.ex.tag(tag, tt, attrs)
		if row, ok := w.ex.row(); ok {
			w.line.WriteString(row)
			w.flush()
		}
		return
	}
	// Evernote's attributes table follows the note's title alone, in
	// Evernote's colour: a table of the user's own there (a service and
	// its password) is the note's text, its header and every column kept
	// for redaction to read.
	attrsTable := tag == "table" && w.ex.evernote && strings.EqualFold(attrs["bgcolor"], evernoteAttrsColour) &&
		strings.TrimSpace(w.line.String()) == "" && w.titleAlone()
	if w.tb.tables == 0 && w.ex.starts(tag, tt, attrs, attrsTable) {
		if w.ex.capture != captureLabel {
			w.flush() // a block of its own, no words of the line
		}
		return
	}
	switch {
	case tag == "img" && strings.TrimSpace(attrs["alt"]) != "":
		// An image is its alt text, as a Markdown note's ![alt](...).
		w.space()
		w.line.WriteString(strings.Join(strings.Fields(attrs["alt"]), " ") + " ")
		return
	case tag == "input" && strings.EqualFold(attrs["type"], "checkbox"):
		_, checked := attrs["checked"]
		w.box(checked)
		return
	case tag == "en-todo" && start:
		// Evernote's own markup of a to-do (ENML), checked="true".
		w.box(strings.EqualFold(attrs["checked"], "true"))
		return
	case tag == "div" && start && (hasClass(attrs["class"], "checkbox-on") || hasClass(attrs["class"], "checkbox-off")):
		// Notion's to-do box: an empty div, no line of its own.
		w.box(hasClass(attrs["class"], "checkbox-on"))
		if tt == html.StartTagToken {
			w.boxEnd = true
		}
		return
	case tag == "div" && tt == html.EndTagToken && w.boxEnd:
		w.boxEnd = false
		return
	case tag == "div" && tt == html.StartTagToken && w.tb.tables == 0 && (w.ex.keep && hasClass(attrs["class"], "title") || hasClass(attrs["class"], "exported-note-title")):
		// Keep's (and Joplin's) title: the note's heading.
		w.flush()
		w.line.WriteString("# ")
		return
	}
	if tag == "div" {
		w.boxEnd = false
	}
	if w.tb.tables > 0 || tag == "table" {
		if w.tableTag(tag, tt) {
			return
		}
		if w.inCell() {
			if (htmlBlocks[tag] || tag[0] == 'h' && len(tag) == 2) && !strings.HasSuffix(w.line.String(), " ") {
				w.line.WriteByte(' ')
			}
			return
		}
	}
	switch {
	case len(tag) == 2 && tag[0] == 'h' && tag[1] >= '1' && tag[1] <= '6':
		w.flush()
		if start {
			w.line.WriteString(strings.Repeat("#", int(tag[1]-'0')) + " ")
		}
	case tag == "li":
		w.flush()
		if start {
			w.line.WriteString("- ")
		}
	case htmlBlocks[tag]:
		if start && w.bare() && tag != "br" && tag != "pre" {
			return // the item's words go on in it; a pre's lines are code, fenced
		}
		w.flush()
		if tag == "pre" && tt == html.StartTagToken {
			if w.pre++; w.pre == 1 {
				w.preStart = w.out.Len()
			}
		} else if tag == "pre" && tt == html.EndTagToken && w.pre > 0 {
			if w.pre--; w.pre == 0 && w.preStart >= 0 {
				w.endPre()
			}
		}
	}
}

// htmlTable is where htmlNoteText is in a table: tables counts the
// tables open (a table in a cell is the cell's words), rows the outer
// table's rows written, cells the current row's cells (-1: no row
// open), and th whether one of them is a header cell.
type htmlTable struct {
	tables, rows, cells int
	th                  bool
}

// tableTag handles a tag of a table (tag is "table" or one inside a
// table) and reports whether it was the table's own (table, tr, td, th).
// A row or a cell whose end tag HTML lets out (<tr><td>a<td>b<tr>...)
// ends where the next starts.
func (w *htmlNote) tableTag(tag string, tt html.TokenType) bool {
	start := tt == html.StartTagToken
	switch tag {
	case "table":
		switch {
		case start && w.tb.tables == 0:
			w.flush()
			w.tb = htmlTable{tables: 1, cells: -1}
		case start:
			w.tb.tables++
		case tt == html.EndTagToken && w.tb.tables == 1:
			w.endTable()
			w.tb.tables = 0
		case tt == html.EndTagToken && w.tb.tables > 1:
			w.tb.tables--
		}
		return true
	case "tr", "td", "th":
		if w.tb.tables > 1 {
			return false // a table in a cell: its words run on in the cell
		}
		switch {
		case tag == "tr" && start:
			w.endRow()
			w.flush()
			w.tb.cells = 0
		case tag == "tr" && tt == html.EndTagToken:
			w.endRow()
		case start:
			w.startCell(tag == "th")
		}
		return true
	}
	return false
}

// isKeepNote reports whether a div's class is a Keep note's: "note" and
// the note's colour in capitals ("note DEFAULT", "note BLUE"). Other
// pages' "note" boxes (a docs page's "admonition note") are not.
func isKeepNote(classes string) bool {
	f := strings.Fields(classes)
	return len(f) == 2 && f[0] == "note" && strings.ToUpper(f[1]) == f[1] && strings.ToLower(f[1]) != f[1]
}

// hasClass reports whether an element's class attribute lists name.
func hasClass(classes, name string) bool {
	return slices.Contains(strings.Fields(classes), name)
}

// htmlCapture is an element whose words htmlNoteText reads apart from
// the note's text (see htmlExport.starts).
type htmlCapture int

const (
	captureNone    htmlCapture = iota
	captureHeading             // Keep's heading: the time the note was edited
	captureLabel               // Keep's label chip: a tag
	captureProps               // Notion's table of a page's properties
)

// htmlExport is what htmlNoteText reads of a note besides its text, as
// exporters write it: Evernote's meta elements (created, updated,
// keywords), Google Keep's heading (the note's time) and labels, and
// the properties table of a page of Notion's, and the head's title.
// The zero value reads none.
type htmlExport struct {
	title                      string
	created, updated, keywords string
	// evernote: Evernote exported the note; keep: it is a Keep note's;
	// notion: a Notion page's.
	evernote, keep, notion bool
	labels                 []any
	// fm is what Notion's properties set (setNotionProperty).
	fm frontMatter

	// The element being read apart: its kind, its tag, how deep in
	// itself, its words.
	capture htmlCapture
	capTag  string
	depth   int
	buf     strings.Builder
	// In a table of properties: the row's name (its first cell) and
	// value (its second), its cells so far, which is open ("name",
	// "value", "" for another), and the row read, a line of the text.
	name, value strings.Builder
	cells       int
	cell        string
	line        string
}

// meta reads a meta element of the head: Evernote writes the note's
// times and tags there.
func (ex *htmlExport) meta(name, content string) {
	switch strings.ToLower(name) {
	case "created":
		ex.created = content
	case "updated":
		ex.updated = content
	case "keywords":
		ex.keywords = content
	case "exporter-version":
		ex.evernote = strings.Contains(content, "Evernote")
	}
}

// capturing reports whether an element's words are being read apart.
func (ex *htmlExport) capturing() bool { return ex.capture != captureNone }

// starts reports whether the tag opens an element whose words are read
// apart (Keep's heading and labels, Notion's properties, and Evernote's
// attributes when attrsTable says the table is where Evernote writes
// them), and begins to.
func (ex *htmlExport) starts(tag string, tt html.TokenType, attrs map[string]string, attrsTable bool) bool {
	if tt != html.StartTagToken {
		return false
	}
	class := attrs["class"]
	switch {
	case tag == "div" && isKeepNote(class):
		// Keep's note: its heading, title and labels are read as Keep's.
		ex.keep = true
		return false
	case tag == "div" && ex.keep && hasClass(class, "heading"):
		ex.capture = captureHeading
	case tag == "span" && ex.keep && hasClass(class, "label-name"):
		ex.capture = captureLabel
	case tag == "article" && hasClass(class, "page"):
		// Notion's page: its properties table is read as Notion's.
		ex.notion = true
		return false
	case tag == "table" && (ex.notion && hasClass(class, "properties") || attrsTable):
		ex.capture = captureProps
	default:
		return false
	}
	ex.capTag, ex.depth = tag, 1
	ex.buf.Reset()
	return true
}

// text reads words of the element read apart.
func (ex *htmlExport) text(s string) {
	switch {
	case ex.capture != captureProps:
		ex.buf.WriteString(s)
	case ex.cell == "name":
		ex.name.WriteString(s)
	case ex.cell == "value":
		ex.value.WriteString(s)
	}
}

// tag reads a tag of the element read apart, and ends it at its end.
func (ex *htmlExport) tag(tag string, tt html.TokenType, attrs map[string]string) {
	if ex.capture != captureProps && htmlBlocks[tag] {
		ex.buf.WriteByte(' ') // a block in it parts its words
	}
	if ex.capture == captureProps {
		switch {
		case (tag == "th" || tag == "td") && tt == html.StartTagToken:
			ex.cells++
			switch ex.cells {
			case 1:
				ex.cell = "name"
			case 2:
				ex.cell = "value"
			default:
				ex.cell = ""
			}
		case tag == "th" || tag == "td":
			ex.cell = ""
		case tag == "span" && tt == html.StartTagToken && hasClass(attrs["class"], "selected-value") &&
			ex.cell == "value" && strings.TrimSpace(ex.value.String()) != "":
			// A multi-select's values, as the Markdown export lists them.
			ex.value.WriteString(", ")
		case tag == "div" && tt != html.EndTagToken && ex.cell == "value" &&
			(hasClass(attrs["class"], "checkbox-on") || hasClass(attrs["class"], "checkbox-off")):
			// A checkbox property, as the Markdown export writes it.
			if hasClass(attrs["class"], "checkbox-on") {
				ex.value.WriteString("Yes")
			} else {
				ex.value.WriteString("No")
			}
		case tag == "tr":
			ex.endRow() // a row's end, or the next's start when HTML lets it out
		}
	}
	if tag != ex.capTag || tt == html.SelfClosingTagToken {
		return
	}
	if tt == html.StartTagToken {
		ex.depth++
		return
	}
	if ex.depth--; ex.depth > 0 {
		return
	}
	words := strings.Join(strings.Fields(strings.ReplaceAll(ex.buf.String(), "\u202f", " ")), " ")
	switch ex.capture {
	case captureHeading:
		if t := keepTime(words); t != "" {
			ex.updated = t
		} else {
			ex.line = words // another page's heading: its words
		}
	case captureLabel:
		if words != "" {
			ex.labels = append(ex.labels, words)
		}
	case captureProps:
		ex.endRow()
	}
	ex.capture, ex.capTag, ex.cell = captureNone, "", ""
}

// endRow ends a row of a table of properties (Notion's, Evernote's): a
// "Name: value" line of the text, as Notion's Markdown export writes
// one, and what it tells of the note.
func (ex *htmlExport) endRow() {
	// Evernote's names end with a colon ("Created:").
	name := strings.TrimSuffix(strings.Join(strings.Fields(ex.name.String()), " "), ":")
	// A date is written "@March 5, 2024", as Notion mentions one.
	value := strings.TrimPrefix(strings.Join(strings.Fields(ex.value.String()), " "), "@")
	ex.name.Reset()
	ex.value.Reset()
	ex.cells, ex.cell = 0, ""
	if name == "" {
		return
	}
	setNotionProperty(&ex.fm, name, value)
	ex.line = name + ": " + value
}

// unfinished ends the element read apart where the note ends without its
// end tag, and returns its words as text: a Keep heading's or label's, or
// the row of properties begun.
func (ex *htmlExport) unfinished() string {
	var words string
	switch ex.capture {
	case captureNone:
		return ""
	case captureProps:
		ex.endRow()
		words, _ = ex.row()
	default:
		words = strings.Join(strings.Fields(ex.buf.String()), " ")
	}
	ex.capture, ex.capTag, ex.cell = captureNone, "", ""
	return words
}

// row returns, once, the line the element read apart ended with.
func (ex *htmlExport) row() (string, bool) {
	s := ex.line
	ex.line = ""
	return s, s != ""
}

// frontMatter is what the note's exporter wrote of it besides its text.
func (ex *htmlExport) frontMatter() frontMatter {
	fm := ex.fm
	if ex.created != "" {
		fm.Created = ex.created
	}
	if ex.updated != "" {
		fm.Updated = ex.updated
	}
	if len(ex.labels) > 0 {
		fm.Tags = ex.labels
	}
	if ex.evernote && ex.keywords != "" {
		var tags []any
		for t := range strings.SplitSeq(ex.keywords, ",") {
			if t = strings.TrimSpace(t); t != "" {
				tags = append(tags, t)
			}
		}
		fm.Tags = tags
	}
	return fm
}

// keepTime is the time Google Keep's heading states ("Jan 5, 2024,
// 10:22:13 AM", as Takeout writes it in English) in the form parseDate
// reads, a wall-clock time; "" for words of another form.
func keepTime(s string) string {
	for _, layout := range []string{"Jan 2, 2006, 3:04:05 PM", "January 2, 2006, 3:04:05 PM", "Jan 2, 2006, 3:04 PM", "2 Jan 2006, 15:04:05", "2 January 2006, 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Format("2006-01-02 15:04:05")
		}
	}
	return ""
}
