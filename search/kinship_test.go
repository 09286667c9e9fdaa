package search_test

import (
	"slices"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/search"
)

// A question names a family member formally ("mother", "father", or in
// Chinese 父亲), the dialogue familiarly ("Mum", "Dad"): the lever finds
// the turn that names them so above one that only shares the formal
// word, and shows the words it searched in the plan's related terms.
func TestKinship_familiarNames(t *testing.T) {
	snap := build(t, config.Source{Name: "talk", Kind: config.KindJSONL, Path: "kinship"})
	// A lexical lever: without the dense channel, which a model trained on
	// five turns makes noisy, the fixture measures it alone.
	snap.Query = nil
	for _, c := range []struct{ name, query, related, answer, other string }{
		{"mother", "How did Claire's mother hurt her wrist in the garden?", "mum", "k1-1", "k2-1"},
		{"father", "What operation is Owen's father waiting for?", "dad", "k3-1", "k4-1"},
		// An English memory asked about in Chinese: 父亲 is glossed
		// "father", and so "dad" is searched too.
		{"父亲", "Owen 的父亲在等什么手术？", "dad", "k3-1", "k4-1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := api.SearchRequest{Query: c.query, TopK: 5}
			off := ask(t, engineWith(search.LeverKinship), snap, req)
			if a, o := rank(off, c.answer), rank(off, c.other); o < 0 || (a >= 0 && a < o) {
				t.Fatalf("fixture: without the lever %s should rank above %s: %v", c.other, c.answer, ids(off))
			}
			if slices.Contains(off.QueryPlan.RelatedTerms, c.related) {
				t.Errorf("relatedTerms %v with the lever off", off.QueryPlan.RelatedTerms)
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

// A word that also names something else asks for no family: "NaN" in a
// coding question is no grandmother ("nan"), though a question about a
// grandmother still finds a dialogue's "Nan".
func TestKinship_ambiguousNameAsksForNothing(t *testing.T) {
	snap := build(t, config.Source{Name: "talk", Kind: config.KindJSONL, Path: "kinship"})
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "why does the loss turn NaN after the third epoch", TopK: 5})
	for _, w := range []string{"grandmother", "gran", "granny", "grandma", "nana"} {
		if slices.Contains(resp.QueryPlan.RelatedTerms, w) {
			t.Errorf("a question about NaN searched %q: relatedTerms %v", w, resp.QueryPlan.RelatedTerms)
		}
	}
	resp = ask(t, engineWith(), snap, api.SearchRequest{Query: "what did her grandmother bake", TopK: 5})
	if !slices.Contains(resp.QueryPlan.RelatedTerms, "nan") {
		t.Errorf("a question about a grandmother did not search nan: relatedTerms %v", resp.QueryPlan.RelatedTerms)
	}
}
