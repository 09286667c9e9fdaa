package eval

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/search"
)

// TestRunLoCoMo_ablations runs the shipped Chinese dialogue set with two
// levers switched off, one index-side and one engine-side, and checks that
// each gain is Nova minus the system without the lever, overall and per
// category.
func TestRunLoCoMo_ablations(t *testing.T) {
	rep, err := RunLoCoMo(context.Background(), "testdata/zh-dialogue.json", LoCoMoOptions{
		Home: t.TempDir(), Ablate: []string{lexical.LeverSegmentation, search.LeverQuestions},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Turns != 99 || rep.Questions < 50 || len(rep.Systems) != 3 {
		t.Fatalf("turns %d questions %d systems %d", rep.Turns, rep.Questions, len(rep.Systems))
	}
	nova := rep.Systems[0]
	if len(rep.Ablations) != 2 || !rep.Ablations[0].IndexSide || rep.Ablations[1].IndexSide {
		t.Fatalf("ablations %+v", rep.Ablations)
	}
	for _, a := range rep.Ablations {
		if a.Without.Name != "nova-without-"+a.Lever {
			t.Errorf("system %q for lever %q", a.Without.Name, a.Lever)
		}
		near := func(x, y float64) bool { return math.Abs(x-y) < 2e-4 }
		if !near(a.Gain.RecallAt5, nova.Overall.RecallAt5-a.Without.Overall.RecallAt5) {
			t.Errorf("%s: gain %v, nova %v, without %v", a.Lever, a.Gain.RecallAt5, nova.Overall.RecallAt5, a.Without.Overall.RecallAt5)
		}
		for c, m := range nova.ByCategory {
			if !near(a.GainByCat[c].RecallAt10, m.RecallAt10-a.Without.ByCategory[c].RecallAt10) {
				t.Errorf("%s %s: gain %v", a.Lever, c, a.GainByCat[c].RecallAt10)
			}
		}
	}
	// Dictionary words are what lets Chinese questions find their turns:
	// without them the set loses recall (a lever that did nothing would
	// show a gain of 0).
	if g := rep.Ablations[0].Gain.RecallAt5; g <= 0 {
		t.Errorf("segmentation gain %v", g)
	}
}

// Every lever of the engine can be ablated: a lever added to search.Levers
// without an entry here was refused by --ablate.
func TestAblationLevers_everyEngineLever(t *testing.T) {
	for _, l := range search.Levers {
		if _, ok := AblationLevers[l]; !ok {
			t.Errorf("search lever %q is not in AblationLevers", l)
		}
	}
}

func TestRunLoCoMo_unknownLever(t *testing.T) {
	_, err := RunLoCoMo(context.Background(), "testdata/zh-dialogue.json", LoCoMoOptions{Home: t.TempDir(), Ablate: []string{"telepathy"}})
	if err == nil || !strings.Contains(err.Error(), "unknown lever") {
		t.Fatalf("err = %v", err)
	}
}

// The Chinese set is the issue's: at least 50 questions over one dialogue
// (TestLoadLoCoMo_shippedSets checks its dates, speakers and evidence).
func TestLoadLoCoMo_chineseSet(t *testing.T) {
	recs, qs, counts, err := LoadLoCoMo("testdata/zh-dialogue.json")
	if err != nil {
		t.Fatal(err)
	}
	if counts.Conversations != 1 || len(recs) != 99 || len(qs) < 50 {
		t.Fatalf("%d conversations, %d turns, %d questions", counts.Conversations, len(recs), len(qs))
	}
}

// TestMisses lists exactly the questions with an evidence turn outside
// the cut-off, with each evidence turn's rank (0: not returned) and the
// first answers' text.
func TestMisses(t *testing.T) {
	recs := []TurnRecord{{ID: "c:1", Text: "one"}, {ID: "c:2", Text: "two"}, {ID: "c:3", Text: "three"}, {ID: "c:4", Text: "four"}}
	qs := []Question{
		{Text: "found first", Category: 4, Evidence: []string{"c:1"}},
		{Text: "found third", Category: 1, Evidence: []string{"c:3"}},
		{Text: "half missing", Category: 1, Evidence: []string{"c:1", "c:4"}},
	}
	answers := [][]string{{"c:1", "c:2"}, {"c:1", "c:2", "c:3"}, {"c:1", "c:2"}}
	got := misses(qs, answers, recs, 2)
	if len(got) != 2 || got[0].Question != "found third" || got[1].Question != "half missing" {
		t.Fatalf("misses %+v", got)
	}
	if e := got[0].Evidence[0]; e.Rank != 3 || e.Text != "three" {
		t.Errorf("evidence %+v", e)
	}
	if e := got[1].Evidence; e[0].Rank != 1 || e[1].Rank != 0 {
		t.Errorf("evidence %+v", e)
	}
	if top := got[0].Top; len(top) != 3 || top[0].ID != "c:1" || top[0].Rank != 1 || top[2].Text != "three" {
		t.Errorf("top %+v", top)
	}
	if got[1].Category != "multi-hop" {
		t.Errorf("category %q", got[1].Category)
	}
	// A category LoCoMo does not name is its number, as in the
	// per-category table, not blank.
	odd := misses([]Question{{Text: "odd", Category: 6, Evidence: []string{"c:4"}}}, [][]string{{"c:1"}}, recs, 2)
	if len(odd) != 1 || odd[0].Category != "6" {
		t.Errorf("misses of a category-6 question: %+v", odd)
	}
}

// TestRunSystem_averages: each metric of a system is the mean over its
// questions of that metric at its own cut-off, overall and per category;
// the expected values are worked out by hand from two fixed answers.
func TestRunSystem_averages(t *testing.T) {
	qs := []Question{
		{Text: "three turns", Category: 1, Evidence: []string{"a", "b", "d"}},
		{Text: "one turn", Category: 2, Evidence: []string{"c"}},
	}
	answers := map[string][]string{
		// a at rank 2, b at rank 6, d at rank 12.
		"three turns": {"x1", "a", "x3", "x4", "x5", "b", "x7", "x8", "x9", "x10", "x11", "d"},
		"one turn":    {"c"},
	}
	rep, ranked, err := runSystem("fixed", "", qs, nil, func(q Question) ([]string, error) { return answers[q.Text], nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(ranked) != 2 || len(ranked[0]) != 12 || ranked[1][0] != "c" {
		t.Fatalf("answers %v", ranked)
	}
	// First question: recall@1 0, @5 1/3, @10 2/3, @20 1; MRR 1/2;
	// nDCG@10 = (1/log2 3 + 1/log2 7) / (1 + 1/log2 3 + 1/log2 4).
	// Second: every metric 1.
	ndcg1 := (1/math.Log2(3) + 1/math.Log2(7)) / (1 + 1/math.Log2(3) + 0.5)
	first := Metrics{Questions: 1, RecallAt1: 0, RecallAt5: 1.0 / 3, RecallAt10: 2.0 / 3, RecallAt20: 1, MRR: 0.5, NDCG10: ndcg1}
	second := Metrics{Questions: 1, RecallAt1: 1, RecallAt5: 1, RecallAt10: 1, RecallAt20: 1, MRR: 1, NDCG10: 1}
	overall := Metrics{Questions: 2, RecallAt1: 0.5, RecallAt5: 2.0 / 3, RecallAt10: 5.0 / 6, RecallAt20: 1, MRR: 0.75, NDCG10: (ndcg1 + 1) / 2}
	for _, tc := range []struct {
		name      string
		got, want Metrics
	}{
		{"overall", rep.Overall, overall},
		{"multi-hop", rep.ByCategory["multi-hop"], first},
		{"temporal", rep.ByCategory["temporal"], second},
	} {
		g, w := tc.got, tc.want
		near := func(x, y float64) bool { return math.Abs(x-y) < 1e-4 }
		if g.Questions != w.Questions || !near(g.RecallAt1, w.RecallAt1) || !near(g.RecallAt5, w.RecallAt5) || !near(g.RecallAt10, w.RecallAt10) ||
			!near(g.RecallAt20, w.RecallAt20) || !near(g.MRR, w.MRR) || !near(g.NDCG10, w.NDCG10) {
			t.Errorf("%s: got %+v, want %+v", tc.name, g, w)
		}
	}
	if len(rep.ByCategory) != 2 {
		t.Errorf("categories %v", rep.ByCategory)
	}
}

// TestLoadLoCoMo_refusesWhatCannotBeMeasured: a turn id that repeats
// (recall would count it twice and pass 1), and a file with no question
// that has evidence, are errors naming the file, not tables of figures.
func TestLoadLoCoMo_refusesWhatCannotBeMeasured(t *testing.T) {
	dir := t.TempDir()
	turns := `"session_1_date_time":"1:56 pm on 8 May, 2023","session_1":[{"speaker":"A","dia_id":"D1:1","text":"I adopted a puppy named Biscuit."},{"speaker":"B","dia_id":"D1:2","text":"Nice."}`
	for name, tt := range map[string]struct{ json, want string }{
		"repeated turn":   {`[{"sample_id":"c1","conversation":{` + turns + `,{"speaker":"A","dia_id":"D1:1","text":"again"}]},"qa":[{"question":"q","evidence":["D1:1"],"category":4}]}]`, `turn "D1:1" of conversation "c1" appears twice`},
		"repeated sample": {`[{"sample_id":"c1","conversation":{` + turns + `]},"qa":[]},{"sample_id":"c1","conversation":{` + turns + `]},"qa":[{"question":"q","evidence":["D1:1"],"category":4}]}]`, "appears twice"},
		"no question":     {`[{"sample_id":"c1","conversation":{` + turns + `]},"qa":[]}]`, "no question with evidence"},
		"no turns":        {`[]`, "no dialogue turns"},
		// Evidence written in another form than the turns' dia_id (here
		// the sample id again) used to run and report 0.000 for every
		// system: the file's doing, not theirs.
		"evidence names no turn": {`[{"sample_id":"c1","conversation":{` + turns + `]},"qa":[{"question":"q","evidence":["c1:D1:1"],"category":4},{"question":"r","evidence":["d1:1"],"category":4}]}]`, `no evidence id of its questions names a turn of their conversation (such as "D1:1", a turn's dia_id): nothing to measure`},
		"padded session":         {`[{"sample_id":"c1","conversation":{"session_01":5},"qa":[]}]`, "c1 session_01 must be a list of turns"},
		// A missing field used to become an empty id or question: one
		// turn of each conversation indexed as "c1:", or an empty query
		// asked and scored.
		"no sample id":    {`[{"conversation":{` + turns + `]},"qa":[{"question":"q","evidence":["D1:1"],"category":4}]}]`, "sample 1 has no sample_id"},
		"turn without id": {`[{"sample_id":"c1","conversation":{` + turns + `,{"speaker":"A","text":"no id"}]},"qa":[{"question":"q","evidence":["D1:1"],"category":4}]}]`, "c1 session_1 turn 3 has no dia_id"},
		// A date in another format used to be dropped: the temporal
		// questions were then scored without the session's date.
		"unreadable date":   {`[{"sample_id":"c1","conversation":{"session_1_date_time":"8 May 2023, 1:56pm","session_1":[{"speaker":"A","dia_id":"D1:1","text":"hi"}]},"qa":[{"question":"q","evidence":["D1:1"],"category":4}]}]`, `c1 session_1_date_time "8 May 2023, 1:56pm" is not a LoCoMo date`},
		"question, no text": {`[{"sample_id":"c1","conversation":{` + turns + `]},"qa":[{"evidence":["D1:1"],"category":4}]}]`, "c1 qa 1 has no question"},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
		if err := os.WriteFile(p, []byte(tt.json), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := LoadLoCoMo(p); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tt.want)
		}
	}
}

// TestRunLoCoMo_unknownEvidence: an evidence id that names no turn of its
// conversation (a typo in the file) can never be found; it counts as not
// found, as the protocol scores it, and the report names it so that the
// recall it caps is not read as the systems' doing.
func TestRunLoCoMo_unknownEvidence(t *testing.T) {
	p := filepath.Join(t.TempDir(), "locomo.json")
	data := `[{"sample_id":"c1","conversation":{"session_1_date_time":"1:56 pm on 8 May, 2023","session_1":[
		{"speaker":"A","dia_id":"D1:1","text":"I adopted a puppy named Biscuit."},
		{"speaker":"B","dia_id":"D1:2","text":"Nice, what breed is Biscuit?"},
		{"speaker":"A","dia_id":"D1:3","text":"A beagle, and he loves the park."}]},
		"qa":[{"question":"What is the puppy called?","evidence":["D1:1"],"category":4},
		      {"question":"Which breed is Biscuit?","evidence":["D1:3; D:1:3"],"category":4}]}]`
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := RunLoCoMo(context.Background(), p, LoCoMoOptions{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.UnknownEvidence) != 1 || rep.UnknownEvidence[0] != "c1:D:1:3" {
		t.Errorf("unknown evidence %q, want [c1:D:1:3]", rep.UnknownEvidence)
	}
	// Still scored as the file says: the second question's evidence is
	// half out of reach for every system.
	if r := rep.Systems[2].Overall.RecallAt20; r > 0.75+1e-9 {
		t.Errorf("bm25-plain recall@20 %v: the unknown evidence id was dropped", r)
	}
}

// TestLoadLoCoMo_errorsNameFileAndPlace: a file that is not LoCoMo's
// shape is an error in the file's terms (its fields, what each takes),
// naming the file and where in it: the messages were encoding/json's, in
// Go's terms ("Go value of type []eval.locomoSample"), with no line, and
// a session that is not a list of turns did not name the file at all.
func TestLoadLoCoMo_errorsNameFileAndPlace(t *testing.T) {
	dir := t.TempDir()
	turn := `{"speaker":"A","dia_id":"D1:1","text":"hi"}`
	for name, tt := range map[string]struct{ json, want string }{
		"empty":           {``, "empty.json is empty: a LoCoMo file is a JSON list of conversations"},
		"not json":        {"[\n{not json", "not-json.json:2:2: not JSON: invalid character 'n'"},
		"cut short":       {`[{"sample_id":"c1"`, "cut-short.json:1:18: not JSON: the file ends before its JSON closes"},
		"an object":       {`{"a":1}`, "an-object.json: a LoCoMo file is a JSON list of conversations {sample_id, conversation, qa} (got an object)"},
		"a list of lists": {`[[1]]`, "a-list-of-lists.json:1:2: a conversation is a JSON object {sample_id, conversation, qa} (got an array)"},
		"category text":   {`[{"sample_id":"c1","conversation":{"session_1":[` + turn + `]},` + "\n" + `"qa":[{"question":"q","evidence":["D1:1"],"category":"x"}]}]`, `category-text.json:2:56: qa.category must be a whole number (got a string)`},
		"evidence string": {`[{"sample_id":"c1","conversation":{"session_1":[` + turn + `]},"qa":[{"question":"q","evidence":"D1:1","category":1}]}]`, `evidence-string.json:1:133: qa.evidence must be a list (got a string)`},
		"session string":  {`[{"sample_id":"c1","conversation":{"session_1":"oops"},"qa":[]}]`, `session-string.json: c1 session_1 must be a list of turns {speaker, dia_id, text} (got a string)`},
		"turn text list":  {`[{"sample_id":"c1","conversation":{"session_1":[{"speaker":"A","dia_id":"D1:1","text":["hi"]}]},"qa":[]}]`, `turn-text-list.json: c1 session_1 turn 1: text must be a string (got an array)`},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
		if err := os.WriteFile(p, []byte(tt.json), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, _, err := LoadLoCoMo(p)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v\nwant an error with %q", name, err, tt.want)
		}
		var de *DatasetError
		if !errors.As(err, &de) {
			t.Errorf("%s: %T is not a *DatasetError: the CLI cannot tell a bad file from a failed run", name, err)
		}
	}
}
