package search_test

import (
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/search"
)

func followUpsSnapshot(t *testing.T) *search.Snapshot {
	return build(t, config.Source{Name: "talk", Kind: config.KindJSONL, Path: "followups"})
}

// One speaker states something, the other asks a follow-up of the kind
// the query asks (how long, how much), and the first answers it: the
// answer, which shares none of the statement's topic words, ranks first.
func TestFollowUps_answerAboveTheStatementItFollows(t *testing.T) {
	snap := followUpsSnapshot(t)
	for _, c := range []struct{ query, answer, statement string }{
		{"小周换工作以后通勤要花多久？", "z1-3", "z1-1"},
		{"阿杰的陶艺班一节课多少钱？", "z2-3", "z2-1"},
		{"How long is each of Mira's pottery classes?", "e1-3", "e1-1"},
	} {
		req := api.SearchRequest{Query: c.query, TopK: 5}
		resp := ask(t, engineWith(), snap, req)
		if len(resp.Results) == 0 || resp.Results[0].SourceID != c.answer {
			t.Errorf("%s: %v, want %s first", c.query, ids(resp), c.answer)
		}
		// Without the lever the statement outranks its answer: the test
		// measures the lever, not the fixture.
		off := ask(t, engineWith(search.LeverFollowUps), snap, req)
		if a, s := rank(off, c.answer), rank(off, c.statement); s < 0 || (a >= 0 && a < s) {
			t.Errorf("%s without the lever: %v, want %s above %s", c.query, ids(off), c.statement, c.answer)
		}
	}
}

// A query that asks what the statement itself says keeps it first: the
// follow-up asked another kind of thing (how long, not where).
func TestFollowUps_statementThatAnswersStaysFirst(t *testing.T) {
	resp := ask(t, engineWith(), followUpsSnapshot(t), api.SearchRequest{Query: "小周的新公司在哪里？", TopK: 5})
	if len(resp.Results) == 0 || resp.Results[0].SourceID != "z1-1" {
		t.Errorf("%v, want z1-1 first", ids(resp))
	}
}
