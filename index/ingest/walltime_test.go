package ingest

import (
	"testing"
	"time"
)

// TestParseDate_skippedWallClock: a time written without an offset that
// the zone's change to daylight saving time skips (02:30 in New York on
// 8 March 2026; 00:30 in Santiago and Havana, where the change skips
// midnight) is read as the clock shows it after the change, an hour on,
// as Java's ZonedDateTime and JavaScript's Temporal read it. Go's
// time.Date moved it back an hour in some zones and forward in others:
// in Santiago and Havana the memory was dated the day before, at 23:30.
func TestParseDate_skippedWallClock(t *testing.T) {
	zone := func(name string) *time.Location {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Skip("no time zone database:", err)
		}
		return loc
	}
	for _, c := range []struct {
		zone, date string
		day, utc   string
	}{
		{"America/Santiago", `"2026-09-06T00:30:00"`, "2026-09-06", "2026-09-06T04:30:00Z"},
		{"America/Havana", `"2026-03-08 00:30"`, "2026-03-08", "2026-03-08T05:30:00Z"},
		{"America/New_York", `"2026-03-08T02:30"`, "2026-03-08", "2026-03-08T07:30:00Z"},
		{"Europe/Berlin", `"2026-03-29 02:30:00"`, "2026-03-29", "2026-03-29T01:30:00Z"},
		{"Australia/Lord_Howe", `"2026-10-04T02:15"`, "2026-10-04", "2026-10-03T15:45:00Z"},
		{"Pacific/Chatham", `"2026-09-27 02:50:00"`, "2026-09-27", "2026-09-26T14:05:00Z"},
		// Times the change does not skip are as they were.
		{"America/Santiago", `"2026-09-06T01:30:00"`, "2026-09-06", "2026-09-06T04:30:00Z"},
		{"America/New_York", `"2026-03-08T01:59"`, "2026-03-08", "2026-03-08T06:59:00Z"},
		{"Asia/Kolkata", `"2026-03-08T00:30"`, "2026-03-08", "2026-03-07T19:00:00Z"},
	} {
		loc := zone(c.zone)
		rec, reason, err := parseJSONLLine([]byte(`{"id":"e1","text":"deploy","date":`+c.date+`}`), loc)
		if err != nil || reason != "" {
			t.Fatalf("%s %s: %q, %v", c.zone, c.date, reason, err)
		}
		if got := rec.Time.UTC().Format(time.RFC3339); rec.Date != c.day || got != c.utc {
			t.Errorf("%s %s: dated %s at %s, want %s at %s", c.zone, c.date, rec.Date, got, c.day, c.utc)
		}
		// Cursor's <timestamp> tag without a zone is read alike.
		if got, ok := cursorTime(c.date[1:len(c.date)-1], loc); !ok || got.UTC().Format(time.RFC3339) != c.utc {
			t.Errorf("cursorTime %s %s = %v, %v; want %s", c.zone, c.date, got, ok, c.utc)
		}
	}
	if got, ok := cursorTime("Sunday, Sep 6, 2026, 12:30 AM", zone("America/Santiago")); !ok || got.UTC().Format(time.RFC3339) != "2026-09-06T04:30:00Z" {
		t.Errorf("cursorTime of a <timestamp> tag in Santiago = %v, %v; want 2026-09-06T04:30:00Z", got, ok)
	}
}
