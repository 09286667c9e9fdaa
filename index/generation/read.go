package generation

import (
	"cmp"
	"iter"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/parallel"
	"github.com/nova-recall/nova/vector"
)

// Len is the number of document slots: documents are numbered 0..Len()-1.
// A slot may hold a chunk that a later change retired (see Live).
func (g *Generation) Len() int { return g.n }

// Count is the number of live chunks, the generation's size as users see it.
func (g *Generation) Count() int { return g.live }

// Live reports whether doc holds a chunk that is part of the generation.
// Searches never return a document that is not live.
func (g *Generation) Live(doc int) bool {
	if doc < 0 || doc >= g.n {
		return false
	}
	return g.dead == nil || g.dead[doc/64]&(1<<(doc%64)) == 0
}

// Chunk returns document doc, decoded from its segment. Each call decodes
// afresh; callers that need a chunk several times keep it.
func (g *Generation) Chunk(doc int) *memory.Chunk {
	s, local := g.locate(doc)
	c, err := g.segs[s].Chunk(local)
	if err != nil {
		// The checksums passed, so this is a defect, not damage; show
		// what can be shown rather than fail the search.
		return &memory.Chunk{ID: g.segs[s].ID(local), Tags: []string{}, Governance: api.Governance{Warnings: []string{}}}
	}
	return c
}

// ChunkStored is Chunk without the hashes its record does not store, and
// which those are (segment.Derive fills them in): a search decodes hundreds
// of chunks to score them and returns a few.
func (g *Generation) ChunkStored(doc int) (*memory.Chunk, segment.Hashes) {
	s, local := g.locate(doc)
	c, missing, err := g.segs[s].ChunkStored(local)
	if err != nil {
		return g.Chunk(doc), 0 // Chunk shows what can be shown
	}
	return c, missing
}

// ChunkMeta is what scoring document doc reads of it
// (segment.Reader.ChunkMeta): its text, ids, hashes, heading path and
// warnings are left empty, and textIs is what text reports of the text's
// bytes, which it must not keep. A record that does not decode is
// Chunk's, with text asked of its (empty) text.
func (g *Generation) ChunkMeta(doc int, text func([]byte) bool) (c *memory.Chunk, textIs bool) {
	s, local := g.locate(doc)
	c, textIs, err := g.segs[s].ChunkMeta(local, text)
	if err != nil {
		c = g.Chunk(doc)
		return c, text != nil && text([]byte(c.Text))
	}
	return c, textIs
}

// ChunkStoredInto is ChunkStored decoding into c, which must be the zero
// chunk (segment.Reader.ChunkStoredInto).
func (g *Generation) ChunkStoredInto(doc int, c *memory.Chunk) segment.Hashes {
	s, local := g.locate(doc)
	missing, err := g.segs[s].ChunkStoredInto(local, c)
	if err != nil {
		*c = *g.Chunk(doc) // Chunk shows what can be shown
		return 0
	}
	return missing
}

// Text returns document doc's text without deriving the chunk's hashes.
func (g *Generation) Text(doc int) string {
	s, local := g.locate(doc)
	return g.segs[s].ChunkText(local)
}

// ID returns document doc's chunk id without decoding the chunk.
func (g *Generation) ID(doc int) string {
	s, local := g.locate(doc)
	return g.segs[s].ID(local)
}

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

// live wraps accept so that retired documents are never accepted.
func (g *Generation) liveOnly(accept func(int) bool) func(int) bool {
	switch {
	case g.dead == nil:
		return accept
	case accept == nil:
		return g.Live
	}
	return func(d int) bool { return g.Live(d) && accept(d) }
}

// SearchText returns the best k documents for terms in the chunks' own text
// (BM25), best first. accept, when non-nil, is the hard filter.
func (g *Generation) SearchText(t Terms, k int, accept func(int) bool) []lexical.Hit {
	return g.text.SearchQuery(t.text, k, g.liveOnly(accept))
}

// ScoreText returns the BM25 score of each of docs for terms in the chunks'
// own text.
func (g *Generation) ScoreText(t Terms, docs []int) []float64 {
	return g.text.ScoreQuery(t.text, docs)
}

// SearchContext is SearchText over the neighbouring-context field.
func (g *Generation) SearchContext(t Terms, k int, accept func(int) bool) []lexical.Hit {
	return g.context.SearchQuery(t.context, k, g.liveOnly(accept))
}

// ScoreContext is ScoreText over the neighbouring-context field.
func (g *Generation) ScoreContext(t Terms, docs []int) []float64 {
	return g.context.ScoreQuery(t.context, docs)
}

// Terms are a query's analysed terms resolved in a generation's two
// lexical fields (Resolve), for its searches and scorings in them.
type Terms struct{ text, context lexical.Query }

// Resolve resolves a query's analysed terms in the text and context fields.
func (g *Generation) Resolve(terms []string) Terms {
	return Terms{text: g.text.Resolve(terms), context: g.context.Resolve(terms)}
}

// ResolveRelated is Resolve with related terms at their weights
// (lexical.Index.ResolveRelated).
func (g *Generation) ResolveRelated(terms []string, related ...lexical.Related) Terms {
	return Terms{
		text:    g.text.ResolveRelated(terms, related...),
		context: g.context.ResolveRelated(terms, related...),
	}
}

// TextDocFreq returns how many live documents' text holds term.
func (g *Generation) TextDocFreq(term string) int { return g.text.DocFreq(term) }

// Dim is the dimension of the generation's vectors.
func (g *Generation) Dim() int { return g.vectors.Dim() }

// SearchVectors returns the k documents whose vectors have the highest dot
// product with q, best first; accept, when non-nil, is the hard filter.
func (g *Generation) SearchVectors(q []float32, k int, accept func(int) bool) ([]vector.Hit, error) {
	return g.vectors.Search(q, k, g.liveOnly(accept))
}

// DenseScorer returns the dot product of q with a document's vector.
func (g *Generation) DenseScorer(q []float32) func(doc int) float32 { return g.vectors.Scorer(q) }

// Vector returns document doc's vector (decoded from its int8 codes).
func (g *Generation) Vector(doc int) []float32 { return g.vectors.Vector(doc) }

// Codes returns document doc's int8 vector codes (do not modify).
func (g *Generation) Codes(doc int) []int8 { return g.vectors.Codes(doc) }

// HasANN reports whether dense searches are approximate: they probe the
// inverted file or go through the sign prefilter.
func (g *Generation) HasANN() bool { return g.vectors.Approximate() }

// Facet returns document doc's value of a column without decoding it.
func (g *Generation) Facet(f segment.Facet, doc int) string {
	s, local := g.locate(doc)
	return g.segs[s].Facet(f, local)
}

// Filter returns the hard filter of a request over this generation's
// documents (nil when nothing is filtered). sourceSets, when non-nil,
// replaces the request's source sets (a pass-level restriction); when both
// are given, their intersection applies.
func (g *Generation) Filter(f api.Filters, sourceSets []string) func(int) bool {
	accept, _ := g.FilterCount(f, sourceSets)
	return accept
}

// FilterCount is Filter, and the number of live documents the filter
// refuses. The filter is decided for every document at once, on every
// core, from the facet columns (not the chunks) and kept as one bit a
// document: a search asks it of most documents, some of them several
// times (the prefilter, the postings, each pass).
func (g *Generation) FilterCount(f api.Filters, sourceSets []string) (func(int) bool, int) {
	accepted, refused := g.FilterBits(f, sourceSets)
	if accepted == nil {
		return nil, 0
	}
	return func(doc int) bool {
		return doc >= 0 && doc < g.n && accepted[doc/64]&(1<<(doc%64)) != 0
	}, refused
}

// FilterBits is FilterCount's filter as the bits it keeps, a bit a
// document (nil when nothing is filtered), which the caller must not
// modify: one that visits the documents a filter keeps reads the set bits
// instead of asking every document.
func (g *Generation) FilterBits(f api.Filters, sourceSets []string) ([]uint64, int) {
	sets := f.SourceSets
	if sourceSets != nil {
		sets = sourceSets
		if len(f.SourceSets) > 0 {
			sets = intersect(f.SourceSets, sourceSets)
		}
	}
	if f.Empty() && len(sets) == 0 {
		return nil, 0
	}
	accepted := make([]uint64, (g.n+63)/64)
	var refused atomic.Int64
	// Spans of whole words, so no two goroutines write one word. Each
	// span compiles its own checks: a check may remember the last value
	// it judged.
	parallel.Spans(len(accepted), 256, func(wlo, whi int) {
		n := 0
		for i, r := range g.segs {
			base := g.bases[i]
			from, to := max(wlo*64, base), min(whi*64, base+r.Docs(), g.n)
			if from >= to {
				continue
			}
			check := segmentFilter(r, f, sets)
			for doc := from; doc < to; doc++ {
				switch {
				case !g.Live(doc):
				case check(doc - base):
					accepted[doc/64] |= 1 << (doc % 64)
				default:
					n++
				}
			}
		}
		refused.Add(int64(n))
	})
	return accepted, int(refused.Load())
}

// segmentFilter compiles the filter against one segment's dictionary.
func segmentFilter(r *segment.Reader, f api.Filters, sets []string) func(int) bool {
	var checks []func(int) bool
	is := func(facet segment.Facet, values ...string) {
		checks = append(checks, r.Matcher(facet, values))
	}
	if f.Date != "" {
		is(segment.FacetDate, f.Date)
	}
	if f.DateFrom != "" || f.DateTo != "" {
		checks = append(checks, r.ValueMatcher(segment.FacetDate, func(date string) bool {
			return len(date) >= 10 && (f.DateFrom == "" || date[:10] >= f.DateFrom) && (f.DateTo == "" || date[:10] <= f.DateTo)
		}))
	}
	if f.Project != "" {
		is(segment.FacetProject, f.Project)
	}
	if f.Agent != "" {
		is(segment.FacetAgent, f.Agent)
	}
	if f.Role != "" {
		role, agent := r.Matcher(segment.FacetRole, []string{f.Role}), r.Matcher(segment.FacetAgent, []string{f.Role})
		checks = append(checks, func(d int) bool { return role(d) || agent(d) })
	}
	if len(sets) > 0 {
		is(segment.FacetSourceSet, sets...)
	}
	if len(f.Lifecycles) > 0 {
		is(segment.FacetLifecycle, f.Lifecycles...)
	}
	if len(f.WorkTypes) > 0 {
		is(segment.FacetWorkType, f.WorkTypes...)
	}
	if len(f.Tags) > 0 {
		checks = append(checks, r.TagMatcher(f.Tags))
	}
	return func(d int) bool {
		for _, c := range checks {
			if !c(d) {
				return false
			}
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
// projects count as "unknown". It is computed once, from the columns.
func (g *Generation) Summary() Summary {
	g.summaryOnce.Do(func() {
		s := Summary{Layers: map[string]int{}, Agents: map[string]int{}, Projects: map[string]int{}, SourceSets: map[string]int{}, Tags: map[string]int{}}
		for i, r := range g.segs {
			for d := range r.Docs() {
				if !g.Live(g.bases[i] + d) {
					continue
				}
				s.Layers[r.Facet(segment.FacetLayer, d)]++
				s.Agents[orUnknown(r.Facet(segment.FacetAgent, d))]++
				s.Projects[orUnknown(r.Facet(segment.FacetProject, d))]++
				s.SourceSets[r.Facet(segment.FacetSourceSet, d)]++
				for _, t := range r.Tags(d) {
					s.Tags[t]++
				}
				if date := r.Facet(segment.FacetDate, d); date != "" {
					if s.FirstDate == "" || date < s.FirstDate {
						s.FirstDate = date
					}
					s.LastDate = max(s.LastDate, date)
				}
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

// Find returns the live document holding chunk id. Once the id fences
// are read (Prepare, as novad does before serving), each segment's say
// where in its id order id can be, if anywhere: a search looks up the ids
// a query might name in every segment, and most are in none. A sync's
// few look-ups in the previous generation do not read the fences for
// that.
func (g *Generation) Find(id string) (int, bool) {
	var fences []idFences
	if g.fencesRead.Load() {
		fences = g.idFences()
	}
	for s := len(g.segs) - 1; s >= 0; s-- {
		from, to := 0, g.segs[s].Docs()
		if fences != nil {
			var ok bool
			if from, to, ok = fences[s].span(id, to); !ok {
				continue
			}
		}
		if d, ok := g.segs[s].FindIn(id, from, to); ok && g.Live(g.bases[s]+d) {
			return g.bases[s] + d, true
		}
	}
	return 0, false
}

// Position returns document doc's line in its file and part of its
// record, without decoding it.
func (g *Generation) Position(doc int) (line, part int) {
	s, local := g.locate(doc)
	return g.segs[s].Line(local), g.segs[s].Part(local)
}

// Segments is the number of segments.
func (g *Generation) Segments() int { return len(g.segs) }

// SegmentRange returns the documents [first, end) of segment s.
func (g *Generation) SegmentRange(s int) (first, end int) {
	return g.bases[s], g.bases[s] + g.segs[s].Docs()
}

// Retired returns the documents segment s retires (nil for none).
func (g *Generation) Retired(s int) []uint32 {
	if g.segs[s].Dead == nil {
		return nil
	}
	return g.segs[s].Dead.Docs
}

// Locate returns the segment holding doc and doc's number in it.
func (g *Generation) Locate(doc int) (segment, local int) { return g.locate(doc) }

// RetiredStats returns what the documents segment s retires contributed
// to the lexical statistics.
func (g *Generation) RetiredStats(s int) segment.Dead {
	if g.segs[s].Dead == nil {
		return segment.Dead{}
	}
	return *g.segs[s].Dead
}

// Fields returns segment s's lexical fields (text and context).
func (g *Generation) Fields(s int) (text, context *lexical.Field) {
	return g.segs[s].Text, g.segs[s].Context
}

// HasChinese reports whether a segment's text holds Chinese words (in a
// document since retired, too: a hint, not a count).
func (g *Generation) HasChinese() bool {
	return slices.ContainsFunc(g.segs, func(r *segment.Reader) bool { return r.Text.HasHan() })
}

// SearchVectorsExact is SearchVectors scanning every vector, without the
// inverted file or the sign prefilter: the reference that measures what
// they cost in recall.
func (g *Generation) SearchVectorsExact(q []float32, k int, accept func(int) bool) ([]vector.Hit, error) {
	g.exactOnce.Do(func() { g.exact = g.vectors.Exact() })
	return g.exact.Search(q, k, g.liveOnly(accept))
}

// Adjacent returns the live documents before and after doc in its
// conversation, in the order a full build reads them (the conversation
// index that neighbouring context is derived from); -1 when there is none.
func (g *Generation) Adjacent(doc int) (prev, next int) {
	c := g.conversationIndex()
	if doc < 0 || doc >= len(c.member) || c.member[doc] < 0 {
		return -1, -1
	}
	pos := c.member[doc]
	conv := c.conv[pos]
	prev, next = -1, -1
	if pos > 0 && c.conv[pos-1] == conv {
		prev = int(c.order[pos-1])
	}
	if int(pos)+1 < len(c.order) && c.conv[pos+1] == conv {
		next = int(c.order[pos+1])
	}
	return prev, next
}

// versions maps each document that a newer version of its subject
// superseded to the newest version's first document.
type versions struct {
	newer map[int]int
}

// subjectChunks yields the live chunks with a subject, decoding only
// the segments that hold some (or did not count them).
func (g *Generation) subjectChunks() iter.Seq2[int, *memory.Chunk] {
	return func(yield func(int, *memory.Chunk) bool) {
		for s, r := range g.segs {
			if n := r.Meta.Subjects; n != nil && *n == 0 {
				continue
			}
			for d := g.bases[s]; d < g.bases[s]+r.Meta.Docs; d++ {
				if !g.Live(d) {
					continue
				}
				if c := g.Chunk(d); c.Subject != "" && !yield(d, c) {
					return
				}
			}
		}
	}
}

// Superseded reports whether doc is an older version of its subject
// (memory.Chunk.Subject, within its project) and, if so, the first live
// document of the newest version. Versions are ordered by the best time
// known of each (versionChains).
func (g *Generation) Superseded(doc int) (newest int, superseded bool) {
	n, ok := g.versionChains().newer[doc]
	return n, ok
}

// version is one chunk of a version chain.
type version struct {
	doc int
	// when is the record's time (or the start of its date, dayStart);
	// an undated record takes the latest one of the records above it in
	// its file (it was written after them), "" when none has one.
	when         string
	source, path string
	record       string
	line         int
}

// newerThan orders two versions of a subject: by their time; at equal
// times, a file before a sync service's conflict copy of it (copyOrder),
// then by where they are read from: the later line of one file, else
// the later file (an export named by its day names the later state
// later). Never by the order a build read them in, which an incremental
// sync changes.
func (a *version) newerThan(b *version) bool {
	if a.when != b.when {
		return a.when > b.when
	}
	return cmp.Or(copyOrder(a.path, b.path), strings.Compare(a.source, b.source), strings.Compare(a.path, b.path), cmp.Compare(a.line, b.line), cmp.Compare(a.doc, b.doc)) > 0
}

// inheritTimes gives each undated version of a chain the latest time of
// the versions above it in its file.
func inheritTimes(chain []*version) {
	if !slices.ContainsFunc(chain, func(v *version) bool { return v.when == "" }) {
		return
	}
	inFile := slices.Clone(chain)
	slices.SortStableFunc(inFile, func(a, b *version) int {
		return cmp.Or(strings.Compare(a.source, b.source), strings.Compare(a.path, b.path), cmp.Compare(a.line, b.line))
	})
	latest := ""
	for i, v := range inFile {
		if i > 0 && (v.source != inFile[i-1].source || v.path != inFile[i-1].path) {
			latest = ""
		}
		switch {
		case v.when != "":
			latest = max(latest, v.when)
		case v.line > 0:
			v.when = latest
		}
	}
}

// timeGroups splits a chain (after inheritTimes) into the groups whose
// versions can be ordered among themselves. The versions with a time, and
// the undated ones above a dated version of their file (older than it),
// form one group. The undated versions of a file that holds no dated
// version of the subject form a group of their own, ordered by their
// lines: nothing tells whether that file was written before or after the
// other files (a current-state note without dates, or an old export), so
// they neither supersede the other files' versions nor are superseded by
// them.
func timeGroups(chain []*version) [][]*version {
	file := func(v *version) string { return v.source + "\x00" + v.path }
	dated := map[string]bool{}
	for _, v := range chain {
		if v.when != "" {
			dated[file(v)] = true
		}
	}
	groups := map[string][]*version{}
	for _, v := range chain {
		key := ""
		if v.when == "" && (v.line <= 0 || !dated[file(v)]) {
			key = file(v)
		}
		groups[key] = append(groups[key], v)
	}
	out := make([][]*version, 0, len(groups))
	for _, grp := range groups {
		out = append(out, grp)
	}
	return out
}

// versionChains finds the version chains once. Subjects are not a facet
// column: the chunks of the segments that count some are decoded (about
// 0.1 s for 30 000 chunks on this machine).
func (g *Generation) versionChains() *versions {
	g.versionsOnce.Do(func() {
		chains := map[string][]*version{}
		boards := boards{}
		// untitled are the versions of the cards of boards without a
		// title, chained once boards knows each file's board.
		type card struct {
			board, file, subject string
			v                    *version
		}
		var untitled []card
		for i, c := range g.subjectChunks() {
			when := c.Time
			if when == "" && c.Date != "" {
				when = dayStart(c.Date, g.zone)
			}
			boards.add(i, c, when)
			// A project is one text in either Unicode form, as the
			// project filter reads it (a macOS folder's name is
			// decomposed, a typed one composed).
			k := norm.NFC.String(c.Project) + "\x00" + c.Subject
			ver := &version{doc: i, when: when, source: c.SourceName, path: c.SourcePath,
				record: c.SourceName + "\x00" + c.SourceID, line: c.LineNumber}
			if c.SourceSet == memory.TaskBoardSnapshot && strings.HasPrefix(c.Subject, memory.UntitledCard) {
				// A card of a board without a title is a version only of
				// the same card of its own board (boardKey, and
				// foldCopies).
				untitled = append(untitled, card{boardKey(c), c.SourceName + "\x00" + c.SourcePath, c.Subject, ver})
				continue
			}
			chains[k] = append(chains[k], ver)
		}
		moved := boards.foldCopies()
		for _, u := range untitled {
			k := cmp.Or(moved[u.file], u.board) + "\x00" + u.subject
			chains[k] = append(chains[k], u.v)
		}
		v := versions{newer: map[int]int{}}
		for _, chain := range chains {
			inheritTimes(chain)
			for _, grp := range timeGroups(chain) {
				v.supersede(grp)
			}
		}
		v.supersedeDropped(boards)
		g.versions = v
	})
	return &g.versions
}

// dayStart is the instant a bare date begins in the user's zone, in
// the form of a chunk's exact time (UTC, RFC 3339), so that versions with
// and without an exact time are ordered as instants: west of UTC, an
// evening's time is the next day in UTC and sorted after the next day's
// bare date as text. An exact time on the day is after its start, as
// the day's state was written during it.
func dayStart(date string, zone *time.Location) string {
	t, err := time.ParseInLocation("2006-01-02", date, zone)
	if err != nil {
		return date
	}
	return t.UTC().Format(time.RFC3339)
}

// supersede records that the newest version of grp supersedes the others.
func (v *versions) supersede(grp []*version) {
	best := grp[0]
	for _, m := range grp[1:] {
		if m.record != best.record && m.newerThan(best) {
			best = m
		}
	}
	first := best.doc // the newest version's first piece
	for _, m := range grp {
		if m.record == best.record {
			first = min(first, m.doc)
		}
	}
	for _, m := range grp {
		if m.record != best.record {
			v.newer[m.doc] = first
		}
	}
}

// Agents returns the distinct agent names of the live chunks, sorted. It
// reads a facet column and is computed once.
func (g *Generation) Agents() []string {
	g.agentsOnce.Do(func() { g.agents = g.distinct(segment.FacetAgent) })
	return g.agents
}

// SourceNames returns the distinct names of the sources of the live
// chunks, sorted: a chunk's id is its source's name and its record's id
// (memory.ChunkID), so a record is found by its id through them. It reads
// a facet column and is computed once.
func (g *Generation) SourceNames() []string {
	g.sourcesOnce.Do(func() { g.sources = g.distinct(segment.FacetSourceName) })
	return g.sources
}

// distinct returns the distinct non-empty values of a facet column over
// the live chunks, sorted.
func (g *Generation) distinct(f segment.Facet) []string {
	seen := map[string]bool{}
	for i := range g.Len() {
		if g.Live(i) {
			if v := g.Facet(f, i); v != "" {
				seen[v] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}
