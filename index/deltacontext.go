package index

import (
	"slices"

	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/memory"
)

// member is a record of a conversation whose context is recomputed.
type member struct {
	order  order
	words  string
	docs   []int       // its live documents (old records)
	chunks []*addition // its new chunks
}

// context recomputes the neighbouring context of every conversation the
// delta touches. Old documents whose context changed are retired and
// written again (keeping their vector when the words before them are
// unchanged, which is all an append ever changes).
func (d *delta) context() {
	affected := map[conversationKey]bool{}
	for doc := range d.retired {
		if c := d.g.Facet(segment.FacetConversation, doc); c != "" {
			affected[conversationKey{d.g.Facet(segment.FacetSourceName, doc), c}] = true
		}
	}
	for _, a := range d.adds {
		if a.chunk.Conversation != "" {
			affected[conversationKey{a.chunk.SourceName, a.chunk.Conversation}] = true
		} else {
			a.setContext(memory.NeighbourContext(nil, nil))
		}
	}
	if len(affected) == 0 {
		return
	}
	records := map[conversationKey][]*member{}
	// A record is known by its conversation as well as its place: a file
	// may give two conversations' records one line (a chat export's
	// turns are numbered within their conversation), and those are not
	// one record. Records of one conversation on one line (a JSON array
	// on one line) are told apart by their place in the file (seq).
	type recordKey struct {
		conversationKey
		order
	}
	byRecord := map[recordKey]*member{}
	recordOf := func(key conversationKey, o order) *member {
		o.part = 0
		m := byRecord[recordKey{key, o}]
		if m == nil {
			m = &member{order: o}
			byRecord[recordKey{key, o}] = m
			records[key] = append(records[key], m)
		}
		return m
	}
	for doc := range d.g.Len() {
		if !d.g.Live(doc) || d.retired[doc] {
			continue
		}
		c := d.g.Facet(segment.FacetConversation, doc)
		if c == "" {
			continue
		}
		key := conversationKey{d.g.Facet(segment.FacetSourceName, doc), c}
		if affected[key] {
			m := recordOf(key, d.orderOf(doc))
			m.docs = append(m.docs, doc)
		}
	}
	for _, a := range d.adds {
		if a.chunk.Conversation != "" {
			key := conversationKey{a.chunk.SourceName, a.chunk.Conversation}
			m := recordOf(key, a.order)
			m.chunks = append(m.chunks, a)
		}
	}
	turns := d.x.contextParams().Turns
	for _, ms := range records {
		slices.SortFunc(ms, func(a, b *member) int { return a.order.compare(b.order) })
		for _, m := range ms {
			m.words = d.firstWords(m)
		}
		for i, m := range ms {
			before, after := make([]string, 0, turns), make([]string, 0, turns)
			for _, n := range ms[max(0, i-turns):i] {
				before = append(before, n.words)
			}
			for _, n := range ms[i+1 : min(len(ms), i+1+turns)] {
				after = append(after, n.words)
			}
			ctx, bef := memory.NeighbourContext(before, after)
			for _, a := range m.chunks {
				a.setContext(ctx, bef)
			}
			for _, doc := range m.docs {
				oldCtx, oldBef := d.g.Context(doc)
				if oldCtx == ctx && oldBef == bef {
					continue
				}
				c := d.g.Chunk(doc)
				a := &addition{chunk: *c, order: d.orderOf(doc)}
				if oldBef == bef {
					a.codes = d.g.Codes(doc)
				}
				a.chunk.Context, a.chunk.Before = ctx, bef
				d.retire(doc)
				d.add(a)
			}
		}
	}
}

// setContext gives a its neighbouring context; a vector it keeps was
// made with other words before it, and is made again.
func (a *addition) setContext(ctx, before string) {
	if a.codes != nil && a.chunk.Before != before {
		a.codes = nil
	}
	a.chunk.Context, a.chunk.Before = ctx, before
}

// firstWords returns the words a record lends its neighbours, from its
// first piece.
func (d *delta) firstWords(m *member) string {
	p := d.x.contextParams()
	for _, a := range m.chunks {
		if a.chunk.Part <= 1 {
			return p.LeadWords(a.chunk.Text)
		}
	}
	for _, doc := range m.docs {
		if _, part := d.g.Position(doc); part <= 1 {
			return p.LeadWords(d.g.Chunk(doc).Text)
		}
	}
	return ""
}
