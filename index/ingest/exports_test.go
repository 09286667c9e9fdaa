package ingest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
)

// TestReadJSONL_googleKeep: a Google Takeout Keep folder (one .json per
// note beside its .html) read by a jsonl source that lists *.json: each
// note is a record, its text the textContent or the checklist's items
// (ticked or not) and a saved link's title and description, or its
// title when it has no other words, its title
// and labels kept, its day that of
// createdTimestampUsec (microseconds), and a trashed note left out
// without a problem. Before, every note was a problem: no "id", or
// "wrapped in an object under labels", and nothing was recalled.
func TestReadJSONL_googleKeep(t *testing.T) {
	const created = 1717000000000000
	note := func(fields string) string {
		return `{"color":"DEFAULT","isTrashed":false,"isPinned":false,"isArchived":false,` + fields +
			`,"userEditedTimestampUsec":1718000000123456,"createdTimestampUsec":1717000000000000}`
	}
	dir := writeTree(t, map[string]string{
		"Takeout/Keep/Groceries.json": note(`"textContent":"Buy oat milk for the cold brew","title":"Groceries","labels":[{"name":"Home"},{"name":"Errands"}],"annotations":[],"attachments":[]`),
		"Takeout/Keep/Groceries.html": "<html><body><div class=\"content\">Buy oat milk for the cold brew</div></body></html>",
		"Takeout/Keep/Packing.json":   note(`"listContent":[{"text":"passport","isChecked":true},{"text":"phone charger","isChecked":false}],"title":"Packing"`),
		"Takeout/Keep/Call mum.json":  note(`"textContent":"","title":"Call mum about the boiler"`),
		"Takeout/Keep/Link.json":      note(`"textContent":"https://example.com/boiler-pressure","title":"","annotations":[{"description":"Why the pressure drops and how to top it up","source":"WEBLINK","title":"Boiler pressure guide","url":"https://example.com/boiler-pressure"}]`),
		"Takeout/Keep/Old idea.json":  strings.Replace(note(`"textContent":"the wifi password idea I binned","title":"Old idea"`), `"isTrashed":false`, `"isTrashed":true`, 1),
	})
	recs, problems := collect(t, jsonSource(dir))
	if len(problems) != 0 {
		t.Errorf("problems %v, want none", problems)
	}
	if len(recs) != 4 {
		t.Fatalf("records %+v, want Call mum, Groceries, Link and Packing (not the trashed note)", recs)
	}
	day := time.UnixMicro(created).In(time.Local).Format("2006-01-02")
	c, g, l, p := recs[0], recs[1], recs[2], recs[3]
	if !strings.Contains(l.Text, "example.com/boiler-pressure") || !strings.Contains(l.Text, "Boiler pressure guide") || !strings.Contains(l.Text, "how to top it up") {
		t.Errorf("a saved link read as %q, want its address and the link's title and description", l.Text)
	}
	if c.Text != "Call mum about the boiler" || c.Title != "Call mum about the boiler" {
		t.Errorf("a note of a title alone read as %+v, want its title its text", c)
	}
	if filepath.Base(g.Path) != "Groceries.json" || g.Text != "Buy oat milk for the cold brew" || g.Title != "Groceries" ||
		!slices.Equal(g.Tags, []string{"Home", "Errands"}) || g.Date != day || !g.Time.Equal(time.UnixMicro(created)) || g.ID == "" {
		t.Errorf("Groceries read as %+v, want its text, title, labels and created day %s", g, day)
	}
	if filepath.Base(p.Path) != "Packing.json" || !strings.Contains(p.Text, "passport") || !strings.Contains(p.Text, "phone charger") ||
		p.Title != "Packing" || p.Date != day || p.ID == g.ID {
		t.Errorf("Packing read as %+v, want both checklist items", p)
	}
}

// TestReadJSONL_dayOne: Day One's JSON export, its Journal.json as
// exported and its entries array as jq '.entries' writes it: each entry
// is a record of its uuid, its tags, and of the day its creationDate
// (UTC) was in the entry's timeZone. Before, every entry lacked an "id",
// and an entry written on an evening in California was of the next day
// (its UTC day); and then Journal.json was a problem (its records
// "wrapped under entries") and none of its entries were read.
func TestReadJSONL_dayOne(t *testing.T) {
	entries := "[\n  {\n    \"uuid\" : \"6A1F0C2B9E3D4F5A8B7C6D5E4F3A2B1C\",\n    \"text\" : \"Walked the ridge trail with Sam, saw two hawks\",\n" +
		"    \"creationDate\" : \"2024-03-10T03:30:00Z\",\n    \"modifiedDate\" : \"2024-03-10T04:00:00Z\",\n    \"timeZone\" : \"America\\/Los_Angeles\",\n" +
		"    \"tags\" : [\n      \"hike\"\n    ],\n    \"location\" : {\n      \"localityName\" : \"Berkeley\",\n      \"latitude\" : 37.87,\n      \"longitude\" : -122.27\n    }\n  },\n" +
		"  {\n    \"uuid\" : \"0B2C\",\n    \"text\" : \"Morning pages\",\n    \"creationDate\" : \"2024-03-10T08:00:00Z\",\n    \"timeZone\" : \"Europe\\/Berlin\"\n  }\n]\n"
	journal := "{\n  \"metadata\" : {\n    \"version\" : \"1.0\"\n  },\n  \"entries\" : " + strings.ReplaceAll(entries, "\n", "\n  ") + "}\n"
	dir := writeTree(t, map[string]string{"entries.json": entries, "Journal.json": journal})
	recs, problems := collect(t, jsonSource(dir))
	if len(problems) != 0 {
		t.Errorf("problems %v, want none", problems)
	}
	if len(recs) != 4 {
		t.Fatalf("records %+v, want both entries of both files", recs)
	}
	for i, file := range []string{"Journal.json", "entries.json"} {
		hike, pages := recs[2*i], recs[2*i+1]
		if filepath.Base(hike.Path) != file || hike.ID != "6A1F0C2B9E3D4F5A8B7C6D5E4F3A2B1C" || hike.Date != "2024-03-09" || !slices.Equal(hike.Tags, []string{"hike"}) ||
			!hike.Time.Equal(time.Date(2024, 3, 10, 3, 30, 0, 0, time.UTC)) || !strings.Contains(hike.Text, "ridge trail") {
			t.Errorf("%s: entry read as %+v, want its uuid, tag and Californian day 2024-03-09", file, hike)
		}
		if pages.ID != "0B2C" || pages.Date != "2024-03-10" {
			t.Errorf("%s: entry read as %+v, want its uuid and day 2024-03-10", file, pages)
		}
	}
	if recs[0].Line != 6 || recs[1].Line != 21 {
		t.Errorf("Journal.json's entries at lines %d and %d, want 6 and 21, where each starts", recs[0].Line, recs[1].Line)
	}
}

// TestRead_frontMatterDateKeys: a note dated by front matter under the
// keys Obsidian's Linter writes ("date created", "date modified") or
// as exporters and scripts spell them (created_at, createdAt,
// updated_at, last_modified) is of that day, as one under created or
// updated is; before, these keys were ignored and the note was of the
// day its file was last written (the day of the export or the sync).
// The Linter's default form of a time ("Tuesday, January 16th 2024,
// 11:30:00 pm") is read too, as the wall-clock time it writes.
func TestRead_frontMatterDateKeys(t *testing.T) {
	for name, note := range map[string]string{
		"Linter":            "---\ndate created: 2024-01-16T09:30\ndate modified: 2024-02-16\ntags: [garden]\n---\nPrune the roses.\n",
		"Linter format":     "---\ndate created: Tuesday, January 16th 2024, 11:30:00 pm\ndate modified: Friday, February 16th 2024, 4:00:00 pm\n---\nPrune the roses.\n",
		"Linter midnight":   "---\ncreated: Tuesday, January 16th 2024, 12:05:00 am\n---\nPrune the roses.\n",
		"snake":             "---\ncreated_at: 2024-01-16 09:30\nupdated_at: 2024-02-16\n---\nPrune the roses.\n",
		"camel":             "---\ncreatedAt: 2024-01-16T09:30:00+01:00\n---\nPrune the roses.\n",
		"modified only":     "---\nlast_modified: 2024-01-16\n---\nPrune the roses.\n",
		"own spelling wins": "---\ncreated: 2024-01-16\ndate created: 2023-05-05\n---\nPrune the roses.\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"Garden.md": note})
			recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
			if len(recs) != 1 || len(problems) != 0 {
				t.Fatalf("records %+v, problems %v", recs, problems)
			}
			if recs[0].Date != "2024-01-16" {
				t.Errorf("date %q, want 2024-01-16", recs[0].Date)
			}
			if h := recs[0].Time.Hour(); name == "Linter format" && h != 23 || name == "Linter midnight" && h != 0 {
				t.Errorf("time %v, want the hour written", recs[0].Time)
			}
		})
	}
}

// TestRead_htmlNote: an HTML note (Apple Notes as exporters write it,
// with or without front matter) in a markdown source that includes
// *.html is read as its text: its headings are sections, its entities
// are characters, and the markup, the head's style and a script are not
// its words; a head left open ends where the body starts. Before, the whole file, tags and CSS, was the note's text.
func TestRead_htmlNote(t *testing.T) {
	letter := "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Letter</title><style>body{font-family:Helvetica}</style>" +
		"<script>var tracking = 1;</script></head>\n<body><div><h1>Letter to the landlord</h1></div>\n<div>The <b>boiler</b> broke&nbsp;again &amp; the\n   radiator leaks.</div><div><br></div>" +
		"<h2>To do</h2><ul><li>call the plumber</li><li>photograph the leak</li></ul></body></html>\n"
	withFM := "---\ntitle: Quarterly plan\ncreated: 2024-02-05T09:15:00Z\ntags: [work]\n---\n<html><body><div>Hire two engineers for R&amp;D</div></body></html>\n"
	unclosed := "<html><head><meta charset=\"utf-8\"><title>Bare</title>\n<body><p>Words after a head left open</p></body></html>\n"
	dir := writeTree(t, map[string]string{"Notes/Letter.html": letter, "Notes/Plan.htm": withFM, "Notes/Bare.html": unclosed})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir, Include: []string{"*.md", "*.html", "*.htm"}})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Title+": "+r.Text)
		for _, markup := range []string{"<div", "<b>", "<html", "DOCTYPE", "font-family", "tracking", "&amp;", "&nbsp;"} {
			if strings.Contains(r.Text+r.Title, markup) {
				t.Errorf("%s: the markup %q is in the note's words: %q", r.Title, markup, r.Text)
			}
		}
	}
	want := []string{
		"Bare: Words after a head left open",
		"Letter to the landlord: The boiler broke again & the radiator leaks.",
		"Letter to the landlord > To do: - call the plumber\n- photograph the leak",
		"Quarterly plan: Hire two engineers for R&D",
	}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
	if p := recs[len(recs)-1]; p.Date != "2024-02-05" || !slices.Equal(p.Tags, []string{"work"}) {
		t.Errorf("Plan.htm: date %q tags %q, want its front matter's", p.Date, p.Tags)
	}
}

// TestRead_htmlNoteTextLikeMarkup: a line of an HTML note's text that
// reads like a tag ("&lt;pre&gt; keeps blanks", a note about HTML) is
// its words, not an HTML block: the headings after it open sections. The
// line was taken for a <pre> block, which held the rest of the note.
func TestRead_htmlNoteTextLikeMarkup(t *testing.T) {
	note := "<html><body><h1>Tags</h1><div>&lt;pre&gt; keeps a text's blanks</div><div>&lt;div&gt;</div>" +
		"<h2>Lists</h2><div>&lt;ul&gt; holds items</div><h2>Tables</h2><div>Rows.</div></body></html>\n"
	dir := writeTree(t, map[string]string{"Notes/HTML.html": note})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir, Include: []string{"*.html"}})
	if len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Title+": "+r.Text)
	}
	want := []string{"Tags: <pre> keeps a text's blanks\n<div>", "Tags > Lists: <ul> holds items", "Tags > Tables: Rows."}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n%q\nwant\n%q", got, want)
	}
}

// TestRead_htmlNoteTagsAfterTextLikeMarkup: a #tag after a line of an
// HTML note's text that reads like a tag ("&lt;div&gt;") is a tag, as
// it is after any other words (Apple Notes writes tags in the text): the
// line was taken for an HTML block, which hides tags, up to a blank line
// that an HTML note's text has none of.
func TestRead_htmlNoteTagsAfterTextLikeMarkup(t *testing.T) {
	note := "<html><body><div>&lt;div&gt; wraps a block</div><div>Buy milk #errand</div>" +
		"<h2>Shop</h2><div>&lt;p&gt; is a paragraph</div><div>Open at nine #hours</div></body></html>\n"
	dir := writeTree(t, map[string]string{"Notes/Tags.html": note})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir, Include: []string{"*.html"}})
	if len(problems) != 0 || len(recs) != 2 {
		t.Fatalf("records %+v, problems %v", recs, problems)
	}
	if !slices.Equal(recs[0].Tags, []string{"errand"}) || !slices.Equal(recs[1].Tags, []string{"hours"}) {
		t.Errorf("tags %q and %q, want [errand] and [hours]", recs[0].Tags, recs[1].Tags)
	}
}

// TestReadJSONL_exportFieldsOfOtherShapes: a record of Nova's own shape
// whose other fields happen to bear an export's names in other shapes
// (a number for textContent, labels of objects without a name, a
// creationDate that is no date, isTrashed a string) is read as before:
// those fields are not its text, tags or date, and do not cost it.
func TestReadJSONL_exportFieldsOfOtherShapes(t *testing.T) {
	dir := writeTree(t, map[string]string{"r.jsonl": `{"id":"o1","text":"the queue moved to SQLite","textContent":5,"labels":[[1]],"creationDate":"yesterday","isTrashed":"no","date":"2026-03-04"}` + "\n"})
	recs, problems := collect(t, jsonSource(dir))
	if len(recs) != 1 || len(problems) != 0 {
		t.Fatalf("records %+v, problems %v", recs, problems)
	}
	if r := recs[0]; r.ID != "o1" || r.Text != "the queue moved to SQLite" || len(r.Tags) != 0 || r.Date != "2026-03-04" {
		t.Errorf("read as %+v", r)
	}
}

// TestReadJSONL_dayOneText: a Day One entry's text as its export writes
// it, in Markdown with its punctuation escaped ("\." "\!") and its
// photos as dayone-moment links, reads as the words written, and the
// place it was written at (its location's place, locality, area and
// country) is among its words, so a search for the place finds it.
// Before, the text kept every backslash and the photos' links, and the
// place was not read. A code block's backslashes are its own. Its title
// is its first line's heading, as Day One lists it.
func TestReadJSONL_dayOneText(t *testing.T) {
	journal := `{
  "metadata" : {
    "version" : "1.0"
  },
  "entries" : [
    {
      "starred" : false,
      "location" : {
        "region" : {
          "center" : {
            "longitude" : -122.2445,
            "latitude" : 37.9014
          },
          "identifier" : "<+37.90,-122.24> radius 75.00",
          "radius" : 75
        },
        "localityName" : "Berkeley",
        "country" : "United States",
        "timeZoneName" : "America\/Los_Angeles",
        "administrativeArea" : "CA",
        "longitude" : -122.2445,
        "placeName" : "Tilden Regional Park",
        "latitude" : 37.9014
      },
      "photos" : [
        {
          "identifier" : "9C3F2A1B0E4D4C5B8A7F6E5D4C3B2A19",
          "type" : "jpeg",
          "md5" : "0f3c5a6b7d8e9f00112233445566778a"
        }
      ],
      "creationDate" : "2024-03-10T03:30:00Z",
      "modifiedDate" : "2024-03-10T04:00:00Z",
      "text" : "# Ridge hike\n\nWalked the ridge trail with Sam\\. Saw two hawks\\! Cost \\$5 \\(parking\\)\\.\n\n![](dayone-moment:\/\/9C3F2A1B0E4D4C5B8A7F6E5D4C3B2A19)\n\n` + "```" + `\ngrep 'a\\.b' log\n` + "```" + `",
      "timeZone" : "America\/Los_Angeles",
      "uuid" : "6A1F0C2B9E3D4F5A8B7C6D5E4F3A2B1C",
      "tags" : [
        "hike"
      ]
    }
  ]
}
`
	dir := writeTree(t, map[string]string{"Journal.json": journal})
	recs, problems := collect(t, jsonSource(dir))
	if len(problems) != 0 || len(recs) != 1 {
		t.Fatalf("records %+v, problems %v: want the entry", recs, problems)
	}
	text := recs[0].Text
	for _, want := range []string{"with Sam. Saw two hawks! Cost $5 (parking).", "grep 'a\\.b' log", "Tilden Regional Park", "Berkeley", "United States"} {
		if !strings.Contains(text, want) {
			t.Errorf("text %q, want %q in it", text, want)
		}
	}
	if recs[0].Title != "Ridge hike" {
		t.Errorf("title %q, want the entry's heading, as Day One shows it", recs[0].Title)
	}
	if strings.Contains(text, "dayone-moment") || strings.Contains(text, "Sam\\.") {
		t.Errorf("text %q keeps the export's escapes or its photo's link", text)
	}
}

// TestRead_conflictCopyTitle: a note without a title of its own is
// titled by its file's name, and a sync service's copy of a note by its
// original's: Syncthing's, Dropbox's and Nextcloud's marks, and iCloud's
// " 2" or a second download's " (1)" beside the file they copy. Before, a
// copy's title was "kiosk.sync-conflict-20260601-101010-ABCDEFG" (a
// canvas's cards' too). A name
// that only looks like a copy's, with no original beside it, is its own.
func TestRead_conflictCopyTitle(t *testing.T) {
	files := map[string]string{
		"kiosk.md": "The kiosk reboots at noon.\n",
		"kiosk.sync-conflict-20260601-101010-ABCDEFG.md": "The kiosk reboots at one.\n",
		"plan (Sam's conflicted copy 2026-06-01).md":     "Plan the offsite.\n",
		"budget (conflicted copy 2026-06-01 101010).md":  "Budget for June.\n",
		"notes.md":       "Notes of the week.\n",
		"notes 2.md":     "Notes of the week, edited.\n",
		"report.md":      "The report.\n",
		"report (1).md":  "The report again.\n",
		"sprint 2.md":    "Sprint two goals.\n",
		"Chapter (2).md": "The second chapter.\n",
		"Trip 6f1b2c3d4e5f60718293a4b5c6d7e8f9.sync-conflict-20260601-101010-ABCDEFG.md": "Notion page, copied.\n",
		"board.sync-conflict-20260601-101010-ABCDEFG.canvas":                             `{"nodes":[{"id":"c1","type":"text","text":"Ship it.","x":0,"y":0,"width":10,"height":10}]}`,
	}
	want := map[string]string{
		"kiosk.md": "kiosk", "kiosk.sync-conflict-20260601-101010-ABCDEFG.md": "kiosk",
		"plan (Sam's conflicted copy 2026-06-01).md": "plan", "budget (conflicted copy 2026-06-01 101010).md": "budget",
		"notes.md": "notes", "notes 2.md": "notes", "report.md": "report", "report (1).md": "report",
		"sprint 2.md": "sprint 2", "Chapter (2).md": "Chapter (2)",
		"Trip 6f1b2c3d4e5f60718293a4b5c6d7e8f9.sync-conflict-20260601-101010-ABCDEFG.md": "Trip",
		"board.sync-conflict-20260601-101010-ABCDEFG.canvas":                             "board",
	}
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: writeTree(t, files)})
	if len(problems) != 0 || len(recs) != len(files) {
		t.Fatalf("records %+v, problems %v: want one a note", recs, problems)
	}
	for _, r := range recs {
		if w := want[filepath.Base(r.Path)]; r.Title != w {
			t.Errorf("%s titled %q, want %q", filepath.Base(r.Path), r.Title, w)
		}
	}
}

// TestReadJSONL_dayOnePhotoEntry: a Day One entry of photos alone (its
// text their links, or no text at all) holds no words: it is left out,
// and is no problem, and a journal that opens with one is read all the
// same. Before, the first gave a record with no text, the second a
// problem, and a journal that opened with either was not read.
func TestReadJSONL_dayOnePhotoEntry(t *testing.T) {
	journal := "{\n  \"metadata\" : {\n    \"version\" : \"1.0\"\n  },\n  \"entries\" : [\n" +
		"    {\n      \"creationDate\" : \"2024-05-04T18:00:00Z\",\n      \"text\" : \"![](dayone-moment:\\/\\/9C3F2A1B0E4D4C5B8A7F6E5D4C3B2A19)\\n\\n![](dayone-moment:\\/\\/0C3F2A1B0E4D4C5B8A7F6E5D4C3B2A19)\",\n" +
		"      \"photos\" : [{\"identifier\" : \"9C3F2A1B0E4D4C5B8A7F6E5D4C3B2A19\", \"type\" : \"jpeg\"}],\n      \"uuid\" : \"1A\"\n    },\n" +
		"    {\n      \"creationDate\" : \"2024-05-05T18:00:00Z\",\n      \"photos\" : [{\"identifier\" : \"1C3F2A1B0E4D4C5B8A7F6E5D4C3B2A19\", \"type\" : \"jpeg\"}],\n      \"uuid\" : \"2A\"\n    },\n" +
		"    {\n      \"creationDate\" : \"2024-05-06T18:00:00Z\",\n      \"text\" : \"Swam below the waterfall\",\n      \"uuid\" : \"3A\"\n    }\n  ]\n}\n"
	recs, problems := collect(t, jsonSource(writeTree(t, map[string]string{"Journal.json": journal})))
	if len(problems) != 0 {
		t.Errorf("problems %v, want none", problems)
	}
	if len(recs) != 1 || recs[0].ID != "3A" {
		t.Errorf("records %+v, want the entry with words alone", recs)
	}
}
