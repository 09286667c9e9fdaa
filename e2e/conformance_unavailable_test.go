package e2e

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestConformance_unavailableDefaults: before any index, every evidence
// section of a search answer holds the stable defaults an agent can read
// without special cases (conformance 2.2 on the facade, 2.3 and 2.4 on the
// direct server), and the topK it echoes stays within 20 (1.21).
func TestConformance_unavailableDefaults(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	d := h.Start()
	for _, tc := range []struct {
		surface, url, body, policy string
		topK                       float64
	}{
		{"facade", d.Facade + api.PathFacadeSearch, `{"query":"  dashboard   port ","topK":25}`, "", 20},
		{"direct", d.Direct + api.PathSearch, `{"query":"  dashboard   port ","top_k":4}`, "unavailable before retrieval", 4},
	} {
		t.Run(tc.surface, func(t *testing.T) {
			r := do(t, http.MethodPost, tc.url, tc.body, nil)
			if r.status != http.StatusOK {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			m := r.json(t)
			if reason, _ := m["reason"].(string); m["available"] != false || reason == "" {
				t.Errorf("conformance 2.2: available %v reason %q", m["available"], reason)
			}
			if m["query"] != "dashboard port" || m["topK"] != tc.topK {
				t.Errorf("conformance 2.3: query %q topK %v", m["query"], m["topK"])
			}
			for _, k := range []string{"results", "citationPack"} {
				if l, ok := m[k].([]any); !ok || len(l) != 0 {
					t.Errorf("conformance 2.2: %s %v, want []", k, m[k])
				}
			}
			plan := m["queryPlan"].(map[string]any)
			if plan["schemaVersion"] != 2.0 || plan["query"] != "dashboard port" || plan["topK"] != tc.topK || plan["status"] != "unavailable" ||
				!isEmptyList(plan["stages"]) || !reflect.DeepEqual(plan["explicitFilters"], map[string]any{}) {
				t.Errorf("conformance 2.2: queryPlan %v", plan)
			}
			if sq, _ := plan["subQueries"].([]any); len(sq) != 1 {
				t.Errorf("conformance 2.2: subQueries %v, want the query alone", plan["subQueries"])
			}
			ev := m["eventAggregation"].(map[string]any)
			if ev["schemaVersion"] != 2.0 || ev["status"] != "unavailable" || ev["eventCount"] != 0.0 || !isEmptyList(ev["events"]) ||
				!isEmptyList(ev["timeline"]) || ev["mostSevereEvent"] != nil || !isEmptyList(ev["resolutionCitations"]) || ev["reason"] == nil {
				t.Errorf("conformance 2.2: eventAggregation %v", ev)
			}
			if _, ok := ev["mostSevereEvent"]; !ok {
				t.Errorf("conformance 2.2: eventAggregation has no mostSevereEvent")
			}
			as := m["answerSynthesis"].(map[string]any)
			if as["status"] != "unavailable" || as["method"] != "extractive" || as["summary"] != "" || !isEmptyList(as["citationIds"]) || as["reason"] == nil {
				t.Errorf("conformance 2.2: answerSynthesis %v", as)
			}
			q := m["quality"].(map[string]any)
			if q["schemaVersion"] != 1.0 || q["status"] != "insufficient" || q["needsMoreEvidence"] != true || q["resultCount"] != 0.0 ||
				!isEmptyList(q["keyTerms"]) || !isEmptyList(q["coveredTerms"]) || !isEmptyList(q["missingTerms"]) || q["coverage"] != 0.0 ||
				!reflect.DeepEqual(q["flags"], map[string]any{}) || !reflect.DeepEqual(q["recommendations"], []any{"retry-when-rag-available"}) {
				t.Errorf("conformance 2.2: quality %v", q)
			}
			rc := m["retrievalController"].(map[string]any)
			if rc["schemaVersion"] != 1.0 || rc["mode"] != "bounded-deterministic-multi-pass" || rc["serverSide"] != true ||
				!reflect.DeepEqual(rc["passesRun"], []any{"quality-gate"}) || rc["qualityStatus"] != "insufficient" || rc["needsMoreEvidence"] != true {
				t.Errorf("conformance 2.2: retrievalController %v", rc)
			}
			if p, _ := rc["executionPolicy"].(string); p == "" || tc.policy != "" && p != tc.policy {
				t.Errorf("conformance 2.3: executionPolicy %q, want %q", p, tc.policy)
			}
			passes, _ := rc["passes"].([]any)
			if len(passes) != 1 {
				t.Fatalf("conformance 2.2: passes %v", rc["passes"])
			}
			if p := passes[0].(map[string]any); p["id"] != "quality-gate" || p["status"] != "insufficient" || p["needsMoreEvidence"] != true {
				t.Errorf("conformance 2.2: passes %v", passes)
			}
			want := map[string]any{"schemaVersion": 2.0, "evidenceFieldsStable": true, "serverSidePlanning": true, "serverSideMultiPass": true,
				"serverSideQualityGate": true, "serverSideEventAggregation": true, "llmGenerated": false}
			if !reflect.DeepEqual(m["agentic"], want) {
				t.Errorf("conformance 2.2: agentic %v, want %v", m["agentic"], want)
			}
		})
	}
}

// isEmptyList reports whether v is a JSON [] (not null, not absent).
func isEmptyList(v any) bool {
	l, ok := v.([]any)
	return ok && len(l) == 0
}
