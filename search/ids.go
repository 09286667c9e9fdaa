package search

import (
	"slices"
	"strings"
	"unicode"

	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/memory"
)

// A query can name a record by its id: an agent that saw a citation
// searches for its provenance.sourceId ("NOVA-482", a JSONL export's
// "task-2026-11-03-7") or its resultId ("tasks:NOVA-482"), the contract's
// exact pass. Ids are rarely in a record's text, and BM25 splits them into
// common pieces ("nova", "482"), so the record is looked up by its id:
// the chunk id is the source's name and the record's id
// (memory.ChunkID), and chunk ids are sorted in every segment. The id is
// metadata, not citable text, as upstream's searchable text counts it:
// it ranks the record, and quality still says the text lacks the term.

// idMatchBoost multiplies the score of a record the query names by id.
const idMatchBoost = 1.25

// idTrim is what surrounds an id in a sentence.
const idTrim = " ,;!?()[]{}'\"`“”。，？！：；"

// idCandidates returns the query's words that can be record ids: any word
// when the query is one word, else words that hold a letter and a digit or
// a separator (NOVA-482, db-3, tasks:note-1, notes.md#setup). A number or a
// plain word inside a sentence is no id.
func idCandidates(query string) []string {
	words := scriptFields(query)
	var out []string
	for _, w := range words {
		w = strings.TrimRight(strings.TrimSuffix(strings.Trim(w, idTrim), "."), ":")
		if w == "" || slices.Contains(out, w) {
			continue
		}
		if len(words) == 1 || idLike(w) {
			out = append(out, w)
		}
	}
	return out
}

func idLike(w string) bool {
	if len(w) < 3 || strings.IndexFunc(w, unicode.IsLetter) < 0 {
		return false
	}
	return strings.IndexFunc(w, unicode.IsDigit) >= 0 || strings.ContainsAny(w, "-_:./#")
}

// namedRecords returns the live documents whose record id or chunk id the
// query names, as written or in upper or lower case (agents retype ids),
// the first piece of a record cut into several.
func namedRecords(g *generation.Generation, query string) map[int]string {
	out := map[int]string{}
	find := func(id, named string) {
		if d, ok := g.Find(id); ok {
			if _, seen := out[d]; !seen {
				out[d] = named
			}
		}
	}
	sources := g.SourceNames()
	for _, w := range idCandidates(query) {
		for _, id := range uniq(w, strings.ToUpper(w), strings.ToLower(w)) {
			find(id, w)
			for _, s := range sources {
				find(memory.ChunkID(s, id, 1, 1), w)
				find(memory.ChunkID(s, id, 1, 2), w)
			}
		}
	}
	return out
}

func uniq(s ...string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}
