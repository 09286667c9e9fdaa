package search_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// build indexes sources (paths relative to testdata, or absolute) into a
// temporary home.
func build(t *testing.T, sources ...config.Source) *search.Snapshot {
	t.Helper()
	snap, err := buildIn(t.TempDir(), sources...)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// buildIn is build into the home at home, for a snapshot that outlives
// the test that builds it.
func buildIn(home string, sources ...config.Source) (*search.Snapshot, error) {
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: home}
	for i := range sources {
		if filepath.IsAbs(sources[i].Path) {
			continue
		}
		p, err := filepath.Abs(filepath.Join("testdata", sources[i].Path))
		if err != nil {
			return nil, err
		}
		sources[i].Path = p
	}
	cfg.Sources = sources
	ix := index.New(cfg, index.Options{NoRemote: true, Now: func() time.Time { return now }})
	if _, err := ix.Sync(context.Background()); err != nil {
		return nil, err
	}
	_, g, err := index.OpenActive(context.Background(), cfg.Home, lexical.NewAnalyzer())
	if err != nil {
		return nil, err
	}
	return &search.Snapshot{Gen: g, Query: g.Model}, nil
}

func versionsSnapshot(t *testing.T) *search.Snapshot {
	return build(t,
		config.Source{Name: "state", Kind: config.KindJSONL, Path: "versions/records"},
		config.Source{Name: "board", Kind: config.KindMarkdown, Path: "versions/board", SourceSet: "task-board-snapshot"})
}

func ask(t *testing.T, e *search.Engine, snap *search.Snapshot, req api.SearchRequest) *api.SearchResponse {
	t.Helper()
	if req.TopK == 0 {
		req.TopK = 5
	}
	resp, err := e.Search(context.Background(), snap, req)
	if err != nil {
		t.Fatal(err)
	}
	checkWhySelected(t, resp)
	return resp
}

// contractWhy are the whySelected values of the contract (conformance
// 1.9), beside matched:<terms>. Every lever's response is held to them:
// an agent may check a citation's reasons against the list.
var contractWhy = []string{"dense-similarity", "exact-entity-coverage", "keyword-overlap", "recent-memory", "intent-match", "ranked-evidence"}

func checkWhySelected(t *testing.T, resp *api.SearchResponse) {
	t.Helper()
	for _, c := range resp.CitationPack {
		if len(c.WhySelected) == 0 {
			t.Errorf("citation %s: no whySelected", c.CitationID)
		}
		for _, w := range c.WhySelected {
			if !slices.Contains(contractWhy, w) && !strings.HasPrefix(w, "matched:") {
				t.Errorf("citation %s: whySelected %q is not the contract's", c.CitationID, w)
			}
		}
	}
}

func engineWith(off ...string) *search.Engine {
	cfg := search.Config{HalfLifeDays: 7, Dense: true, Now: func() time.Time { return now }, Location: time.UTC, Off: map[string]bool{}}
	for _, l := range off {
		cfg.Off[l] = true
	}
	return search.New(cfg, lexical.NewAnalyzer())
}

func rank(resp *api.SearchResponse, sourceID string) int {
	return slices.IndexFunc(resp.Results, func(r api.Result) bool { return r.SourceID == sourceID })
}

func TestSupersession_newestWinsOverABetterMatch(t *testing.T) {
	snap := versionsSnapshot(t)
	req := api.SearchRequest{Query: "Which host runs the primary PostgreSQL database and where do the nightly backups go?", Filters: api.Filters{Project: "infra"}}

	// Without the lever the oldest version matches best: that is the
	// situation the lever exists for.
	plain := ask(t, engineWith(search.LeverSupersession), snap, req)
	if plain.Results[0].SourceID != "db-1" {
		t.Fatalf("fixture: without supersession the best match should be db-1, got %s", plain.Results[0].SourceID)
	}

	resp := ask(t, engineWith(), snap, req)
	if resp.Results[0].SourceID != "db-3" {
		t.Fatalf("newest version must rank first: got %v", ids(resp))
	}
	if resp.Results[0].Superseded {
		t.Error("the newest version is flagged superseded")
	}
	for _, old := range []string{"db-1", "db-2"} {
		i := rank(resp, old)
		if i < 0 {
			t.Fatalf("%s missing from %v", old, ids(resp))
		}
		r := resp.Results[i]
		if !r.Superseded || r.SupersededBy != "state:db-3" {
			t.Errorf("%s: superseded %v by %q, want true by state:db-3", old, r.Superseded, r.SupersededBy)
		}
		if r.ScoreComponents["supersession"] != 0.9 {
			t.Errorf("%s: supersession component %v", old, r.ScoreComponents["supersession"])
		}
	}
	// Citations carry the flags, and the synthesis leads with the newest.
	for _, c := range resp.CitationPack {
		if c.Superseded != (c.ResultID != "state:db-3" && (c.ResultID == "state:db-1" || c.ResultID == "state:db-2")) {
			t.Errorf("citation %s superseded=%v", c.ResultID, c.Superseded)
		}
	}
	if resp.AnswerSynthesis.CitationIDs[0] != "C1" || slices.ContainsFunc(resp.AnswerSynthesis.Bullets, func(b api.Bullet) bool {
		return resp.CitationPack[citationIndex(b.CitationID)].Superseded
	}) {
		t.Errorf("answer synthesis cites an older version: %+v", resp.AnswerSynthesis.Bullets)
	}
	checkGolden(t, "supersession", resp)
}

func citationIndex(id string) int {
	var n int
	for _, c := range id[1:] {
		n = n*10 + int(c-'0')
	}
	return n - 1
}

func TestSupersession_dateRangeReachesOlderVersions(t *testing.T) {
	snap := versionsSnapshot(t)
	req := api.SearchRequest{Query: "Which host runs the primary PostgreSQL database?", Filters: api.Filters{Project: "infra", DateTo: "2026-06-30"}}
	resp := ask(t, engineWith(), snap, req)
	if rank(resp, "db-3") >= 0 {
		t.Fatalf("the date range excludes db-3, got %v", ids(resp))
	}
	plain := ask(t, engineWith(search.LeverSupersession), snap, req)
	if got, want := ids(resp), ids(plain); !slices.Equal(got, want) {
		t.Errorf("with the newest version filtered out, older ones must rank as without the lever: %v vs %v", got, want)
	}
	for _, old := range []string{"db-1", "db-2"} {
		i := rank(resp, old)
		if i < 0 {
			t.Fatalf("%s missing: %v", old, ids(resp))
		}
		if r := resp.Results[i]; !r.Superseded || r.SupersededBy != "state:db-3" || r.ScoreComponents["supersession"] != 0 {
			t.Errorf("%s: %+v", old, r)
		}
	}
	// The older versions are the evidence there is: the synthesis leads
	// with the best of them, not with an unrelated result below.
	if ids := resp.AnswerSynthesis.CitationIDs; len(ids) == 0 || ids[0] != "C1" {
		t.Errorf("answer synthesis behind the date range cites %v, want C1 first", ids)
	}
}

// TestSupersession_liftedNewestIsNotDenseOnly: the newest version lifted
// above an older one that matches the query ranks on that match; quality
// must not call the top evidence dense-only (and send agents retrying)
// because the newest text shares no term with the query.
func TestSupersession_liftedNewestIsNotDenseOnly(t *testing.T) {
	snap := versionsSnapshot(t)
	req := api.SearchRequest{Query: "nightly backups to the old NAS in the basement", Filters: api.Filters{Project: "infra"}}
	resp := ask(t, engineWith(), snap, req)
	if resp.Results[0].SourceID != "db-3" || rank(resp, "db-1") < 0 {
		t.Fatalf("fixture: db-3 lifted first over db-1: %v", ids(resp))
	}
	if resp.Quality.Flags["denseOnlyTop"] {
		t.Errorf("quality %s with denseOnlyTop: the lifted newest version ranks on db-1's match", resp.Quality.Status)
	}
}

func TestSupersession_taskBoardSnapshots(t *testing.T) {
	snap := versionsSnapshot(t)
	req := api.SearchRequest{Query: "NOVA-31 search latency blocked waiting for the benchmark harness", Filters: api.Filters{Project: "nova"}}
	if plain := ask(t, engineWith(search.LeverSupersession), snap, req); plain.Results[0].SourceID != "board-2026-06-01.md#task-board-nova-31-search-latency" {
		t.Fatalf("fixture: without the lever the June card matches best: %v", ids(plain))
	}
	resp := ask(t, engineWith(), snap, req)
	top := resp.Results[0]
	if top.SourceID != "board-2026-07-01.md#task-board-nova-31-search-latency" || top.Superseded {
		t.Fatalf("the July snapshot of the card must rank first: %v", ids(resp))
	}
	june := resp.Results[rank(resp, "board-2026-06-01.md#task-board-nova-31-search-latency")]
	if !june.Superseded || june.SupersededBy != top.ID {
		t.Errorf("June card: superseded %v by %q, want by %s", june.Superseded, june.SupersededBy, top.ID)
	}
	// Another card of the same board is its own subject.
	if i := rank(resp, "board-2026-07-01.md#task-board-nova-40-installer"); i >= 0 && resp.Results[i].Superseded {
		t.Error("the newest NOVA-40 card is flagged superseded")
	}
}

func ids(resp *api.SearchResponse) []string {
	out := make([]string, len(resp.Results))
	for i, r := range resp.Results {
		out[i] = r.SourceID
	}
	return out
}

func dialogueSnapshot(t *testing.T) *search.Snapshot {
	return build(t, config.Source{Name: "talk", Kind: config.KindJSONL, Path: "dialogue"})
}

func TestPropagation_ellipticTurnJoinsItsNeighbour(t *testing.T) {
	snap := dialogueSnapshot(t)
	// The answer turn (s1-3) never says "church picnic"; the turn before
	// it does.
	req := api.SearchRequest{Query: "What games did the kids play at the church picnic?", TopK: 3}
	resp := ask(t, engineWith(), snap, req)
	i := rank(resp, "s1-3")
	if i < 0 {
		t.Fatalf("the elliptic answer turn is missing: %v", ids(resp))
	}
	if resp.Results[i].ScoreComponents["neighbourBoost"] <= 0 {
		t.Errorf("s1-3 has no neighbourBoost: %v", resp.Results[i].ScoreComponents)
	}
	// The boost is a share of the gap to the better neighbour (s1-2 or
	// s1-4), added to the score the turn has without the lever.
	off := ask(t, engineWith(search.LeverPropagation), snap, api.SearchRequest{Query: req.Query, TopK: 10})
	j := rank(off, "s1-3")
	if j < 0 {
		t.Fatalf("s1-3 missing without propagation: %v", ids(off))
	}
	with, without, boost := resp.Results[i].Score, off.Results[j].Score, resp.Results[i].ScoreComponents["neighbourBoost"]
	if d := with - without - boost; d > 1e-5 || d < -1e-5 {
		t.Errorf("score %v without the lever %v, boost %v", with, without, boost)
	}
	best := 0.0
	for _, n := range []string{"s1-2", "s1-4"} {
		if k := rank(off, n); k >= 0 {
			best = max(best, off.Results[k].Score)
		}
	}
	// s1-2 is the question s1-3 answers: s1-3 is lifted to just above it
	// when 0.3 of the gap does not get it there.
	q := rank(resp, "s1-2")
	if q < 0 || q < i {
		t.Fatalf("the question s1-2 is missing or above its answer s1-3: %v", ids(resp))
	}
	if want := max(without+0.3*(best-without), 1.01*resp.Results[q].Score); with < want-1e-5 || with > want+1e-5 {
		t.Errorf("s1-3 scores %v, want max(%v + 0.3 x (%v - %v), 1.01 x %v)", with, without, best, without, resp.Results[q].Score)
	}
	checkGolden(t, "propagation", resp)
}

// A turn that only propagation brought in (no channel found s1-4 for
// "church picnic") is scored by its neighbour's share alone; its
// metadata components are worked out once it is returned, and must be.
func TestPropagation_joinedNeighbourHasItsMetadata(t *testing.T) {
	resp := ask(t, engineWith(), dialogueSnapshot(t), api.SearchRequest{Query: "church picnic", TopK: 10})
	i := rank(resp, "s1-4")
	if i < 0 {
		t.Fatalf("s1-4 missing: %v", ids(resp))
	}
	c := resp.Results[i].ScoreComponents
	if c["fused"] != 0 || c["neighbourBoost"] <= 0 {
		t.Fatalf("s1-4 components %v, want a turn joined by propagation alone", c)
	}
	if c["recencyFactor"] < 1 || c["governanceWeight"] <= 0 || c["layerBoost"] != 1 {
		t.Errorf("s1-4 lacks its metadata components: %v", c)
	}
}

func TestPersonPrior(t *testing.T) {
	snap := dialogueSnapshot(t)
	req := api.SearchRequest{Query: "What did Mira say about the picnic?", TopK: 5}
	resp := ask(t, engineWith(), snap, req)
	if !slices.Equal(resp.QueryPlan.PersonPriors, []string{"Mira"}) {
		t.Fatalf("personPriors %v", resp.QueryPlan.PersonPriors)
	}
	for _, r := range resp.Results {
		want := 1.0
		if r.Agent != nil && *r.Agent == "Mira" {
			want = 1.1
		}
		if r.ScoreComponents["personPrior"] != want {
			t.Errorf("%s by %v: personPrior %v, want %v", r.SourceID, *r.Agent, r.ScoreComponents["personPrior"], want)
		}
	}
	if a := resp.Results[0].Agent; a == nil || *a != "Mira" {
		t.Errorf("top result is not by Mira: %v", ids(resp))
	}
	// A name that is part of a longer word is no person.
	if p := ask(t, engineWith(), snap, api.SearchRequest{Query: "miracle picnic"}).QueryPlan.PersonPriors; len(p) != 0 {
		t.Errorf("personPriors %v for a query naming nobody", p)
	}
	if p := ask(t, engineWith(search.LeverPerson), snap, req).QueryPlan.PersonPriors; len(p) != 0 {
		t.Errorf("personPriors %v with the lever off", p)
	}
}

func TestDatePrior(t *testing.T) {
	snap := dialogueSnapshot(t)
	// Two picnic turns; the question names June 2026.
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "picnic photos or chairs in June 2026?", TopK: 5})
	if len(resp.QueryPlan.DatePriors) != 1 || resp.QueryPlan.DatePriors[0].From != "2026-06-01" || resp.QueryPlan.DatePriors[0].To != "2026-06-30" {
		t.Fatalf("datePriors %+v", resp.QueryPlan.DatePriors)
	}
	for _, r := range resp.Results {
		want := 1.0
		if *r.Date >= "2026-06-01" && *r.Date <= "2026-06-30" {
			want = 1.15
		}
		if r.ScoreComponents["datePrior"] != want {
			t.Errorf("%s dated %s: datePrior %v, want %v", r.SourceID, *r.Date, r.ScoreComponents["datePrior"], want)
		}
	}
	if resp.Results[0].SourceID != "s2-3" {
		t.Errorf("the June picnic turn should lead: %v", ids(resp))
	}
	// Relative: "last month" against the clock (2026-07-15) is June.
	rel := ask(t, engineWith(), snap, api.SearchRequest{Query: "what happened with the picnic last month"})
	if len(rel.QueryPlan.DatePriors) != 1 || rel.QueryPlan.DatePriors[0].From != "2026-06-01" || !rel.QueryPlan.DatePriors[0].Relative {
		t.Errorf("datePriors %+v", rel.QueryPlan.DatePriors)
	}
	// A prior, never a filter: memories outside the span still come back.
	if rank(resp, "s1-1") < 0 && rank(resp, "s3-2") < 0 {
		t.Errorf("memories outside the named month were filtered: %v", ids(resp))
	}
	// A single day is a precise statement: its memories weigh more than
	// a month's. Named beside its month, the day's weight holds.
	for _, query := range []string{"picnic photos or chairs on 11 June 2026?", "picnic photos or chairs in June 2026, on 11 June?"} {
		day := ask(t, engineWith(), snap, api.SearchRequest{Query: query, TopK: 5})
		for _, r := range day.Results {
			want := 1.0
			if *r.Date == "2026-06-11" {
				want = 1.3
			}
			if r.ScoreComponents["datePrior"] != want {
				t.Errorf("%q: %s dated %s: datePrior %v, want %v", query, r.SourceID, *r.Date, r.ScoreComponents["datePrior"], want)
			}
		}
	}
}

func TestLemmasJoinIrregularForms(t *testing.T) {
	snap := dialogueSnapshot(t)
	// "draw" in the query, "drew" in the memory.
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "Who will draw a map of the park?", TopK: 3})
	if resp.Results[0].SourceID != "s1-4" || resp.Results[0].ScoreComponents["bm25"] == 0 {
		t.Fatalf("top %v, bm25 %v", ids(resp), resp.Results[0].ScoreComponents["bm25"])
	}
	// And "child" reaches "children".
	resp = ask(t, engineWith(), snap, api.SearchRequest{Query: "art class for a child", TopK: 3})
	if resp.Results[0].SourceID != "s2-2" {
		t.Errorf("top %v", ids(resp))
	}
}

func TestAnswerTypePrior(t *testing.T) {
	snap := build(t, config.Source{Name: "notes", Kind: config.KindJSONL, Path: "answers"})
	// Each pair of memories shares the words of the question; one of them
	// holds the kind of answer the question word asks for ("two hours",
	// 两年; 很久 is no duration), the other ranks a little higher without
	// the lever (it is shorter, and the dense channel prefers it).
	cases := []struct {
		name, query, typ string
		answer, other    string
	}{
		{"how long", "How long did Ines practise the cello for the spring recital?", search.AnswerDuration, "cello-hours", "cello-plain"},
		{"多久", "王芳在新的公寓住了多久？", search.AnswerDuration, "flat-years", "flat-plain"},
		{"哪本小说", "林晓在读哪本科幻小说？", search.AnswerTitle, "novel-title", "novel-plain"},
		{"which book", "Which book did Ines read on the train?", search.AnswerTitle, "book-title", "book-plain"},
		{"哪座城市", "表姐的婚礼在哪座城市举办？", search.AnswerPlace, "wedding-city", "wedding-plain"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := api.SearchRequest{Query: c.query, TopK: 5}
			off := ask(t, engineWith(search.LeverAnswerType), snap, req)
			if a, o := rank(off, c.answer), rank(off, c.other); a < 0 || o < 0 || o > a {
				t.Fatalf("fixture: without the lever %s should rank above %s: %v", c.other, c.answer, ids(off))
			}
			if off.QueryPlan.AnswerType != "" {
				t.Errorf("answerType %q with the lever off", off.QueryPlan.AnswerType)
			}
			for _, r := range off.Results {
				if _, ok := r.ScoreComponents["answerType"]; ok {
					t.Errorf("%s has an answerType component with the lever off", r.SourceID)
				}
			}

			resp := ask(t, engineWith(), snap, req)
			if resp.QueryPlan.AnswerType != c.typ {
				t.Errorf("answerType %q, want %q", resp.QueryPlan.AnswerType, c.typ)
			}
			a, o := rank(resp, c.answer), rank(resp, c.other)
			if a < 0 || o < 0 || a > o {
				t.Fatalf("%s should outrank %s with the lever: %v", c.answer, c.other, ids(resp))
			}
			if got := resp.Results[a].ScoreComponents["answerType"]; got != 1.2 {
				t.Errorf("%s: answerType %v, want 1.2", c.answer, got)
			}
			if got := resp.Results[o].ScoreComponents["answerType"]; got != 1 {
				t.Errorf("%s: answerType %v, want 1", c.other, got)
			}
			for _, ct := range resp.CitationPack {
				if ct.ResultID == resp.Results[a].ID && !slices.Contains(ct.WhySelected, "intent-match") {
					t.Errorf("%s: whySelected %v", c.answer, ct.WhySelected)
				}
			}
		})
	}
	// A question without an answer-type word gets no prior.
	plain := ask(t, engineWith(), snap, api.SearchRequest{Query: "Ines cello spring recital"})
	if plain.QueryPlan.AnswerType != "" {
		t.Errorf("answerType %q for a query asking for none", plain.QueryPlan.AnswerType)
	}
	for _, r := range plain.Results {
		if _, ok := r.ScoreComponents["answerType"]; ok {
			t.Errorf("%s has an answerType component for a query asking for none", r.SourceID)
		}
	}
}

// Conformance 4.17: dedupe happens before the cut to topK. Two memories
// with the same text, project and agent share a dedupe key; the better
// placed one (the newer) is kept, the distinct one stays.
func TestDedupeBeforeTopK(t *testing.T) {
	snap := build(t, config.Source{Name: "notes", Kind: config.KindJSONL, Path: "duplicates"})
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "why was the dashboard port unavailable", TopK: 3})
	if resp.Dedupe == nil || resp.Dedupe.DuplicatesRemoved != 1 {
		t.Fatalf("dedupe report %+v, want one duplicate removed", resp.Dedupe)
	}
	if r := resp.Dedupe.Removed; len(r) != 1 || !strings.HasSuffix(r[0].ID, "fw-2") {
		t.Errorf("removed %+v, want the older copy fw-2", r)
	}
	if rank(resp, "fw-1") != 0 || rank(resp, "fw-2") >= 0 || rank(resp, "dns-1") < 0 {
		t.Errorf("results %v, want fw-1 first, no fw-2, dns-1 kept", ids(resp))
	}
	if resp.Returned != len(resp.Results) || resp.Dedupe.OutputCount != resp.Dedupe.InputCount-1 {
		t.Errorf("returned %d of %d results; dedupe %d in, %d out", resp.Returned, len(resp.Results), resp.Dedupe.InputCount, resp.Dedupe.OutputCount)
	}
}

// TestSupersession_undatedVersions: versions are ordered by the best time
// known of them. A version without a date was written after the versions
// above it in its file, so an undated last line is the newest; a dated
// line after an undated one is newer than it; with no date at all, the
// order in the file decides. Each time the newest ranks first though an
// older one matches the query better.
func TestSupersession_undatedVersions(t *testing.T) {
	snap := build(t, config.Source{Name: "state", Kind: config.KindJSONL, Path: "undated"})
	for _, c := range []struct {
		name, query, newest string
		older               []string
	}{
		{"undated newest after dated", "Which host runs the VPN gateway and on which port do clients connect to the VPN gateway?", "vpn-3", []string{"vpn-1", "vpn-2"}},
		{"dated newest after undated", "Which host runs the office DNS resolver and where does it forward queries?", "dns-2", []string{"dns-1"}},
		{"all undated", "Where does the CI runner build, and where do CI runner jobs queue?", "ci-2", []string{"ci-1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := api.SearchRequest{Query: c.query, Filters: api.Filters{Project: "infra"}}
			if plain := ask(t, engineWith(search.LeverSupersession), snap, req); plain.Results[0].SourceID != c.older[0] {
				t.Fatalf("fixture: without the lever %s should match best: %v", c.older[0], ids(plain))
			}
			resp := ask(t, engineWith(), snap, req)
			top := resp.Results[0]
			if top.SourceID != c.newest || top.Superseded {
				t.Fatalf("the newest version %s must rank first, unflagged: %v (top superseded %v by %q)", c.newest, ids(resp), top.Superseded, top.SupersededBy)
			}
			for _, old := range c.older {
				i := rank(resp, old)
				if i < 0 {
					t.Fatalf("%s missing from %v", old, ids(resp))
				}
				if r := resp.Results[i]; !r.Superseded || r.SupersededBy != top.ID {
					t.Errorf("%s: superseded %v by %q, want true by %s", old, r.Superseded, r.SupersededBy, top.ID)
				}
			}
		})
	}
}

// TestScoreComponents_everyResult: conformance 1.8 names the components
// every result carries; a turn that propagation alone brought in, or a
// newest version supersession lifted into the list, carries them too.
func TestScoreComponents_everyResult(t *testing.T) {
	keys := []string{"dense", "keyword", "recency", "recencyFactor", "layerBoost", "intentBoost", "subQueryMatch", "subQueryBoost",
		"lexical", "exactCoverage", "retrievalExactCoverage", "citableExactCoverage", "metaDiscussion", "evidenceAuthority",
		"governanceWeight", "provenanceScore", "authorityRank", "passWeight"}
	for name, resp := range map[string]*api.SearchResponse{
		"propagation":  ask(t, engineWith(), dialogueSnapshot(t), api.SearchRequest{Query: "church picnic", TopK: 10}),
		"supersession": ask(t, engineWith(), versionsSnapshot(t), api.SearchRequest{Query: "nightly backups to the old NAS in the basement", Filters: api.Filters{Project: "infra"}, TopK: 10}),
	} {
		for _, r := range resp.Results {
			for _, k := range keys {
				if _, ok := r.ScoreComponents[k]; !ok {
					t.Errorf("%s: %s has no %s: %v", name, r.SourceID, k, r.ScoreComponents)
				}
			}
		}
	}
}

// TestSupersession_undatedInAnotherFile: a version with no date, in a file
// that holds no dated version of its subject, cannot be placed in time
// against the versions of other files (it may be a current-state note or
// an old export). Nova does not guess: it neither supersedes them nor is
// superseded by them, and each file's versions are still ordered among
// themselves (bk-1 by bk-2). Before, it counted as the oldest: a current
// fact written without a date was flagged superseded by a dated record of
// last month, and of two undated files the one read last won.
func TestSupersession_undatedInAnotherFile(t *testing.T) {
	snap := build(t, config.Source{Name: "state", Kind: config.KindJSONL, Path: "undated-files"})
	e := engineWith()
	resp := ask(t, e, snap, api.SearchRequest{Query: "where do the nightly backups go", Filters: api.Filters{Project: "infra"}, TopK: 10})
	flags := func(resp *api.SearchResponse) map[string]string {
		out := map[string]string{}
		for _, r := range resp.Results {
			out[r.SourceID] = "current"
			if r.Superseded {
				out[r.SourceID] = "by " + r.SupersededBy
			}
		}
		return out
	}
	got := flags(resp)
	for id, want := range map[string]string{"bk-1": "by state:bk-2", "bk-2": "current", "bk-now": "current"} {
		if got[id] != want {
			t.Errorf("%s: %q, want %q (all: %v)", id, got[id], want, got)
		}
	}
	// bk-1 matches best but is older than bk-2.
	if rank(resp, "bk-2") < 0 || rank(resp, "bk-1") < rank(resp, "bk-2") {
		t.Errorf("results %v, want bk-2 above bk-1", ids(resp))
	}
	// Two undated files: neither version is known to be the newer.
	got = flags(ask(t, e, snap, api.SearchRequest{Query: "which host relays mail", Filters: api.Filters{Project: "infra"}, TopK: 10}))
	for _, id := range []string{"mail-1", "mail-2"} {
		if got[id] != "current" {
			t.Errorf("%s: %q, want current (all: %v)", id, got[id], got)
		}
	}
}

// The text factors weigh the pass's best depth candidates, and all of
// twice as many only when one of them can lift a candidate (a factor above
// 1: the answer type a question asks for, an anchor). Without either they
// can only lower a score: a candidate below the depth is weighed when a
// lowered one lets it rise into the depth, so that the first depth are
// those weighing every candidate gives, and the rest stay unweighed. Here
// the best-matching memories discuss retrieval quality (a factor of 0.55),
// so that some below the depth rise.
func TestTextFactorsHead(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 120 {
		fmt.Fprintf(&b, `{"id":"lantern-%03d","date":"2026-05-%02d","project":"harbour","text":"The harbour lantern was cleaned again, note %d of the keeper."}`+"\n", i, 1+i%28, i)
	}
	for i := range 12 {
		fmt.Fprintf(&b, `{"id":"meta-%02d","date":"2026-05-%02d","project":"harbour","text":"harbour lantern keeper, harbour lantern keeper: quality gate, retrieval quality, rag eval %d"}`+"\n", i, 1+i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "records.jsonl"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	snap := build(t, config.Source{Name: "log", Kind: config.KindJSONL, Path: dir})
	e := engineWith()

	cands, depth, err := e.BaselinePass(snap, api.SearchRequest{Query: "harbour lantern keeper", TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 2*depth {
		t.Fatalf("the pass kept %d candidates, want %d", len(cands), 2*depth)
	}
	weighed := 0
	for i, c := range cands {
		if c.Weighed {
			weighed++
		}
		if i < depth && !c.Weighed {
			t.Errorf("candidate %d (doc %d) is within the depth %d and not weighed", i, c.Doc, depth)
		}
		if i >= depth && !c.Weighed && c.Score > cands[depth-1].Score {
			t.Errorf("candidate %d (doc %d) was not weighed and scores %v, above the depth's last %v", i, c.Doc, c.Score, cands[depth-1].Score)
		}
	}
	if weighed <= depth || weighed >= 2*depth {
		t.Errorf("%d candidates weighed, want more than the depth %d (the lowered ones let others rise) and fewer than %d", weighed, depth, 2*depth)
	}

	cands, depth, err = e.BaselinePass(snap, api.SearchRequest{Query: "When was the harbour lantern cleaned by the keeper?", TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 2*depth {
		t.Fatalf("the question's pass kept %d candidates, want %d", len(cands), 2*depth)
	}
	for i, c := range cands {
		if !c.Weighed {
			t.Errorf("the question's candidate %d (doc %d) is not weighed: its answer type may lift it", i, c.Doc)
		}
	}
}
