package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// SearchBody is the facade's JSON request as a client writes it.
type SearchBody struct {
	Query             string     `json:"query"`
	TopK              int        `json:"topK,omitempty"`
	Date              string     `json:"date,omitempty"`
	DateRange         *DateRange `json:"dateRange,omitempty"`
	Project           string     `json:"project,omitempty"`
	Role              string     `json:"role,omitempty"`
	Agent             string     `json:"agent,omitempty"`
	Tags              []string   `json:"tags,omitempty"`
	SourceSets        []string   `json:"sourceSets,omitempty"`
	Lifecycle         []string   `json:"lifecycle,omitempty"`
	WorkType          []string   `json:"workType,omitempty"`
	IncludeFullText   *bool      `json:"includeFullText,omitempty"`
	IncludeGovernance *bool      `json:"includeGovernance,omitempty"`
	RemainingBudgetMs int        `json:"remainingBudgetMs,omitempty"`
	BudgetCall        int        `json:"budgetCall,omitempty"`
	BudgetMaxCalls    int        `json:"budgetMaxCalls,omitempty"`
}

// DateRange is an inclusive range of YYYY-MM-DD dates; either end may be empty.
type DateRange struct {
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// Filters are the hard filters of a search. Empty values do not filter.
// All filters combine with AND; list filters match any of their values.
//
// A date is YYYY-MM-DD or, as a request may send it, an RFC 3339 time,
// which names the day it falls on in the user's zone (DayIn): the search
// engine turns it into that day before filtering.
type Filters struct {
	Date       string   // exact business date
	DateFrom   string   // inclusive
	DateTo     string   // inclusive
	Role       string   // speaker role (user/assistant), falling back to agent
	Agent      string   // producing agent
	Project    string   // exact project
	Tags       []string // any of
	SourceSets []string // any of
	Lifecycles []string // any of
	WorkTypes  []string // any of
}

// Empty reports whether no filter is set.
func (f Filters) Empty() bool {
	return f.Date == "" && f.DateFrom == "" && f.DateTo == "" && f.Role == "" && f.Agent == "" &&
		f.Project == "" && len(f.Tags) == 0 && len(f.SourceSets) == 0 && len(f.Lifecycles) == 0 && len(f.WorkTypes) == 0
}

// Explicit returns the filters as they are reported in queryPlan.
func (f Filters) Explicit() ExplicitFilters {
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	return ExplicitFilters{
		Date: opt(f.Date), DateFrom: opt(f.DateFrom), DateTo: opt(f.DateTo),
		Role: opt(f.Role), Agent: opt(f.Agent), Project: opt(f.Project),
		Tags: nonNil(f.Tags), SourceSets: nonNil(f.SourceSets),
		Lifecycles: nonNil(f.Lifecycles), WorkTypes: nonNil(f.WorkTypes),
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// SearchRequest is a decoded, validated and normalised search request.
type SearchRequest struct {
	Query             string
	TopK              int
	Filters           Filters
	IncludeFullText   bool
	IncludeGovernance bool
	// LatencyBudgetMs is the caller's requested server budget; 0 means the
	// configured default. It can only lower the budget.
	LatencyBudgetMs int
	// RemainingBudgetMs is the caller's remaining monotonic budget (facade);
	// nil when the caller did not send one.
	RemainingBudgetMs *int
}

// Surface selects the rules that differ between the facade and the direct
// server.
type Surface int

const (
	// Facade clamps topK into [1, 20].
	Facade Surface = iota
	// Direct answers 422 for a topK outside [1, 20] and for a missing or
	// blank query, as upstream's framework validation does.
	Direct
)

// RequestError is a search request the server refuses. It carries what is
// needed to answer with the full envelope.
type RequestError struct {
	Status int
	Reason string
	Field  string
	// Query and TopK are what could be recovered from the request, for the
	// envelope's queryPlan.
	Query string
	TopK  int
}

func (e *RequestError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s: %s", e.Field, e.Reason)
	}
	return e.Reason
}

// MaxSearchBodyBytes bounds a search request body.
const MaxSearchBodyBytes = 64 << 10

// DecodeSearchRequest parses a search body for surface. defaultTopK is the
// configured default. Unknown fields are ignored; aliases are accepted:
// top_k, dateFrom/dateTo, date_from/date_to, dateRange{from,to},
// source_sets, lifecycles, workTypes, work_type, tag, latency_budget_ms,
// include_full_text, include_governance.
func DecodeSearchRequest(body []byte, surface Surface, defaultTopK int) (SearchRequest, *RequestError) {
	if defaultTopK < MinTopK || defaultTopK > MaxTopK {
		defaultTopK = DefaultTopK
	}
	req := SearchRequest{TopK: defaultTopK, IncludeFullText: true, IncludeGovernance: true}
	fail := func(status int, field, reason string) (SearchRequest, *RequestError) {
		return req, &RequestError{Status: status, Field: field, Reason: reason, Query: req.Query, TopK: req.TopK}
	}
	if !utf8.Valid(body) {
		return fail(http.StatusBadRequest, "", "body is not valid UTF-8")
	}
	fields, err := decodeObject(body)
	if err != nil {
		return fail(http.StatusBadRequest, "", err.Error())
	}
	// The query comes first so that every later failure can echo it.
	if raw, ok := fields["query"]; ok {
		var q string
		if json.Unmarshal(raw, &q) != nil {
			if string(raw) != "null" {
				return fail(http.StatusUnprocessableEntity, "query", "query must be a string")
			}
		}
		req.Query = strings.Join(strings.Fields(q), " ")
	}

	var ferr *RequestError
	intField := func(names ...string) (int, bool) {
		for _, name := range names {
			raw, ok := fields[name]
			if !ok || string(raw) == "null" {
				continue
			}
			n, err := parseInt(raw)
			if err != nil {
				ferr = &RequestError{Status: http.StatusUnprocessableEntity, Field: name, Reason: name + " must be an integer"}
				return 0, false
			}
			return n, true
		}
		return 0, false
	}
	strField := func(names ...string) string {
		for _, name := range names {
			raw, ok := fields[name]
			if !ok || string(raw) == "null" {
				continue
			}
			var s string
			if json.Unmarshal(raw, &s) != nil {
				ferr = &RequestError{Status: http.StatusUnprocessableEntity, Field: name, Reason: name + " must be a string"}
				return ""
			}
			return strings.TrimSpace(s)
		}
		return ""
	}
	listField := func(names ...string) []string {
		for _, name := range names {
			raw, ok := fields[name]
			if !ok || string(raw) == "null" {
				continue
			}
			list, err := parseStringList(raw)
			if err != nil {
				ferr = &RequestError{Status: http.StatusUnprocessableEntity, Field: name, Reason: name + " must be a string or a list of strings"}
				return nil
			}
			return list
		}
		return nil
	}
	boolField := func(def bool, names ...string) bool {
		for _, name := range names {
			raw, ok := fields[name]
			if !ok || string(raw) == "null" {
				continue
			}
			var b bool
			if json.Unmarshal(raw, &b) != nil {
				ferr = &RequestError{Status: http.StatusUnprocessableEntity, Field: name, Reason: name + " must be a boolean"}
				return def
			}
			return b
		}
		return def
	}

	if n, ok := intField("topK", "top_k"); ok {
		switch {
		case surface == Direct && (n < MinTopK || n > MaxTopK):
			return fail(http.StatusUnprocessableEntity, "topK", fmt.Sprintf("topK must be an integer from %d to %d", MinTopK, MaxTopK))
		case n == 0:
			// absent or 0 means the configured default (facade)
		default:
			req.TopK = ClampTopK(n)
		}
	}
	if ferr != nil {
		return fail(ferr.Status, ferr.Field, ferr.Reason)
	}

	f := &req.Filters
	f.Date = strField("date")
	f.DateFrom = strField("dateFrom", "date_from")
	f.DateTo = strField("dateTo", "date_to")
	if raw, ok := fields["dateRange"]; ok && string(raw) != "null" {
		// Its keys follow the body's rules, exact case and no repeats:
		// json.Unmarshal into a struct took "FROM" for from, and the last
		// of two from.
		dr, err := decodeObject(raw)
		var from, to *string
		if err != nil || json.Unmarshal(orNull(dr["from"]), &from) != nil || json.Unmarshal(orNull(dr["to"]), &to) != nil {
			return fail(http.StatusUnprocessableEntity, "dateRange", "dateRange must be an object {from, to}, each key once")
		}
		if from != nil && f.DateFrom == "" {
			f.DateFrom = strings.TrimSpace(*from)
		}
		if to != nil && f.DateTo == "" {
			f.DateTo = strings.TrimSpace(*to)
		}
	}
	f.Role = strField("role")
	f.Agent = strField("agent")
	f.Project = strField("project")
	f.Tags = listField("tags", "tag")
	f.SourceSets = listField("sourceSets", "source_sets")
	f.Lifecycles = listField("lifecycle", "lifecycles")
	f.WorkTypes = listField("workType", "workTypes", "work_type")
	req.IncludeFullText = boolField(true, "includeFullText", "include_full_text")
	req.IncludeGovernance = boolField(true, "includeGovernance", "include_governance")
	for _, name := range []string{"latencyBudgetMs", "latency_budget_ms"} {
		raw, ok := fields[name]
		if !ok || string(raw) == "null" {
			continue
		}
		n, err := parseMillis(raw)
		if err != nil {
			ferr = &RequestError{Status: http.StatusUnprocessableEntity, Field: name, Reason: name + " must be a number of milliseconds"}
		} else if n > 0 {
			req.LatencyBudgetMs = n
		}
		break
	}
	if ferr != nil {
		return fail(ferr.Status, ferr.Field, ferr.Reason)
	}
	if raw, ok := fields["remainingBudgetMs"]; ok && string(raw) != "null" {
		n, err := parseMillis(raw)
		if err != nil {
			// A budget the server cannot read is refused rather than
			// guessed: 0 would silently refuse, infinity would overrun.
			return fail(http.StatusBadRequest, "remainingBudgetMs", "remainingBudgetMs must be a number of milliseconds")
		}
		if n < 0 {
			n = 0
		}
		req.RemainingBudgetMs = &n
	}
	// A time is kept as sent: the day it names is the one it falls on in
	// the user's zone, which the engine knows and the request does not
	// (Filters).
	for _, d := range []struct{ name, v string }{{"date", f.Date}, {"dateFrom", f.DateFrom}, {"dateTo", f.DateTo}} {
		if _, ok := NormalizeDate(d.v); d.v != "" && !ok {
			return fail(http.StatusUnprocessableEntity, d.name, d.name+" must be a calendar date YYYY-MM-DD or an RFC 3339 time")
		}
	}
	if f.DateFrom != "" && f.DateTo != "" && DateBoundAfter(f.DateFrom, f.DateTo) {
		return fail(http.StatusUnprocessableEntity, "dateRange", fmt.Sprintf("dateFrom %s is after dateTo %s", f.DateFrom, f.DateTo))
	}
	// A date outside its range matches nothing, as a reversed range does:
	// the search would answer that nothing is remembered.
	if f.Date != "" && (f.DateFrom != "" && DateBoundAfter(f.DateFrom, f.Date) || f.DateTo != "" && DateBoundAfter(f.Date, f.DateTo)) {
		return fail(http.StatusUnprocessableEntity, "date", fmt.Sprintf("date %s is outside dateFrom %s to dateTo %s", f.Date, orOpen(f.DateFrom), orOpen(f.DateTo)))
	}
	if req.Query == "" {
		// The facade answers 400 (conformance 2.1); the direct server
		// validates its body as upstream's framework does, with 422
		// (conformance 1.20), so a client of either sees the code it
		// was written against.
		status := http.StatusBadRequest
		if surface == Direct {
			status = http.StatusUnprocessableEntity
		}
		return fail(status, "query", ReasonQueryRequired)
	}
	if utf8.RuneCountInString(req.Query) > MaxQueryRunes {
		return fail(http.StatusUnprocessableEntity, "query", fmt.Sprintf("query is longer than %d characters", MaxQueryRunes))
	}
	return req, nil
}

// MaxQueryRunes bounds the length of a query.
const MaxQueryRunes = 4000

// ClampTopK clamps n into [MinTopK, MaxTopK].
func ClampTopK(n int) int {
	return max(MinTopK, min(MaxTopK, n))
}

// NormalizeDate accepts YYYY-MM-DD or an RFC 3339 timestamp and returns the
// date part, validated. The date part is the day on the timestamp's own
// clock; DayIn gives the day it is somewhere else.
func NormalizeDate(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) >= 10 {
		if _, err := time.Parse("2006-01-02", s[:10]); err == nil {
			if len(s) == 10 {
				return s, true
			}
			if _, err := time.Parse(time.RFC3339, s); err == nil {
				return s[:10], true
			}
		}
	}
	return "", false
}

// DayIn returns the day a date filter's value names in loc: a YYYY-MM-DD
// date is that day anywhere, an RFC 3339 time the day it falls on in loc.
// ok is false for anything else.
func DayIn(s string, loc *time.Location) (string, bool) {
	s = strings.TrimSpace(s)
	day, ok := NormalizeDate(s)
	if !ok || len(s) == len(day) {
		return day, ok
	}
	t, _ := time.Parse(time.RFC3339, s) // NormalizeDate parsed it
	// Days are compared as strings of four-digit years.
	switch y := t.In(loc).Year(); {
	case y > 9999:
		return "9999-12-31", true
	case y < 0:
		return "0000-01-01", true
	}
	return t.In(loc).Format(time.DateOnly), true
}

// DateBoundAfter reports whether date filter value a (YYYY-MM-DD or an
// RFC 3339 time) is after b wherever the user is: what the server
// refuses as a reversed range, and a client can check before it sends.
// Two times are compared as instants, two dates as days. A time and a
// date are compared by the time's day in the zone that makes it the
// nearest the date (UTC-12 or UTC+14): a time names the day it falls on
// in the user's zone (DayIn), which the request does not carry, and an
// agent's "today so far" is the user's date to now in UTC, a day before
// it on UTC's clock east of Greenwich after midnight.
func DateBoundAfter(a, b string) bool {
	ta, errA := time.Parse(time.RFC3339, strings.TrimSpace(a))
	tb, errB := time.Parse(time.RFC3339, strings.TrimSpace(b))
	switch {
	case errA == nil && errB == nil:
		return ta.After(tb)
	case errA == nil:
		a, _ = DayIn(a, earliestZone)
	case errB == nil:
		b, _ = DayIn(b, latestZone)
	}
	da, _ := NormalizeDate(a)
	db, _ := NormalizeDate(b)
	return da > db
}

// earliestZone and latestZone are the zones furthest behind and ahead of
// UTC, where a time's day is the earliest and the latest it is anywhere.
var (
	earliestZone = time.FixedZone("UTC-12", -12*3600)
	latestZone   = time.FixedZone("UTC+14", 14*3600)
)

// decodeObject parses body as exactly one JSON object whose top-level keys
// are unique, and returns the raw value of each key.
func decodeObject(body []byte) (map[string]json.RawMessage, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, errors.New("body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil {
		return nil, errors.New("body is not valid JSON")
	}
	fields := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, errors.New("body is not valid JSON")
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("body is not valid JSON")
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, errors.New("body is not valid JSON")
		}
		// A repeated key is ambiguous (which one did the caller mean?) and a
		// classic parser-differential trick, so it is refused.
		if _, dup := fields[key]; dup {
			return nil, fmt.Errorf("duplicate key %q", key)
		}
		fields[key] = raw
	}
	if _, err := dec.Token(); err != nil {
		return nil, errors.New("body is not valid JSON")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("body has trailing data after the JSON object")
	}
	return fields, nil
}

// orOpen names an unset bound of a date range.
func orOpen(d string) string {
	if d == "" {
		return "(open)"
	}
	return d
}

// orNull is raw, or JSON null for a key the object does not have.
func orNull(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return json.RawMessage("null")
	}
	return raw
}

func parseInt(raw json.RawMessage) (int, error) {
	f, ok := parseNumber(raw)
	if !ok || f != math.Trunc(f) {
		return 0, errors.New("not an integer")
	}
	return int(f), nil
}

// parseMillis reads a number of milliseconds. A client's clock gives
// fractions (performance.now(), time.monotonic() * 1000); they are
// rounded down, so a budget read here is never more than was sent.
func parseMillis(raw json.RawMessage) (int, error) {
	f, ok := parseNumber(raw)
	if !ok {
		return 0, errors.New("not a number of milliseconds")
	}
	return int(math.Floor(f)), nil
}

// maxNumber bounds the numbers read: any int holds it, and it is more
// than any field means (topK, budgets in milliseconds).
const maxNumber = 1e12

// parseNumber reads a JSON number (or a string holding one). One larger
// than maxNumber, even past what a float64 holds, reads as maxNumber:
// 1e30 ms asks for as long a budget as can be had, and 1e300 results for
// as many as can be given, so the field's own bounds apply to them.
func parseNumber(raw json.RawMessage) (float64, bool) {
	var num json.Number
	if err := json.Unmarshal(raw, &num); err != nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(f) {
		return 0, false
	}
	return max(-maxNumber, min(maxNumber, f)), true
}

func parseStringList(raw json.RawMessage) ([]string, error) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		one = strings.TrimSpace(one)
		if one == "" {
			return nil, nil
		}
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := []string{}
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
