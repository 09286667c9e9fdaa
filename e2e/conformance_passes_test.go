package e2e

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
)

// TestConformance_boundedPassesAndNoWriteBack: every live search runs at
// most four named retrieval passes and reports them (conformance 4.2), and
// searching writes nothing: no file under NOVA_HOME changes, and the
// answer says it is extractive, with no LLM and no write-back (4.20).
func TestConformance_boundedPassesAndNoWriteBack(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	h.Sync()
	d := h.Start()
	before := snapshot(t, h.Dir)

	ids := map[string]bool{"baseline-hybrid": true, "exact-entity-recall": true, "subquery-rewrite": true, "authoritative-source-pass": true}
	seen := map[string]bool{}
	for _, q := range []string{"why was the dashboard port unavailable", "RC-204 migration script", "xylophone calibration QX-9931",
		"迁移后定时任务为什么失败", "what did we decide about the task store"} {
		m := search(t, d.Facade, fmt.Sprintf(`{"query":%q,"topK":5}`, q)).json(t)
		if m["available"] != true {
			t.Fatalf("%s: unavailable: %v", q, m["reason"])
		}
		rc := m["retrievalController"].(map[string]any)
		run, _ := rc["passesRun"].([]any)
		var retrieval []string
		for _, p := range run {
			s := p.(string)
			if s == "fusion-rerank-dedupe" || s == "quality-gate" {
				continue
			}
			if !ids[s] {
				t.Errorf("conformance 4.2: %s: pass %q is not one of the four", q, s)
			}
			seen[s] = true
			retrieval = append(retrieval, s)
		}
		if len(retrieval) == 0 || len(retrieval) > 4 || retrieval[0] != "baseline-hybrid" {
			t.Errorf("conformance 4.2: %s: retrieval passes %v", q, retrieval)
		}
		tel, _ := rc["passTelemetry"].([]any)
		if len(tel) != len(retrieval) {
			t.Errorf("conformance 4.2: %s: passTelemetry %v for passes %v", q, tel, retrieval)
		}
		for i, x := range tel {
			p := x.(map[string]any)
			for _, k := range []string{"id", "elapsedMs", "candidateCount", "qualityStatus"} {
				if _, ok := p[k]; !ok {
					t.Errorf("conformance 4.2: %s: passTelemetry[%d] has no %q", q, i, k)
				}
			}
			if i < len(retrieval) && p["id"] != retrieval[i] {
				t.Errorf("conformance 4.2: %s: passTelemetry[%d] is %v, passesRun %v", q, i, p["id"], retrieval)
			}
		}
		ag := m["agentic"].(map[string]any)
		if !reflect.DeepEqual(ag["limits"], []any{"no-llm-query-rewrite", "no-llm-answer-generation", "no-writeback-memory"}) || ag["llmGenerated"] != false {
			t.Errorf("conformance 4.20: %s: agentic limits %v llmGenerated %v", q, ag["limits"], ag["llmGenerated"])
		}
		if as := m["answerSynthesis"].(map[string]any); as["method"] != "extractive" {
			t.Errorf("conformance 4.20: %s: answerSynthesis.method %v", q, as["method"])
		}
	}
	if !seen["exact-entity-recall"] && !seen["subquery-rewrite"] && !seen["authoritative-source-pass"] {
		t.Errorf("fixture: no query ran an optional pass, so the bound was never tested: %v", seen)
	}
	if after := snapshot(t, h.Dir); !reflect.DeepEqual(before, after) {
		t.Errorf("conformance 4.20: searching changed files under NOVA_HOME:\nbefore %v\nafter  %v", before, after)
	}
}
