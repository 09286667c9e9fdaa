package api

import (
	"fmt"
	"slices"
	"strings"
)

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

// ReasonInvalidFieldPrefix begins the reason of a search refused for one
// field of the request, which follows it: "invalid-field:date".
const ReasonInvalidFieldPrefix = "invalid-field:"

// adviceRule matches a family of reason codes.
type adviceRule struct {
	match  func(reason string) bool
	advice Advice
	// invalid marks a request refused as invalid: sent again unchanged it
	// is refused again, so for a CLI it is a usage error.
	invalid bool
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

func field(names ...string) func(string) bool {
	return func(r string) bool {
		name, ok := strings.CutPrefix(r, ReasonInvalidFieldPrefix)
		return ok && (len(names) == 0 || slices.Contains(names, name))
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
	{is(ReasonIndexNotLoaded, FreshnessMissing), Advice{"no index is active yet.", "Build one with novactl index sync; novad picks it up without a restart."}, false},
	// Damage, or a generation of an older Nova's format after an upgrade:
	// a sync builds past either.
	{is(FreshnessServerIndexNotReady), Advice{"the active index cannot be served (it failed verification, or an older Nova wrote it) and no intact one is kept.", "Run novactl doctor, which says which; novactl index sync --full builds a new one."}, false},
	{is(ReasonIndexLoading), Advice{"the index is still loading.", "Try again in a moment."}, false},
	{is(ReasonProfileMismatch, ReasonDimensionMismatch), Advice{"the active index was built with another embedder.", "Rebuild it with novactl index sync."}, false},
	{is(ReasonCapacityExhausted), Advice{"novad is busy with other searches.", "Try again in a few seconds."}, false},
	// Something answers on this home's ports, so it is not that novad is
	// down: starting it would fail on the taken ports.
	{is(ReasonCLIOtherHome), Advice{"another program, perhaps the novad of another Nova home, answers on this home's ports, so nothing was sent.", "Stop that program, or give this home other ports (server.port and facade.port in config.yaml); novactl doctor names the port."}, false},
	{is(ReasonQueryRequired), Advice{"the query is empty.", "Say what to recall."}, true},
	// A refused field comes before the substring families: its name may
	// contain one of their words (remainingBudgetMs).
	{field("query"), Advice{"novad refused the query.", fmt.Sprintf("Send it as text of at most %d characters.", MaxQueryRunes)}, true},
	{field("date", "dateFrom", "dateTo", "dateRange"), Advice{"novad refused a date filter.", "Give dates as YYYY-MM-DD, a range's start on or before its end."}, true},
	{field("topK"), Advice{"novad refused the number of results.", fmt.Sprintf("Ask for %d to %d results.", MinTopK, MaxTopK)}, true},
	{field(), Advice{"novad refused a field of the request.", "Correct the field the error names and try again."}, true},
	{is(ReasonInvalidRequest), Advice{"novad refused the request.", "Correct what the error names and try again."}, true},
	{containsAny("budget", "timeout"), Advice{"the search took too long.", "Narrow the query or the filters and try again."}, false},
	// novad's own search-cancelled: it ends a search it works on when it
	// stops (SIGTERM, a restart). A client that cancels reads no answer,
	// so one that reads this one cancelled nothing, and was told it had.
	{is(ReasonCancelled), Advice{"novad stopped while searching (it was stopped or restarted).", "Run it again once novad is back; if it stays down, start it as it is installed here (novactl doctor names the command)."}, false},
	// The client's own: the user interrupted it (Ctrl-C) before novad
	// answered.
	{is(ReasonCLIUnavailable + ":cancelled"), Advice{"the search was cancelled.", "Run it again."}, false},
	{containsAny("encoding", "schema", "json"), Advice{"the memory service returned an unreadable response.", "Run novactl doctor to see what is wrong."}, false},
	{containsAny(ReasonCLIUnavailable, ReasonCLIHTTPPrefix), Advice{"the memory service (novad) is not responding.", "Run novactl doctor to see what is wrong."}, false},
}

// RefusedAsInvalid reports whether reason says the server refused the
// request itself as invalid (a bad field, an empty or malformed query),
// as opposed to being unable to answer it.
func RefusedAsInvalid(reason string) bool {
	for _, r := range adviceTable {
		if r.match(reason) {
			return r.invalid
		}
	}
	return false
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
