package contracttest

import (
	"encoding/json"
	"testing"

	"github.com/nova-recall/nova/api"
)

// TestValidateRefuses: the validator is not vacuous. A real envelope
// passes; one with a field removed, a field of the wrong type, or a
// fractional integer does not.
func TestValidateRefuses(t *testing.T) {
	good, err := json.Marshal(api.Unavailable("q", 8, api.ReasonIndexNotLoaded))
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(SearchResponse, good, false); err != nil {
		t.Fatalf("a real unavailable envelope: %v", err)
	}
	mutate := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	for name, body := range map[string][]byte{
		"missing available":      mutate(func(m map[string]any) { delete(m, "available") }),
		"available a string":     mutate(func(m map[string]any) { m["available"] = "false" }),
		"resultCount fractional": mutate(func(m map[string]any) { m["quality"].(map[string]any)["resultCount"] = 2.5 }),
		"no reason":              mutate(func(m map[string]any) { delete(m, "reason") }),
		"not JSON":               []byte("{"),
	} {
		if err := Validate(SearchResponse, body, false); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := Validate(SearchResponse, good, true); err == nil {
		t.Error("a facade response without externalAgentContract: accepted")
	}
}
