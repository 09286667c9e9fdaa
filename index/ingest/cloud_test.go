package ingest

import (
	"errors"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/nova-recall/nova/config"
)

// TestList_iCloudStubsAreCountedNotListed: a note iCloud Drive evicted
// before macOS Sonoma is a hidden stub, .Note.md.icloud, beside where the
// note was. The listing does not list the stub as a file (it holds a
// plist, not the note) but names it among the source's files not
// downloaded, so that a sync counts them and doctor says so; a stub of a
// file the source would not read (a picture) is not counted, nor one in
// a folder the source leaves out.
func TestList_iCloudStubsAreCountedNotListed(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"kept.md":                   "# Kept\n",
		".Evicted.md.icloud":        "bplist00\x01",
		"deep/.Trip plan.md.icloud": "bplist00\x01",
		".photo.png.icloud":         "bplist00\x01",
		"node_modules/.x.md.icloud": "bplist00\x01",
		".hidden/.y.md.icloud":      "bplist00\x01",
		".icloud":                   "not a stub",
		"..icloud":                  "not a stub",
	})
	l, err := List(config.Source{Name: "vault", Kind: config.KindMarkdown, Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range l.Files {
		files = append(files, f.Rel)
	}
	if !slices.Equal(files, []string{"kept.md"}) {
		t.Errorf("listed %q, want only kept.md", files)
	}
	want := []string{filepath.Join(dir, "Evicted.md"), filepath.Join(dir, "deep", "Trip plan.md")}
	if !slices.Equal(l.NotDownloaded, want) {
		t.Errorf("not downloaded %q, want %q", l.NotDownloaded, want)
	}
	if len(l.Problems) != 0 {
		t.Errorf("problems %v: a file not downloaded is no problem of the listing", l.Problems)
	}
}

// TestCloudStubOf: the note a stub stands for, and names that are no stub.
func TestCloudStubOf(t *testing.T) {
	for name, want := range map[string]string{
		".Note.md.icloud":                "Note.md",
		"..aider.chat.history.md.icloud": ".aider.chat.history.md",
		".Note.md.ICLOUD":                "",
		"Note.md.icloud":                 "",
		".icloud":                        "",
		"..icloud":                       "",
		".Note.md":                       "",
		".conversations.json.icloud":     "conversations.json",
	} {
		if got := cloudStubOf(name); got != want {
			t.Errorf("cloudStubOf(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestList_datalessFilesAreListedAndMarked: a file a File Provider
// (iCloud Drive on macOS Sonoma and later, Dropbox, Google Drive) keeps
// only in the cloud keeps its name and size; it is listed as any file
// (reading it downloads it) and marked Dataless, so that a read that
// fails keeps its earlier memory and is tried again. The darwin flag is
// stood in for by the seam.
func TestList_datalessFilesAreListedAndMarked(t *testing.T) {
	dir := writeTree(t, map[string]string{"here.md": "# Here\n", "cloud.md": "# Cloud\n"})
	prev := dataless
	dataless = func(fi fs.FileInfo) bool { return fi.Name() == "cloud.md" }
	t.Cleanup(func() { dataless = prev })
	l, err := List(config.Source{Name: "vault", Kind: config.KindMarkdown, Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range l.Files {
		got[f.Rel] = f.Dataless
	}
	if want := map[string]bool{"cloud.md": true, "here.md": false}; !maps.Equal(got, want) {
		t.Errorf("listed %v, want %v", got, want)
	}
}

// TestPassingRead: a dataless file's read that the system failed (its
// download) passes, but not one it refused for a permission, nor a read
// whose content was found wanting; a file on the disk passes only for
// the reasons Passing names.
func TestPassingRead(t *testing.T) {
	cloud, disk := File{Dataless: true}, File{}
	open := func(err error) error { return &fs.PathError{Op: "open", Path: "/n/a.md", Err: err} }
	for _, tc := range []struct {
		name string
		f    File
		err  error
		want bool
	}{
		{"dataless, downloads not allowed", cloud, open(syscall.EDEADLK), true},
		{"dataless, offline", cloud, open(syscall.ENETDOWN), true},
		{"dataless, permission", cloud, open(syscall.EACCES), false},
		{"dataless, binary content", cloud, errors.New("binary content, not text"), false},
		{"dataless, read", cloud, nil, false},
		{"on disk, EDEADLK", disk, open(syscall.EDEADLK), false},
		{"on disk, timeout", disk, open(syscall.ETIMEDOUT), true},
	} {
		if got := PassingRead(tc.f, tc.err); got != tc.want {
			t.Errorf("%s: PassingRead = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestList_evictedFileSource: a source that is one file (an Aider
// history, a note) evicted by iCloud Drive is not missing: its stub
// stands beside where it was, and the listing names it not downloaded,
// where a source path that is gone altogether stays ErrSourceMissing.
func TestList_evictedFileSource(t *testing.T) {
	dir := writeTree(t, map[string]string{".Journal.md.icloud": "bplist00\x01"})
	note := filepath.Join(dir, "Journal.md")
	l, err := List(config.Source{Name: "journal", Kind: config.KindMarkdown, Path: note})
	if err != nil {
		t.Fatalf("List of an evicted file: %v", err)
	}
	if len(l.Files) != 0 || !slices.Equal(l.NotDownloaded, []string{note}) {
		t.Errorf("listed %v, not downloaded %q; want no file and %s not downloaded", l.Files, l.NotDownloaded, note)
	}
	if _, err := List(config.Source{Name: "gone", Kind: config.KindMarkdown, Path: filepath.Join(dir, "Gone.md")}); !errors.Is(err, ErrSourceMissing) {
		t.Errorf("List of a file that is gone: %v, want ErrSourceMissing", err)
	}
}
