package ingest

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// TestRead_notesNotInUTF8: a note saved as Windows-1252 or UTF-16 reads as
// the text its author wrote, a byte-order mark hides no heading, and a
// UTF-8 note with a damaged byte keeps every character it got right:
// records hold only UTF-8.
func TestRead_notesNotInUTF8(t *testing.T) {
	encode16 := func(order binary.AppendByteOrder, mark []byte, s string) string {
		b := slices.Clone(mark)
		for _, u := range utf16.Encode([]rune(s)) {
			b = order.AppendUint16(b, u)
		}
		return string(b)
	}
	const note = "# Café\n\nLa crème coûte 5 €.\n"
	tests := []struct{ name, file, heading, want string }{
		{"Windows-1252", "# Caf\xe9\n\nLa cr\xe8me co\xfbte 5 \x80.\n", "Café", "La crème coûte 5 €."},
		{"UTF-8 with a damaged byte", "# 迁移\n\n定时任务失败\xff，原因是时区。\n", "迁移", "定时任务失败\ufffd，原因是时区。"},
		{"UTF-8", note, "Café", "La crème coûte 5 €."},
		{"UTF-8 with a byte-order mark", "\xef\xbb\xbf" + note, "Café", "La crème coûte 5 €."},
		{"UTF-16LE (Notepad)", encode16(binary.LittleEndian, []byte{0xff, 0xfe}, note), "Café", "La crème coûte 5 €."},
		{"UTF-16BE", encode16(binary.BigEndian, []byte{0xfe, 0xff}, note), "Café", "La crème coûte 5 €."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"note.md": tt.file})
			recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
			if len(recs) != 1 || len(problems) != 0 {
				t.Fatalf("%d records, problems %v", len(recs), problems)
			}
			if recs[0].Text != tt.want || !slices.Equal(recs[0].HeadingPath, []string{tt.heading}) {
				t.Errorf("text %q under %q, want %q under %q", recs[0].Text, recs[0].HeadingPath, tt.want, tt.heading)
			}
			for _, s := range append([]string{recs[0].Text, recs[0].Title}, recs[0].HeadingPath...) {
				if !utf8.ValidString(s) {
					t.Errorf("not UTF-8: %q", s)
				}
			}
		})
	}
}

// TestRead_setextHeadings: headings underlined with "=" or "-" open
// sections as "#" and "##" do, and "---" after a list, a quote or a blank
// line stays a thematic break in the text.
func TestRead_setextHeadings(t *testing.T) {
	note := strings.Join([]string{
		"Deploy notes",
		"============",
		"",
		"The port moved to 3037.",
		"",
		"Why it moved",
		"------------",
		"A conflict with 3036.",
		"",
		"- a list item",
		"---",
		"",
		"---",
		"after a break",
		"",
		"```",
		"code",
		"---",
		"```",
	}, "\n")
	dir := writeTree(t, map[string]string{"deploy.md": note})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(problems) != 0 || len(recs) != 2 {
		t.Fatalf("%d records, problems %v: %+v", len(recs), problems, recs)
	}
	if !slices.Equal(recs[0].HeadingPath, []string{"Deploy notes"}) || recs[0].Text != "The port moved to 3037." || recs[0].Line != 1 {
		t.Errorf("first section: %q at line %d: %q", recs[0].HeadingPath, recs[0].Line, recs[0].Text)
	}
	if !slices.Equal(recs[1].HeadingPath, []string{"Deploy notes", "Why it moved"}) || recs[1].Line != 6 ||
		!strings.HasPrefix(recs[1].Text, "A conflict with 3036.") || strings.Count(recs[1].Text, "---") != 3 {
		t.Errorf("second section: %q at line %d: %q", recs[1].HeadingPath, recs[1].Line, recs[1].Text)
	}
}

// TestRead_setextHeadingOfLines: a setext heading of several lines is
// their words, each line without the blanks around it, as CommonMark
// reads a paragraph's lines (spec.commonmark.org, 4.8 Paragraphs: the
// blanks a line opens with are stripped; 4.3: the heading's content is
// the paragraph's): a line ending in the two blanks of a hard line
// break, or one indented, kept them in the heading, "Deploy    notes".
func TestRead_setextHeadingOfLines(t *testing.T) {
	note := "Deploy  \n  notes\n===\nThe port moved.\n\nWhy it\n\tmoved\n---\nA conflict.\n"
	got := noteSections(t, "deploy.md", note)
	want := []string{"Deploy notes: The port moved.", "Deploy notes > Why it moved: A conflict."}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_lineEndings: a note whose lines end in CR alone (classic Mac
// OS, some exporters), in CRLF, or in CR CR LF (a CRLF file converted
// again) reads as the same sections as one with LF: CommonMark takes a
// lone CR for a line ending too. A note in CRs alone gave no record.
func TestRead_lineEndings(t *testing.T) {
	tests := map[string]string{
		"CR":       "# Deploy\r\rThe port moved to 3037.\r\r## Why\rA conflict with 3036.\r",
		"CRLF":     "# Deploy\r\n\r\nThe port moved to 3037.\r\n\r\n## Why\r\nA conflict with 3036.\r\n",
		"CR CR LF": "# Deploy\r\r\nThe port moved to 3037.\r\r\n## Why\r\r\nA conflict with 3036.\r\r\n",
	}
	for name, file := range tests {
		t.Run(name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"deploy.md": file})
			recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
			if len(problems) != 0 || len(recs) != 2 {
				t.Fatalf("%d records, problems %v: %+v", len(recs), problems, recs)
			}
			if !slices.Equal(recs[0].HeadingPath, []string{"Deploy"}) || recs[0].Text != "The port moved to 3037." || recs[0].Line != 1 {
				t.Errorf("first section: %q at line %d: %q", recs[0].HeadingPath, recs[0].Line, recs[0].Text)
			}
			if !slices.Equal(recs[1].HeadingPath, []string{"Deploy", "Why"}) || recs[1].Text != "A conflict with 3036." || recs[1].Line != 5 {
				t.Errorf("second section: %q at line %d: %q", recs[1].HeadingPath, recs[1].Line, recs[1].Text)
			}
		})
	}
}

// TestRead_frontMatterEnds: an empty front matter block (Jekyll's "---"
// twice, which marks a page to process), YAML closed by "..." (its end of
// document, which Pandoc and Jekyll accept) and a block whose fence line
// has trailing blanks (Jekyll allows them) are front matter, not text:
// the empty block made every section of the note one under a heading
// "---", a block closed by "..." was the note's first text, its title,
// date and tags lost, and an opening "--- " made the block's last line a
// heading.
func TestRead_frontMatterEnds(t *testing.T) {
	tests := []struct{ name, file, title, date string }{
		{"empty YAML", "---\n---\nThe port moved to 3037.\n", "deploy", "2023-01-02"},
		{"empty TOML", "+++\n+++\nThe port moved to 3037.\n", "deploy", "2023-01-02"},
		{"YAML null", "---\n~\n---\nThe port moved to 3037.\n", "deploy", "2023-01-02"},
		{"YAML closed by ...", "---\ntitle: Deploy\ndate: 2024-03-05\ntags: [ops]\n...\nThe port moved to 3037.\n", "Deploy", "2024-03-05"},
		{"closing line with trailing spaces", "---\ntitle: Deploy\ndate: 2024-03-05\ntags: [ops]\n---  \nThe port moved to 3037.\n", "Deploy", "2024-03-05"},
		{"opening line with trailing spaces", "--- \ntitle: Deploy\ndate: 2024-03-05\ntags: [ops]\n---\nThe port moved to 3037.\n", "Deploy", "2024-03-05"},
		{"TOML opening line with a trailing tab", "+++\t\ntitle = \"Deploy\"\ndate = 2024-03-05\ntags = [\"ops\"]\n+++\nThe port moved to 3037.\n", "Deploy", "2024-03-05"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"deploy.md": tt.file})
			mtime := time.Date(2023, 1, 2, 12, 0, 0, 0, time.Local)
			if err := os.Chtimes(filepath.Join(dir, "deploy.md"), mtime, mtime); err != nil {
				t.Fatal(err)
			}
			recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
			if len(problems) != 0 || len(recs) != 1 {
				t.Fatalf("%d records, problems %v: %+v", len(recs), problems, recs)
			}
			r := recs[0]
			if r.Text != "The port moved to 3037." || len(r.HeadingPath) != 0 || r.Title != tt.title || r.Date != tt.date ||
				r.Line != strings.Count(tt.file, "\n") {
				t.Errorf("record %q under %q titled %q of %s at line %d", r.Text, r.HeadingPath, r.Title, r.Date, r.Line)
			}
			if tt.title == "Deploy" && !slices.Equal(r.Tags, []string{"ops"}) {
				t.Errorf("tags %q", r.Tags)
			}
		})
	}
}

// TestRead_datesWithOffsets: a time with an offset written as Jekyll
// writes it in front matter ("2017-06-02 23:51:00 +0200"), as Python's
// str() does ("2026-03-05 10:30:00.123456+00:00") or as strftime's %z
// does ("+0100") is the instant written, dated in its own offset: a note
// was dated by its modification time instead, and a JSONL record was
// skipped.
func TestRead_datesWithOffsets(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"about.md": "---\ntitle: About\ndate: 2017-06-02 23:51:00 +0200\n---\nWhy the blog moved.\n",
		"r.jsonl": `{"id":"py","text":"str of an aware datetime","date":"2026-03-05 10:30:00.123456+00:00"}` + "\n" +
			`{"id":"strftime","text":"strftime with %z","date":"2026-03-05T23:30:00-0500"}` + "\n",
	})
	mtime := time.Date(2023, 1, 2, 12, 0, 0, 0, time.Local)
	if err := os.Chtimes(filepath.Join(dir, "about.md"), mtime, mtime); err != nil {
		t.Fatal(err)
	}
	notes, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(notes) != 1 || len(problems) != 0 {
		t.Fatalf("%d notes, problems %v", len(notes), problems)
	}
	if n := notes[0]; n.Date != "2017-06-02" || !n.Time.Equal(time.Date(2017, 6, 2, 21, 51, 0, 0, time.UTC)) {
		t.Errorf("note dated %s at %v, want 2017-06-02 at 21:51 UTC", n.Date, n.Time)
	}
	recs, problems := collect(t, config.Source{Name: "recs", Kind: config.KindJSONL, Path: dir})
	if len(recs) != 2 || len(problems) != 0 {
		t.Fatalf("%d records, problems %v", len(recs), problems)
	}
	want := map[string]time.Time{
		"py":       time.Date(2026, 3, 5, 10, 30, 0, 123456000, time.UTC),
		"strftime": time.Date(2026, 3, 6, 4, 30, 0, 0, time.UTC),
	}
	for _, r := range recs {
		if r.Date != "2026-03-05" || !r.Time.Equal(want[r.ID]) {
			t.Errorf("record %s dated %s at %v, want 2026-03-05 at %v", r.ID, r.Date, r.Time, want[r.ID])
		}
	}
}

// TestRead_fencedCode: a "#" line in a code block is code, also in a
// block that shows a fenced block (a longer fence, "````", around "```"
// lines: a prompt template, a note on Markdown), and a line that only
// begins with "```" (inline code: ```npm ci``` runs it) opens no block:
// the inner fence closed the outer one, so the example's comment opened
// a section, and the inline code hid every heading after it up to the
// next fence.
func TestRead_fencedCode(t *testing.T) {
	note := strings.Join([]string{
		"# Prompt",
		"````markdown",
		"```python",
		"# a comment in the example",
		"```",
		"````",
		"## Setup",
		"```npm ci``` installs it",
		"## Run",
		"```sh",
		"make run",
		"```sh",
		"# still code: a fence with an info string closes nothing",
		"```",
		"done",
	}, "\n")
	got := noteSections(t, "prompt.md", note)
	want := []string{
		"Prompt: ````markdown|```python|# a comment in the example|```|````",
		"Prompt > Setup: ```npm ci``` installs it",
		"Prompt > Run: ```sh|make run|```sh|# still code: a fence with an info string closes nothing|```|done",
	}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_obsidianComments: an Obsidian comment (%% ... %%) is left out
// of the index wherever it is, a heading in one included (a section
// commented out), and "%%" in code is code: a shell ${f%%.*}, a batch
// file's %%f. The comment's heading opened a section that took the text
// after the comment, and the text between two "%%" of code was cut out.
func TestRead_obsidianComments(t *testing.T) {
	note := strings.Join([]string{
		"# Plan",
		"Ship on Friday. %%ask Ana%%",
		"%%",
		"## Old plan",
		"Ship on Monday.",
		"%%",
		"Tell the team.",
		"## Scripts",
		"```sh",
		"base=${file%%.*}",
		"echo rotate the staging keys first",
		"dir=${path%%/*}",
		"```",
		"Strip it with `${f%%.*}`, then:",
		"~~~bat",
		"for %%f in (*.log) do del %%f",
		"~~~",
		"## Last",
		"A %% that never closes stays.",
	}, "\n")
	got := noteSections(t, "plan.md", note)
	want := []string{
		"Plan: Ship on Friday.|Tell the team.",
		"Plan > Scripts: ```sh|base=${file%%.*}|echo rotate the staging keys first|dir=${path%%/*}|```|Strip it with `${f%%.*}`, then:|~~~bat|for %%f in (*.log) do del %%f|~~~",
		"Plan > Last: A %% that never closes stays.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_frontMatterTagsWithHash: tags written with their "#" (as a
// note writes them in its text) are the same tags whether front matter
// lists them or gives them as one string: the string kept the "#", so
// a search for the tag did not find the note's sections.
func TestRead_frontMatterTagsWithHash(t *testing.T) {
	for name, tags := range map[string]string{"list": `["#ops", "#billing/invoices"]`, "string": `"#ops #billing/invoices"`, "commas": `"#ops, #billing/invoices"`} {
		t.Run(name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"n.md": "---\ntags: " + tags + "\n---\nThe invoices job moved.\n"})
			recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
			if len(recs) != 1 || len(problems) != 0 {
				t.Fatalf("%d records, problems %v", len(recs), problems)
			}
			if !slices.Equal(recs[0].Tags, []string{"ops", "billing/invoices"}) {
				t.Errorf("tags %q", recs[0].Tags)
			}
		})
	}
}

// TestRead_headingEndingInHash: only a run of "#" after a space closes an
// ATX heading, as in CommonMark: "## Learning C#" was the heading
// "Learning C".
func TestRead_headingEndingInHash(t *testing.T) {
	dir := writeTree(t, map[string]string{"langs.md": "# Languages ##\n\n## Learning C#\nStart with LINQ.\n\n## F# #\nPipelines.\n"})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(recs) != 2 || len(problems) != 0 {
		t.Fatalf("%d records, problems %v", len(recs), problems)
	}
	if !slices.Equal(recs[0].HeadingPath, []string{"Languages", "Learning C#"}) || !slices.Equal(recs[1].HeadingPath, []string{"Languages", "F#"}) {
		t.Errorf("headings %q and %q", recs[0].HeadingPath, recs[1].HeadingPath)
	}
}

// TestRead_indentedHeading: as in CommonMark, an ATX heading may be
// indented up to three spaces (a note pasted from an indented block, an
// editor that keeps the previous line's indent); four spaces make it
// indented code. The indented heading was read as text of the section
// before it.
func TestRead_indentedHeading(t *testing.T) {
	note := "# Deploy\nSteps.\n   ## Rollback\nRun the script.\n    ## not a heading\n"
	got := noteSections(t, "deploy.md", note)
	want := []string{"Deploy: Steps.", "Deploy > Rollback: Run the script.|    ## not a heading"}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_htmlCommentBlock: a heading in an HTML comment (a section
// commented out) opens no section, as the comment is one HTML block in
// CommonMark: it did, and took the text after the comment from the
// section the comment is in.
func TestRead_htmlCommentBlock(t *testing.T) {
	note := "# Plan\nShip on Friday.\n<!--\n## Old plan\nShip on Monday.\n-->\nTell the team.\n<!-- one line -->\n## Next\nReview.\n"
	got := noteSections(t, "plan.md", note)
	want := []string{
		"Plan: Ship on Friday.|<!--|## Old plan|Ship on Monday.|-->|Tell the team.|<!-- one line -->",
		"Plan > Next: Review.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_headingInHTMLBlock: a line like a heading in an HTML block
// is HTML, as CommonMark reads it (spec.commonmark.org, 4.6 HTML blocks):
// a block element's tag (<div>, <details>...) or a tag alone on its line
// opens one up to a blank line, <pre>, <script>, <style> and <textarea>
// up to their closing tag. Such a line opened a section, which took the
// rest of the block (its closing tag too) from the section it is in. A
// heading after the blank line that ends a block is one, and a tag alone
// on its line breaks no paragraph, so a heading after it is one too.
func TestRead_headingInHTMLBlock(t *testing.T) {
	tests := []struct {
		name, note string
		want       []string
	}{
		{"div", "# Plan\nShip on Friday.\n<div class=\"old\">\n## Old plan\nShip on Monday.\n</div>\n\n## Next\nReview.\n",
			[]string{"Plan: Ship on Friday.|<div class=\"old\">|## Old plan|Ship on Monday.|</div>", "Plan > Next: Review."}},
		{"details up to a blank line", "# Log\n<details>\n<summary>Day 1</summary>\n## Deployed\n</details>\n\n<details>\n\n## Day 2\nRolled back.\n\n</details>\n",
			[]string{"Log: <details>|<summary>Day 1</summary>|## Deployed|</details>||<details>", "Log > Day 2: Rolled back.||</details>"}},
		{"pre across blank lines", "# Log\n<pre>\n# not a heading\n\n# nor this\n</pre>\n## Next\nReview.\n",
			[]string{"Log: <pre>|# not a heading||# nor this|</pre>", "Log > Next: Review."}},
		{"tag alone on its line", "# Log\n\n<x-card>\n# inside\nText\n===\n</x-card>\n\n## Next\nReview.\n",
			[]string{"Log: <x-card>|# inside|Text|===|</x-card>", "Log > Next: Review."}},
		{"tag alone breaks no paragraph", "# Log\nSome text\n<span>\n## Next\nReview.\n",
			[]string{"Log: Some text|<span>", "Log > Next: Review."}},
		{"tag alone after a heading", "# Log\n<x-card>\n## inside\n</x-card>\n",
			[]string{"Log: <x-card>|## inside|</x-card>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := noteSections(t, "log.md", tt.note); !slices.Equal(got, tt.want) {
				t.Errorf("sections\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestRead_frontMatterListProperty: a front matter field that names one
// thing given as a list (an Obsidian list property, an unquoted
// [[link]]) costs the note only that field: a list of one is its value,
// a longer list is reported and left out. The whole block was dropped as
// "not valid YAML" (or TOML), the note's title, date and tags with it.
func TestRead_frontMatterListProperty(t *testing.T) {
	tests := map[string]string{
		"YAML": "---\ntitle: Deploy\ndate: 2024-03-05\ntags: [ops]\nproject: [[Nova]]\nagent:\n  - codex\n  - claude\n---\nThe port moved to 3037.\n",
		"TOML": "+++\ntitle = \"Deploy\"\ndate = 2024-03-05\ntags = [\"ops\"]\nproject = [\"Nova\"]\nagent = [\"codex\", \"claude\"]\n+++\nThe port moved to 3037.\n",
	}
	for name, note := range tests {
		t.Run(name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"deploy.md": note})
			recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
			if len(recs) != 1 || len(problems) != 1 {
				t.Fatalf("%d records, problems %v", len(recs), problems)
			}
			r := recs[0]
			if r.Title != "Deploy" || r.Date != "2024-03-05" || !slices.Equal(r.Tags, []string{"ops"}) || r.Project != "Nova" || r.Agent != "" {
				t.Errorf("title %q date %q tags %q project %q agent %q", r.Title, r.Date, r.Tags, r.Project, r.Agent)
			}
			if p := problems[0]; p.Line != 1 || !strings.Contains(p.Reason, `"agent"`) {
				t.Errorf("problem %v", p)
			}
		})
	}
}

// noteRecords reads note as the file name in a Markdown source, which
// must raise no problem, and returns its records.
func noteRecords(t *testing.T, name, note string) []memory.Record {
	t.Helper()
	dir := writeTree(t, map[string]string{name: note})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(problems) != 0 {
		t.Fatalf("problems %v", problems)
	}
	return recs
}

// noteSections reads note as the file name in a Markdown source, which
// must raise no problem, and returns its sections as "heading > path:
// text", the text's lines joined by "|".
func noteSections(t *testing.T, name, note string) []string {
	t.Helper()
	var got []string
	for _, r := range noteRecords(t, name, note) {
		got = append(got, strings.Join(r.HeadingPath, " > ")+": "+strings.ReplaceAll(r.Text, "\n", "|"))
	}
	return got
}

// TestRead_secretInHeading: a secret in a heading leaves no trace in the
// record's id, which is made of the headings. The title and heading path
// were redacted, but the id's slug (lower case, '_' made '-') hid the
// secret's shape from the rules: notes.md#keys-rotated-ghp-q8rz3k...
func TestRead_secretInHeading(t *testing.T) {
	secrets := []string{
		"ghp_q8Rz3kWm5Tn0Vb7Yc2Xl9Pd4Hf6Js1Ga8Ke3",
		"AKIAZ3MSJV4WWNKWW5FG",
		"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
		"Zx9Qw8Er7Ty6",
	}
	note := "# Keys\n\n## Rotated " + secrets[0] + "\nDone.\n\n## AWS " + secrets[1] + "\nOld.\n\n## Token " + secrets[2] + "\nGone.\n\n## DB password: " + secrets[3] + "\nMoved.\n"
	dir := writeTree(t, map[string]string{"keys.md": note})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(recs) != 4 || len(problems) != 0 {
		t.Fatalf("%d records, problems %v", len(recs), problems)
	}
	for i, r := range recs {
		for _, s := range secrets {
			s = strings.ToLower(strings.ReplaceAll(s, "_", "-"))
			if strings.Contains(strings.ToLower(r.ID+r.Title+strings.Join(r.HeadingPath, "|")), s[:12]) {
				t.Errorf("record %d: id %q title %q headings %q hold a secret", i, r.ID, r.Title, r.HeadingPath)
			}
		}
		if r.Redactions < 1 {
			t.Errorf("record %d (%s): %d redactions counted", i, r.ID, r.Redactions)
		}
	}
	if recs[0].ID != "keys.md#keys-rotated-redacted" {
		t.Errorf("id %q", recs[0].ID)
	}
}

// TestRead_breakAfterCodeBlock: "---" right after a fenced code block or
// an HTML comment is a thematic break, as in CommonMark, since neither is
// a paragraph an underline makes a heading of; text after the block is
// one. The code block became a heading ("```sh make run ```") that took
// the code out of the text and the text after it into a section of its
// own.
func TestRead_breakAfterCodeBlock(t *testing.T) {
	note := strings.Join([]string{
		"# Deploy",
		"```sh",
		"make run",
		"",
		"make check",
		"```",
		"---",
		"<!--",
		"draft",
		"",
		"more draft",
		"-->",
		"---",
		"~~~",
		"make clean",
		"~~~",
		"Rollback",
		"--------",
		"Run the script.",
	}, "\n")
	got := noteSections(t, "deploy.md", note)
	want := []string{
		"Deploy: ```sh|make run||make check|```|---|<!--|draft||more draft|-->|---|~~~|make clean|~~~",
		"Deploy > Rollback: Run the script.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_frontMatterTimeWithoutOffset: a front matter time written
// without an offset, as Jekyll and Obsidian write it, is a time in the
// note's zone (the one its reader is given) however it is written. YAML
// reads "2024-03-05 23:30:00" unquoted as UTC, so such a note was nine
// hours late in Tokyo, while the same time quoted, with a "T", or in
// TOML was read in the zone.
func TestRead_frontMatterTimeWithoutOffset(t *testing.T) {
	jst := time.FixedZone("JST", 9*3600)
	want := time.Date(2024, 3, 5, 14, 30, 0, 0, time.UTC)
	tests := map[string]string{
		"YAML":          "---\ndate: 2024-03-05 23:30:00\n---\nThe port moved.\n",
		"YAML created":  "---\ncreated: 2024-03-05 23:30:00.000\n---\nThe port moved.\n",
		"YAML quoted":   "---\ndate: \"2024-03-05 23:30:00\"\n---\nThe port moved.\n",
		"YAML with a T": "---\ndate: 2024-03-05T23:30\n---\nThe port moved.\n",
		"YAML in UTC":   "---\ndate: 2024-03-05T14:30:00Z\n---\nThe port moved.\n",
		"TOML":          "+++\ndate = 2024-03-05T23:30:00\n+++\nThe port moved.\n",
	}
	for name, note := range tests {
		t.Run(name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"deploy.md": note})
			var recs []memory.Record
			fc := &fileCtx{ctx: context.Background(), src: config.Source{Name: "notes", Kind: config.KindMarkdown}, path: filepath.Join(dir, "deploy.md"), rel: "deploy.md",
				sink: Sink{Record: func(r memory.Record) error { recs = append(recs, r); return nil }, Problem: func(p Problem) { t.Error(p) }}, loc: jst}
			if err := readMarkdown(fc); err != nil {
				t.Fatal(err)
			}
			if len(recs) != 1 || !recs[0].Time.Equal(want) || recs[0].Date != "2024-03-05" {
				t.Fatalf("records %+v; want one at 23:30 JST (14:30 UTC) on 2024-03-05", recs)
			}
		})
	}
}

// TestRead_fileNameDate: a note without a date of its own is dated by
// the YYYY-MM-DD in its file name (an Obsidian daily note, a Jekyll
// post), by Logseq's YYYY_MM_DD (its journals/2024_03_05.md) and by a
// Zettelkasten id, the moment it was made as YYYYMMDDHHmm or
// YYYYMMDDHHmmss (Zettlr, The Archive, Obsidian's unique note prefix), or
// a compact YYYYMMDD; Logseq journals and Zettelkasten notes were dated
// by their modification time, the day a sync or an edit touched them.
// Digits that are no date, or not a whole id, date nothing.
func TestRead_fileNameDate(t *testing.T) {
	for name, want := range map[string]string{
		"journals/2024_03_05.md":              "2024-03-05",
		"daily/2024-03-05.md":                 "2024-03-05",
		"2024-03-05-deploy.md":                "2024-03-05",
		"2024_13_05.md":                       "2023-01-02",
		"2024-03_05.md":                       "2023-01-02",
		"zettel/202403051030 Atomic notes.md": "2024-03-05",
		"zettel/20240305143000.md":            "2024-03-05",
		"20240305 standup.md":                 "2024-03-05",
		"12345678 invoice.md":                 "2023-01-02",
		"2024030512 draft.md":                 "2023-01-02",
		"ticket 20240305.md":                  "2023-01-02",
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{name: "- The port moved to 3037.\n"})
			mtime := time.Date(2023, 1, 2, 12, 0, 0, 0, time.Local)
			if err := os.Chtimes(filepath.Join(dir, name), mtime, mtime); err != nil {
				t.Fatal(err)
			}
			recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
			if len(recs) != 1 || len(problems) != 0 {
				t.Fatalf("%d records, problems %v", len(recs), problems)
			}
			if recs[0].Date != want {
				t.Errorf("dated %s, want %s", recs[0].Date, want)
			}
		})
	}
}

// TestRead_headingMarkup: a section's title and heading path are the
// heading's text, as a reader sees it rendered: without emphasis, link
// targets, code span backticks or escapes, and a code span's text as it
// is written. They kept the markup ("**Deploy** to [prod](https://...)"),
// and the record's id the link's address.
func TestRead_headingMarkup(t *testing.T) {
	tests := []struct{ heading, want, id string }{
		{"**Deploy** to [prod](https://wiki.example.com/prod \"Prod\")", "Deploy to prod", "deploy-to-prod"},
		{"The `__init__` method and `a*b*c`", "The __init__ method and a*b*c", "the-init-method-and-a-b-c"},
		{"__Why__ it *moved* and _when_", "Why it moved and when", "why-it-moved-and-when"},
		{"snake_case_name and 2 * 3 * 4", "snake_case_name and 2 * 3 * 4", "snake-case-name-and-2-3-4"},
		{"~~Old~~ ==new== plan ![icon](i.png) [[Nova|the project]]", "Old new plan icon the project", "old-new-plan-icon-the-project"},
		{"1\\. Intro \\*not emphasis\\*", "1. Intro *not emphasis*", "1-intro-not-emphasis"},
		{"See [the docs][docs] and <https://example.com>", "See the docs and https://example.com", "see-the-docs-and-https-example-com"},
		{"Learning C#", "Learning C#", "learning-c"},
		{"Setup <a id=\"setup\"></a>", "Setup", "setup"},
		{"<kbd>Ctrl</kbd>+<kbd>C</kbd> stops <span style='color: red'>it</span><br/><!-- todo -->", "Ctrl+C stops it", "ctrl-c-stops-it"},
		{"When a < b and the `<div>` tag", "When a < b and the <div> tag", "when-a-b-and-the-div-tag"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"n.md": "## " + tt.heading + "\nThe text.\n"})
			recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
			if len(recs) != 1 || len(problems) != 0 {
				t.Fatalf("%d records, problems %v", len(recs), problems)
			}
			r := recs[0]
			// The note's name (its file name) leads the title.
			if r.Title != "n > "+tt.want || !slices.Equal(r.HeadingPath, []string{tt.want}) || r.ID != "n.md#"+tt.id {
				t.Errorf("title %q, heading path %q, id %q; want \"n > %s\" and id n.md#%s", r.Title, r.HeadingPath, r.ID, tt.want, tt.id)
			}
		})
	}
}

// TestRead_noteOpensWithBreak: a note that opens with a thematic break
// ("---") has no front matter when the block up to the next "---" is not
// a YAML mapping (prose, a list): it is the note's text, and no problem.
// It was reported as front matter that is not valid YAML and left out of
// the index.
func TestRead_noteOpensWithBreak(t *testing.T) {
	tests := map[string]struct{ file, want string }{
		"prose": {"---\nJust a thought, then ship on Friday.\n\n---\nMore.\n", ": ---|Just a thought, then ship on Friday.||---|More."},
		"list":  {"---\n- ship on Friday\n- tell Ana\n---\nMore.\n", ": ---|- ship on Friday|- tell Ana|---|More."},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got := noteSections(t, "thought.md", tt.file)
			if !slices.Equal(got, []string{tt.want}) {
				t.Errorf("sections %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRead_setextAfterBreakOrList: a thematic break ends the paragraph
// before it, so only the text after it is a setext heading's, and "---"
// after a list item's lines (a line that continues the item included)
// is a thematic break, as in CommonMark. The break and the text before
// it were made part of the heading, and the list its heading.
func TestRead_setextAfterBreakOrList(t *testing.T) {
	note := "Intro.\n***\nRollback\n---\nRun it.\n\nSteps:\n- stop the job\nand wait\n---\nDone.\n"
	got := noteSections(t, "deploy.md", note)
	want := []string{": Intro.|***", "Rollback: Run it.||Steps:|- stop the job|and wait|---|Done."}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_setextAfterTable: "---" or "===" right after a table written
// without its outer pipes ("Name | Value" over "--- | ---", as GitHub
// Flavored Markdown allows: github.github.com/gfm, 4.10 Tables) is no
// setext underline: a table's rows are no paragraph, "---" is a thematic
// break that ends the table, and "===" one more row. The whole table was
// made a heading, its cells the section's title and gone from its text.
// Text after a blank line that ends the table is a paragraph again.
func TestRead_setextAfterTable(t *testing.T) {
	tests := []struct {
		name, note string
		want       []string
	}{
		{"break", "# Ports\nName | Value\n---- | :----:\nweb | 3037\n---\nMoved in May.\n",
			[]string{"Ports: Name | Value|---- | :----:|web | 3037|---|Moved in May."}},
		{"a row of =", "# Ports\n\nName | Value\n--- | ---\nweb | 3037\n===\nMoved in May.\n",
			[]string{"Ports: Name | Value|--- | ---|web | 3037|===|Moved in May."}},
		{"one column", "# Ports\nName |\n--- |\nweb |\n---\n",
			[]string{"Ports: Name ||--- ||web ||---"}},
		{"heading after the table", "# Ports\nName | Value\n--- | ---\nweb | 3037\n\nHistory\n---\nMoved in May.\n",
			[]string{"Ports: Name | Value|--- | ---|web | 3037", "Ports > History: Moved in May."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := noteSections(t, "ports.md", tt.note); !slices.Equal(got, tt.want) {
				t.Errorf("sections\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestRead_wikiLinksNotInCode: a wiki link becomes its text in a note's
// prose, and "[[" in code is code, as Obsidian shows it: a shell test
// (if [[ -f x ]]) in a fenced block or a code span lost its brackets, and
// a Lua string ([[...]]) its delimiters.
func TestRead_wikiLinksNotInCode(t *testing.T) {
	note := strings.Join([]string{
		"# Script",
		"```sh",
		"if [[ -f /etc/nova.yaml ]]; then echo ok; fi",
		"```",
		"Run `[[ -d ~/.nova ]] || mkdir ~/.nova` first, see [[Deploy|the deploy note]] and ![[diagram.png]].",
		"~~~lua",
		"local s = [[two lines]] ^raw",
		"~~~",
		"Done. ^done-1",
		"",
		"^block-2",
	}, "\n")
	got := noteSections(t, "script.md", note)
	want := []string{"Script: ```sh|if [[ -f /etc/nova.yaml ]]; then echo ok; fi|```|" +
		"Run `[[ -d ~/.nova ]] || mkdir ~/.nova` first, see the deploy note and diagram.png.|~~~lua|local s = [[two lines]] ^raw|~~~|Done."}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_frontMatterUpdatedDate: a note whose front matter gives no
// date or created but the day it was last changed (updated, modified, or
// Hugo's lastmod) is dated by that, not by its modification time (the
// day a sync or a bulk edit touched the file); date and created come
// first.
func TestRead_frontMatterUpdatedDate(t *testing.T) {
	jst := time.FixedZone("JST", 9*3600)
	tests := map[string]struct{ note, date string }{
		"updated":            {"---\nupdated: 2024-05-01\n---\nx\n", "2024-05-01"},
		"modified":           {"---\nmodified: 2024-05-02 08:15:00\n---\nx\n", "2024-05-02"},
		"lastmod":            {"+++\nlastmod = 2024-05-03T10:00:00+09:00\n+++\nx\n", "2024-05-03"},
		"created first":      {"---\nupdated: 2024-05-01\ncreated: 2024-01-01\n---\nx\n", "2024-01-01"},
		"not a date skipped": {"---\nupdated: soon\nmodified: 2024-05-04\n---\nx\n", "2024-05-04"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"n.md": tt.note})
			mtime := time.Date(2023, 1, 2, 12, 0, 0, 0, time.Local)
			if err := os.Chtimes(filepath.Join(dir, "n.md"), mtime, mtime); err != nil {
				t.Fatal(err)
			}
			var recs []memory.Record
			fc := &fileCtx{ctx: context.Background(), src: config.Source{Name: "notes", Kind: config.KindMarkdown}, path: filepath.Join(dir, "n.md"), rel: "n.md",
				sink: Sink{Record: func(r memory.Record) error { recs = append(recs, r); return nil }, Problem: func(p Problem) { t.Error(p) }}, loc: jst}
			if err := readMarkdown(fc); err != nil {
				t.Fatal(err)
			}
			if len(recs) != 1 || recs[0].Date != tt.date {
				t.Fatalf("records %+v; want one dated %s", recs, tt.date)
			}
			if name == "modified" && !recs[0].Time.Equal(time.Date(2024, 5, 1, 23, 15, 0, 0, time.UTC)) {
				t.Errorf("time %v, want 08:15 JST", recs[0].Time)
			}
		})
	}
}

// TestRead_frontMatterLinks: a front matter field that links a note, as
// Obsidian writes a link property ("[[Nova]]", quoted), names the linked
// note, and links in a title read as their text: the project was
// "[[Nova]]", which no search for project Nova matched, while the
// unquoted [[Nova]] gave Nova.
func TestRead_frontMatterLinks(t *testing.T) {
	note := "---\ntitle: \"Notes on [[Nova|the recall service]]\"\nproject: \"[[Nova]]\"\nagent: '[[codex#Setup|Codex CLI]]'\n---\nThe port moved to 3037.\n"
	dir := writeTree(t, map[string]string{"deploy.md": note})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(recs) != 1 || len(problems) != 0 {
		t.Fatalf("%d records, problems %v", len(recs), problems)
	}
	if r := recs[0]; r.Title != "Notes on the recall service" || r.Project != "Nova" || r.Agent != "codex" {
		t.Errorf("title %q project %q agent %q", r.Title, r.Project, r.Agent)
	}
}

// TestRead_logseqPageProperties: the "key:: value" lines a Logseq page
// opens with are its properties: its title (a namespaced page's
// "projects/nova", whose file is projects___nova.md), its tags (links,
// words, #tags, split at commas) and its date give the records theirs, as
// front matter does, and stay in the text Logseq shows. The title was
// the file name and the tags none.
func TestRead_logseqPageProperties(t *testing.T) {
	note := "title:: projects/nova\ntags:: [[machine learning]], ops, #billing\ndate:: 2024-03-05\n\n- The port moved to 3037.\n  - Tell Ana.\n- status:: not a page property\n"
	dir := writeTree(t, map[string]string{"pages/projects___nova.md": note})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(recs) != 1 || len(problems) != 0 {
		t.Fatalf("%d records, problems %v", len(recs), problems)
	}
	r := recs[0]
	if r.Title != "projects/nova" || !slices.Equal(r.Tags, []string{"machine learning", "ops", "billing"}) || r.Date != "2024-03-05" {
		t.Errorf("title %q tags %q date %s", r.Title, r.Tags, r.Date)
	}
	if r.Text != strings.Replace(strings.TrimSpace(note), "[[machine learning]]", "machine learning", 1) || r.Line != 1 {
		t.Errorf("text %q at line %d", r.Text, r.Line)
	}
}

// TestRead_inlineTags: a #tag in a note's text tags the section it is
// written in, as Obsidian and Bear (whose notes have no front matter,
// only such tags) read it, beside the note's front matter tags, and one
// in its heading (as Obsidian counts it): not one in code, in a link or
// a number (issue #123). A note
// tagged only in its text had no tags, so a search by tag did not find
// it.
func TestRead_inlineTags(t *testing.T) {
	note := strings.Join([]string{
		"---",
		"tags: [ops]",
		"---",
		"# Deploy #draft",
		"The port moved. #billing/invoices #Ops #ops",
		"`#notatag`, issue #123, C#, [x](#anchor) and https://example.com/#frag.",
		"```sh",
		"#comment in code",
		"```",
		"## Later",
		"Also #年度计划.",
	}, "\n")
	dir := writeTree(t, map[string]string{"deploy.md": note})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(recs) != 2 || len(problems) != 0 {
		t.Fatalf("%d records, problems %v", len(recs), problems)
	}
	want := map[string][]string{"deploy.md#deploy-draft": {"ops", "draft", "billing/invoices"}, "deploy.md#deploy-draft-later": {"ops", "年度计划"}}
	for _, r := range recs {
		if !slices.Equal(r.Tags, want[r.ID]) {
			t.Errorf("%s: tags %q, want %q", r.ID, r.Tags, want[r.ID])
		}
	}
}

// TestRead_sectionTags: a #tag written in one section of a note tags
// that section, not the others: every section had all the note's tags,
// so a search filtered to #travel returned the note's sections about
// work. Front matter tags, and those of a line of tags alone at the top
// of the note (before any heading or text), tag every section; a tag in
// code tags none.
func TestRead_sectionTags(t *testing.T) {
	tests := []struct {
		name, note string
		want       map[string][]string // by record id
	}{
		{"front matter and sections", strings.Join([]string{
			"---",
			"tags: [ops]",
			"---",
			"Intro text.",
			"## Travel",
			"Book the train. #travel #trip/lisbon #Ops",
			"```sh",
			"#notatag",
			"echo hi #nope",
			"```",
			"And `#span` too.",
			"## Work",
			"Ship the release. #work/ops #travel-plans",
			"### Standup",
			"Nothing tagged here.",
		}, "\n"), map[string][]string{
			"n.md#top":          {"ops"},
			"n.md#travel":       {"ops", "travel", "trip/lisbon"},
			"n.md#work":         {"ops", "work/ops", "travel-plans"},
			"n.md#work-standup": {"ops"},
		}},
		{"tag line at the top", strings.Join([]string{
			"---",
			"tags: [ops]",
			"---",
			"",
			"#pinned #area/home, #trip to lisbon#",
			"#Ops",
			"",
			"Intro text. #intro",
			"## Travel",
			"Book the train. #travel #PINNED",
			"## Work",
			"Ship it.",
		}, "\n"), map[string][]string{
			"n.md#top":    {"ops", "pinned", "area/home", "trip to lisbon", "intro"},
			"n.md#travel": {"ops", "pinned", "area/home", "trip to lisbon", "travel"},
			"n.md#work":   {"ops", "pinned", "area/home", "trip to lisbon"},
		}},
		{"no front matter, tag line at the top", "#journal\nDay one.\n## Later\nDay two. #later\n", map[string][]string{
			"n.md#top":   {"journal"},
			"n.md#later": {"journal", "later"},
		}},
		{"tags in a first line of text", "Remember #pinned later.\n## Travel\nGo. #travel\n", map[string][]string{
			"n.md#top":    {"pinned"},
			"n.md#travel": {"travel"},
		}},
		{"tag line after text", "Intro.\n#pinned\n## Travel\nGo.\n", map[string][]string{
			"n.md#top":    {"pinned"},
			"n.md#travel": nil,
		}},
		{"tag line under the title", "# Plan\n#pinned\n## Travel\nGo.\n", map[string][]string{
			"n.md#plan":        {"pinned"},
			"n.md#plan-travel": {"pinned"},
		}},
		{"tag line under a first heading that is no title", "## Plan\n#pinned\n## Travel\nGo.\n", map[string][]string{
			"n.md#plan":   {"pinned"},
			"n.md#travel": nil,
		}},
		{"tag line under one of two level-1 headings", "# Plan\n#pinned\n# Travel\nGo.\n", map[string][]string{
			"n.md#plan":   {"pinned"},
			"n.md#travel": nil,
		}},
		{"tag line under the title after text", "Intro.\n# Plan\n#pinned\n## Travel\nGo.\n", map[string][]string{
			"n.md#top":         nil,
			"n.md#plan":        {"pinned"},
			"n.md#plan-travel": nil,
		}},
		{"an issue number is no tag line", "#123\n## Travel\nGo.\n", map[string][]string{
			"n.md#top":    nil,
			"n.md#travel": nil,
		}},
		{"a fence is no tag line", "```\n#notatag\n```\n## Travel\nGo.\n", map[string][]string{
			"n.md#top":    nil,
			"n.md#travel": nil,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := noteRecords(t, "n.md", tt.note)
			got := map[string][]string{}
			for _, r := range recs {
				got[r.ID] = r.Tags
			}
			if len(got) != len(tt.want) {
				t.Fatalf("records %q, want %d", slices.Sorted(maps.Keys(got)), len(tt.want))
			}
			for id, want := range tt.want {
				if tags, ok := got[id]; !ok || !slices.Equal(tags, want) {
					t.Errorf("%s: tags %q (found %v), want %q", id, tags, ok, want)
				}
			}
		})
	}
}

// TestRead_indentedCodeTags: a line of an indented code block (four
// spaces or a tab after a blank line, outside a list) is code, whose
// "#include" is no tag, as a fenced block's is none; a list item's
// indented paragraph and a paragraph's indented line are text. A C
// snippet indented in a note tagged it #include and #define.
func TestRead_indentedCodeTags(t *testing.T) {
	note := strings.Join([]string{
		"    #pinned",
		"",
		"    #include <stdio.h>",
		"",
		"## C",
		"A snippet. #c",
		"",
		"    #include <stdio.h>",
		"",
		"\t#define N 3",
		"",
		"- item #listtag",
		"",
		"    continued #cont",
		"",
		"Para",
		"    #lazy",
	}, "\n")
	want := map[string][]string{"n.md#top": nil, "n.md#c": {"c", "listtag", "cont", "lazy"}}
	recs := noteRecords(t, "n.md", note)
	if len(recs) != len(want) {
		t.Fatalf("%d records", len(recs))
	}
	for _, r := range recs {
		if !slices.Equal(r.Tags, want[r.ID]) {
			t.Errorf("%s: tags %q, want %q", r.ID, r.Tags, want[r.ID])
		}
	}
}

// TestRead_sectionTagRedacted: a secret written as a #tag in one section
// is redacted in that section's tags and counted there alone; each
// section counted the redactions of every tag of the note.
func TestRead_sectionTagRedacted(t *testing.T) {
	const key = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	recs := noteRecords(t, "n.md", "---\ntags: [ops]\n---\n## Keys\nThe old one. #"+key+"\n## Work\nShip it. #work\n")
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	for _, r := range recs {
		for _, tag := range r.Tags {
			if strings.Contains(tag, key[:10]) {
				t.Errorf("%s: tag %q holds the key", r.ID, tag)
			}
		}
		switch r.ID {
		case "n.md#keys":
			if len(r.Tags) != 2 || r.Tags[0] != "ops" || r.Redactions != 2 {
				t.Errorf("%s: tags %q, %d redactions, want ops and the redacted key, 2 (text and tag)", r.ID, r.Tags, r.Redactions)
			}
		case "n.md#work":
			if !slices.Equal(r.Tags, []string{"ops", "work"}) || r.Redactions != 0 {
				t.Errorf("%s: tags %q, %d redactions, want [ops work], 0", r.ID, r.Tags, r.Redactions)
			}
		}
	}
}

// TestRead_headingDate: a section under a heading that gives a date (a
// work log's "## 2024-03-05", a changelog's "## [1.2.0] - 2024-03-07") is
// of that date, the nearest such heading's; the others keep the note's.
// Every section of a year-long log was dated by its front matter or its
// modification time, so a search for what happened in March found
// nothing.
func TestRead_headingDate(t *testing.T) {
	note := strings.Join([]string{
		"---",
		"date: 2024-01-01 09:00:00+00:00",
		"---",
		"# Work log",
		"Intro.",
		"## 2024-03-05 Tuesday",
		"Fixed the port.",
		"### Details",
		"It was 3036.",
		"## Release [1.2.0] - 2024-03-07",
		"Shipped.",
		"## 2024-13-45 is no date",
		"Odd.",
	}, "\n")
	dir := writeTree(t, map[string]string{"log.md": note})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(problems) != 0 {
		t.Fatalf("problems %v", problems)
	}
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%s %s %v", r.Title, r.Date, !r.Time.IsZero()))
	}
	want := []string{
		"Work log 2024-01-01 true",
		"Work log > 2024-03-05 Tuesday 2024-03-05 false",
		"Work log > 2024-03-05 Tuesday > Details 2024-03-05 false",
		"Work log > Release [1.2.0] - 2024-03-07 2024-03-07 false",
		"Work log > 2024-13-45 is no date 2024-01-01 true",
	}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_headingNamedDay: a work log whose days are headed in words, as
// many daily-note and journal templates write them ("## Thursday, March
// 5, 2026", "## 5 March 2026", "## 5. März 2026"), dates each section by
// its heading, as "## 2026-03-05" does; a heading that only has a month
// and year in it, or a named day in its middle, does not.
func TestRead_headingNamedDay(t *testing.T) {
	note := strings.Join([]string{
		"---",
		"date: 2026-01-01 09:00:00+00:00",
		"---",
		"# Journal",
		"Intro.",
		"## Thursday, March 5, 2026",
		"Fixed the port.",
		"## 6 March 2026",
		"Shipped.",
		"## 9. März 2026",
		"Reviewed.",
		"## Mar 10th, 2026 (Tue)",
		"Planned.",
		"## Goals for March 2026",
		"Grow.",
		"## Notes from March 11, 2026 retro and more",
		"Talked.",
	}, "\n")
	dir := writeTree(t, map[string]string{"journal.md": note})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(problems) != 0 {
		t.Fatalf("problems %v", problems)
	}
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%s %s", r.Title, r.Date))
	}
	want := []string{
		"Journal 2026-01-01",
		"Journal > Thursday, March 5, 2026 2026-03-05",
		"Journal > 6 March 2026 2026-03-06",
		"Journal > 9. März 2026 2026-03-09",
		"Journal > Mar 10th, 2026 (Tue) 2026-03-10",
		"Journal > Goals for March 2026 2026-01-01",
		"Journal > Notes from March 11, 2026 retro and more 2026-01-01",
	}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_noteEndingInNULs: the NUL bytes a crash leaves at the end of
// a note it was writing (the file grew before its data reached the disk)
// are reported as such, and the text before them is read, in a short note
// and in one whose NULs come after the first few kilobytes: the short one
// was skipped whole as binary, the long one lost its last section.
func TestRead_noteEndingInNULs(t *testing.T) {
	long := strings.Repeat("Filler prose for the first part of the note.\n", 400)
	tests := map[string]struct {
		file  string
		last  string
		count int
	}{
		"short":  {"# Plan\nShip on Friday.\n" + strings.Repeat("\x00", 4096), "Ship on Friday.", 1},
		"long":   {"# Plan\n" + long + "## Tail\nTell the team.\n" + strings.Repeat("\x00", 512), "Tell the team.", 2},
		"UTF-16": {encodeUTF16LE("# Plan\nShip on Friday.\n") + strings.Repeat("\x00", 64), "Ship on Friday.", 1},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"plan.md": tt.file})
			recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
			if len(recs) != tt.count || recs[len(recs)-1].Text != tt.last {
				t.Fatalf("%d records (problems %v), want %d, the last %q", len(recs), problems, tt.count, tt.last)
			}
			if len(problems) != 1 || !problems[0].Interrupted || !strings.Contains(problems[0].Reason, "NUL") {
				t.Errorf("problems %+v, want one that a crash left NUL bytes", problems)
			}
		})
	}
}

// encodeUTF16LE is s in UTF-16LE with its byte-order mark, as Notepad
// saves a note.
func encodeUTF16LE(s string) string {
	b := []byte{0xff, 0xfe}
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return string(b)
}

// TestRead_headingHoldingNULs: a heading past the first kilobytes that
// holds NUL bytes around digits (which the binary check, reading only the
// start, does not see) reads as any other: headingText's stand-ins for
// code spans are no text a note can hold.
func TestRead_headingHoldingNULs(t *testing.T) {
	note := strings.Repeat("Filler prose for the first part of the note.\n", 400) + "# Odd \x007\x00 `x` \uE0007\uE000\nText.\n"
	dir := writeTree(t, map[string]string{"odd.md": note})
	recs, _ := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(recs) == 0 || !strings.HasPrefix(recs[len(recs)-1].Title, "Odd") || !strings.Contains(recs[len(recs)-1].Title, "x") {
		t.Errorf("records %d, the last titled %q", len(recs), recs[len(recs)-1].Title)
	}
}

// TestRead_frontMatterKeyCase: front matter keys are read whatever their
// case ("Title:", "Date:", as Hugo reads them and as some Obsidian
// vaults write them), in YAML as in TOML, and the key in its own case
// wins over another spelling: YAML's "Title" and "Date" were left out
// while TOML's were read, so the note was dated by its modification time.
func TestRead_frontMatterKeyCase(t *testing.T) {
	tests := map[string]string{
		"YAML":      "---\nTitle: Deploy\nDate: 2024-03-05\nTAGS: [ops]\nProject: Nova\nworktype: task\n---\nThe port moved to 3037.\n",
		"YAML both": "---\nTITLE: Other\ntitle: Deploy\nDate: 2024-03-05\ntags: [ops]\nproject: Nova\nworkType: task\n---\nThe port moved to 3037.\n",
		"TOML":      "+++\nTitle = \"Deploy\"\nDate = 2024-03-05\nTags = [\"ops\"]\nProject = \"Nova\"\nWorkType = \"task\"\n+++\nThe port moved to 3037.\n",
	}
	for name, note := range tests {
		t.Run(name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"n.md": note})
			recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
			if len(recs) != 1 || len(problems) != 0 {
				t.Fatalf("%d records, problems %v", len(recs), problems)
			}
			r := recs[0]
			if r.Title != "Deploy" || r.Date != "2024-03-05" || !slices.Equal(r.Tags, []string{"ops"}) || r.Project != "Nova" || r.WorkType != "task" {
				t.Errorf("title %q date %s tags %q project %q workType %q", r.Title, r.Date, r.Tags, r.Project, r.WorkType)
			}
		})
	}
}

// TestRead_fenceOnAListItem: a code block whose fence opens on a list
// item's line ("- ```sh", as Logseq writes every code block, "1. ```")
// is code, as CommonMark reads it: a shell comment in it ("# install
// deps") opened a section, and the rest of the block became its text.
func TestRead_fenceOnAListItem(t *testing.T) {
	note := "# Setup\n- ```sh\n  # install deps\n  npm ci\n  ```\n1. ~~~\n   # step two\n   ~~~\n## Next\nRun it.\n"
	got := noteSections(t, "setup.md", note)
	want := []string{"Setup: - ```sh|  # install deps|  npm ci|  ```|1. ~~~|   # step two|   ~~~", "Setup > Next: Run it."}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_logseqBlockMetadata: what Logseq writes into a page for its
// own use, a referenced block's "id:: <uuid>", a folded block's
// "collapsed:: true" and a block reference's "((<uuid>))", is left out of
// the text as Obsidian's block ids are; code keeps it. The text held the
// UUIDs, which a search shows as the note's words.
func TestRead_logseqBlockMetadata(t *testing.T) {
	note := strings.Join([]string{
		"- The port moved to 3037.",
		"  id:: 650a1b2c-3d4e-4f50-8a6b-7c8d9e0f1a2b",
		"  collapsed:: true",
		"\t- Because of ((650a1b2c-3d4e-4f50-8a6b-7c8d9e0f1a2b)) and 3036.",
		"- ```",
		"  id:: 650a1b2c-3d4e-4f50-8a6b-7c8d9e0f1a2b",
		"  ```",
		"- status:: done",
	}, "\n")
	got := noteSections(t, "port.md", note)
	want := []string{": - The port moved to 3037.|\t- Because of and 3036.|- ```|  id:: 650a1b2c-3d4e-4f50-8a6b-7c8d9e0f1a2b|  ```|- status:: done"}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_headingInQuote: a heading in a quote or a callout ("> # x")
// opens no section: the quote is one block of its section, as Obsidian
// reads it, which counts no heading there (Vinzent03/obsidian-advanced-uri
// issue 124: a callout's heading is "not included in the outline";
// BrMacCath/Table-of-Contents issue 1: "Obsidian natively ignores
// headings inside callouts and quotes").
func TestRead_headingInQuote(t *testing.T) {
	note := "# Plan\nShip.\n> # Old plan\n> Ship on Monday.\n\n> [!note] Why\n> ## Reason\n> A freeze.\n\n## Next\nReview.\n"
	got := noteSections(t, "plan.md", note)
	want := []string{"Plan: Ship.|> # Old plan|> Ship on Monday.||> Why|> ## Reason|> A freeze.", "Plan > Next: Review."}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_headingOnAListItem: a heading that is a list item's content
// ("- ## Deploy", as Logseq writes a heading block, the blocks under it
// indented) opens a section as CommonMark reads it a heading: a Logseq
// page was one record whatever its headings, titled by its file name.
func TestRead_headingOnAListItem(t *testing.T) {
	note := "- Intro block\n- ## Deploy ##\n\t- The port moved.\n\t- ### Why\n\t\t- A conflict.\n- ## Later\n\t- Done.\n- #tag is no heading\n"
	got := noteSections(t, "page.md", note)
	want := []string{
		": - Intro block",
		"Deploy: - The port moved.",
		"Deploy > Why: - A conflict.",
		"Later: - Done.|- #tag is no heading",
	}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_logseqTagOfWords: Logseq's tag of several words, #[[machine
// learning]], tags the note with them; it gave no tag.
func TestRead_logseqTagOfWords(t *testing.T) {
	dir := writeTree(t, map[string]string{"page.md": "- Read the paper #[[machine learning]] #ops\n"})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(recs) != 1 || len(problems) != 0 {
		t.Fatalf("%d records, problems %v", len(recs), problems)
	}
	if want := []string{"machine learning", "ops"}; !slices.Equal(recs[0].Tags, want) {
		t.Errorf("tags %q, want %q", recs[0].Tags, want)
	}
}

// TestRead_headingDateOfAPlan: a date a heading only mentions ("Cutover
// plan for 2024-03-09 night") or one after the note's last change (a
// review planned) is no day the section was written: it keeps the note's
// date. Such sections were dated by the mention, a plan by its future.
func TestRead_headingDateOfAPlan(t *testing.T) {
	note := "# Work log\n## Cutover plan for 2024-03-09 night\nSteps.\n## 2024-07-01 review\nAgenda.\n## 2024-05-02\nDone.\n"
	dir := writeTree(t, map[string]string{"log.md": note})
	mtime := time.Date(2024, 6, 1, 12, 0, 0, 0, time.Local)
	if err := os.Chtimes(filepath.Join(dir, "log.md"), mtime, mtime); err != nil {
		t.Fatal(err)
	}
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(problems) != 0 || len(recs) != 3 {
		t.Fatalf("%d records, problems %v", len(recs), problems)
	}
	for i, want := range []string{"2024-06-01", "2024-06-01", "2024-05-02"} {
		if recs[i].Date != want {
			t.Errorf("%q dated %s, want %s", recs[i].Title, recs[i].Date, want)
		}
	}
}

// TestRead_obsidianCallouts: a callout's marker, "> [!note] Title" (and
// GitHub's alert, "> [!NOTE]"), reads as Obsidian shows it: its title,
// or its type when it has none, the fold sign ("-", "+") gone; in code it
// stays. The marker was the text, "[!warning]-" in every result that
// showed the callout.
func TestRead_obsidianCallouts(t *testing.T) {
	note := strings.Join([]string{
		"> [!note] Port decision",
		"> The facade moved to 3036.",
		"",
		"> [!warning]- Never bind 0.0.0.0",
		"> [!tip]",
		">> [!FAQ]+ Why loopback?",
		"  > [!NOTE]",
		"Text with [!note] inside stays.",
		"```",
		"> [!note] in code",
		"```",
	}, "\n")
	got := noteSections(t, "callouts.md", note)
	want := []string{": > Port decision|> The facade moved to 3036.||> Never bind 0.0.0.0|> Tip|>> Why loopback?|  > Note|Text with [!note] inside stays.|```|> [!note] in code|```"}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_logseqHiddenProperties: the properties Logseq writes for its
// own use and never shows, a block's colour, its heading flag, its
// timestamps, a query's table settings, a PDF highlight's page, are left
// out as its block ids are; a property a person wrote (status:: done, a
// Dataview field) and one in code stay. Results showed
// "background-color:: yellow" as the note's words.
func TestRead_logseqHiddenProperties(t *testing.T) {
	note := strings.Join([]string{
		"- The port moved to 3037.",
		"  background-color:: yellow",
		"  heading:: true",
		"- Standup",
		"  heading:: 2",
		"  created-at:: 1700000000000",
		"  updated-at:: 1700000500000",
		"- {{query (todo now)}}",
		"  query-table:: false",
		"  query-properties:: [:block :page]",
		"  query-sort-by:: page",
		"  query-sort-desc:: true",
		"- A highlight",
		"  ls-type:: annotation",
		"  hl-page:: 12",
		"  hl-color:: yellow",
		"  status:: done",
		"heading:: Deployment plan",
		"- ```",
		"  heading:: true",
		"  ```",
	}, "\n")
	got := noteSections(t, "page.md", note)
	want := []string{": - The port moved to 3037.|- Standup|- {{query (todo now)}}|- A highlight|  status:: done|heading:: Deployment plan|- ```|  heading:: true|  ```"}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_logseqPageFileName: a page without a title:: property is
// titled by its file name as Logseq names the page: "___" is the "/" of a
// namespace (project/nova) and a %XX escape the character a file name
// cannot hold ("?", ":", a legacy "%2F"); a "%" that escapes nothing
// stays, and title:: wins. Results were titled "project___nova%3F".
func TestRead_logseqPageFileName(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"pages/project___nova%3F.md": "- The port moved.\n",
		"pages/Q%3A plan.md":         "- Ship it.\n",
		"pages/A%2FB.md":             "- Legacy namespace.\n",
		"pages/100% sure.md":         "- Odds.\n",
		"pages/x___y.md":             "title:: x.y\n- Named.\n",
	})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(problems) != 0 {
		t.Fatalf("problems %v", problems)
	}
	got := map[string]string{}
	for _, r := range recs {
		got[r.ID] = r.Title
	}
	want := map[string]string{
		"pages/project___nova%3F.md#top": "project/nova?",
		"pages/Q%3A plan.md#top":         "Q: plan",
		"pages/A%2FB.md#top":             "A/B",
		"pages/100% sure.md#top":         "100% sure",
		"pages/x___y.md#top":             "x.y",
	}
	if !maps.Equal(got, want) {
		t.Errorf("titles\n%q\nwant\n%q", got, want)
	}
}

// TestRead_wikiLinksToHeadings: a wiki link to a heading reads as
// Obsidian shows it, "Ports > Facade", and one to a heading of the same
// note ("[[#Steps]]") as the heading; a link to a block shows the note
// alone. The heading's words were lost ("[[Ports#Facade]]" read
// "Ports"), and a link within the note stayed markup: "[[#Steps]]".
func TestRead_wikiLinksToHeadings(t *testing.T) {
	note := "See [[Ports#Facade]], [[#Local heading]], [[Note#^abc123]], [[Ports#Facade|the facade]] and ![[#Steps]].\n"
	got := noteSections(t, "links.md", note)
	want := []string{": See Ports > Facade, Local heading, Note, the facade and Steps."}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_headingBlockID: a block id that ends a heading ("# Deploy
// ^h1", as block-link plugins write one) is left out of the heading, as
// Obsidian hides it and as the text's are: it was in the section's
// title, heading path and id (notes.md#deploy-h1).
func TestRead_headingBlockID(t *testing.T) {
	dir := writeTree(t, map[string]string{"h.md": "# Deploy ^h1\nBody one.\n## Rollback ^rb-2\nBody two.\n## C ^\nBody three.\n"})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(recs) != 3 || len(problems) != 0 {
		t.Fatalf("%d records, problems %v", len(recs), problems)
	}
	for i, want := range []string{"h.md#deploy|Deploy", "h.md#deploy-rollback|Deploy > Rollback", "h.md#deploy-c|Deploy > C ^"} {
		if got := recs[i].ID + "|" + recs[i].Title; got != want {
			t.Errorf("record %d: %q, want %q", i, got, want)
		}
	}
}

// TestRead_logseqEmbeds: Logseq's embed macro reads as what it embeds
// names: a page embed, {{embed [[Nova]]}}, as the page's name, a block
// embed as its block reference (left out); other macros and code stay.
// The text read "{{embed Nova}}", and a block embed "{{embed}}".
func TestRead_logseqEmbeds(t *testing.T) {
	note := "- See {{embed [[Nova]]}} now\n- {{embed ((650a1b2c-3d4e-4f50-8a6b-7c8d9e0f1a2b))}}\n- {{query (todo now)}}\n- `{{embed [[x]]}}`\n"
	got := noteSections(t, "page.md", note)
	want := []string{": - See Nova now|- |- {{query (todo now)}}|- `{{embed [[x]]}}`"}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_embedSizesAndPages: an embed's size (![[diagram.png|300]],
// |300x200) and a PDF's page or height (#page=3) are how Obsidian shows
// the file, not words of the note: the embed reads as the file's name.
// The text read "300", and with heading links "doc.pdf > page=3".
func TestRead_embedSizesAndPages(t *testing.T) {
	note := "See ![[diagram.png|300]], ![[map.png|640x480]], ![[doc.pdf#page=3]] and [[Sizes|300]].\n"
	got := noteSections(t, "embeds.md", note)
	want := []string{": See diagram.png, map.png, doc.pdf and 300."}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_excalidrawBanner: the banner the Excalidraw plugin writes at
// the top of every drawing (which its view never shows) is left out; the
// drawing's text elements stay, and its data in a comment stays out.
// Every drawing was a record of the banner, answering "switch view".
func TestRead_excalidrawBanner(t *testing.T) {
	note := strings.Join([]string{
		"---",
		"excalidraw-plugin: parsed",
		"---",
		"==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠== You can decompress Drawing data with the command palette: 'Decompress current Excalidraw file'.",
		"",
		"# Excalidraw Data",
		"## Text Elements",
		"Facade listener on loopback ^aB3dE5fG",
		"%%",
		"## Drawing",
		"```compressed-json",
		"N4KAkARALgngDgUwgLgAQQQDwMYEMA2AlgCYBOuA7hADTgQBuCpAzoQPYB2KqATLZMzYBXUtiRoIACyhQ4zZAHoFAc0JRJQgEYA6bGwC2",
		"```",
		"%%",
	}, "\n")
	got := noteSections(t, "Drawing 1.excalidraw.md", note)
	want := []string{"Excalidraw Data > Text Elements: Facade listener on loopback"}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// noteTitles reads one note and returns each record's id and title.
func noteTitles(t *testing.T, name, note string) []string {
	t.Helper()
	var got []string
	for _, r := range noteRecords(t, name, note) {
		got = append(got, r.ID+"|"+r.Title)
	}
	return got
}

// TestRead_sectionTitleNamesNote: a section's title leads with its
// note's name (front matter title, else the page name of the file) when
// its heading path does not: "Project Phoenix > Risks", where it was
// "Risks", which tells no note from another. A path that opens with the
// note's name, or with the H1 that opens the note as its only one, is
// not prefixed; ids stay those of the heading path. That H1 names the
// note only where front matter gives no title: a title of other words
// (a page's title in Jekyll, Hugo and Pandoc, shown apart from its
// headings) was lost from every section's title.
func TestRead_sectionTitleNamesNote(t *testing.T) {
	tests := []struct {
		name, file, note string
		want             []string
	}{
		{"no top heading", "Project Phoenix.md", "Rebuild the export.\n## Risks\nVendor API.\n### Staffing\nTwo short.\n",
			[]string{"Project Phoenix.md#top|Project Phoenix", "Project Phoenix.md#risks|Project Phoenix > Risks",
				"Project Phoenix.md#risks-staffing|Project Phoenix > Risks > Staffing"}},
		{"front matter title", "px.md", "---\ntitle: Project Phoenix\n---\n## Risks\nVendor API.\n",
			[]string{"px.md#risks|Project Phoenix > Risks"}},
		{"front matter title and another H1", "px.md", "---\ntitle: Project Phoenix\n---\n# Overview\nRebuild.\n## Risks\nVendor API.\n",
			[]string{"px.md#overview|Project Phoenix > Overview", "px.md#overview-risks|Project Phoenix > Overview > Risks"}},
		{"front matter title is the H1", "px.md", "---\ntitle: Project Phoenix\n---\n# Project Phoenix\nRebuild.\n",
			[]string{"px.md#project-phoenix|Project Phoenix"}},
		{"H1 is the name", "Project Phoenix.md", "# Project Phoenix\nRebuild.\n## Risks\nVendor API.\n",
			[]string{"Project Phoenix.md#project-phoenix|Project Phoenix", "Project Phoenix.md#project-phoenix-risks|Project Phoenix > Risks"}},
		{"H1 is the name, spelt as a slug", "project-phoenix.md", "# Project Phoenix\nRebuild.\n# Later\nMore.\n",
			[]string{"project-phoenix.md#project-phoenix|Project Phoenix", "project-phoenix.md#later|project-phoenix > Later"}},
		{"only H1 titles the note", "README.md", "# Nova\nA memory service.\n## Install\nbrew install.\n",
			[]string{"README.md#nova|Nova", "README.md#nova-install|Nova > Install"}},
		{"several H1s", "Work log.md", "# 2024-03-04\nDeployed.\n# 2024-03-05\nRolled back.\n",
			[]string{"Work log.md#2024-03-04|Work log > 2024-03-04", "Work log.md#2024-03-05|Work log > 2024-03-05"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := noteTitles(t, tt.file, tt.note); !slices.Equal(got, tt.want) {
				t.Errorf("id|title\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestRead_noteAliases: a note's aliases (Obsidian's aliases as a list
// or one string of names between commas, the older alias, Logseq's
// alias:: property, a link naming its note) follow its name in its
// sections' titles; one that only respells the title or another alias
// is left out. They were read as nothing.
func TestRead_noteAliases(t *testing.T) {
	tests := []struct {
		name, file, note string
		want             []string
	}{
		{"list", "Project Phoenix.md", "---\naliases: [Firebird, PX, project phoenix, px]\n---\n## Risks\nVendor API.\n",
			[]string{"Project Phoenix.md#risks|Project Phoenix (Firebird, PX) > Risks"}},
		{"a comma in a list item", "Phoenix.md", "---\naliases: [\"Phoenix, Project\"]\n---\nRebuild.\n",
			[]string{"Phoenix.md#top|Phoenix (Phoenix, Project)"}},
		{"one string", "Project Phoenix.md", "---\naliases: Firebird, PX\n---\nRebuild.\n",
			[]string{"Project Phoenix.md#top|Project Phoenix (Firebird, PX)"}},
		{"older alias and a link", "Atlas.md", "---\nAlias: \"[[Meridian]]\"\n---\n## Risks\nLatency.\n",
			[]string{"Atlas.md#risks|Atlas (Meridian) > Risks"}},
		{"unquoted link", "Atlas.md", "---\naliases:\n  - [[Meridian]]\n---\n## Risks\nLatency.\n",
			[]string{"Atlas.md#risks|Atlas (Meridian) > Risks"}},
		{"after the H1 that names the note", "Harbor.md", "---\naliases: [Dockyard]\n---\n# Harbor\nMirror.\n## Risks\nDisk.\n",
			[]string{"Harbor.md#harbor|Harbor (Dockyard)", "Harbor.md#harbor-risks|Harbor (Dockyard) > Risks"}},
		{"Logseq", "pages/Harbor.md", "alias:: Dockyard, [[Port]]\n- Mirror.\n",
			[]string{"pages/Harbor.md#top|Harbor (Dockyard, Port)"}},
		{"TOML", "Harbor.md", "+++\naliases = [\"Dockyard\"]\n+++\nMirror.\n",
			[]string{"Harbor.md#top|Harbor (Dockyard)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := noteTitles(t, tt.file, tt.note); !slices.Equal(got, tt.want) {
				t.Errorf("id|title\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// notionID is the id Notion's Markdown & CSV export ends every page's
// file and folder name with (a made-up one).
const notionID = "8f3e2a1b4c5d6e7f8a9b0c1d2e3f4a5b"

// TestRead_notionPageNames: a page of a Notion export, whose file name
// ends in the page's 32-hex id, is named by its words: its sections'
// titles read "Project Phoenix > Plan", where they read "Project Phoenix
// 8f3e… > Plan", a string no one searches for. A name with no id, or
// with hex of another length, keeps it; ids (the path) do not change.
func TestRead_notionPageNames(t *testing.T) {
	tests := []struct {
		name, file, note string
		want             []string
	}{
		{"several H1s", "Work/Project Phoenix " + notionID + ".md",
			"# Project Phoenix\n\nRebuild the export.\n\n# Plan\n\nShip it.\n\n## Staffing\n\nTwo short.\n",
			[]string{"Work/Project Phoenix " + notionID + ".md#project-phoenix|Project Phoenix",
				"Work/Project Phoenix " + notionID + ".md#plan|Project Phoenix > Plan",
				"Work/Project Phoenix " + notionID + ".md#plan-staffing|Project Phoenix > Plan > Staffing"}},
		{"no heading", "Untitled " + notionID + ".md", "Loose text.\n",
			[]string{"Untitled " + notionID + ".md#top|Untitled"}},
		{"not 32 hex", "Build 8f3e2a1b.md", "Loose text.\n",
			[]string{"Build 8f3e2a1b.md#top|Build 8f3e2a1b"}},
		{"hex alone", notionID + ".md", "Loose text.\n",
			[]string{notionID + ".md#top|" + notionID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := noteTitles(t, tt.file, tt.note); !slices.Equal(got, tt.want) {
				t.Errorf("id|title\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestRead_notionProperties: the properties Notion's export writes under
// a page's title ("Created: March 3, 2024 4:12 PM", "Tags: infra,
// deploy") date and tag the page, as front matter does; they were text
// only, and the page was dated the day it was exported. The lines stay
// the page's text. Lines of that shape in a note that is no Notion page
// (its name has no id) are its text only.
func TestRead_notionProperties(t *testing.T) {
	page := "# Project Phoenix\n\nStatus: Done\nCreated: March 3, 2024 4:12 PM\nTags: infra, machine learning\n\nRebuild the export.\n"
	tests := []struct {
		name, file, note string
		date, at         string
		tags             []string
	}{
		{"created", "Project Phoenix " + notionID + ".md", page, "2024-03-03", "2024-03-03 16:12", []string{"infra", "machine learning"}},
		{"date before created", "Launch " + notionID + ".md",
			"# Launch\n\nCreated time: March 1, 2024 9:00 AM\nDate: March 5, 2024 → March 7, 2024\n\nGo live.\n", "2024-03-05", "", nil},
		{"last edited", "Runbook " + notionID + ".md",
			"# Runbook\n\nLast edited time: December 30, 2023 11:05 PM\n\nSteps.\n", "2023-12-30", "2023-12-30 23:05", nil},
		{"no id", "Project Phoenix.md", page, "2026-01-02", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{tt.file: tt.note})
			mod := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
			if err := os.Chtimes(filepath.Join(dir, tt.file), mod, mod); err != nil {
				t.Fatal(err)
			}
			recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
			if len(problems) != 0 || len(recs) != 1 {
				t.Fatalf("records %+v problems %v", recs, problems)
			}
			r := recs[0]
			at := ""
			if !r.Time.IsZero() {
				at = r.Time.Format("2006-01-02 15:04")
			}
			if r.Date != tt.date || at != tt.at || !slices.Equal(r.Tags, tt.tags) {
				t.Errorf("date %q time %q tags %q, want %q %q %q", r.Date, at, r.Tags, tt.date, tt.at, tt.tags)
			}
			if !strings.Contains(r.Text, strings.Split(tt.note, "\n")[2]) {
				t.Errorf("text %q lost the property lines", r.Text)
			}
		})
	}
}

// TestRead_bearTagOfWords: Bear's tag of several words, closed by a "#"
// ("#multi word tag#"), tags the note with its words; it tagged it with
// its first word alone. A "#" that ends a one-letter word (C#, F#) closes
// no tag, so a note on C# keeps the tag it had. Tags keep the order they
// are written in.
func TestRead_bearTagOfWords(t *testing.T) {
	tests := []struct{ name, text string }{
		{"words", "Book the train. #travel #trip to lisbon# #work/ops done"},
		{"at the end of the line", "#travel\nPlans: #trip to lisbon#"},
		{"C sharp", "#travel tips for C# and #trip to lisbon#."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := noteRecords(t, "Trip plan.md", "# Trip plan\n\n"+tt.text+"\n")
			if len(recs) != 1 {
				t.Fatalf("%d records", len(recs))
			}
			got := recs[0].Tags
			want := []string{"travel", "trip to lisbon"}
			if strings.Contains(tt.text, "work/ops") {
				want = append(want, "work/ops")
			}
			if !slices.Equal(got, want) {
				t.Errorf("tags %q, want %q", got, want)
			}
		})
	}
}

// TestRead_notionLinks: a link of a Notion export to another page of it
// (its file, "Risks%20page%20<id>.md", or a database's CSV) reads as its
// words, as Notion shows it: the escaped path and the ids were text a
// result showed and no one searches for. Links elsewhere stay as written.
func TestRead_notionLinks(t *testing.T) {
	dir := "Project%20Phoenix%20" + notionID
	note := "# Project Phoenix\n\nSee [Risks page](" + dir + "/Risks%20page%201a2b3c4d5e6f70819a2b3c4d5e6f7081.md) and [Tasks](" + dir +
		"/Tasks%201a2b3c4d5e6f70819a2b3c4d5e6f7081.csv).\n![Deploy board](" + dir + "/board.png)\nDocs: [site](https://example.com/a%20b) and `[x](" + dir + ".md)`.\n"
	recs := noteRecords(t, "Project Phoenix "+notionID+".md", note)
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	want := "See Risks page and Tasks.\nDeploy board\nDocs: [site](https://example.com/a%20b) and `[x](" + dir + ".md)`."
	if recs[0].Text != want {
		t.Errorf("text\n%q\nwant\n%q", recs[0].Text, want)
	}
}

// TestRead_yarleDates: a note yarle converted from Evernote with its
// default template ends in an indented block "Created at: …", "Updated
// at: …": the note is of its created day, as front matter's created
// makes it. It was of the day of the conversion (the file's time). Such
// lines anywhere but the note's last block are its text only.
func TestRead_yarleDates(t *testing.T) {
	tests := []struct{ name, note, date, at string }{
		{"default template", "# Vendor call\n\n---\nTag(s): #infra #vendor_call\n\n---\n\nAgreed the SLA.\n\n" +
			"    Created at: 2024-03-03T16:12:00+01:00\n    Updated at: 2024-03-05T09:00:00+01:00\n    Source URL https://example.com\n\n",
			"2024-03-03", "2024-03-03T16:12:00+01:00"},
		{"a date format of days", "# Vendor call\n\nAgreed the SLA.\n\n    Updated at: 2024-03-05\n", "2024-03-05", ""},
		{"not the last block", "# Vendor call\n\n    Created at: 2024-03-03\n\nAgreed the SLA.\n", "2026-01-02", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"Vendor call.md": tt.note})
			mod := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
			if err := os.Chtimes(filepath.Join(dir, "Vendor call.md"), mod, mod); err != nil {
				t.Fatal(err)
			}
			recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
			if len(problems) != 0 || len(recs) != 1 {
				t.Fatalf("records %+v problems %v", recs, problems)
			}
			at := ""
			if !recs[0].Time.IsZero() {
				at = recs[0].Time.Format(time.RFC3339)
			}
			if recs[0].Date != tt.date || at != tt.at {
				t.Errorf("date %q time %q, want %q %q", recs[0].Date, at, tt.date, tt.at)
			}
		})
	}
}

// TestRead_obsidianKanbanMarkers: Obsidian's Kanban plugin marks a lane
// whose cards it completes with a "**Complete**" line under its heading
// and writes "***" before its archive; neither is a card's words (a
// "***" in code is). A note that is no Kanban board keeps its bold
// line. Before, the Done lane's text was "**Complete**", its card and
// "***".
func TestRead_obsidianKanbanMarkers(t *testing.T) {
	board := "---\n\nkanban-plugin: basic\n\n---\n\n## Todo\n\n- [ ] Card one\n\n```\n***\n```\n\n\n## Done\n\n**Complete**\n- [x] Card two\n\n\n***\n\n## Archive\n\n- [x] Old card\n\n%% kanban:settings\n```\n{\"kanban-plugin\":\"basic\"}\n```\n%%\n"
	want := []string{"Todo: - [ ] Card one||```|***|```", "Done: - [x] Card two", "Archive: - [x] Old card"}
	if got := noteSections(t, "board.md", board); !slices.Equal(got, want) {
		t.Errorf("sections %q, want %q", got, want)
	}
	note := "## Done\n\n**Complete**\n- [x] Card two\n"
	if got := noteSections(t, "note.md", note); len(got) != 1 || !strings.Contains(got[0], "**Complete**") {
		t.Errorf("note that is no board: %q", got)
	}
}

// TestRead_emptyClosedHeading: "### ###" is an empty heading, its "###"
// the closing sequence, as CommonMark reads it (spec.commonmark.org/0.31.2,
// 4.2 ATX headings: "ATX headings can be empty", "### ###" gives an
// empty h3), as "## " is one already: it was a heading "###", a section
// titled with markup.
func TestRead_emptyClosedHeading(t *testing.T) {
	note := "# Deploy\nSteps.\n### ###\nRun it.\n## \nDone.\n- ## ##\nLater.\n"
	got := noteSections(t, "deploy.md", note)
	want := []string{"Deploy: Steps.", "Deploy > : Run it.", "Deploy > : Done.", "Deploy > : Later."}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_setextOfInlineHTML: a paragraph that begins with inline HTML
// ("<kbd>Ctrl</kbd> shortcuts") is a setext heading's when "---"
// underlines it, as CommonMark reads it (spec.commonmark.org/0.31.2, 4.6
// HTML blocks: only a line that meets a start condition opens a block;
// one of kind 7 is a complete tag "followed only by spaces, tabs, or the
// end of the line"): every line beginning with "<" was taken for HTML,
// the heading left in the text. (Its tags are no part of its title, as
// an ATX heading's are not.) A tag alone on its line still opens a block, which no
// underline makes a heading, as does a comment.
func TestRead_setextOfInlineHTML(t *testing.T) {
	tests := []struct {
		name, note string
		want       []string
	}{
		{"inline tag", "# Keys\n\n<kbd>Ctrl</kbd> shortcuts\n---\nCopy with C.\n",
			[]string{"Keys > Ctrl shortcuts: Copy with C."}},
		{"autolink", "# Links\n\n<https://example.com> mirrors\n===\nTwo of them.\n",
			[]string{"https://example.com mirrors: Two of them."}},
		{"tag alone", "# Keys\n\n<kbd>\nCtrl\n---\nCopy.\n",
			[]string{"Keys: <kbd>|Ctrl|---|Copy."}},
		{"a comment", "# Keys\n\n<!-- draft -->\n---\nCopy.\n",
			[]string{"Keys: <!-- draft -->|---|Copy."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := noteSections(t, "keys.md", tt.note); !slices.Equal(got, tt.want) {
				t.Errorf("sections\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestRead_indentedFence: a fence indented four columns or more past
// the block it is in opens no fenced block, as CommonMark reads it
// (spec.commonmark.org/0.31.2, 4.5 Fenced code blocks: a code fence is
// "preceded by up to three spaces of indentation", and a closing fence
// too; four make an indented code block's line, 4.4). In a list item the
// columns count from its content's (5.2 List items): "- build:" then
// "    ```" is a fence two columns into the item. An unclosed "    ```"
// outside a list hid every heading after it, and "    ```" closed a
// block, whose lines after it were read as headings.
func TestRead_indentedFence(t *testing.T) {
	tests := []struct {
		name, note string
		want       []string
	}{
		{"unclosed, indented four", "# Deploy\nSteps.\n\n    ```sh\n    make run\n\n## Rollback\nRun it.\n",
			[]string{"Deploy: Steps.||    ```sh|    make run", "Deploy > Rollback: Run it."}},
		{"a tab", "# Deploy\n\n\t~~~\n\tmake run\n\n## Rollback\nRun it.\n",
			[]string{"Deploy: ~~~|\tmake run", "Deploy > Rollback: Run it."}},
		{"closing fence indented four", "# Deploy\n```\nmake run\n    ```\n# not a heading\n```\n## Rollback\nRun it.\n",
			[]string{"Deploy: ```|make run|    ```|# not a heading|```", "Deploy > Rollback: Run it."}},
		{"in a list item", "# Deploy\n- build:\n\n    ```sh\n  # install\n    make\n    ```\n## Rollback\nRun it.\n",
			[]string{"Deploy: - build:||    ```sh|  # install|    make|    ```", "Deploy > Rollback: Run it."}},
		{"in a list item's item", "# Deploy\n- build:\n  - on macOS:\n\n  Then:\n\n    ```sh\n  # install\n    ```\n## Rollback\nRun it.\n",
			[]string{"Deploy: - build:|  - on macOS:||  Then:||    ```sh|  # install|    ```", "Deploy > Rollback: Run it."}},
		{"on a Logseq block under a heading block", "- ## Deploy\n\t- ```sh\n\t  [[ -f x ]] && make\n\t  ```\n",
			[]string{"Deploy: - ```sh|\t  [[ -f x ]] && make|\t  ```"}},
		{"after a list a paragraph closed", "# Deploy\n- build\n\nThen:\n\n    ```sh\n    make\n\n## Rollback\nRun it.\n",
			[]string{"Deploy: - build||Then:||    ```sh|    make", "Deploy > Rollback: Run it."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := noteSections(t, "deploy.md", tt.note); !slices.Equal(got, tt.want) {
				t.Errorf("sections\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestRead_setextAfterIndentedCode: a paragraph right after an indented
// code block is a setext heading's when "---" or "===" underlines it, as
// CommonMark reads it (spec.commonmark.org/0.31.2, 4.4 Indented code
// blocks: a line indented less than four columns ends the block, and
// starts a paragraph; 4.3 Setext headings): the paragraph was taken for
// the code's and stayed text. The code itself is no heading ("Four
// spaces of indentation is too many": "    Foo" over "---" is code and
// a thematic break), nor is a list item's paragraph indented four
// columns, whose next line is lazy: 4.3, "the setext heading underline
// cannot be a lazy continuation line in a list item".
func TestRead_setextAfterIndentedCode(t *testing.T) {
	tests := []struct {
		name, note string
		want       []string
	}{
		{"after code", "# Deploy\n\n    make run\nRollback\n---\nRun it.\n",
			[]string{"Deploy: make run", "Deploy > Rollback: Run it."}},
		{"after a heading's code", "# Deploy\n    make run\n    make check\nRoll\n    back\n===\nRun it.\n",
			[]string{"Deploy: make run|    make check", "Roll back: Run it."}},
		{"code alone", "# Deploy\n\n    make run\n---\nRun it.\n",
			[]string{"Deploy: make run|---|Run it."}},
		{"a list item's paragraph", "# Deploy\n- build\n\n    and test\nRollback\n---\nRun it.\n",
			[]string{"Deploy: - build||    and test|Rollback|---|Run it."}},
		{"an HTML block's indented line", "# Log\n<pre>\n\n    </pre>\nDone\n---\nRun it.\n",
			[]string{"Log: <pre>||    </pre>", "Log > Done: Run it."}},
		{"a paragraph's lazy line", "# Deploy\nSteps\n    make run\nRollback\n---\nRun it.\n",
			[]string{"Deploy > Steps make run Rollback: Run it."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := noteSections(t, "deploy.md", tt.note); !slices.Equal(got, tt.want) {
				t.Errorf("sections\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
