package search_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/search"
)

// One speaker states something, the other asks about it in a bare
// question, and the first answers in words the query does not use: the
// answer gets a share of the statement's score across the question, and
// ranks above turns that share a word or two of the query.
func TestBridges_answerAcrossTheQuestion(t *testing.T) {
	snap := build(t, config.Source{Name: "talk", Kind: config.KindJSONL, Path: "bridges"})
	// The lever works on fused scores: without the dense channel, which a
	// model trained on ten turns makes noisy, the fixture measures it alone.
	snap.Query = nil
	req := api.SearchRequest{Query: "What was the entry fee for Ana's half marathon?", TopK: 5}

	// Without the lever the answer ranks below the gym's fee: the test
	// measures the lever, not the fixture.
	off := ask(t, engineWith(search.LeverBridges), snap, req)
	if a, o := rank(off, "b1-3"), rank(off, "b2-1"); o < 0 || (a >= 0 && a < o) {
		t.Fatalf("fixture: without the lever b2-1 should rank above b1-3: %v", ids(off))
	}

	resp := ask(t, engineWith(), snap, req)
	a, o := rank(resp, "b1-3"), rank(resp, "b2-1")
	if a < 0 || (o >= 0 && a > o) {
		t.Fatalf("b1-3 should outrank b2-1 with the lever: %v", ids(resp))
	}
	if resp.Results[a].ScoreComponents["neighbourBoost"] <= 0 {
		t.Errorf("b1-3 components %v: the bridge's share should show as neighbourBoost", resp.Results[a].ScoreComponents)
	}
}

// A question turn that states something first opens a topic of its own
// (oneQuestion): the answer after it gets no share of the turn before.
func TestBridges_notAcrossAQuestionWithItsOwnTopic(t *testing.T) {
	dir := t.TempDir()
	turns := `{"id":"c1-1","session":"c1","agent":"Ana","date":"2026-03-02","text":"Ana: I've signed up for the Harbour half marathon in October."}
{"id":"c1-2","session":"c1","agent":"Ben","date":"2026-03-02","text":"Ben: Brave. What did that set you back?"}
{"id":"c1-3","session":"c1","agent":"Ana","date":"2026-03-02","text":"Ana: Forty quid. Steep, but it goes to the lifeboats."}
{"id":"c2-1","session":"c2","agent":"Ben","date":"2026-03-09","text":"Ben: The gym put its fee up again, I might cancel."}
`
	if err := os.WriteFile(filepath.Join(dir, "turns.jsonl"), []byte(turns), 0o600); err != nil {
		t.Fatal(err)
	}
	snap := build(t, config.Source{Name: "talk", Kind: config.KindJSONL, Path: dir})
	snap.Query = nil
	req := api.SearchRequest{Query: "What was the entry fee for Ana's half marathon?", TopK: 5}
	on, off := ask(t, engineWith(), snap, req), ask(t, engineWith(search.LeverBridges), snap, req)
	a, b := rank(on, "c1-3"), rank(off, "c1-3")
	if a < 0 || b < 0 {
		t.Fatalf("fixture: c1-3 should be found: %v, without the lever %v", ids(on), ids(off))
	}
	if x, y := on.Results[a].ScoreComponents["neighbourBoost"], off.Results[b].ScoreComponents["neighbourBoost"]; x != y {
		t.Errorf("c1-3 neighbourBoost %v with the lever, %v without: no share should cross a question with a statement", x, y)
	}
}

// A turn after a statement that is not a question bridges nothing, and
// is not decoded in full to find that out: propagation asks it of every
// dialogue candidate's next turn, most of which are not questions and
// none of the candidates.
func TestBridges_statementAfterDecodesOnlyItsText(t *testing.T) {
	snap := build(t, config.Source{Name: "talk", Kind: config.KindJSONL, Path: "bridges"})
	doc := func(id string) int {
		for d := range snap.Gen.Len() {
			if snap.Gen.ID(d) == "talk:"+id || snap.Gen.Chunk(d).SourceID == id {
				return d
			}
		}
		t.Fatalf("no document %s", id)
		return -1
	}
	e := engineWith()
	if ans, ok, _ := e.BridgeDecodes(snap, doc("b1-1"), doc("b1-2")); !ok || ans != doc("b1-3") {
		t.Fatalf("b1-2 asks about b1-1: want its answer b1-3 (%d), got %d, %v", doc("b1-3"), ans, ok)
	}
	ans, ok, full := e.BridgeDecodes(snap, doc("b1-2"), doc("b1-3"))
	if ok {
		t.Fatalf("b1-3 is no question, yet it bridges to %d", ans)
	}
	if len(full) > 0 {
		t.Errorf("decoded %v in full to find b1-3 is no question; want none", full)
	}
}
