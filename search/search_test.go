package search_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/contracttest"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/internal/golden"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/search"
)

// fixture is one build of testdata/memory, shared by the tests.
var fixture struct {
	once sync.Once
	snap *search.Snapshot
	home string
	err  error
}

// now is the fixed clock of the tests (recency depends on it).
var now = time.Date(2026, 7, 15, 12, 0, 0, 0, time.UTC)

func snapshot(t testing.TB) *search.Snapshot {
	t.Helper()
	fixture.once.Do(func() {
		dir, err := os.MkdirTemp("", "nova-search-")
		if err != nil {
			fixture.err = err
			return
		}
		fixture.home = dir
		// The memory is read from a copy in the temporary home: a source
		// file's path is searchable text, and the checkout's (a clone
		// in ~/code/rollback) moved the scores of queries naming its
		// words.
		src := filepath.Join(dir, "memory")
		if err := os.CopyFS(src, os.DirFS("testdata/memory")); err != nil {
			fixture.err = err
			return
		}
		cfg := config.Defaults()
		cfg.Home = paths.Home{Root: dir}
		cfg.Sources = []config.Source{{Name: "mem", Kind: config.KindJSONL, Path: src}}
		cfg.Index.ContextTurns = 1 // as the golden files were made
		ix := index.New(cfg, index.Options{NoRemote: true, Now: func() time.Time { return now }})
		if _, err := ix.Sync(context.Background()); err != nil {
			fixture.err = err
			return
		}
		_, g, err := index.OpenActive(context.Background(), cfg.Home, lexical.NewAnalyzer())
		if err != nil {
			fixture.err = err
			return
		}
		fixture.snap = &search.Snapshot{Gen: g, Query: g.Model}
	})
	if fixture.err != nil {
		t.Fatal(fixture.err)
	}
	return fixture.snap
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range []string{fixture.home, workLogFixture.dir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

func engine() *search.Engine {
	return search.New(search.Config{HalfLifeDays: 7, Dense: true, Now: func() time.Time { return now }}, lexical.NewAnalyzer())
}

func run(t *testing.T, req api.SearchRequest) *api.SearchResponse {
	t.Helper()
	if req.TopK == 0 {
		req.TopK = 5
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := engine().Search(ctx, snapshot(t), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// golden compares the normalised JSON of resp with testdata/golden/name.json.
func checkGolden(t *testing.T, name string, resp *api.SearchResponse) {
	t.Helper()
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	if err := contracttest.Validate(contracttest.SearchResponse, b, false); err != nil {
		t.Fatalf("%s does not match the contract schema: %v", name, err)
	}
	checkWhySelected(t, resp)
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	v = normalise(v, fixture.home)
	got, _ := json.MarshalIndent(v, "", "  ")
	got = append(got, '\n')
	golden.Check(t, filepath.Join("testdata", "golden", name+".json"), got)
}

// normalise removes what varies between runs: timings, the temp home and
// the generation's run id.
func normalise(v any, home string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			switch k {
			case "elapsedMs", "latencyBudgetMs":
				x[k] = 0
			case "generation":
				x[k] = "<run>"
			default:
				x[k] = normalise(val, home)
			}
		}
	case []any:
		for i := range x {
			x[i] = normalise(x[i], home)
		}
	case string:
		if home != "" && strings.Contains(x, home) {
			return strings.ReplaceAll(x, home, "<home>")
		}
		if wd, _ := os.Getwd(); strings.Contains(x, wd) {
			return strings.ReplaceAll(x, wd, "<src>")
		}
	}
	return v
}

func TestGoldenStrongHit(t *testing.T) {
	resp := run(t, api.SearchRequest{Query: "Why was port 2096 unavailable?", IncludeFullText: true, IncludeGovernance: true})
	if resp.Results[0].SourceID != "lesson-2096" || resp.Quality.Status != "strong" {
		t.Fatalf("top %s quality %s", resp.Results[0].SourceID, resp.Quality.Status)
	}
	if resp.RetrievalController.StopReason != "quality-strong-after-baseline" || len(resp.RetrievalController.PassTelemetry) != 1 {
		t.Errorf("a strong baseline must stop after one pass: %s %v", resp.RetrievalController.StopReason, resp.RetrievalController.PassTelemetry)
	}
	// The meta-discussion chunk mentions the port too, but is penalised.
	for i, r := range resp.Results {
		if r.SourceID == "meta-1" && (i == 0 || r.ScoreComponents["metaDiscussion"] < 0.5) {
			t.Errorf("meta discussion at rank %d with metaDiscussion %v", i+1, r.ScoreComponents["metaDiscussion"])
		}
	}
	checkGolden(t, "strong-hit", resp)
}

func TestGoldenWeakQueryRunsFollowUpPasses(t *testing.T) {
	// RC-204 is nowhere in the fixture: the baseline is weak, the
	// controller runs its follow-up passes, and the verdict stays weak.
	resp := run(t, api.SearchRequest{Query: "Which release fixed the RC-204 migration rollback?"})
	rc := resp.RetrievalController
	if len(rc.PassTelemetry) < 3 || rc.PassesRun[1] != search.PassExact || rc.StopReason != "passes-exhausted" {
		t.Fatalf("a weak baseline must run the follow-up passes: %v %s", rc.PassesRun, rc.StopReason)
	}
	if resp.Quality.Status != "weak" || !slices.Contains(resp.Quality.MissingTerms, "rc-204") ||
		!strings.HasPrefix(resp.Quality.Recommendations[0], "retry-exact-missing-terms:rc-204") {
		t.Errorf("quality %s missing %v recommendations %v", resp.Quality.Status, resp.Quality.MissingTerms, resp.Quality.Recommendations)
	}
	checkGolden(t, "weak-follow-up", resp)
}

func TestAnchorsDecideStrength(t *testing.T) {
	// The same words, but the anchors V1-A-029, SQLite and WAL are cited:
	// generic words may be missing, the verdict is strong.
	resp := run(t, api.SearchRequest{Query: "Session B release audit V1-A-029 SQLite WAL update rollback"})
	if resp.Results[0].SourceID != "lesson-wal" || resp.Quality.Status != "strong" {
		t.Fatalf("top %s quality %s", resp.Results[0].SourceID, resp.Quality.Status)
	}
	for _, a := range []string{"v1-a-029", "sqlite", "wal"} {
		if slices.Contains(resp.Quality.MissingTerms, a) {
			t.Errorf("anchor %s reported missing", a)
		}
	}
}

// A query of identifiers alone is found by its words: embedded, a ticket
// or a hash only finds what lies near its vector. A question about one
// keeps the dense channel.
func TestIdentifierQueryNeedsNoDenseChannel(t *testing.T) {
	for _, query := range []string{"V1-A-029", "v1-a-029 V1-A-029"} {
		resp := run(t, api.SearchRequest{Query: query})
		if len(resp.Results) == 0 || resp.Results[0].SourceID != "lesson-wal" {
			t.Fatalf("%q: want lesson-wal first, got %+v", query, resp.Results)
		}
		if reason := denseReason(resp); reason != "identifier-query" {
			t.Errorf("%q: dense channel reason %q, want identifier-query", query, reason)
		}
		for _, r := range resp.Results {
			if d := r.ScoreComponents["dense"]; d != 0 {
				t.Errorf("%q: %s has a dense score %v", query, r.SourceID, d)
			}
		}
	}
	for _, query := range []string{"what went wrong in V1-A-029", "SQLite WAL"} {
		if reason := denseReason(run(t, api.SearchRequest{Query: query})); reason != "" {
			t.Errorf("%q: dense channel off (%q), want it on", query, reason)
		}
	}
}

func TestGoldenFilteredQuery(t *testing.T) {
	resp := run(t, api.SearchRequest{Query: "postgres timeout fix", Filters: api.Filters{Project: "billing", DateFrom: "2026-06-13", DateTo: "2026-06-30"}})
	if len(resp.Results) != 1 || resp.Results[0].SourceID != "ci-2" {
		t.Fatalf("filters must be hard: %+v", resp.Results)
	}
	if resp.Filtered != snapshot(t).Gen.Count()-1 {
		t.Errorf("filtered = %d", resp.Filtered)
	}
	checkGolden(t, "filtered", resp)
}

func TestGoldenChinese(t *testing.T) {
	resp := run(t, api.SearchRequest{Query: "2096 端口为什么不可用？"})
	if resp.Results[0].SourceID != "zh-1" {
		t.Fatalf("top %s", resp.Results[0].SourceID)
	}
	if strings.Join(resp.Quality.KeyTerms, ",") != "2096,端口,不可用" {
		t.Errorf("key terms %v", resp.Quality.KeyTerms)
	}
	checkGolden(t, "chinese", resp)
}

func TestGoldenZeroResults(t *testing.T) {
	resp := run(t, api.SearchRequest{Query: "qwxzv zzyzx plorkton"})
	if len(resp.Results) != 0 || resp.Quality.Status != "insufficient" || resp.AnswerSynthesis.Status != "no-evidence" {
		t.Fatalf("results %d quality %s synthesis %s", len(resp.Results), resp.Quality.Status, resp.AnswerSynthesis.Status)
	}
	checkGolden(t, "zero-results", resp)
}

func TestGoldenUnavailable(t *testing.T) {
	resp, err := engine().Search(context.Background(), nil, api.SearchRequest{Query: "hello", TopK: 4})
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "unavailable-no-generation", resp)
	for _, reason := range []string{api.ReasonIndexLoading, api.ReasonProfileMismatch, api.ReasonCapacityExhausted, api.ReasonTimeout} {
		checkGolden(t, "unavailable-"+reason, api.Unavailable("hello", 4, reason))
	}
}

func TestSubstringsNeverMatch(t *testing.T) {
	// "ip" must not come from "pipeline", "port" not from "report".
	p := search.MakePlan("recipe pipeline description report")
	for _, bad := range []string{"ip", "port"} {
		if slices.Contains(p.KeyTerms, bad) || slices.Contains(p.Intents, "config") {
			t.Errorf("plan %+v contains %q or a config intent", p, bad)
		}
	}
	if !search.MakePlan("retrieval of the eval doc").Meta {
		t.Error("a query about eval is a meta query")
	}
	if search.MakePlan("what broke in the retrieve step").Meta {
		t.Error("substring 'eval' in 'retrieval'-like words must not make a meta query")
	}
}

// TestEveryResponseHasEveryField throws random queries and filters at the
// engine and checks each response against the schema.
func TestEveryResponseHasEveryField(t *testing.T) {
	snap := snapshot(t)
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"port", "2096", "端口", "WAL", "V1-A-029", "rollback", "", "  ", "\"quoted phrase\"", "src/money.py", "?", "不可用", "🙂", "a", "NOVA-31", "2026-06-12", "latest", "how many times", "\x00", "ﬁ", "ÅÄÖ"}
	for i := 0; i < 300; i++ {
		var q []string
		for j := rng.IntN(6); j >= 0; j-- {
			q = append(q, words[rng.IntN(len(words))])
		}
		req := api.SearchRequest{Query: strings.TrimSpace(strings.Join(strings.Fields(strings.Join(q, " ")), " ")), TopK: 1 + rng.IntN(20), IncludeFullText: rng.IntN(2) == 0, IncludeGovernance: rng.IntN(2) == 0}
		if req.Query == "" {
			req.Query = "x"
		}
		if rng.IntN(3) == 0 {
			req.Filters.Project = []string{"infra", "nova", "billing", "none"}[rng.IntN(4)]
		}
		if rng.IntN(4) == 0 {
			req.Filters.SourceSets = []string{"lessons"}
		}
		if rng.IntN(5) == 0 {
			req.Filters.DateFrom, req.Filters.DateTo = "2026-06-01", "2026-06-30"
		}
		resp, err := engine().Search(context.Background(), snap, req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(resp)
		if err := contracttest.Validate(contracttest.SearchResponse, b, false); err != nil {
			t.Fatalf("query %q: %v", req.Query, err)
		}
		if len(resp.Results) > req.TopK || len(resp.CitationPack) > 5 {
			t.Fatalf("query %q returned %d results for topK %d", req.Query, len(resp.Results), req.TopK)
		}
	}
}

func TestDeadlineIsHonoured(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := engine().Search(ctx, snapshot(t), api.SearchRequest{Query: "port 2096", TopK: 5})
	if err == nil {
		t.Fatal("a cancelled search returned without error")
	}
}

// A pass spread over goroutines (large generations) and one run on the
// calling goroutine (small ones) must rank alike, bit for bit; under -race
// this also runs the concurrent pass, which the small fixtures otherwise
// never take.
func TestConcurrentPassRanksAlike(t *testing.T) {
	snap := snapshot(t)
	concurrent := search.New(search.Config{HalfLifeDays: 7, Dense: true, Now: func() time.Time { return now }, ConcurrentPassMin: 1}, lexical.NewAnalyzer())
	for _, q := range []string{"Why was port 2096 unavailable?", "postgres timeout fix", "端口 配置", "what did we decide about the release", "x"} {
		req := api.SearchRequest{Query: q, TopK: 8}
		a, err := engine().Search(context.Background(), snap, req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := concurrent.Search(context.Background(), snap, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Results) != len(b.Results) {
			t.Fatalf("%q: %d results on one goroutine, %d spread", q, len(a.Results), len(b.Results))
		}
		for i := range a.Results {
			if a.Results[i].ID != b.Results[i].ID || a.Results[i].Score != b.Results[i].Score {
				t.Errorf("%q rank %d: %s %v on one goroutine, %s %v spread", q, i+1, a.Results[i].ID, a.Results[i].Score, b.Results[i].ID, b.Results[i].Score)
			}
		}
	}
}

// TestAnchorsAtScriptBoundaries: Chinese is written without spaces, so an
// identifier, a file name or a number written against Chinese text is
// still an anchor of its own ("NOVA-123的进度" once gave the anchor
// "nova-123的进度", which no text holds, and a weak verdict).
func TestAnchorsAtScriptBoundaries(t *testing.T) {
	for q, want := range map[string]string{
		"NOVA-123的进度":      "nova-123",
		"cron_test.go测试失败": "cron_test.go",
		"NOVA-123端口43817":  "43817",
		"为什么 RC-204 迁移失败":  "rc-204",
		"v1.4.0版本回滚了吗":     "v1.4.0",
	} {
		p := search.MakePlan(q)
		if !slices.Contains(p.Anchors, want) {
			t.Errorf("MakePlan(%q).Anchors = %q, want %q among them", q, p.Anchors, want)
		}
		for _, a := range p.Anchors {
			if lexical.HasCJK(a) && strings.ContainsFunc(a, func(r rune) bool { return r < 0x80 }) {
				t.Errorf("MakePlan(%q): anchor %q mixes scripts", q, a)
			}
		}
	}
}

// TestAnchorsInQuotesAndCJKPunctuation: an identifier in the quotes a Mac
// types (‘NOVA-123’), in guillemets or 《》, before an ellipsis, or in a
// list joined by 、 is an anchor, as it is in straight quotes. It was cut
// into the key terms "nova" and "123".
func TestAnchorsInQuotesAndCJKPunctuation(t *testing.T) {
	for q, want := range map[string][]string{
		"status of ‘NOVA-123’":       {"nova-123"},
		"the ‘cron_test.go’ failure": {"cron_test.go"},
		"«NOVA-123» is blocked":      {"nova-123"},
		"《NOVA-123》的进度":              {"nova-123"},
		"what about NOVA-123…":       {"nova-123"},
		"NOVA-123、NOVA-124都失败了":      {"nova-123", "nova-124"},
		"（NOVA-123）还没合并":             {"nova-123"},
	} {
		if a := search.MakePlan(q).Anchors; !slices.Equal(a, want) {
			t.Errorf("MakePlan(%q).Anchors = %q, want %q", q, a, want)
		}
	}
}

// TestAnchorsOfAQueryInCapitals: a query typed with caps lock on has the
// anchors it has in lower case. Every word of it was taken for an acronym
// ("DEPLOY", "SAY"), so any word a memory did not hold made recall weak.
// Acronyms among other text stay anchors.
func TestAnchorsOfAQueryInCapitals(t *testing.T) {
	for _, q := range []string{"why did the deploy fail on port 3037", "what did caroline say about the bill", "is nova-123 done"} {
		lower, upper := search.MakePlan(q).Anchors, search.MakePlan(strings.ToUpper(q)).Anchors
		if !slices.Equal(lower, upper) {
			t.Errorf("anchors of %q: %q, in capitals %q", q, lower, upper)
		}
	}
	// Words written in capitals by habit are no entities either: "OK"
	// was an anchor, and a memory without the word "ok" made recall weak.
	for _, q := range []string{"is the staging server OK now", "FYI the deploy failed, fix ASAP", "OKAY so what broke"} {
		if a := search.MakePlan(q).Anchors; len(a) != 0 {
			t.Errorf("MakePlan(%q).Anchors = %q, want none", q, a)
		}
	}
	for q, want := range map[string]string{"why did the AWS bill grow": "aws", "AWS账单为什么涨了": "aws", "DNS TTL": "ttl"} {
		if a := search.MakePlan(q).Anchors; !slices.Contains(a, want) {
			t.Errorf("MakePlan(%q).Anchors = %q, want %q among them", q, a, want)
		}
	}
}

// TestTopKBounds: the engine keeps topK within the contract's bounds for
// callers that build requests themselves (upstream clamps inside too).
func TestTopKBounds(t *testing.T) {
	for _, c := range []struct{ ask, want int }{{0, api.DefaultTopK}, {-3, api.DefaultTopK}, {1000, api.MaxTopK}, {2, 2}} {
		resp, err := engine().Search(context.Background(), snapshot(t), api.SearchRequest{Query: "port firewall migration database", TopK: c.ask})
		if err != nil {
			t.Fatal(err)
		}
		if resp.TopK != c.want || resp.QueryPlan.TopK != c.want || len(resp.Results) < min(c.want, 3) || len(resp.Results) > c.want {
			t.Errorf("topK %d: topK %d, queryPlan.topK %d, %d results; want topK %d", c.ask, resp.TopK, resp.QueryPlan.TopK, len(resp.Results), c.want)
		}
	}
}

// TestEventAggregationStrategy: conformance 1.12 names the strategy of an
// active event aggregation.
func TestEventAggregationStrategy(t *testing.T) {
	resp, err := engine().Search(context.Background(), snapshot(t), api.SearchRequest{Query: "why was port 2096 unavailable", TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	if ev := resp.EventAggregation; ev.Status != "ready" || ev.Strategy != "citation-dedupe-timeline" {
		t.Errorf("eventAggregation status %q strategy %q, want ready with citation-dedupe-timeline", ev.Status, ev.Strategy)
	}
}

// A question about the present state ("现在", "currently") asks for the
// newest memory of it, as "latest" does; a question without one does not.
func TestPlanRecencyBiasOfPresentStateQuestions(t *testing.T) {
	for q, want := range map[string]string{
		"许航现在在公司哪个组？":                    "strong",
		"她目前住在哪里":                        "strong",
		"which team is he currently on":  "strong",
		"what is the latest deploy step": "strong",
		"许航在公司哪个组？":                      "normal",
		"which team is he on":            "normal",
	} {
		if got := search.MakePlan(q).RecencyBias; got != want {
			t.Errorf("MakePlan(%q).RecencyBias = %q, want %q", q, got, want)
		}
	}
}
