package ingest

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/unicode/norm"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/redact"
)

// maxMarkdownBytes bounds one note; larger files are reported and skipped.
const maxMarkdownBytes = 32 << 20

// frontMatter is the metadata at the top of a note: YAML between "---"
// lines, or TOML between "+++" lines (Hugo). Every field takes any value,
// so that one of an unexpected type (a list: see oneValue) costs the
// note that field, not its whole front matter.
type frontMatter struct {
	Title     any `yaml:"title" toml:"title"`
	Date      any `yaml:"date" toml:"date"`
	Created   any `yaml:"created" toml:"created"`
	Updated   any `yaml:"updated" toml:"updated"`
	Modified  any `yaml:"modified" toml:"modified"`
	LastMod   any `yaml:"lastmod" toml:"lastmod"`
	Tags      any `yaml:"tags" toml:"tags"`
	Project   any `yaml:"project" toml:"project"`
	Agent     any `yaml:"agent" toml:"agent"`
	Lifecycle any `yaml:"lifecycle" toml:"lifecycle"`
	WorkType  any `yaml:"workType" toml:"workType"`
	SourceSet any `yaml:"sourceSet" toml:"sourceSet"`
	// Aliases are the note's other names (Obsidian's aliases property;
	// alias, its older spelling): see noteName.
	Aliases any `yaml:"aliases" toml:"aliases"`
	Alias   any `yaml:"alias" toml:"alias"`
	// Tag is the tags property's older singular spelling, which
	// Obsidian still reads beside it.
	Tag any `yaml:"tag" toml:"tag"`
	// Kanban is set on a board of Obsidian's Kanban plugin, which writes
	// markers of its own in the lanes (kanbanMarkers).
	Kanban any `yaml:"kanban-plugin" toml:"kanban-plugin"`
}

// headingDayForms are the forms of a day headingDate reads: YYYY-MM-DD,
// and the year first as Chinese, Japanese and Korean write it
// (2026年6月1日, 2026년 6월 1일, 2026/6/1), which cjkDate rewrites.
const headingDayForms = `\d{4}-\d{2}-\d{2}|\d{4} ?[年년] ?\d{1,2} ?[月월] ?\d{1,2} ?[日일]|\d{4}/\d{1,2}/\d{1,2}`

var (
	// A closing run of "#" follows a space: "## Learning C#" keeps its "#".
	// Up to three spaces may come first, as in CommonMark; four make code.
	atxHeading = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$`) })
	// A date a heading begins or ends with, not part of a longer number:
	// "2024-03-05 Tuesday", "[1.2.0] - 2024-03-07", "周报 2026年6月1日",
	// "2026/06/01（月）" (headingDayForms).
	headingDate = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\W*(` + headingDayForms + `)(?:\D|$)|(?:^|\D)(` + headingDayForms + `)\W*$`)
	})
	// An ATX heading after a list item's mark, at any depth.
	listHeading = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$`)
	})
	// A daily note's name: YYYY-MM-DD, or Logseq's journal YYYY_MM_DD.
	fileDate = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d{4}-\d{2}-\d{2}|\d{4}_\d{2}_\d{2}`) })
	// A wiki link (or embed): the note, the heading or ^block in it (a
	// note's own: [[#Steps]]) and the alias.
	wikiLink = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`!?\[\[([^\]|#]*)(?:#([^\]|]*))?(?:\|([^\]]+))?\]\]`) })
	// embedSize is the size an embed gives after its "|": 300, 640x480.
	embedSize = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[ \t]*\d+(?:x\d+)?[ \t]*$`) })
	// A block id ends a line, or stands on its own after a list, a
	// table or a quote.
	blockID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|\s)\^[A-Za-z0-9-]+$`) })
)

// readMarkdown emits one record per section: the text under a heading up
// to the next heading, with the trail of enclosing headings as its title.
// Front matter (date, tags, project, ...), or the properties a Logseq
// page opens with (title, tags, dates), those a Notion export writes
// under a page's title (notionProperties) or the dates yarle ends an
// Evernote note with (yarleDates), applies to every section, as do the
// tags of a line of tags alone the note opens with (topTags); a #tag in
// a section's text or heading tags that section alone (none in code,
// math, an HTML comment or an HTML block, where no line is a heading
// either). The date is its date, created, updated,
// modified or lastmod, the first that reads as one, else the date the
// file name gives (see nameDate) or its folders and name (folderDay),
// else the file's modification time; a section under a heading that
// gives a date is of that date. A file that is binary (a mislabelled
// executable or image) is reported and skipped whole.
func readMarkdown(fc *fileCtx) error {
	path := fc.path
	raw, fi, err := readNote(fc, "note")
	if err != nil || raw == nil {
		return err
	}
	raw = lfLineEnds(raw)
	body, fm, fmLines, fmErr := splitFrontMatter(raw)
	if fmErr != nil {
		fc.problem(1, "front matter is not valid "+fmErr.Error())
	}
	var htmlFM frontMatter
	var htmlTitle string
	if isHTMLNote(path) {
		// Its sections' lines are those of its text, not of its markup;
		// what its exporter wrote of it besides (a time, labels) is its
		// front matter.
		body, htmlFM, htmlTitle = htmlNoteText(body)
	}
	if fmLines == 0 {
		if isHTMLNote(path) {
			fm = htmlFM
		} else if notionName().MatchString(noteStem(path)) {
			fm = notionProperties(body)
		} else {
			fm = pageProperties(body)
		}
		yarleDates(body, &fm)
	}
	var title, project, agent, lifecycle, workType, sourceSet string
	for _, f := range []struct {
		name string
		v    any
		to   *string
	}{{"title", fm.Title, &title}, {"project", fm.Project, &project}, {"agent", fm.Agent, &agent},
		{"lifecycle", fm.Lifecycle, &lifecycle}, {"workType", fm.WorkType, &workType}, {"sourceSet", fm.SourceSet, &sourceSet}} {
		var ok bool
		if *f.to, ok = oneValue(f.v); !ok {
			fc.problem(1, fmt.Sprintf("front matter %q holds several values, not one: left out", f.name))
		}
		*f.to = linkedName(*f.to)
	}
	date := ""
	var exact time.Time
	for _, v := range fm.dates() {
		if s := yamlScalar(*v); s != "" {
			if d, t, ok := parseDate(cjkDate(linterDate(s)), fc.loc); ok {
				date, exact = d, t
				break
			}
			// A day as a date template writes it (March 5, 2026;
			// 2026.03.05), which no time of day comes with that we read.
			if d, _, ok := parseDate(otherNameDay(s), fc.loc); ok {
				date = d
				break
			}
		}
	}
	if date == "" {
		date = nameDate(filepath.Base(path), fc.loc)
	}
	if date == "" {
		date, _, _ = parseDate(folderDay(path), fc.loc)
	}
	if date == "" {
		date = fi.ModTime().In(fc.loc).Format("2006-01-02") // the reader's zone, not time.Local
	}
	tags := uniqueTags(append(frontMatterTags(fm.Tags), frontMatterTags(fm.Tag)...))
	if fmLines > 0 {
		// Obsidian counts no front matter tag of digits alone (it
		// strikes it out), as it counts no #1984 in text, nor one with a
		// blank in it ("my tag" in a list: a string's are parted at its
		// blanks). A Logseq page's "tags:: 2024" or "[[machine
		// learning]]" links that page, and stays.
		tags = slices.DeleteFunc(tags, func(t string) bool {
			return digitsOnly(t) || strings.ContainsFunc(t, unicode.IsSpace)
		})
	}
	docTitle := strings.TrimSpace(title)
	if docTitle == "" {
		// An HTML note's head names it whole, where its file's name
		// may not ("Q3: plan" written "Q3_ plan.html").
		docTitle = htmlTitle
	}
	if docTitle == "" {
		docTitle = pageName(noteStem(path))
	}
	name := noteName(docTitle, frontMatterAliases(docTitle, fm.Aliases, fm.Alias))

	type section struct {
		path  []string
		line  int
		lines []string
		// para is where in lines a paragraph may begin: after the last
		// line of code (fenced or indented), of an HTML comment or of an
		// HTML block, which no setext underline makes a heading of.
		para int
		// titled: its outermost heading is of level 1, a title that
		// names its board in its path.
		titled bool
		// head is its heading as written, whose #tags are the section's
		// (headingTags): "## Trip #travel", as Obsidian counts them.
		head string
	}
	var sections []*section
	cur := &section{line: fmLines + 1}
	sections = append(sections, cur)
	var trail []string
	var levels []int
	// h1s counts the note's level-1 headings; firstLevel is the level of
	// its first heading.
	h1s, firstLevel := 0, 0
	// html follows the note's HTML blocks, as the tags' reading does
	// (hiddenSpans): a line in one is HTML, no heading. An HTML note's
	// lines are its text, its markup gone: "<pre>" there is words.
	htmlBlocks := !isHTMLNote(path)
	html := hiddenSpans{blocks: htmlBlocks}
	open := func(level int, heading string, line int) {
		// A heading is no paragraph: a tag alone on the next line opens
		// an HTML block.
		html.para = false
		if level == 1 {
			h1s++
		}
		if firstLevel == 0 {
			firstLevel = level
		}
		for len(levels) > 0 && levels[len(levels)-1] >= level {
			levels, trail = levels[:len(levels)-1], trail[:len(trail)-1]
		}
		// A heading is kept apart from the note's text, which is let go
		// once its sections are cut (a heading's text may be a piece of it).
		levels, trail = append(levels, level), append(trail, strings.Clone(headingText(heading)))
		cur = &section{path: append([]string(nil), trail...), line: line, titled: levels[0] == 1, head: heading}
		sections = append(sections, cur)
	}
	var code fences
	// lastText is the index of the last line of a paragraph's text: an
	// indented line right after one goes on with the paragraph, after
	// any other it may be indented code (fences.indented).
	lastText := -2
	inHTMLComment := false
	// The note's text is held once, as its lines: the bytes go with this
	// conversion, each section's lines once it is cleaned below, and the
	// text once every section is.
	lines, hidden := withoutComments(strings.Split(string(body), "\n"))
	// A $$ block (math) opens only before the last line with a "$$" in
	// it, which may close it (see hiddenSpans).
	inMath, lastDollars := false, lastDollarsLine(lines)
	atx, listAtx := atxHeading(), listHeading()
	for i, line := range lines {
		if hidden[i] {
			continue
		}
		trimmed := strings.TrimSpace(line)
		if inMath || !code.in() && !inHTMLComment && strings.HasPrefix(trimmed, "$$") && unescaped(trimmed, 2, "$$") < 0 && lastDollars > i {
			// A line of math is no heading ("# x" is TeX): the block
			// stays in its section, whose text and tags go on after it.
			inMath = !inMath || unescaped(line, 0, "$$") < 0
			cur.lines = append(cur.lines, line)
			cur.para = len(cur.lines)
			continue
		}
		if inHTMLComment {
			// An HTML comment is one block up to its "-->", as in
			// CommonMark: a heading in it (a section commented out) is
			// its text.
			inHTMLComment = !strings.Contains(line, "-->")
			cur.lines = append(cur.lines, line)
			cur.para = len(cur.lines)
			continue
		}
		if !code.in() && strings.HasPrefix(trimmed, "<!--") && !strings.Contains(trimmed[4:], "-->") {
			inHTMLComment = true
			cur.lines = append(cur.lines, line)
			cur.para = len(cur.lines)
			continue
		}
		isCode := code.line(line)
		if !isCode && lastText != i-1 && html.html == 0 && code.indented(line) {
			// No heading, and no paragraph a setext underline makes
			// one of: the text after it may be.
			cur.lines = append(cur.lines, line)
			cur.para = len(cur.lines)
			continue
		}
		if !isCode && html.htmlBlock(i, line) {
			// As in CommonMark: "# x" in a <div> or a <details> (up to
			// a blank line), or in a <pre> (up to its end), is HTML.
			cur.lines = append(cur.lines, line)
			cur.para = len(cur.lines)
			continue
		}
		if !isCode {
			// The patterns only where a heading may be: most lines of a
			// note are none, and a pattern's scan costs a line's length.
			if strings.HasPrefix(strings.TrimLeft(line, " "), "#") {
				if m := atx.FindStringSubmatch(line); m != nil {
					open(len(m[1]), atxText(m[2]), fmLines+i+1)
					continue
				}
			}
			// A heading may be a list item's content: "- ## Deploy", as
			// Logseq writes a heading block.
			if mayBeListItem(line) && strings.IndexByte(line, '#') >= 0 {
				if m := listAtx.FindStringSubmatch(line); m != nil {
					open(len(m[1]), atxText(m[2]), fmLines+i+1)
					continue
				}
			}
			if level := setextLevel(line); level > 0 {
				if n := paragraphEnd(cur.lines[cur.para:]); n > 0 {
					// Its lines without their blanks, as CommonMark reads
					// a paragraph's: an indent, a hard break's two blanks.
					words := make([]string, n)
					for k, l := range cur.lines[len(cur.lines)-n:] {
						words[k] = strings.TrimSpace(l)
					}
					heading := strings.Join(words, " ")
					cur.lines = cur.lines[:len(cur.lines)-n]
					open(level, heading, fmLines+i+1-n)
					continue
				}
			}
		}
		cur.lines = append(cur.lines, line)
		if isCode {
			cur.para = len(cur.lines)
		} else if trimmed != "" {
			lastText = i
		}
	}
	// Front matter's tags, and those of the lines of tags alone the note
	// opens with (topTags), tag every section; a #tag in a section's text
	// or its heading tags that section alone: a search for #travel is
	// not answered with the note's sections about work. A tag is one
	// whatever its case (seen: the note's, by foldKey, where comparing
	// each with all those found before cost tags squared).
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		seen[foldKey(t)] = true
	}
	// The note's title: its one level-1 heading, which it opens with.
	titleTagLine := h1s == 1 && firstLevel == 1 && len(sections) > 1 && blankLines(sections[0].lines)
	// Each tag of a section's own is kept and redacted once (owned, by
	// foldKey in ownIndex, spelt as the note first writes it), however
	// many sections it tags; section i's are own[ownAt[i]:ownAt[i+1]],
	// indexes in owned, one list for the note: a log with a tag a day has
	// tens of thousands of sections.
	type ownTag struct {
		name       string
		redactions int
		last       int // 1 + the last section it was given to
	}
	var owned []ownTag
	ownIndex := map[string]int32{}
	var own []int32
	ownAt := make([]int32, 1, len(sections)+1)
	texts := make([]string, len(sections))
	for i, s := range sections {
		var inline []string
		if fm.Kanban != nil {
			s.lines = kanbanMarkers(s.lines)
		}
		if i == 0 || i == 1 && titleTagLine {
			// The text before the first heading, or under the note's
			// title when nothing comes before it ("# Trip\n#travel",
			// as Bear writes a note's tags under its title).
			for _, t := range topTags(s.lines, htmlBlocks) {
				if k := foldKey(t); !seen[k] {
					seen[k] = true
					tags = append(tags, strings.Clone(t))
				}
			}
		}
		joined := strings.Join(s.lines, "\n")
		if len(s.lines) == 1 {
			// One line is a piece of the note's text, not a copy: as a
			// record's text it would keep all of it.
			joined = strings.Clone(joined)
		}
		s.lines = nil
		texts[i], inline = cleanNote(joined, htmlBlocks)
		if s.head != "" {
			inline = append(headingTags(s.head), inline...)
			s.head = ""
		}
		for _, t := range inline {
			k := foldKey(t)
			if seen[k] {
				continue
			}
			j, ok := ownIndex[k]
			if !ok {
				// A copy: the tag is a piece of the section's text.
				name, n := redact.Text(strings.Clone(t))
				j = int32(len(owned))
				owned = append(owned, ownTag{name: name, redactions: n})
				ownIndex[k] = j
			}
			if owned[j].last != i+1 {
				owned[j].last = i + 1
				own = append(own, j)
			}
		}
		ownAt = append(ownAt, int32(len(own)))
	}
	// A note that opens with its only level-1 heading has that heading
	// for its title, as Markdown is written: it names the note in every
	// heading path, and the file name ("README", a slug) would be noise
	// before it. A title front matter gives is the note's own (Jekyll,
	// Hugo and Pandoc show it apart from the text's headings), and leads
	// unless that heading says it (as sectionTitle compares them; here
	// once, not for each of a log's thousands of sections).
	titleHeading := h1s == 1 && firstLevel == 1 &&
		(strings.TrimSpace(title) == "" || slug(sections[1].path[0]) == slug(docTitle))
	// Every section has the note's tags: they are redacted once, here,
	// and each record counts their redactions (see fileCtx.cleanTags).
	tagRedactions := redact.List(&tags)
	used := map[string]int{}
	// Secrets go before a record leaves the reader: its text is also the
	// context indexed with its neighbours. The headings are redacted
	// here, not only in emit: the record's id is made of them, and the
	// slug (lower case, '_' made '-') hides a secret from the rules that
	// would find it there (ghp_... became ghp-..., AKIA... akia...). A
	// section left without text is no record (nil heads).
	type cleanSection struct {
		text       string
		redactions int
		heads      []string
	}
	clean := func(i int) cleanSection {
		var c cleanSection
		c.text, c.redactions = cleanText(texts[i])
		texts[i] = ""
		if c.text != "" {
			c.heads = sections[i].path
			c.redactions += redact.List(&c.heads)
		}
		return c
	}
	// A task board's sections are versions of its cards (boardSubjects),
	// keyed by the heading paths of all of them: a board's sections are
	// cleaned before the first is emitted, a note's (a log of many MiB)
	// each as it is emitted, so that it is not held twice.
	var subjects []string
	var cleaned []cleanSection
	if cmp.Or(sourceSet, fc.src.SourceSet) == memory.TaskBoardSnapshot {
		cleaned = make([]cleanSection, len(sections))
		paths := make([][]string, len(sections))
		titled := make([]bool, len(sections))
		for i, s := range sections {
			cleaned[i] = clean(i)
			paths[i], titled[i] = cleaned[i].heads, s.titled
		}
		subjects = boardSubjects(paths, titled)
	}
	for i, s := range sections {
		if err := fc.ctx.Err(); err != nil {
			return err
		}
		var c cleanSection
		if cleaned != nil {
			c, cleaned[i] = cleaned[i], cleanSection{}
		} else {
			c = clean(i)
		}
		text, redactions, heads := c.text, c.redactions, c.heads
		if text == "" {
			continue
		}
		title := sectionTitle(name, docTitle, heads, titleHeading)
		key := slug(strings.Join(heads, " "))
		if key == "" {
			key = "top"
		}
		used[key]++
		if n := used[key]; n > 1 {
			key = fmt.Sprintf("%s~%d", key, n)
		}
		// A section under a heading that gives a date (a log's day, a
		// changelog's release) is of that date, the nearest heading's:
		// one the heading begins or ends with, not after the note's last
		// change (a date mentioned, a plan, is not the day of writing).
		day, at := date, exact
		for j := len(s.path) - 1; j >= 0; j-- {
			if h := headingDay(s.path[j]); h != "" {
				if d, _, ok := parseDate(h, fc.loc); ok && d <= fi.ModTime().In(fc.loc).Format("2006-01-02") {
					day, at = d, time.Time{}
					break
				}
			}
		}
		subject := ""
		if subjects != nil {
			subject = subjects[i]
		}
		// The note's tags, then the section's own, all redacted already.
		secTags, tagN := tags, tagRedactions
		if ids := own[ownAt[i]:ownAt[i+1]]; len(ids) > 0 {
			secTags = make([]string, len(tags), len(tags)+len(ids))
			copy(secTags, tags)
			for _, j := range ids {
				secTags = append(secTags, owned[j].name)
				tagN += owned[j].redactions
			}
		}
		fc.cleanTags = secTags
		rec := memory.Record{
			ID: fc.rel + "#" + key, Text: text, Title: title, Date: day, Time: at, Subject: subject,
			Agent: agent, Project: project, Tags: secTags, WorkType: workType,
			SourceSet: sourceSet, Lifecycle: lifecycle, HeadingPath: heads,
			Path: path, Line: s.line, Kind: config.KindMarkdown, Layer: "note", Redactions: redactions + tagN,
		}
		if err := fc.emit(rec); err != nil {
			return err
		}
	}
	return nil
}

// kanbanComplete are the plugin's "**Complete**" lines: it writes the
// word in the language of Obsidian's interface (Chinese, Japanese,
// Korean).
var kanbanComplete = setOf("**Complete**", "**完成**", "**完了**", "**완료됨**")

// kanbanMarkers returns the lines of a lane of an Obsidian Kanban board
// without the plugin's markers: "**Complete**" on the lane's first line
// (its cards are marked done as they enter it; kanbanComplete) and the
// "***" it writes before its archive (not in code). Neither is a card's
// words.
func kanbanMarkers(lines []string) []string {
	var out []string
	var code fences
	first := true
	brk := thematicBreak()
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if !code.line(l) && (first && kanbanComplete[t] || brk.MatchString(l)) {
			continue
		}
		if t != "" {
			first = false
		}
		out = append(out, l)
	}
	return out
}

// sectionTitle is the title of a note's section under heads: the note's
// name (noteName, of the note titled docTitle) and then its heading path,
// so that a section tells which note it belongs to ("Project Phoenix >
// Risks", not "Risks", which many notes have) and its note's name is
// words a search matches. A path that opens with the note's title (its
// H1, see titleHeading, or a heading that is docTitle) names the note
// already: the aliases go after that heading instead.
func sectionTitle(name, docTitle string, heads []string, titleHeading bool) string {
	if len(heads) == 0 {
		return name
	}
	if titleHeading || slug(heads[0]) == slug(docTitle) {
		parts := slices.Clone(heads)
		parts[0] += strings.TrimPrefix(name, docTitle)
		return strings.Join(parts, " > ")
	}
	return name + " > " + strings.Join(heads, " > ")
}

// noteName is how a note's sections name it: its title, and its aliases
// in parentheses ("Project Phoenix (PX, Firebird)"), which a search for
// one of them should find.
func noteName(docTitle string, aliases []string) string {
	if len(aliases) == 0 {
		return docTitle
	}
	return docTitle + " (" + strings.Join(aliases, ", ") + ")"
}

// frontMatterAliases are the other names front matter gives a note
// titled docTitle (Obsidian's aliases, its older alias, Logseq's alias
// property): a list, or one string of names between commas (as Obsidian
// read one before it had list properties; an item of a list is one name,
// commas and all), a link naming its note. A name that only respells the
// title or one before it ("project phoenix") adds no word to search and
// is left out.
func frontMatterAliases(docTitle string, fields ...any) []string {
	var names []string
	var add func(v any)
	add = func(v any) {
		switch x := v.(type) {
		case []any:
			// An unquoted [[link]] is a list in a list.
			for _, y := range x {
				add(y)
			}
		case nil, map[string]any, map[any]any:
		default:
			names = append(names, yamlScalar(x))
		}
	}
	for _, f := range fields {
		if s, ok := f.(string); ok {
			// Only one string is a list between commas: an item of a
			// list is one name, commas and all.
			for n := range strings.SplitSeq(s, ",") {
				names = append(names, n)
			}
			continue
		}
		add(f)
	}
	seen := []string{slug(docTitle)}
	var out []string
	for _, n := range names {
		n = strings.TrimSpace(linkedName(strings.TrimSpace(n)))
		key := slug(n)
		if n == "" || key != "" && slices.Contains(seen, key) || key == "" && slices.Contains(out, n) {
			continue
		}
		seen = append(seen, key)
		out = append(out, n)
	}
	return out
}

// SnapshotSubject is the version-chain key of a section of a task-board
// snapshot: its heading path (the same card on the next snapshot), less
// the date the outermost heading begins or ends with beside its words. A
// board titled "Task board 2026-06-01" names its snapshot's day, not its
// cards; with the date, no card of one snapshot was ever a version of the
// next's. Dates of the headings below (a lane "Shipped 2026-05-01") tell
// sections apart, and a heading that is only a date (a log's day) keeps
// it. Each heading is keyed as a record's subject is (subjectKey): a card
// retyped with other capitals or spacing on the next board ("Search
// Latency", "search  latency") is the same card, and a lane by the state
// it names (laneKey: "🚧 In progress (3)" is "in progress"). The Markdown
// reader keys a card without its lanes (boardSubjects).
func SnapshotSubject(heads []string) string {
	return "heading:" + strings.Join(snapshotKey(heads), " > ")
}

// snapshotKey returns the headings of a task-board section's path as
// SnapshotSubject keys them, a lane by its state (laneKey).
func snapshotKey(heads []string) []string {
	key := slices.Clone(heads)
	key[0] = norm.NFC.String(key[0]) // as headingDate reads a day
	if m := headingDate().FindStringSubmatchIndex(key[0]); m != nil {
		start, end := m[2], m[3] // the date the heading begins with
		if start < 0 {
			start, end = m[4], m[5] // or ends with
		}
		words := strings.TrimFunc(key[0][:start]+" "+key[0][end:], func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
		if words != "" {
			key[0] = words
		}
	}
	for i, h := range key {
		key[i] = cmp.Or(laneKey(heads[i]), subjectKey(h))
	}
	return key
}

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

// nameDate is the day a note's file name gives: a YYYY-MM-DD in it (a
// daily note, a Jekyll post), Logseq's journal YYYY_MM_DD, a day as
// Chinese, Japanese and Korean write it (2026年6月1日, 2026년 6월 1일), a
// Zettelkasten id it begins with, YYYYMMDD with the hour and minute (and
// second) or without, a day in another form daily notes are named with
// (otherNameDay: 2026.03.05, March 5, 2026), or "".
func nameDate(name string, loc *time.Location) string {
	m := fileDate().FindString(name)
	// A Korean name as macOS writes it is decomposed: 년 is three jamo.
	if c := cjkNameDay().FindStringSubmatch(norm.NFC.String(name)); m == "" && c != nil {
		m = isoDay(c[1], c[2], c[3])
	}
	if m == "" {
		if z := zettelID().FindStringSubmatch(name); z != nil {
			m = z[1][:4] + "-" + z[1][4:6] + "-" + z[1][6:]
		}
	}
	if m == "" {
		m = otherNameDay(name)
	}
	if d, _, ok := parseDate(strings.ReplaceAll(m, "_", "-"), loc); ok {
		return d
	}
	return ""
}

// cjkNameDay is a day in a file's name as Chinese, Japanese (年月日) and
// Korean (년월일) write it: the year, the month and the day are groups
// 1 to 3. A day without its year (6月1日) is of no year.
var cjkNameDay = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`((?:19|20)\d{2}) ?[年년] ?(\d{1,2}) ?[月월] ?(\d{1,2}) ?[日일]`)
})

// cjkValueDay is a front matter date as Chinese, Japanese and Korean
// notes write it, the year first: 2026年6月1日, 2026년 6월 1일 or
// 2026/6/1 (the year, month and day are groups 1 to 3, or 1, 4 and 5),
// maybe with its weekday (星期一, (月), 月曜日, 월요일, as date templates
// write it in Obsidian's language) and a time of day (hours, minutes and
// seconds: groups 6 to 8).
var cjkValueDay = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^((?:19|20)\d{2})(?: ?[年년] ?(\d{1,2}) ?[月월] ?(\d{1,2}) ?[日일]|/(\d{1,2})/(\d{1,2}))` +
		`(?: ?[(（]?(?:星期[一二三四五六日天]|[周週][一二三四五六日天]|[月火水木金土日](?:曜日?)?|[월화수목금토일](?:요일)?)[)）]?)?` +
		`(?:[ T]+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$`)
})

// cjkDate is a front matter value that cjkValueDay reads as the text
// parseDate reads ("2026年6月1日 9:05" is "2026-06-01 09:05:00"), or v
// as it is.
func cjkDate(v string) string {
	m := cjkValueDay().FindStringSubmatch(norm.NFC.String(strings.TrimSpace(v)))
	if m == nil {
		return v
	}
	day := isoDay(m[1], cmp.Or(m[2], m[4]), cmp.Or(m[3], m[5]))
	if m[6] == "" {
		return day
	}
	return day + " " + twoDigits(m[6]) + ":" + m[7] + ":" + cmp.Or(m[8], "00")
}

// isoDay writes a year, month and day (of one or two digits) as
// YYYY-MM-DD, which parseDate checks.
func isoDay(year, month, day string) string {
	return year + "-" + twoDigits(month) + "-" + twoDigits(day)
}

// twoDigits is a number of one or two digits written with two.
func twoDigits(n string) string {
	if len(n) == 1 {
		return "0" + n
	}
	return n
}

// zettelID is a Zettelkasten id that begins a file name: the day it was
// made and maybe the minute (and second), then no other digit. The year
// is 19xx or 20xx, so that other numbers are not read for days.
var zettelID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^((?:19|20)\d{6})(?:\d{4}|\d{6})?(?:\D|$)`) })

// pageProperty is a line of a Logseq page's properties: "title:: Deploy".
var pageProperty = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z][\w-]*)::[ \t]*(.*?)[ \t]*$`) })

// pageProperties reads the properties a Logseq page opens with, its
// lines up to the first that is not one, as front matter: its title,
// tags (split at commas, a link or a #tag its name) and date fields. The
// lines stay the page's text, as Logseq shows them.
func pageProperties(body []byte) frontMatter {
	var fm frontMatter
	prop := pageProperty()
	for line := range strings.Lines(string(body)) {
		m := prop.FindStringSubmatch(strings.TrimRight(line, "\n"))
		if m == nil {
			break
		}
		switch v := m[2]; strings.ToLower(m[1]) {
		case "title":
			fm.Title = v
		case "tags":
			var tags []any
			for t := range strings.SplitSeq(v, ",") {
				tags = append(tags, linkedName(strings.TrimPrefix(strings.TrimSpace(t), "#")))
			}
			fm.Tags = tags
		case "alias":
			fm.Alias = v
		case "date":
			fm.Date = v
		case "created":
			fm.Created = v
		case "updated":
			fm.Updated = v
		case "modified":
			fm.Modified = v
		}
	}
	return fm
}

// relativeLink is a Markdown link or image whose address names no scheme
// (a file beside the note): its text and its address.
var relativeLink = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`!?\[([^\]]*)\]\(([^()\s:]+)\)`) })

// notionLinks turns the links of a Notion export to its own files (a
// page, a database's CSV, an image in a page's folder: an address with a
// file or folder of a Notion page's name, see notionName) into their
// text, as Notion shows them: the escaped path and its ids are no words
// of the note.
func notionLinks(s string) string {
	if !strings.Contains(s, "](") {
		return s // no link: the common line, left without a pattern's scan
	}
	link, notion := relativeLink(), notionName()
	return link.ReplaceAllStringFunc(s, func(m string) string {
		sub := link.FindStringSubmatch(m)
		addr, err := url.PathUnescape(sub[2])
		if err != nil {
			return m
		}
		for part := range strings.SplitSeq(addr, "/") {
			stem := part
			if i := strings.LastIndexByte(part, '.'); i > 0 {
				stem = part[:i]
			}
			if notion.MatchString(part) || notion.MatchString(stem) {
				return sub[1]
			}
		}
		return m
	})
}

// yarleDate is a line of the block yarle's default template ends a note
// it converted from Evernote with: "    Created at: 2024-03-03T16:12:00+01:00".
var yarleDate = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {4}(Created|Updated) at: (.+?)[ \t]*$`) })

// yarleDates reads the created and updated times of a note yarle wrote
// (see yarleDate) into fm, where nothing set them: only from the
// indented lines that end the note, where the template puts them, so
// that such a line in a note's code is not read. The lines stay the
// note's text.
func yarleDates(body []byte, fm *frontMatter) {
	lines := strings.Split(strings.TrimRight(string(body), " \t\n"), "\n")
	yarle := yarleDate()
	for i := len(lines) - 1; i >= 0 && strings.HasPrefix(lines[i], "    "); i-- {
		m := yarle.FindStringSubmatch(lines[i])
		switch {
		case m == nil:
		case m[1] == "Created" && fm.Created == nil:
			fm.Created = m[2]
		case m[1] == "Updated" && fm.Updated == nil:
			fm.Updated = m[2]
		}
	}
}

// notionProperty is a line of the properties Notion's export writes
// under a page's title: "Created: March 3, 2024 4:12 PM".
var notionProperty = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([^:]{1,60}): (.*?)[ \t]*$`) })

// notionProperties reads the properties a page of a Notion export (see
// notionName) lists under its title, the lines after "# Title" and a
// blank up to the next blank, as front matter: its tags (between commas,
// a multi-select's) and its date (a date property, else its created
// time, else its last edited time, as Notion names them by default).
// Other properties (a status, a person) are text only. The lines stay
// the page's text, as Notion shows them.
func notionProperties(body []byte) frontMatter {
	var fm frontMatter
	lines := strings.Split(string(body), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "# ") || strings.TrimSpace(lines[1]) != "" {
		return fm
	}
	prop := notionProperty()
	for _, line := range lines[2:] {
		m := prop.FindStringSubmatch(line)
		if m == nil {
			break
		}
		setNotionProperty(&fm, m[1], m[2])
	}
	return fm
}

// setNotionProperty sets in fm what a property of a Notion page, its
// name and its value as the export writes them, tells of the page: its
// tags (between commas, a multi-select's) and its date (a date
// property, its created time, its last edited time). Other properties
// tell nothing.
func setNotionProperty(fm *frontMatter, name, v string) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "tags":
		var tags []any
		for t := range strings.SplitSeq(v, ",") {
			tags = append(tags, strings.TrimSpace(t))
		}
		fm.Tags = tags
	case "date":
		fm.Date = notionDate(v)
	case "created", "created time":
		fm.Created = notionDate(v)
	case "last edited time", "last edited":
		fm.Updated = notionDate(v)
	}
}

// notionDate is a date property as Notion's export writes it ("March
// 3, 2024", "March 3, 2024 4:12 PM", a range's start before its " → ")
// in the form parseDate reads, its time of day in the note's zone as
// Notion shows it in the exporter's; a value of another form is itself.
func notionDate(v string) string {
	v, _, _ = strings.Cut(v, " → ")
	v = strings.TrimSpace(v)
	if t, err := time.Parse("January 2, 2006 3:04 PM", v); err == nil {
		return t.Format("2006-01-02 15:04")
	}
	if t, err := time.Parse("January 2, 2006", v); err == nil {
		return t.Format("2006-01-02")
	}
	return v
}

// longDate matches a time as Obsidian's Linter writes it by default
// (moment's "dddd, MMMM Do YYYY, h:mm:ss a": "Tuesday, January 16th
// 2024, 11:30:00 pm"), its weekday and ordinal suffix aside.
var longDate = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:[A-Za-z]+, +)?([A-Za-z]+ +\d{1,2})(?:st|nd|rd|th)? +(\d{4})(?:, +(\d{1,2}:\d{2}:\d{2} *[AaPp][Mm]))?$`)
})

// linterDate is a front matter time in longDate's form in the form
// parseDate reads: the wall-clock time it writes, read in the note's
// zone; a value of another form is itself.
func linterDate(v string) string {
	m := longDate().FindStringSubmatch(strings.TrimSpace(v))
	if m == nil {
		return v
	}
	day, err := time.Parse("January 2 2006", m[1]+" "+m[2])
	if err != nil {
		return v
	}
	if m[3] == "" {
		return day.Format("2006-01-02")
	}
	clock, err := time.Parse("3:04:05pm", strings.ToLower(strings.ReplaceAll(m[3], " ", "")))
	if err != nil {
		return v
	}
	return day.Format("2006-01-02") + " " + clock.Format("15:04:05")
}

// noteStem is the name, less its extension, of the note at p, or of the
// note p is a sync service's copy of, which names the copy too: a
// copy's title is its original's, not "kiosk.sync-conflict-20260601-
// 101010-ABCDEFG". A mark that may be a name's own (" (2)", and
// iCloud's " 2") is a copy's only beside the file it would copy
// (memory.CopyOf); Syncthing's, Dropbox's and the others' are always.
func noteStem(p string) string {
	dir, base := filepath.Split(p)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	orig, ok := memory.ConflictCopyOf(base)
	if !ok {
		i := strings.LastIndexByte(stem, ' ')
		if i <= 0 {
			return stem
		}
		orig = stem[:i]
	}
	if ok && !numberedCopy().MatchString(stem[len(orig):]) {
		return orig
	}
	twin := filepath.Join(dir, orig+ext)
	if !memory.CopyOf(p, twin) && !ok {
		return stem
	}
	if _, err := os.Lstat(twin); err != nil {
		return stem
	}
	return orig
}

// numberedCopy is the mark a copy's name may have that a note's own name
// may have too ("Chapter (2)").
var numberedCopy = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ \(\d+\)$`) })

// pageName is the name of the page a note's file name (less its
// extension) stands for, as Logseq writes it: "___" for the "/" of a
// namespace page (project___nova is project/nova) and a %XX escape for a
// character a file name cannot hold ("?", ":", the "/" of its older
// format). A name whose "%" escapes nothing is the name as it is. The
// page id Notion's export ends every name with ("Project Phoenix
// 8f3e…", see notionName) is no part of the page's name.
func pageName(name string) string {
	if m := notionName().FindStringSubmatch(name); m != nil {
		name = m[1]
	}
	name = strings.ReplaceAll(name, "___", "/")
	if s, err := url.PathUnescape(name); err == nil && utf8.ValidString(s) {
		return s
	}
	return name
}

// notionName is the name Notion's Markdown & CSV export gives a page's
// file and folder: the page's title, a blank and the page's id, 32
// lower-case hex digits.
var notionName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.*\S) [0-9a-f]{32}$`) })

// splitFrontMatter separates a leading "---" YAML block (closed by "---"
// or by "...", YAML's end of document, as Pandoc and Jekyll allow) or
// "+++" TOML block from the body and reports how many lines it took. An
// error names the language the block is not valid in. A "---" block that
// is not a YAML mapping is no front matter but the note's text.
func splitFrontMatter(raw []byte) ([]byte, frontMatter, int, error) {
	var fm frontMatter
	fence := ""
	first, _, found := bytes.Cut(raw, []byte("\n"))
	// Blanks may follow a fence, as Jekyll allows.
	if f := string(bytes.TrimRight(first, " \t")); found && (f == "---" || f == "+++") {
		fence = f
	}
	if fence == "" {
		return raw, fm, 0, nil
	}
	// The block ends at the first line that is only a closer, which may
	// be the line right after the opener (an empty block).
	start := len(first) + 1
	end, next := -1, 0
	for pos := start; end < 0; pos = next {
		line := raw[pos:]
		next = len(raw)
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], pos+i+1
		}
		switch string(bytes.TrimRight(line, " \t")) {
		case fence:
			end = pos
		case "...":
			if fence == "---" {
				end = pos
			}
		}
		if next == len(raw) {
			break
		}
	}
	if end < 0 {
		return raw, fm, 0, nil
	}
	block := raw[start:end]
	after := raw[next:]
	lines := bytes.Count(raw[:next], []byte("\n"))
	if fence == "+++" {
		if _, err := toml.Decode(string(block), &fm); err != nil {
			return after, frontMatter{}, lines, fmt.Errorf("TOML: %w", err)
		}
		// The TOML decoder puts a local date-time (no offset) in a zone
		// of its own named so, at the machine's offset of today.
		for _, v := range fm.dates() {
			if t, ok := (*v).(time.Time); ok && t.Location().String() == "datetime-local" {
				*v = t.Format(wallClock)
			}
		}
		return after, fm, lines, nil
	}
	var doc yaml.Node
	err := yaml.Unmarshal(block, &doc)
	if err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		// A key typed with a CJK input method's colon (date：2026-03-05)
		// makes the block a scalar, or not valid YAML.
		var typed yaml.Node
		if b, ok := fullWidthKeys(block); ok && yaml.Unmarshal(b, &typed) == nil &&
			len(typed.Content) != 0 && typed.Content[0].Kind == yaml.MappingNode {
			doc, err = typed, nil
		}
	}
	if err != nil {
		return after, frontMatter{}, lines, fmt.Errorf("YAML: %w", err)
	}
	if len(doc.Content) == 0 || doc.Content[0].ShortTag() == "!!null" {
		return after, fm, lines, nil
	}
	if doc.Content[0].Kind != yaml.MappingNode {
		// Prose or a list between two thematic breaks that open the
		// note: its text, not metadata.
		return raw, fm, 0, nil
	}
	foldKeys(doc.Content[0])
	if err := doc.Decode(&fm); err != nil {
		return after, frontMatter{}, lines, fmt.Errorf("YAML: %w", err)
	}
	// YAML reads a time written with a space and no offset as UTC; only
	// the text tells it from one written in UTC.
	var written frontMatterNodes
	if doc.Decode(&written) == nil {
		nodes := written.dates()
		for i, v := range fm.dates() {
			if t, ok := (*v).(time.Time); ok {
				if _, err := time.Parse("2006-1-2 15:4:5.999999999", nodes[i].Value); err == nil {
					*v = t.Format(wallClock)
				}
			}
		}
	}
	return after, fm, lines, nil
}

// frontMatterKeys are the YAML keys of frontMatter's fields.
var frontMatterKeys = func() []string {
	var keys []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[frontMatter]()) {
		keys = append(keys, f.Tag.Get("yaml"))
	}
	return keys
}()

// foldKeys spells the keys of mapping that name a frontMatter field in
// another case ("Title", "DATE") as the field's, so that YAML front
// matter is read whatever the case of its keys, as the TOML decoder and
// Hugo read it, and the date keys in the other spellings notes tools
// write (dateKeys) and the title's CJK keys (titleKeys); a key already
// in the field's own spelling wins.
func foldKeys(mapping *yaml.Node) {
	have := map[string]bool{}
	for i := 0; i+1 < len(mapping.Content); i += 2 {
		have[mapping.Content[i].Value] = true
	}
	for i := 0; i+1 < len(mapping.Content); i += 2 {
		k := mapping.Content[i]
		for _, name := range frontMatterKeys {
			if !have[name] && (strings.EqualFold(k.Value, name) || otherSpelling(k.Value) == name) {
				k.Value, have[name] = name, true
			}
		}
	}
}

// dateKeys are the other spellings of the date, created, updated and
// modified keys, as dateKeyWord reduces them: Obsidian's Linter writes
// "date created" and "date modified", exporters and scripts created_at,
// createdAt, updated_at or last_modified, Chinese, Japanese and Korean
// notes 日期, 创建时间, 作成日 or 생성일. Without them a note was of
// the day its file was last written, the export's or the copy's.
var dateKeys = map[string]string{
	"createdat": "created", "createdon": "created", "datecreated": "created", "createddate": "created", "creationdate": "created", "createdtime": "created",
	"updatedat": "updated", "updatedon": "updated", "dateupdated": "updated", "lastupdated": "updated",
	"modifiedat": "modified", "modifiedon": "modified", "datemodified": "modified", "modifieddate": "modified", "lastmodified": "modified",
	// Chinese (simplified and traditional), Japanese and Korean keys.
	"日期": "date", "日付": "date", "날짜": "date",
	"创建时间": "created", "创建日期": "created", "创建于": "created", "創建時間": "created", "創建日期": "created", "建立時間": "created", "建立日期": "created",
	"作成日": "created", "作成日時": "created", "생성일": "created", "생성일시": "created", "작성일": "created", "작성일시": "created",
	"更新时间": "updated", "更新日期": "updated", "更新于": "updated", "更新時間": "updated", "更新日": "updated", "更新日時": "updated", "最終更新日": "updated",
	"수정일": "updated", "수정일시": "updated",
	"修改时间": "modified", "修改日期": "modified", "修改時間": "modified", "變更時間": "modified", "변경일": "modified",
}

// titleKeys are the title key as Chinese (simplified and traditional),
// Japanese and Korean notes write it: without them their front matter's
// title was dropped and the note titled by its file name.
var titleKeys = map[string]string{"标题": "title", "標題": "title", "タイトル": "title", "제목": "title"}

// otherSpelling is the frontMatter key that key is another spelling of
// (dateKeys, titleKeys), or "".
func otherSpelling(key string) string {
	w := dateKeyWord(key)
	return cmp.Or(dateKeys[w], titleKeys[w])
}

// dateKeyWord is key in lower case without its spaces, "_" and "-",
// composed (a Korean key pasted decomposed is the key dateKeys has).
func dateKeyWord(key string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '_', '-':
			return -1
		}
		return unicode.ToLower(r)
	}, norm.NFC.String(key))
}

// dates are the fields that may date a note, first the one that does.
func (fm *frontMatter) dates() []*any {
	return []*any{&fm.Date, &fm.Created, &fm.Updated, &fm.Modified, &fm.LastMod}
}

// frontMatterNodes are the date fields of YAML front matter as written.
type frontMatterNodes struct {
	Date     yaml.Node `yaml:"date"`
	Created  yaml.Node `yaml:"created"`
	Updated  yaml.Node `yaml:"updated"`
	Modified yaml.Node `yaml:"modified"`
	LastMod  yaml.Node `yaml:"lastmod"`
}

// dates are the nodes of frontMatter.dates, in its order.
func (n *frontMatterNodes) dates() []*yaml.Node {
	return []*yaml.Node{&n.Date, &n.Created, &n.Updated, &n.Modified, &n.LastMod}
}

// wallClock writes a front matter time that was written without an
// offset (as Jekyll, Obsidian and Hugo write them), which the decoders
// give a zone of their own, as text without one again: parseDate reads
// it in the note's zone, as the note means it.
const wallClock = "2006-01-02 15:04:05.999999999"

func yamlScalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 {
			return x.Format("2006-01-02")
		}
		return x.Format(time.RFC3339)
	default:
		return fmt.Sprint(x)
	}
}

// oneValue is a front matter field that names one thing (a title, a
// project): a scalar as written, or the value of a list of one (an
// Obsidian list property; an unquoted [[link]], which YAML reads as a
// list in a list). ok is false for a longer list or a map.
func oneValue(v any) (string, bool) {
	for {
		switch x := v.(type) {
		case []any:
			if len(x) != 1 {
				return "", len(x) == 0
			}
			v = x[0]
		case map[string]any, map[any]any:
			return "", false
		default:
			return yamlScalar(v), true
		}
	}
}

func frontMatterTags(v any) []string {
	switch x := v.(type) {
	case string:
		var out []string
		// Full-width and ideographic commas part them as a CJK input
		// method types a comma.
		for _, t := range strings.FieldsFunc(x, func(r rune) bool { return r == ',' || r == '，' || r == '、' || unicode.IsSpace(r) }) {
			out = append(out, strings.TrimPrefix(t, "#"))
		}
		return cleanTags(out)
	case []any:
		var out []string
		for _, t := range x {
			out = append(out, strings.TrimPrefix(yamlScalar(t), "#"))
		}
		return cleanTags(out)
	}
	return nil
}

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

// foldKey is s with each character made the least of those it equals
// under Unicode case folding: two strings have the same key when
// strings.EqualFold holds of them ("K", "k" and the Kelvin sign; "S",
// "s" and the long s).
func foldKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		low := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			low = min(low, f)
		}
		b.WriteRune(low)
	}
	return b.String()
}

// linkedName is a front matter value that may link a note, as Obsidian
// writes a link property ("[[Nova]]"): a value that is one wiki link
// names the linked note, whatever its heading or alias; links in text
// read as their text.
func linkedName(v string) string {
	if m := wikiLink().FindStringSubmatchIndex(v); m != nil && m[0] == 0 && m[1] == len(v) && v[0] == '[' && strings.TrimSpace(v[m[2]:m[3]]) != "" {
		return strings.TrimSpace(v[m[2]:m[3]])
	}
	return cleanInline(v)
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

// lfLineEnds returns b with every line ended by LF alone: CRLF (Windows)
// and a lone CR, which ends a line too, as in CommonMark (classic Mac OS,
// some exporters; split on LF alone, such a note was one heading line).
// It rewrites b in place, which it owns: a note may be many MiB, and
// most hold no CR at all.
func lfLineEnds(b []byte) []byte {
	i := bytes.IndexByte(b, '\r')
	if i < 0 {
		return b
	}
	out := b[:i]
	for ; i < len(b); i++ {
		switch {
		case b[i] != '\r':
			out = append(out, b[i])
		case i+1 < len(b) && b[i+1] == '\n':
			// The LF that follows ends the line.
		default:
			out = append(out, '\n')
		}
	}
	return out
}

// readNote reads a whole text file of a kind that holds notes (what names
// it in the error of one too large): its text decoded to UTF-8 and its
// stat. A binary file, or one larger than maxMarkdownBytes, is reported
// as a problem and gives no text and no error: a problem is kept in the
// file's state, so the file is not read again until it changes and doctor
// names it, where an error left it to be read (32 MiB of it) at every
// sync and taken for a file not yet indexed.
func readNote(fc *fileCtx, what string) ([]byte, os.FileInfo, error) {
	f, err := openSource(fc.path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() > maxMarkdownBytes {
		// Known from the stat: none of it is read.
		fc.problem(0, fmt.Sprintf("%s is larger than %d MiB (%d MiB): skipped", what, maxMarkdownBytes>>20, fi.Size()>>20))
		return nil, fi, nil
	}
	// Into a buffer of the size the stat gives: io.ReadAll grows its
	// buffer by copies, holding up to twice the note.
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, maxMarkdownBytes+1)); err != nil {
		return nil, nil, err
	}
	raw := buf.Bytes()
	if len(raw) > maxMarkdownBytes {
		// It grew past the bound while it was read.
		fc.problem(0, fmt.Sprintf("%s is larger than %d MiB: skipped", what, maxMarkdownBytes>>20))
		return nil, fi, nil
	}
	// Judged as the text it decodes to: a note in Windows-1252 is text.
	raw = noteText(raw)
	// NUL bytes that end the file are what a crash left of a write (the
	// file grew before its data reached the disk), not binary content:
	// the text before them is the note.
	text := bytes.TrimRight(raw, "\x00")
	if binaryContent(string(text[:min(len(text), sniffBytes)])) {
		fc.problem(0, "binary content (NUL bytes or mostly invalid UTF-8), not text: skipped")
		return nil, fi, nil
	}
	if len(text) < len(raw) {
		fc.interrupted(bytes.Count(text, []byte("\n"))+1, "NUL bytes at the end (a write a crash interrupted): skipped")
	}
	return text, fi, nil
}
