package index_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/search"
)

// TestSync_sectionTags: a search filtered to a tag written in one section
// of a note finds that section and not the note's others; one filtered
// to the note's front matter tag, or to a tag on the line of tags the
// note opens with, finds every section. Every section had all the
// note's tags, so a search for #travel returned the note's sections
// about work.
func TestSync_sectionTags(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes")
	writeFile(t, filepath.Join(notes, "plans.md"), "---\ntags: [personal]\n---\n#pinned\n\n## Travel\n\nBook the train to Lisbon for the offsite. #travel #trip/lisbon\n\n"+
		"```sh\n#deploy\n```\n\n## Work\n\nShip the offsite agenda and the release notes. #work/release\n")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindMarkdown, Path: notes})
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now}))
	_, g := active(t, cfg.Home)
	engine := search.New(search.Config{Now: func() time.Time { return epoch }}, lexical.NewAnalyzer())
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
		r, err := engine.Search(context.Background(), &search.Snapshot{Gen: g, Query: g.Model},
			api.SearchRequest{Query: "offsite", TopK: 10, Filters: api.Filters{Tags: []string{tag}}})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, x := range r.Results {
			ids = append(ids, x.SourceID)
		}
		slices.Sort(ids)
		if !slices.Equal(ids, want) {
			t.Errorf("tag %s: results %q, want %q", tag, ids, want)
		}
	}
}
