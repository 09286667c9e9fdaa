package ingest

import (
	"maps"
	"slices"
	"testing"
)

// sectionTagCase is a note and the tags wanted of each of its records,
// by id.
type sectionTagCase struct {
	name, note string
	want       map[string][]string
}

// checkSectionTags reads each case's note as n.md through the Markdown
// reader and compares every record's tags with those wanted.
func checkSectionTags(t *testing.T, tests []sectionTagCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string][]string{}
			for _, r := range noteRecords(t, "n.md", tt.note) {
				got[r.ID] = r.Tags
			}
			if len(got) != len(tt.want) {
				t.Fatalf("records %q, want %q", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(tt.want)))
			}
			for id, want := range tt.want {
				if tags, ok := got[id]; !ok || !slices.Equal(tags, want) {
					t.Errorf("%s: tags %q (found %v), want %q", id, tags, ok, want)
				}
			}
		})
	}
}

// TestRead_headingTags: a #tag in a heading tags the section the heading
// opens, as Obsidian counts it ("## Trip #travel"); it was no tag at all,
// so a search filtered to #travel missed the section. A tag in the
// heading's code span is none, nor is a heading's "C#" or its closing
// run of "#".
func TestRead_headingTags(t *testing.T) {
	checkSectionTags(t, []sectionTagCase{
		{"ATX heading", "## Trip #travel\nBook the train. #trip/lisbon\n## Work\nShip it.\n", map[string][]string{
			"n.md#trip-travel": {"travel", "trip/lisbon"},
			"n.md#work":        nil,
		}},
		{"title heading", "# Plan #pinned\nIntro.\n## Travel\nGo.\n", map[string][]string{
			"n.md#plan-pinned":        {"pinned"},
			"n.md#plan-pinned-travel": nil,
		}},
		{"setext heading", "Trip #travel\n===\nGo.\n", map[string][]string{
			"n.md#trip-travel": {"travel"},
		}},
		{"list heading", "- ## Deploy #ops\n  - run it\n", map[string][]string{
			"n.md#deploy-ops": {"ops"},
		}},
		{"same tag in heading and text", "## Trip #travel\nGo. #Travel\n", map[string][]string{
			"n.md#trip-travel": {"travel"},
		}},
		{"no tags", "## Learning C# `#x` #123 ##\nStart.\n", map[string][]string{
			"n.md#learning-c-x-123": nil,
		}},
	})
}

// TestRead_tagsObsidianHides: a "#" in math ($...$ in a line, $$...$$ in
// a line or across lines) or in an HTML comment (<!-- ... -->, in a line
// or across lines) is no tag, as Obsidian reads none there; nor in its
// %% comment. They tagged their section, or at the top of a note the
// whole note. The text stays: only the tag goes. A "$" that opens no
// math (a price: "$5 ... $6") hides nothing.
func TestRead_tagsObsidianHides(t *testing.T) {
	checkSectionTags(t, []sectionTagCase{
		{"math block", "## Trip\nGo. #travel\n$$\n#inmath\n\\#x\n$$\nAfter. #after\n", map[string][]string{
			"n.md#trip": {"travel", "after"},
		}},
		{"math block in a line", "## Trip\nGo $$ #dm $$ and $x #inline y$ too. #travel\n", map[string][]string{
			"n.md#trip": {"travel"},
		}},
		{"math in a heading", "## Trip $a #ra b$ #travel\nGo.\n", map[string][]string{
			"n.md#trip-a-ra-b-travel": {"travel"},
		}},
		{"prices are no math", "## Trip\nIt costs $5 and #travel and $6, not 2$ #cheap.\n", map[string][]string{
			"n.md#trip": {"travel", "cheap"},
		}},
		{"escaped dollar", "## Trip\nIt costs \\$5 and #travel and \\$6.\n", map[string][]string{
			"n.md#trip": {"travel"},
		}},
		{"dollar in code", "## Trip\nRun `echo $` #travel `$`.\n", map[string][]string{
			"n.md#trip": {"travel"},
		}},
		{"right after math or a comment", "## Trip\nGo $x$#no and <!-- c -->#no2 then $y$ #travel\n", map[string][]string{
			"n.md#trip": {"travel"},
		}},
		{"HTML comment in a line", "## Trip\nGo <!-- #todo --> on. #travel\n", map[string][]string{
			"n.md#trip": {"travel"},
		}},
		{"HTML comment across lines", "## Trip\nGo. <!-- later:\n#todo\n--> #travel\n## Work\nShip.\n", map[string][]string{
			"n.md#trip": {"travel"},
			"n.md#work": nil,
		}},
		{"HTML comment block", "## Trip\nGo.\n<!--\n#todo\n## Hidden #x\n-->\n#travel\n", map[string][]string{
			"n.md#trip": {"travel"},
		}},
		{"HTML comment in a heading", "## Trip <!-- #todo -->\nGo.\n", map[string][]string{
			"n.md#trip": nil,
		}},
		{"Obsidian comment", "## Trip\nGo %% #hidden %% on. #travel\n%%\n#hidden2\n%%\n", map[string][]string{
			"n.md#trip": {"travel"},
		}},
		{"comment at the top is no note tag", "<!-- #todo -->\n#pinned\n## Trip\nGo.\n", map[string][]string{
			"n.md#top":  {"pinned"},
			"n.md#trip": {"pinned"},
		}},
		{"comment before a tag line", "<!-- pinned by hand --> #pinned\n## Trip\nGo.\n", map[string][]string{
			"n.md#top":  {"pinned"},
			"n.md#trip": {"pinned"},
		}},
		{"math at the top is no note tag", "$#x$ $$ #y $$\n## Trip\nGo.\n", map[string][]string{
			"n.md#top":  nil,
			"n.md#trip": nil,
		}},
	})
}

// TestRead_frontMatterTagForms: the forms of front matter tags Obsidian
// reads each tag every section: a list in brackets or in lines, one
// string of tags parted by commas or blanks, with or without their "#",
// and tag, the key's older singular spelling (any case), which was not
// read at all. A string with a blank ("a b/c", quoted or not) is a tag
// per word, not one tag "a b/c" nor none: Obsidian parts a string at
// its blanks as at its commas (jackyzha0/quartz pull 620: "Obsidian
// natively supports space-delimited tags:"; jhofker/obsidian-hoarder
// issue 4 and exmemo-ai/obsidian-exmemo-tools issue 20: a tag of words
// written as a string became a tag per word in Obsidian).
func TestRead_frontMatterTagForms(t *testing.T) {
	var tests []sectionTagCase
	for name, fm := range map[string]string{
		"list":          "---\ntags: [a, b/c]\n---",
		"list in lines": "---\ntags:\n  - a\n  - b/c\n---",
		"commas":        "---\ntags: a, b/c\n---",
		"hashes":        "---\ntags: \"#a #b/c\"\n---",
		"blanks":        "---\ntags: \"a b/c\"\n---",
		"blanks bare":   "---\ntags: a  b/c\n---",
		"both":          "---\ntags: \"a,b/c a\"\n---",
		"tag":           "---\ntag: a, b/c\n---",
		"tag list":      "---\ntag: [a, b/c]\n---",
		"Tag in lines":  "---\nTag:\n  - a\n  - '#b/c'\n---",
		"tags and tag":  "---\ntags: [a]\ntag: b/c\n---",
		"same in both":  "---\ntags: [a, b/c]\ntag: A\n---",
		"TOML tag":      "+++\ntag = \"a b/c\"\n+++",
	} {
		tests = append(tests, sectionTagCase{name, fm + "\n## Trip\nGo.\n", map[string][]string{"n.md#trip": {"a", "b/c"}}})
	}
	checkSectionTags(t, tests)
}

// TestRead_tagAfterNoBreakSpace: a #tag after a no-break space (U+00A0,
// as text pasted from a web page or a word processor has it) is a tag,
// as Obsidian reads it, as it reads one after any other blank; it was
// none. Its rules stand: "C#" and "x.#y" are still none.
func TestRead_tagAfterNoBreakSpace(t *testing.T) {
	checkSectionTags(t, []sectionTagCase{
		{"text", "## Trip\nBook it\u00a0#travel and\u00a0#trip to lisbon# C#\u00a0x.#no\n", map[string][]string{
			"n.md#trip": {"travel", "trip to lisbon"},
		}},
		{"tag line", "#pinned\u00a0#area/home\n## Trip\nGo.\n", map[string][]string{
			"n.md#top":  {"pinned", "area/home"},
			"n.md#trip": {"pinned", "area/home"},
		}},
	})
}

// TestRead_mathBlockLines: a line of a $$ block is math, never a heading
// ("# x" is TeX), so the block stays in its section, whose tags after it
// count; a "$$" that nothing closes opens no block and hides nothing
// ("$$$ money"). The block's "# x" opened a section, whose "$$" then
// hid the tags after it.
func TestRead_mathBlockLines(t *testing.T) {
	checkSectionTags(t, []sectionTagCase{
		{"heading-like line", "## Trip\n$$\n# x #inmath\n$$\nGo #travel\n", map[string][]string{
			"n.md#trip": {"travel"},
		}},
		{"unclosed", "## Trip\n$$$ money #travel\nmore #b\n## Work\nShip #work\n", map[string][]string{
			"n.md#trip": {"travel", "b"},
			"n.md#work": {"work"},
		}},
	})
}

// TestRead_tagRightAfterCodeSpan: a "#" right after a code span follows
// a backtick, no blank, so it is no tag ("`x`#y"), as it is none after
// any other punctuation; it was read as a tag at the start of a line.
func TestRead_tagRightAfterCodeSpan(t *testing.T) {
	checkSectionTags(t, []sectionTagCase{
		{"code span", "## Trip\nRun `make`#no then `x` #travel and ``y``#no2.\n", map[string][]string{
			"n.md#trip": {"travel"},
		}},
	})
}

// TestRead_frontMatterNumberTags: a front matter tag of digits alone
// ("1984", a year) is no tag, as Obsidian shows it struck out and counts
// none, as it counts no #1984 in text; "y1984" and "2024/q1" are tags.
func TestRead_frontMatterNumberTags(t *testing.T) {
	checkSectionTags(t, []sectionTagCase{
		{"list", "---\ntags: [1984, y1984, 2024/q1]\n---\n## Trip\nGo.\n", map[string][]string{
			"n.md#trip": {"y1984", "2024/q1"},
		}},
		{"string", "---\ntag: \"#1984, y1984\"\n---\n## Trip\nGo.\n", map[string][]string{
			"n.md#trip": {"y1984"},
		}},
	})
}

// TestRead_adjacentTags: a "#" right after a tag starts another, as
// Obsidian reads "#Bob#Alice" as the two tags Bob and Alice (forum.obsidian.md
// t/what-is-the-formal-syntax-surrounding-tags/12949: "a tag can be
// prefixed by a tag"); it was the one tag Bob. A "#" after a word that is
// no tag is still none ("x#a#b", "C#").
func TestRead_adjacentTags(t *testing.T) {
	checkSectionTags(t, []sectionTagCase{
		{"text", "## Trip\nGo #travel#lisbon and #a#b#c, not x#no#no2 or C#.\n", map[string][]string{
			"n.md#trip": {"travel", "lisbon", "a", "b", "c"},
		}},
		{"tag line", "#pinned#area/home\n## Trip\nGo.\n", map[string][]string{
			"n.md#top":  {"pinned", "area/home"},
			"n.md#trip": {"pinned", "area/home"},
		}},
	})
}

// TestRead_tagInTableCell: a #tag that opens a table cell with no blank
// before it ("|#travel|") is a tag, as Obsidian reads a cell's text on
// its own and reads a tag after a pipe, escaped too (forum.obsidian.md
// t/what-is-the-formal-syntax-surrounding-tags/12949: "a tag can be
// prefixed by a tag or an escaped pipe"); only a padded cell's was.
func TestRead_tagInTableCell(t *testing.T) {
	checkSectionTags(t, []sectionTagCase{
		{"table", "## Trips\n|Place|Tags|\n|---|---|\n|Lisbon|#travel|\n| Porto | #food |\n|x|#a#b|\n|#food|C#|\n|#wine|notes#|\n", map[string][]string{
			"n.md#trips": {"travel", "food", "a", "b", "wine"},
		}},
		{"escaped pipe", "## Trip\nGo a\\|#travel b|c, not x#no.\n", map[string][]string{
			"n.md#trip": {"travel"},
		}},
	})
}

// TestRead_emojiTags: a #tag may hold emoji, first or after a word
// ("#🚀launch", "#idea💡", a skin tone, a flag), as Obsidian reads it: its
// tag is "#" and anything but blanks and punctuation (the pattern of its
// app.js, in blacksmithgu/obsidian-dataview pull 1608; emoji tags in
// obsidianmd/obsidian-help pull 1016). They were no tag, or cut short.
// Punctuation still ends one ("‼", "!").
func TestRead_emojiTags(t *testing.T) {
	checkSectionTags(t, []sectionTagCase{
		{"text", "## Plan\nShip #🚀launch and #idea💡, #👍🏽 #done✅ #🇵🇹 #a‼b #c!d\n", map[string][]string{
			"n.md#plan": {"🚀launch", "idea💡", "👍🏽", "done✅", "🇵🇹", "a", "c"},
		}},
		{"tag line", "#🚀launch #idea💡\n## Plan\nGo.\n", map[string][]string{
			"n.md#top":  {"🚀launch", "idea💡"},
			"n.md#plan": {"🚀launch", "idea💡"},
		}},
	})
}

// TestRead_frontMatterTagWithSpace: a front matter list's tag with a
// blank in it ("my tag") is no tag, as Obsidian drops it (its
// parseFrontMatterTags keeps no tag with a space; "Tags can't contain
// blank spaces", help.obsidian.md/tags, as rps321321/obsidian-mcp-pro
// pull 194 follows it); it was the one tag "my tag", which no #tag in
// text can name. A Logseq page's "tags:: [[machine learning]]" is a page
// of several words, and stays (TestRead_logseqPageProperties).
func TestRead_frontMatterTagWithSpace(t *testing.T) {
	var tests []sectionTagCase
	for name, fm := range map[string]string{
		"list":          "---\ntags: [my tag, work]\n---",
		"list in lines": "---\ntags:\n  - my tag\n  - work\n  - \"tab\\tbed\"\n---",
		"tag":           "---\ntag: [\"my tag\", work]\n---",
		"TOML":          "+++\ntags = [\"my tag\", \"work\"]\n+++",
	} {
		tests = append(tests, sectionTagCase{name, fm + "\n## Trip\nGo.\n", map[string][]string{"n.md#trip": {"work"}}})
	}
	checkSectionTags(t, tests)
}

// TestRead_tagsInHTMLBlock: a "#" in an HTML block (CommonMark's: a
// line that opens with <div>, <p>, <table>..., up to a blank line; a
// line of one tag alone, which does not break a paragraph; <pre>,
// <script>, <style> up to their closing tag) is no tag, as Obsidian reads
// none there: it renders no Markdown inside one (forum.obsidian.md
// t/markup-tags-inside-html/75810: "Markdown only works in inline HTML
// ... I wouldn't expect them to work in HTML blocks"; mattcone/
// markdown-guide pull 158). They tagged the section, or the whole note
// from its top. A tag in inline HTML in a paragraph ("<span>Go
// #travel</span>") is still one, as Obsidian indexes it there (the same
// thread), and so is one after the blank line that ends the block.
func TestRead_tagsInHTMLBlock(t *testing.T) {
	checkSectionTags(t, []sectionTagCase{
		{"div", "## Trip\nGo #travel\n<div>x #no</div>\n\nAfter #after\n", map[string][]string{
			"n.md#trip": {"travel", "after"},
		}},
		{"div across lines", "## Trip\n<div class=\"box\">\n#no and #no2\n</div>\n\n#after\n", map[string][]string{
			"n.md#trip": {"after"},
		}},
		{"p and table", "## Trip\n<p>Go #no</p>\n\n<TABLE><tr><td>#no2</td></tr></TABLE>\n\n#after\n", map[string][]string{
			"n.md#trip": {"after"},
		}},
		{"pre up to its end", "## Trip\n<pre>\n#no\n\n#no2\n</pre> #no3\n#after\n", map[string][]string{
			"n.md#trip": {"after"},
		}},
		{"tag alone on a line", "## Trip\nGo #travel\n\n<section-x>\n#no\n\n#after\n", map[string][]string{
			"n.md#trip": {"travel", "after"},
		}},
		{"tag alone breaks no paragraph", "## Trip\nGo\n<span>\n#travel\n", map[string][]string{
			"n.md#trip": {"travel"},
		}},
		{"inline HTML", "## Trip\n<span>Go #travel</span> and <b>#bold</b> #b\n", map[string][]string{
			"n.md#trip": {"travel", "b"},
		}},
		{"at the top", "<div>\n#no\n</div>\n\n#pinned\n## Trip\nGo.\n", map[string][]string{
			"n.md#top":  {"pinned"},
			"n.md#trip": nil,
		}},
		{"in a heading", "## <div> #travel\nGo.\n", map[string][]string{
			"n.md#travel": {"travel"},
		}},
		{"indented four is code", "## Trip\n\n    <div>\n#travel\n", map[string][]string{
			"n.md#trip": {"travel"},
		}},
	})
}
