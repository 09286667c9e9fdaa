package ingest

import (
	"bytes"
	"path/filepath"
	"strings"

	"golang.org/x/net/html"
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
// section; a list item a "- " line; every other block its own line; the
// white space of a line collapsed as a browser shows it (a pre's
// kept); entities as their characters; no markup, and nothing of the
// head, a style or a script.
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
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			flush()
			return []byte(out.String())
		case html.TextToken:
			if hidden > 0 {
				continue
			}
			text := strings.ReplaceAll(string(z.Text()), "\u00a0", " ")
			if pre > 0 {
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
