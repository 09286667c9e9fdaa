package memory

import "testing"

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
		{"notes (1).md", "notes", true},
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
