package search

import (
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/memory"
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

// localStamp is the memory's timestamp: its time in the engine's zone, or
// its day when it has no exact time ("" if undated).
func (e *Engine) localStamp(c *memory.Chunk) string {
	if t, ok := exactTime(c); ok {
		return t.In(e.cfg.Location).Format(stampLayout)
	}
	return c.Date
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

func shiftDay(d string, n int) string {
	t, _ := time.Parse(time.DateOnly, d) // a day dayBounds checked
	return t.AddDate(0, 0, n).Format(time.DateOnly)
}

// dayFilter applies the request's date filters to the memories' local
// days. The stored day of a memory with an exact time is at most
// dayMargin days away from its local day (zone offsets run from -12 to
// +14 hours), so the generation's filter over the stored days, widened by
// dayMargin each side, keeps every memory that can match; of those, the
// ones whose stored day is less than dayMargin days inside a bound are
// decoded and judged by their local day.
type dayFilter struct {
	stored api.Filters // the request's filters, dates widened
	reject []uint64    // a bit a document
	// refused counts the live documents the widened filter let through
	// and the local day refused.
	refused int
}

// dayMargin is the most days a memory's stored day and its local day can
// be apart.
const dayMargin = 2

// newDayFilter returns nil when the request has no date filter to apply
// by local day.
func (e *Engine) newDayFilter(g *generation.Generation, f api.Filters) *dayFilter {
	from, to, ok := dayBounds(f)
	if !ok {
		return nil
	}
	wide := f
	wide.Date, wide.DateFrom, wide.DateTo = "", "", ""
	if from != "" {
		wide.DateFrom = shiftDay(from, -dayMargin)
	}
	if to != "" {
		wide.DateTo = shiftDay(to, dayMargin)
	}
	df := &dayFilter{stored: wide, reject: make([]uint64, (g.Len()+63)/64)}
	accept, _ := g.FilterCount(wide, nil)
	// Stored days this far inside the bounds match whatever their zone.
	innerFrom, innerTo := "", ""
	if from != "" {
		innerFrom = shiftDay(from, dayMargin-1)
	}
	if to != "" {
		innerTo = shiftDay(to, 1-dayMargin)
	}
	inside := func(d string) bool { return (from == "" || d > innerFrom) && (to == "" || d < innerTo) }
	for doc := range g.Len() {
		if !accept(doc) || inside(g.Facet(segment.FacetDate, doc)) {
			continue
		}
		c, _ := g.ChunkStored(doc)
		if d := e.localDay(c); d == "" || (from != "" && d < from) || (to != "" && d > to) {
			df.reject[doc/64] |= 1 << (doc % 64)
			df.refused++
		}
	}
	return df
}

// hardFilter returns the request's hard filter over g (nil when nothing
// is filtered) and how many live documents it refuses; sourceSets, when
// non-nil, narrows the source sets as in generation.FilterCount.
func (q *query) hardFilter(sourceSets []string) (func(int) bool, int) {
	g := q.snap.Gen
	if q.days == nil {
		return g.FilterCount(q.req.Filters, sourceSets)
	}
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
			c, _ := g.ChunkStored(doc)
			d := e.localDay(c)
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
