package lexical

import (
	"math"
	"slices"
	"testing"
)

func TestRelatedWords(t *testing.T) {
	got, english := RelatedWords(Normalize("林晓推荐的那家饭馆叫什么？"))
	if !slices.Contains(got, "餐馆") || !slices.Contains(got, "饭店") {
		t.Errorf("饭馆: %v lacks 餐馆 or 饭店", got)
	}
	if !slices.Contains(english, "restaurant") {
		t.Errorf("饭馆: English words %v lack restaurant", english)
	}
	for _, own := range []string{"饭馆", "推荐", "林晓"} {
		if slices.Contains(got, own) {
			t.Errorf("%v holds the query's own word %s", got, own)
		}
	}
	seen := map[string]bool{}
	for _, w := range slices.Concat(got, english) {
		if seen[w] {
			t.Errorf("%s twice in %v %v", w, got, english)
		}
		seen[w] = true
	}
	// Traditional characters are folded by Normalize first.
	if trad, _ := RelatedWords(Normalize("飯館")); !slices.Contains(trad, "餐馆") {
		t.Errorf("飯館: %v", trad)
	}
	// A function word is never added (不可 is related to 应该).
	if r, _ := RelatedWords(Normalize("端口不可用")); slices.Contains(r, "应该") {
		t.Errorf("端口不可用: %v holds a function word", r)
	}
	// Single characters (陈 of a name is also 陈列) and English have none.
	for _, q := range []string{"陈", "why was the port unavailable", ""} {
		if r, e := RelatedWords(Normalize(q)); len(r)+len(e) != 0 {
			t.Errorf("%q: %v %v", q, r, e)
		}
	}
}

func TestResolveRelated_weighsRelatedTerms(t *testing.T) {
	ix := Build([][]string{{"饭馆", "城东"}, {"餐馆", "城东"}, {"公园"}}, B)
	own := ix.ScoreQuery(ix.Resolve([]string{"餐馆"}), []int{1})[0]
	related := ix.ScoreQuery(ix.ResolveRelated([]string{"饭馆"}, Related{[]string{"餐馆"}, 0.3}), []int{0, 1})
	if math.Abs(related[1]-0.3*own) > 1e-6 { // scores are float32 sums
		t.Errorf("a related term scores %v, want 0.3 × %v", related[1], own)
	}
	// A related word that is also a query word counts as the query word.
	both := ix.ScoreQuery(ix.ResolveRelated([]string{"饭馆"}, Related{[]string{"饭馆"}, 0.3}), []int{0})[0]
	alone := ix.ScoreQuery(ix.Resolve([]string{"饭馆"}), []int{0})[0]
	if both != alone {
		t.Errorf("饭馆 as a query word and a related one scores %v, want %v", both, alone)
	}
	hits := ix.SearchQuery(ix.ResolveRelated([]string{"饭馆"}, Related{[]string{"餐馆"}, 0.3}), 3, nil)
	if len(hits) != 2 || hits[0].Doc != 0 || hits[1].Doc != 1 {
		t.Errorf("search: %v, want the own word's document first, then the related one's", hits)
	}
}
