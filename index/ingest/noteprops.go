package ingest

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/nova-recall/nova/memory"
)

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
