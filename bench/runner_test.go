package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/internal/novatest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	cleanupFixtures()
	novatest.Cleanup()
	os.Exit(code)
}

func resultFor(t *testing.T, rs []Result, system, kind string) Result {
	t.Helper()
	for _, r := range rs {
		if r.System == system && r.Kind == kind {
			return r
		}
	}
	t.Fatalf("no result for %s/%s", system, kind)
	return Result{}
}

func TestRunTinyCorpus(t *testing.T) {
	dir := t.TempDir()
	var progress []string
	opts := Options{Sizes: []int{500}, QueriesPerKind: 5, Seed: 1, ChineseShare: 0.2, Dir: dir,
		Progress: func(s string) { progress = append(progress, s) }}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sizes) != 1 || len(progress) == 0 {
		t.Fatalf("report %+v, progress %v", rep, progress)
	}
	s := rep.Sizes[0]
	if s.Sync == nil || s.Sync.Records != 500 || s.Sync.Chunks < 500 || s.Sync.TotalMs <= 0 || s.Sync.Reused {
		t.Fatalf("sync %+v", s.Sync)
	}
	// Embeddings/s is over training and embedding both, as documented.
	if st := s.Sync.StageMs; st["train"] > 0 && s.Sync.EmbeddingsPerSec > float64(s.Sync.Chunks)/(float64(st["train"])/1000) {
		t.Errorf("embeddings/s %.0f leaves the %d ms of training out", s.Sync.EmbeddingsPerSec, st["train"])
	}
	if runtime.GOOS == "linux" && (s.Sync.PeakRSSBytes <= 0 || s.GenerationLoad.RSSAfterBytes <= 0) {
		t.Errorf("no memory figures on Linux: sync %+v load %+v", s.Sync, s.GenerationLoad)
	}
	if s.FTS5 == nil || s.FTS5.Records != 500 {
		t.Fatalf("fts5 build %+v", s.FTS5)
	}
	for _, sys := range DefaultSystems {
		for _, k := range append(QueryKinds, KindAll) {
			r := resultFor(t, s.Results, sys, k)
			if r.Queries != 5 && k != KindAll || r.Errors > 0 || r.P50Ms < 0 || r.P99Ms < r.P50Ms || r.MaxMs <= 0 {
				t.Errorf("%s/%s: %+v", sys, k, r)
			}
			if (k == KindMiss) != (r.HitAtK == nil) {
				t.Errorf("%s/%s: hit@k %v", sys, k, r.HitAtK)
			}
		}
		if exact := resultFor(t, s.Results, sys, KindExactID); sys != SystemVector && *exact.HitAtK < 0.8 {
			t.Errorf("%s finds only %.0f%% of exact identifiers", sys, *exact.HitAtK*100)
		}
		if miss := resultFor(t, s.Results, sys, KindMiss); sys != SystemVector && miss.EmptyRate != 1 {
			t.Errorf("%s answers made-up words %.0f%% of the time", sys, (1-miss.EmptyRate)*100)
		}
	}
	if nova := resultFor(t, s.Results, SystemNova, KindAll); nova.BaselineOnly == nil {
		t.Error("nova reports no baseline-only share")
	}
	if s.Dense == nil || s.Dense.RecallAt10 != 1 || !strings.Contains(s.Dense.Method, "exact") {
		t.Errorf("a small generation scans every vector; dense %+v", s.Dense)
	}
	var out bytes.Buffer
	rep.WriteText(&out)
	for _, want := range []string{"index sync:", "(of which train", "sqlite fts5:", "fts5", "exact-id", "hit@10", "500",
		"Footprint", "full build rate", "dense:       exact scan"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, out.String())
		}
	}
	if !regexp.MustCompile(`search p50 vs fts5, by kind .*nova \d+\.\d\d/\d+\.\d\d/\d+\.\d\d`).MatchString(out.String()) {
		t.Errorf("the footprint table lacks nova's ratios by kind:\n%s", out.String())
	}

	// A second run over the same directory reuses the corpus and index.
	opts.Systems = []string{SystemBM25}
	rep2, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if s2 := rep2.Sizes[0]; !s2.Corpus.Reused || !s2.Sync.Reused || s2.FTS5 != nil {
		t.Errorf("second run: corpus reused %v, sync %+v, fts5 %+v", s2.Corpus.Reused, s2.Sync, s2.FTS5)
	}
}

// TestRunRejectsUnknownSystem: an unknown system is named in the error
// before any work: nothing is written to the run's directory.
func TestRunRejectsUnknownSystem(t *testing.T) {
	dir := t.TempDir()
	_, err := Run(context.Background(), Options{Sizes: []int{10}, Systems: []string{SystemBM25, "elastic"}, Dir: dir})
	if err == nil || !strings.Contains(err.Error(), `"elastic"`) {
		t.Fatalf("err = %v, want one naming the unknown system", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a rejected run wrote %d entries to its directory", len(entries))
	}
}

// TestRunRejectsTopKAboveNova: Nova answers at most api.MaxTopK results;
// a run asking every system for more would time Nova at fewer results
// than the others under one hit@k label, so it is refused before any work.
func TestRunRejectsTopKAboveNova(t *testing.T) {
	dir := t.TempDir()
	_, err := Run(context.Background(), Options{Sizes: []int{10}, QueriesPerKind: 1, TopK: api.MaxTopK + 1, Systems: []string{SystemFTS5}, Dir: dir})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(api.MaxTopK)) {
		t.Fatalf("err = %v, want one naming the limit %d", err, api.MaxTopK)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a rejected run wrote %d entries to its directory", len(entries))
	}
}

// exitingProgram writes a program that exits at once with status 3, as a
// novad that cannot start does.
func exitingProgram(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "novad")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 3\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunDaemonExitsAtStart: a novad that exits before it is ready is a
// note of the run, which goes on and ends; stopping the exited process
// used to wait for an exit it had already been told of, for ever.
func TestRunDaemonExitsAtStart(t *testing.T) {
	rep, err := Run(context.Background(), Options{Sizes: []int{10}, QueriesPerKind: 1, Systems: []string{},
		Daemon: true, NovadPath: exitingProgram(t), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if notes := rep.Sizes[0].Notes; len(notes) != 1 || !strings.Contains(notes[0], "exited before it was ready") {
		t.Errorf("notes %q, want one saying novad exited before it was ready", notes)
	}
	// It measured nothing: no figures of zero as if it had (ready in 0
	// ms, 0 B resident).
	if d := rep.Sizes[0].Daemon; d != nil {
		t.Errorf("daemon figures %+v from a novad that never was ready", d)
	}
	var out bytes.Buffer
	rep.WriteText(&out)
	if strings.Contains(out.String(), "ready in") {
		t.Errorf("the text reports a novad that never was ready:\n%s", out.String())
	}
}

// TestRunFreshDaemonExitsAtStart: the same for bench fresh, which fails,
// quoting novad's log (a temporary one is gone once the run ends).
func TestRunFreshDaemonExitsAtStart(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "novad")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho 'no generation to serve' >&2\nexit 3\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := RunFresh(context.Background(), FreshOptions{Records: 10, Appends: 1, NovadPath: bin, NovactlPath: bin})
	if err == nil || !strings.Contains(err.Error(), "exited before it was ready") || !strings.Contains(err.Error(), "no generation to serve") {
		t.Fatalf("err = %v, want novad exited before it was ready, with its log", err)
	}
}

// TestRunDaemon starts a real novad: the one NOVA_BENCH_NOVAD names, or
// one built for the test.
func TestRunDaemon(t *testing.T) {
	bin := os.Getenv("NOVA_BENCH_NOVAD")
	if bin == "" {
		bin = novatest.Binary(t, "novad")
	}
	rep, err := Run(context.Background(), Options{Sizes: []int{400}, QueriesPerKind: 3, Seed: 2, Systems: []string{},
		Daemon: true, NovadPath: bin, Load: true, LoadRequests: 60, LoadDuration: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Sizes[0]
	d := s.Daemon
	if d == nil || len(s.Notes) > 0 {
		t.Fatalf("daemon %+v notes %v", d, s.Notes)
	}
	if d.RSSAfterLoadBytes <= 0 || d.Load == nil || d.Load.OK != 60 || d.Load.RequestsPerSec <= 0 {
		t.Fatalf("daemon %+v load %+v", d, d.Load)
	}
	if d.FirstSearchMs <= 0 {
		t.Errorf("first search after load took %v ms", d.FirstSearchMs)
	}
	// Without Dir the work directory, novad's log in it, is removed at
	// the end: the report names no file that is gone (as it names no
	// corpus or work directory then).
	if d.Log != "" {
		if _, err := os.Stat(d.Log); err != nil {
			t.Errorf("the report names novad's log %s: %v", d.Log, err)
		}
	}
	if runtime.GOOS == "linux" && (d.AnonAfterQueriesBytes <= 0 || d.AnonAfterQueriesBytes > d.RSSAfterQueriesBytes) {
		t.Errorf("novad's anonymous memory %d bytes of %d resident", d.AnonAfterQueriesBytes, d.RSSAfterQueriesBytes)
	}
	if r := resultFor(t, s.Results, SystemNovad, KindExactID); *r.HitAtK < 0.6 {
		t.Errorf("novad finds %.0f%% of exact identifiers", *r.HitAtK*100)
	}
}

// TestWriteTextShowsFailedQueries: queries that failed are left out of a
// row's latency and hit figures, so the text says how many there were;
// otherwise a system answering a third of its queries would read as
// finding all it was asked.
func TestWriteTextShowsFailedQueries(t *testing.T) {
	queries := []Query{{Kind: KindKeyword, Text: "a", Target: "r1"}, {Kind: KindKeyword, Text: "b", Target: "r2"}, {Kind: KindKeyword, Text: "c", Target: "r3"}}
	res, err := timeQueries(context.Background(), SystemNovad, queries, func(_ context.Context, q Query) (outcome, error) {
		if q.Text == "a" {
			return outcome{ids: []string{q.Target}}, nil
		}
		return outcome{}, errors.New("HTTP 503")
	}, cpuTime, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	if all := resultFor(t, res, SystemNovad, KindAll); all.Errors != 2 || *all.HitAtK != 1 {
		t.Fatalf("all: %+v", all)
	}
	rep := &Report{TopK: 10, Sizes: []SizeReport{{Records: 10, Results: res}}}
	var out bytes.Buffer
	rep.WriteText(&out)
	if !strings.Contains(out.String(), "novad-http: 2 of 3 queries failed") {
		t.Errorf("the text does not say that 2 of novad-http's 3 queries failed:\n%s", out.String())
	}
}

// TestRunStopsGeneratingWhenInterrupted: Ctrl-C while the corpus is
// being written stops the writing; it used to run to the end (minutes at
// a few million records) before the run noticed, and a second Ctrl-C
// does nothing to a novactl already told to stop.
func TestRunStopsGeneratingWhenInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Options{Sizes: []int{20000}, QueriesPerKind: 1, Systems: []string{}, Dir: dir})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	work := filepath.Join(dir, "n20000-seed0")
	if _, err := os.Stat(filepath.Join(work, "corpus-meta.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the corpus was finished and marked for reuse after the interruption: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(work, "corpus.jsonl")); err == nil && fi.Size() > 4<<20 {
		t.Errorf("the corpus was written on after the interruption: %d bytes", fi.Size())
	}
}

// TestUnmeasuredIsNotZero: where the bench cannot read a process's
// memory or CPU time (novad's, on macOS), the report leaves the figure
// out instead of printing 0 B or 0 ms as if it had been measured.
func TestUnmeasuredIsNotZero(t *testing.T) {
	queries := []Query{{Kind: KindKeyword, Text: "a", Target: "r1"}}
	res, err := timeQueries(context.Background(), SystemNovad, queries, func(_ context.Context, q Query) (outcome, error) {
		return outcome{ids: []string{q.Target}}, nil
	}, nil, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	all := resultFor(t, res, SystemNovad, KindAll)
	if all.CPUMeanMs != nil {
		t.Errorf("CPU time %v ms per query, read with no clock", *all.CPUMeanMs)
	}
	// What a run on macOS reports: no process memory, no novad CPU.
	rep := &Report{TopK: 10, Sizes: []SizeReport{{Records: 10, Results: res,
		Corpus:         CorpusReport{CorpusStats: CorpusStats{Records: 10, Sessions: 1, Bytes: 4800, MinChars: 77, MaxChars: 1198, MedianChars: 161}},
		GenerationLoad: &LoadReport{OpenMs: 3},
		Daemon:         &DaemonReport{ReadyMs: 120, FirstSearchMs: 4, Load: &LoadTestReport{Clients: 2, MaxRequests: 10, Requests: 10, OK: 10, DurationMs: 100, RequestsPerSec: 100, P50Ms: 1, P99Ms: 2}},
	}}}
	var out bytes.Buffer
	rep.WriteText(&out)
	text := out.String()
	for _, bad := range []string{" 0 B", "CPU 0.0 ms"} {
		if strings.Contains(text, bad) {
			t.Errorf("the text reports an unmeasured figure as %q:\n%s", bad, text)
		}
	}
	row := regexp.MustCompile(`(?m)^.*novad-http\s+all\s.*$`).FindString(text)
	if f := strings.Fields(row); len(f) < 8 || f[7] != "-" {
		t.Errorf("novad-http's cpu ms column is not \"-\": %q", row)
	}
	fresh := &FreshReport{Records: 10, Appends: 1, IdleWindowMs: 10000}
	out.Reset()
	fresh.WriteText(&out)
	for _, bad := range []string{" 0 B", "idle CPU 0 ms"} {
		if strings.Contains(out.String(), bad) {
			t.Errorf("the fresh text reports an unmeasured figure as %q:\n%s", bad, out.String())
		}
	}
}

// TestRunRebuildsAStaleKeptIndex: a kept index built under other reading
// rules (an older Nova) is rebuilt, not searched as if this build had
// made it: the hits and latencies would be of an index this build does
// not produce.
func TestRunRebuildsAStaleKeptIndex(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Sizes: []int{200}, QueriesPerKind: 1, Systems: []string{}, Dir: dir}
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	syncPath := filepath.Join(dir, "n200-seed0", "sync.json")
	b, err := os.ReadFile(syncPath)
	if err != nil {
		t.Fatal(err)
	}
	var prev map[string]any
	if err := json.Unmarshal(b, &prev); err != nil {
		t.Fatal(err)
	}
	prev["readingRules"] = "ingest-v0"
	if b, err = json.Marshal(prev); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(syncPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Sizes[0]; !s.Corpus.Reused || s.Sync == nil || s.Sync.Reused {
		t.Errorf("corpus reused %v, sync %+v: want the corpus reused and the index rebuilt", s.Corpus.Reused, s.Sync)
	}
	// An index this build made is still reused.
	rep, err = Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Sizes[0]; s.Sync == nil || !s.Sync.Reused {
		t.Errorf("sync %+v: want the index of the run before reused", s.Sync)
	}
}

// TestRunProgressOnLongSteps: writing the corpus and filling the FTS5
// database take minutes at millions of records; each says how far it is
// (every progressEvery, here every record) instead of one line at its
// start.
func TestRunProgressOnLongSteps(t *testing.T) {
	defer func(d time.Duration) { progressEvery = d }(progressEvery)
	progressEvery = 0
	var lines []string
	_, err := Run(context.Background(), Options{Sizes: []int{300}, QueriesPerKind: 1, Systems: []string{SystemFTS5}, Dir: t.TempDir(),
		Progress: func(s string) { lines = append(lines, s) }})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{"] generating: 300/300 records", "] fts5: 300/300 records inserted"} {
		if !strings.Contains(all, want) {
			t.Errorf("no progress line with %q:\n%s", want, all)
		}
	}
	// A scan of every vector has no recall to measure: none is claimed.
	if strings.Contains(all, "over 0 queries") {
		t.Errorf("a progress line reports a recall measured over no query:\n%s", all)
	}
}

// TestRunDaemonFailureQuotesItsLog: without --keep the work directory,
// novad's log with it, is removed when the run ends, so the note about a
// novad that did not start quotes the end of its log instead of naming
// a file that no longer exists.
func TestRunDaemonFailureQuotesItsLog(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "novad")
	script := "#!/bin/sh\necho 'starting' >&2\necho 'config: server.port: must be an integer' >&2\nexit 3\n"
	if err := os.WriteFile(bin, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Sizes: []int{10}, QueriesPerKind: 1, Systems: []string{}, Daemon: true, NovadPath: bin})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(rep.Sizes[0].Notes, "\n")
	if !strings.Contains(notes, "server.port: must be an integer") {
		t.Errorf("the note does not quote novad's log: %q", notes)
	}
	for _, p := range regexp.MustCompile(`/\S+novad\.log`).FindAllString(notes, -1) {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the note names %s, which is gone: %v", p, err)
		}
	}
}

// TestNovadRunsAtRuntimeDefaults: the report says novad runs at the Go
// runtime's defaults, as under launchd or systemd, whatever the bench
// process was started with; GOMAXPROCS=1 used to reach novad too.
func TestNovadRunsAtRuntimeDefaults(t *testing.T) {
	env := withoutNova([]string{"PATH=/bin", "GOGC=50", "GOMEMLIMIT=1GiB", "GOMAXPROCS=1", "NOVA_HOME=/x", "HOME=/h"})
	if want := []string{"PATH=/bin", "HOME=/h"}; !slices.Equal(env, want) {
		t.Errorf("novad's environment %q, want %q", env, want)
	}
}

// TestPeakSinceStartIsSaid: where the peak cannot be reset before the
// sync (getrusage on macOS), it is the bench process's peak since it
// started, which may be an earlier size's; the text says so beside it.
func TestPeakSinceStartIsSaid(t *testing.T) {
	rep := &Report{TopK: 10, Sizes: []SizeReport{{Records: 10,
		Corpus: CorpusReport{CorpusStats: CorpusStats{Records: 10, Bytes: 4800}},
		Sync:   &SyncReport{Records: 10, Chunks: 10, TotalMs: 100, PeakRSSBytes: 300 << 20, PeakRSSSinceStart: true},
	}}}
	var out bytes.Buffer
	rep.WriteText(&out)
	if n := strings.Count(out.String(), "300 MiB (since the bench started)"); n != 2 {
		t.Errorf("the sync line and the footprint table should both say the peak is since the start (%d do):\n%s", n, out.String())
	}
}

// TestLoadTestRateSaysWhatItCounts: requests/s counts the answered ones
// only (a 429 is a request too): the text says so, beside the total.
func TestLoadTestRateSaysWhatItCounts(t *testing.T) {
	rep := &Report{TopK: 10, Sizes: []SizeReport{{Records: 10,
		Corpus: CorpusReport{CorpusStats: CorpusStats{Records: 10, Bytes: 4800}},
		Daemon: &DaemonReport{ReadyMs: 100, FirstSearchMs: 3, Load: &LoadTestReport{Clients: 2, MaxRequests: 100, Requests: 100, OK: 50, Rejected429: 50, DurationMs: 1000, RequestsPerSec: 50}},
	}}}
	var out bytes.Buffer
	rep.WriteText(&out)
	if !strings.Contains(out.String(), "100 requests in 1.0 s: 50.0 answered (200) requests/s") {
		t.Errorf("the load test line does not say its rate counts the answered requests:\n%s", out.String())
	}
}

// TestDaemonRSSWithoutPeak: on macOS novad's resident set is read (from
// ps) but not its peak; the text shows the resident set without a
// "peak 0 B".
func TestDaemonRSSWithoutPeak(t *testing.T) {
	rep := &Report{TopK: 10, Sizes: []SizeReport{{Records: 10,
		Corpus: CorpusReport{CorpusStats: CorpusStats{Records: 10, Sessions: 1, Bytes: 4800, MinChars: 77, MaxChars: 1198, MedianChars: 161}},
		Daemon: &DaemonReport{ReadyMs: 120, FirstSearchMs: 4, RSSAfterLoadBytes: 30 << 20, RSSAfterQueriesBytes: 40 << 20,
			Load: &LoadTestReport{Clients: 2, MaxRequests: 10, Requests: 10, OK: 10, DurationMs: 100, RequestsPerSec: 100, P50Ms: 1, P99Ms: 2, RSSAfterBytes: 41 << 20}},
	}}}
	var out bytes.Buffer
	rep.WriteText(&out)
	text := out.String()
	if strings.Contains(text, " 0 B") {
		t.Errorf("the text reports an unread peak as 0 B:\n%s", text)
	}
	row := regexp.MustCompile(`(?m)^novad resident memory.*$`).FindString(text)
	if !strings.Contains(row, "30 MiB") {
		t.Errorf("the footprint row lacks novad's resident set: %q", row)
	}
	for _, want := range []string{"40 MiB after the queries", "novad RSS 41 MiB"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
}

// TestRunDaemonDiesDuringQueries: novad killed while the bench times
// its queries (the kernel's OOM killer, say) is a note of the run, and
// its memory afterwards is not read from a process that is gone: the
// read gave 0 B "after the queries" and a peak of 0 B, as if measured.
func TestRunDaemonDiesDuringQueries(t *testing.T) {
	bin := os.Getenv("NOVA_BENCH_NOVAD")
	if bin == "" {
		bin = novatest.Binary(t, "novad")
	}
	started := regexp.MustCompile(`novad started \(pid (\d+)\)`)
	pid := 0
	rep, err := Run(context.Background(), Options{Sizes: []int{300}, QueriesPerKind: 3, Seed: 2, Systems: []string{},
		Daemon: true, NovadPath: bin, Progress: func(line string) {
			if m := started.FindStringSubmatch(line); m != nil {
				pid, _ = strconv.Atoi(m[1])
			}
			if strings.Contains(line, "timing "+SystemNovad) && pid > 0 {
				if p, err := os.FindProcess(pid); err == nil {
					_ = p.Kill()
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Sizes[0]
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "exited") {
		t.Errorf("notes %q, want one saying novad exited", s.Notes)
	}
	if d := s.Daemon; d == nil || d.RSSAfterLoadBytes <= 0 || d.RSSAfterQueriesBytes != 0 {
		t.Errorf("daemon %+v: want its memory after load, none after the queries", d)
	}
	var out bytes.Buffer
	rep.WriteText(&out)
	if strings.Contains(out.String(), " 0 B") {
		t.Errorf("the text reports a figure read from an exited novad as 0 B:\n%s", out.String())
	}
}

// TestFootprintOverNoAnswer: a system whose every query failed (novad
// gone, or answering 503) has no latency; its p50 of no sample is 0,
// and the footprint table showed it as a ratio of 0.00 to FTS5, the best
// figure it can hold.
func TestFootprintOverNoAnswer(t *testing.T) {
	var queries []Query
	for _, k := range []string{KindKeyword, KindSemantic, KindFiltered} {
		queries = append(queries, Query{Kind: k, Text: "a", Target: "r1"}, Query{Kind: k, Text: "b", Target: "r2"})
	}
	timed := func(system string, fail bool) []Result {
		res, err := timeQueries(context.Background(), system, queries, func(_ context.Context, q Query) (outcome, error) {
			if fail {
				return outcome{}, errors.New("HTTP 503")
			}
			time.Sleep(time.Millisecond) // a latency of its own, not 0
			return outcome{ids: []string{q.Target}}, nil
		}, nil, func(string, ...any) {})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := append(append(timed(SystemFTS5, false), timed(SystemNova, true)...), timed(SystemNovad, true)...)
	rep := &Report{TopK: 10, Sizes: []SizeReport{{Records: 10, Results: res,
		Corpus: CorpusReport{CorpusStats: CorpusStats{Records: 10, Sessions: 1, Bytes: 4800, MinChars: 77, MaxChars: 1198, MedianChars: 161}}}}}
	var out bytes.Buffer
	rep.WriteText(&out)
	text := out.String()
	for _, measure := range []string{"search p50 vs fts5 ", "search p50 vs fts5, by kind", "search p50 in process"} {
		row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(measure) + `.*$`).FindString(text)
		if strings.Contains(row, SystemNovad) || strings.Contains(row, SystemNova+" ") || strings.Contains(row, "0.0") {
			t.Errorf("the footprint row %q gives a figure of queries that all failed:\n%s", row, text)
		}
	}
	// Nor does the table of every system and kind.
	for _, row := range regexp.MustCompile(`(?m)^.*(nova|novad-http)\s+(keyword|all)\s.*$`).FindAllString(text, -1) {
		if f := strings.Fields(row); len(f) < 9 || f[4] != "-" || f[8] != "-" {
			t.Errorf("the row %q gives a p50 or an empty share of queries that all failed", row)
		}
	}
}

// TestLoadTestWithNoAnswer: a load test whose every request failed or
// was refused (429) has no latency; the text said "p50 0.0 ms, p99 0.0 ms".
func TestLoadTestWithNoAnswer(t *testing.T) {
	rep := &Report{TopK: 10, Sizes: []SizeReport{{Records: 10,
		Corpus: CorpusReport{CorpusStats: CorpusStats{Records: 10, Sessions: 1, Bytes: 4800, MinChars: 77, MaxChars: 1198, MedianChars: 161}},
		Daemon: &DaemonReport{ReadyMs: 120, FirstSearchMs: 4,
			Load: &LoadTestReport{Clients: 2, MaxRequests: 10, Requests: 10, Rejected429: 4, Errors: 6, DurationMs: 100}},
	}}}
	var out bytes.Buffer
	rep.WriteText(&out)
	line := regexp.MustCompile(`(?m)^load test:.*$`).FindString(out.String())
	if line == "" || strings.Contains(line, "p50 0") || strings.Contains(line, "p99 0") || !strings.Contains(line, "4 rejected") {
		t.Errorf("the load test line %q gives a latency of no answer (or lacks the refusals)", line)
	}
}

// TestRunReportsAFailedSyncRecord: sync.json, the record that lets a kept
// index be reused, that cannot be written fails the run, naming it; the
// error was dropped, and the next run rebuilt the index without saying
// why. The write is atomic: no cut file is left behind.
func TestRunReportsAFailedSyncRecord(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "n200-seed0")
	// A folder that is not empty where sync.json goes: no write of the
	// file can replace it.
	if err := os.MkdirAll(filepath.Join(work, "sync.json", "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), Options{Sizes: []int{200}, QueriesPerKind: 1, Systems: []string{}, Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "sync.json") {
		t.Fatalf("err = %v, want one naming sync.json", err)
	}
	left, _ := filepath.Glob(filepath.Join(work, ".*.tmp*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
