package api

import "strings"

// Advice is what a reason code means to a person and what to do about
// it. The CLI, the TUI and the MCP server all explain an unavailable
// search through AdviceFor, so they cannot drift apart.
type Advice struct {
	// What completes "Search unavailable: …": lower case, ending in a
	// period.
	What string
	// Do is the next step, a sentence.
	Do string
}

// String is the advice as one line: what happened, then what to do.
func (a Advice) String() string { return a.What + " " + a.Do }

// adviceRule matches a family of reason codes.
type adviceRule struct {
	match  func(reason string) bool
	advice Advice
}

func is(codes ...string) func(string) bool {
	return func(r string) bool {
		for _, c := range codes {
			if r == c {
				return true
			}
		}
		return false
	}
}

func containsAny(parts ...string) func(string) bool {
	return func(r string) bool {
		for _, p := range parts {
			if strings.Contains(r, p) {
				return true
			}
		}
		return false
	}
}

// adviceTable is tried in order; the first match wins. Exact codes come
// before the families that match by substring, so that a code such as
// search-timeout is not taken for a transport failure.
var adviceTable = []adviceRule{
	{is(ReasonIndexNotLoaded, FreshnessMissing), Advice{"no index is active yet.", "Build one with novactl index sync; novad picks it up without a restart."}},
	{is(FreshnessServerIndexNotReady), Advice{"the active index failed verification and no intact one is kept.", "Run novactl doctor; rebuild with novactl index sync --full."}},
	{is(ReasonIndexLoading), Advice{"the index is still loading.", "Try again in a moment."}},
	{is(ReasonProfileMismatch, ReasonDimensionMismatch), Advice{"the active index was built with another embedder.", "Rebuild it with novactl index sync."}},
	{is(ReasonCapacityExhausted), Advice{"novad is busy with other searches.", "Try again in a few seconds."}},
	{is(ReasonQueryRequired), Advice{"the query is empty.", "Say what to recall."}},
	{containsAny("budget", "timeout"), Advice{"the search took too long.", "Narrow the query or the filters and try again."}},
	{is(ReasonCancelled, ReasonCLIUnavailable+":cancelled"), Advice{"the search was cancelled.", "Run it again."}},
	{containsAny("date", "topK", ReasonInvalidRequest), Advice{"novad refused the request.", "Check the filters."}},
	{containsAny("encoding", "schema", "json"), Advice{"the memory service returned an unreadable response.", "Run novactl doctor to see what is wrong."}},
	{containsAny(ReasonCLIUnavailable, ReasonCLIHTTPPrefix), Advice{"the memory service (novad) is not responding.", "Run novactl doctor to see what is wrong."}},
}

// AdviceFor explains a search envelope's reason code, including the codes
// a client reports for transport failures.
func AdviceFor(reason string) Advice {
	for _, r := range adviceTable {
		if r.match(reason) {
			return r.advice
		}
	}
	return Advice{"the memory service could not complete the search.", "Run novactl doctor to see what is wrong."}
}
