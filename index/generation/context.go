package generation

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/nova-recall/nova/index/segment"
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
	once sync.Once
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
		type entry struct {
			key        string
			path       string
			line, part int
			doc        int32
		}
		var entries []entry
		for i, r := range g.segs {
			for d := range r.Docs() {
				doc := g.bases[i] + d
				conv := r.Facet(segment.FacetConversation, d)
				if conv == "" || !g.Live(doc) {
					continue
				}
				entries = append(entries, entry{key: r.Facet(segment.FacetSourceName, d) + "\x00" + conv,
					path: r.Facet(segment.FacetPath, d), line: r.Line(d), part: r.Part(d), doc: int32(doc)})
			}
		}
		slices.SortFunc(entries, func(a, b entry) int {
			return cmp.Or(strings.Compare(a.key, b.key), strings.Compare(a.path, b.path), cmp.Compare(a.line, b.line), cmp.Compare(a.part, b.part))
		})
		c.member = make([]int32, g.n)
		for i := range c.member {
			c.member[i] = -1
		}
		c.order = make([]int32, len(entries))
		c.conv = make([]int32, len(entries))
		for i, e := range entries {
			if i > 0 && e.key != entries[i-1].key {
				c.ends = append(c.ends, int32(i))
			}
			c.order[i] = e.doc
			c.conv[i] = int32(len(c.ends))
			c.member[e.doc] = int32(i)
		}
		c.ends = append(c.ends, int32(len(entries)))
	})
	return c
}

// sameRecord reports whether two documents are pieces of one record.
func (g *Generation) sameRecord(a, b int) bool {
	la, _ := g.Position(a)
	lb, _ := g.Position(b)
	return la == lb && g.Facet(segment.FacetPath, a) == g.Facet(segment.FacetPath, b)
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
	for first > lo && g.sameRecord(int(c.order[first-1]), doc) {
		first--
	}
	for last+1 < hi && g.sameRecord(int(c.order[last+1]), doc) {
		last++
	}
	words := func(start int32) string { return p.LeadWords(g.Chunk(int(c.order[start])).Text) }
	var beforeWords, afterWords []string
	for i, n := first-1, 0; i >= lo && n < p.Turns; n++ {
		// i is the last piece of the previous record: find its first.
		start := i
		for start > lo && g.sameRecord(int(c.order[start-1]), int(c.order[i])) {
			start--
		}
		beforeWords = append([]string{words(start)}, beforeWords...)
		i = start - 1
	}
	for i, n := last+1, 0; i < hi && n < p.Turns; n++ {
		afterWords = append(afterWords, words(i))
		end := i
		for end+1 < hi && g.sameRecord(int(c.order[end+1]), int(c.order[i])) {
			end++
		}
		i = end + 1
	}
	return memory.NeighbourContext(beforeWords, afterWords)
}

// ContextParams are how the generation's neighbouring context was made.
func (g *Generation) ContextParams() memory.ContextParams { return g.ctxParams }
