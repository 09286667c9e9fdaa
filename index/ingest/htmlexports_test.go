package ingest

import (
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// readHTMLNotes reads files as a markdown source that includes HTML
// notes, and fails the test on a problem.
func readHTMLNotes(t *testing.T, files map[string]string) []memory.Record {
	t.Helper()
	dir := writeTree(t, files)
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir, Include: []string{"*.md", "*.html", "*.htm"}})
	if len(problems) != 0 || len(recs) == 0 {
		t.Fatalf("records %+v, problems %v", recs, problems)
	}
	return recs
}

// TestRead_htmlNoteGoogleKeep: a note of a Google Takeout Keep folder as
// its .html is written (a "heading" div with the pinned icon and the
// time the note was last edited, a "title" div, "content" divs with
// <br> lines and a checklist of "listitem"s whose "bullet" is ☐ or ☑,
// and the labels as "chip label" spans) reads as Keep shows it: titled
// by its title, of the day its heading states, tagged with its labels,
// its lines and its checklist as a Markdown task list. Before, the
// title was a line of text, the heading's time was words of the note
// (the note was of the day the file was written), the labels were words
// and the checklist read "- ☑" apart from its item.
func TestRead_htmlNoteGoogleKeep(t *testing.T) {
	note := `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">
<html xmlns="http://www.w3.org/1999/xhtml"><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"/><title>Weekend shopping</title><style type="text/css">.note .heading { color: #8c8c8c; }</style></head>
<body><div class="note DEFAULT"><div class="heading"><div class="meta-icons">
<span class="pinned" title="Note pinned"><img alt="Pinned" src="data:image/png;base64,iVBORw0KGgo="/></span>
</div>
Jan 5, 2024, 10:22:13` + "\u202f" + `AM</div>
<div class="title">Weekend shopping</div>
<div class="content">Farmers market opens at eight<br/>Bring the cool bag</div>
<div class="content"><ul class="list"><li class="listitem checked"><span class="bullet">&#9745;</span>
<span class="text">Sourdough bread</span>
</li><li class="listitem"><span class="bullet">&#9744;</span>
<span class="text">Butter</span>
</li></ul></div>
<div class="chips"><span class="chip label"><span class="label-name">Groceries</span></span><span class="chip label"><span class="label-name">Road trip</span></span></div>
</div></body></html>
`
	recs := readHTMLNotes(t, map[string]string{"Keep/Weekend shopping.html": note})
	if len(recs) != 1 {
		t.Fatalf("records %+v, want one", recs)
	}
	r := recs[0]
	if r.Title != "Weekend shopping" {
		t.Errorf("title %q, want the note's title", r.Title)
	}
	if r.Date != "2024-01-05" || r.Time.Hour() != 10 {
		t.Errorf("date %q time %v, want the heading's 2024-01-05 10:22", r.Date, r.Time)
	}
	if !slices.Equal(r.Tags, []string{"Groceries", "Road trip"}) {
		t.Errorf("tags %q, want the labels", r.Tags)
	}
	want := "Farmers market opens at eight\nBring the cool bag\n- [x] Sourdough bread\n- [ ] Butter"
	if r.Text != want {
		t.Errorf("text\n%q\nwant\n%q", r.Text, want)
	}
}

// TestRead_htmlNoteEvernote: a note of Evernote's HTML export ("Export
// as multiple Web pages") keeps its times and tags in the head's meta
// elements (created, updated, keywords), its lines as nested divs, a
// to-do as a checkbox input and an image with its alt text. It reads of
// the day it was created, tagged with its keywords, each div a line, the
// to-dos as a Markdown task list and the image's alt text as words.
// Before, the head was dropped whole (the note was of the day the file
// was written, without tags), the checkboxes were nothing ("Send the
// invoice" could not be told done) and the image was no words.
func TestRead_htmlNoteEvernote(t *testing.T) {
	note := `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"/><meta name="exporter-version" content="Evernote Mac 7.14 (458244)"/><meta name="created" content="2019-05-03 11:15:32 +0000"/><meta name="updated" content="2019-06-10 08:00:00 +0000"/><meta name="keywords" content="invoices, acme"/><title>Acme follow-up</title></head><body>
<div><div>Met Dana about the Q3 contract.</div><div><br/></div><div><input type="checkbox" checked="checked"/>Send the invoice</div><div><input type="checkbox"/>Call the bank</div></div><div><img src="Acme follow-up.resources/whiteboard.png" alt="whiteboard with the rollout plan" height="480" width="640"/></div>
</body></html>
`
	recs := readHTMLNotes(t, map[string]string{"Acme follow-up.html": note})
	if len(recs) != 1 {
		t.Fatalf("records %+v, want one", recs)
	}
	r := recs[0]
	if r.Title != "Acme follow-up" || r.Date != "2019-05-03" {
		t.Errorf("title %q date %q, want Acme follow-up of 2019-05-03 (created)", r.Title, r.Date)
	}
	if !slices.Equal(r.Tags, []string{"invoices", "acme"}) {
		t.Errorf("tags %q, want the keywords", r.Tags)
	}
	want := "Met Dana about the Q3 contract.\n- [x] Send the invoice\n- [ ] Call the bank\nwhiteboard with the rollout plan"
	if r.Text != want {
		t.Errorf("text\n%q\nwant\n%q", r.Text, want)
	}
}

// TestRead_htmlNoteNotion: a page of Notion's HTML export (its file
// named with the page's id; an <article> whose <header> holds the
// "page-title" h1 and a "properties" table, a row a property with its
// icon, the values of a multi-select as "selected-value" spans, a date
// as "@March 5, 2024 10:00 AM"; its to-dos as "checkbox-on"/"-off" divs)
// reads as its Markdown export does: titled by the page's title, of the
// day its Created property states, tagged with its Tags, each property
// a "Name: value" line, and its to-dos a Markdown task list. Before, the
// properties were a Markdown table of noise ("| Created | @March..."),
// the page was of the day the file was written, untagged, and a to-do
// read "-" on one line and its words on the next.
func TestRead_htmlNoteNotion(t *testing.T) {
	note := `<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"/><title>Launch review</title><style>/* cspell:disable-file */ html { -webkit-print-color-adjust: exact; }</style></head><body><article id="8f3e0c1a-0000-4000-8000-0123456789ab" class="page sans"><header><h1 class="page-title">Launch review</h1><p class="page-description"></p><table class="properties"><tbody><tr class="property-row property-row-created_time"><th><span class="icon property-icon"><svg role="graphics-symbol" viewBox="0 0 16 16" class="typesTime"><path d="M8 15.126C11.8623"></path></svg></span>Created</th><td><time>@March 5, 2024 10:00 AM</time></td></tr><tr class="property-row property-row-multi_select"><th><span class="icon property-icon"><svg role="graphics-symbol" viewBox="0 0 16 16" class="typesMultipleSelect"><path d="M1.91602 4.83789"></path></svg></span>Tags</th><td><span class="selected-value select-value-color-blue">launch</span><span class="selected-value select-value-color-green">marketing</span></td></tr><tr class="property-row property-row-status"><th><span class="icon property-icon"><svg role="graphics-symbol" viewBox="0 0 16 16" class="typesStatus"><path d="M8.75488 1.02344"></path></svg></span>Status</th><td><span class="status-value select-value-color-blue"><div class="status-dot status-dot-color-blue"></div>In progress</span></td></tr></tbody></table></header><div class="page-body"><p id="1a2b" class="">The beta opens on Monday.</p><ul id="3c4d" class="to-do-list"><li><div class="checkbox checkbox-on"></div> <span class="to-do-children-checked">Book the room</span><div class="indented"></div></li></ul><ul id="5e6f" class="to-do-list"><li><div class="checkbox checkbox-off"></div> <span class="to-do-children-unchecked">Draft the press note</span><div class="indented"></div></li></ul></div></article><span class="sans" style="font-size:14px;padding-top:2em"></span></body></html>
`
	recs := readHTMLNotes(t, map[string]string{"Launch review 0123456789abcdef0123456789abcdef.html": note})
	if len(recs) != 1 {
		t.Fatalf("records %+v, want one", recs)
	}
	r := recs[0]
	if r.Title != "Launch review" || r.Date != "2024-03-05" {
		t.Errorf("title %q date %q, want Launch review of 2024-03-05", r.Title, r.Date)
	}
	if !slices.Equal(r.Tags, []string{"launch", "marketing"}) {
		t.Errorf("tags %q, want the Tags property's", r.Tags)
	}
	want := "Created: March 5, 2024 10:00 AM\nTags: launch, marketing\nStatus: In progress\nThe beta opens on Monday.\n- [x] Book the room\n- [ ] Draft the press note"
	if r.Text != want {
		t.Errorf("text\n%q\nwant\n%q", r.Text, want)
	}
	if strings.Contains(r.Text, "|") {
		t.Errorf("the properties are a table in the text: %q", r.Text)
	}
}

// TestRead_htmlNoteJoplin: a note of Joplin's HTML export (the title in
// an "exported-note-title" div, a style in the body, the Markdown
// rendered in "rendered-md", a checklist an input and a label in a
// "checkbox-wrapper" div of each item) reads titled by its title, its
// checklist a Markdown task list. Before, the title was the first line
// of its text and the items were words without their state.
func TestRead_htmlNoteJoplin(t *testing.T) {
	note := `<!DOCTYPE html><html><head><meta charset="UTF-8"><title>Packing list</title></head><body><div class="exported-note"><div class="exported-note-title">Packing list</div>

<style>html{line-height:1.15}</style>
<div id="rendered-md"><p>For the Lisbon trip.</p>
<ul class="joplin-checklist">
<li class="md-checkbox joplin-checkbox"><div class="checkbox-wrapper"><input type="checkbox" id="md-checkbox-internal-1" checked="checked"><label for="md-checkbox-internal-1">Passport</label></div></li>
<li class="md-checkbox joplin-checkbox"><div class="checkbox-wrapper"><input type="checkbox" id="md-checkbox-internal-2"><label for="md-checkbox-internal-2">Charger</label></div></li>
</ul>
</div></div></body></html>
`
	recs := readHTMLNotes(t, map[string]string{"Packing list.html": note})
	if len(recs) != 1 {
		t.Fatalf("records %+v, want one", recs)
	}
	want := "Packing list: For the Lisbon trip.\n- [x] Passport\n- [ ] Charger"
	if got := recs[0].Title + ": " + recs[0].Text; got != want {
		t.Errorf("read\n%q\nwant\n%q", got, want)
	}
}

// TestRead_htmlNoteCodeAndDividers: a code block of an HTML note (a
// <pre><code>, as Notion, Joplin and Bear export one) whose lines read
// like Markdown ("# install deps", a shell comment) is code, as the
// same <pre> in a Markdown note is: no heading opens a section in it,
// and its indentation is kept. A line of dashes typed as a divider (an
// Apple Notes <div>-----</div>) is no setext underline that makes the
// line above it a heading. Before, the comment was a section of its
// own, and "Groceries" above the dashes was one too.
func TestRead_htmlNoteCodeAndDividers(t *testing.T) {
	note := `<html><body><h1>Deploy</h1><p>Run these:</p><pre id="9f1c" class="code"><code class="language-Shell"># install deps
npm ci \
  --prefer-offline
</code></pre><div>Groceries</div><div>-----</div><div>milk #errand</div></body></html>
`
	recs := readHTMLNotes(t, map[string]string{"Deploy.html": note})
	if len(recs) != 1 {
		var titles []string
		for _, r := range recs {
			titles = append(titles, r.Title)
		}
		t.Fatalf("sections %q, want Deploy alone", titles)
	}
	r := recs[0]
	for _, want := range []string{"Run these:", "# install deps\nnpm ci \\\n  --prefer-offline", "Groceries", "-----\nmilk #errand"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("text %q lacks %q", r.Text, want)
		}
	}
	if r.Title != "Deploy" || !slices.Equal(r.Tags, []string{"errand"}) {
		t.Errorf("title %q tags %q, want Deploy and [errand]", r.Title, r.Tags)
	}
}

// TestRead_htmlNoteEvernoteAttributes: Evernote's HTML export with the
// note's attributes chosen writes, under the title's h1, a table of
// them ("Created:", "Tags:", "Source:" in bold cells, the values in
// italics). It reads as the attributes' lines ("Created: ..."), as
// Notion's properties do, of the day the head's meta gives and tagged
// with its keywords. Before, the table was a Markdown table of the
// attributes, "| Created: | 5/3/2019 11:15 AM |" and its "| --- |" row,
// words of the note's first section.
func TestRead_htmlNoteEvernoteAttributes(t *testing.T) {
	note := `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"/><meta name="exporter-version" content="Evernote Windows/307027 (en-US, DDL); Windows/6.1.0 (Win32);"/><meta name="created" content="2019-05-03 11:15:00 +0000"/><meta name="keywords" content="travel, family"/><title>Lisbon trip</title></head><body>
<h1>Lisbon trip</h1>
<div>
<table bgcolor="#D4DDE5" border="0">
<tr><td><b>Created:</b></td><td><i>5/3/2019 11:15 AM</i></td></tr>
<tr><td><b>Tags:</b></td><td><i>travel, family</i></td></tr>
<tr><td><b>Source:</b></td><td><a href="https://www.visitlisboa.com/"><i>https://www.visitlisboa.com/</i></a></td></tr>
</table>
</div>
<br/>
<div><span>The tram 28 leaves from Martim Moniz.</span></div>
</body></html>
`
	recs := readHTMLNotes(t, map[string]string{"Lisbon trip.html": note})
	if len(recs) != 1 {
		t.Fatalf("records %+v, want one", recs)
	}
	r := recs[0]
	want := "Created: 5/3/2019 11:15 AM\nTags: travel, family\nSource: https://www.visitlisboa.com/\nThe tram 28 leaves from Martim Moniz."
	if r.Title != "Lisbon trip" || r.Text != want {
		t.Errorf("read %q:\n%q\nwant Lisbon trip:\n%q", r.Title, r.Text, want)
	}
	if r.Date != "2019-05-03" || !slices.Equal(r.Tags, []string{"travel", "family"}) {
		t.Errorf("date %q tags %q, want 2019-05-03 and [travel family]", r.Date, r.Tags)
	}
}

// TestRead_htmlNoteHeadTitle: an exporter names a note's file by its
// title with the characters a file name cannot hold replaced (Evernote
// writes "Q3: plan / budget?" as "Q3_ plan _ budget_.html") and writes
// the title whole in the head's <title>: the note is titled by that, as
// its app shows it. Before, its title was the file's mangled name.
func TestRead_htmlNoteHeadTitle(t *testing.T) {
	note := `<html><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"/><meta name="exporter-version" content="Evernote Mac 7.14 (458244)"/><title>Q3: plan / budget?</title></head>` +
		`<body><div>Cut the travel line by a tenth.</div><svg><title>icon</title></svg></body></html>`
	recs := readHTMLNotes(t, map[string]string{"Q3_ plan _ budget_.html": note})
	if len(recs) != 1 || recs[0].Title != "Q3: plan / budget?" {
		t.Fatalf("records %+v, want one titled Q3: plan / budget?", recs)
	}
}

// TestRead_htmlNoteENMLTodos: a note's ENML saved as it is (an
// <en-note> whose to-dos are <en-todo checked="true"/>, as Evernote
// stores them and scripts that dump a note's content write them to an
// .html file) reads its to-dos as a Markdown task list, checked="false"
// and no checked both open. Before, the boxes were nothing.
func TestRead_htmlNoteENMLTodos(t *testing.T) {
	note := `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE en-note SYSTEM "http://xml.evernote.com/pub/enml2.dtd">` +
		`<en-note><div><en-todo checked="true"/>Pay the rent</div><div><en-todo checked="false"/>Fix the sink</div><div><en-todo/>Call the landlord</div></en-note>`
	recs := readHTMLNotes(t, map[string]string{"Flat.html": note})
	want := "- [x] Pay the rent\n- [ ] Fix the sink\n- [ ] Call the landlord"
	if len(recs) != 1 || recs[0].Text != want {
		t.Fatalf("records %+v, want one of\n%q", recs, want)
	}
}

// TestRead_htmlNoteHeadingClassOutsideKeep: Keep's classes are read as
// Keep's only in a Keep note (a div of class "note"): a page saved into
// the notes whose block of class "heading" holds its heading and its
// lede keeps them as its heading and a line. Taken for Keep's heading,
// they were one line, the h1 no section.
func TestRead_htmlNoteHeadingClassOutsideKeep(t *testing.T) {
	page := `<html><head><title>Release notes</title></head><body><div class="heading"><h1 class="upper-title">Release 4.2</h1><p>Faster sync for large vaults.</p></div>` +
		`<div class="title">Upgrade steps</div><p>Stop the daemon first.</p></body></html>`
	recs := readHTMLNotes(t, map[string]string{"Release.html": page})
	var got []string
	for _, r := range recs {
		got = append(got, r.Title+": "+r.Text)
	}
	want := []string{"Release 4.2: Faster sync for large vaults.\nUpgrade steps\nStop the daemon first."}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_htmlNotePropertiesClassOutsideNotion: a table of class
// "properties" is Notion's page properties only in a Notion page (an
// <article> of class "page"): in a page saved into the notes it is a
// table, and its "Tags" row tags nothing.
func TestRead_htmlNotePropertiesClassOutsideNotion(t *testing.T) {
	page := `<html><body><h1>Resistors</h1><table class="properties"><tr><th>Tags</th><th>Ohms</th></tr><tr><td>R1</td><td>220</td></tr></table></body></html>`
	recs := readHTMLNotes(t, map[string]string{"Resistors.html": page})
	want := "| Tags | Ohms |\n| --- | --- |\n| R1 | 220 |"
	if len(recs) != 1 || recs[0].Text != want || len(recs[0].Tags) != 0 {
		t.Fatalf("records %+v, want one of\n%q, untagged", recs, want)
	}
}

// TestRead_htmlNoteNotionCheckboxProperty: a checkbox property of a
// Notion page (its value a "checkbox-on" or "checkbox-off" div in the
// properties table) reads "Yes" or "No", as Notion's Markdown export
// writes it. It read "Done: ", its value lost.
func TestRead_htmlNoteNotionCheckboxProperty(t *testing.T) {
	note := `<html><body><article class="page sans"><header><h1 class="page-title">Vendor audit</h1><table class="properties"><tbody>` +
		`<tr class="property-row property-row-checkbox"><th>Done</th><td><div class="checkbox checkbox-on"></div></td></tr>` +
		`<tr class="property-row property-row-checkbox"><th>Signed</th><td><div class="checkbox checkbox-off"></div></td></tr>` +
		`</tbody></table></header><div class="page-body"><p>All three vendors passed.</p></div></article></body></html>`
	recs := readHTMLNotes(t, map[string]string{"Vendor audit 0123456789abcdef0123456789abcdef.html": note})
	want := "Done: Yes\nSigned: No\nAll three vendors passed."
	if len(recs) != 1 || recs[0].Text != want {
		t.Fatalf("records %+v, want one of\n%q", recs, want)
	}
}

// TestHTMLNoteText_preFence: a pre's fence is longer than any run of
// backticks in its code (a Markdown example with its own fences stays
// code to its end), and three long where the code has none.
func TestHTMLNoteText_preFence(t *testing.T) {
	for _, c := range []struct{ pre, want string }{
		{"<pre>go test ./...</pre>", "```\ngo test ./...\n```\n"},
		{"<pre>````md\n```sh\nls\n```\n````</pre>", "`````\n````md\n```sh\nls\n```\n````\n`````\n"},
		{"<pre>a `b` c</pre>", "```\na `b` c\n```\n"},
	} {
		if got, _, _ := htmlNoteText([]byte(c.pre)); string(got) != c.want {
			t.Errorf("%q read\n%q\nwant\n%q", c.pre, got, c.want)
		}
	}
}

// TestRead_htmlNoteEvernoteUserTable: in a note Evernote exported, a
// table of the user's own right under the title (not in the colour of
// Evernote's attributes table) is the note's text: a Markdown table with
// its header and every column, so that redaction reads the password
// under its "Password" header. It was read as Evernote's attributes:
// "Service: Password" and "bank: <the password>" lines, the third column
// dropped, the password indexed.
func TestRead_htmlNoteEvernoteUserTable(t *testing.T) {
	head := `<html><head><meta name="exporter-version" content="Evernote Mac 7.14"></head><body><h1>Logins</h1>`
	for _, c := range []struct{ table, header, row string }{
		{`<tr><td>Service</td><td>Password</td></tr><tr><td>bank</td><td>Zq9vLx2mPw7rT4</td></tr>`, "| Service | Password |", "| bank |"},
		{`<tr><td>Service</td><td>User</td><td>Password</td></tr><tr><td>bank</td><td>ann</td><td>Zq9vLx2mPw7rT4</td></tr>`, "| Service | User | Password |", "| bank | ann |"},
	} {
		note := head + `<table border="1">` + c.table + `</table><div>Rotate them in May.</div></body></html>`
		recs := readHTMLNotes(t, map[string]string{"Logins.html": note})
		text := recs[0].Text
		if strings.Contains(text, "Zq9vLx2mPw7rT4") {
			t.Errorf("the password is in the text:\n%s", text)
		}
		for _, want := range []string{c.header, c.row, "Rotate them in May."} {
			if !strings.Contains(text, want) {
				t.Errorf("text lacks %q:\n%s", want, text)
			}
		}
	}
}

// TestHTMLNoteText_unusualMarkup: markup browsers read and exporters do
// not write. A docs page's "admonition note" box is no Keep note (its
// div.title stays a line, no heading); a Keep heading never closed (a
// file cut short) keeps its words; a pre in a list item is fenced code;
// an svg's title is not the note's, with no body tag before it; a head
// left open (no </head>, no <body>) ends at the first tag of the body,
// which was all hidden.
func TestHTMLNoteText_unusualMarkup(t *testing.T) {
	for _, c := range []struct{ html, want, title string }{
		{`<body><div class="admonition note"><div class="title">Install</div><p>Run make.</p></div></body>`, "Install\nRun make.\n", ""},
		{`<body><div class="note DEFAULT"><div class="heading">Step one<p>Run it.</p>`, "Step one Run it.\n", ""},
		{"<ul><li><pre>line one\n  indented two\n# not a heading</pre></li></ul>", "```\nline one\n  indented two\n# not a heading\n```\n", ""},
		{`<svg><title>icon tip</title></svg><p>text</p>`, "text\n", ""},
		{`<html><head><title>T</title><p>Hello</p>`, "Hello\n", "T"},
		{`<html><head><title>T</title><style>p{}</style>Hello <b>there</b>`, "Hello there\n", "T"},
	} {
		got, _, title := htmlNoteText([]byte(c.html))
		if string(got) != c.want || title != c.title {
			t.Errorf("%s read\n%q titled %q\nwant\n%q titled %q", c.html, got, title, c.want, c.title)
		}
	}
}
