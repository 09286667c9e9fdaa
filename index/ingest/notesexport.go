package ingest

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/nova-recall/nova/config"
)

// exportSniff is how much of a .json file is read to tell whose export it
// is: the keys that tell are in its first lines.
const exportSniff = 4096

// notesExportWalkMax bounds the entries ReadNotesExport looks at: a
// home given by mistake is not walked to its end.
const notesExportWalkMax = 20000

// exportSniffMax bounds the .json files ReadNotesExport opens in one folder:
// one of an export is enough to know it.
const exportSniffMax = 200

// NotesExport is what a folder of notes holds, when it is a notes app's
// export that a source of its kind's globs would not read (config init
// writes the source that does, doctor names it).
type NotesExport struct {
	// Markdown and HTML count the notes of each kind found.
	Markdown, HTML int
	// Keep is the folder (relative, slash-separated; "." for the folder
	// itself) of the first Google Keep note found (a Takeout's Keep/),
	// "" for none; DayOne is set when a Day One journal was found.
	Keep   string
	DayOne bool
}

// ReadNotesExport walks dir, up to notesExportWalkMax entries, and
// tells what notes it holds: Markdown, HTML notes (an Apple Notes or
// Evernote export), Google Keep's notes (a Takeout folder) or a Day One
// journal (its Journal.json).
func ReadNotesExport(dir string) NotesExport {
	var e NotesExport
	notes := config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir}
	root := WalkRoot(dir)
	seen, sniffed := 0, 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: the sync reports it, this is advice
		}
		if seen++; seen > notesExportWalkMax {
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
			if SkipsDir(notes, rel) {
				return fs.SkipDir
			}
			return nil
		}
		switch ext := strings.ToLower(path.Ext(rel)); {
		case ListsFile(notes, rel):
			e.Markdown++
		case ext == ".html" || ext == ".htm":
			e.HTML++
		case ext == ".json" && sniffed < exportSniffMax && (e.Keep == "" || !e.DayOne):
			sniffed++
			switch jsonExportOf(p) {
			case "keep":
				if e.Keep == "" {
					e.Keep = path.Dir(rel)
				}
			case "dayone":
				e.DayOne = true
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
