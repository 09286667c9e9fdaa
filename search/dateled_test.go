package search_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/search"
)

// workLog is a week of work memories around the test clock (2026-07-15):
// on the 14th ("yesterday") three reports of what was done, an
// acknowledgement, a question; on other days memories that mention the
// 14th in their words; and a Chinese week before.
//
// It is built once, for the tests that only search it (each built its
// own: about 0.6 s apiece under the race detector), in a folder TestMain
// removes.
func workLog(t *testing.T) *search.Snapshot {
	t.Helper()
	workLogFixture.once.Do(func() {
		dir, err := os.MkdirTemp("", "nova-search-worklog-")
		if err != nil {
			workLogFixture.err = err
			return
		}
		workLogFixture.dir = dir
		workLogFixture.snap, workLogFixture.err = buildWorkLog(dir)
	})
	if workLogFixture.err != nil {
		t.Fatal(workLogFixture.err)
	}
	return workLogFixture.snap
}

// workLogFixture is workLog's one build.
var workLogFixture struct {
	once sync.Once
	snap *search.Snapshot
	dir  string
	err  error
}

// buildWorkLog writes workLog's memories under dir and indexes them into
// a home there.
func buildWorkLog(dir string) (*search.Snapshot, error) {
	lines := []string{
		`{"id":"y-report-1","agent":"Quill","date":"2026-07-14","text":"Added cursor pagination to GET /v1/invoices with limit and after parameters, and a Load more button on the invoices page of the admin dashboard."}`,
		`{"id":"y-ack","agent":"Rhea","date":"2026-07-14","text":"ok, fix it"}`,
		`{"id":"y-report-2","agent":"Quill","date":"2026-07-14","text":"Replaced the CORS change with a dev proxy in vite.config.ts: requests to /v1 go to localhost:8080, and production serves the dashboard from the same origin."}`,
		`{"id":"y-question","agent":"Rhea","date":"2026-07-14","text":"Why cursor and not page numbers?"}`,
		`{"id":"y-report-3","agent":"Rhea","date":"2026-07-14","text":"I moved the accountants' date column to local time with Intl.DateTimeFormat, the CSV export stays in UTC."}`,
		`{"id":"plan-1","agent":"Rhea","date":"2026-07-10","text":"Plan for 14 July: the dashboard work. Yesterday's retro said the 14th is a good day for it."}`,
		`{"id":"retry","agent":"Quill","date":"2026-07-13","text":"Retry policy agreed: three attempts with exponential backoff capped at ten seconds."}`,
		`{"id":"incident","agent":"Rhea","date":"2026-07-02","text":"What happened: invoice totals were off by a cent because each line was rounded before summing. What we worked on after: the rounding fix."}`,
		`{"id":"later","agent":"Quill","date":"2026-07-15","text":"Deployed ledgerline 0.4.0 to production after the migration finished in nineteen seconds."}`,
		`{"id":"zh-1","agent":"Quill","date":"2026-07-07","text":"给发票列表加了按客户筛选，导出的CSV也跟着筛选结果走。"}`,
		`{"id":"zh-2","agent":"Rhea","date":"2026-07-08","text":"好"}`,
		`{"id":"zh-3","agent":"Quill","date":"2026-07-09","text":"修好了对账任务的超时问题：给payments表的processor_ref加了索引，对账从九分钟降到四十秒。"}`,
	}
	// A busy June: more memories than a pass takes from one channel.
	for i := range 150 {
		lines = append(lines, fmt.Sprintf(`{"id":"june-%d","agent":"Quill","date":"2026-06-%02d","text":"Routine maintenance note %d for the billing cluster."}`, i, 1+i/5, i))
	}
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(src, "log.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		return nil, err
	}
	return buildIn(filepath.Join(dir, "home"), config.Source{Name: "log", Kind: config.KindJSONL, Path: src})
}

// A query that asks what went on on a day and names nothing else finds
// the memories made that day, the ones that report what was done first,
// each with a dateMatch component; without the date lever its words only
// find the memories that mention the day.
func TestDateLed_findsTheDaysMemories(t *testing.T) {
	snap := workLog(t)
	day := []string{"y-report-1", "y-report-2", "y-report-3", "y-question", "y-ack"}
	for _, query := range []string{"What did I work on yesterday?", "What did we do on 14 July?", "what happened on July 14th", "what happened on 2026-07-14?"} {
		resp := ask(t, engineWith(), snap, api.SearchRequest{Query: query, TopK: 8})
		got := ids(resp)
		for _, id := range []string{"y-report-1", "y-report-2", "y-report-3"} {
			if r := rank(resp, id); r < 0 || r > 3 {
				t.Errorf("%q: report %s at rank %d, want within the first four: %v", query, id, r, got)
			}
		}
		for _, r := range resp.Results {
			_, matched := r.ScoreComponents["dateMatch"]
			if matched != (*r.Date == "2026-07-14") {
				t.Errorf("%q: %s dated %s has dateMatch %v", query, r.SourceID, *r.Date, matched)
			}
		}
		// The day answers it: no retry for a "missing" 14 or 2026-07-14.
		if resp.Quality.Status != "strong" || len(resp.Quality.MissingTerms) > 0 {
			t.Errorf("%q: quality %s, missing %v", query, resp.Quality.Status, resp.Quality.MissingTerms)
		}
		for _, other := range []string{"y-ack", "incident"} {
			if r := rank(resp, other); r >= 0 && r < rank(resp, "y-report-1") {
				t.Errorf("%q: %s outranks a report of the day: %v", query, other, got)
			}
		}
		// The query's words are its day: embedded, they would find
		// whatever mentions a number.
		for _, c := range resp.RetrievalController.Channels {
			if c.ID == "dense" && (c.Enabled || c.Reason != "date-led-query") {
				t.Errorf("%q: dense channel %+v, want it off as date-led-query", query, c)
			}
		}
		off := ask(t, engineWith(search.LeverDates), snap, api.SearchRequest{Query: query, TopK: 8})
		for _, id := range day {
			if rank(off, id) >= 0 {
				if _, ok := off.Results[rank(off, id)].ScoreComponents["dateMatch"]; ok {
					t.Errorf("%q without the date lever: %s has a dateMatch", query, id)
				}
			}
		}
	}
	// The people it names stay: Rhea's memories of the day lead.
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "What did Rhea do yesterday?", TopK: 3})
	if len(resp.Results) == 0 || resp.Results[0].SourceID != "y-report-3" {
		t.Errorf("Rhea's report of the day should lead: %v", ids(resp))
	}
	// Chinese: last week (6 to 12 July) holds two reports and an "OK".
	zh := ask(t, engineWith(), snap, api.SearchRequest{Query: "上周做了什么？", TopK: 3})
	if got := ids(zh); len(got) < 2 || !(rank(zh, "zh-1") >= 0 && rank(zh, "zh-3") >= 0) || rank(zh, "zh-1") > 1 || rank(zh, "zh-3") > 1 {
		t.Errorf("上周做了什么: want zh-1 and zh-3 first, got %v", got)
	}
}

// A question about the user together with a person ("Rhea and I", "with
// Rhea", 我和Rhea) asks for both sides of the day: the memories are not
// kept to the person's own, which left the user's reports out.
func TestDateLed_theUserWithAPerson(t *testing.T) {
	snap := workLog(t)
	for _, query := range []string{
		"What did Rhea and I discuss yesterday?",
		"what did I talk about with Rhea yesterday",
		"what did me and Rhea work on yesterday",
		"我和Rhea昨天聊了什么",
	} {
		resp := ask(t, engineWith(), snap, api.SearchRequest{Query: query, TopK: 5})
		if reason := denseReason(resp); reason != "date-led-query" {
			t.Errorf("%q: dense channel reason %q, want date-led-query", query, reason)
		}
		for _, id := range []string{"y-report-1", "y-report-3"} {
			if rank(resp, id) < 0 {
				t.Errorf("%q: %s of the day missing: %v", query, id, ids(resp))
			}
		}
	}
	// Rhea alone is still asked for alone.
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "What did Rhea discuss yesterday?", TopK: 5})
	if rank(resp, "y-report-1") >= 0 {
		t.Errorf("Quill's report answers a question about Rhea alone: %v", ids(resp))
	}
}

// An agent that puts the day in the request's date filter and asks "what
// happened" gets the day's memories too; before, the words matched none of
// them and the answer was empty.
func TestDateLed_dayFromTheFilter(t *testing.T) {
	snap := workLog(t)
	for _, query := range []string{"what happened", "What did I work on?", "recap of the day", "做了什么"} {
		resp := ask(t, engineWith(), snap, api.SearchRequest{Query: query, TopK: 8, Filters: api.Filters{Date: "2026-07-14"}})
		if len(resp.Results) != 5 {
			t.Errorf("%q on 14 July: want the day's 5 memories, got %v", query, ids(resp))
			continue
		}
		for _, id := range []string{"y-report-1", "y-report-2", "y-report-3"} {
			if r := rank(resp, id); r < 0 || r > 2 {
				t.Errorf("%q on 14 July: report %s at rank %d: %v", query, id, r, ids(resp))
			}
		}
		// The day answers it: no retry for a "missing" happened.
		if resp.Quality.Status != "strong" || len(resp.Quality.MissingTerms) > 0 {
			t.Errorf("%q on 14 July: quality %s, missing %v", query, resp.Quality.Status, resp.Quality.MissingTerms)
		}
	}
	// A subject keeps the query's words in charge.
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "cursor pagination", TopK: 8, Filters: api.Filters{Date: "2026-07-14"}})
	for _, r := range resp.Results {
		if _, ok := r.ScoreComponents["dateMatch"]; ok {
			t.Errorf("cursor pagination: %s has a dateMatch", r.SourceID)
		}
	}
}

// A query that names a day and something more keeps the date as a prior:
// the day's other memories are not added.
func TestDateLed_contentQueryKeepsThePrior(t *testing.T) {
	snap := workLog(t)
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "What retry policy did we agree on 13 July?", TopK: 5})
	if len(resp.Results) == 0 || resp.Results[0].SourceID != "retry" {
		t.Fatalf("want the retry memory first: %v", ids(resp))
	}
	for _, r := range resp.Results {
		if _, ok := r.ScoreComponents["dateMatch"]; ok {
			t.Errorf("%s has a dateMatch: the query names a subject", r.SourceID)
		}
	}
}

// The day's memories are candidates, never a way past the hard filters: a
// dateRange or project that excludes the day leaves them out.
func TestDateLed_hardFiltersStillApply(t *testing.T) {
	snap := workLog(t)
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "What did I work on yesterday?", TopK: 10,
		Filters: api.Filters{DateFrom: "2026-07-15", DateTo: "2026-07-15"}})
	for _, r := range resp.Results {
		if *r.Date != "2026-07-15" {
			t.Errorf("%s dated %s passed a filter of 15 July", r.SourceID, *r.Date)
		}
	}
}

// A span with more memories than a pass takes from one channel still
// answers from within the span.
func TestDateLed_busySpan(t *testing.T) {
	snap := workLog(t)
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "What did we do in June 2026?", TopK: 10})
	if len(resp.Results) != 10 {
		t.Fatalf("want 10 results from June: %v", ids(resp))
	}
	for _, r := range resp.Results {
		if !strings.HasPrefix(*r.Date, "2026-06-") {
			t.Errorf("%s dated %s", r.SourceID, *r.Date)
		}
	}
}

// dayOfWork is one day (the test clock's yesterday, 14 July) of an agent's,
// a coder's and a person's memories, some on subjects a question may name
// beside the day, and a planning note of the same subjects two weeks before.
func dayOfWork(t *testing.T) *search.Snapshot {
	t.Helper()
	lines := []string{
		`{"id":"cc-1","agent":"claude-code","date":"2026-07-14","text":"Refactored the ledger importer to stream rows instead of loading the whole file."}`,
		`{"id":"q-1","agent":"Quill","date":"2026-07-14","text":"Added cursor pagination to GET /v1/invoices with limit and after parameters."}`,
		`{"id":"q-2","agent":"Quill","date":"2026-07-14","text":"Release 1.4 broke the CSV export: the header row was written twice. Rolled back to 1.3."}`,
		`{"id":"go-1","agent":"Quill","date":"2026-07-14","text":"Discussed moving the Go toolchain to Go 1.25 and dropping the vendored modules."}`,
		`{"id":"zh-food","agent":"Rhea","date":"2026-07-14","text":"中午吃了火锅，晚上吃了饺子。"}`,
		`{"id":"zh-work","agent":"Rhea","date":"2026-07-14","text":"给发票列表加了按客户筛选，导出的CSV也跟着筛选结果走，还修了对账任务的超时问题，顺手整理了部署脚本和告警规则。"}`,
		`{"id":"old","agent":"Quill","date":"2026-07-01","text":"Release 1.4 planning: CSV export header, Go 1.25 upgrade."}`,
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "log.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return build(t, config.Source{Name: "log", Kind: config.KindJSONL, Path: dir})
}

// denseReason is the reason the dense channel gives for being off.
func denseReason(resp *api.SearchResponse) string {
	for _, c := range resp.RetrievalController.Channels {
		if c.ID == "dense" {
			return c.Reason
		}
	}
	return ""
}

// A question that names a day and a subject is about the subject, even
// where the subject is a number ("1.4"), an activity word written as a
// name ("Go"), or one Chinese character (吃, "eat"): it keeps its words
// and its dense channel, and the subject's memory leads.
func TestDateLed_subjectBesideTheDay(t *testing.T) {
	snap := dayOfWork(t)
	for query, want := range map[string]string{
		"What happened in 1.4 yesterday?":        "q-2",
		"what did we discuss about Go yesterday": "go-1",
		"昨天吃了什么":                                 "zh-food",
	} {
		resp := ask(t, engineWith(), snap, api.SearchRequest{Query: query, TopK: 5})
		if reason := denseReason(resp); reason == "date-led-query" {
			t.Errorf("%q: read as date-led, its subject left out", query)
		}
		if len(resp.Results) == 0 || resp.Results[0].SourceID != want {
			t.Errorf("%q: want %s first, got %v", query, want, ids(resp))
		}
	}
}

// More ways to ask what went on in a day: with an agent's name, asking to
// be shown its notes or updates, or in Chinese with 工作 ("work"), 记录
// ("records") or 干嘛 ("doing what"). Each gets the day's memories as a
// strong answer, nothing missing.
func TestDateLed_moreWaysToAsk(t *testing.T) {
	snap := dayOfWork(t)
	for query, want := range map[string]string{
		"what did Claude Code do yesterday": "cc-1",
		"昨天做了哪些工作":                          "zh-work",
		"昨天的记录":                             "zh-work",
		"昨天在干嘛":                             "zh-work",
		"show me yesterday":                 "zh-work",
		"notes from yesterday":              "zh-work",
		"any updates from yesterday?":       "zh-work",
		// Capitals say nothing of names in a title-case or shouted query.
		"What Did I Work On Yesterday?": "zh-work",
		"WHAT DID I DO YESTERDAY":       "zh-work",
	} {
		resp := ask(t, engineWith(), snap, api.SearchRequest{Query: query, TopK: 5})
		if reason := denseReason(resp); reason != "date-led-query" {
			t.Errorf("%q: dense channel reason %q, want date-led-query", query, reason)
		}
		if len(resp.Results) == 0 || resp.Results[0].SourceID != want {
			t.Errorf("%q: want %s first, got %v", query, want, ids(resp))
		}
		if resp.Quality.Status != "strong" || len(resp.Quality.MissingTerms) > 0 {
			t.Errorf("%q: quality %s, missing %v", query, resp.Quality.Status, resp.Quality.MissingTerms)
		}
	}
}

// A date-led question's related words are those of its days and activity
// words ("break" for 发生, 下周 for 上周): searched as words, "昨天发生了
// 什么" found a release that broke above the day's fullest memory.
func TestDateLed_noRelatedWordsOfTheDay(t *testing.T) {
	snap := dayOfWork(t)
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "昨天发生了什么", TopK: 5})
	if len(resp.Results) == 0 || resp.Results[0].SourceID != "zh-work" {
		t.Errorf("want the day's fullest memory zh-work first, got %v", ids(resp))
	}
	for _, r := range resp.Results {
		if r.ScoreComponents["bm25"] > 0 {
			t.Errorf("%s matched the words of a question that names only a day: bm25 %v", r.SourceID, r.ScoreComponents["bm25"])
		}
	}
}

// A date-led question asks what was so on its days: a version of a
// subject made then is the answer, and a newer one made after them is not
// lifted above it nor brought in, as behind a dateRange that leaves the
// newer one out. "What happened on 20 June" put the July version of the
// primary database first.
func TestDateLed_versionsOfTheDays(t *testing.T) {
	snap := versionsSnapshot(t)
	for query, days := range map[string]string{"what happened on 20 June 2026": "2026-06-20", "what did we do in June 2026": "2026-06-"} {
		resp := ask(t, engineWith(), snap, api.SearchRequest{Query: query, TopK: 5})
		// Memories that only mention the days' words may follow them.
		outside := false
		for _, r := range resp.Results {
			in := strings.HasPrefix(*r.Date, days)
			if in && outside {
				t.Errorf("%q: %s dated %s is below a memory of another day: %v", query, r.SourceID, *r.Date, ids(resp))
			}
			outside = outside || !in
			if r.ScoreComponents["supersession"] >= 1 && !in {
				t.Errorf("%q: %s dated %s was lifted as the newest version: %v", query, r.SourceID, *r.Date, ids(resp))
			}
		}
		if rank(resp, "db-2") < 0 {
			t.Errorf("%q: the version of the day db-2 is missing: %v", query, ids(resp))
		}
	}
}
