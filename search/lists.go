package search

import "sync"

// minListCap is the least capacity of a candidate list made for the pool:
// a pass's list at the default topK holds about 200 candidates, so a list
// made once fits the passes and levers of later searches.
const minListCap = 256

// scoredLists holds candidate lists between searches. A candidate carries
// its score components (over 300 bytes), so a pass's list is tens of
// kilobytes, and novad collects at GOGC 50: making them anew for every
// pass and lever was a quarter of what a search at 100 000 chunks
// allocated, paid again in collection. The query is the owner: it lends
// them (list) and gives them all back when its Search returns (release),
// once the envelope has copied what it keeps of them.
var scoredLists sync.Pool

// list returns an empty candidate list with room for n, lent for this
// query's search. Its elements may hold a former search's candidates:
// a list is filled by append or copy, which write whole candidates.
func (q *query) list(n int) []scored {
	if p, ok := scoredLists.Get().(*[]scored); ok && cap(*p) >= n {
		q.lent = append(q.lent, p)
		return (*p)[:0]
	}
	// A pooled list too small is dropped: one made now fits.
	s := make([]scored, 0, max(n, minListCap))
	q.lent = append(q.lent, &s)
	return s
}

// caches are a query's maps of the documents it decoded and of their
// text views (query.chunks, query.views).
type caches struct {
	views  map[int]textView
	chunks map[int]decoded
}

// maxPooledCache is the most documents a query's caches may hold and
// still be pooled: a map keeps its table when cleared, and one grown for a
// rare query would otherwise stay that large for every search after it.
const maxPooledCache = 4096

// queryCaches holds a query's caches between searches, cleared: made for
// every search, with room for the candidates of a pass, they were a
// sixteenth of what a search at 100 000 chunks allocated. The query owns
// them from Search's start (useCaches) to its return (release).
var queryCaches = sync.Pool{New: func() any {
	return &caches{views: make(map[int]textView, 128), chunks: make(map[int]decoded, 256)}
}}

// useCaches gives the query a pair of empty caches from the pool.
func (q *query) useCaches() {
	c := queryCaches.Get().(*caches)
	q.cached, q.views, q.chunks = c, c.views, c.chunks
}

// release gives back the lists and caches lent to the query. Nothing of
// the search may read them afterwards: Search calls it when it returns.
func (q *query) release() {
	for _, p := range q.lent {
		scoredLists.Put(p)
	}
	q.lent = nil
	if c := q.cached; c != nil && len(c.views) <= maxPooledCache && len(c.chunks) <= maxPooledCache {
		// Cleared here, so that the pool holds no document of this search.
		clear(c.views)
		clear(c.chunks)
		queryCaches.Put(c)
	}
	q.cached, q.views, q.chunks = nil, nil, nil
}
