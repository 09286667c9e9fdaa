package search_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/bench"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/contracttest"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/search"
)

// pasteCorpus indexes n of novactl bench's generated records and the
// extra ones into a home under t's temporary directory.
func pasteCorpus(t testing.TB, n int, extra ...bench.Record) *search.Snapshot {
	t.Helper()
	dir := t.TempDir()
	corpus := bench.NewCorpus(bench.CorpusOptions{Records: n, Seed: 1, ChineseShare: bench.DefaultChineseShare})
	src := filepath.Join(dir, "corpus.jsonl")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := corpus.WriteJSONL(f); err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for _, r := range extra {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: filepath.Join(dir, "home")}
	cfg.Sources = []config.Source{{Name: "corpus", Kind: config.KindJSONL, Path: src}}
	if _, err := index.New(cfg, index.Options{NoRemote: true}).Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, g, err := index.OpenActive(context.Background(), cfg.Home, lexical.NewAnalyzer())
	if err != nil {
		t.Fatal(err)
	}
	return &search.Snapshot{Gen: g, Query: g.Model}
}

// pythonTraceback is a traceback as an agent pastes it: the frames come
// first, the error last.
func pythonTraceback(frames int) string {
	var b strings.Builder
	b.WriteString("Traceback (most recent call last):\n")
	for i := range frames {
		fmt.Fprintf(&b, "  File \"/srv/app/.venv/lib/python3.12/site-packages/worker/layer%d.py\", line %d, in handle_%d\n    return self.next_%d(request, context)\n", i, 40+i, i, i)
	}
	b.WriteString("psycopg2.OperationalError: connection to server at \"db.internal\" (10.0.4.7), port 6543 failed: FATAL: remaining connection slots are reserved\n")
	return b.String()
}

// TestSearch_pastedTraceback: an agent pastes a whole traceback; the
// memory that holds its error must be found, in a valid envelope.
func TestSearch_pastedTraceback(t *testing.T) {
	target := bench.Record{ID: "pg-slots", Date: "2026-05-02", Agent: "codex", Role: "assistant", Project: "worker", Session: "pg",
		Text: "The worker crashed with psycopg2.OperationalError: remaining connection slots are reserved on db.internal port 6543. Fix: lower the pool size to 20 and put pgbouncer in front."}
	snap := pasteCorpus(t, 2000, target)
	e := search.New(search.ConfigFor(config.Defaults().Retrieval), lexical.NewAnalyzer())
	for _, frames := range []int{2, 10, 25} {
		q := strings.Join(strings.Fields(pythonTraceback(frames)), " ")
		if len([]rune(q)) > api.MaxQueryRunes {
			t.Fatalf("%d frames make %d characters, more than a request may send", frames, len([]rune(q)))
		}
		t.Run(fmt.Sprint(frames, "frames"), func(t *testing.T) {
			r, err := e.Search(context.Background(), snap, api.SearchRequest{Query: q, TopK: 5})
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if err := contracttest.Validate(contracttest.SearchResponse, b, false); err != nil {
				t.Fatal(err)
			}
			t.Logf("%d chars: status %s, keyTerms %q, anchors %d, missing %q, %d bytes", len(q), r.Quality.Status, r.QueryPlan.KeyTerms, len(r.QueryPlan.Anchors), r.Quality.MissingTerms, len(b))
			if len(r.QueryPlan.Anchors) > search.MaxAnchors {
				t.Errorf("%d anchors, more than the plan keeps (%d)", len(r.QueryPlan.Anchors), search.MaxAnchors)
			}
			if omitted := search.MakePlan(q).AnchorsOmitted; r.QueryPlan.AnchorsOmitted != omitted {
				t.Errorf("queryPlan.anchorsOmitted %d, want %d", r.QueryPlan.AnchorsOmitted, omitted)
			}
			if !slices.Contains(r.QueryPlan.KeyTerms, "psycopg2.operationalerror") {
				t.Errorf("key terms %q lack the error the traceback ends with", r.QueryPlan.KeyTerms)
			}
			if len(r.Results) == 0 || r.Results[0].ID != "corpus:pg-slots" {
				var ids []string
				for _, res := range r.Results {
					ids = append(ids, res.ID)
				}
				t.Errorf("results %q, want pg-slots first", ids)
			}
		})
	}
}

// TestMakePlan_pastedAnchors: a paste with hundreds of anchors keeps at
// most MaxAnchors, says how many it left out, and keeps the anchor of
// each shape first: the frames of a traceback differ only in their
// numbers, the error line differs from them.
func TestMakePlan_pastedAnchors(t *testing.T) {
	p := search.MakePlan(pythonTraceback(40) + " and what about RC-204")
	if len(p.Anchors) > search.MaxAnchors {
		t.Errorf("%d anchors, want at most %d", len(p.Anchors), search.MaxAnchors)
	}
	if p.AnchorsOmitted == 0 {
		t.Errorf("no anchor reported omitted")
	}
	for _, want := range []string{"psycopg2.operationalerror", "db.internal", "6543", "rc-204"} {
		if !slices.Contains(p.Anchors, want) {
			t.Errorf("anchors %q lack %q", p.Anchors, want)
		}
	}
	short := search.MakePlan("port 3037 and 3036 on 10.0.4.7, see RC-204")
	if want := []string{"3037", "3036", "10.0.4.7", "rc-204"}; !slices.Equal(short.Anchors, want) || short.AnchorsOmitted != 0 {
		t.Errorf("short query anchors %q (%d omitted), want %q as written", short.Anchors, short.AnchorsOmitted, want)
	}
}

// TestSearch_pastedQueries: whatever an agent pastes, up to the request
// limit, the search answers with a valid envelope and a bounded plan.
func TestSearch_pastedQueries(t *testing.T) {
	snap := pasteCorpus(t, 2000)
	e := search.New(search.ConfigFor(config.Defaults().Retrieval), lexical.NewAnalyzer())
	for _, kind := range pastedKinds {
		t.Run(kind, func(t *testing.T) {
			q := pastedQuery(kind, api.MaxQueryRunes)
			r, err := e.Search(context.Background(), snap, api.SearchRequest{Query: q, TopK: 10})
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if err := contracttest.Validate(contracttest.SearchResponse, b, false); err != nil {
				t.Fatal(err)
			}
			if len(r.QueryPlan.Anchors) > search.MaxAnchors || len(r.QueryPlan.KeyTerms) > 12 {
				t.Errorf("%d anchors and %d key terms, want at most %d and 12", len(r.QueryPlan.Anchors), len(r.QueryPlan.KeyTerms), search.MaxAnchors)
			}
			// The query, queryPlan's, its Q0 sub-query there and in
			// agentic, and the baseline pass's report: a paste's intent
			// expansions did not repeat it too, 15 copies in all.
			if n := strings.Count(string(b), q); n > 5 {
				t.Errorf("the response holds the query %d times, want at most 5", n)
			}
			t.Logf("%s: %d bytes, status %s, %d results, %d key terms, %d anchors (%d omitted)", kind, len(b), r.Quality.Status, len(r.Results), len(r.QueryPlan.KeyTerms), len(r.QueryPlan.Anchors), r.QueryPlan.AnchorsOmitted)
		})
	}
}

// TestParseDates_pastedLog: a pasted log names a day on every line; the
// first four the rules read are kept, as in a short query, and the rest
// of the paste is not read for more.
func TestParseDates_pastedLog(t *testing.T) {
	now := time.Date(2026, 7, 15, 12, 0, 0, 0, time.UTC)
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "2026-03-%02d 12:00:01 ERROR worker timeout after %dms on March %d\n", 1+i%28, 1000+i, 1+(i+7)%28)
	}
	var got []string
	for _, s := range search.ParseDates(b.String(), now) {
		got = append(got, s.Text+"="+s.From+".."+s.To)
	}
	want := []string{"2026-03-01=2026-03-01..2026-03-01", "2026-03-02=2026-03-02..2026-03-02", "2026-03-03=2026-03-03..2026-03-03", "2026-03-04=2026-03-04..2026-03-04"}
	if !slices.Equal(got, want) {
		t.Errorf("spans %q, want %q", got, want)
	}
}
