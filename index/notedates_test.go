package index_test

import (
	"slices"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/paths"
)

// searchDay runs query over home's active generation with a filter to
// one day and returns the results' source ids.
func searchDay(t *testing.T, home paths.Home, query, day string) []string {
	t.Helper()
	return searchFiltered(t, home, query, api.Filters{DateFrom: day, DateTo: day})
}

// TestSync_dailyNoteNamedDays: daily notes named as Dendron and
// Obsidian name them (daily.journal.2026.03.05.md, "Thursday, March 5,
// 2026.md") are found by a search of their day. They were of the day
// their files were last written, and a search of March 5 missed them.
func TestSync_dailyNoteNamedDays(t *testing.T) {
	home := syncedNotes(t, map[string]string{
		"daily.journal.2026.03.05.md": "- Moved the staging port to 8443.\n",
		"Friday, March 6, 2026.md":    "- Rotated the staging certificate.\n",
	})
	for day, want := range map[string]string{"2026-03-05": "daily.journal.2026.03.05.md#top", "2026-03-06": "Friday, March 6, 2026.md#top"} {
		if ids := searchDay(t, home, "staging", day); !slices.Equal(ids, []string{want}) {
			t.Errorf("%s: results %q, want %s", day, ids, want)
		}
	}
}

// TestSync_frontMatterFullWidthColon: a note whose front matter was
// typed with a CJK input method's colon (date：2026-03-05) is found by a
// search of that day. It was of the day its file was last written.
func TestSync_frontMatterFullWidthColon(t *testing.T) {
	home := syncedNotes(t, map[string]string{
		"迁移.md": "---\ndate：2026-03-05\ntags: [ops]\n---\nstaging 端口改成 8443。\n",
	})
	if ids := searchDay(t, home, "staging 8443", "2026-03-05"); !slices.Equal(ids, []string{"迁移.md#top"}) {
		t.Errorf("results %q, want 迁移.md#top", ids)
	}
}

// TestSync_periodicNotes: a week's note (2026-W10.md) is found by a
// search of its week, and a month's (2026-03.md) by a search of its
// month, the week or month named in the query or as a filter. They were
// of the day their files were last written, outside both.
func TestSync_periodicNotes(t *testing.T) {
	home := syncedNotes(t, map[string]string{
		"2026-W10.md": "- Moved the staging port to 8443.\n",
		"2026-02.md":  "- Budget review for staging.\n",
	})
	for day, want := range map[string]string{"2026-03-02": "2026-W10.md#top", "2026-02-01": "2026-02.md#top"} {
		if ids := searchDay(t, home, "staging", day); !slices.Equal(ids, []string{want}) {
			t.Errorf("%s: results %q, want %s", day, ids, want)
		}
	}
	for query, want := range map[string]string{"staging in week 10 of 2026": "2026-W10.md#top", "staging in February 2026": "2026-02.md#top"} {
		if ids := searchIDs(t, home, query); len(ids) == 0 || ids[0] != want {
			t.Errorf("%q: results %q, want %s first", query, ids, want)
		}
	}
}

// TestSync_folderDay: a daily note filed as journals/2026/03/04.md is
// found by a search of March 4. It was of the day its file was last
// written.
func TestSync_folderDay(t *testing.T) {
	home := syncedNotes(t, map[string]string{
		"journals/2026/03/04.md": "- Moved the staging port to 8443.\n",
	})
	if ids := searchDay(t, home, "staging port", "2026-03-04"); len(ids) != 1 {
		t.Errorf("results %q, want the note of March 4", ids)
	}
}

// TestSync_frontMatterNamedDay: a note whose front matter date a
// template wrote as "March 5, 2026" is found by a search of that day.
// It was of the day its file was last written.
func TestSync_frontMatterNamedDay(t *testing.T) {
	home := syncedNotes(t, map[string]string{
		"port.md": "---\ndate: March 5, 2026\n---\nMoved the staging port to 8443.\n",
	})
	if ids := searchDay(t, home, "staging port", "2026-03-05"); !slices.Equal(ids, []string{"port.md#top"}) {
		t.Errorf("results %q, want port.md#top", ids)
	}
}
