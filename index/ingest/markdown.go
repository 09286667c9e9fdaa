package ingest

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/redact"
)

// maxMarkdownBytes bounds one note; larger files are reported and skipped.
const maxMarkdownBytes = 32 << 20

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
