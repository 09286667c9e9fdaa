package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/search"
)

// Systems compared in one run.
const (
	// SystemNova is Nova's full multi-pass pipeline (search.Engine) in
	// process, default configuration.
	SystemNova = "nova"
	// SystemBM25 is Nova's BM25 index alone (the chunk's own text, the
	// query's analyzer terms), no planning, fusion or evidence layer.
	SystemBM25 = "bm25"
	// SystemVector is exact vector search alone: embed the query with the
	// generation's builtin model, scan every vector.
	SystemVector = "vector"
	// SystemFTS5 is SQLite FTS5 bm25 over the same records.
	SystemFTS5 = "fts5"
	// SystemNovad is the real novad answering POST
	// /api/rag/external/search on loopback, one client.
	SystemNovad = "novad-http"
)

// DefaultSystems are the systems a run compares unless told otherwise.
var DefaultSystems = []string{SystemNova, SystemBM25, SystemVector, SystemFTS5}

// KindAll and KindBaselineOnly are the summary rows of a system: every
// query, and (Nova) the queries that stopped after the baseline pass.
const (
	KindAll          = "all"
	KindBaselineOnly = "baseline-only"
)

// Options configure a benchmark run.
type Options struct {
	// Sizes are the corpus sizes, in records.
	Sizes []int
	// QueriesPerKind is the number of queries of each kind.
	QueriesPerKind int
	// Seed makes the corpus and the queries.
	Seed int64
	// ChineseShare is the share of Chinese sessions.
	ChineseShare float64
	// TopK is the number of results every system returns; hit@TopK is
	// reported. 0 means 10.
	TopK int
	// Systems are the in-process systems to time (DefaultSystems when
	// nil; empty non-nil for none).
	Systems []string
	// Dir is the work directory. Empty: a temporary one, removed at the
	// end. Otherwise each size lives in Dir/n<size>-seed<seed> and is kept;
	// a corpus and index already there (same generator, size, seed and
	// Chinese share) are reused instead of rebuilt.
	Dir string
	// Daemon starts the real novad (NovadPath) on each size's home and
	// measures its memory and HTTP latency.
	Daemon bool
	// NovadPath is the novad binary.
	NovadPath string
	// Load runs the loopback load test (needs Daemon).
	Load bool
	// LoadClients, LoadRequests and LoadDuration bound the load test;
	// zero values mean 2 clients, 2000 requests, 60 s.
	LoadClients  int
	LoadRequests int
	LoadDuration time.Duration
	// Progress receives one line per step (nil: silent).
	Progress func(string)
}

// Machine describes where a run happened.
type Machine struct {
	// GoVersion, OS and Arch are the Go toolchain and platform.
	GoVersion string `json:"goVersion"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	// CPU is the model name from /proc/cpuinfo; CPUs the logical CPUs.
	CPU  string `json:"cpu"`
	CPUs int    `json:"cpus"`
	// MemTotalBytes is the machine's memory (Linux).
	MemTotalBytes int64 `json:"memTotalBytes,omitempty"`
	// LoadAvg is /proc/loadavg's 1, 5 and 15 minute averages at the start:
	// other work on the machine shows in latency, not in CPU time.
	LoadAvg string `json:"loadAvgAtStart,omitempty"`
	// RuntimeEnv lists the Go runtime variables (GOGC, GOMEMLIMIT,
	// GOMAXPROCS) the bench process ran with, when set.
	RuntimeEnv []string `json:"runtimeEnv,omitempty"`
}

// Report is the result of a run.
type Report struct {
	// GeneratorVersion identifies the corpus generator.
	GeneratorVersion string `json:"generatorVersion"`
	// Command is the command line that produced the report (set by the
	// caller).
	Command    string    `json:"command,omitempty"`
	StartedAt  time.Time `json:"startedAt"`
	DurationMs int64     `json:"durationMs"`
	Machine    Machine   `json:"machine"`
	// Seed, QueriesPerKind, TopK and ChineseShare are the run's options.
	Seed           int64   `json:"seed"`
	QueriesPerKind int     `json:"queriesPerKind"`
	TopK           int     `json:"topK"`
	ChineseShare   float64 `json:"chineseShare"`
	// Systems are the systems timed, in order.
	Systems []string `json:"systems"`
	// PeakRSSMethod says how peak memory was read on this platform.
	PeakRSSMethod string `json:"peakRssMethod"`
	// Sizes holds one report per corpus size.
	Sizes []SizeReport `json:"sizes"`
}

// SizeReport is everything measured at one corpus size.
type SizeReport struct {
	// Records is the corpus size.
	Records int `json:"records"`
	// Dir is the kept work directory ("" when it was temporary).
	Dir            string       `json:"dir,omitempty"`
	Corpus         CorpusReport `json:"corpus"`
	Sync           *SyncReport  `json:"sync,omitempty"`
	GenerationLoad *LoadReport  `json:"generationLoad,omitempty"`
	// FTS5 is the SQLite FTS5 build (nil when fts5 was not run).
	FTS5 *FTSBuild `json:"fts5,omitempty"`
	// Results has one row per system and query kind.
	Results []Result `json:"results"`
	// Daemon is the real novad (nil when it was not started).
	Daemon *DaemonReport `json:"daemon,omitempty"`
	// Notes are phases that were skipped or failed, with the reason.
	Notes []string `json:"notes,omitempty"`
}

// CorpusReport describes the generated corpus.
type CorpusReport struct {
	CorpusStats
	// Path is the kept corpus file.
	Path string `json:"path,omitempty"`
	// GenerateMs is the time to generate and write it.
	GenerateMs int64 `json:"generateMs"`
	// Reused means an earlier run's corpus was used.
	Reused bool `json:"reused,omitempty"`
}

// SyncReport is `index sync` (build, verify, promote) of the corpus into a
// fresh home, in process.
type SyncReport struct {
	// CPUMs is the process CPU time (user + system) the sync used.
	CPUMs int64 `json:"cpuMs"`
	// Records, Chunks and Embedded are what the build reported.
	Records  int `json:"records"`
	Chunks   int `json:"chunks"`
	Embedded int `json:"embedded"`
	// TotalMs is the wall time; StageMs the build's stage timings.
	TotalMs int64            `json:"totalMs"`
	StageMs map[string]int64 `json:"stageMs"`
	// Throughput over the whole sync (embeddings: over the embed stage,
	// model training included).
	RecordsPerSec    float64 `json:"recordsPerSec"`
	ChunksPerSec     float64 `json:"chunksPerSec"`
	EmbeddingsPerSec float64 `json:"embeddingsPerSec"`
	// PeakRSSBytes is the process' peak resident set during the sync.
	PeakRSSBytes int64 `json:"peakRssBytes"`
	// IndexBytes is the generation's size on disk.
	IndexBytes int64 `json:"indexBytes"`
	// Reused means the figures are an earlier run's (the index was kept).
	Reused bool `json:"reused,omitempty"`
}

// LoadReport is generation.Open of the promoted generation.
type LoadReport struct {
	// OpenMs is the time generation.Open took.
	OpenMs int64 `json:"openMs"`
	// Process RSS before and after, and the Go heap in use after.
	RSSBeforeBytes int64 `json:"rssBeforeBytes"`
	RSSAfterBytes  int64 `json:"rssAfterBytes"`
	HeapBytes      int64 `json:"heapBytes"`
}

// Result is one system's figures on one query kind.
type Result struct {
	// System is one of the System* names; Kind a query kind, KindAll or
	// KindBaselineOnly.
	System string `json:"system"`
	Kind   string `json:"kind"`
	// Queries is the number of queries summarised.
	Queries int `json:"queries"`
	// Wall-clock latency per query (nearest-rank percentiles).
	P50Ms  float64 `json:"p50Ms"`
	P99Ms  float64 `json:"p99Ms"`
	MeanMs float64 `json:"meanMs"`
	MaxMs  float64 `json:"maxMs"`
	// HitAtK is the share of queries whose target record is among the
	// top TopK results (nil for kinds without a target).
	HitAtK *float64 `json:"hitAtK"`
	// EmptyRate is the share of queries that returned nothing (the right
	// answer to a miss).
	EmptyRate float64 `json:"emptyRate"`
	// BaselineOnly is the share of queries that stopped after Nova's
	// baseline pass (Nova only).
	BaselineOnly *float64 `json:"baselineOnly,omitempty"`
	// CPUMeanMs is the mean CPU time per query of the process that
	// searched (this one in process, novad for novad-http): unlike
	// latency, it does not grow when other processes compete for the
	// cores.
	CPUMeanMs float64 `json:"cpuMeanMs"`
	// Errors counts queries that failed (excluded from the figures).
	Errors int `json:"errors,omitempty"`
}

// Run measures every size and returns the report. A failure of one phase
// (the daemon, say) is recorded in the size's notes; a failure to build or
// load the index stops the run.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if len(opts.Sizes) == 0 {
		return nil, errors.New("no sizes to run")
	}
	if opts.QueriesPerKind <= 0 {
		opts.QueriesPerKind = 200
	}
	if opts.TopK <= 0 {
		opts.TopK = 10
	}
	if opts.Systems == nil {
		opts.Systems = DefaultSystems
	}
	for _, s := range opts.Systems {
		if !slices.Contains(DefaultSystems, s) {
			return nil, fmt.Errorf("unknown system %q (known: %s)", s, strings.Join(DefaultSystems, ", "))
		}
	}
	if opts.Progress == nil {
		opts.Progress = func(string) {}
	}
	rep := &Report{
		GeneratorVersion: GeneratorVersion, StartedAt: time.Now().UTC(), Machine: DescribeMachine(),
		Seed: opts.Seed, QueriesPerKind: opts.QueriesPerKind, TopK: opts.TopK, ChineseShare: opts.ChineseShare,
		Systems: append([]string(nil), opts.Systems...), PeakRSSMethod: peakMethod,
	}
	if opts.Daemon {
		rep.Systems = append(rep.Systems, SystemNovad)
	}
	root, keep := opts.Dir, opts.Dir != ""
	if !keep {
		tmp, err := os.MkdirTemp("", "nova-bench-")
		if err != nil {
			return nil, err
		}
		root = tmp
		defer os.RemoveAll(tmp)
	}
	for _, n := range opts.Sizes {
		sr, err := runSize(ctx, opts, root, n, keep)
		if sr != nil {
			rep.Sizes = append(rep.Sizes, *sr)
		}
		if err != nil {
			rep.DurationMs = time.Since(rep.StartedAt).Milliseconds()
			return rep, fmt.Errorf("%d records: %w", n, err)
		}
	}
	rep.DurationMs = time.Since(rep.StartedAt).Milliseconds()
	return rep, nil
}

// corpusMeta identifies a corpus on disk, for reuse.
type corpusMeta struct {
	Generator string        `json:"generator"`
	Options   CorpusOptions `json:"options"`
	Stats     CorpusStats   `json:"stats"`
}

func runSize(ctx context.Context, opts Options, root string, n int, keep bool) (*SizeReport, error) {
	say := func(format string, args ...any) {
		opts.Progress(fmt.Sprintf("[%s] ", humanCount(n)) + fmt.Sprintf(format, args...))
	}
	dir := filepath.Join(root, fmt.Sprintf("n%d-seed%d", n, opts.Seed))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	sr := &SizeReport{Records: n}
	if keep {
		sr.Dir = dir
	}
	corpusPath := filepath.Join(dir, "corpus.jsonl")
	home := homeIn(dir)
	corpus := NewCorpus(CorpusOptions{Records: n, Seed: opts.Seed, ChineseShare: opts.ChineseShare})
	want := corpusMeta{Generator: GeneratorVersion, Options: corpus.Options()}

	// 1. The corpus.
	reuse := false
	if keep {
		var have corpusMeta
		if b, err := os.ReadFile(filepath.Join(dir, "corpus-meta.json")); err == nil && json.Unmarshal(b, &have) == nil &&
			have.Generator == want.Generator && have.Options.Records == n && have.Options.Seed == opts.Seed &&
			have.Options.ChineseShare == want.Options.ChineseShare && fileExists(corpusPath) {
			reuse = true
			sr.Corpus = CorpusReport{CorpusStats: have.Stats, Reused: true}
			say("reusing the corpus in %s", dir)
		}
	}
	if !reuse {
		say("generating %d records", n)
		t0 := time.Now()
		f, err := os.Create(corpusPath)
		if err != nil {
			return sr, err
		}
		st, err := corpus.WriteJSONL(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return sr, fmt.Errorf("write corpus: %w", err)
		}
		sr.Corpus = CorpusReport{CorpusStats: st, GenerateMs: time.Since(t0).Milliseconds()}
		want.Stats = st
		b, _ := json.MarshalIndent(want, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, "corpus-meta.json"), b, 0o644); err != nil {
			return sr, err
		}
		say("corpus: %s, %d sessions, %d Chinese records, median %d chars, in %s", humanBytes(st.Bytes), st.Sessions, st.ChineseRecords, st.MedianChars, msf(float64(sr.Corpus.GenerateMs)))
	}
	if keep {
		sr.Corpus.Path = corpusPath
	}

	// 2. index sync into a fresh home (or the kept one).
	cfg, err := writeHomeConfig(home, corpusPath)
	if err != nil {
		return sr, err
	}
	syncPath := filepath.Join(dir, "sync.json")
	if reuse {
		var prev SyncReport
		if b, err := os.ReadFile(syncPath); err == nil && json.Unmarshal(b, &prev) == nil && fileExists(home.Manifest()) {
			prev.Reused = true
			sr.Sync = &prev
			say("reusing the index in %s", home.Root)
		}
	}
	if sr.Sync == nil {
		for _, d := range []string{home.IndexDir(), filepath.Join(home.Root, "cache"), home.ModelDir()} {
			os.RemoveAll(d)
		}
		s, err := timeSync(ctx, cfg, say)
		if err != nil {
			return sr, fmt.Errorf("index sync: %w", err)
		}
		sr.Sync = s
		b, _ := json.MarshalIndent(s, "", "  ")
		_ = os.WriteFile(syncPath, b, 0o644)
	}

	// 3. Load the generation as novad does.
	analyzer := lexical.NewAnalyzer()
	releaseMemory()
	rssBefore, _ := selfMemory()
	t0 := time.Now()
	m, g, err := index.OpenActive(home, analyzer)
	if err != nil {
		return sr, fmt.Errorf("load generation: %w", err)
	}
	openMs := time.Since(t0).Milliseconds()
	releaseMemory()
	rssAfter, _ := selfMemory()
	var mstats runtime.MemStats
	runtime.ReadMemStats(&mstats)
	sr.GenerationLoad = &LoadReport{OpenMs: openMs, RSSBeforeBytes: rssBefore, RSSAfterBytes: rssAfter, HeapBytes: int64(mstats.HeapAlloc)}
	say("generation %s loaded in %s (%d chunks; RSS %s -> %s)", m.RunID, msf(float64(openMs)), g.Count(), humanBytes(rssBefore), humanBytes(rssAfter))

	queries := corpus.Queries(opts.QueriesPerKind, opts.Seed)

	// 4. In-process systems over the loaded generation.
	engine := search.New(search.ConfigFor(cfg.Retrieval), analyzer)
	snap := &search.Snapshot{Gen: g, Query: g.Model}
	for _, sys := range opts.Systems {
		var fn searchFunc
		switch sys {
		case SystemNova:
			fn = novaSearch(engine, snap, opts.TopK)
		case SystemBM25:
			fn = bm25Search(g, analyzer, opts.TopK)
		case SystemVector:
			if g.Model == nil {
				sr.Notes = append(sr.Notes, "vector: the generation has no builtin model; skipped")
				continue
			}
			fn = vectorSearch(g, opts.TopK)
		default:
			continue
		}
		say("timing %s over %d queries", sys, len(queries))
		res, err := timeQueries(ctx, sys, queries, fn, cpuTime, say)
		if err != nil {
			return sr, err
		}
		sr.Results = append(sr.Results, res...)
	}
	snap, engine, g = nil, nil, nil
	releaseMemory()

	// 5. SQLite FTS5 over the same records.
	if slices.Contains(opts.Systems, SystemFTS5) {
		say("building SQLite FTS5 (%s)", FTSTokenizer)
		ix, build, err := buildFTS(ctx, filepath.Join(dir, "fts5.db"), corpusPath)
		if err != nil {
			return sr, err
		}
		sr.FTS5 = build
		say("FTS5 built in %s (insert %s, optimize %s), %s", msf(float64(build.TotalMs)), msf(float64(build.InsertMs)), msf(float64(build.OptimizeMs)), humanBytes(build.DBBytes))
		say("timing fts5 over %d queries", len(queries))
		res, err := timeQueries(ctx, SystemFTS5, queries, func(ctx context.Context, q Query) (outcome, error) {
			ids, err := ix.search(ctx, q, opts.TopK)
			return outcome{ids: ids}, err
		}, cpuTime, say)
		ix.Close()
		if !keep {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(filepath.Join(dir, "fts5.db"+suffix))
			}
		}
		if err != nil {
			return sr, err
		}
		sr.Results = append(sr.Results, res...)
	}

	// 6. The real daemon.
	if opts.Daemon {
		d, res, err := runDaemon(ctx, opts, home, queries, say)
		sr.Daemon = d
		sr.Results = append(sr.Results, res...)
		if err != nil {
			sr.Notes = append(sr.Notes, "novad: "+err.Error())
			say("novad: %v", err)
		}
	}
	if !keep {
		os.RemoveAll(dir)
	}
	return sr, nil
}

// homeIn is the NOVA_HOME of a size's work directory.
func homeIn(dir string) paths.Home { return paths.Home{Root: filepath.Join(dir, "home")} }

// writeHomeConfig writes the bench home's config.yaml (the corpus as one
// jsonl source; ports 0 so the daemon picks free ones) and loads it, so the
// in-process engine and novad run the same configuration.
func writeHomeConfig(home paths.Home, corpusPath string) (config.Config, error) {
	if err := os.MkdirAll(home.Root, 0o700); err != nil {
		return config.Config{}, err
	}
	abs, err := filepath.Abs(corpusPath)
	if err != nil {
		return config.Config{}, err
	}
	quoted, _ := json.Marshal(abs)
	yml := "# Written by novactl bench.\nserver:\n  host: 127.0.0.1\n  port: 0\nfacade:\n  port: 0\nsources:\n  - name: bench\n    kind: jsonl\n    path: " + string(quoted) + "\n"
	if err := os.WriteFile(home.Config(), []byte(yml), 0o600); err != nil {
		return config.Config{}, err
	}
	return config.LoadFile(home, home.Config(), nil)
}

// timeSync runs index sync and measures it.
func timeSync(ctx context.Context, cfg config.Config, say func(string, ...any)) (*SyncReport, error) {
	releaseMemory()
	resetPeak()
	last := time.Now()
	lastStage := ""
	ix := index.New(cfg, index.Options{NoRemote: true, Progress: func(p index.Progress) {
		if p.Stage != lastStage || time.Since(last) > 5*time.Second {
			lastStage, last = p.Stage, time.Now()
			if p.Total > 1 {
				say("sync: %s %d/%d", p.Stage, p.Done, p.Total)
			} else {
				say("sync: %s", p.Stage)
			}
		}
	}})
	t0, c0 := time.Now(), cpuTime()
	res, err := ix.Sync(ctx)
	if err != nil {
		return nil, err
	}
	total, cpu := time.Since(t0), cpuTime()-c0
	_, peak := selfMemory()
	b := res.Build
	s := &SyncReport{
		Records: b.Records, Chunks: b.Chunks, Embedded: b.Embedded, TotalMs: total.Milliseconds(),
		StageMs: b.Timings, PeakRSSBytes: peak, IndexBytes: b.Bytes, CPUMs: cpu.Milliseconds(),
	}
	if sec := total.Seconds(); sec > 0 {
		s.RecordsPerSec = float64(b.Records) / sec
		s.ChunksPerSec = float64(b.Chunks) / sec
	}
	if e := b.Timings["embed"]; e > 0 {
		s.EmbeddingsPerSec = float64(b.Embedded) / (float64(e) / 1000)
	}
	say("sync: %d records, %d chunks in %s (%.0f records/s, CPU %s), stages %v, peak RSS %s", b.Records, b.Chunks, msf(float64(s.TotalMs)), s.RecordsPerSec, msf(float64(s.CPUMs)), b.Timings, humanBytes(peak))
	return s, nil
}

// outcome is what one search returned.
type outcome struct {
	ids []string // record ids, best first
	// passes is the number of retrieval passes Nova ran (0: not Nova).
	passes int
}

type searchFunc func(ctx context.Context, q Query) (outcome, error)

func filtersOf(q Query) api.Filters {
	return api.Filters{Project: q.Project, DateFrom: q.DateFrom, DateTo: q.DateTo}
}

func novaSearch(engine *search.Engine, snap *search.Snapshot, k int) searchFunc {
	return func(ctx context.Context, q Query) (outcome, error) {
		ctx, cancel := context.WithTimeout(ctx, api.MaxServerBudgetMs*time.Millisecond)
		defer cancel()
		resp, err := engine.Search(ctx, snap, api.SearchRequest{Query: q.Text, TopK: k, Filters: filtersOf(q)})
		if err != nil {
			return outcome{}, err
		}
		return envelopeOutcome(resp), nil
	}
}

func envelopeOutcome(resp *api.SearchResponse) outcome {
	o := outcome{ids: make([]string, len(resp.Results)), passes: len(resp.RetrievalController.PassTelemetry)}
	for i, r := range resp.Results {
		o.ids[i] = r.Provenance.SourceID
	}
	return o
}

// accept returns the hard filter of q over g's chunks (nil: none).
func accept(g *generation.Generation, q Query) func(int) bool {
	if !q.Filtered() {
		return nil
	}
	return func(d int) bool {
		c := g.Chunk(d)
		if q.Project != "" && c.Project != q.Project {
			return false
		}
		if q.DateFrom != "" && c.Date < q.DateFrom {
			return false
		}
		if q.DateTo != "" && c.Date > q.DateTo {
			return false
		}
		return true
	}
}

func bm25Search(g *generation.Generation, analyzer *lexical.Analyzer, k int) searchFunc {
	return func(_ context.Context, q Query) (outcome, error) {
		hits := g.SearchText(analyzer.Terms(q.Text), k, accept(g, q))
		o := outcome{ids: make([]string, len(hits))}
		for i, h := range hits {
			o.ids[i] = g.Chunk(h.Doc).SourceID
		}
		return o, nil
	}
}

func vectorSearch(g *generation.Generation, k int) searchFunc {
	return func(ctx context.Context, q Query) (outcome, error) {
		vecs, err := g.Model.Embed(ctx, []string{q.Text})
		if err != nil {
			return outcome{}, err
		}
		hits, err := g.SearchVectors(vecs[0], k, accept(g, q))
		if err != nil {
			return outcome{}, err
		}
		o := outcome{ids: make([]string, 0, len(hits))}
		for _, h := range hits {
			o.ids = append(o.ids, g.Chunk(h.Doc).SourceID)
		}
		return o, nil
	}
}

// sample is one timed query.
type sample struct {
	q   Query
	d   time.Duration
	cpu time.Duration
	out outcome
	err error
}

// warmup is the number of queries run untimed before a system is timed.
const warmup = 10

// timeQueries runs every query once through fn (after a short untimed
// warm-up) and summarises latency, CPU time (read with cpu around each
// query, outside the timed span) and hits per kind.
func timeQueries(ctx context.Context, system string, queries []Query, fn searchFunc, cpu func() time.Duration, say func(string, ...any)) ([]Result, error) {
	for i := 0; i < min(warmup, len(queries)); i++ {
		if _, err := fn(ctx, queries[i]); err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	samples := make([]sample, 0, len(queries))
	last := time.Now()
	for i, q := range queries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c0 := cpu()
		t0 := time.Now()
		out, err := fn(ctx, q)
		d := time.Since(t0)
		samples = append(samples, sample{q: q, d: d, cpu: cpu() - c0, out: out, err: err})
		if time.Since(last) > 10*time.Second {
			last = time.Now()
			say("%s: %d/%d queries", system, i+1, len(queries))
		}
	}
	return summarise(system, samples), nil
}

// summarise turns samples into one Result per kind, plus "all" and, when
// pass counts are known, "baseline-only".
func summarise(system string, samples []sample) []Result {
	var out []Result
	byKind := map[string][]sample{}
	var baseline []sample
	novaLike := false
	for _, s := range samples {
		byKind[s.q.Kind] = append(byKind[s.q.Kind], s)
		if s.out.passes > 0 {
			novaLike = true
		}
		if s.out.passes == 1 {
			baseline = append(baseline, s)
		}
	}
	for _, k := range QueryKinds {
		if len(byKind[k]) > 0 {
			out = append(out, summary(system, k, byKind[k], novaLike))
		}
	}
	if len(samples) > 0 {
		out = append(out, summary(system, KindAll, samples, novaLike))
	}
	if novaLike && len(baseline) > 0 {
		out = append(out, summary(system, KindBaselineOnly, baseline, novaLike))
	}
	return out
}

func summary(system, kind string, ss []sample, novaLike bool) Result {
	r := Result{System: system, Kind: kind, Queries: len(ss)}
	ds := make([]float64, 0, len(ss))
	var sum, cpu float64
	var withTarget, hits, empty, baseline int
	for _, s := range ss {
		if s.err != nil {
			r.Errors++
			continue
		}
		v := float64(s.d.Nanoseconds()) / 1e6
		ds = append(ds, v)
		sum += v
		cpu += float64(s.cpu.Nanoseconds()) / 1e6
		if len(s.out.ids) == 0 {
			empty++
		}
		if s.out.passes == 1 {
			baseline++
		}
		if s.q.Target != "" {
			withTarget++
			if slices.Contains(s.out.ids, s.q.Target) {
				hits++
			}
		}
	}
	if len(ds) > 0 {
		sort.Float64s(ds)
		r.P50Ms, r.P99Ms = round3(percentile(ds, 0.50)), round3(percentile(ds, 0.99))
		r.MeanMs, r.MaxMs = round3(sum/float64(len(ds))), round3(ds[len(ds)-1])
		r.EmptyRate = round4(float64(empty) / float64(len(ds)))
		r.CPUMeanMs = round3(cpu / float64(len(ds)))
		if novaLike {
			b := round4(float64(baseline) / float64(len(ds)))
			r.BaselineOnly = &b
		}
	}
	if withTarget > 0 {
		h := round4(float64(hits) / float64(withTarget))
		r.HitAtK = &h
	}
	return r
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }
func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
func round4(f float64) float64 { return math.Round(f*10000) / 10000 }

// releaseMemory returns freed memory to the OS so RSS readings mean what
// is live.
func releaseMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// DescribeMachine reports the Go version, OS, CPU model and memory.
func DescribeMachine() Machine {
	m := Machine{GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				var kb int64
				fmt.Sscan(f[1], &kb)
				m.MemTotalBytes = kb * 1024
			}
		}
	}
	for _, k := range []string{"GOGC", "GOMEMLIMIT", "GOMAXPROCS"} {
		if v, ok := os.LookupEnv(k); ok {
			m.RuntimeEnv = append(m.RuntimeEnv, k+"="+v)
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			m.LoadAvg = strings.Join(f[:3], " ")
		}
	}
	return m
}
