package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/client"
	"github.com/nova-recall/nova/eval"
	"github.com/nova-recall/nova/truncate"
)

const evalHelp = `Measures recall.

  novactl eval --queries FILE [--json]
      Runs each recall case of FILE (JSONL) against the running novad's facade and
      reports recall@k, MRR, nDCG@10, citation hit rate, evidence coverage,
      duplicate rate, aggregation correctness, latency p50/p95 and timeout rate,
      with pass/fail per case. Exit status 1 when a case fails, 2 when FILE
      is missing or a case is malformed (the error names its line).
      FILE holds one JSON object per line, a case; blank lines and lines that
      start with // are skipped. This case passes against the sample memory
      make run serves:
{"id":"rollback","query":"why was v1.4.0 rolled back","project":"nova","expect":{"relevantIds":["dec-003"],"evidenceTerms":["RC-204"],"minEvidenceCoverage":1}}
      id and query are required; the search filters are the facade's: topK (1-20),
      date, dateRange {"from","to"}, project, agent, role, tags, sourceSets,
      lifecycle, workType. expect says what a good answer holds: relevantIds
      (a result's source id or id), relevantEvidence [{"terms","sourceSets","lifecycles",
      "workTypes","projects"}], evidenceTerms, aggregation {"expectedEventCount",
      "countTerms","requiredEventIds","requiredTerms"}. A case passes when it
      gets minResults results (default 1), finds what relevantIds and
      relevantEvidence name (minRecallAtK, default 1), and meets each other
      threshold it sets: minCitationHitRate, minEvidenceCoverage,
      maxDuplicateRate, minAggregationCorrectness. evidenceTerms alone are
      measured (evidence coverage), not checked. Each mean is over the cases
      that measure it (recall@k, MRR, nDCG@10 and citation hit over those
      that name relevant results), "-" over none.

  novactl eval locomo PATH [--ablate LEVER,...] [--misses K] [--json]
      Runs the LoCoMo protocol on PATH (locomo10.json, not shipped: see below): one
      memory per dialogue turn, every question asked with its conversation as the
      project filter, recall@1/5/10/20, MRR and nDCG@10 of the evidence turns,
      overall and per category, for Nova, Nova with the dense channel off, and a
      plain BM25 baseline in the same run, next to the published DRAGON figures.
      --ablate also runs Nova once per named lever with that lever off and
      reports each lever's gain, overall and per category (levers: context,
      lemmas, segmentation, propagation, dates, person, supersession,
      questions, answertype, related, followups, bridges, kinship,
      characters; "all" names every one).
      --min-r1 and --min-r5 fail the run (exit 1) below a recall. Exit status 2 when PATH
      is missing or not a LoCoMo file (the error names the line and column).
      --misses K (1-20) lists the questions whose evidence Nova does not rank
      within the first K, with each evidence turn's rank and Nova's first answers.
      Indexes into a temporary home; needs no running novad. LoCoMo is
      not shipped with Nova (CC BY-NC 4.0): download data/locomo10.json from
      github.com/snap-research/LoCoMo and give its path (make eval-locomo
      LOCOMO=PATH); the sets Nova ships are in eval/testdata (make eval).`

// locomoSource says where the LoCoMo data set comes from, as evalHelp
// does, in the error for a PATH that does not exist: Nova does not ship it (it
// is CC BY-NC 4.0), so a fresh clone has none.
const locomoSource = "download data/locomo10.json from github.com/snap-research/LoCoMo and give its path (make eval-locomo LOCOMO=PATH); the sets Nova ships are in eval/testdata (make eval)"

func evalVerbs() []verb {
	return []verb{{"locomo", "Run the LoCoMo recall protocol on a dataset file"}}
}

func runEval(ctx context.Context, inv *Invocation, args []string) int {
	if len(args) > 0 && args[0] == "locomo" {
		return runEvalLoCoMo(ctx, inv, args[1:])
	}
	fs := newFlags(inv, "novactl eval", "novactl eval --queries FILE [--json] | novactl eval locomo PATH [--json]", evalHelp)
	queries := fs.String("queries", "", "JSONL file of recall cases")
	jsonOut := fs.Bool("json", false, "print the full report as JSON")
	facadeURL := fs.String("facade-url", "", "facade base URL, on loopback (default: the local novad from NOVA_HOME)")
	timeoutValue := timeoutFlag(65 * time.Second)
	fs.Var(&timeoutValue, "timeout", "timeout of each search, a `duration` (65s, 2m) or seconds")
	timeout := (*time.Duration)(&timeoutValue)
	pos, code := parseArgs(inv, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return usageError(inv, fs, fmt.Sprintf("unexpected argument %q", pos[0]))
	}
	if *queries == "" {
		return usageError(inv, fs, "--queries FILE is required")
	}
	fail := func(code int, msg string) int { return commandError(inv, *jsonOut, "novactl eval", code, msg) }
	if *timeout <= 0 {
		// Not "no timeout": every case would time out before it is sent.
		return fail(ExitUsage, fmt.Sprintf("--timeout must be positive (got %s)", *timeout))
	}
	cases, err := eval.ReadCases(*queries)
	if err != nil {
		var pathErr *os.PathError
		if !errors.As(err, &pathErr) {
			// The file was read: its content is what is wrong.
			return fail(ExitUsage, err.Error()+" (novactl eval --help describes the file)")
		}
		return fail(ExitUsage, "--queries: "+err.Error())
	}
	c, code := facadeClient(inv, *jsonOut, "--facade-url", *facadeURL, fail)
	if code >= 0 {
		return code
	}
	if _, err := c.FacadeHealth(ctx); client.IsNotRunning(err) {
		return fail(ExitFailure, err.Error())
	}
	search := func(ctx context.Context, body api.SearchBody) (*api.SearchResponse, error) {
		ctx, cancel := context.WithTimeout(ctx, *timeout)
		defer cancel()
		resp, _, err := c.Search(ctx, body)
		return resp, err
	}
	var progress func(int, int)
	if !*jsonOut && liveProgress(inv) {
		progress = func(done, total int) { fmt.Fprintf(inv.Stderr, "\r\033[Kcase %d/%d", done, total) }
	}
	sum := eval.RunCases(ctx, cases, search, progress)
	if progress != nil {
		fmt.Fprintln(inv.Stderr)
	}
	sum.QueriesPath, sum.FacadeTarget = *queries, c.FacadeURL
	if *jsonOut {
		printJSON(inv.Stdout, sum)
	} else {
		printCases(inv.Stdout, sum)
	}
	if sum.Interrupted {
		// --json says it in the document ("interrupted", caseCount), so
		// that stderr stays quiet beside it.
		if !*jsonOut {
			fmt.Fprintf(inv.Stderr, "novactl eval: interrupted after %d of %d cases: the figures cover those only\n", sum.CaseCount, len(cases))
		}
		return ExitFailure
	}
	if sum.FailedCount > 0 {
		return ExitFailure
	}
	return ExitOK
}

func printCases(w io.Writer, s eval.Summary) {
	fmt.Fprintf(w, "%-24s %-6s %7s %6s %7s %8s %8s %9s\n", "CASE", "RESULT", "RECALL", "MRR", "NDCG10", "CITEHIT", "EVIDENCE", "LATENCY")
	for _, c := range s.Cases {
		verdict := "pass"
		if !c.Passed {
			verdict = "FAIL"
		}
		// A case that names nothing relevant, or no evidence terms, has
		// placeholders there, not measurements.
		fmt.Fprintf(w, "%-24s %-6s %7s %6s %7s %8s %8s %7.1fms", truncate.Width(c.ID, 24), verdict,
			measured(c.RecallAtK, c.Relevant), measured(c.MRR, c.Relevant), measured(c.NDCG10, c.Relevant),
			measured(c.CitationHitRate, c.Relevant), measured(c.EvidenceCoverage, c.EvidenceTerms), c.LatencyMs)
		if !c.Passed {
			var failed []string
			for k, ok := range c.Checks {
				if !ok {
					failed = append(failed, k)
				}
			}
			sort.Strings(failed)
			if !c.Available {
				failed = append(failed, "unavailable:"+c.Reason)
			}
			fmt.Fprintf(w, "  failed: %s", strings.Join(failed, ", "))
		}
		fmt.Fprintln(w)
	}
	m := s.Metrics
	fmt.Fprintf(w, "\n%d/%d passed · recall@k %s · MRR %s · nDCG@10 %s · citation hit %s · evidence %s · duplicates %s · aggregation %s\n",
		s.PassedCount, s.CaseCount, measured(m.RecallAtK, m.RelevanceCases), measured(m.MRR, m.RelevanceCases), measured(m.NDCG10, m.RelevanceCases),
		measured(m.CitationHitRate, m.RelevanceCases), measured(m.EvidenceCoverage, m.EvidenceCases), measured(m.DuplicateRate, s.CaseCount),
		measured(m.AggregationCorrectness, m.AggregationCases))
	names := "names"
	if m.RelevanceCases != 1 {
		names = "name"
	}
	fmt.Fprintf(w, "means over the %d %s that %s relevant results (recall@k, MRR, nDCG@10, citation hit), the %d with evidenceTerms, the %d with aggregation\n",
		m.RelevanceCases, caseNoun(m.RelevanceCases), names, m.EvidenceCases, m.AggregationCases)
	fmt.Fprintf(w, "latency p50 %.1f ms · p95 %.1f ms · timeout rate %.3f\n", m.LatencyP50Ms, m.LatencyP95Ms, m.TimeoutRate)
}

// measured is v to three places, or "-" when no case measured it
// (cases is 0): not a 0.000 that reads as a total miss.
func measured(v float64, cases int) string {
	if cases == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

// caseNoun is "case" or "cases", as n asks.
func caseNoun(n int) string {
	if n == 1 {
		return "case"
	}
	return "cases"
}

func runEvalLoCoMo(ctx context.Context, inv *Invocation, args []string) int {
	fs := newFlags(inv, "novactl eval locomo", "novactl eval locomo PATH [--ablate LEVER,...] [--misses K] [--json]", evalHelp)
	jsonOut := fs.Bool("json", false, "print the report as JSON")
	ablate := fs.String("ablate", "", "comma-separated levers to measure by switching each off (or all)")
	minR1 := fs.Float64("min-r1", 0, "fail when Nova's overall recall@1 is below this")
	minR5 := fs.Float64("min-r5", 0, "fail when Nova's overall recall@5 is below this")
	missesAt := fs.Int("misses", 0, "list the questions whose evidence Nova does not rank within the first `K` results")
	pos, code := parseArgs(inv, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 1 {
		return usageError(inv, fs, fmt.Sprintf("unexpected argument %q", pos[1]))
	}
	if len(pos) != 1 {
		return usageError(inv, fs, "the LoCoMo dataset PATH is required")
	}
	var progress func(int, int)
	if !*jsonOut && liveProgress(inv) {
		progress = func(done, total int) {
			if done%25 == 0 || done == total {
				fmt.Fprintf(inv.Stderr, "\r\033[Kquestion %d/%d", done, total)
			}
		}
	}
	var levers []string
	for _, l := range strings.Split(*ablate, ",") {
		switch l = strings.TrimSpace(l); l {
		case "":
		case "all":
			levers = append(levers, eval.SortedLevers()...)
		default:
			if _, ok := eval.AblationLevers[l]; !ok {
				return usageError(inv, fs, fmt.Sprintf("--ablate: unknown lever %q (known: %s)", l, strings.Join(eval.SortedLevers(), ", ")))
			}
			levers = append(levers, l)
		}
	}
	// A lever named twice ("all" and itself) is measured once.
	var once []string
	for _, l := range levers {
		if !slices.Contains(once, l) {
			once = append(once, l)
		}
	}
	levers = once
	for _, m := range []struct {
		name string
		v    float64
	}{{"--min-r1", *minR1}, {"--min-r5", *minR5}} {
		if !(m.v >= 0 && m.v <= 1) { // NaN too
			return usageError(inv, fs, fmt.Sprintf("%s must be a recall from 0 to 1 (got %v)", m.name, m.v))
		}
	}
	if *missesAt < 0 || *missesAt > api.MaxTopK {
		// Nova answers each question with at most MaxTopK turns: a
		// cut-off past them lists what MaxTopK lists.
		return usageError(inv, fs, fmt.Sprintf("--misses must be 0 (off) to %d, the turns Nova answers each question with (got %d)", api.MaxTopK, *missesAt))
	}
	rep, err := eval.RunLoCoMo(ctx, pos[0], eval.LoCoMoOptions{Progress: progress, Ablate: levers, MissesAt: *missesAt})
	if progress != nil {
		fmt.Fprintln(inv.Stderr)
	}
	if err != nil {
		code, msg := ExitFailure, err.Error()
		var dataErr *eval.DatasetError
		switch {
		case errors.As(err, &dataErr):
			// PATH is what is wrong, as with a bad --queries FILE: not
			// a failed run (1), which a recall below --min-r5 also is.
			code = ExitUsage
			if errors.Is(err, os.ErrNotExist) {
				// LoCoMo is not shipped (its licence is non-commercial):
				// a fresh clone has no copy for make eval-locomo to find.
				msg += "; LoCoMo is not shipped with Nova: " + locomoSource
			}
		case ctx.Err() != nil && errors.Is(err, context.Canceled):
			// Ctrl-C: what was cut ("question 451: context canceled")
			// is not what the user needs to know.
			msg = "interrupted: no figures (a LoCoMo run reports once every system has asked every question)"
		}
		return commandError(inv, *jsonOut, "novactl eval locomo", code, msg)
	}
	if *jsonOut {
		printJSON(inv.Stdout, rep)
	} else {
		printLoCoMo(inv.Stdout, rep)
	}
	o := rep.Systems[0].Overall
	if o.RecallAt1 < *minR1 || o.RecallAt5 < *minR5 {
		fmt.Fprintf(inv.Stderr, "novactl eval locomo: recall@1 %.3f, recall@5 %.3f: below --min-r1 %.3f / --min-r5 %.3f\n", o.RecallAt1, o.RecallAt5, *minR1, *minR5)
		return ExitFailure
	}
	return ExitOK
}

func printLoCoMo(w io.Writer, r *eval.LoCoMoReport) {
	left := ""
	if r.QuestionsWithoutEvidence > 0 {
		left = fmt.Sprintf(" (%d without, left out)", r.QuestionsWithoutEvidence)
	}
	fmt.Fprintf(w, "LoCoMo %s: %d conversations, %d turns, %d questions with evidence%s (index built in %.1fs)\n\n",
		r.Dataset, r.Conversations, r.Turns, r.Questions, left, float64(r.BuildMs)/1000)
	if n := len(r.UnknownEvidence); n > 0 {
		ids, verb := "ids name", "count"
		if n == 1 {
			ids, verb = "id names", "counts"
		}
		fmt.Fprintf(w, "%d evidence %s no turn of its conversation and %s as not found for every system: %s\n\n",
			n, ids, verb, strings.Join(r.UnknownEvidence, ", "))
	}
	fmt.Fprintf(w, "%-18s %6s %6s %6s %6s %6s %7s %9s\n", "SYSTEM", "R@1", "R@5", "R@10", "R@20", "MRR", "NDCG10", "P50")
	num := func(f float64) string {
		if f < 0 {
			return "—"
		}
		return fmt.Sprintf("%.3f", f)
	}
	for _, s := range append(r.Systems, r.Reference) {
		o := s.Overall
		lat := "—"
		if s.LatencyP50Ms > 0 {
			lat = fmt.Sprintf("%.2fms", s.LatencyP50Ms)
		}
		fmt.Fprintf(w, "%-18s %6s %6s %6s %6s %6s %7s %9s\n", s.Name, num(o.RecallAt1), num(o.RecallAt5), num(o.RecallAt10), num(o.RecallAt20), num(o.MRR), num(o.NDCG10), lat)
	}
	fmt.Fprintln(w, "\nBy category (recall@10):")
	var cats []string
	for c := range r.Systems[0].ByCategory {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	fmt.Fprintf(w, "%-18s", "SYSTEM")
	for _, c := range cats {
		fmt.Fprintf(w, " %12s", c)
	}
	fmt.Fprintln(w)
	for _, s := range r.Systems {
		fmt.Fprintf(w, "%-18s", s.Name)
		for _, c := range cats {
			m := s.ByCategory[c]
			fmt.Fprintf(w, " %6.3f (%3d)", m.RecallAt10, m.Questions)
		}
		fmt.Fprintln(w)
	}
	if len(r.Ablations) > 0 {
		fmt.Fprintln(w, "\nLever gains (Nova minus Nova with the lever off; recall@1/@5/@10):")
		fmt.Fprintf(w, "%-14s %20s", "LEVER", "overall")
		for _, c := range cats {
			fmt.Fprintf(w, " %20s", c)
		}
		fmt.Fprintln(w)
		gain := func(m eval.Metrics) string {
			return fmt.Sprintf("%+.3f/%+.3f/%+.3f", m.RecallAt1, m.RecallAt5, m.RecallAt10)
		}
		for _, a := range r.Ablations {
			fmt.Fprintf(w, "%-14s %20s", a.Lever, gain(a.Gain))
			for _, c := range cats {
				fmt.Fprintf(w, " %20s", gain(a.GainByCat[c]))
			}
			fmt.Fprintln(w)
		}
	}
	if m := r.Systems[0].Misses; len(m) > 0 {
		fmt.Fprintf(w, "\nNova's misses (%d questions; evidence rank, 0 when not returned; then the first answers):\n", len(m))
		for _, q := range m {
			fmt.Fprintf(w, "\n%s [%s]\n", q.Question, q.Category)
			for _, e := range q.Evidence {
				fmt.Fprintf(w, "  evidence %2d  %s  %s\n", e.Rank, e.ID, truncate.Runes(e.Text, 100))
			}
			for _, t := range q.Top {
				fmt.Fprintf(w, "  answer   %2d  %s  %s\n", t.Rank, t.ID, truncate.Runes(t.Text, 100))
			}
		}
	}
	fmt.Fprintln(w, "\ndragon-published is on all ten LoCoMo conversations; the others ran here on this file.")
}
