package cli

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index/ingest"
)

// A folder given to --notes may be a notes app's export rather than
// Markdown: the source that reads it is then of another kind or other
// globs, which config init writes so that no one edits the file by hand.

// exportSniff is how much of a .json file is read to tell whose export it
// is: the keys that tell are in its first lines.
const exportSniff = 4096

// exportSniffMax bounds the .json files config init opens in one folder:
// one of an export is enough to know it.
const exportSniffMax = 200

// notesExport is what a --notes folder holds, as config init tells it.
type notesExport struct {
	// markdown and html count the notes of each kind found.
	markdown, html int
	// keep is the folder (relative, slash-separated; "." for the folder
	// itself) of the first Google Keep note found (a Takeout's Keep/),
	// "" for none; dayOne is set when a Day One journal was found.
	keep   string
	dayOne bool
}

// readNotesExport walks dir, up to unreadWalkMax entries as unreadRecords
// does, and tells what notes it holds: Markdown, HTML notes (an Apple
// Notes or Evernote export), Google Keep's notes (a Takeout folder) or a
// Day One journal (its Journal.json).
func readNotesExport(dir string) notesExport {
	var e notesExport
	notes := config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir}
	root := ingest.WalkRoot(dir)
	seen, sniffed := 0, 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: the sync reports it, this is advice
		}
		if seen++; seen > unreadWalkMax {
			return fs.SkipAll
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil || rel == "." && d.IsDir() {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = d.Name() // --notes named a file
		}
		if d.IsDir() {
			if ingest.SkipsDir(notes, rel) {
				return fs.SkipDir
			}
			return nil
		}
		switch ext := strings.ToLower(path.Ext(rel)); {
		case ingest.ListsFile(notes, rel):
			e.markdown++
		case ext == ".html" || ext == ".htm":
			e.html++
		case ext == ".json" && sniffed < exportSniffMax && (e.keep == "" || !e.dayOne):
			sniffed++
			switch jsonExportOf(p) {
			case "keep":
				if e.keep == "" {
					e.keep = path.Dir(rel)
				}
			case "dayone":
				e.dayOne = true
			}
		}
		return nil
	})
	return e
}

// jsonExportOf tells whose note the .json file at p is by its first
// bytes: "keep" for a Google Keep note (Takeout writes one a file, with
// its times in microseconds), "dayone" for a Day One journal (its
// metadata, then its entries), "" for any other.
func jsonExportOf(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, exportSniff)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	has := func(key string) bool { return bytes.Contains(head, []byte(`"`+key+`"`)) }
	switch {
	case has("createdTimestampUsec") && (has("textContent") || has("listContent")):
		return "keep"
	case has("metadata") && has("entries"):
		return "dayone"
	}
	return ""
}

// exportSources are the sources that read a --notes folder, dir, written
// as shown (~ for the home): a Keep folder and a Day One journal are read
// as records (a jsonl source of *.json; Keep's .html copies of its notes
// are not read), HTML notes beside Markdown by a markdown source that
// lists both, and a folder of Markdown as before. name gives the n-th
// source of a base name its name.
func exportSources(dir, shown string, name func(base string) string) []initSource {
	e := readNotesExport(dir)
	var out []initSource
	if e.keep != "" {
		keepDir, keepShown := dir, shown
		if e.keep != "." {
			// A whole Takeout: its other products' JSON is no note.
			keepDir = filepath.Join(dir, filepath.FromSlash(e.keep))
			keepShown = shown + "/" + e.keep
		}
		out = append(out, initSource{Name: name("keep"), Kind: config.KindJSONL, Path: keepShown, dir: keepDir,
			Include: []string{"*.json"}, what: "Google Keep notes", notes: true})
	}
	if e.dayOne && e.keep != "." {
		out = append(out, initSource{Name: name("journal"), Kind: config.KindJSONL, Path: shown, dir: dir,
			Include: []string{"*.json"}, what: "Day One journals", notes: true})
	}
	switch {
	case e.html > 0 && e.keep == "":
		out = append(out, initSource{Name: name("notes"), Kind: config.KindMarkdown, Path: shown, dir: dir,
			Include: []string{"*.md", "*.html"}, what: "Markdown and HTML notes"})
	case e.markdown > 0 || len(out) == 0:
		out = append(out, initSource{Name: name("notes"), Kind: config.KindMarkdown, Path: shown, dir: dir, what: "Markdown notes"})
	}
	return out
}
