package index_test

import (
	"slices"
	"testing"

	"github.com/nova-recall/nova/api"
)

// TestSync_sectionTags: a search filtered to a tag written in one section
// of a note finds that section and not the note's others; one filtered
// to the note's front matter tag, or to a tag on the line of tags the
// note opens with, finds every section. Every section had all the
// note's tags, so a search for #travel returned the note's sections
// about work.
func TestSync_sectionTags(t *testing.T) {
	home := syncedNotes(t, map[string]string{
		"plans.md": "---\ntags: [personal]\n---\n#pinned\n\n## Travel\n\nBook the train to Lisbon for the offsite. #travel #trip/lisbon\n\n" +
			"```sh\n#deploy\n```\n\n## Work\n\nShip the offsite agenda and the release notes. #work/release\n",
	})
	for tag, want := range map[string][]string{
		"travel":       {"plans.md#travel"},
		"trip/lisbon":  {"plans.md#travel"},
		"work/release": {"plans.md#work"},
		"personal":     {"plans.md#travel", "plans.md#work"},
		"pinned":       {"plans.md#travel", "plans.md#work"},
		"deploy":       nil,
		// A parent tag finds its nested ones; a part of a name does not.
		"trip":     {"plans.md#travel"},
		"work":     {"plans.md#work"},
		"trip/lis": nil,
		"Trip":     nil,
	} {
		ids := searchFiltered(t, home, "offsite", api.Filters{Tags: []string{tag}})
		slices.Sort(ids)
		if !slices.Equal(ids, want) {
			t.Errorf("tag %s: results %q, want %q", tag, ids, want)
		}
	}
}

// TestSync_headingTags: a search filtered to a tag written in a heading
// ("## Trip #travel", which Obsidian counts) finds the section that
// heading opens, and not the note's others. The heading's tag was no
// tag, so the filtered search found nothing.
func TestSync_headingTags(t *testing.T) {
	home := syncedNotes(t, map[string]string{
		"plans.md": "## Trip #travel\n\nBook the train to Lisbon for the offsite.\n\n## Work #work/release\n\nShip the offsite agenda.\n",
	})
	for tag, want := range map[string][]string{
		"travel":       {"plans.md#trip-travel"},
		"work/release": {"plans.md#work-work-release"},
		"work":         {"plans.md#work-work-release"},
	} {
		ids := searchFiltered(t, home, "offsite", api.Filters{Tags: []string{tag}})
		slices.Sort(ids)
		if !slices.Equal(ids, want) {
			t.Errorf("tag %s: results %q, want %q", tag, ids, want)
		}
	}
}

// TestSync_tagsObsidianHides: a "#" in an HTML comment or in math is no
// tag (Obsidian reads none there), so a search filtered to it finds
// nothing, while one filtered to the section's tag finds it. Both were
// tags of the section.
func TestSync_tagsObsidianHides(t *testing.T) {
	home := syncedNotes(t, map[string]string{
		"plans.md": "## Trip\n\nBook the train to Lisbon for the offsite. #travel <!-- #todo -->\n\n$$\n#inmath\n$$\n",
	})
	for tag, want := range map[string][]string{
		"travel": {"plans.md#trip"},
		"todo":   nil,
		"inmath": nil,
	} {
		ids := searchFiltered(t, home, "offsite", api.Filters{Tags: []string{tag}})
		if !slices.Equal(ids, want) {
			t.Errorf("tag %s: results %q, want %q", tag, ids, want)
		}
	}
}
