package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/atomicfile"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/search"
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
	// reported. 0 means 10; at most api.MaxTopK.
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
	if opts.TopK > api.MaxTopK {
		// Nova and novad answer at most MaxTopK results: the other
		// systems would be measured at more, under the same hit@k.
		return nil, fmt.Errorf("top-k %d is more than the %d results Nova answers", opts.TopK, api.MaxTopK)
	}
	if opts.Systems == nil {
		opts.Systems = DefaultSystems
	}
	if err := CheckSystems(opts.Systems); err != nil {
		return nil, err
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
	if err := paths.MkdirPrivate(dir); err != nil {
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
		f, err := paths.CreatePrivate(corpusPath)
		if err != nil {
			return sr, err
		}
		st, err := corpus.WriteJSONL(&corpusWriter{ctx: ctx, w: f, records: n, said: time.Now(), say: say})
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return sr, fmt.Errorf("write corpus: %w", err)
		}
		sr.Corpus = CorpusReport{CorpusStats: st, GenerateMs: time.Since(t0).Milliseconds()}
		want.Stats = st
		b, _ := json.MarshalIndent(want, "", "  ")
		// Atomic: a cut record (a full disk) would be read as no record,
		// but one cut where a record stood must not be left either.
		if err := atomicfile.Write(filepath.Join(dir, "corpus-meta.json"), b, paths.FileMode); err != nil {
			return sr, fmt.Errorf("record the corpus for reuse: %w", err)
		}
		say("corpus: %s, %d sessions, %d Chinese records, median %d chars, in %s", humanize.IBytes(uint64(st.Bytes)), st.Sessions, st.ChineseRecords, st.MedianChars, msf(float64(sr.Corpus.GenerateMs)))
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
			if why := staleIndex(home, cfg, prev); why != "" {
				say("rebuilding the index in %s: %s", home.Root, why)
			} else {
				prev.Reused = true
				sr.Sync = &prev
				say("reusing the index in %s", home.Root)
			}
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
		if err := atomicfile.Write(syncPath, b, paths.FileMode); err != nil {
			return sr, fmt.Errorf("record the index for reuse: %w", err)
		}
	}

	// 3. Load the generation as novad does.
	analyzer := lexical.NewAnalyzer()
	releaseMemory()
	rssBefore, _ := selfMemory()
	t0 := time.Now()
	m, g, err := index.OpenActive(ctx, home, analyzer)
	if err != nil {
		return sr, fmt.Errorf("load generation: %w", err)
	}
	openMs := time.Since(t0).Milliseconds()
	releaseMemory()
	rssAfter, _ := selfMemory()
	var mstats runtime.MemStats
	runtime.ReadMemStats(&mstats)
	sr.GenerationLoad = &LoadReport{OpenMs: openMs, RSSBeforeBytes: rssBefore, RSSAfterBytes: rssAfter, HeapBytes: int64(mstats.HeapAlloc)}
	say("generation %s loaded in %s (%d chunks; RSS %s -> %s)", m.RunID, msf(float64(openMs)), g.Count(), humanize.IBytes(uint64(rssBefore)), humanize.IBytes(uint64(rssAfter)))

	queries := corpus.Queries(opts.QueriesPerKind, opts.Seed)
	sr.Dense = denseRecall(ctx, g, queries)
	if sr.Dense.Queries > 0 {
		say("dense channel: %s (recall@10 %.3f over %d queries)", sr.Dense.Method, sr.Dense.RecallAt10, sr.Dense.Queries)
	} else {
		say("dense channel: %s", sr.Dense.Method)
	}

	// 4. In-process systems over the loaded generation.
	gen := genEnv{g: g, analyzer: analyzer, k: opts.TopK,
		engine: search.New(search.ConfigFor(cfg.Retrieval), analyzer), snap: &search.Snapshot{Gen: g, Query: g.Model}}
	for _, name := range opts.Systems {
		sys, _ := lookupSystem(name)
		if sys.overGeneration == nil {
			continue
		}
		fn, skip := sys.overGeneration(gen)
		if skip != "" {
			sr.Notes = append(sr.Notes, name+": "+skip+"; skipped")
			continue
		}
		say("timing %s over %d queries", name, len(queries))
		res, err := timeQueries(ctx, name, queries, fn, cpuTime, say)
		if err != nil {
			return sr, err
		}
		sr.Results = append(sr.Results, res...)
	}
	gen, g = genEnv{}, nil
	releaseMemory()

	// 5. Systems with their own index of the same records.
	for _, name := range opts.Systems {
		sys, _ := lookupSystem(name)
		if sys.overCorpus == nil {
			continue
		}
		fn, release, err := sys.overCorpus(ctx, corpusEnv{dir: dir, keep: keep, corpusPath: corpusPath, records: n, k: opts.TopK, say: say}, sr)
		if err != nil {
			return sr, fmt.Errorf("%s: %w", name, err)
		}
		say("timing %s over %d queries", name, len(queries))
		res, err := timeQueries(ctx, name, queries, fn, cpuTime, say)
		release()
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

// denseQueries is how many queries measure the inverted file's recall.
const denseQueries = 200

// denseRecall describes g's dense channel and, when it probes an inverted
// file, measures its recall@10 against a scan of every vector on the
// bench's own queries (the build's check used held-out chunks instead).
func denseRecall(ctx context.Context, g *generation.Generation, queries []Query) *DenseReport {
	d := &DenseReport{Method: "exact scan of every vector", RecallAt10: 1}
	switch a := g.Meta.ANN; {
	case a != nil && a.Enabled:
		d.Method = fmt.Sprintf("inverted file, %d cells, %d probed (build check recall@10 %.3f)", a.Cells, a.Probe, a.RecallAt10)
	case g.HasANN():
		d.Method = "sign-bit prefilter, int8 scores of the nearest, exact re-scoring"
	}
	if !g.HasANN() || g.Model == nil {
		return d
	}
	var found, want int
	for i, q := range queries {
		if i == denseQueries {
			break
		}
		vs, err := g.Model.Embed(ctx, []string{q.Text})
		if err != nil || len(vs) == 0 {
			continue
		}
		exact, err1 := g.SearchVectorsExact(vs[0], 10, nil)
		probed, err2 := g.SearchVectors(vs[0], 10, nil)
		if err1 != nil || err2 != nil {
			continue
		}
		got := make(map[int]bool, len(probed))
		for _, h := range probed {
			got[h.Doc] = true
		}
		for _, h := range exact {
			if got[h.Doc] {
				found++
			}
		}
		want += len(exact)
		d.Queries++
	}
	if want > 0 {
		d.RecallAt10 = float64(found) / float64(want)
	}
	return d
}

// homeIn is the NOVA_HOME of a size's work directory.
func homeIn(dir string) paths.Home { return paths.Home{Root: filepath.Join(dir, "home")} }

// writeHomeConfig writes the bench home's config.yaml (the corpus as one
// jsonl source, then extra sources; ports 0 so the daemon picks free ones)
// and loads it, so the in-process engine and novad run the same
// configuration.
func writeHomeConfig(home paths.Home, corpusPath string, extra ...config.Source) (config.Config, error) {
	if err := os.MkdirAll(home.Root, 0o700); err != nil {
		return config.Config{}, err
	}
	var yml strings.Builder
	yml.WriteString("# Written by novactl bench.\nserver:\n  host: 127.0.0.1\n  port: 0\nfacade:\n  port: 0\nsources:\n")
	for _, src := range append([]config.Source{{Name: "bench", Kind: config.KindJSONL, Path: corpusPath}}, extra...) {
		abs, err := filepath.Abs(src.Path)
		if err != nil {
			return config.Config{}, err
		}
		quoted, _ := json.Marshal(abs)
		fmt.Fprintf(&yml, "  - name: %s\n    kind: %s\n    path: %s\n", src.Name, src.Kind, quoted)
	}
	if err := os.WriteFile(home.Config(), []byte(yml.String()), 0o600); err != nil {
		return config.Config{}, err
	}
	return config.LoadFile(home, home.Config(), nil)
}

// timeSync runs index sync and measures it.
func timeSync(ctx context.Context, cfg config.Config, say func(string, ...any)) (*SyncReport, error) {
	releaseMemory()
	sinceStart := !resetPeak()
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
		StageMs: b.Timings, PeakRSSBytes: peak, PeakRSSSinceStart: sinceStart, IndexBytes: b.Bytes, CPUMs: cpu.Milliseconds(),
		ReadingRules: ingest.Version, Analyzer: lexical.Version, // index.New's default analyzer
	}
	if sec := total.Seconds(); sec > 0 {
		s.RecordsPerSec = float64(b.Records) / sec
		s.ChunksPerSec = float64(b.Chunks) / sec
	}
	if e := b.Timings["embed"] + b.Timings["train"]; e > 0 {
		s.EmbeddingsPerSec = float64(b.Embedded) / (float64(e) / 1000)
	}
	say("sync: %d records, %d chunks in %s (%.0f records/s, CPU %s), stages %v, peak RSS %s", b.Records, b.Chunks, msf(float64(s.TotalMs)), s.RecordsPerSec, msf(float64(s.CPUMs)), b.Timings, humanize.IBytes(uint64(peak)))
	return s, nil
}

// staleIndex says why the kept index in home, whose sync is prev, is not
// one this build would make for cfg ("" when it is): other reading rules,
// another analyzer or another embedding profile (a builtin model of
// another dimension, say). Searching it would measure an older Nova.
func staleIndex(home paths.Home, cfg config.Config, prev SyncReport) string {
	if prev.ReadingRules != ingest.Version {
		return fmt.Sprintf("it was built with reading rules %q, this build has %q", prev.ReadingRules, ingest.Version)
	}
	if prev.Analyzer != lexical.Version {
		return fmt.Sprintf("it was built with analyzer %q, this build has %q", prev.Analyzer, lexical.Version)
	}
	m, _, err := manifest.Read(home.Manifest())
	if err != nil {
		return err.Error()
	}
	if !index.ProfileMatchesConfig(cfg, m.EmbeddingProfile) {
		return fmt.Sprintf("its embedding profile (%s, %d dimensions) is not this build's", m.EmbeddingProfile.Provider, m.EmbeddingProfile.Dimension)
	}
	return ""
}

// progressEvery is how often a long step says how far it is.
var progressEvery = 10 * time.Second

// corpusWriter writes the corpus file: it fails its writes once ctx is
// done (the corpus at a few million records takes minutes, and Ctrl-C
// should stop it), and counts the lines, one a record, to say how far it
// is every progressEvery.
type corpusWriter struct {
	ctx           context.Context
	w             io.Writer
	records, done int
	said          time.Time
	say           func(string, ...any)
}

func (c *corpusWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.w.Write(p)
	c.done += bytes.Count(p[:n], []byte{'\n'})
	if time.Since(c.said) >= progressEvery {
		c.said = time.Now()
		c.say("generating: %d/%d records", c.done, c.records)
	}
	return n, err
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
