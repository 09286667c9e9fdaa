package search_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/search"
)

// TestDateFilter_localDayEverywhere: the date filters keep exactly the
// memories whose local day (the day a result shows) is within the bounds,
// in zones far east and west, across daylight-saving changes (New York,
// Lord Howe's half hour, Havana's that skips midnight: its 8 March 2026
// begins at 01:00) and for memories stamped in other zones or with a
// bare day; and the same snapshot serves engines in different zones, in
// turn, with the same answers, whether the filter is worked out on one
// goroutine or spread over several (the second round).
func TestDateFilter_localDayEverywhere(t *testing.T) {
	var zones []*time.Location
	for _, name := range []string{"UTC", "Asia/Tokyo", "America/New_York", "Australia/Lord_Howe", "Pacific/Kiritimati", "Pacific/Pago_Pago", "America/Havana"} {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Skip("no time zone database:", err)
		}
		zones = append(zones, loc)
	}
	// Memories every few hours around 2026's March and April
	// daylight-saving changes, stamped in one of several offsets, and some
	// with a day alone.
	r := rand.New(rand.NewPCG(7, 11))
	offsets := []*time.Location{time.UTC, time.FixedZone("+09:00", 9*3600), time.FixedZone("-05:00", -5*3600),
		time.FixedZone("+14:00", 14*3600), time.FixedZone("-11:00", -11*3600), time.FixedZone("+10:30", 10*3600+1800)}
	var lines []string
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range 400 {
		at := start.Add(time.Duration(r.IntN(50*24*60)) * time.Minute)
		date := at.Format(time.DateOnly)
		if i%5 != 0 {
			date = at.In(offsets[r.IntN(len(offsets))]).Format(time.RFC3339)
		}
		lines = append(lines, fmt.Sprintf(`{"id":"m-%d","date":%q,"text":"Deploy note %d about the billing cluster."}`, i, date, i))
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "notes.jsonl")
	if err := os.WriteFile(src, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: filepath.Join(dir, "home")}
	cfg.Sources = []config.Source{{Name: "notes", Kind: config.KindJSONL, Path: src}}
	if _, err := index.New(cfg, index.Options{NoRemote: true}).Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, g, err := index.OpenActive(context.Background(), cfg.Home, lexical.NewAnalyzer())
	if err != nil {
		t.Fatal(err)
	}
	snap := &search.Snapshot{Gen: g}
	for round := range 2 { // the second round reads what the first remembered
		for _, loc := range zones {
			e := search.New(search.Config{Location: loc, ConcurrentPassMin: round}, lexical.NewAnalyzer())
			// Each memory's local day, asked of the engine once: decoding
			// a chunk for every filter was nearly all of the test's time
			// under the race detector (36 s).
			days := make([]string, g.Len())
			for doc := range days {
				days[doc] = e.LocalDay(g.Chunk(doc))
			}
			for range 40 {
				from := start.AddDate(0, 0, r.IntN(50)).Format(time.DateOnly)
				to := start.AddDate(0, 0, r.IntN(50)).Format(time.DateOnly)
				for _, f := range []api.Filters{{DateFrom: min(from, to), DateTo: max(from, to)}, {Date: from}, {DateFrom: from}, {DateTo: to}} {
					accept := e.HardFilter(snap, f)
					lo, hi := f.DateFrom, f.DateTo
					if f.Date != "" {
						lo, hi = f.Date, f.Date
					}
					for doc, day := range days {
						want := day != "" && (lo == "" || day >= lo) && (hi == "" || day <= hi)
						if got := accept(doc); got != want {
							t.Fatalf("round %d, %s, filter %+v: %s (local day %s) accepted %v, want %v",
								round, loc, f, g.ID(doc), day, got, want)
						}
					}
				}
			}
		}
	}
}

// TestDateFilter_farBounds: a range open in practice, "9999-12-31" or
// "0001-01-01" (a request allows any calendar day), keeps every dated
// memory. The widened bound of 9999-12-31, two days on, was written
// "10000-01-02", which sorts before every stored day: nothing matched.
func TestDateFilter_farBounds(t *testing.T) {
	snap := build(t, config.Source{Name: "ops", Kind: config.KindJSONL, Path: "zones"})
	e := search.New(search.Config{Location: time.UTC}, lexical.NewAnalyzer())
	for _, f := range []api.Filters{{DateTo: "9999-12-31"}, {DateFrom: "0001-01-01"}, {DateFrom: "0001-01-01", DateTo: "9999-12-31"}, {DateFrom: "2026-01-01", DateTo: "9999-12-30"}} {
		accept := e.HardFilter(snap, f)
		for doc := range snap.Gen.Len() {
			if !accept(doc) {
				t.Errorf("filter %+v refuses %s (day %s)", f, snap.Gen.ID(doc), e.LocalDay(snap.Gen.Chunk(doc)))
			}
		}
	}
}
