package memory

import (
	"slices"
	"strings"
	"testing"
)

// TestGovern_sourceSetSpelling: a source set or lifecycle written with
// other capitals, surrounding space or underscores ("Lessons",
// "task_board_snapshot", "Canonical") is governed as the one it names,
// under its wire name; a misspelt or unknown one stays unknown.
func TestGovern_sourceSetSpelling(t *testing.T) {
	for _, tc := range []struct {
		set, lifecycle string
		wantSet        string
		wantRank       int
		wantLifecycle  string
		wantWarnings   []string
	}{
		{"lessons", "", "lessons", 95, "canonical", []string{}},
		{"Lessons", "", "lessons", 95, "canonical", []string{}},
		{" LESSONS ", "", "lessons", 95, "canonical", []string{}},
		{"task_board_snapshot", "", "task-board-snapshot", 92, "current-state", []string{}},
		{"Agent-Transcripts", "", "agent-transcripts", 78, "episodic", []string{}},
		{"notes", "Current_State", "notes", 85, "current-state", []string{}},
		{"notes", " Episodic", "notes", 85, "episodic", []string{}},
		// Not a lifecycle of the enum: kept as written, trimmed.
		{"notes", "active ", "notes", 85, "active", []string{}},
		// The collector aliases upstream accepts (upstream §1.4).
		{"diary-markdown", "", "diary-markdown-sections", 90, "narrative", []string{}},
		{"Technical_Reports", "", "technical-report-task-events", 88, "task-history", []string{}},
		{"lesson", "", "lesson", 50, "unknown", []string{"unknown-source-set"}},
		{"my-own-set", "", "my-own-set", 50, "unknown", []string{"unknown-source-set"}},
	} {
		c := Chunk{SourceSet: tc.set, SourceID: "r", SourcePath: "/p", SourceType: "jsonl", TextHash: "h", DedupeKey: "k", Date: "2026-01-02"}
		g := Govern(&c, Override{Lifecycle: tc.lifecycle})
		if g.SourceSet != tc.wantSet || g.AuthorityRank != tc.wantRank || g.Lifecycle != tc.wantLifecycle || !slices.Equal(g.Warnings, tc.wantWarnings) {
			t.Errorf("source set %q, lifecycle %q: governed as %q rank %d lifecycle %q warnings %q; want %q %d %q %q",
				tc.set, tc.lifecycle, g.SourceSet, g.AuthorityRank, g.Lifecycle, g.Warnings, tc.wantSet, tc.wantRank, tc.wantLifecycle, tc.wantWarnings)
		}
		if got := EvidenceAuthority(g) > 0.5; got != (tc.wantRank >= 85) {
			t.Errorf("source set %q: evidence authority %v", tc.set, EvidenceAuthority(g))
		}
	}
}

// TestIsDuplicateGroupKey: IsDuplicateGroupKey says yes to exactly the
// key DuplicateGroupKey gives with the text hash it is told (the source
// set defaulting to unknown, the role standing for a missing agent, a
// key longer than its buffer), and no to a key one field away.
func TestIsDuplicateGroupKey(t *testing.T) {
	hash := HashText("x")
	for _, c := range []Chunk{
		{SourceSet: "notes", Project: "p", Agent: "codex", TextHash: hash},
		{SourceSet: " ", Role: "user", TextHash: "short"},
		{Project: strings.Repeat("p", 300), TextHash: hash},
		{},
	} {
		key := DuplicateGroupKey(&c)
		if !IsDuplicateGroupKey(key, &c, c.TextHash) {
			t.Errorf("IsDuplicateGroupKey(%q) of its own chunk = false", key)
		}
		other := c
		other.TextHash = HashText("y")
		if IsDuplicateGroupKey(key, &c, other.TextHash) || !IsDuplicateGroupKey(DuplicateGroupKey(&other), &c, other.TextHash) {
			t.Errorf("%q: the text hash told is not the one compared", key)
		}
		for _, k := range []string{key + ":", key[:len(key)-1], ""} {
			if IsDuplicateGroupKey(k, &c, c.TextHash) {
				t.Errorf("IsDuplicateGroupKey(%q) = true for the chunk of %q", k, key)
			}
		}
	}
}
