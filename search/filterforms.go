package search

import (
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/index/segment"
)

// A filter value is compared with the indexed values as Unicode text, not
// as bytes: a project folder named Café on macOS is indexed in the
// decomposed form its file system gave (e and a combining accent), a
// keyboard types the composed é, and both are the same project. Case and
// spacing still count: filter values are raw machine values.

// facetForms are a snapshot's indexed values of the facets a person names
// in their own words (project, agent, tag, source set), grouped by their
// composed (NFC) form; only groups of a value not already in that form,
// or of several values, are kept.
type facetForms struct {
	projects, agents, tags, sourceSets map[string][]string
	// nestedTags are the indexed tags with a parent (Obsidian's
	// #travel/lisbon), sorted.
	nestedTags []string
}

// forms returns the snapshot's facet forms, worked out once from its
// facet counts.
func (s *Snapshot) forms() *facetForms {
	s.formsOnce.Do(func() {
		sum := s.Gen.Summary()
		s.facetForms = &facetForms{
			projects: groupForms(sum.Projects), agents: groupForms(sum.Agents),
			tags: groupForms(sum.Tags), sourceSets: groupForms(sum.SourceSets),
		}
		for t := range sum.Tags {
			if strings.Contains(t, "/") {
				s.facetForms.nestedTags = append(s.facetForms.nestedTags, t)
			}
		}
		slices.Sort(s.facetForms.nestedTags)
	})
	return s.facetForms
}

func groupForms(counts map[string]int) map[string][]string {
	all := map[string][]string{}
	for v := range counts {
		key := norm.NFC.String(v)
		all[key] = append(all[key], v)
	}
	kept := map[string][]string{}
	for key, vs := range all {
		if len(vs) > 1 || vs[0] != key {
			slices.Sort(vs)
			kept[key] = vs
		}
	}
	return kept
}

// of returns the indexed values that are the same text as v ([v] when
// none is indexed in another form).
func of(group map[string][]string, v string) []string {
	if vs, ok := group[norm.NFC.String(v)]; ok {
		return vs
	}
	return []string{v}
}

// listOf is of for each of values, sorted and without repeats.
func listOf(group map[string][]string, values []string) []string {
	if len(values) == 0 {
		return values
	}
	var out []string
	for _, v := range values {
		out = append(out, of(group, v)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// withNested returns tags and the indexed tags nested under any of them:
// a note tagged #travel/lisbon is about travel, as Obsidian and Bear
// count it when a person looks for #travel.
func withNested(nested, tags []string) []string {
	out := tags
	for _, t := range tags {
		prefix := t + "/"
		i, _ := slices.BinarySearch(nested, prefix)
		for ; i < len(nested) && strings.HasPrefix(nested[i], prefix); i++ {
			out = append(out, nested[i])
		}
	}
	if len(out) == len(tags) {
		return tags
	}
	out = slices.Clone(out)
	slices.Sort(out)
	return slices.Compact(out)
}

// indexedFilters returns f with its values in the forms the snapshot
// indexed them in, and, when the project or agent named is indexed in
// several forms (which one filter value cannot hold), a check of those
// (nil otherwise); f's project or agent is then left empty.
func (s *Snapshot) indexedFilters(f api.Filters) (api.Filters, func(doc int) bool) {
	if f.Project == "" && f.Agent == "" && len(f.Tags) == 0 && len(f.SourceSets) == 0 {
		// No value to place: a search without these filters does not
		// wait for the forms (a pass over every document, the first time).
		return f, nil
	}
	ff := s.forms()
	f.Tags = withNested(ff.nestedTags, listOf(ff.tags, f.Tags))
	f.SourceSets = listOf(ff.sourceSets, f.SourceSets)
	var checks []func(int) bool
	for _, c := range []struct {
		v     *string
		group map[string][]string
		facet segment.Facet
	}{{&f.Project, ff.projects, segment.FacetProject}, {&f.Agent, ff.agents, segment.FacetAgent}} {
		if *c.v == "" {
			continue
		}
		vs := of(c.group, *c.v)
		if len(vs) == 1 {
			*c.v = vs[0]
			continue
		}
		*c.v = ""
		facet := c.facet
		checks = append(checks, func(doc int) bool { return slices.Contains(vs, s.Gen.Facet(facet, doc)) })
	}
	if len(checks) == 0 {
		return f, nil
	}
	return f, func(doc int) bool {
		for _, c := range checks {
			if !c(doc) {
				return false
			}
		}
		return true
	}
}
