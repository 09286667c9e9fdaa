package search

import (
	"math"
	"math/bits"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/parallel"
)

// A memory's day and time are the user's: a result's date is the day, in
// the engine's time zone (Config.Location), on which the memory was made,
// and its timestamp is the wall-clock time there, so the timestamp always
// begins with the date. The date and dateRange filters, the date priors a
// query names ("yesterday", "上周") and recency all read that same day
// (upstream maps every timestamp to a day in the one configured zone).
//
// The index stores each record's day as its source wrote it (a JSONL
// timestamp's own offset; a transcript's UTC day) and its exact time, when
// it has one, as an instant. A memory with an exact time takes its day from
// that time; one with only a day keeps it: a bare day has no zone.

// stampLayout is a result's timestamp: minutes, no zone (upstream's).
const stampLayout = "2006-01-02 15:04"

// exactTime is the memory's instant, if its record had one.
func exactTime(c *memory.Chunk) (time.Time, bool) {
	if c.Time == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, c.Time)
	return t, err == nil
}

// localDay is the memory's day in the engine's time zone ("" if undated).
func (e *Engine) localDay(c *memory.Chunk) string {
	if t, ok := exactTime(c); ok {
		return t.In(e.cfg.Location).Format(time.DateOnly)
	}
	return c.Date
}

// dayStart is the midnight that begins the memory's local day in the
// engine's zone, as parsing its localDay there gives it (ok false when it
// has no day). Every candidate's recency needs it: for a memory with an
// exact time it is worked out from that time, not by formatting the day
// and parsing it again.
func (e *Engine) dayStart(c *memory.Chunk) (time.Time, bool) {
	if t, ok := exactTime(c); ok {
		if y, m, d := t.In(e.cfg.Location).Date(); y >= 0 && y <= 9999 { // a day DateOnly can write
			return time.Date(y, m, d, 0, 0, 0, 0, e.cfg.Location), true
		}
	}
	t, err := time.ParseInLocation(time.DateOnly, e.localDay(c), e.cfg.Location)
	return t, err == nil
}

// localStamp is the memory's timestamp: its time in the engine's zone, or
// its day when it has no exact time ("" if undated).
func (e *Engine) localStamp(c *memory.Chunk) string {
	if t, ok := exactTime(c); ok {
		return t.In(e.cfg.Location).Format(stampLayout)
	}
	return c.Date
}

// userDays returns f with each date given as a time replaced by the day
// that time falls on in the engine's zone: a request's "from
// 2026-06-08T15:00:00Z" is, for a user in Tokyo, from 9 June. Values that
// are neither stay as they are (dayBounds).
func (e *Engine) userDays(f api.Filters) api.Filters {
	for _, d := range []*string{&f.Date, &f.DateFrom, &f.DateTo} {
		if day, ok := api.DayIn(*d, e.cfg.Location); ok {
			*d = day
		}
	}
	return f
}

// dayBounds are the inclusive days the request's date filters allow ("" is
// open); ok is false when it has none, or one that is not a calendar day
// (the engine is also called with filters no request decoder checked: they
// are then applied to the stored day as given).
func dayBounds(f api.Filters) (from, to string, ok bool) {
	if f.Date == "" && f.DateFrom == "" && f.DateTo == "" {
		return "", "", false
	}
	for _, d := range []string{f.Date, f.DateFrom, f.DateTo} {
		if d != "" && !validDay(d) {
			return "", "", false
		}
	}
	from, to = f.DateFrom, f.DateTo
	if f.Date != "" {
		from, to = max(from, f.Date), f.Date
		if f.DateTo != "" {
			to = min(to, f.DateTo)
		}
	}
	return from, to, true
}

func validDay(d string) bool {
	_, err := time.Parse(time.DateOnly, d)
	return err == nil
}

// shiftDay is day d moved by n days, kept within the days DateOnly
// writes: the stored days are compared as strings, and a day past
// 9999-12-31 is written "10000-01-01", which sorts before them all.
func shiftDay(d string, n int) string {
	t, _ := time.Parse(time.DateOnly, d) // a day dayBounds checked
	switch t = t.AddDate(0, 0, n); {
	case t.Year() > 9999:
		return "9999-12-31"
	case t.Year() < 0:
		return "0000-01-01"
	}
	return t.Format(time.DateOnly)
}

// dayFilter applies the request's date filters to the memories' local
// days. The stored day of a memory with an exact time is at most
// dayMargin days away from its local day (zone offsets run from -12 to
// +14 hours), so the generation's filter over the stored days, widened by
// dayMargin each side, keeps every memory that can match; of those, the
// ones whose stored day is less than dayMargin days inside a bound are
// judged by their exact time against the bounds' midnights in the
// engine's zone (Snapshot.instant: each memory is decoded once per
// snapshot, not once per query).
type dayFilter struct {
	stored api.Filters // the request's filters, dates widened
	// storedRefused is how many live documents the generation's filter
	// of stored (the search's hard filter but for the local days) refuses.
	storedRefused int
	reject        []uint64 // a bit a document
	// kept is accept without reject, a bit a document: the dense scan
	// asks the hard filter of nearly every document, and asking the two
	// in turn cost a fifth of a filtered query's dense scan.
	kept []uint64
	// refused counts the live documents the widened filter let through
	// and the local day refused.
	refused int
}

// dayMargin is the most days a memory's stored day and its local day can
// be apart.
const dayMargin = 2

// newDayFilter returns nil when the request has no date filter to apply
// by local day.
func (e *Engine) newDayFilter(snap *Snapshot, f api.Filters) *dayFilter {
	from, to, ok := dayBounds(f)
	if !ok {
		return nil
	}
	g := snap.Gen
	wide := f
	wide.Date, wide.DateFrom, wide.DateTo = "", "", ""
	// An exact time is of a day in [from, to] when it falls in
	// [start, end): from's midnight and the midnight after to, in the
	// engine's zone.
	start, end := int64(math.MinInt64), int64(math.MaxInt64)
	if from != "" {
		wide.DateFrom = shiftDay(from, -dayMargin)
		start = e.midnight(from, 0)
	}
	if to != "" {
		wide.DateTo = shiftDay(to, dayMargin)
		end = e.midnight(to, 1)
	}
	// The widened filter names a day, so it filters: its bits are never
	// nil.
	accepted, storedRefused := g.FilterBits(wide, nil)
	words := (g.Len() + 63) / 64
	df := &dayFilter{stored: wide, storedRefused: storedRefused, reject: make([]uint64, words), kept: make([]uint64, words)}
	// Stored days this far inside the bounds match whatever their zone.
	innerFrom, innerTo := "", ""
	if from != "" {
		innerFrom = shiftDay(from, dayMargin-1)
	}
	if to != "" {
		innerTo = shiftDay(to, 1-dayMargin)
	}
	inside := func(d string) bool { return (from == "" || d > innerFrom) && (to == "" || d < innerTo) }
	// Spans of whole words, so no two goroutines write one word, from
	// the generation size at which a pass spreads too. Only the documents
	// the widened filter keeps are visited, by their set bits: asking it
	// of every document took most of this loop's time.
	var refused atomic.Int64
	parallel.Spans(min(words, len(accepted)), max(1, e.cfg.ConcurrentPassMin/64), func(wlo, whi int) {
		n := 0
		for w := wlo; w < whi; w++ {
			for set := accepted[w]; set != 0; set &= set - 1 {
				doc := w*64 + bits.TrailingZeros64(set)
				d := g.Facet(segment.FacetDate, doc)
				if inside(d) {
					df.kept[w] |= 1 << (doc % 64)
					continue
				}
				var keep bool
				if t, ok := snap.instant(doc); ok {
					keep = t >= start && t < end
				} else { // a bare day is the memory's day in any zone
					keep = d != "" && (from == "" || d >= from) && (to == "" || d <= to)
				}
				if !keep {
					df.reject[w] |= 1 << (doc % 64)
					n++
				} else {
					df.kept[w] |= 1 << (doc % 64)
				}
			}
		}
		refused.Add(int64(n))
	})
	df.refused = int(refused.Load())
	return df
}

// midnight is the Unix time at which day d, shifted by n days, begins in
// the engine's zone.
func (e *Engine) midnight(d string, n int) int64 {
	t, _ := time.Parse(time.DateOnly, d) // a day dayBounds checked
	t = t.AddDate(0, 0, n)
	return startOfDay(t.Year(), t.Month(), t.Day(), e.cfg.Location).Unix()
}

// startOfDay is the first instant of day y-m-d in loc. Where the change
// to daylight saving time skips midnight (Havana, Santiago, the Azores),
// time.Date gives the hour before the change, on the day before; the day
// begins at the change.
func startOfDay(y int, m time.Month, d int, loc *time.Location) time.Time {
	t := time.Date(y, m, d, 0, 0, 0, 0, loc)
	if t.Day() != d {
		_, change := t.ZoneBounds()
		return change
	}
	return t
}

// instants are the exact times of a snapshot's memories, one word a
// document, filled in as they are asked for: 0 not yet known, 2 no exact
// time, else the Unix seconds shifted left by one with the low bit set.
// They hold no zone: the same snapshot serves any engine's.
type instants []atomic.Int64

// instant returns doc's exact time in Unix seconds, ok false when its
// record had none. A memory's time is in its chunk; it is decoded the first
// time it is asked for and remembered for the snapshot's life (8 bytes a
// document): a date filter judges the same memories near its bounds query
// after query.
func (s *Snapshot) instant(doc int) (sec int64, ok bool) {
	s.instantsOnce.Do(func() { s.instants = make(instants, s.Gen.Len()) })
	v := s.instants[doc].Load()
	if v == 0 {
		v = 2
		c, _ := s.Gen.ChunkStored(doc)
		if t, ok := exactTime(c); ok {
			v = t.Unix()<<1 | 1
		}
		s.instants[doc].Store(v)
	}
	return v >> 1, v&1 == 1
}

// hardFilter returns the request's hard filter over g (nil when nothing
// is filtered) and how many live documents it refuses; sourceSets, when
// non-nil, narrows the source sets as in generation.FilterCount.
func (q *query) hardFilter(sourceSets []string) (func(int) bool, int) {
	accept, refused := q.storedFilter(sourceSets)
	if q.forms == nil {
		return accept, refused
	}
	g, forms := q.snap.Gen, q.forms
	for doc := range g.Len() {
		if g.Live(doc) && (accept == nil || accept(doc)) && !forms(doc) {
			refused++
		}
	}
	return func(doc int) bool { return (accept == nil || accept(doc)) && forms(doc) }, refused
}

// storedFilter is hardFilter but for a project or agent indexed in
// several forms.
func (q *query) storedFilter(sourceSets []string) (func(int) bool, int) {
	g := q.snap.Gen
	if q.days == nil {
		return g.FilterCount(q.filters, sourceSets)
	}
	refused := q.days.storedRefused
	if sourceSets == nil {
		kept, n := q.days.kept, len(q.days.kept)*64
		return func(doc int) bool {
			return uint(doc) < uint(n) && kept[doc/64]&(1<<(doc%64)) != 0
		}, refused + q.days.refused
	}
	// A pass narrows the source sets.
	accept, refused := g.FilterCount(q.days.stored, sourceSets)
	reject := q.days.reject
	return func(doc int) bool {
		return accept(doc) && reject[doc/64]&(1<<(doc%64)) == 0
	}, refused + q.days.refused
}

// DateRange returns the first and last day of the snapshot's memories in
// the engine's time zone ("" when none is dated): the span /stats reports,
// in the days search gives and filters by. A memory's local day is at most
// dayMargin days from its stored day, so only the memories whose stored
// day is within twice that of the stored first or last day are decoded.
// It is worked out once per snapshot.
func (e *Engine) DateRange(snap *Snapshot) (first, last string) {
	snap.spanMu.Lock()
	defer snap.spanMu.Unlock()
	if span, ok := snap.spans[e.cfg.Location]; ok {
		return span[0], span[1]
	}
	g := snap.Gen
	sum := g.Summary()
	if sum.FirstDate != "" {
		lowBand, highBand := "\xff", "" // every dated memory, unless the bounds are days
		if validDay(sum.FirstDate) && validDay(sum.LastDate) {
			lowBand, highBand = shiftDay(sum.FirstDate, 2*dayMargin), shiftDay(sum.LastDate, -2*dayMargin)
		}
		for doc := range g.Len() {
			if !g.Live(doc) {
				continue
			}
			stored := g.Facet(segment.FacetDate, doc)
			if stored == "" || (stored > lowBand && stored < highBand) {
				continue
			}
			d := stored
			if t, ok := snap.instant(doc); ok {
				d = time.Unix(t, 0).In(e.cfg.Location).Format(time.DateOnly)
			}
			if first == "" || d < first {
				first = d
			}
			last = max(last, d)
		}
	}
	if snap.spans == nil {
		snap.spans = map[*time.Location][2]string{}
	}
	snap.spans[e.cfg.Location] = [2]string{first, last}
	return first, last
}

// dayDoc is a memory of the days a date-led query asks about, and how
// much it says (dayDocs).
type dayDoc struct {
	doc int
	// says is the number of distinct terms of the memory's text, as a
	// share of the most any of the days' memories has.
	says float64
}

// withTheUser matches a normalised query that asks about the user
// together with the people it names: "Rhea and I", "me and Rhea", "with
// Rhea", 我和Rhea, 跟我. A day's memories are then both sides', and the
// user's are not the named agent's.
var withTheUser = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:and|&) (?:i|me|myself)\b|\b(?:i|me) (?:and|&) |\bwith\b|我们?(?:和|跟|与|同)|(?:和|跟|与|同)我`)
})

// dayDocs returns the memories the query may see whose local day is in
// one of its date spans (or, when it names none, in its date filter), in
// document order, at most q.pool(): a span with more is sampled evenly,
// so that "last month" shows every week of it rather than its first day.
// They are found as the date filters find theirs (newDayFilter), once per
// query; a query that names people ("what did Rhea do yesterday") asks
// for theirs alone, unless it asks about the user with them
// (withTheUser). The query's words say nothing of which of them
// matter, so each is weighed by how much it says: what was done that day
// is in the turns that report it ("Added cursor pagination to GET
// /v1/invoices..."), not in "fix" or "80 Go tests pass.".
func (e *Engine) dayDocs(snap *Snapshot, q *query) []dayDoc {
	g := snap.Gen
	var in []uint64
	if len(q.dates) == 0 {
		// The request's date filter names the days ("what happened" on
		// {"date": "2026-07-14"}), and q.accept keeps only theirs.
		in = make([]uint64, (g.Len()+63)/64)
		for i := range in {
			in[i] = ^uint64(0)
		}
	}
	for _, d := range q.dates {
		df := e.newDayFilter(snap, api.Filters{DateFrom: d.From, DateTo: d.To})
		if df == nil {
			continue
		}
		if in == nil {
			in = make([]uint64, len(df.kept))
		}
		for i, w := range df.kept {
			in[i] |= w
		}
	}
	if len(q.dates) > 0 {
		q.asked = in
	}
	people := q.people
	if withTheUser().MatchString(lexical.Normalize(q.plan.Query)) {
		people = nil
	}
	var docs []int
	for i, w := range in {
		for ; w != 0; w &= w - 1 {
			doc := i*64 + bits.TrailingZeros64(w)
			if doc < g.Len() && g.Live(doc) && (q.accept == nil || q.accept(doc)) &&
				(len(people) == 0 || slices.Contains(people, g.Facet(segment.FacetAgent, doc))) {
				docs = append(docs, doc)
			}
		}
	}
	if n := q.pool(); len(docs) > n {
		sample := make([]int, n)
		for i := range sample {
			sample[i] = docs[i*len(docs)/n]
		}
		docs = sample
	}
	out := make([]dayDoc, len(docs))
	most := 0.0
	for i, d := range docs {
		// A Chinese word's characters say nothing more than the word.
		terms := slices.DeleteFunc(e.analyzer.Terms(q.chunk(d).Text), lexical.IsCharTerm)
		slices.Sort(terms)
		out[i] = dayDoc{doc: d, says: float64(len(slices.Compact(terms)))}
		most = max(most, out[i].says)
	}
	for i := range out {
		if most > 0 {
			out[i].says /= most
		}
	}
	return out
}
