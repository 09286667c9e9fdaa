package ingest

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// htmlFuzzSeeds are HTML notes as exporters write them: Keep, Evernote,
// Notion, Joplin, a saved page with a table, a pre and a checklist.
var htmlFuzzSeeds = []string{
	`<html><head><title>Trip</title><style>.note{}</style></head><body><div class="note"><div class="heading">Jun 1, 2026, 10:00:00 AM</div><div class="title">Trip</div><div class="content">Pack <b>boots</b><br>Book train</div><ul class="list"><li class="listitem"><span class="bullet">&#9745;</span><span class="text">Passport</span></li></ul><div class="chips"><span class="label"><span class="label-name">travel</span></span></div></div></body></html>`,
	`<!DOCTYPE html><html><head><meta name="created" content="2026-03-05 10:00:00 +0000"><meta name="keywords" content="ops, db"></head><body><h1>Runbook</h1><table><tr><td><b>Created:</b></td><td><i>5 Mar 2026</i></td></tr></table><div>Restart with <en-todo checked="true"/> care</div><pre>  # install deps
  make</pre></body></html>`,
	`<html><body><article class="page"><header><h1 class="page-title">Plan</h1><table class="properties"><tr class="property-row"><th>Tags</th><td>a, b</td></tr><tr><th>Done</th><td><div class="checkbox checkbox-on"></div></td></tr></table></header><div class="page-body"><ul class="to-do-list"><li><div class="checkbox checkbox-off"></div> <span class="to-do-children-unchecked">call</span></li></ul></div></article></body></html>`,
	`<html><body><div class="exported-note"><div class="exported-note-title">Joplin note</div><div id="rendered-md"><p>Host <code>db1</code> | port 5432</p><img alt="diagram of the ring" src="data:image/png;base64,AAAA"><input type="checkbox" checked> done</div></div></body></html>`,
	`<p>Text</p><table><tr><th>Name</th><th>Value</th></tr><tr><td>DB_PASSWORD</td><td>x|y</td></tr><tr><td>a<table><tr><td>inner</td></tr></table></td></tr></table><hr><p>---</p><svg><title>icon</title></svg><script>var s = "</p>";</script>`,
}

// FuzzHTMLNoteText feeds the HTML note reader markup no exporter wrote:
// tags left open or closed twice, tables in cells, a pre never closed,
// classes of one exporter in another's page. Whatever the note holds, a
// read does not panic, gives the same text twice, and keeps valid UTF-8
// valid. And a note whose only markup is a script around plain words
// (words and a script built from the fuzzer's bytes) keeps every word of
// the text and none of the script's: a browser shows the one and not the
// other; plain words around a Keep heading left open keep every word.
func FuzzHTMLNoteText(f *testing.F) {
	for _, s := range htmlFuzzSeeds {
		f.Add([]byte(s), []byte("Deploy at 10:30 — 部署 ## done"))
	}
	f.Add([]byte("<pre><pre>a</pre>"), []byte("- [x]"))
	f.Add([]byte("<table><td>a<tr><th>b"), []byte("| a |\n---"))
	f.Fuzz(func(t *testing.T, body, words []byte) {
		text, fm, title := htmlNoteText(body)
		again, fm2, title2 := htmlNoteText(body)
		if !bytes.Equal(text, again) || title != title2 || !reflect.DeepEqual(fm, fm2) {
			t.Fatalf("two reads of %q differ:\n%q\n%q", body, text, again)
		}
		if utf8.Valid(body) && (!utf8.Valid(text) || !utf8.ValidString(title)) {
			t.Fatalf("valid UTF-8 %q read as invalid: text %q, title %q", body, text, title)
		}

		// Plain words around a script: no '<' or '&' (no markup, no
		// entity), valid UTF-8 without NUL (which the tokenizer
		// replaces).
		if !utf8.Valid(words) || bytes.ContainsAny(words, "<&\x00") {
			return
		}
		const hidden = "NOVAHIDDENSCRIPT"
		half := len(words) / 2
		for half > 0 && !utf8.RuneStart(words[half]) {
			half--
		}
		note := string(words[:half]) + "<script>" + hidden + " " + string(words) + "</script>" + string(words[half:])
		out, _, _ := htmlNoteText([]byte(note))
		if bytes.Contains(out, []byte(hidden)) {
			t.Fatalf("a script's words in the text of %q:\n%q", note, out)
		}
		keptWords(t, words, note, out)

		// An exporter's element left open (a Keep heading in a file cut
		// short) keeps the words after it: they are the note's. A block
		// parts the words around it, so it goes between two.
		gap := bytes.LastIndexAny(words[:half], " \t\n") + 1
		note = string(words[:gap]) + `<div class="note DEFAULT"><div class="heading">` + string(words[gap:])
		out, _, _ = htmlNoteText([]byte(note))
		keptWords(t, words, note, out)
	})
}

// keptWords fails t unless out, the text of note, holds every word of
// words with a letter or a digit.
func keptWords(t *testing.T, words []byte, note string, out []byte) {
	t.Helper()
	for _, w := range strings.Fields(string(words)) {
		if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
			continue // marks alone ("#", "- [x]") may be the note's structure
		}
		if !bytes.Contains(out, []byte(w)) {
			t.Fatalf("word %q of %q lost:\n%q", w, note, out)
		}
	}
}
