package lexical

import (
	"cmp"
	"slices"
	"sync"

	"github.com/nova-recall/nova/topk"
)

// BM25 parameters: Robertson's usual K1, and B, how much a longer
// document's score is scaled down, below the usual 0.75. Memories are
// short turns and notes beside longer ones, and the answer is often the
// longer turn that says more than the question's words. Of 0.3 to 0.9 on
// every recall set (BENCHMARKS.md), 0.3-0.5 gained at rank 1, and 0.5 is
// the only one at which no set fell below its 0.75 figure at recall@1
// or @5.
const (
	K1 = 1.2
	B  = 0.5
)

// Dead describes the documents of a field that later changes replaced:
// they stay in their segment's files but must not count. BM25 statistics
// subtract them, so a generation made of a base and deltas scores exactly
// like one rebuilt from scratch.
type Dead struct {
	// Docs is how many documents are dead and Len their total length.
	Docs int
	Len  uint64
	// DF is, per term, how many dead documents hold it.
	DF map[string]int
}

// Index is one lexical field over the segments of a generation, numbered
// one after the other (the first segment's documents come first). It is
// immutable and safe for concurrent use.
type Index struct {
	fields []*Field
	bases  []int
	dead   Dead
	n      int // live documents
	avgLen float64
	// tie orders two documents of equal score; nil means document order.
	tie   func(a, b int) bool
	pools []sync.Pool
	// touched holds the lists of documents a search scored (*[]uint32),
	// kept at the length they grew to: a common term touches thousands,
	// and growing the list anew each search was a seventh of what a
	// search allocated at 100 000 chunks.
	touched sync.Pool
	// b is the index's BM25 B (lengthNorm).
	b float64
	// norms holds lengthNorm of the shorter document lengths, worked out
	// once: one of the two divisions of every posting's score.
	norms []float64
}

// normsKept is how many document lengths have their norm in a table (a
// few kB per field; longer documents are rare and computed each time).
const normsKept = 2048

// norm returns lengthNorm(docLen, ix.avgLen, ix.b), from the table when
// it holds it: the same float64 either way.
func (ix *Index) norm(docLen uint32) float64 {
	if docLen < uint32(len(ix.norms)) {
		return ix.norms[docLen]
	}
	return lengthNorm(docLen, ix.avgLen, ix.b)
}

// NewIndex joins the fields of consecutive segments. dead is subtracted
// from the statistics; tie, when set, orders documents of equal score
// (a generation orders them by chunk id, so ties do not depend on which
// segment a document sits in).
func NewIndex(fields []*Field, dead Dead, tie func(a, b int) bool) *Index {
	return newIndex(fields, dead, tie, B)
}

// newIndex is NewIndex with BM25's B set to b.
func newIndex(fields []*Field, dead Dead, tie func(a, b int) bool, b float64) *Index {
	ix := &Index{fields: fields, bases: make([]int, len(fields)), dead: dead, tie: tie, pools: make([]sync.Pool, len(fields)), b: b}
	var total uint64
	docs := 0
	for i, f := range fields {
		ix.bases[i] = docs
		docs += f.Docs()
		total += f.TotalLen()
		n := f.Docs()
		ix.pools[i].New = func() any { s := make([]float32, n); return &s }
	}
	ix.n = docs - dead.Docs
	total -= min(total, dead.Len)
	ix.avgLen = 1
	if ix.n > 0 && total > 0 {
		ix.avgLen = float64(total) / float64(ix.n)
	}
	ix.norms = make([]float64, normsKept)
	for l := range ix.norms {
		ix.norms[l] = lengthNorm(uint32(l), ix.avgLen, b)
	}
	return ix
}

// Len is the number of document slots (live or dead).
func (ix *Index) Len() int {
	if len(ix.fields) == 0 {
		return 0
	}
	return ix.bases[len(ix.bases)-1] + ix.fields[len(ix.fields)-1].Docs()
}

// Live is the number of live documents.
func (ix *Index) Live() int { return ix.n }

// DocFreq returns how many live documents contain term.
func (ix *Index) DocFreq(term string) int {
	df := -ix.dead.DF[term]
	for _, f := range ix.fields {
		df += f.DocFreq(term)
	}
	return max(0, df)
}

// IDF returns the BM25 inverse document frequency of term (0 if absent).
func (ix *Index) IDF(term string) float64 { return IDF(ix.DocFreq(term), ix.n) }

// Hit is a scored document.
type Hit struct {
	Doc   int
	Score float64
}

// queryTerm is one distinct query term resolved in every segment.
type queryTerm struct {
	idf float64
	ids []int // term id per segment, -1 where absent
}

// Query is a query's terms resolved in one Index: each distinct term's
// id in every segment and its idf. A search that both searches an index
// and scores other candidates in it resolves the terms once (Resolve)
// for both; looking them up in every segment's dictionary was a twentieth
// of a 1M search.
type Query struct {
	ix    *Index
	terms []queryTerm
}

// Resolve resolves terms in ix, for SearchQuery and ScoreQuery of ix.
func (ix *Index) Resolve(terms []string) Query {
	return Query{ix: ix, terms: ix.resolve(terms)}
}

// Related are terms searched beside a query's own at a weight: words of
// related meaning (RelatedWords).
type Related struct {
	Terms  []string
	Weight float64
}

// ResolveRelated is Resolve with related terms beside the query's own:
// each counts as a term does, its idf scaled by its group's weight, and
// one that is also a query term (or in an earlier group) counts as that.
func (ix *Index) ResolveRelated(terms []string, related ...Related) Query {
	return Query{ix: ix, terms: ix.resolve(terms, related...)}
}

// of returns q's terms, which must have been resolved in ix.
func (q Query) of(ix *Index) []queryTerm {
	if q.ix != ix {
		panic("lexical: a query resolved in another index")
	}
	return q.terms
}

// resolve returns the distinct indexed terms of terms, then of related,
// with their global idf, related's scaled by their weight; a repeated
// query term counts once, as the contract's BM25 does.
func (ix *Index) resolve(terms []string, related ...Related) []queryTerm {
	groups := append([]Related{{Terms: terms, Weight: 1}}, related...)
	out := make([]queryTerm, 0, len(terms))
	seen := make(map[string]bool, len(terms))
	for _, g := range groups {
		for _, t := range g.Terms {
			if seen[t] {
				continue
			}
			seen[t] = true
			q := queryTerm{ids: make([]int, len(ix.fields))}
			df, found := -ix.dead.DF[t], false
			for i, f := range ix.fields {
				q.ids[i] = f.lookup(t)
				if q.ids[i] >= 0 {
					df += int(f.df(q.ids[i]))
					found = true
				}
			}
			if !found || df <= 0 {
				continue
			}
			q.idf = IDF(df, ix.n) * g.Weight
			out = append(out, q)
		}
	}
	// Rarest first: Search stops taking in new documents once the common
	// terms left cannot lift one into the top k, and every score sums the
	// terms in this one order (ScoreDocs too), so a document scores the
	// same bits whichever way it was found.
	slices.SortStableFunc(out, func(a, b queryTerm) int { return cmp.Compare(b.idf, a.idf) })
	return out
}

func (ix *Index) better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if ix.tie != nil {
		return ix.tie(a.Doc, b.Doc)
	}
	return a.Doc < b.Doc
}

// Search scores the documents matching any of terms and returns the best
// k, best first. accept, when non-nil, is the hard filter (it must also
// refuse dead documents).
//
// Terms are added rarest first, term at a time (MaxScore): once k
// documents already score more than the most the remaining terms could
// add up to, no document that has none of the terms taken so far can
// reach the top k, so the remaining (common, long) lists only add to the
// documents already found, each looked up in its block when they are few.
// The results are those of scoring every posting.
func (ix *Index) Search(terms []string, k int, accept func(doc int) bool) []Hit {
	return ix.SearchQuery(ix.Resolve(terms), k, accept)
}

// SearchQuery is Search with the terms already resolved in ix.
func (ix *Index) SearchQuery(q Query, k int, accept func(doc int) bool) []Hit {
	if k <= 0 || ix.n == 0 {
		return nil
	}
	qs := q.of(ix)
	if len(qs) == 0 {
		return nil
	}
	// rest[i] bounds what terms i.. can add to a score: each term's BM25
	// stays under idf·(K1+1), with a margin for float32 rounding.
	rest := make([]float64, len(qs)+1)
	for i := len(qs) - 1; i >= 0; i-- {
		rest[i] = rest[i+1] + qs[i].idf*(K1+1)*(1+1e-5)
	}
	best := topk.New(k, ix.better)
	tp, _ := ix.touched.Get().(*[]uint32)
	if tp == nil {
		tp = new(make([]uint32, 0, 256))
	}
	touched := *tp
	for s, f := range ix.fields {
		sp := ix.pools[s].Get().(*[]float32)
		scores := *sp
		touched = touched[:0]
		base := ix.bases[s]
		admitting := true
		for i, q := range qs {
			t := q.ids[s]
			if t < 0 {
				continue
			}
			idf, list := q.idf, f.list(t)
			switch {
			case admitting:
				list.each(func(doc, tf uint32) {
					if scores[doc] == 0 {
						touched = append(touched, doc)
					}
					scores[doc] += bm25(idf, tf, ix.norm(f.DocLen(int(doc))))
				})
				if i+1 < len(qs) {
					admitting = !filled(best, scores, touched, base, k, rest[i+1], accept)
				}
			case len(touched)*lookupsPerScan < int(f.df(t)):
				for _, doc := range touched {
					if tf := list.find(doc); tf > 0 {
						scores[doc] += bm25(idf, tf, ix.norm(f.DocLen(int(doc))))
					}
				}
			default:
				list.each(func(doc, tf uint32) {
					if scores[doc] != 0 {
						scores[doc] += bm25(idf, tf, ix.norm(f.DocLen(int(doc))))
					}
				})
			}
		}
		for _, d := range touched {
			sc := scores[d]
			scores[d] = 0
			if accept != nil && !accept(base+int(d)) {
				continue
			}
			best.Push(Hit{Doc: base + int(d), Score: float64(sc)})
		}
		ix.pools[s].Put(sp)
	}
	*tp = touched[:0]
	ix.touched.Put(tp)
	return best.Sorted()
}

// lookupsPerScan is about how many postings decoding a whole list costs
// for one block lookup (find): below one lookup per lookupsPerScan
// postings, the documents found are looked up rather than the list read.
const lookupsPerScan = 64

// filled reports whether k accepted documents, among those kept from
// earlier segments and those of this one found so far (scores are lower
// bounds of their final scores), already score more than bound.
func filled(best *topk.Heap[Hit], scores []float32, touched []uint32, base, k int, bound float64, accept func(int) bool) bool {
	n := 0
	for _, h := range best.Items() {
		if h.Score > bound {
			n++
		}
	}
	for _, d := range touched {
		if float64(scores[d]) > bound && (accept == nil || accept(base+int(d))) {
			if n++; n >= k {
				return true
			}
		}
	}
	return n >= k
}

// ScoreDocs returns the BM25 score of each of docs for terms, for
// documents another channel found.
func (ix *Index) ScoreDocs(terms []string, docs []int) []float64 {
	return ix.ScoreQuery(ix.Resolve(terms), docs)
}

// ScoreQuery is ScoreDocs with the terms already resolved in ix.
//
// The documents are taken in document order, segment by segment, and each
// term's list is walked once with a cursor (postingCursor) rather than
// searched for each document: a candidate list of a hundred or two shares
// blocks, and decoding a block from its start for every document was most
// of the cost. Each document's score still adds the terms in the query's
// order, so it is the same float32 whichever way it is computed.
func (ix *Index) ScoreQuery(q Query, docs []int) []float64 {
	out := make([]float64, len(docs))
	qs := q.of(ix)
	if len(qs) == 0 {
		return out
	}
	// at lists the positions of docs, ordered by document.
	at := make([]int, 0, len(docs))
	for i, d := range docs {
		if ix.segment(d) >= 0 {
			at = append(at, i)
		}
	}
	slices.SortFunc(at, func(a, b int) int { return cmp.Compare(docs[a], docs[b]) })
	scores := make([]float32, len(docs))
	for lo := 0; lo < len(at); {
		s := ix.segment(docs[at[lo]])
		hi := lo + 1
		for hi < len(at) && ix.segment(docs[at[hi]]) == s {
			hi++
		}
		f, base := ix.fields[s], ix.bases[s]
		for _, q := range qs {
			t := q.ids[s]
			if t < 0 {
				continue
			}
			c := f.list(t).cursor()
			for _, i := range at[lo:hi] {
				local := uint32(docs[i] - base)
				if tf := c.find(local); tf > 0 {
					scores[i] += bm25(q.idf, tf, ix.norm(f.DocLen(int(local))))
				}
			}
		}
		lo = hi
	}
	for i, sc := range scores {
		out[i] = float64(sc)
	}
	return out
}

// segment returns the segment holding doc, or -1.
func (ix *Index) segment(doc int) int {
	for s := len(ix.bases) - 1; s >= 0; s-- {
		if doc >= ix.bases[s] {
			if doc-ix.bases[s] < ix.fields[s].Docs() {
				return s
			}
			return -1
		}
	}
	return -1
}

// Build returns an in-memory index of docs (each given by its terms), for
// baselines and tests: one segment, nothing retired, BM25's B set to b
// (B for Nova's, 0.75 for the textbook's).
func Build(docs [][]string, b float64) *Index {
	w := NewFieldWriter(0)
	for _, d := range docs {
		w.Add(d)
	}
	var buf bytesWriter
	if _, err := w.WriteTo(&buf); err != nil {
		panic(err) // writing to memory cannot fail
	}
	f, err := OpenField(buf.b)
	if err != nil {
		panic(err) // what FieldWriter writes, OpenField reads
	}
	return newIndex([]*Field{f}, Dead{}, nil, b)
}

type bytesWriter struct{ b []byte }

func (w *bytesWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}
