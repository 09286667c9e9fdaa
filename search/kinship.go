package search

import (
	"slices"
	"sync"

	"github.com/nova-recall/nova/lexical"
)

// LeverKinship searches the other everyday names of the family members a
// question names: a question says "Claire's mother" or "his father", the
// dialogue "Mum fell in the garden" or "Dad's having his knee done".
const LeverKinship = "kinship"

// kinshipWeight scales the idf of another name of a family member the
// query names.
const kinshipWeight = 1.0

// kinNames are groups of words that name the same family member in
// speech, formal and familiar, British and American. The class is closed
// and small, so the table is all of it rather than a pick of words some
// test asks about. A word of a group asks for every other word of it.
var kinNames = [][]string{
	{"mother", "mum", "mom", "mam", "mummy", "mommy", "mama"},
	{"father", "dad", "daddy", "papa"},
	{"grandmother", "gran", "granny", "grandma", "nan", "nana", "nanna"},
	{"grandfather", "grandpa", "grandad", "granddad", "gramps"},
	{"children", "kids"},
	{"child", "kid"},
	{"brother", "bro"},
	{"sister", "sis"},
}

// kinOnlyFound are the names of kinNames that also name something else
// ("nan" is NaN in a coding question): a memory's "Nan" is found for a
// question about a grandmother, but a question's "nan" asks for no family.
var kinOnlyFound = map[string]bool{"nan": true}

// kinOf maps each word of kinNames to the other words of its group.
var kinOf = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	for _, g := range kinNames {
		for _, w := range g {
			if !kinOnlyFound[w] {
				m[w] = slices.DeleteFunc(slices.Clone(g), func(o string) bool { return o == w })
			}
		}
	}
	return m
})

// kinWords adds to r, when the lever is on, the other names of the family
// members query names, each searched as the word itself (kinshipWeight),
// and those of the English glosses of its Chinese words (父亲: father,
// and so dad), searched as a gloss is (glossWeight); all are shown in the
// plan's related terms.
func (e *Engine) kinWords(query string, glosses []string, r relatedWords) relatedWords {
	if !e.on(LeverKinship) {
		return r
	}
	var own, glossed []string
	kin := kinOf()
	add := func(words []string, to *[]string) {
		for _, w := range words {
			for _, k := range kin[w] {
				t := e.analyzer.Terms(k)
				if len(t) == 1 && !slices.Contains(own, t[0]) && !slices.Contains(glossed, t[0]) {
					*to = append(*to, t[0])
					r.words = append(r.words, k)
				}
			}
		}
	}
	add(lexical.Words(lexical.Normalize(query)), &own)
	add(glosses, &glossed)
	if len(own) > 0 {
		r.terms = append(r.terms, lexical.Related{Terms: own, Weight: kinshipWeight})
	}
	if len(glossed) > 0 {
		r.terms = append(r.terms, lexical.Related{Terms: glossed, Weight: glossWeight})
	}
	return r
}
