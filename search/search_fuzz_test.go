package search_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/contracttest"
)

// FuzzSearch runs whatever an agent may send through the whole engine
// over a real generation: any query text (any script, any bytes the
// request decoder lets through), filters and topK. A search never fails
// or panics (a panic in one of its goroutines would take novad down,
// past any recovering middleware), its response matches the contract
// schema, and it returns at most topK results, each within the hard
// filters asked for.
func FuzzSearch(f *testing.F) {
	for _, q := range []string{
		"why was port 2096 unavailable", "迁移后定时任务为什么失败", `"WAL rollback" V1-A-029`,
		"what did codex do yesterday", "上周 8月 两个月前", "", " ", "a", "the of and", "\u0000\ufffd",
		"project:infra tag:lesson", "2026-06-04", "((((", "how long ago did we ship in August 2023",
	} {
		f.Add(q, "", int16(-1), int16(-1), uint8(5))
	}
	f.Add("port", "infra", int16(150), int16(180), uint8(3))
	f.Add("rollback", "nova", int16(-1), int16(400), uint8(1))
	f.Fuzz(func(t *testing.T, query, project string, fromDay, toDay int16, topK uint8) {
		// Dates as days into 2026 (negative: no bound), so that the
		// searches the decoder lets through are many.
		day := func(n int16) string {
			if n < 0 {
				return ""
			}
			return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(n)).Format(time.DateOnly)
		}
		body, err := json.Marshal(api.SearchBody{Query: query, Project: project, TopK: int(topK),
			DateRange: &api.DateRange{From: day(fromDay), To: day(toDay)}})
		if err != nil {
			return
		}
		req, reqErr := api.DecodeSearchRequest(body, api.Facade, 8)
		if reqErr != nil {
			return // refused with a named error: the daemon's tests cover that path
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		resp, err := engine().Search(ctx, snapshot(t), req)
		if err != nil {
			t.Fatalf("search %q: %v", query, err)
		}
		b, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		if err := contracttest.Validate(contracttest.SearchResponse, b, false); err != nil {
			t.Fatalf("search %q: response off the contract: %v", query, err)
		}
		if len(resp.Results) > req.TopK {
			t.Fatalf("search %q: %d results for topK %d", query, len(resp.Results), req.TopK)
		}
		fl := req.Filters
		for _, r := range resp.Results {
			project, date := deref(r.Project), deref(r.Date)
			// The same text in another Unicode form is the same project
			// (filterforms.go).
			if fl.Project != "" && norm.NFC.String(project) != norm.NFC.String(fl.Project) {
				t.Fatalf("search %q: result %s of project %q outside the filter %q", query, r.ID, project, fl.Project)
			}
			if fl.DateFrom != "" && date < fl.DateFrom || fl.DateTo != "" && date > fl.DateTo {
				t.Fatalf("search %q: result %s dated %q outside %s..%s", query, r.ID, date, fl.DateFrom, fl.DateTo)
			}
		}
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
