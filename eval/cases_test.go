package eval

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/api"
)

func ptr[T any](v T) *T { return &v }

func result(id, sourceID, preview string) api.Result {
	return api.Result{ID: id, SourceID: sourceID, TextPreview: preview, Provenance: api.Provenance{SourceID: sourceID}}
}

// TestRunCases scores four cases against answers written by hand; each
// figure is worked out in the comments.
func TestRunCases(t *testing.T) {
	cases := []Case{
		{ID: "ids", Query: "queue", Project: "nova", Expect: Expect{RelevantIDs: []string{"r1", "r3"}}},
		{ID: "down", Query: "anything"},
		{ID: "timeout", Query: "slow"},
		{ID: "evidence", Query: "why sqlite", TopK: 3, Expect: Expect{
			RelevantEvidence: []Evidence{{Terms: []string{"SQLite"}}}, MinRecallAtK: ptr(1.0),
			EvidenceTerms: []string{"sqlite", "postgres"}, MinEvidenceCoverage: ptr(0.5)}},
	}
	var bodies []api.SearchBody
	search := func(_ context.Context, b api.SearchBody) (*api.SearchResponse, error) {
		bodies = append(bodies, b)
		switch b.Query {
		case "queue":
			// r1 twice (a duplicate), r2 first; r3 never; [C1] cites c1.
			return &api.SearchResponse{Available: true, Results: []api.Result{
				result("c0", "r2", "other"), result("c1", "r1", "the queue"), result("c2", "r1", "the queue again")},
				CitationPack: []api.Citation{{ResultID: "c1"}}}, nil
		case "anything":
			return api.Unavailable(b.Query, 8, api.ReasonIndexNotLoaded), nil
		case "slow":
			return nil, context.DeadlineExceeded
		}
		return &api.SearchResponse{Available: true, Results: []api.Result{result("s1", "r9", "We chose SQLite for the queue")}}, nil
	}
	var progress []int
	s := RunCases(context.Background(), cases, search, func(done, _ int) { progress = append(progress, done) })

	// Only the case's own filters are sent; topK defaults to 8.
	if bodies[0].Project != "nova" || bodies[0].TopK != api.DefaultTopK || bodies[3].TopK != 3 || len(bodies[0].Tags) != 0 {
		t.Errorf("bodies %+v", bodies)
	}
	ids := s.Cases[0]
	// r1 is found, r3 is not: recall 1/2. The first relevant result is
	// rank 2: MRR 1/2. r1 counts once, at rank 2 (its second chunk at rank
	// 3 is not another relevant result), of an ideal 2:
	// (1/log2 3) / (1 + 1/log2 3). One of two cited. Keys r2, r1, r1: one
	// duplicate of three.
	wantNDCG := math.Round((1/math.Log2(3))/(1+1/math.Log2(3))*1e4) / 1e4
	if ids.RecallAtK != 0.5 || ids.MRR != 0.5 || ids.NDCG10 != wantNDCG || ids.CitationHitRate != 0.5 || ids.DuplicateRate != 0.3333 {
		t.Errorf("ids: %+v (nDCG want %v)", ids, wantNDCG)
	}
	if ids.Passed || ids.Checks["recallAtK"] || !ids.Checks["minResults"] {
		t.Errorf("ids: recall 0.5 passes the default threshold of 1: %+v", ids.Checks)
	}
	// No expectation: recall and MRR 1 and nDCG 0, as upstream scores it.
	if down := s.Cases[1]; down.Passed || down.Available || down.Reason != api.ReasonIndexNotLoaded || down.RecallAtK != 1 || down.MRR != 1 || down.NDCG10 != 0 {
		t.Errorf("down: %+v", down)
	}
	if slow := s.Cases[2]; slow.Passed || !slow.TimedOut || slow.RecallAtK != 0 {
		t.Errorf("timeout: %+v", slow)
	}
	// "sqlite" is in the evidence and "postgres" is not: coverage 1/2.
	if ev := s.Cases[3]; !ev.Passed || ev.RecallAtK != 1 || ev.EvidenceCoverage != 0.5 || ev.Top != "s1" {
		t.Errorf("evidence: %+v", ev)
	}
	if s.Status != "failed" || s.CaseCount != 4 || s.PassedCount != 1 || s.FailedCount != 3 || s.PassRate != 0.25 ||
		s.Metrics.TimeoutRate != 0.25 || len(progress) != 4 || progress[3] != 4 {
		t.Errorf("summary %+v metrics %+v progress %v", s, s.Metrics, progress)
	}
	// The relevance means are over the two cases that name relevant
	// results, ids and evidence: recall (0.5 + 1) / 2, nDCG (ids' + 1) / 2.
	// They were over all four, where down and timeout name nothing
	// relevant, yet scored 1 and 0 (recall 0.625): placeholders, not
	// measurements, that moved the figure either way. Evidence coverage
	// is over the one case with evidenceTerms.
	m := s.Metrics
	if m.RelevanceCases != 2 || m.RecallAtK != 0.75 || m.MRR != 0.75 || m.NDCG10 != math.Round((wantNDCG+1)/2*1e4)/1e4 || m.CitationHitRate != 0.25 ||
		m.EvidenceCases != 1 || m.EvidenceCoverage != 0.5 || m.AggregationCases != 0 || m.AggregationCorrectness != 0 {
		t.Errorf("metrics %+v; want recall, MRR, nDCG and citations over 2 cases, evidence over 1, aggregation over none", m)
	}
	for i, want := range []int{2, 0, 0, 1} {
		if c := s.Cases[i]; c.Relevant != want || c.EvidenceTerms != len(cases[i].Expect.EvidenceTerms) {
			t.Errorf("case %s: relevant %d, evidenceTerms %d; want %d and %d", c.ID, c.Relevant, c.EvidenceTerms, want, len(cases[i].Expect.EvidenceTerms))
		}
	}
}

func TestReadCases(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases, err := ReadCases(write("ok.jsonl", "// a comment\n\n"+`{"id":"a","query":"q","expect":{"relevantIds":["r1"]}}`+"\n"+`{"id":"b","query":"p","topK":3}`+"\n"))
	if err != nil || len(cases) != 2 || cases[0].Expect.RelevantIDs[0] != "r1" || cases[1].TopK != 3 {
		t.Fatalf("ReadCases = %+v, %v", cases, err)
	}
	for name, tt := range map[string]struct{ text, want string }{
		"unknown field": {`{"id":"a","query":"q"}` + "\n" + `{"id":"b","qery":"typo"}`, ":2:"},
		"no query":      {`{"id":"a"}`, "id and query are required"},
		"duplicate id":  {`{"id":"a","query":"q"}` + "\n" + `{"id":"a","query":"p"}`, `duplicate id "a"`},
		"empty":         {"// nothing\n", "has no cases"},
		"two on a line": {`{"id":"a","query":"x"} {"id":"b","query":"y"}`, ":1: more than one JSON value"},
		// Each expected id counts once at the first result that has it:
		// a repeated one would be satisfied by the second chunk of the
		// same record, a recall of 1 for one record found.
		"repeated relevant id": {`{"id":"a","query":"q","expect":{"relevantIds":["r1","r2","r1"]}}`, `:1: expect.relevantIds lists "r1" twice`},
		// The facade answers 1 to 20 results: a case asking for more
		// would be scored at 20 under its own topK.
		"topK above the facade's": {`{"id":"a","query":"q","topK":50}`, ":1: topK must be 1 to 20 (got 50)"},
		"negative topK":           {`{"id":"a","query":"q","topK":-2}`, ":1: topK must be 1 to 20 (got -2)"},
	} {
		if _, err := ReadCases(write(name, tt.text)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tt.want)
		}
	}
	// A line too long to read is that error, not "no cases", and no
	// cases are returned with it.
	long := write("long.jsonl", `{"id":"a","query":"`+strings.Repeat("x", 5<<20)+`"}`+"\n")
	if cases, err := ReadCases(long); err == nil || !strings.Contains(err.Error(), "too long") || cases != nil {
		t.Errorf("a 5 MB line: %d cases, %v; want an error saying it is too long", len(cases), err)
	}
	if _, err := ReadCases(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestReadCases_errorsInCaseTerms: a malformed case is explained in the
// file's terms (the JSON field, what it takes, the line), not in Go's
// (eval.Case, "Go struct field", int), and a case split across lines is
// named as such rather than as an "unexpected EOF".
func TestReadCases_errorsInCaseTerms(t *testing.T) {
	dir := t.TempDir()
	for name, tt := range map[string]struct{ text, want string }{
		"an array":         {`[{"id":"a","query":"q"}]`, `:1: a case is a JSON object, one per line (got an array)`},
		"a string":         {`"why"`, `:1: a case is a JSON object, one per line (got a string)`},
		"topK as a string": {`{"id":"a","query":"q","topK":"5"}`, `:1: topK must be a whole number (got a string)`},
		"nested":           {`{"id":"a","query":"q","expect":{"minRecallAtK":"high"}}`, `:1: expect.minRecallAtK must be a number (got a string)`},
		"ids as a string":  {`{"id":"a","query":"q","expect":{"relevantIds":"r1"}}`, `:1: expect.relevantIds must be a list (got a string)`},
		"split":            {`{"id":"a",` + "\n" + `"query":"q"}`, `:1: the case ends before its JSON object closes (one case per line)`},
		"not JSON":         {`id: a`, `:1: not JSON: invalid character 'i' looking for beginning of value`},
		"unknown field":    {`{"id":"a","query":"q","expected":{}}`, `:1: unknown field "expected"`},
		// The other kind of eval file, on one line or pretty-printed:
		// the error said a case was an object, or that one was cut.
		"a LoCoMo file":         {`[{"sample_id":"c1","conversation":{},"qa":[]}]`, `:1: a case is a JSON object, one per line (got an array; a LoCoMo dataset is novactl eval locomo PATH's)`},
		"a LoCoMo file, spread": {"[\n" + `  {"sample_id":"c1"}` + "\n]", `:1: a case is a JSON object, one per line (got an array; a LoCoMo dataset is novactl eval locomo PATH's)`},
	} {
		p := filepath.Join(dir, name+".jsonl")
		if err := os.WriteFile(p, []byte(tt.text+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := ReadCases(p)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tt.want)
			continue
		}
		for _, goTerm := range []string{"Go ", "eval.", "json: ", "EOF"} {
			if strings.Contains(err.Error(), goTerm) {
				t.Errorf("%s: %q speaks Go (%q)", name, err, goTerm)
			}
		}
	}
}

// TestRunCases_interrupted: once the run is interrupted (Ctrl-C), the
// cases left are not asked and scored as failures with a recall of 0:
// the summary covers the cases run and says it was interrupted.
func TestRunCases_interrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cases := []Case{{ID: "a", Query: "one", Expect: Expect{RelevantIDs: []string{"r1"}}}, {ID: "b", Query: "two"}, {ID: "c", Query: "three"}}
	asked := 0
	s := RunCases(ctx, cases, func(ctx context.Context, b api.SearchBody) (*api.SearchResponse, error) {
		asked++
		if b.Query == "one" {
			cancel() // Ctrl-C while the first case is asked
			return &api.SearchResponse{Available: true, Results: []api.Result{result("r1", "r1", "one")}}, nil
		}
		return nil, ctx.Err()
	}, nil)
	if asked != 1 || !s.Interrupted || s.CaseCount != 1 || len(s.Cases) != 1 || s.Metrics.RecallAtK != 1 {
		t.Errorf("asked %d; summary interrupted %v, %d cases, recall %v; want 1 case asked and scored, interrupted",
			asked, s.Interrupted, s.CaseCount, s.Metrics.RecallAtK)
	}
}

// TestRunCases_interruptedMidSearch: the case whose search the
// interruption cut is not scored either.
func TestRunCases_interruptedMidSearch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := RunCases(ctx, []Case{{ID: "a", Query: "one"}, {ID: "b", Query: "two"}}, func(ctx context.Context, _ api.SearchBody) (*api.SearchResponse, error) {
		cancel()
		return nil, ctx.Err()
	}, nil)
	if !s.Interrupted || s.CaseCount != 0 || len(s.Cases) != 0 || s.FailedCount != 0 {
		t.Errorf("summary interrupted %v, %d cases (%d failed); want none scored", s.Interrupted, s.CaseCount, s.FailedCount)
	}
}
