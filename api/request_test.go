package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestDecodeSearchRequest_budgetMilliseconds: remainingBudgetMs and
// latencyBudgetMs are numbers of milliseconds, and a client's clock gives
// fractions (performance.now() in JavaScript, time.monotonic() * 1000 in
// Python): a fraction is rounded down, never up, so the budget is never
// overrun. Only what is not a number is refused (ARCHITECTURE: "a
// non-numeric value is a 400"); 30000.5 was refused as "must be a number
// of milliseconds" while the string "30000" was taken.
func TestDecodeSearchRequest_budgetMilliseconds(t *testing.T) {
	for _, tc := range []struct {
		body              string
		remaining, status int // remaining -1: not sent
		latency           int
	}{
		{`{"query":"q","remainingBudgetMs":30000.5}`, 30000, 0, 0},
		{`{"query":"q","remainingBudgetMs":199.99}`, 199, 0, 0},
		{`{"query":"q","remainingBudgetMs":0.4}`, 0, 0, 0},
		{`{"query":"q","remainingBudgetMs":-3.5}`, 0, 0, 0},
		{`{"query":"q","remainingBudgetMs":1e4}`, 10000, 0, 0},
		{`{"query":"q","remainingBudgetMs":"soon"}`, -1, 400, 0},
		{`{"query":"q","remainingBudgetMs":true}`, -1, 400, 0},
		{`{"query":"q","remainingBudgetMs":[1]}`, -1, 400, 0},
		{`{"query":"q","latencyBudgetMs":1500.7}`, -1, 0, 1500},
		{`{"query":"q","latency_budget_ms":250.2}`, -1, 0, 250},
		{`{"query":"q","latencyBudgetMs":"fast"}`, -1, 422, 0},
	} {
		req, err := DecodeSearchRequest([]byte(tc.body), Facade, DefaultTopK)
		switch {
		case tc.status != 0:
			if err == nil || err.Status != tc.status {
				t.Errorf("%s: %v, want %d", tc.body, err, tc.status)
			}
			continue
		case err != nil:
			t.Errorf("%s: refused: %v", tc.body, err)
			continue
		}
		got := -1
		if req.RemainingBudgetMs != nil {
			got = *req.RemainingBudgetMs
		}
		if got != tc.remaining || req.LatencyBudgetMs != tc.latency {
			t.Errorf("%s: remaining %d latency %d, want %d and %d", tc.body, got, req.LatencyBudgetMs, tc.remaining, tc.latency)
		}
	}
}

// TestDecodeSearchRequest_topK (conformance 1.20, 1.21): the facade clamps
// topK (alias top_k) into [1, 20] and takes the configured default when
// it is absent or 0; the direct server refuses a top_k outside [1, 20]
// with 422 and takes the configured default when it is absent.
func TestDecodeSearchRequest_topK(t *testing.T) {
	for _, tc := range []struct {
		surface Surface
		body    string
		want    int // 0: refused with 422
	}{
		{Facade, `{"query":"q"}`, 11},
		{Facade, `{"query":"q","topK":0}`, 11},
		{Facade, `{"query":"q","topK":25}`, 20},
		{Facade, `{"query":"q","topK":-3}`, 1},
		{Facade, `{"query":"q","top_k":7}`, 7},
		{Facade, `{"query":"q","topK":1e9}`, 20},
		{Direct, `{"query":"q"}`, 11},
		{Direct, `{"query":"q","top_k":1}`, 1},
		{Direct, `{"query":"q","top_k":20}`, 20},
		{Direct, `{"query":"q","top_k":-1}`, 0},
		{Direct, `{"query":"q","top_k":0}`, 0},
		{Direct, `{"query":"q","top_k":21}`, 0},
		{Direct, `{"query":"q","top_k":1000000}`, 0},
	} {
		req, err := DecodeSearchRequest([]byte(tc.body), tc.surface, 11)
		switch {
		case tc.want == 0 && (err == nil || err.Status != 422 || err.TopK > MaxTopK):
			t.Errorf("surface %d %s: %+v, %v, want 422", tc.surface, tc.body, req, err)
		case tc.want != 0 && (err != nil || req.TopK != tc.want):
			t.Errorf("surface %d %s: topK %d, %v, want %d", tc.surface, tc.body, req.TopK, err, tc.want)
		}
	}
	// A configured default outside the bounds is not used.
	if req, err := DecodeSearchRequest([]byte(`{"query":"q"}`), Facade, 30); err != nil || req.TopK != DefaultTopK {
		t.Errorf("default 30: topK %d, %v", req.TopK, err)
	}
}

// TestDecodeSearchRequest_dateOutsideItsRange: a date outside the range
// sent with it can match no memory, as a reversed range cannot, and is
// refused as one is: it was accepted, and the search found nothing, which
// an agent reads as nothing remembered.
func TestDecodeSearchRequest_dateOutsideItsRange(t *testing.T) {
	for _, tc := range []struct {
		body string
		ok   bool
	}{
		{`{"query":"q","date":"2026-01-01","dateTo":"2025-12-31"}`, false},
		{`{"query":"q","date":"2026-01-01","dateRange":{"from":"2026-01-02"}}`, false},
		{`{"query":"q","date":"2025-12-31T08:00:00-05:00","date_from":"2026-01-02"}`, false},
		// 23:00 in New York is 2 January east of UTC-04:00: the user's
		// zone decides, and the request does not say it.
		{`{"query":"q","date":"2026-01-01T23:00:00-05:00","date_from":"2026-01-02"}`, true},
		{`{"query":"q","date":"2026-01-01","dateRange":{"from":"2026-01-01","to":"2026-01-01"}}`, true},
		{`{"query":"q","date":"2026-01-15","dateRange":{"from":"2026-01-01","to":"2026-01-31"}}`, true},
		{`{"query":"q","date":"2026-01-15","dateTo":"2026-01-15"}`, true},
	} {
		req, err := DecodeSearchRequest([]byte(tc.body), Facade, DefaultTopK)
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: refused: %v", tc.body, err)
		case !tc.ok && (err == nil || err.Status != 422 || err.Field != "date"):
			t.Errorf("%s: %+v, %v; want 422 naming date", tc.body, req.Filters, err)
		}
	}
}

// TestDayIn: a time names the day it falls on in the zone asked about, a
// date itself anywhere; a time whose day there is past the years a date
// filter writes (0000 to 9999) is the first or last of them, not a day
// such as "10000-01-01", which compares as a string before all others.
func TestDayIn(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"2026-06-08", "2026-06-08", true},
		{" 2026-06-08 ", "2026-06-08", true},
		{"2026-06-08T15:00:00Z", "2026-06-09", true},
		{"2026-06-09T08:59:59+09:00", "2026-06-09", true},
		{"2026-06-08T23:30:00-07:00", "2026-06-09", true},
		{"9999-12-31T20:00:00Z", "9999-12-31", true},
		{"0000-01-01T00:30:00+14:00", "0000-01-01", true},
		{"2026-06-08T15:00:00", "", false},
		{"2026-02-30", "", false},
	} {
		got, ok := DayIn(tc.in, tokyo)
		if got != tc.want || ok != tc.ok {
			t.Errorf("DayIn(%q, Tokyo) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestDecodeSearchRequest_queryRequired: a missing, null or blank query is
// refused with the reason "query is required" on both surfaces, with the
// code each was written against: 400 on the facade (conformance 2.1), 422
// on the direct server, as upstream's framework validation answers
// (conformance 1.20).
func TestDecodeSearchRequest_queryRequired(t *testing.T) {
	for _, body := range []string{`{}`, `{"query":null}`, `{"query":"  \t "}`, `{"top_k":3}`} {
		for surface, status := range map[Surface]int{Facade: 400, Direct: 422} {
			_, err := DecodeSearchRequest([]byte(body), surface, DefaultTopK)
			if err == nil || err.Status != status || err.Reason != ReasonQueryRequired {
				t.Errorf("surface %d %s: %+v, want %d %q", surface, body, err, status, ReasonQueryRequired)
			}
		}
	}
}

// asciiJSON writes s as a JSON string of ASCII only, each other
// character escaped (\u00e9, a surrogate pair for an emoji), as Python's
// json.dumps does by default: the longest body a query makes.
func asciiJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(&b, "\\u%04x\\u%04x", 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		case r < 0x20 || r > 0x7e || r == '"' || r == '\\':
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestDecodeSearchRequest_queryLength: a query of MaxQueryRunes
// characters, whatever they are, fits the body limit and is searched on
// both surfaces; one more is refused with 422 on the query field, which
// the contract names; white space a paste repeats is not counted.
func TestDecodeSearchRequest_queryLength(t *testing.T) {
	if got := NewContract(nil).SearchRequest.Query.MaxCharacters; got != MaxQueryRunes {
		t.Errorf("the contract's searchRequest.query.maxCharacters is %d, want %d", got, MaxQueryRunes)
	}
	for _, unit := range []string{"a", "界", "🚀", "\x01", "\""} {
		for _, surface := range []Surface{Facade, Direct} {
			q := strings.Repeat(unit, MaxQueryRunes)
			body := `{"query":` + asciiJSON(q) + `,"topK":20,"dateRange":{"from":"2026-01-01","to":"2026-12-31"},"project":"nova"}`
			if len(body) > MaxSearchBodyBytes {
				t.Fatalf("%q: a query at the limit makes a body of %d bytes, more than the %d read", unit, len(body), MaxSearchBodyBytes)
			}
			if req, err := DecodeSearchRequest([]byte(body), surface, DefaultTopK); err != nil || req.Query != q {
				t.Errorf("%q at the limit: %v", unit, err)
			}
			body = `{"query":` + asciiJSON(q+unit) + `}`
			_, err := DecodeSearchRequest([]byte(body), surface, DefaultTopK)
			if err == nil || err.Status != http.StatusUnprocessableEntity || err.Field != "query" {
				t.Errorf("%q past the limit: %v, want 422 on query", unit, err)
			}
		}
	}
	spaced := strings.Repeat("a \n\t ", MaxQueryRunes/2)
	if req, err := DecodeSearchRequest([]byte(`{"query":`+asciiJSON(spaced)+`}`), Facade, DefaultTopK); err != nil || len([]rune(req.Query)) != MaxQueryRunes-1 {
		t.Errorf("a paste of %d characters with repeated white space: %v", len(spaced), err)
	}
}
