package search

import "testing"

// TestAnswersAboveQuestions_shownAsNeighbourBoost: an answer turn that
// scored just below 1.01 times its question is lifted above it, and the
// lift is part of its neighbourBoost, shown in scoreComponents (without
// it the score did not add up to what the components say).
func TestAnswersAboveQuestions_shownAsNeighbourBoost(t *testing.T) {
	e := New(Config{}, nil)
	out := []scored{{doc: 1, score: 1.0}, {doc: 2, score: 1.005}}
	e.answersAboveQuestions(out, map[int]int{2: 1})
	if out[1].score <= 1.01*out[0].score-1e-9 {
		t.Fatalf("the answer scores %v, not above its question's %v", out[1].score, out[0].score)
	}
	m := out[1].comp.asMap()
	if b, ok := m["neighbourBoost"]; !ok || b < 0.004 || b > 0.006 {
		t.Errorf("components %v: want the lift (0.005) as neighbourBoost", m)
	}
	if _, ok := out[0].comp.asMap()["neighbourBoost"]; ok {
		t.Errorf("the question, which nothing lifted, shows a neighbourBoost")
	}
}
