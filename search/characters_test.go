package search_test

import (
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/search"
)

// A question's Chinese word is found inside a memory's compound through
// its characters: 手 in 左手, 爸爸 as 我爸, 钓鱼 asked as 钓过鱼. Neither the words
// nor their bigrams join them, so without the lever the memory is not
// found at all.
func TestCharacters_findAWordInsideACompound(t *testing.T) {
	snap := build(t, config.Source{Name: "talk", Kind: config.KindJSONL, Path: "characters"})
	// A lexical lever: without the dense channel, which a model trained on
	// four turns makes noisy, the fixture measures it alone.
	snap.Query = nil
	for _, c := range []struct{ query, answer string }{
		{"练吉他以后手上有什么变化？", "c1-1"},
		{"谁和爸爸钓过鱼？", "c2-1"},
	} {
		t.Run(c.query, func(t *testing.T) {
			req := api.SearchRequest{Query: c.query, TopK: 5}
			if off := ask(t, engineWith(search.LeverCharacters), snap, req); rank(off, c.answer) >= 0 {
				t.Fatalf("fixture: without the lever %s should not be found: %v", c.answer, ids(off))
			}
			if on := ask(t, engineWith(), snap, req); rank(on, c.answer) != 0 {
				t.Fatalf("%s should rank first with the lever: %v", c.answer, ids(on))
			}
		})
	}
}
