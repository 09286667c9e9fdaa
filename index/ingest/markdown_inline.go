package ingest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// cleanNote removes block ids (Obsidian-only syntax; its comments are
// gone before, see withoutComments), Logseq's hidden properties
// (logseqMeta) and block references, the Excalidraw plugin's banner,
// and turns callout markers (calloutText), Logseq's embed macros, wiki
// links and a Notion export's links to its own files (notionLinks) into
// their text, outside code: "[[" in code is code (a
// shell's [[ -f x ]], a Lua string). It returns the #tags of the text
// outside code too, and outside math, HTML comments and, where
// htmlBlocks, HTML blocks (hiddenSpans).
func cleanNote(s string, htmlBlocks bool) (string, []string) {
	var code fences
	indented := indentedCode{blank: true}
	var tags []string
	lines := strings.Split(s, "\n")
	hide := newHiddenSpans(lines, htmlBlocks)
	kept := lines[:0]
	// The patterns a line may need, fetched once per note.
	meta, banner, id, ref, embed := logseqMeta(), excalidrawBanner(), blockID(), blockRef(), logseqEmbed()
	for i, line := range lines {
		if code.line(line) {
			indented = indentedCode{}
			kept = append(kept, line)
			continue
		}
		// A line of indented code is cleaned as text is (it is told
		// apart less surely than a fenced block's), but its #include is
		// no tag.
		inCode := indented.line(line)
		// Each pattern is tried only on a line that holds the text it
		// cannot match without (every logseqMeta line has "::"): running
		// them all on every line made reading a note cost a second a MiB.
		if strings.Contains(line, "::") && meta.MatchString(line) || strings.HasPrefix(line, "==⚠") && banner.MatchString(line) {
			continue
		}
		if strings.IndexByte(line, '^') >= 0 {
			line = id.ReplaceAllString(line, "")
		}
		if strings.Contains(line, "((") {
			line = ref.ReplaceAllString(line, "")
		}
		line = calloutText(line)
		if !inCode {
			tags = append(tags, lineTags(&hide, i, line)...)
		}
		var b strings.Builder
		prose := func(from, to int) {
			p := line[from:to]
			if strings.Contains(p, "{{embed") {
				p = embed.ReplaceAllString(p, "$1")
			}
			b.WriteString(cleanInline(notionLinks(p)))
		}
		for at := 0; at < len(line); {
			j := strings.IndexByte(line[at:], '`')
			if j < 0 {
				prose(at, len(line))
				break
			}
			end := afterCodeSpan(line, at+j)
			prose(at, at+j)
			b.WriteString(line[at+j : end])
			at = end
		}
		kept = append(kept, b.String())
	}
	return strings.TrimSpace(strings.Join(kept, "\n")), tags
}

var (
	// logseqMeta is a line Logseq writes for its own use and never shows
	// (its hidden built-in properties): a referenced block's id, a folded
	// block's state, a block's colour and heading flag, its timestamps, a
	// query's table settings, a PDF highlight's type, page and colour.
	// Each only with the value Logseq writes, one word (a number, a
	// boolean): "heading:: Deployment plan" is a person's field.
	logseqMeta = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[ \t]*(?:id:: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|collapsed:: (?:true|false)|heading:: (?:true|false|[1-6])|(?:created-at|updated-at|last-modified-at|created_at|last_modified_at|hl-page|hl-stamp):: \d+|(?:background-color|background_color|query-table|query-sort-by|query-sort-desc|ls-type|hl-type|hl-color|logseq\.order-list-type):: \S+|query-properties:: \[[^\]]*\])[ \t]*$`)
	})
	// excalidrawBanner is the line the Excalidraw plugin writes at the
	// top of every drawing, for an editor that is not its view (which
	// never shows it): boilerplate, not the drawing's words.
	excalidrawBanner = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^==⚠\s*Switch to EXCALIDRAW VIEW\b`) })
	// logseqEmbed is Logseq's embed macro: a page's, {{embed [[Nova]]}},
	// read as its link, or a block's, whose ((<uuid>)) is gone by then
	// (blockRef), read as nothing.
	logseqEmbed = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{\{embed[ \t]*(\[\[[^\]]*\]\])?[ \t]*\}\}`) })
	// blockRef is a Logseq block reference, ((<uuid>)), with the blank
	// before it.
	blockRef = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(` ?\(\([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\)\)`)
	})
)

// calloutMark opens an Obsidian callout (or a GitHub alert) on a quote's
// first line: "> [!warning]- Title", its type, fold sign and title.
var calloutMark = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([ \t]*(?:>[ \t]*)+)\[!([A-Za-z][\w-]*)\][+-]?(?:[ \t]+(.*))?$`)
})

// calloutText is line with a callout's marker as Obsidian shows it: its
// title, or, when it has none, its type capitalized ("[!tip]" reads
// "Tip"). The marker is markup a result would show and a search would
// match ("note" in every note callout).
func calloutText(line string) string {
	if !strings.Contains(line, "[!") {
		return line // no marker: the common line, left without a pattern's scan
	}
	m := calloutMark().FindStringSubmatch(line)
	if m == nil {
		return line
	}
	if title := strings.TrimSpace(m[3]); title != "" {
		return m[1] + title
	}
	kind := strings.ToLower(m[2])
	return m[1] + strings.ToUpper(kind[:1]) + kind[1:]
}

// cleanInline turns wiki links into the text Obsidian shows for them:
// the alias, else the note and the heading it links to ("Ports >
// Facade"; the heading alone in a link within the note), a block's id
// left out; an embed's size and PDF page are no text.
func cleanInline(s string) string {
	if !strings.Contains(s, "[[") {
		return s // no wiki link: the common text, left without a pattern's scan
	}
	link, size := wikiLink(), embedSize()
	return link.ReplaceAllStringFunc(s, func(m string) string {
		sub := link.FindStringSubmatch(m)
		embed := m[0] == '!'
		// An embed's "|300" or "|640x480" is its size, not its alias.
		if sub[3] != "" && !(embed && size.MatchString(sub[3])) {
			return sub[3]
		}
		if strings.TrimSpace(sub[1]+sub[2]) == "" {
			return m // "[[]]" links nothing: text
		}
		var parts []string
		if note := strings.TrimSpace(sub[1]); note != "" {
			parts = append(parts, note)
		}
		for h := range strings.SplitSeq(sub[2], "#") {
			// A block's id is not shown, nor an embedded PDF's page=3.
			if h = strings.TrimSpace(h); h != "" && !strings.HasPrefix(h, "^") && !(embed && strings.Contains(h, "=")) {
				parts = append(parts, h)
			}
		}
		return strings.Join(parts, " > ")
	})
}

// headingText is a heading as it reads rendered: a block id gone, links,
// images and wiki links their text, emphasis, strikethrough and highlight
// marks gone, autolinks without their brackets, inline HTML tags and
// comments gone, escaped characters themselves and code spans their code
// as written (`__init__` keeps its underscores).
// A heading of nothing but markup stays as written.
func headingText(heading string) string {
	// Code spans and escaped characters are set aside while the markup
	// goes, so that none of theirs is taken for markup. Their stand-ins
	// are delimited by NUL, which a heading loses first: no text in it
	// can read as one.
	heading = strings.ReplaceAll(heading, "\x00", "")
	// A block id may end a heading too ("# Deploy ^h1"), hidden as the
	// text's are (cleanNote).
	if strings.IndexByte(heading, '^') >= 0 {
		if h := blockID().ReplaceAllString(heading, ""); strings.TrimSpace(h) != "" {
			heading = h
		}
	}
	var kept []string
	keep := func(s string) string {
		kept = append(kept, s)
		return fmt.Sprintf("\x00%d\x00", len(kept)-1)
	}
	var b strings.Builder
	for at := 0; at < len(heading); {
		switch c := heading[at]; {
		case c == '\\' && at+1 < len(heading) && strings.IndexByte(asciiPunct, heading[at+1]) >= 0:
			b.WriteString(keep(heading[at+1 : at+2]))
			at += 2
		case c == '`':
			end := afterCodeSpan(heading, at)
			n := len(heading[at:]) - len(strings.TrimLeft(heading[at:], "`"))
			if end == at+n {
				b.WriteString(keep(heading[at:end])) // no closer: backticks as text
			} else {
				b.WriteString(keep(strings.TrimSpace(heading[at+n : end-n])))
			}
			at = end
		default:
			b.WriteByte(c)
			at++
		}
	}
	s := cleanInline(b.String())
	for _, m := range headingMarkup() {
		if !strings.Contains(s, m.needs) {
			continue
		}
		// Again while it takes some: a match takes the space before the
		// next one ("_a_ _b_"), which that one needs.
		for range 4 {
			next := m.re.ReplaceAllString(s, m.with)
			if next == s {
				break
			}
			s = next
		}
	}
	if len(kept) > 0 {
		s = keptSpan().ReplaceAllStringFunc(s, func(m string) string {
			i, _ := strconv.Atoi(strings.Trim(m, "\x00"))
			return kept[i]
		})
	}
	if s = strings.TrimSpace(s); s == "" {
		return strings.TrimSpace(heading)
	}
	return s
}

// asciiPunct are the characters a backslash escapes in CommonMark.
const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// keptSpan is the stand-in headingText puts for a code span or an
// escaped character.
var keptSpan = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("\x00[0-9]+\x00") })

// headingMarkup are the inline marks headingText takes out of a heading,
// in order: links before the emphasis in their text, compiled on first
// use.
var headingMarkup = sync.OnceValue(func() []headingMark {
	return []headingMark{
		// [text](address "title") and ![alt](image), an address with one
		// level of parentheses (a Wikipedia page) included.
		{regexp.MustCompile(`!?\[([^\]]*)\]\((?:[^()]|\([^()]*\))*\)`), "$1", "]("},
		// [text][label] and [text][].
		{regexp.MustCompile(`\[([^\]]+)\]\[[^\]]*\]`), "$1", "]["},
		{regexp.MustCompile(`<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*)>`), "$1", "<"},
		// Inline HTML (CommonMark 6.6: an open or closing tag, a comment)
		// renders as no text: "Setup <a id=\"setup\"></a>" reads "Setup",
		// "<kbd>Ctrl</kbd>+<kbd>C</kbd>" reads "Ctrl+C". After the autolink,
		// whose scheme's colon no tag name has.
		{regexp.MustCompile(`<(?:[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][A-Za-z0-9_.:-]*(?:\s*=\s*(?:[^\s"'=<>` + "`" + `]+|'[^']*'|"[^"]*"))?)*\s*/?|/[A-Za-z][A-Za-z0-9-]*\s*)>|<!--.*?-->`), "", "<"},
		{regexp.MustCompile(`\*\*(\S(?:.*?\S)?)\*\*`), "$1", "**"},
		{regexp.MustCompile(`~~(\S(?:.*?\S)?)~~`), "$1", "~~"},
		{regexp.MustCompile(`==(\S(?:.*?\S)?)==`), "$1", "=="},
		{regexp.MustCompile(`(^|[^*\w])\*(\S(?:[^*]*?\S)?)\*`), "$1$2", "*"},
		// Underscores mark emphasis only at a word's edges: snake_case is a
		// name.
		{regexp.MustCompile(`(^|\W)__(\S(?:.*?\S)?)__(\W|$)`), "$1$2$3", "__"},
		{regexp.MustCompile(`(^|\W)_(\S(?:[^_]*?\S)?)_(\W|$)`), "$1$2$3", "_"},
	}
})

// headingMark is one of headingMarkup's marks.
type headingMark struct {
	re   *regexp.Regexp
	with string
	// needs is text every match holds: a heading without it is left
	// without the pattern's scan.
	needs string
}

// slug turns a heading trail into a stable, readable id fragment. The
// text is composed (NFC) first: "é" typed as e and a combining accent
// (as macOS names and some editors save it) would lose its accent, a
// mark being no letter, and one heading would have two ids by how its
// file was saved.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(norm.NFC.String(s)) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}
