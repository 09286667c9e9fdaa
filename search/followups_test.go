package search_test

import (
	"slices"
	"strings"
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
		// A short question that asks no kind of its own (钓到了吗？)
		// goes on with the statement's subject.
		{"阿杰在水库钓了几条鱼？", "z3-3", "z3-1"},
	} {
		req := api.SearchRequest{Query: c.query, TopK: 5}
		resp := ask(t, engineWith(), snap, req)
		if len(resp.Results) == 0 || resp.Results[0].SourceID != c.answer {
			t.Errorf("%s: %v, want %s first", c.query, ids(resp), c.answer)
		}
		// Without the lever the statement outranks its answer: the test
		// measures the lever, not the fixture. The characters the
		// question's words share with an answer find it too: that lever
		// is off on both sides.
		if on := ask(t, engineWith(search.LeverCharacters), snap, req); rank(on, c.answer) != 0 {
			t.Errorf("%s with only the lever: %v, want %s first", c.query, ids(on), c.answer)
		}
		off := ask(t, engineWith(search.LeverFollowUps, search.LeverCharacters), snap, req)
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

// A follow-up that names a new subject (老师呢？) is not a continuation:
// its answer's number (二十年) says nothing of the statement's fee.
func TestFollowUps_newSubjectIsNoContinuation(t *testing.T) {
	resp := ask(t, engineWith(), followUpsSnapshot(t), api.SearchRequest{Query: "小周女儿的画画班学费多少？", TopK: 5})
	if s, a := rank(resp, "z4-1"), rank(resp, "z4-3"); s < 0 || (a >= 0 && a < s) {
		t.Errorf("%v, want z4-1 above z4-3", ids(resp))
	}
}

// A turn that says something and then asks ("真的假的。豆包现在多重了？")
// is answered by the turn after it when that turn holds the kind of
// answer the query asks for (十一公斤) and the asking turn does not: the
// answer ranks above it.
func TestQuestions_afterAStatementAnsweredInTheNextTurn(t *testing.T) {
	snap := followUpsSnapshot(t)
	req := api.SearchRequest{Query: "豆包现在多重？", TopK: 5}
	resp := ask(t, engineWith(), snap, req)
	if a, q := rank(resp, "z5-3"), rank(resp, "z5-2"); a < 0 || (q >= 0 && q < a) {
		t.Errorf("%v, want z5-3 above z5-2", ids(resp))
	}
	off := ask(t, engineWith(search.LeverQuestions), snap, req)
	if a, q := rank(off, "z5-3"), rank(off, "z5-2"); q < 0 || (a >= 0 && a < q) {
		t.Errorf("without the lever: %v, want z5-2 above z5-3 (the fixture should need the lever)", ids(off))
	}
}

// A candidate decoded for scoring alone holds what scoring reads as its
// whole chunk does, and whether its text asks a question; asking for its
// text or chunk afterwards gives them whole, not the scoring decode's.
func TestDecodeForScoring_thenWhole(t *testing.T) {
	snap := followUpsSnapshot(t)
	questions := 0
	for doc := range snap.Gen.Len() {
		want := snap.Gen.Chunk(doc)
		meta, asks, text, full, again := search.DecodeForScoring(snap, doc)
		if text != want.Text || full.Text != want.Text || full.ID != want.ID || again != full {
			t.Fatalf("doc %d after scoring: text %q, chunk %q %q (the same again: %v), want %q %q", doc, text, full.ID, full.Text, again == full, want.ID, want.Text)
		}
		g, wg := meta.Governance, want.Governance
		if meta.Date != want.Date || meta.Time != want.Time || meta.Agent != want.Agent || meta.SessionID != want.SessionID ||
			meta.WorkType != want.WorkType || !slices.Equal(meta.Tags, want.Tags) || g.SourceSet != wg.SourceSet ||
			g.Lifecycle != wg.Lifecycle || g.AuthorityRank != wg.AuthorityRank || g.RetrievalWeight != wg.RetrievalWeight ||
			g.ProvenanceScore != wg.ProvenanceScore {
			t.Fatalf("doc %d decoded for scoring:\n got %+v\nwant %+v", doc, *meta, *want)
		}
		trimmed := strings.TrimSpace(want.Text)
		if wantAsks := strings.HasSuffix(trimmed, "?") || strings.HasSuffix(trimmed, "？"); asks != wantAsks {
			t.Fatalf("doc %d %q: asks %v, want %v", doc, want.Text, asks, wantAsks)
		}
		if asks {
			questions++
		}
	}
	if questions == 0 {
		t.Fatal("no question in the fixture: the test shows nothing of asks")
	}
}
