package api

import (
	"strings"
	"testing"
)

// TestAdviceFor: every reason a search can be unavailable for, from the
// server or from a client's transport, has its own explanation and a next
// step; the CLI, TUI and MCP surfaces all print this table.
func TestAdviceFor(t *testing.T) {
	fallback := AdviceFor("something-new")
	cases := map[string]string{
		ReasonIndexNotLoaded:              "novactl index sync",
		FreshnessMissing:                  "novactl index sync",
		FreshnessServerIndexNotReady:      "index sync --full",
		ReasonIndexLoading:                "still loading",
		ReasonProfileMismatch:             "another embedder",
		ReasonDimensionMismatch:           "another embedder", // the CLI once lacked it
		ReasonCapacityExhausted:           "busy",
		ReasonTimeout:                     "too long",
		ReasonBudgetExhausted:             "too long",
		ReasonCLIBudgetExhausted:          "too long",
		ReasonCLIUnavailable + ":timeout": "too long",
		// novad stopped during the search: the user cancelled nothing.
		ReasonCancelled:                                "novad stopped while searching",
		ReasonCLIUnavailable + ":cancelled":            "the search was cancelled",
		ReasonQueryRequired:                            "empty",
		ReasonInvalidRequest:                           "refused the request",
		ReasonInvalidFieldPrefix + "date":              "YYYY-MM-DD",
		ReasonInvalidFieldPrefix + "dateRange":         "YYYY-MM-DD",
		ReasonInvalidFieldPrefix + "query":             "at most 4000 characters",
		ReasonInvalidFieldPrefix + "topK":              "1 to 20 results",
		ReasonInvalidFieldPrefix + "remainingBudgetMs": "refused a field",
		ReasonInvalidFieldPrefix + "tags":              "refused a field",
		ReasonCLIInvalidJSON:                           "unreadable",
		ReasonCLIInvalidSchema:                         "unreadable",
		ReasonCLIInvalidEncoding:                       "unreadable",
		ReasonCLIUnavailable + ":transport":            "not responding",
		ReasonCLIUnavailable + ":connection-refused":   "not responding",
		ReasonCLIHTTPPrefix + "502":                    "not responding",
		// Something answers on the ports: "not responding" sent the
		// user to start a novad the taken ports would stop.
		ReasonCLIOtherHome: "another program",
	}
	for reason, want := range cases {
		a := AdviceFor(reason)
		if a == fallback {
			t.Errorf("%s: falls back to %q", reason, a)
		}
		if !strings.Contains(a.String(), want) {
			t.Errorf("%s: %q lacks %q", reason, a, want)
		}
		if !strings.HasSuffix(a.What, ".") || a.What != strings.ToLower(a.What[:1])+a.What[1:] || a.Do == "" {
			t.Errorf("%s: %+v: want a lower-case sentence and a next step", reason, a)
		}
	}
	if !strings.Contains(fallback.Do, "novactl doctor") {
		t.Errorf("fallback %+v does not point at novactl doctor", fallback)
	}
}

// TestRefusedAsInvalid: the reasons of a request refused as invalid, and
// only those, are marked so; a CLI exits 2 on them.
func TestRefusedAsInvalid(t *testing.T) {
	for _, reason := range []string{ReasonInvalidRequest, ReasonQueryRequired, ReasonInvalidFieldPrefix + "date",
		ReasonInvalidFieldPrefix + "query", ReasonInvalidFieldPrefix + "remainingBudgetMs"} {
		if !RefusedAsInvalid(reason) {
			t.Errorf("%s: not refused as invalid", reason)
		}
	}
	for _, reason := range []string{ReasonIndexNotLoaded, ReasonCapacityExhausted, ReasonTimeout, ReasonBudgetExhausted,
		ReasonCancelled, ReasonCLIUnavailable + ":connection-refused", ReasonCLIHTTPPrefix + "502", ReasonInternal, "something-new"} {
		if RefusedAsInvalid(reason) {
			t.Errorf("%s: refused as invalid", reason)
		}
	}
}
