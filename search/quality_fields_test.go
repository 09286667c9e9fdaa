package search_test

import (
	"encoding/json"
	"testing"

	"github.com/nova-recall/nova/api"
)

// TestQuality_retrievalTermsAlwaysListed: a live quality object lists
// retrievalCoveredTerms and retrievalMissingTerms even when one is empty
// (conformance 4.7, upstream's object): an agent that reads
// quality.retrievalMissingTerms after a strong search found no key; the
// unavailable envelope keeps upstream's shorter object without them.
func TestQuality_retrievalTermsAlwaysListed(t *testing.T) {
	fields := func(q api.Quality) map[string]json.RawMessage {
		t.Helper()
		b, err := json.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	e := engineWith()
	for name, req := range map[string]api.SearchRequest{
		"all covered":  {Query: "NOVA-482 UTC time"},
		"none covered": {Query: "zebra quokka"},
	} {
		t.Run(name, func(t *testing.T) {
			q := ask(t, e, build(t, idsSource()), req).Quality
			m := fields(q)
			for _, k := range []string{"retrievalCoveredTerms", "retrievalMissingTerms", "retrievalCoverage"} {
				if v, ok := m[k]; !ok || string(v) == "null" {
					t.Errorf("%s: %s missing (%s) in %s", req.Query, k, v, mustJSON(t, m))
				}
			}
		})
	}
	m := fields(api.Unavailable("q", 8, api.ReasonIndexLoading).Quality)
	for _, k := range []string{"retrievalCoveredTerms", "retrievalMissingTerms", "retrievalCoverage"} {
		if _, ok := m[k]; ok {
			t.Errorf("the unavailable quality has %s", k)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
