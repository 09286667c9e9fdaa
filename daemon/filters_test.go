package daemon_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/daemon"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/internal/novatest"
)

// filterNovad indexes records (jsonl lines) into a fresh home and serves
// it in zone; it returns the direct and facade search URLs.
func filterNovad(t *testing.T, zone *time.Location, records ...string) (direct, facade string) {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join(root, "memory.jsonl")
	novatest.Must(t, os.WriteFile(src, []byte(strings.Join(records, "\n")+"\n"), 0o600))
	cfg := testConfig(t, filepath.Join(root, "home"), config.Source{Name: "m", Kind: config.KindJSONL, Path: src, SourceSet: "notes"})
	if _, err := index.New(cfg, index.Options{NoRemote: true}).Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, daemon.Options{Config: cfg, Logger: slog.New(slog.DiscardHandler), Location: zone})
	waitServing(t, "http://"+srv.DirectAddr().String())
	return "http://" + srv.DirectAddr().String() + api.PathSearch, "http://" + srv.FacadeAddr().String() + api.PathFacadeSearch
}

// searchIDs posts body to url and returns the status, the envelope and
// the source ids of its results, in order.
func searchIDs(t *testing.T, url, body string) (int, api.SearchResponse, []string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	novatest.Must(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	novatest.Must(t, err)
	var env api.SearchResponse
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatalf("%s %s: %d %s: %v", url, body, resp.StatusCode, b, err)
	}
	ids := []string{}
	for _, r := range env.Results {
		ids = append(ids, r.SourceID)
	}
	slices.Sort(ids)
	return resp.StatusCode, env, ids
}

// TestSearch_dateBoundAsTimeIsTheUsersDay: a date filter given as a time
// with an offset means the day that time falls on where the user is
// (novad's zone, the zone memories' days are given in), not the day the
// offset's own clock showed. In Tokyo, 2026-06-08T15:00:00Z is midnight
// beginning 9 June: "from" it leaves out the memories of 8 June. It was
// cut to its first ten characters, 8 June; and a range from 01:00 Tokyo
// to 20:00 UTC the same Tokyo day was refused as reversed.
func TestSearch_dateBoundAsTimeIsTheUsersDay(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	direct, facade := filterNovad(t, tokyo,
		`{"id":"e","text":"Deploy rollback of the billing canary.","date":"2026-06-08T01:30:00Z"}`,       // Tokyo 8 June 10:30
		`{"id":"f","text":"Deploy of the billing canary after midnight.","date":"2026-06-08T16:00:00Z"}`, // Tokyo 9 June 01:00
	)
	for _, url := range []string{direct, facade} {
		for _, tc := range []struct {
			filter string
			want   []string
			day    string // the day explicitFilters reports
			dayOf  func(api.ExplicitFilters) *string
		}{
			{`"dateRange":{"from":"2026-06-08T15:00:00Z"}`, []string{"f"}, "2026-06-09", func(f api.ExplicitFilters) *string { return f.DateFrom }},
			{`"dateRange":{"to":"2026-06-08T14:59:59Z"}`, []string{"e"}, "2026-06-08", func(f api.ExplicitFilters) *string { return f.DateTo }},
			{`"date":"2026-06-08T16:30:00Z"`, []string{"f"}, "2026-06-09", func(f api.ExplicitFilters) *string { return f.Date }},
			{`"date":"2026-06-09T08:00:00+09:00"`, []string{"f"}, "2026-06-09", func(f api.ExplicitFilters) *string { return f.Date }},
			{`"dateRange":{"from":"2026-06-09T01:00:00+09:00","to":"2026-06-08T20:00:00Z"}`, []string{"f"}, "2026-06-09", func(f api.ExplicitFilters) *string { return f.DateTo }},
			{`"dateRange":{"from":"2026-06-08","to":"2026-06-08"}`, []string{"e"}, "2026-06-08", func(f api.ExplicitFilters) *string { return f.DateFrom }},
		} {
			status, env, ids := searchIDs(t, url, `{"query":"deploy billing canary",`+tc.filter+`}`)
			day := tc.dayOf(explicitFilters(t, env))
			if status != http.StatusOK || !slices.Equal(ids, tc.want) || day == nil || *day != tc.day {
				t.Errorf("%s %s: %d %s results %v, filter day %v; want 200, %v, %s", url, tc.filter, status, api.StringOr(env.Reason, ""), ids, api.StringOr(day, "(none)"), tc.want, tc.day)
			}
		}
	}
}

// TestSearch_dateRangeOfADayAndATime: a range from a day to a time (an
// agent's "today so far": the user's date, and now as UTC) is of the
// days they name where the user is. In Berlin at 01:30 on 9 June, now is
// 2026-06-08T23:30:00Z: the range from 2026-06-09 to it is 9 June. It was
// refused as reversed, the time's day read on its own clock (8 June);
// only a range reversed in every zone is.
func TestSearch_dateRangeOfADayAndATime(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	direct, facade := filterNovad(t, berlin,
		`{"id":"e","text":"Deploy rollback of the billing canary.","date":"2026-06-08T12:00:00Z"}`,       // Berlin 8 June 14:00
		`{"id":"f","text":"Deploy of the billing canary after midnight.","date":"2026-06-08T22:45:00Z"}`, // Berlin 9 June 00:45
	)
	for _, url := range []string{direct, facade} {
		for _, tc := range []struct {
			filter string
			status int
			want   []string
		}{
			{`"dateRange":{"from":"2026-06-09","to":"2026-06-08T23:30:00Z"}`, http.StatusOK, []string{"f"}},
			{`"dateFrom":"2026-06-08T23:30:00-04:00","dateTo":"2026-06-09"`, http.StatusOK, []string{"f"}},
			{`"date":"2026-06-09","dateTo":"2026-06-08T23:30:00Z"`, http.StatusOK, []string{"f"}},
			{`"dateRange":{"from":"2026-06-11","to":"2026-06-08T23:30:00Z"}`, http.StatusUnprocessableEntity, []string{}},
		} {
			status, env, ids := searchIDs(t, url, `{"query":"deploy billing canary",`+tc.filter+`}`)
			if status != tc.status || !slices.Equal(ids, tc.want) {
				t.Errorf("%s %s: %d %s results %v; want %d, %v", url, tc.filter, status, api.StringOr(env.Reason, ""), ids, tc.status, tc.want)
			}
		}
	}
}

// explicitFilters are the filters env's queryPlan reports.
func explicitFilters(t *testing.T, env api.SearchResponse) api.ExplicitFilters {
	t.Helper()
	var f api.ExplicitFilters
	b, err := json.Marshal(env.QueryPlan.ExplicitFilters)
	novatest.Must(t, err)
	novatest.Must(t, json.Unmarshal(b, &f))
	return f
}

// TestSearch_filterValuesAsUnicodeText: a filter value matches the
// indexed value that is the same text in another Unicode form. A folder
// named Café on macOS gives the project its decomposed form (e and a
// combining accent) while a keyboard types the composed é: the filter
// found nothing. Memories under both forms are found by either. Case
// still counts: filter values are raw machine values (conformance 3.2).
func TestSearch_filterValuesAsUnicodeText(t *testing.T) {
	const composed, decomposed = "Caf\u00e9", "Cafe\u0301"
	direct, facade := filterNovad(t, time.UTC,
		`{"id":"nfd","text":"Deploy notes for the café site.","project":"`+decomposed+`","tags":["na\u0131ve","re\u0301sume\u0301"]}`,
		`{"id":"nfc","text":"Deploy checklist for the café site.","project":"`+composed+`","agent":"h\u00e9rmes"}`,
		`{"id":"other","text":"Deploy notes for the bakery site.","project":"Bakery","agent":"he\u0301rmes","tags":["r\u00e9sum\u00e9"]}`,
	)
	for _, url := range []string{direct, facade} {
		for _, tc := range []struct {
			filter string
			want   []string
		}{
			{`"project":"` + composed + `"`, []string{"nfc", "nfd"}},
			{`"project":"` + decomposed + `"`, []string{"nfc", "nfd"}},
			{`"project":"caf\u00e9"`, []string{}},
			{`"agent":"h\u00e9rmes"`, []string{"nfc", "other"}},
			{`"tags":["r\u00e9sum\u00e9"]`, []string{"nfd", "other"}},
			{`"tags":"re\u0301sume\u0301","project":"` + composed + `"`, []string{"nfd"}},
			{`"project":"` + composed + `","agent":"he\u0301rmes"`, []string{"nfc"}},
		} {
			status, env, ids := searchIDs(t, url, `{"query":"deploy site",`+tc.filter+`}`)
			if status != http.StatusOK || !slices.Equal(ids, tc.want) {
				t.Errorf("%s %s: %d %s results %v; want 200, %v", url, tc.filter, status, api.StringOr(env.Reason, ""), ids, tc.want)
			}
		}
	}
}

// TestSearch_hugeNumbers: a number too large to be meant exactly is as
// large as the field allows, not an error: a latency budget of 1e30 ms
// is the 60 s cap (a budget only lowers it), a remainingBudgetMs of 1e15
// leaves the facade its whole budget, and the facade clamps a topK of
// 1e300 to 20 as it clamps 25. Numbers past 1e12 were refused, topK's as
// "must be an integer". The direct server still refuses a topK outside 1
// to 20, saying so.
func TestSearch_hugeNumbers(t *testing.T) {
	direct, facade := filterNovad(t, time.UTC, `{"id":"a","text":"The staging deploy listens on port 42017."}`)
	for _, tc := range []struct {
		url, body string
		topK      int
		budgetMs  int
	}{
		{direct, `{"query":"staging deploy","latency_budget_ms":1e30}`, 8, 60000},
		{facade, `{"query":"staging deploy","latencyBudgetMs":1e30}`, 8, 60000},
		{facade, `{"query":"staging deploy","remainingBudgetMs":1e15}`, 8, 60000},
		{facade, `{"query":"staging deploy","topK":1e300}`, 20, 60000},
		{facade, `{"query":"staging deploy","topK":-1e300}`, 1, 60000},
		{facade, `{"query":"staging deploy","topK":99999999999999999999}`, 20, 60000},
	} {
		status, env, ids := searchIDs(t, tc.url, tc.body)
		if status != http.StatusOK || !env.Available || env.TopK != tc.topK || env.RetrievalController.LatencyBudgetMs != tc.budgetMs || len(ids) != 1 {
			t.Errorf("%s %s: %d %s topK %d budget %d results %v; want 200, topK %d, budget %d, one result",
				tc.url, tc.body, status, api.StringOr(env.Reason, ""), env.TopK, env.RetrievalController.LatencyBudgetMs, ids, tc.topK, tc.budgetMs)
		}
	}
	status, env, _ := searchIDs(t, direct, `{"query":"staging deploy","top_k":1e300}`)
	if status != http.StatusUnprocessableEntity || !strings.Contains(env.Error, "from 1 to 20") {
		t.Errorf("direct top_k 1e300: %d %q; want 422 saying from 1 to 20", status, env.Error)
	}
}
