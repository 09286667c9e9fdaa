package ingest

import (
	"maps"
	"slices"
	"testing"
)

// sectionTagCase is a note and the tags wanted of each of its records,
// by id.
type sectionTagCase struct {
	name, note string
	want       map[string][]string
}

// checkSectionTags reads each case's note as n.md through the Markdown
// reader and compares every record's tags with those wanted.
func checkSectionTags(t *testing.T, tests []sectionTagCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string][]string{}
			for _, r := range noteRecords(t, "n.md", tt.note) {
				got[r.ID] = r.Tags
			}
			if len(got) != len(tt.want) {
				t.Fatalf("records %q, want %q", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(tt.want)))
			}
			for id, want := range tt.want {
				if tags, ok := got[id]; !ok || !slices.Equal(tags, want) {
					t.Errorf("%s: tags %q (found %v), want %q", id, tags, ok, want)
				}
			}
		})
	}
}

// TestRead_headingTags: a #tag in a heading tags the section the heading
// opens, as Obsidian counts it ("## Trip #travel"); it was no tag at all,
// so a search filtered to #travel missed the section. A tag in the
// heading's code span is none, nor is a heading's "C#" or its closing
// run of "#".
func TestRead_headingTags(t *testing.T) {
	checkSectionTags(t, []sectionTagCase{
		{"ATX heading", "## Trip #travel\nBook the train. #trip/lisbon\n## Work\nShip it.\n", map[string][]string{
			"n.md#trip-travel": {"travel", "trip/lisbon"},
			"n.md#work":        nil,
		}},
		{"title heading", "# Plan #pinned\nIntro.\n## Travel\nGo.\n", map[string][]string{
			"n.md#plan-pinned":        {"pinned"},
			"n.md#plan-pinned-travel": nil,
		}},
		{"setext heading", "Trip #travel\n===\nGo.\n", map[string][]string{
			"n.md#trip-travel": {"travel"},
		}},
		{"list heading", "- ## Deploy #ops\n  - run it\n", map[string][]string{
			"n.md#deploy-ops": {"ops"},
		}},
		{"same tag in heading and text", "## Trip #travel\nGo. #Travel\n", map[string][]string{
			"n.md#trip-travel": {"travel"},
		}},
		{"no tags", "## Learning C# `#x` #123 ##\nStart.\n", map[string][]string{
			"n.md#learning-c-x-123": nil,
		}},
	})
}
