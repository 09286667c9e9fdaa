package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/bench"
	"github.com/nova-recall/nova/paths"
)

const benchHelp = `Measures Nova's speed on generated agent-transcript-like records, side by
side with the alternatives, in one run. For each size it:

  1. generates a seeded corpus (jsonl records with ids, dates, agents,
     roles, projects, sessions and tags; log-normal lengths of 30-1200
     characters; Zipfian English technical vocabulary with code symbols,
     ticket ids, ports, commit hashes, file names and dates; a share of
     Chinese sessions),
  2. times "index sync" into a fresh NOVA_HOME (records/s, chunks/s,
     embeddings/s, peak RSS) and the generation load,
  3. times the same queries (kinds exact-id, keyword, semantic, filtered,
     chinese, miss; each knows the record it was made from) through
       nova    Nova's full multi-pass pipeline, in process, default config
       bm25    Nova's BM25 index alone
       vector  the dense channel alone (embed, then the generation's int8
               scan, or its inverted file at large sizes; the "dense:"
               line gives its recall against a scan of every vector)
       fts5    SQLite FTS5 bm25 over the same records (modernc.org/sqlite,
               the pure-Go SQLite novactl also reads Hermes' state.db with)
     reporting p50/p99 latency, hit@k and the share of empty answers,
  4. unless --no-daemon, starts the real novad on that home (free loopback
     ports) and reports its RSS after load and after the queries, and the
     same queries over HTTP (novad-http); with --load, a bounded loopback
     load test (2 clients) reporting requests/s, p50/p99 and RSS.

"novactl bench load" is the load test alone: the corpus, the index and
novad, without the in-process systems (default size 100000).

"novactl bench fresh" measures time to searchable: with the real novad and
the real watcher (novactl index watch) running over the corpus, a Claude Code
project and a Codex sessions tree, it writes new memory one piece at a time
(records appended to the jsonl corpus, lines appended to the live Claude
Code transcript, Codex rollouts in day folders that did not exist) and
reports, for each, p50/p95 from the write to the first facade search that
returns it, the watcher's syncs, peak memory and idle CPU (default size
10000, 20 writes of each).

Progress goes to stderr; the table to stdout. The run touches only its work
directory (a temporary one unless --keep) and binds only 127.0.0.1.

Examples:
  novactl bench --sizes 10000,100000 --json bench.json
  novactl bench --sizes 1000000 --queries 100 --keep /var/tmp/nova-bench
  novactl bench load --novad bin/novad
  novactl bench fresh --sizes 10k,100k --appends 20 --json fresh.json`

func benchVerbs() []verb {
	return []verb{{"load", "Run the loopback load test alone"}, {"fresh", "Measure time to searchable with the real novad and watcher"}}
}

// benchLoadRefuses says why bench load refuses the first of the full
// run's flags that args name (up to "--"), or "" when they name none.
func benchLoadRefuses(args []string) string {
	for _, a := range args {
		if a == "--" {
			return ""
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch name {
		case "systems":
			return "--systems names in-process systems, which the load test alone does not time (use novactl bench --load)"
		case "no-daemon":
			return "the load test runs against novad, which --no-daemon leaves out: drop it"
		case "load":
			return "--load is the full run's flag for adding the load test; bench load is that test already: drop it"
		}
	}
	return ""
}

func runBench(ctx context.Context, inv *Invocation, args []string) int {
	// A run starts novad (and bench fresh the watcher) on a work
	// directory that is temporary unless --keep: a hangup must stop it
	// as Ctrl-C does, or novad goes on serving from that directory, left
	// behind with a whole corpus and index, and no one to stop it.
	ctx, stop := stopOnHangup(ctx)
	defer stop()
	if len(args) > 0 && args[0] == "fresh" {
		return runBenchFresh(ctx, inv, args[1:])
	}
	loadOnly := false
	if len(args) > 0 && args[0] == "load" {
		loadOnly, args = true, args[1:]
	}
	fs := newFlags(inv, "novactl bench", "novactl bench [load] [flags]", benchHelp)
	defSizes := "10000,100000"
	if loadOnly {
		fs = newFlags(inv, "novactl bench load", "novactl bench load [flags]", benchHelp)
		defSizes = "100000"
		// Its help lists only the flags it takes: --systems, --no-daemon
		// and --load are the full run's. Named anyway, each is refused
		// with why, not as an unknown flag.
		if msg := benchLoadRefuses(args); msg != "" {
			return usageError(inv, fs, msg)
		}
	}
	sizes := fs.String("sizes", defSizes, "comma-separated corpus sizes in records (k and M suffixes allowed: 10k,100k,1M)")
	queries := fs.Int("queries", 200, "queries per kind (6 kinds)")
	seed := fs.Int64("seed", 1, "seed of the corpus and the queries")
	chinese := fs.Float64("chinese", bench.DefaultChineseShare, "share of Chinese sessions (0-1)")
	topK := fs.Int("top-k", 10, fmt.Sprintf("results per query for every system (%d to %d); hit@k uses it", api.MinTopK, api.MaxTopK))
	jsonPath := fs.String("json", "", "also write the report as JSON to this file (- for stdout instead of the table)")
	keep := fs.String("keep", "", "keep corpora, homes and FTS5 databases in this directory (reused by later runs with the same size and seed)")
	systems, noDaemon, load := new(strings.Join(bench.DefaultSystems, ",")), new(false), new(false)
	if !loadOnly {
		fs.StringVar(systems, "systems", *systems, "in-process systems to time: nova, bm25, vector, fts5 (\"none\" for none)")
		fs.BoolVar(noDaemon, "no-daemon", false, "do not start novad (no daemon memory, HTTP latency or load test)")
		fs.BoolVar(load, "load", false, "run the loopback load test against novad")
	}
	novad := fs.String("novad", "", "novad binary (default: novad next to this novactl)")
	clients := fs.Int("load-clients", 2, "concurrent clients of the load test")
	requests := fs.Int("load-requests", 2000, "maximum requests of the load test")
	duration := fs.Duration("load-duration", 60*time.Second, "maximum duration of the load test")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof reads it; with --keep, a second run profiles mostly the queries)")
	pos, code := parseArgs(inv, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return usageError(inv, fs, fmt.Sprintf("unexpected argument %q", pos[0]))
	}
	ns, err := parseSizes(*sizes)
	if err != nil {
		return usageError(inv, fs, fmt.Sprintf("--sizes: %v", err))
	}
	// Written so that NaN, which every comparison refuses, is refused too.
	switch {
	case *queries <= 0:
		return usageError(inv, fs, fmt.Sprintf("--queries must be positive (got %d)", *queries))
	case !(*chinese >= 0 && *chinese <= 1):
		return usageError(inv, fs, fmt.Sprintf("--chinese must be between 0 and 1 (got %v)", *chinese))
	case *noDaemon && *load:
		return usageError(inv, fs, "the load test runs against novad, which --no-daemon leaves out: drop one of them")
	case *clients <= 0 || *requests <= 0 || *duration <= 0:
		return usageError(inv, fs, fmt.Sprintf("--load-clients, --load-requests and --load-duration must be positive (got %d, %d, %s)", *clients, *requests, *duration))
	}
	if *topK < api.MinTopK || *topK > api.MaxTopK {
		// Nova answers at most MaxTopK: beyond it the other systems
		// would return more results than Nova under the same hit@k.
		return usageError(inv, fs, fmt.Sprintf("--top-k must be %d to %d, the results Nova answers (got %d)", api.MinTopK, api.MaxTopK, *topK))
	}
	sys := []string{}
	if *systems != "none" && !loadOnly {
		for _, s := range strings.Split(*systems, ",") {
			if s = strings.TrimSpace(s); s != "" {
				sys = append(sys, s)
			}
		}
	}
	if err := bench.CheckSystems(sys); err != nil {
		return usageError(inv, fs, fmt.Sprintf("--systems: %v", err))
	}
	if err := checkReportPath(*jsonPath); err != nil {
		return usageError(inv, fs, err.Error())
	}
	opts := bench.Options{
		Sizes: ns, QueriesPerKind: *queries, Seed: *seed, ChineseShare: *chinese, TopK: *topK, Systems: sys,
		Dir: *keep, Daemon: !*noDaemon || loadOnly, NovadPath: *novad, Load: *load || loadOnly,
		LoadClients: *clients, LoadRequests: *requests, LoadDuration: *duration,
	}
	if opts.NovadPath == "" {
		opts.NovadPath = bench.DefaultNovadPath()
	}
	if opts.Daemon {
		bin, err := novadBinary(opts.NovadPath)
		switch {
		case err == nil:
			opts.NovadPath = bin
		case *novad != "" || loadOnly || *load:
			// Asked for by name or needed: not a run without it.
			return usageError(inv, fs, err.Error())
		default:
			fmt.Fprintf(inv.Stderr, "novactl bench: %v; skipping the daemon measurements (pass --novad, or --no-daemon to silence this)\n", err)
			opts.Daemon = false
		}
	}
	start := time.Now()
	opts.Progress = func(line string) {
		fmt.Fprintf(inv.Stderr, "%7.1fs %s\n", time.Since(start).Seconds(), line)
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintf(inv.Stderr, "novactl bench: %v\n", err)
			return ExitFailure
		}
		defer stop()
	}
	rep, runErr := bench.Run(ctx, opts)
	if ctx.Err() != nil {
		// Parts of the run stopped early (the load test takes the stop
		// for its time limit, other parts fail with "context canceled"):
		// what it reports is not a measurement.
		runErr = errors.New("interrupted: the figures above are incomplete")
	}
	if rep != nil {
		rep.Command = "novactl bench " + strings.Join(args, " ")
		if loadOnly {
			rep.Command = "novactl bench load " + strings.Join(args, " ")
		}
		rep.Command = strings.TrimSpace(rep.Command)
		if *jsonPath == "-" {
			printJSON(inv.Stdout, rep)
		} else {
			rep.WriteText(inv.Stdout)
			if *jsonPath != "" {
				if err := writeReport(*jsonPath, rep); err != nil {
					fmt.Fprintf(inv.Stderr, "novactl bench: %v\n", err)
					return ExitFailure
				}
			}
		}
	}
	if runErr != nil {
		fmt.Fprintf(inv.Stderr, "novactl bench: %v\n", runErr)
		return ExitFailure
	}
	return ExitOK
}

// checkReportPath returns an error when the --json report could not be
// written at path (its folder is missing, or path is a folder): checked
// before the run, which may take hours, rather than after it.
func checkReportPath(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("--json %s is a directory; name the report file", path)
	}
	fi, err := os.Stat(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("--json %s: %w", path, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("--json %s: %s is not a directory", path, filepath.Dir(path))
	}
	return nil
}

// writeReport writes v as indented JSON to a private file at path. A
// write that fails (a full disk) is an error, not the exit 0 of a report
// left empty or cut short (printJSON drops write errors, as it may for
// stdout), and the cut file is removed.
func writeReport(path string, v any) error {
	f, err := paths.CreatePrivate(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	err = enc.Encode(v)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// Only a file this wrote: never a device or pipe named instead.
		if fi, serr := os.Lstat(path); serr == nil && fi.Mode().IsRegular() {
			os.Remove(path)
		}
		return err
	}
	return nil
}

// novadBinary returns path, made absolute, when it names a program, and
// otherwise why not. Absolute, because exec looks a bare name up on PATH
// and would start another novad than the file checked here.
func novadBinary(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("--novad %s: %w", path, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return "", fmt.Errorf("no novad binary at %s: build it (make build) or pass --novad", path)
	case !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0:
		return "", fmt.Errorf("novad %s is not an executable file: build it (make build) or pass --novad", path)
	}
	return abs, nil
}

// maxBenchRecords bounds a bench size: the corpus is generated on disk,
// and a size past it is a typo (and would overflow with its suffix).
const maxBenchRecords = 100_000_000

// parseSizes parses "10000,100k,1M", each size once.
func parseSizes(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		mult, digits := 1, part
		switch {
		case strings.HasSuffix(part, "k"), strings.HasSuffix(part, "K"):
			mult, digits = 1000, part[:len(part)-1]
		case strings.HasSuffix(part, "M"), strings.HasSuffix(part, "m"):
			mult, digits = 1_000_000, part[:len(part)-1]
		}
		n, err := strconv.Atoi(strings.ReplaceAll(digits, "_", ""))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive number of records (10000, 100k, 1M)", part)
		}
		if n > maxBenchRecords/mult {
			return nil, fmt.Errorf("%q is more than %d records", part, maxBenchRecords)
		}
		// A size twice would build and time it all again, into a second
		// column of the same name: a typo, not a measurement.
		if slices.Contains(out, n*mult) {
			return nil, fmt.Errorf("%q is %d records, given twice", part, n*mult)
		}
		out = append(out, n*mult)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no sizes")
	}
	return out, nil
}

// runBenchFresh is "novactl bench fresh": time to searchable.
func runBenchFresh(ctx context.Context, inv *Invocation, args []string) int {
	fs := newFlags(inv, "novactl bench fresh", "novactl bench fresh [flags]", benchHelp)
	sizes := fs.String("sizes", "10000", "comma-separated corpus sizes in records (10k,100k)")
	appends := fs.Int("appends", 20, "writes timed per size and way (jsonl, Claude Code, Codex), one at a time")
	seed := fs.Int64("seed", 1, "seed of the corpus")
	chinese := fs.Float64("chinese", bench.DefaultChineseShare, "share of Chinese sessions (0-1)")
	keep := fs.String("keep", "", "keep the corpora, homes and logs in this directory")
	novad := fs.String("novad", "", "novad binary (default: novad next to this novactl)")
	quiet := fs.Duration("quiet", 0, "the watcher's --quiet (default: its own)")
	maxWait := fs.Duration("max-wait", 0, "the watcher's --max-wait (default: its own)")
	jsonPath := fs.String("json", "", "also write the reports as JSON to this file (- for stdout instead of the text)")
	pos, code := parseArgs(inv, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		return usageError(inv, fs, fmt.Sprintf("unexpected argument %q", pos[0]))
	}
	ns, err := parseSizes(*sizes)
	switch {
	case err != nil:
		return usageError(inv, fs, fmt.Sprintf("--sizes: %v", err))
	case *appends <= 0:
		return usageError(inv, fs, fmt.Sprintf("--appends must be positive (got %d)", *appends))
	case !(*chinese >= 0 && *chinese <= 1): // NaN too
		return usageError(inv, fs, fmt.Sprintf("--chinese must be between 0 and 1 (got %v)", *chinese))
	case *quiet < 0 || *maxWait < 0:
		return usageError(inv, fs, fmt.Sprintf("--quiet and --max-wait must be 0 (the watcher's own) or more (got %s, %s)", *quiet, *maxWait))
	}
	if err := checkReportPath(*jsonPath); err != nil {
		return usageError(inv, fs, err.Error())
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(inv.Stderr, "novactl bench fresh: %v\n", err)
		return ExitFailure
	}
	if *novad == "" {
		*novad = bench.DefaultNovadPath()
	}
	bin, err := novadBinary(*novad)
	if err != nil {
		return usageError(inv, fs, err.Error())
	}
	start := time.Now()
	var reps []*bench.FreshReport
	for _, n := range ns {
		rep, err := bench.RunFresh(ctx, bench.FreshOptions{
			Records: n, Seed: *seed, ChineseShare: *chinese, Appends: *appends, Dir: *keep,
			NovadPath: bin, NovactlPath: self, Quiet: *quiet, MaxWait: *maxWait,
			Progress: func(line string) { fmt.Fprintf(inv.Stderr, "%7.1fs %s\n", time.Since(start).Seconds(), line) },
		})
		if rep != nil {
			rep.Command = strings.TrimSpace("novactl bench fresh " + strings.Join(args, " "))
			reps = append(reps, rep)
			if *jsonPath != "-" {
				rep.WriteText(inv.Stdout)
			}
		}
		if ctx.Err() != nil {
			err = errors.New("interrupted: the figures above are incomplete")
		}
		if err != nil {
			fmt.Fprintf(inv.Stderr, "novactl bench fresh: %v\n", err)
			return ExitFailure
		}
	}
	switch *jsonPath {
	case "":
	case "-":
		printJSON(inv.Stdout, reps)
	default:
		if err := writeReport(*jsonPath, reps); err != nil {
			fmt.Fprintf(inv.Stderr, "novactl bench fresh: %v\n", err)
			return ExitFailure
		}
	}
	return ExitOK
}

// stopOnHangup returns ctx, cancelled also at a hangup (hangupSignals),
// and the function that stops catching them. Catching SIGPIPE makes a
// write to a closed stdout or stderr fail instead of ending the process.
// A signal this process was started ignoring stays ignored: catching it
// would undo nohup, whose run is to outlive its terminal.
func stopOnHangup(ctx context.Context) (context.Context, context.CancelFunc) {
	var sigs []os.Signal
	for _, s := range hangupSignals {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	if len(sigs) == 0 {
		// NotifyContext without signals would catch every signal.
		return context.WithCancel(ctx)
	}
	return signal.NotifyContext(ctx, sigs...)
}

// startCPUProfile profiles this process's CPU into path until stop.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := paths.CreatePrivate(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
