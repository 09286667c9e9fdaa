package search_test

import (
	"slices"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/search"
)

func TestRelatedWords(t *testing.T) {
	snap := build(t, config.Source{Name: "notes", Kind: config.KindJSONL, Path: "related"})
	// The lever is lexical: without the dense channel, which a model
	// trained on five memories makes noisy, the fixture measures it alone.
	snap.Query = nil
	// The characters the words share (馆 of 饭馆 and 餐馆, 试 of 考试 and
	// 初试) find the answers too: that lever is off on both sides.
	// Each answer says a word of the same meaning as the question's (餐馆
	// for 饭馆, 初试 for 考试); the other memory shares the question's other
	// words and, shorter, ranks first without the lever.
	cases := []struct {
		name, query, related string
		answer, other        string
	}{
		{"饭馆", "林晓城东的饭馆", "餐馆", "restaurant", "weekend"},
		{"考试", "陈默月底考试", "初试", "exam", "commute"},
		// An English memory asked about in Chinese: 公寓 is "apartment".
		{"公寓", "Dan 找到公寓了吗？", "apartment", "apartment", "park"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := api.SearchRequest{Query: c.query, TopK: 5}
			off := ask(t, engineWith(search.LeverRelated, search.LeverCharacters), snap, req)
			if a, o := rank(off, c.answer), rank(off, c.other); o < 0 || (a >= 0 && a < o) {
				t.Fatalf("fixture: without the lever %s should rank above %s: %v", c.other, c.answer, ids(off))
			}
			if len(off.QueryPlan.RelatedTerms) != 0 {
				t.Errorf("relatedTerms %v with the lever off", off.QueryPlan.RelatedTerms)
			}

			resp := ask(t, engineWith(search.LeverCharacters), snap, req)
			if !slices.Contains(resp.QueryPlan.RelatedTerms, c.related) {
				t.Errorf("relatedTerms %v lack %s", resp.QueryPlan.RelatedTerms, c.related)
			}
			if a, o := rank(resp, c.answer), rank(resp, c.other); a < 0 || (o >= 0 && a > o) {
				t.Fatalf("%s should outrank %s with the lever: %v", c.answer, c.other, ids(resp))
			}
		})
	}

	// An English question has no related words.
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "what do the tomatoes need", TopK: 5})
	if len(resp.QueryPlan.RelatedTerms) != 0 {
		t.Errorf("relatedTerms %v for an English question", resp.QueryPlan.RelatedTerms)
	}
}

// TestAbbreviations: a question in plain words finds the memory that names
// the thing by its identifier's abbreviation (PG_DB_MAX_CONNS for the
// database, APP_ENV and .env.local for the environment), as an agent's
// transcript does, above a memory that shares only the question's other
// words; and a question that abbreviates finds the word.
func TestAbbreviations(t *testing.T) {
	snap := build(t, config.Source{Name: "notes", Kind: config.KindJSONL, Path: "abbreviations"})
	snap.Query = nil // the lexical lever alone (see TestRelatedWords)
	cases := []struct {
		query, related string
		answer, other  string
	}{
		{"which database setting is 40", "db", "conns", "proxy"},
		{"which environment keys file", "env", "envfile", "vault"},
		// And the other way: a question that says db finds "database".
		{"db server start", "database", "migrate", "server"},
	}
	for _, c := range cases {
		t.Run(c.related, func(t *testing.T) {
			req := api.SearchRequest{Query: c.query, TopK: 5}
			off := ask(t, engineWith(search.LeverRelated), snap, req)
			if a, o := rank(off, c.answer), rank(off, c.other); o < 0 || (a >= 0 && a < o) {
				t.Fatalf("fixture: without the lever %s should rank above %s: %v", c.other, c.answer, ids(off))
			}
			resp := ask(t, engineWith(), snap, req)
			if !slices.Contains(resp.QueryPlan.RelatedTerms, c.related) {
				t.Errorf("relatedTerms %v lack %s", resp.QueryPlan.RelatedTerms, c.related)
			}
			if a, o := rank(resp, c.answer), rank(resp, c.other); a < 0 || (o >= 0 && a > o) {
				t.Fatalf("%s should outrank %s with the lever: %v", c.answer, c.other, ids(resp))
			}
		})
	}
}

// A Chinese name is made of words (何建国: 建国, "found a nation"), whose
// related words are no evidence of anything a question about the person
// asks: the name is taken out before the related words are looked up.
func TestRelatedWords_notOfANamesWords(t *testing.T) {
	snap := build(t, config.Source{Name: "talk", Kind: config.KindJSONL, Path: "kinship"})
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "何建国最近在忙什么项目？", TopK: 5})
	plan := resp.QueryPlan
	if !slices.Contains(plan.PersonPriors, "何建国") {
		t.Fatalf("fixture: the question does not name 何建国: person priors %v", plan.PersonPriors)
	}
	for _, w := range []string{"中立国", "他国", "京城"} { // 建国's related words
		if slices.Contains(plan.RelatedTerms, w) {
			t.Errorf("a question about 何建国 searched %s, a related word of 建国: %v", w, plan.RelatedTerms)
		}
	}
	if !slices.Contains(plan.RelatedTerms, "立项") { // 项目's
		t.Errorf("the question's own words lost their related words: %v", plan.RelatedTerms)
	}
}
