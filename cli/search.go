package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/nova-recall/nova/agents"
	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/client"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/inert"
	"github.com/nova-recall/nova/truncate"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// timeoutFlag is --timeout: a Go duration (65s, 2m) or a plain number of
// seconds, which is how the contract's "search --timeout 3", and scripts
// written for "rag search-memory", give it.
type timeoutFlag time.Duration

func (d *timeoutFlag) String() string { return time.Duration(*d).String() }

func (d *timeoutFlag) Set(v string) error {
	if secs, err := strconv.ParseFloat(v, 64); err == nil && math.Abs(secs) < math.MaxInt64/float64(time.Second) { // (false for NaN and ±Inf)
		*d = timeoutFlag(time.Duration(secs * float64(time.Second)))
		return nil
	}
	parsed, err := time.ParseDuration(v)
	if err != nil {
		return errors.New("want a duration (65s, 2m) or a number of seconds")
	}
	*d = timeoutFlag(parsed)
	return nil
}

const searchHelp = `Searches memory through the running novad's facade (POST /api/rag/external/search)
and prints the results with their citations and the quality verdict. It never
starts a server, builds an index or writes settings.

Exit status: 2 on a usage error, including a request novad refused as invalid;
otherwise 0 whenever a response came back (check "available" with --json), and
1 when novad could not be reached (without --json) or the search was
interrupted (Ctrl-C). With --json, an error that stops the search before a
response prints {"ok":false,"error":...}.

A query of "-" is read from standard input (echo "QUERY" | novactl search -).
A query that starts with "-" follows "--": novactl search -- "-x flag".`

func runSearch(ctx context.Context, inv *Invocation, args []string) int {
	return search(ctx, inv, "novactl search", args)
}

// search runs novactl search as the command name names it (novactl rag
// search-memory is the same command), so that its usage and messages
// name the command the user typed.
func search(ctx context.Context, inv *Invocation, name string, args []string) int {
	fs := newFlags(inv, name, name+` "<query>" [flags]`, searchHelp)
	topK := fs.Int("top-k", api.CLIDefaultTopK, "number of results (clamped to 1-20)")
	jsonOut := fs.Bool("json", false, "print the raw response envelope as JSON")
	timeoutValue := timeoutFlag(api.CLITimeoutMs * time.Millisecond)
	fs.Var(&timeoutValue, "timeout", "HTTP timeout, a `duration` (65s, 2m) or seconds (the server caps one search at 60s)")
	timeout := (*time.Duration)(&timeoutValue)
	date := fs.String("date", "", "only memories of this date (YYYY-MM-DD)")
	dateFrom := fs.String("date-from", "", "only memories on or after this date")
	dateTo := fs.String("date-to", "", "only memories on or before this date")
	project := fs.String("project", "", "only memories of this project")
	role := fs.String("role", "", "only memories with this role (user, assistant) or agent")
	agent := fs.String("agent", "", "only memories from this agent ("+strings.Join(agents.MemoryKinds(), ", ")+", ...)")
	lifecycle := fs.String("lifecycle", "", "only memories with this lifecycle (current-state, canonical, episodic, ...)")
	workType := fs.String("work-type", "", "only memories of this work type (incident, config, task, ...)")
	facadeURL := fs.String("facade-url", "", "facade base URL, on loopback (default: the local novad from NOVA_HOME)")
	dashboardURL := fs.String("dashboard-url", "", "alias of --facade-url")
	var tags, sourceSets stringList
	fs.Var(&tags, "tag", "only memories with this tag or one nested under it (travel finds travel/lisbon; repeatable; any matches)")
	fs.Var(&sourceSets, "source-set", "only memories of this source set (repeatable)")
	pos, code := parseArgs(inv, fs, args)
	if code >= 0 {
		return code
	}
	// fail reports an error that stops the search before a response:
	// with --json as JSON on stdout, so a script reading it always gets
	// JSON. A usage error's text form starts "Error:", not the name, and
	// points to the command's help as every usage error does.
	fail := func(code int, msg string) int {
		if code == ExitUsage && !*jsonOut {
			fmt.Fprintf(inv.Stderr, "Error: %s\n%s", msg, helpPointer(name))
			return code
		}
		return commandError(inv, *jsonOut, name, code, msg)
	}
	query := strings.TrimSpace(strings.Join(pos, " "))
	if len(pos) == 1 && pos[0] == "-" {
		// A query piped in (a long or multi-line one, or one a script
		// built) is read from standard input, as "-" means to most tools.
		// Its cap is well above the longest query searched, so a long one
		// gets the length error below, not a cut.
		const maxStdinQuery = 4*api.MaxQueryRunes*utf8.UTFMax + 1
		b, err := io.ReadAll(io.LimitReader(inv.Stdin, maxStdinQuery))
		if err != nil {
			return fail(ExitFailure, "reading the query from standard input: "+err.Error())
		}
		if len(b) == maxStdinQuery {
			return fail(ExitUsage, fmt.Sprintf("the query on standard input is longer than %d characters, the most searched", api.MaxQueryRunes))
		}
		query = strings.TrimSpace(string(b))
		if query == "" {
			return fail(ExitUsage, "standard input held no query: echo \"QUERY\" | "+name+" -")
		}
	}
	if query == "" {
		// The pointer to name's help, which lists the filters, follows.
		return fail(ExitUsage, "query is required: "+name+` "<query>" [flags]`)
	}
	if !utf8.ValidString(query) {
		return fail(ExitUsage, "the query is not valid UTF-8")
	}
	// What novad would refuse is refused here, with the flag's name: the
	// limits are the server's own (api.DecodeSearchRequest).
	if n := utf8.RuneCountInString(strings.Join(strings.Fields(query), " ")); n > api.MaxQueryRunes {
		return fail(ExitUsage, fmt.Sprintf("the query is %d characters long; at most %d are searched", n, api.MaxQueryRunes))
	}
	for _, d := range []struct{ flag, v string }{{"--date", *date}, {"--date-from", *dateFrom}, {"--date-to", *dateTo}} {
		if _, ok := api.NormalizeDate(d.v); d.v != "" && !ok {
			return fail(ExitUsage, fmt.Sprintf("%s must be a calendar date YYYY-MM-DD or an RFC 3339 time (got %q)", d.flag, d.v))
		}
	}
	if *timeout <= 0 {
		// Not "no timeout": the search would expire before it left.
		return fail(ExitUsage, fmt.Sprintf("--timeout must be positive (got %s)", *timeout))
	}
	if minimum := api.MinBudgetMs * time.Millisecond; *timeout < minimum {
		// --timeout is sent as the remaining budget, and novad refuses
		// less than this before it searches.
		return fail(ExitUsage, fmt.Sprintf("--timeout must be at least %s, the least time novad runs a search in (got %s)", minimum, *timeout))
	}
	if *dateFrom != "" && *dateTo != "" && api.DateBoundAfter(*dateFrom, *dateTo) {
		return fail(ExitUsage, fmt.Sprintf("--date-from %s is after --date-to %s", *dateFrom, *dateTo))
	}
	base, baseFlag := *facadeURL, "--facade-url"
	if base == "" {
		base, baseFlag = *dashboardURL, "--dashboard-url"
	}
	c, code := facadeClient(inv, *jsonOut, baseFlag, base, fail)
	if code >= 0 {
		return code
	}
	body := api.SearchBody{
		Query: query, TopK: api.ClampTopK(*topK), Date: *date, Project: *project, Role: *role, Agent: *agent,
		Tags: tags, SourceSets: sourceSets,
	}
	if *dateFrom != "" || *dateTo != "" {
		body.DateRange = &api.DateRange{From: *dateFrom, To: *dateTo}
	}
	if *lifecycle != "" {
		body.Lifecycle = []string{*lifecycle}
	}
	if *workType != "" {
		body.WorkType = []string{*workType}
	}
	budget := client.NewBudget(90*time.Second, 3)
	remaining, _ := budget.Next()
	body.RemainingBudgetMs = min(remaining, int(timeout.Milliseconds()))
	body.BudgetCall, body.BudgetMaxCalls = budget.Calls(), budget.MaxCalls()
	limit := min(*timeout, budget.Remaining())
	callCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	resp, _, err := c.Search(callCtx, body)
	if err != nil && ctx.Err() != nil && !client.IsNotRunning(err) {
		// Ctrl-C (or SIGTERM) while novad worked on it: the user's doing,
		// not a novad that failed to answer, so neither exit 0 (a script
		// would take it for an answer) nor a transport error.
		const interrupted = "interrupted before novad answered"
		if *jsonOut {
			env := api.Unavailable(query, body.TopK, api.ReasonCLIUnavailable+":cancelled")
			env.Error = interrupted
			printJSON(inv.Stdout, withBudget(env, budget))
		} else {
			fmt.Fprintf(inv.Stderr, "%s: %s\n", name, interrupted)
		}
		return ExitFailure
	}
	if err != nil {
		msg := err.Error()
		var ue *url.Error
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			// The request's own deadline: say which, not the client's
			// "Post ...: context deadline exceeded".
			msg = fmt.Sprintf("no answer within %s (--timeout) from %s (novad may be busy: try again, or give a longer --timeout)", limit, c.FacadeURL)
		case errors.As(err, &ue) && !errors.As(err, new(*client.DroppedError)):
			// The transport failed otherwise than the client's typed
			// errors say (https to novad's plain http, no route).
			msg = fmt.Sprintf("could not reach %s (%v): check the address (novactl status names novad's; it serves plain http on loopback) and try again", c.FacadeURL, ue.Err)
		}
		if *jsonOut {
			env := api.Unavailable(query, body.TopK, cliReason(err))
			env.Error = msg
			printJSON(inv.Stdout, withBudget(env, budget))
			return ExitOK
		}
		fmt.Fprintf(inv.Stderr, "%s: %s\n", name, msg)
		return ExitFailure
	}
	code = ExitOK
	if !resp.Available && resp.Reason != nil && api.RefusedAsInvalid(*resp.Reason) {
		code = ExitUsage
	}
	if *jsonOut {
		printJSON(inv.Stdout, withBudget(resp, budget))
		return code
	}
	printSearch(inv.Stdout, resp)
	return code
}

// facadeClient returns the client of the facade at base, the value of
// flag (--facade-url or its alias), or where base is "" of the facade the
// configuration names. It returns ExitUsage (through fail, the command's
// report of an error) for a base that is no URL, ExitFailure (loadConfig
// has said why) for an invalid configuration, and -1 to go on.
func facadeClient(inv *Invocation, jsonOut bool, flag, base string, fail func(code int, msg string) int) (*client.Client, int) {
	if base != "" {
		u, err := facadeBase(flag, base)
		if err != nil {
			return nil, fail(ExitUsage, err.Error())
		}
		return client.New(u, ""), -1
	}
	cfg, ok := loadConfig(inv, jsonOut)
	if !ok {
		return nil, ExitFailure
	}
	return client.ForConfig(cfg), -1
}

// facadeBase returns v, the value of flag (--facade-url or its alias),
// without a trailing slash, or an error naming the flag when v is not an
// http(s) URL with a host: "127.0.0.1:3036", as config show prints the
// address, would otherwise fail in the request with a parse error. The
// host must be loopback by config's rule (config.IsLoopbackHost, which
// novad's own listeners obey): the request carries the user's query, a
// piece of their private memory, and no novad listens anywhere else, so
// another host (a typo, a pasted URL, 0.0.0.0) could only leak it.
func facadeBase(flag, v string) (string, error) {
	u, err := url.Parse(v)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("%s must be a URL such as http://127.0.0.1:3036 (got %q)", flag, v)
	}
	if !config.IsLoopbackHost(u.Hostname()) {
		return "", fmt.Errorf("%s must name a loopback host (127.0.0.1, ::1, localhost), where novad serves (got %q): the query would leave this machine", flag, u.Hostname())
	}
	return strings.TrimRight(v, "/"), nil
}

// budgetEnvelope is the --json output: the envelope plus the client budget.
type budgetEnvelope struct {
	*api.SearchResponse
	BudgetTelemetry budgetTelemetry `json:"budgetTelemetry"`
}

type budgetTelemetry struct {
	CallsUsed         int  `json:"callsUsed"`
	MaxCalls          int  `json:"maxCalls"`
	TotalBudgetMs     int  `json:"totalBudgetMs"`
	RemainingBudgetMs int  `json:"remainingBudgetMs"`
	Exhausted         bool `json:"exhausted"`
}

func withBudget(r *api.SearchResponse, b *client.Budget) budgetEnvelope {
	return budgetEnvelope{SearchResponse: r, BudgetTelemetry: budgetTelemetry{
		CallsUsed: b.Calls(), MaxCalls: b.MaxCalls(), TotalBudgetMs: int(b.Total().Milliseconds()),
		RemainingBudgetMs: int(b.Remaining().Milliseconds()), Exhausted: b.Remaining() == 0 || b.Calls() >= b.MaxCalls(),
	}}
}

// cliReason maps a client failure to the contract's CLI reason codes.
func cliReason(err error) string {
	var env *client.EnvelopeError
	var he *client.HTTPError
	var nr *client.NotRunningError
	switch {
	case errors.As(err, &env):
		return env.Reason
	case errors.As(err, &he):
		return fmt.Sprintf("%s%d", api.ReasonCLIHTTPPrefix, he.Status)
	case errors.As(err, &nr) && nr.Other:
		// Something answers, but not this home's novad: nothing was
		// sent, and nothing refused a connection.
		return api.ReasonCLIOtherHome
	case errors.As(err, &nr) && nr.Starting:
		// This home's novad is starting: no connection was made, and
		// starting another one is not the remedy.
		return api.ReasonCLIUnavailable + ":starting"
	case client.IsNotRunning(err):
		return api.ReasonCLIUnavailable + ":connection-refused"
	case errors.Is(err, context.DeadlineExceeded):
		return api.ReasonCLIUnavailable + ":timeout"
	}
	return api.ReasonCLIUnavailable + ":transport"
}

// printSearch renders a response for a person. Memory text is made inert
// first: printed, a stored escape sequence would act on the terminal
// (a title change, a clipboard write, a screen clear).
func printSearch(w io.Writer, r *api.SearchResponse) {
	inert.Value(r)
	// Previews are wrapped to 96 columns, or to a narrower terminal's
	// width: the terminal would wrap them again, mid-word and without
	// their indent.
	width := 96
	if tw := termWidth(w); tw > 0 {
		width = max(min(width, tw-4), 20)
	}
	fmt.Fprintln(w, "Nova · Memory search")
	if !r.Available {
		reason := ""
		if r.Reason != nil {
			reason = *r.Reason
		}
		a := api.AdviceFor(reason)
		fmt.Fprintf(w, "Status: Unavailable — %s\n", a.What)
		if r.Error != "" {
			// The server's own words: the advice above is per family of
			// reasons, this says what exactly was wrong.
			fmt.Fprintf(w, "Error: %s\n", r.Error)
		}
		fmt.Fprintf(w, "Next step: %s\n", a.Do)
		return
	}
	if len(r.Results) == 0 {
		fmt.Fprintf(w, "Status: No matches (quality %s)\n", r.Quality.Status)
		return
	}
	fmt.Fprintf(w, "Status: Ready · %d result(s) · quality %s", len(r.Results), r.Quality.Status)
	if r.Quality.NeedsMoreEvidence {
		fmt.Fprint(w, " · needs more evidence")
	}
	fmt.Fprintln(w)
	for i, res := range r.Results {
		cid := ""
		if i < len(r.CitationPack) {
			cid = "[" + r.CitationPack[i].CitationID + "] "
		}
		fmt.Fprintf(w, "\n%d. %s%s · %s · relevance %.3f\n", i+1, cid, api.StringOr(res.Source, "memory"), api.StringOr(res.Date, "undated"), res.Score)
		if res.Title != "" {
			fmt.Fprintf(w, "   %s\n", truncate.Width(res.Title, width))
		}
		for _, line := range wrapPreview(res.TextPreview, 3, width) {
			fmt.Fprintf(w, "   %s\n", line)
		}
		p := res.Provenance
		if p.SourcePath != nil {
			loc := *p.SourcePath
			if p.LineNumber > 0 {
				loc = fmt.Sprintf("%s:%d", loc, p.LineNumber)
			}
			fmt.Fprintf(w, "   from %s\n", loc)
		}
		if res.Superseded {
			// An older state printed like the current one reads as
			// current.
			fmt.Fprintf(w, "   superseded by %s, a newer version\n", res.SupersededBy)
		}
	}
	if r.AnswerSynthesis.Summary != "" {
		fmt.Fprintf(w, "\nEvidence summary: %s\n", r.AnswerSynthesis.Summary)
	}
	if len(r.Quality.Recommendations) > 0 {
		fmt.Fprintf(w, "Recommendations: %s\n", strings.Join(r.Quality.Recommendations, "; "))
	}
}

// wrapPreview returns at most n lines of at most w terminal cells from
// s, the last ending in an ellipsis when s goes on. Lines break between
// words, and within one that has no room (Chinese and Japanese text has
// no spaces); a wide character counts two cells.
func wrapPreview(s string, n, w int) []string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return nil
	}
	lines := strings.Split(ansi.Wrap(s, w, ""), "\n")
	if len(lines) <= n {
		return lines
	}
	lines = lines[:n]
	// The ellipsis stays within w too: words make room for it, or
	// characters where the line has no space.
	last := strings.TrimRight(lines[n-1], " ")
	for ansi.StringWidth(last)+2 > w {
		i := strings.LastIndexByte(last, ' ')
		if i <= 0 {
			last = ansi.Truncate(last, w-2, "")
			break
		}
		last = last[:i]
	}
	lines[n-1] = last + " …"
	return lines
}
