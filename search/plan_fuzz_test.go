package search

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzMakePlan: the planner never panics, bounds its key terms, and every
// key term and anchor is lower case and non-empty.
func FuzzMakePlan(f *testing.F) {
	for _, seed := range []string{
		"Why was port 2096 unavailable?", "2096 端口为什么不可用？", "Batch C 运维可恢复性",
		"Review src/actanara/update.py RC-204 SQL rollback", `"quoted phrase" and v1.4.0 on 10.0.0.1`,
		"WHY IS WAL unavailable", "recipe pipeline description", "", "   ", "\x00\xff", "🙂🙂", "a/b/c/../d",
		"how many times did the deploy fail latest", "TokenClock publicBaseUrl 3f2a9c1 2026-06-04",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, q string) {
		p := MakePlan(q)
		if len(p.KeyTerms) > maxKeyTerms {
			t.Fatalf("%d key terms", len(p.KeyTerms))
		}
		if strings.Contains(p.Query, "  ") {
			t.Fatalf("query not whitespace-normalised: %q", p.Query)
		}
		for _, list := range [][]string{p.KeyTerms, p.Anchors} {
			for _, k := range list {
				if k == "" || (utf8.ValidString(k) && strings.ToLower(k) != k && strings.ToUpper(k) != strings.ToLower(k)) {
					t.Fatalf("bad term %q in %v", k, list)
				}
			}
		}
		if len(p.SubQueries) == 0 || p.SubQueries[0].ID != "Q0" {
			t.Fatalf("subqueries %v", p.SubQueries)
		}
		if p.RecencyBias != "strong" && p.RecencyBias != "normal" {
			t.Fatalf("recency %q", p.RecencyBias)
		}
	})
}

// FuzzParseDates: the date parser never panics, returns at most
// maxDateSpans spans, and every span is two valid days in order.
func FuzzParseDates(f *testing.F) {
	for _, seed := range []string{
		"in August 2023", "上周三", "2023年8月14号", "two months ago", "last March", "8 May, 2023", "十二月",
		"最近三天", "２０２３年８月", "2026-13-45", "February 30", "in 9999", "上上个月", "\x00月", "",
	} {
		f.Add(seed)
	}
	now := time.Date(2026, 1, 7, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, q string) {
		spans := ParseDates(q, now)
		if len(spans) > maxDateSpans {
			t.Fatalf("%d spans", len(spans))
		}
		for _, s := range spans {
			from, err1 := time.Parse(time.DateOnly, s.From)
			to, err2 := time.Parse(time.DateOnly, s.To)
			if err1 != nil || err2 != nil || to.Before(from) {
				t.Fatalf("bad span %+v for %q", s, q)
			}
		}
	})
}
