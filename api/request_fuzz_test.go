package api

import (
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzDecodeSearchRequest: whatever the body, the decoder never panics,
// and either returns a request the engine can run or a refusal with a
// status the contract allows.
func FuzzDecodeSearchRequest(f *testing.F) {
	for _, seed := range []string{
		`{"query":"dashboard port","topK":5}`,
		`{"query":"x","top_k":25,"dateRange":{"from":"2026-06-01","to":"2026-06-06"},"project":"p","sourceSets":["a","a"],"lifecycle":"current-state","workType":["task"],"tags":"coding","remainingBudgetMs":500}`,
		`{}`, `[]`, `{"query":`, `{"query":"a","query":"b"}`, `{"query":"a"}garbage`, `{"query":7}`,
		`{"query":"a","remainingBudgetMs":"soon"}`, `{"query":"a","date":"2026-13-40"}`, `{"query":"\u0000"}`,
		`{"query":"a","date":"2026-01-01","dateTo":"2025-12-31"}`, `{"query":"a","topK":1e300}`, `{"query":"a","topK":2.5}`,
		`{"query":"a","dateRange":{"from":"2026-06-09T01:00:00+09:00","to":"2026-06-08T20:00:00Z"}}`, `{"query":"a","date":"2026-06-08T23:30:00-07:00"}`, `{"Query":"case"}`, "\xff\xfe",
	} {
		f.Add([]byte(seed), true)
		f.Add([]byte(seed), false)
	}
	f.Fuzz(func(t *testing.T, body []byte, facade bool) {
		surface := Direct
		if facade {
			surface = Facade
		}
		req, err := DecodeSearchRequest(body, surface, DefaultTopK)
		if err != nil {
			switch err.Status {
			case http.StatusBadRequest, http.StatusUnprocessableEntity:
			default:
				t.Fatalf("status %d for %q", err.Status, body)
			}
			if err.TopK < MinTopK || err.TopK > MaxTopK {
				t.Fatalf("refusal topK %d out of bounds", err.TopK)
			}
			return
		}
		if req.Query == "" || strings.TrimSpace(req.Query) != req.Query || !utf8.ValidString(req.Query) {
			t.Fatalf("accepted query %q", req.Query)
		}
		if req.TopK < MinTopK || req.TopK > MaxTopK {
			t.Fatalf("accepted topK %d", req.TopK)
		}
		// A date is a day or a time (Filters), each a value DayIn reads.
		for _, d := range []string{req.Filters.Date, req.Filters.DateFrom, req.Filters.DateTo} {
			if d != "" {
				if _, ok := DayIn(d, time.UTC); !ok || strings.TrimSpace(d) != d {
					t.Fatalf("accepted date %q", d)
				}
			}
		}
		if f := req.Filters; f.DateFrom != "" && f.DateTo != "" && DateBoundAfter(f.DateFrom, f.DateTo) ||
			f.Date != "" && (f.DateFrom != "" && DateBoundAfter(f.DateFrom, f.Date) || f.DateTo != "" && DateBoundAfter(f.Date, f.DateTo)) {
			t.Fatalf("accepted dates that match nothing: %+v", f)
		}
		if req.RemainingBudgetMs != nil && *req.RemainingBudgetMs < 0 {
			t.Fatalf("negative budget")
		}
	})
}
