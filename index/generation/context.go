package generation

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/internal/lazy"
	"github.com/nova-recall/nova/memory"
)

// A chunk's neighbouring context is not stored: it is derived from the
// live chunks of its conversation, in order (a chunk's neighbours are the
// records before and after it, each lending the first words of its first
// piece). Deriving it always gives what the build indexed, because a
// chunk whose neighbours change is written again.

// conversations orders the live documents of every conversation. It is
// built on first use and shared by every search of the generation.
type conversations struct {
	once lazy.Once
	// member[d] is the position of document d in order, or -1; order
	// lists each conversation's documents contiguously, ends[k] closing
	// conversation k.
	member []int32
	order  []int32
	conv   []int32 // conversation of each position
	ends   []int32
}

func (g *Generation) conversationIndex() *conversations {
	c := &g.convs
	c.once.Do(func() {
		// Each live document of a conversation gets the number of its
		// source and conversation (dictionary strings: no allocation per
		// document), in order of first appearance; a counting sort then
		// lays the conversations out, each in document order, which is
		// nearly build order, and each is sorted by file and line. At 1M
		// chunks this takes a third of the time per-conversation slices
		// took.
		type key struct{ source, conversation string }
		number := map[key]int32{}
		of := make([]int32, g.n)
		var sizes []int32
		var last key // a conversation's documents mostly follow one another
		lastN := int32(-1)
		for i, r := range g.segs {
			for d := range r.Docs() {
				doc := g.bases[i] + d
				conv := r.Facet(segment.FacetConversation, d)
				if conv == "" || !g.Live(doc) {
					of[doc] = -1
					continue
				}
				k := key{r.Facet(segment.FacetSourceName, d), conv}
				if lastN < 0 || k != last {
					n, ok := number[k]
					if !ok {
						n = int32(len(sizes))
						number[k] = n
						sizes = append(sizes, 0)
					}
					last, lastN = k, n
				}
				of[doc] = lastN
				sizes[lastN]++
			}
		}
		c.ends = make([]int32, len(sizes))
		next := make([]int32, len(sizes)) // where each conversation's next document goes
		var total int32
		for n, size := range sizes {
			next[n] = total
			total += size
			c.ends[n] = total
		}
		c.order = make([]int32, total)
		c.conv = make([]int32, total)
		for doc, n := range of {
			if n >= 0 {
				c.order[next[n]] = int32(doc)
				c.conv[next[n]] = n
				next[n]++
			}
		}
		c.member = of // reused: the layout is done
		for i := range c.member {
			c.member[i] = -1
		}
		start := int32(0)
		for _, end := range c.ends {
			docs := c.order[start:end]
			// Documents of one line keep their document order: the
			// pieces of a record, and the records that share a line (the
			// elements of a JSON array written on one line), are written
			// together in the order they were read, by a full build and
			// by a delta alike (delta.diff), and no part number tells two
			// records on one line apart.
			slices.SortStableFunc(docs, func(a, b int32) int {
				sa, la := g.locate(int(a))
				sb, lb := g.locate(int(b))
				ra, rb := g.segs[sa], g.segs[sb]
				return cmp.Or(strings.Compare(ra.Facet(segment.FacetPath, la), rb.Facet(segment.FacetPath, lb)),
					cmp.Compare(ra.Line(la), rb.Line(lb)))
			})
			for p, d := range docs {
				c.member[d] = start + int32(p)
			}
			start = end
		}
	})
	return c
}

// Prepare builds, off the request path, what searches of the generation
// would otherwise build on first use: the order of each conversation, the
// version chains, the agent names, the id fences and the dense
// prefilter's sign bits. At 1M chunks they took the first search after
// each reload 0.5 s. The id fences (a decode of every 32nd id, faulting
// in pages of the records file, once for each segment: a reload reads
// only its new segments') and the conversations (a pass over the facets)
// are built side by side: at 1M chunks 0.14 and 0.21 s of a start's 1.1 s.
func (g *Generation) Prepare() {
	var fences sync.WaitGroup
	fences.Go(func() { g.idFences() })
	g.conversationIndex()
	g.versionChains()
	g.Agents()
	g.vectors.Prepare()
	fences.Wait()
	// Those passes read every facet and code of a segment this generation
	// opened. A segment it shares with a generation served before (the
	// reload after an incremental sync) holds the pages its searches read:
	// dropped, the next searches faulted them in again (at 100 000 chunks
	// the first search after a reload took 36-45 ms, 16-19 now, the next
	// ones 4-12), and novad reloads after every burst an agent writes.
	for _, r := range g.opened() {
		r.ReleaseResident()
	}
}

// opened returns the segments g opened itself, not taken open from the
// Cache (where a generation served before holds them).
func (g *Generation) opened() []*segment.Reader {
	var out []*segment.Reader
	for i, r := range g.segs {
		if !g.shared[i] {
			out = append(out, r)
		}
	}
	return out
}

// continues reports whether document b, which follows document a in
// their conversation's order, is a later piece of a's record: a record's
// pieces follow one another, so on one line of one file (where records
// may share a line) a first piece starts the next record.
func (g *Generation) continues(a, b int) bool {
	la, _ := g.Position(a)
	lb, part := g.Position(b)
	return part > 1 && la == lb && g.Facet(segment.FacetPath, a) == g.Facet(segment.FacetPath, b)
}

// Context returns document doc's neighbouring context and the part of it
// that comes before the document (what the dense channel embedded with
// it), as the build made them.
func (g *Generation) Context(doc int) (context, before string) {
	p := g.ctxParams
	if p.Turns == 0 {
		return memory.NeighbourContext(nil, nil)
	}
	c := g.conversationIndex()
	pos := c.member[doc]
	if pos < 0 {
		return memory.NeighbourContext(nil, nil)
	}
	conv := c.conv[pos]
	lo := int32(0)
	if conv > 0 {
		lo = c.ends[conv-1]
	}
	hi := c.ends[conv]
	// The first and last positions of doc's record.
	first, last := pos, pos
	for first > lo && g.continues(int(c.order[first-1]), int(c.order[first])) {
		first--
	}
	for last+1 < hi && g.continues(int(c.order[last]), int(c.order[last+1])) {
		last++
	}
	words := func(start int32) string { return p.LeadWords(g.Text(int(c.order[start]))) }
	var beforeWords, afterWords []string
	for i, n := first-1, 0; i >= lo && n < p.Turns; n++ {
		// i is the last piece of the previous record: find its first.
		start := i
		for start > lo && g.continues(int(c.order[start-1]), int(c.order[start])) {
			start--
		}
		beforeWords = append([]string{words(start)}, beforeWords...)
		i = start - 1
	}
	for i, n := last+1, 0; i < hi && n < p.Turns; n++ {
		afterWords = append(afterWords, words(i))
		end := i
		for end+1 < hi && g.continues(int(c.order[end]), int(c.order[end+1])) {
			end++
		}
		i = end + 1
	}
	return memory.NeighbourContext(beforeWords, afterWords)
}

// ContextParams are how the generation's neighbouring context was made.
func (g *Generation) ContextParams() memory.ContextParams { return g.ctxParams }
