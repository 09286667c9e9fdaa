package memory

import (
	"testing"

	"golang.org/x/text/unicode/norm"
)

func TestConflictCopyOf(t *testing.T) {
	tests := []struct {
		base, want string
		copy       bool
	}{
		{"notes.sync-conflict-20261201-101010-ABCDEFG.md", "notes", true},
		{"notes.sync-conflict-20261201-101010.md", "notes", true},
		{"notes (Mac's conflicted copy 2026-12-01).md", "notes", true},
		{"notes (Mac's conflicted copy 2026-12-01 (1)).md", "notes", true},
		{"notes (Case Conflict).md", "notes", true},
		{"notes (Unicode Encoding Conflict).md", "notes", true},
		{"notes (1).md", "notes", true},
		// Nextcloud's, and ownCloud's (and older Nextcloud's).
		{"notes (conflicted copy 2026-12-01 101010).md", "notes", true},
		{"notes_conflict-20261201-101010.md", "notes", true},
		{"notes.md", "notes", false},
		{"notes (draft).md", "notes (draft)", false},
		{"sprint 2.md", "sprint 2", false},
		{"notes-MacBook.md", "notes-MacBook", false},
		{"board-2026-06-01.md", "board-2026-06-01", false},
	}
	for _, tt := range tests {
		got, copy := ConflictCopyOf(tt.base)
		if got != tt.want || copy != tt.copy {
			t.Errorf("ConflictCopyOf(%q) = %q, %v; want %q, %v", tt.base, got, copy, tt.want, tt.copy)
		}
	}
	if !IsConflictCopy(`notes\sub\plan (1).md`) || IsConflictCopy("sub (1)/plan.md") {
		t.Error("IsConflictCopy judges the folder, not the file's name")
	}
}

func TestCopyOf(t *testing.T) {
	tests := []struct {
		p, orig string
		want    bool
	}{
		{"a/notes 2.md", "a/notes.md", true},
		{"a/notes 12.md", "a/notes.md", true},
		{"a/notes.sync-conflict-20261201-101010-ABCDEFG.md", "a/notes.md", true},
		{`a\notes (1).md`, `a\notes.md`, true},
		// A Unicode Encoding Conflict copy's name is its original's in
		// the other form; a folder is one in either form.
		{norm.NFD.String("a/café (Unicode Encoding Conflict).md"), "a/café.md", true},
		{"a/café (Unicode Encoding Conflict).md", norm.NFD.String("a/café.md"), true},
		{norm.NFD.String("é/café 2.md"), "é/café.md", true},
		{"a/notes 2.md", "b/notes.md", false},
		{"a/notes 2.txt", "a/notes.md", false},
		{"a/notes.md", "a/notes 2.md", false},
		{"a/notes 02.md", "a/notes.md", false},
		{"a/notes two.md", "a/notes.md", false},
		{"a/plan (1).md", "a/notes.md", false},
		{"a/notes-MacBook.md", "a/notes.md", false},
	}
	for _, tt := range tests {
		if got := CopyOf(tt.p, tt.orig); got != tt.want {
			t.Errorf("CopyOf(%q, %q) = %v, want %v", tt.p, tt.orig, got, tt.want)
		}
	}
}
