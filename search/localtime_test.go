package search_test

import (
	"slices"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/search"
)

// TestLocalDay_acrossMidnightInTokyo: a result's date and timestamp, the
// date filters and the date priors all read the memory's day in the
// engine's time zone. In Tokyo (UTC+9) a note written at 00:30 is of that
// day although it is still the day before in UTC, and an export stamped
// 16:00 UTC is of the next day.
func TestLocalDay_acrossMidnightInTokyo(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	snap := build(t, config.Source{Name: "ops", Kind: config.KindJSONL, Path: "zones"})
	clock := func() time.Time { return time.Date(2026, 7, 15, 10, 0, 0, 0, tokyo) }
	engineIn := func(loc *time.Location) *search.Engine {
		return search.New(search.Config{HalfLifeDays: 7, Dense: true, Now: clock, Location: loc}, lexical.NewAnalyzer())
	}
	e := engineIn(tokyo)
	const query = "billing cluster deploy"

	type when struct{ date, stamp string }
	check := func(t *testing.T, resp *api.SearchResponse, want map[string]when) {
		t.Helper()
		if got := ids(resp); len(got) != len(want) {
			t.Fatalf("results %v, want %d of them", got, len(want))
		}
		for _, r := range resp.Results {
			w, ok := want[r.SourceID]
			if !ok {
				t.Errorf("unexpected result %s", r.SourceID)
				continue
			}
			if r.Date == nil || *r.Date != w.date || r.Timestamp == nil || *r.Timestamp != w.stamp {
				t.Errorf("%s: date %v timestamp %v, want %s and %s", r.SourceID, deref(r.Date), deref(r.Timestamp), w.date, w.stamp)
			}
		}
		for _, c := range resp.CitationPack {
			if deref(c.Date) == "" || deref(c.Timestamp)[:10] != deref(c.Date) {
				t.Errorf("citation %s: timestamp %v does not begin with its date %v", c.CitationID, deref(c.Timestamp), deref(c.Date))
			}
		}
	}
	late := when{"2026-07-13", "2026-07-13 23:30"}
	early := when{"2026-07-14", "2026-07-14 00:30"}
	export := when{"2026-07-14", "2026-07-14 01:00"}
	dayOnly := when{"2026-07-14", "2026-07-14"}

	t.Run("results", func(t *testing.T) {
		check(t, ask(t, e, snap, api.SearchRequest{Query: query}), map[string]when{
			"late-note": late, "early-note": early, "utc-export": export, "day-only": dayOnly})
	})
	t.Run("date filter", func(t *testing.T) {
		resp := ask(t, e, snap, api.SearchRequest{Query: query, Filters: api.Filters{Date: "2026-07-14"}})
		check(t, resp, map[string]when{"early-note": early, "utc-export": export, "day-only": dayOnly})
		if resp.Filtered != 1 {
			t.Errorf("filtered %d, want 1 (late-note)", resp.Filtered)
		}
		check(t, ask(t, e, snap, api.SearchRequest{Query: query, Filters: api.Filters{Date: "2026-07-13"}}), map[string]when{"late-note": late})
	})
	t.Run("dateRange", func(t *testing.T) {
		check(t, ask(t, e, snap, api.SearchRequest{Query: query, Filters: api.Filters{DateFrom: "2026-07-14", DateTo: "2026-07-20"}}),
			map[string]when{"early-note": early, "utc-export": export, "day-only": dayOnly})
		check(t, ask(t, e, snap, api.SearchRequest{Query: query, Filters: api.Filters{DateTo: "2026-07-13"}}), map[string]when{"late-note": late})
		// The authoritative pass filters by the same days.
		resp := ask(t, e, snap, api.SearchRequest{Query: "billing cluster deploy config decision", Filters: api.Filters{DateTo: "2026-07-13"}})
		if got := ids(resp); !slices.Equal(got, []string{"late-note"}) {
			t.Errorf("with the authoritative pass: %v", got)
		}
	})
	t.Run("yesterday", func(t *testing.T) {
		resp := ask(t, e, snap, api.SearchRequest{Query: "billing cluster deploy yesterday"})
		if p := resp.QueryPlan.DatePriors; len(p) != 1 || p[0].From != "2026-07-14" || p[0].To != "2026-07-14" {
			t.Fatalf("datePriors %+v, want 2026-07-14", p)
		}
		for _, r := range resp.Results {
			want := 1.0
			if *r.Date == "2026-07-14" {
				want = 1.3 // a single day
			}
			if got := r.ScoreComponents["datePrior"]; got != want {
				t.Errorf("%s dated %s: datePrior %v, want %v", r.SourceID, *r.Date, got, want)
			}
		}
	})
	t.Run("UTC", func(t *testing.T) {
		// The same memories for a user in UTC: the 00:30 Tokyo note is of
		// the 13th there.
		check(t, ask(t, engineIn(time.UTC), snap, api.SearchRequest{Query: query, Filters: api.Filters{Date: "2026-07-13"}}), map[string]when{
			"late-note": {"2026-07-13", "2026-07-13 14:30"}, "early-note": {"2026-07-13", "2026-07-13 15:30"},
			"utc-export": {"2026-07-13", "2026-07-13 16:00"}})
	})
}

// TestNoImplicitLocalZone: an engine without a Location works in UTC,
// whatever the machine's zone.
func TestNoImplicitLocalZone(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	saved := time.Local
	time.Local = tokyo
	t.Cleanup(func() { time.Local = saved })
	snap := build(t, config.Source{Name: "ops", Kind: config.KindJSONL, Path: "zones"})
	e := search.New(search.Config{Dense: true, Now: func() time.Time { return time.Date(2026, 7, 14, 20, 0, 0, 0, time.UTC) }}, lexical.NewAnalyzer())
	resp := ask(t, e, snap, api.SearchRequest{Query: "billing cluster deploy yesterday"})
	if p := resp.QueryPlan.DatePriors; len(p) != 1 || p[0].From != "2026-07-13" {
		t.Errorf("datePriors %+v, want UTC's yesterday 2026-07-13", p)
	}
	if i := rank(resp, "early-note"); i < 0 || deref(resp.Results[i].Timestamp) != "2026-07-13 15:30" {
		t.Errorf("early-note's timestamp is not in UTC: %v", ids(resp))
	}
}
