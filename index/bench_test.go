package index_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
)

// Vocabulary of the generated corpus: engineering memory of a few teams.
var (
	benchProjects = []string{"billing", "web", "analytics", "infra", "mobile", "search", "auth", "payments", "ledger", "notify"}
	benchAgents   = []string{"codex", "claude-code", "human", "ci-bot"}
	benchTags     = []string{"decision", "bug", "ops", "lesson", "release", "incident", "database", "security", "perf", "todo"}
	benchSubjects = []string{"the staging API", "the nightly export", "the invoice service", "the auth proxy", "the search indexer",
		"the mobile build", "the payments webhook", "the ledger migration", "the notify worker", "the CDN config",
		"the Postgres replica", "the Redis cache", "the Kafka consumer", "the terraform plan", "the feature flag service"}
	benchVerbs = []string{"moved to", "now listens on", "failed on", "was pinned to", "was rolled back to", "depends on",
		"times out against", "was rebuilt with", "logs errors from", "was migrated to"}
	benchDetails = []string{"after the release", "because the health check hit the wrong path", "during the incident review",
		"until the certificate rotates", "per the runbook", "behind the nginx proxy", "when the queue backs up",
		"to fix the rounding bug", "since the schema change", "with ROUND_HALF_EVEN", "on the canary hosts",
		"for the quarterly audit", "as the on-call suggested", "to cut p99 latency", "before the freeze"}
	benchWords = strings.Fields(`retry backoff timeout deadline quota shard replica leader follower snapshot
		checkpoint compaction vacuum index partition tenant region zone cluster node pod container image digest
		registry pipeline artifact cache bucket object lifecycle retention policy secret token certificate rotation
		webhook callback handler middleware router gateway proxy balancer upstream downstream consumer producer
		topic offset lag throughput latency error budget alert pager escalation postmortem rollback canary flag
		experiment cohort metric dashboard trace span sample histogram percentile invoice ledger refund currency
		rounding settlement payout dispute chargeback subscription plan trial coupon migration backfill schema
		column constraint foreign key unique null default trigger function procedure view materialized`)
)

// benchRecord returns record i of the generated corpus: 50-600 characters
// of varied text with ids, ports, dates, versions and hashes.
func benchRecord(rng *rand.Rand, i int) map[string]any {
	var b strings.Builder
	target := 50 + rng.IntN(551)
	for b.Len() < target {
		switch rng.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "%s %s port %d %s. ", benchSubjects[rng.IntN(len(benchSubjects))], benchVerbs[rng.IntN(len(benchVerbs))],
				1024+rng.IntN(64000), benchDetails[rng.IntN(len(benchDetails))])
		case 1:
			fmt.Fprintf(&b, "Ticket %s-%d: %s v%d.%d.%d %s. ", strings.ToUpper(benchProjects[rng.IntN(len(benchProjects))][:3]), 100+rng.IntN(9900),
				benchSubjects[rng.IntN(len(benchSubjects))], rng.IntN(5), rng.IntN(30), rng.IntN(20), benchDetails[rng.IntN(len(benchDetails))])
		case 2:
			n := 4 + rng.IntN(12)
			for j := 0; j < n; j++ {
				b.WriteString(benchWords[rng.IntN(len(benchWords))])
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "(commit %08x). ", rng.Uint32())
		default:
			fmt.Fprintf(&b, "On 2026-%02d-%02d the %s %s %s. ", 1+rng.IntN(12), 1+rng.IntN(28), benchWords[rng.IntN(len(benchWords))],
				benchVerbs[rng.IntN(len(benchVerbs))], benchSubjects[rng.IntN(len(benchSubjects))])
		}
	}
	text := b.String()
	if len(text) > 600 {
		text = text[:600]
		if k := strings.LastIndexByte(text, ' '); k > 50 {
			text = text[:k]
		}
	}
	rec := map[string]any{
		"id":      fmt.Sprintf("rec-%06d-%04x", i, rng.IntN(1<<16)),
		"text":    strings.TrimSpace(text),
		"date":    fmt.Sprintf("2026-%02d-%02d", 1+rng.IntN(12), 1+rng.IntN(28)),
		"agent":   benchAgents[rng.IntN(len(benchAgents))],
		"project": benchProjects[rng.IntN(len(benchProjects))],
		"tags":    []string{benchTags[rng.IntN(len(benchTags))], benchTags[rng.IntN(len(benchTags))]},
	}
	if rng.IntN(3) == 0 {
		rec["session"] = fmt.Sprintf("s-%05d", i/20)
	}
	if rng.IntN(5) == 0 {
		rec["role"] = []string{"user", "assistant"}[rng.IntN(2)]
	}
	return rec
}

// writeBenchCorpus writes n records into files of 10 000 records each.
func writeBenchCorpus(tb testing.TB, dir string, n int) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(2, 26))
	var f *os.File
	var w *bufio.Writer
	closeFile := func() {
		if f != nil {
			if err := w.Flush(); err != nil {
				tb.Fatal(err)
			}
			if err := f.Close(); err != nil {
				tb.Fatal(err)
			}
		}
	}
	for i := 0; i < n; i++ {
		if i%10_000 == 0 {
			closeFile()
			var err error
			f, err = os.Create(filepath.Join(dir, fmt.Sprintf("export-%02d.jsonl", i/10_000)))
			if err != nil {
				tb.Fatal(err)
			}
			w = bufio.NewWriterSize(f, 1<<20)
		}
		line, err := json.Marshal(benchRecord(rng, i))
		if err != nil {
			tb.Fatal(err)
		}
		_, _ = w.Write(line) // a bufio.Writer: Flush reports errors
		_ = w.WriteByte('\n')
	}
	closeFile()
}

// peakMemory samples the heap every few milliseconds while it runs.
type peakMemory struct {
	heapInuse, sys atomic.Uint64
	stop           chan struct{}
	wg             sync.WaitGroup
}

func watchMemory() *peakMemory {
	p := &peakMemory{stop: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > p.heapInuse.Load() {
				p.heapInuse.Store(ms.HeapInuse)
			}
			if ms.Sys > p.sys.Load() {
				p.sys.Store(ms.Sys)
			}
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
		}
	}()
	return p
}

func (p *peakMemory) done() { close(p.stop); p.wg.Wait() }

// cpuTime returns the user and system CPU time of this process so far.
// On a shared machine it shows how much of the wall time was work.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// vmHWM returns the process's peak resident set in bytes (Linux), or 0.
func vmHWM() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkSync100k syncs 100 000 generated jsonl records into an empty
// home with the builtin embedder: read, analyse, train the corpus model,
// embed every chunk, write, verify and promote. It reports records/s,
// embeddings/s, the peak heap in use and peak RSS (VmHWM), and the time
// novad would take to load the generation. Run it once:
//
//	go test -run '^$' -bench BenchmarkSync100k -benchtime=1x ./index/
//
// NOVA_BENCH_RECORDS sets the number of records, NOVA_BENCH_HOME keeps the
// home and NOVA_BENCH_CORPUS names the corpus folder, so that the files of
// two builds can be compared.
func BenchmarkSync100k(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("NOVA_BENCH_RECORDS")); err == nil && v > 0 {
		n = v // e.g. NOVA_BENCH_RECORDS=1000000 for the 1M build
	}
	src := filepath.Join(b.TempDir(), "exports")
	if dir := os.Getenv("NOVA_BENCH_CORPUS"); dir != "" {
		// A named folder (made afresh): the generations of two builds,
		// kept with NOVA_BENCH_HOME, then differ only in their ids.
		src = dir
		if err := os.RemoveAll(src); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.Mkdir(src, 0o755); err != nil {
		b.Fatal(err)
	}
	writeBenchCorpus(b, src, n)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		home := filepath.Join(b.TempDir(), "home")
		if keep := os.Getenv("NOVA_BENCH_HOME"); keep != "" {
			home = keep // kept for a look at the files afterwards
		}
		cfg := testConfig(b, home, config.Source{Name: "exports", Kind: config.KindJSONL, Path: src})
		stages := &stageClock{}
		ix := index.New(cfg, index.Options{NoRemote: true, Progress: stages.progress})
		runtime.GC()
		mem := watchMemory()
		cpu0 := cpuTime()
		b.StartTimer()
		start := time.Now()
		r, err := ix.Sync(context.Background())
		elapsed := time.Since(start)
		b.StopTimer()
		stages.progress(index.Progress{Stage: "end"})
		cpu := cpuTime() - cpu0
		mem.done()
		if err != nil {
			b.Fatal(err)
		}
		if r.Build.Records != n || r.Build.Embedded != r.Build.Chunks {
			b.Fatalf("records %d embedded %d of %d chunks", r.Build.Records, r.Build.Embedded, r.Build.Chunks)
		}
		m, _, err := manifest.Read(cfg.Home.Manifest())
		if err != nil {
			b.Fatal(err)
		}
		loadStart := time.Now()
		if _, err := generation.Open(context.Background(), cfg.Home.IndexDir(), m, lexical.NewAnalyzer(), generation.Options{}); err != nil {
			b.Fatal(err)
		}
		load := time.Since(loadStart)
		bytes := m.Bytes()
		b.ReportMetric(float64(n)/elapsed.Seconds(), "records/s")
		b.ReportMetric(float64(r.Build.Embedded)/(float64(r.Build.Timings["embed"])/1000), "embeddings/s")
		b.ReportMetric(float64(r.Build.Chunks), "chunks")
		b.ReportMetric(float64(mem.heapInuse.Load())/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(vmHWM())/(1<<20), "peak-RSS-MB")
		b.ReportMetric(float64(bytes)/(1<<20), "generation-MB")
		b.ReportMetric(float64(load.Milliseconds()), "load-ms")
		b.ReportMetric(cpu.Seconds(), "cpu-s")
		b.Logf("sync %s (%s CPU, model trained %v): timings (ms) %v; generation %d segments %.1f MB; load %s",
			elapsed.Round(time.Millisecond), cpu.Round(time.Millisecond), r.Build.ModelTrained, r.Build.Timings, len(m.Segments), float64(bytes)/(1<<20), load.Round(time.Millisecond))
		b.Logf("stages (wall / CPU, from the first progress report of each): %s", stages)
	}
}

// stageClock adds up the wall and CPU time a build spends in each progress
// stage (read and analyze alternate), to show where a core sits idle: CPU
// below twice the wall on two cores.
type stageClock struct {
	mu        sync.Mutex
	names     []string
	wall, cpu map[string]time.Duration
	current   string
	at        time.Time
	cpu0      time.Duration
}

func (c *stageClock) progress(p index.Progress) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.Stage == c.current {
		return
	}
	now, cpu := time.Now(), cpuTime()
	if c.wall == nil {
		c.wall, c.cpu = map[string]time.Duration{}, map[string]time.Duration{}
	}
	if c.current != "" {
		c.wall[c.current] += now.Sub(c.at)
		c.cpu[c.current] += cpu - c.cpu0
	}
	if _, ok := c.wall[p.Stage]; !ok {
		c.names = append(c.names, p.Stage)
		c.wall[p.Stage] = 0
	}
	c.current, c.at, c.cpu0 = p.Stage, now, cpu
}

func (c *stageClock) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	for _, name := range c.names {
		if name != "end" {
			parts = append(parts, fmt.Sprintf("%s %.2f / %.2f s", name, c.wall[name].Seconds(), c.cpu[name].Seconds()))
		}
	}
	return strings.Join(parts, ", ")
}
