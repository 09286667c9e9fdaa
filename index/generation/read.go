package generation

import (
	"iter"
	"slices"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/vector"
)

// Len is the number of document slots: documents are numbered 0..Len()-1.
// A slot may hold a chunk that a later change replaced (see Live).
func (g *Generation) Len() int { return len(g.chunks) }

// Count is the number of live chunks, the generation's size as users see it.
func (g *Generation) Count() int { return len(g.chunks) }

// Live reports whether doc holds a chunk that is part of the generation.
// Searches never return a document that is not live.
func (g *Generation) Live(doc int) bool { return doc >= 0 && doc < len(g.chunks) }

// Chunk returns document doc. The chunk is shared: callers must not
// modify it.
func (g *Generation) Chunk(doc int) *memory.Chunk { return &g.chunks[doc] }

// All yields the live documents and their chunks in document order.
func (g *Generation) All() iter.Seq2[int, *memory.Chunk] {
	return func(yield func(int, *memory.Chunk) bool) {
		for i := range g.Len() {
			if g.Live(i) && !yield(i, g.Chunk(i)) {
				return
			}
		}
	}
}

// SearchText returns the best k documents for terms in the chunks' own text
// (BM25), best first. accept, when non-nil, is the hard filter.
func (g *Generation) SearchText(terms []string, k int, accept func(int) bool) []lexical.Hit {
	return g.text.Search(terms, k, accept)
}

// ScoreText returns the BM25 score of each of docs for terms in the chunks'
// own text.
func (g *Generation) ScoreText(terms []string, docs []int) []float64 {
	return g.text.ScoreDocs(terms, docs)
}

// SearchContext is SearchText over the neighbouring-context field.
func (g *Generation) SearchContext(terms []string, k int, accept func(int) bool) []lexical.Hit {
	return g.context.Search(terms, k, accept)
}

// ScoreContext is ScoreText over the neighbouring-context field.
func (g *Generation) ScoreContext(terms []string, docs []int) []float64 {
	return g.context.ScoreDocs(terms, docs)
}

// Dim is the dimension of the generation's vectors.
func (g *Generation) Dim() int { return g.vectors.Dim() }

// SearchVectors returns the k documents whose vectors have the highest dot
// product with q, best first; accept, when non-nil, is the hard filter.
func (g *Generation) SearchVectors(q []float32, k int, accept func(int) bool) ([]vector.Hit, error) {
	return g.vectors.Search(q, k, accept)
}

// Dot returns the dot product of q with document doc's vector.
func (g *Generation) Dot(q []float32, doc int) float32 { return g.vectors.Dot(q, doc) }

// Vector returns document doc's vector (a copy).
func (g *Generation) Vector(doc int) []float32 { return slices.Clone(g.vectors.Row(doc)) }

// HasANN reports whether dense searches use the approximate shortlist.
func (g *Generation) HasANN() bool { return g.vectors.HasANN() }

// Filter returns the hard filter of a request over this generation's
// documents (nil when nothing is filtered). sourceSets, when non-nil,
// replaces the request's source sets (a pass-level restriction); when both
// are given, their intersection applies.
func (g *Generation) Filter(f api.Filters, sourceSets []string) func(int) bool {
	sets := f.SourceSets
	if sourceSets != nil {
		sets = sourceSets
		if len(f.SourceSets) > 0 {
			sets = intersect(f.SourceSets, sourceSets)
		}
	}
	if f.Empty() && len(sets) == 0 {
		return nil
	}
	return func(i int) bool {
		c := &g.chunks[i]
		switch {
		case f.Date != "" && c.Date != f.Date:
			return false
		case (f.DateFrom != "" || f.DateTo != "") && (len(c.Date) < 10 || (f.DateFrom != "" && c.Date[:10] < f.DateFrom) || (f.DateTo != "" && c.Date[:10] > f.DateTo)):
			return false
		case f.Project != "" && c.Project != f.Project:
			return false
		case f.Agent != "" && c.Agent != f.Agent:
			return false
		case f.Role != "" && c.Role != f.Role && c.Agent != f.Role:
			return false
		case len(sets) > 0 && !slices.Contains(sets, c.SourceSet):
			return false
		case len(f.Lifecycles) > 0 && !slices.Contains(f.Lifecycles, c.Governance.Lifecycle):
			return false
		case len(f.WorkTypes) > 0 && !slices.Contains(f.WorkTypes, c.WorkType):
			return false
		case len(f.Tags) > 0 && !slices.ContainsFunc(f.Tags, func(t string) bool { return slices.Contains(c.Tags, t) }):
			return false
		}
		return true
	}
}

func intersect(a, b []string) []string {
	out := []string{}
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// Summary counts a generation's live chunks by facet, for /stats.
type Summary struct {
	Layers     map[string]int
	Agents     map[string]int
	Projects   map[string]int
	SourceSets map[string]int
	Tags       map[string]int
	// FirstDate and LastDate span the chunks' dates ("" when none has one).
	FirstDate, LastDate string
}

// Summary returns the facet counts of the live chunks. Empty agents and
// projects count as "unknown". It is computed once.
func (g *Generation) Summary() Summary {
	g.summaryOnce.Do(func() {
		s := Summary{Layers: map[string]int{}, Agents: map[string]int{}, Projects: map[string]int{}, SourceSets: map[string]int{}, Tags: map[string]int{}}
		for _, c := range g.All() {
			s.Layers[c.Layer]++
			s.Agents[orUnknown(c.Agent)]++
			s.Projects[orUnknown(c.Project)]++
			s.SourceSets[c.SourceSet]++
			for _, t := range c.Tags {
				s.Tags[t]++
			}
			if c.Date != "" {
				if s.FirstDate == "" || c.Date < s.FirstDate {
					s.FirstDate = c.Date
				}
				s.LastDate = max(s.LastDate, c.Date)
			}
		}
		g.summary = s
	})
	return g.summary
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
