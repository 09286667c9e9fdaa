package ingest

import (
	"bytes"
	"path/filepath"
	"strings"

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

// htmlHidden are the elements whose content is no words of the note:
// the head (its title is the file's name), styles and scripts.
var htmlHidden = map[string]bool{"head": true, "script": true, "style": true, "noscript": true, "template": true}

// htmlNoteText is the text of an HTML note as Markdown the note reader
// reads: a heading (h1 to h6) a "#" heading line, so that it opens a
// section; a list item a "- " line; a table a Markdown table (its first
// row the header); every other block its own line; the white space of a
// line collapsed as a browser shows it (a pre's kept); entities as their
// characters; no markup, and nothing of the head, a style or a script.
func htmlNoteText(body []byte) []byte {
	z := html.NewTokenizer(bytes.NewReader(body))
	var out strings.Builder
	var line strings.Builder
	hidden, pre := 0, 0
	flush := func() {
		if s := strings.TrimSpace(line.String()); s != "" {
			out.WriteString(s)
			out.WriteByte('\n')
		}
		line.Reset()
	}
	// A table is written as Markdown's, one row a line, so that
	// redaction knows a cell under a "Password" header, or beside a
	// "DB_PASSWORD" cell, as it does in a Markdown note; a cell a line,
	// a password was a word alone on its line.
	var tb htmlTable
	endRow := func() {
		if tb.cells < 0 {
			return
		}
		line.WriteString(" |")
		row := strings.TrimSpace(line.String())
		flush()
		if tb.rows++; tb.rows == 1 && (tb.th || !redact.NameValueRow(row)) {
			out.WriteString("|" + strings.Repeat(" --- |", max(tb.cells, 1)) + "\n")
		}
		tb.cells, tb.th = -1, false
	}
	// A blank line ends a table: the next one's header is its own.
	endTable := func() {
		endRow()
		flush()
		if tb.rows > 0 {
			out.WriteByte('\n')
		}
	}
	startCell := func(th bool) {
		if tb.cells <= 0 {
			if tb.cells < 0 {
				flush() // a cell without its row's tag
			}
			tb.cells = 0
			line.WriteString("| ")
		} else {
			line.WriteString(" | ")
		}
		tb.cells++
		tb.th = tb.th || th
	}
	// inCell: a block in a cell is a space of its line, not a line.
	inCell := func() bool { return tb.tables > 0 && tb.cells > 0 }
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if tb.tables > 0 {
				endTable() // a table left open at the end
			}
			flush()
			return []byte(out.String())
		case html.TextToken:
			if hidden > 0 {
				continue
			}
			text := strings.ReplaceAll(string(z.Text()), "\u00a0", " ")
			if tb.tables > 0 {
				if tb.cells <= 0 {
					// Between rows and cells: white space, or words a
					// browser shows as a line of their own (a caption).
					if w := strings.Join(strings.Fields(text), " "); w != "" {
						line.WriteString(w)
						flush()
					}
					continue
				}
				// A '|' of a cell's words does not end the cell.
				text = strings.ReplaceAll(text, "|", `\|`)
			}
			if pre > 0 && !inCell() {
				for i, part := range strings.Split(text, "\n") {
					if i > 0 {
						flush()
					}
					line.WriteString(part)
				}
				continue
			}
			// A run of white space is one space, as a browser shows it.
			if f := strings.Fields(text); len(f) > 0 {
				if text[0] == ' ' || text[0] == '\t' || text[0] == '\n' || text[0] == '\r' {
					line.WriteByte(' ')
				}
				line.WriteString(strings.Join(f, " "))
				if last := text[len(text)-1]; last == ' ' || last == '\t' || last == '\n' || last == '\r' {
					line.WriteByte(' ')
				}
			} else if text != "" {
				line.WriteByte(' ')
			}
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			tag := string(name)
			start := tt != html.EndTagToken
			if tag == "body" {
				// The head ends where the body starts, closed or not.
				hidden = 0
			}
			if htmlHidden[tag] {
				if tt == html.StartTagToken {
					hidden++
				} else if tt == html.EndTagToken && hidden > 0 {
					hidden--
				}
				continue
			}
			if hidden > 0 {
				continue
			}
			if tb.tables > 0 || tag == "table" {
				if tb.tag(tag, tt, flush, endRow, endTable, startCell) {
					continue
				}
				if inCell() {
					if (htmlBlocks[tag] || tag[0] == 'h' && len(tag) == 2) && !strings.HasSuffix(line.String(), " ") {
						line.WriteByte(' ')
					}
					continue
				}
			}
			switch {
			case len(tag) == 2 && tag[0] == 'h' && tag[1] >= '1' && tag[1] <= '6':
				flush()
				if start {
					line.WriteString(strings.Repeat("#", int(tag[1]-'0')) + " ")
				}
			case tag == "li":
				flush()
				if start {
					line.WriteString("- ")
				}
			case htmlBlocks[tag]:
				flush()
				if tag == "pre" && tt == html.StartTagToken {
					pre++
				} else if tag == "pre" && tt == html.EndTagToken && pre > 0 {
					pre--
				}
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

// tag handles a tag of a table being read by htmlNoteText (tag is
// "table" or one inside a table) and reports whether it was the table's
// own (table, tr, td, th). A row or a cell whose end tag HTML lets out
// (<tr><td>a<td>b<tr>...) ends where the next starts.
func (tb *htmlTable) tag(tag string, tt html.TokenType, flush, endRow, endTable func(), startCell func(th bool)) bool {
	start := tt == html.StartTagToken
	switch tag {
	case "table":
		switch {
		case start && tb.tables == 0:
			flush()
			*tb = htmlTable{tables: 1, cells: -1}
		case start:
			tb.tables++
		case tt == html.EndTagToken && tb.tables == 1:
			endTable()
			tb.tables = 0
		case tt == html.EndTagToken && tb.tables > 1:
			tb.tables--
		}
		return true
	case "tr", "td", "th":
		if tb.tables > 1 {
			return false // a table in a cell: its words run on in the cell
		}
		switch {
		case tag == "tr" && start:
			endRow()
			flush()
			tb.cells = 0
		case tag == "tr" && tt == html.EndTagToken:
			endRow()
		case start:
			startCell(tag == "th")
		}
		return true
	}
	return false
}
