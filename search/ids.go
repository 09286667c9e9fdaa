package search

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

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

// maxIDCandidates bounds the words a query may name records by, the
// first ones: each is looked up in every source's ids, and a result page
// holds at most api.MaxTopK records anyway.
const maxIDCandidates = 64

// idCandidates returns the query's words that can be record ids: any word
// when the query is one word, else words that hold a letter and a digit or
// a separator (NOVA-482, db-3, tasks:note-1, notes.md#setup). A number or a
// plain word inside a sentence is no id. It keeps the first
// maxIDCandidates.
func idCandidates(query string) []string {
	words := scriptFields(query)
	var out []string
	// A set, not a scan of out: a pasted list of ids made the check of
	// each word against the ones before it quadratic.
	seen := map[string]bool{}
	for _, w := range words {
		w = strings.TrimRight(strings.TrimSuffix(strings.Trim(w, idTrim), "."), ":")
		if w == "" || seen[w] {
			continue
		}
		if len(words) == 1 || idLike(w) {
			seen[w] = true
			out = append(out, w)
			if len(out) == maxIDCandidates {
				break
			}
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
// query names, whatever the case it is written in (agents retype ids:
// "task-7" for Task-7), the first piece of a record cut into several. An id
// written as stored names only its own record, not one that differs from
// it in case alone.
func namedRecords(snap *Snapshot, query string) map[int]string {
	g := snap.Gen
	out := map[int]string{}
	add := func(d int, named string) {
		if _, seen := out[d]; !seen {
			out[d] = named
		}
	}
	find := func(id, named string) {
		if d, ok := g.Find(id); ok {
			add(d, named)
			return
		}
		key := strings.ToLower(id)
		if d, ok := g.Find(key); ok {
			add(d, named)
		}
		for _, d := range snap.foldedIDs().find(key) {
			add(d, named)
		}
	}
	sources := g.SourceNames()
	for _, w := range idCandidates(query) {
		find(w, w)
		for _, s := range sources {
			find(memory.ChunkID(s, w, 1, 1), w)
			find(memory.ChunkID(s, w, 1, 2), w)
		}
	}
	return out
}

// foldedIDs are the chunk ids of a snapshot's live documents that hold an
// upper-case letter, lower-cased and sorted, with their documents. An id
// in lower case is found by generation.Find as it is; the others, whose
// case a query cannot guess (nova-Ops-12), by their lower-case form here:
// a binary search, not a scan of the ids per query. Built once per
// snapshot, from the id column (no chunk is decoded).
type foldedIDs []foldedID

type foldedID struct {
	id  string
	doc int
}

func (s *Snapshot) foldedIDs() foldedIDs {
	s.idsOnce.Do(func() {
		g := s.Gen
		var ids foldedIDs
		for doc := range g.Len() {
			if !g.Live(doc) {
				continue
			}
			if id := g.ID(doc); strings.ToLower(id) != id {
				ids = append(ids, foldedID{id: strings.ToLower(id), doc: doc})
			}
		}
		slices.SortFunc(ids, func(a, b foldedID) int { return cmp.Or(strings.Compare(a.id, b.id), cmp.Compare(a.doc, b.doc)) })
		s.ids = ids
	})
	return s.ids
}

// find returns the documents whose lower-cased id is key.
func (f foldedIDs) find(key string) []int {
	i, _ := slices.BinarySearchFunc(f, key, func(e foldedID, k string) int { return strings.Compare(e.id, k) })
	var out []int
	for ; i < len(f) && f[i].id == key; i++ {
		out = append(out, f[i].doc)
	}
	return out
}
