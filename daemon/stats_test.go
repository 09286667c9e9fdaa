package daemon_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/daemon"
	"github.com/nova-recall/nova/index"
)

// TestStatsDateRange_localDays: /stats' dateRange spans the same days
// search gives its results and filters by, the days in novad's time zone,
// not the days the sources wrote. In Tokyo (UTC+9) the first memory, made
// at 16:00 UTC on 13 July, is of 14 July, and the last, 20:00 UTC on
// 20 July, of 21 July; in UTC they are of 13 and 20 July.
func TestStatsDateRange_localDays(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	root := t.TempDir()
	src := filepath.Join(root, "memory.jsonl")
	lines := `{"id":"first","text":"Paged the on-call engineer about the billing canary.","date":"2026-07-13T16:00:00Z"}
{"id":"middle","text":"Wrote the billing runbook.","date":"2026-07-16"}
{"id":"last","text":"Closed the billing incident review.","date":"2026-07-20T20:00:00Z"}
`
	if err := os.WriteFile(src, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, filepath.Join(root, "home"), config.Source{Name: "m", Kind: config.KindJSONL, Path: src, SourceSet: "notes"})
	if _, err := index.New(cfg, index.Options{NoRemote: true}).Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	clock := func() time.Time { return time.Date(2026, 7, 22, 12, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		zone        *time.Location
		first, last string
	}{
		{tokyo, "2026-07-14", "2026-07-21"},
		{time.UTC, "2026-07-13", "2026-07-20"},
	} {
		t.Run(c.zone.String(), func(t *testing.T) {
			srv := serve(t, daemon.Options{Config: cfg, Now: clock, Location: c.zone})
			direct, facade := "http://"+srv.DirectAddr().String(), "http://"+srv.FacadeAddr().String()
			var resp api.SearchResponse
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				resp = api.SearchResponse{}
				postJSON(t, facade+api.PathFacadeSearch, `{"query":"billing"}`, &resp)
				if len(resp.Results) == 3 || time.Now().After(deadline) {
					break
				}
			}
			days := map[string]string{}
			for _, r := range resp.Results {
				days[r.SourceID] = api.StringOr(r.Date, "")
			}
			if days["first"] != c.first || days["last"] != c.last {
				t.Fatalf("result days %v, want first %s and last %s", days, c.first, c.last)
			}
			// Both surfaces' /stats (memory_status' "Dates:" line reads the
			// facade's).
			for _, url := range []string{direct + api.PathStats, facade + api.PathFacadeStats} {
				var st api.Stats
				getJSON(t, url, &st)
				if got := st.Index.DateRange; api.StringOr(got.Start, "") != c.first || api.StringOr(got.End, "") != c.last {
					t.Errorf("%s dateRange %s to %s, want %s to %s, the days search gives",
						url, api.StringOr(got.Start, ""), api.StringOr(got.End, ""), c.first, c.last)
				}
			}
		})
	}
}
