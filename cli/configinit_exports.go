package cli

import (
	"path/filepath"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index/ingest"
)

// A folder given to --notes may be a notes app's export rather than
// Markdown: the source that reads it is then of another kind or other
// globs, which config init writes so that no one edits the file by hand.

// exportSources are the sources that read a --notes folder, dir, written
// as shown (~ for the home): a Keep folder and a Day One journal are read
// as records (a jsonl source of *.json; Keep's .html copies of its notes
// are not read), HTML notes beside Markdown by a markdown source that
// lists both, and a folder of Markdown as before. name gives the n-th
// source of a base name its name.
func exportSources(dir, shown string, name func(base string) string) []initSource {
	e := ingest.ReadNotesExport(dir)
	var out []initSource
	if e.Keep != "" {
		keepDir, keepShown := dir, shown
		if e.Keep != "." {
			// A whole Takeout: its other products' JSON is no note.
			keepDir = filepath.Join(dir, filepath.FromSlash(e.Keep))
			keepShown = shown + "/" + e.Keep
		}
		out = append(out, initSource{Name: name("keep"), Kind: config.KindJSONL, Path: keepShown, dir: keepDir,
			Include: []string{"*.json"}, what: "Google Keep notes", notes: true})
	}
	if e.DayOne && e.Keep != "." {
		out = append(out, initSource{Name: name("journal"), Kind: config.KindJSONL, Path: shown, dir: dir,
			Include: []string{"*.json"}, what: "Day One journals", notes: true})
	}
	switch {
	case e.HTML > 0 && e.Keep == "":
		out = append(out, initSource{Name: name("notes"), Kind: config.KindMarkdown, Path: shown, dir: dir,
			Include: []string{"*.md", "*.html"}, what: "Markdown and HTML notes"})
	case e.Markdown > 0 || len(out) == 0:
		out = append(out, initSource{Name: name("notes"), Kind: config.KindMarkdown, Path: shown, dir: dir, what: "Markdown notes"})
	}
	return out
}
