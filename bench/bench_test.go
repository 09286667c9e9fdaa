package bench

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/client"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/daemon"
	"github.com/nova-recall/nova/eval"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/search"
)

// Go benchmarks of the same comparison as novactl bench, for profiling:
//
//	go test -run '^$' -bench Search10k -benchtime=1x ./bench
//	go test -run '^$' -bench 'Search10k/nova' -benchtime=1x -cpuprofile cpu.out ./bench
//
// Each iteration runs every query of one kind once; the metrics are the
// per-query latency percentiles and hit@10. novad-http is the daemon run in
// this process over loopback HTTP, so one profile holds both ends:
//
//	go test -run '^$' -bench 'Search10k/novad-http' -benchtime=50x -cpuprofile cpu.out ./bench
//
// BenchmarkSearch100k needs NOVA_BENCH_LARGE=1 (it indexes 100 000
// records first).

// fixture is one indexed corpus shared by the benchmarks of a size.
type fixture struct {
	systems  map[string]searchFunc
	releases []func()
	queries  []Query
	gen      genEnv
}

var (
	fixturesMu  sync.Mutex
	fixtures    = map[int]*fixture{}
	fixturesDir string
	// fixtureStops stop the novads serving the fixtures.
	fixtureStops []func()
)

func cleanupFixtures() {
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	for _, stop := range fixtureStops {
		stop()
	}
	for _, f := range fixtures {
		for _, release := range f.releases {
			release()
		}
	}
	if fixturesDir != "" {
		os.RemoveAll(fixturesDir)
	}
}

const benchQueriesPerKind = 50

func loadFixture(b *testing.B, n int) *fixture {
	b.Helper()
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	if f := fixtures[n]; f != nil {
		return f
	}
	if fixturesDir == "" {
		d, err := os.MkdirTemp("", "nova-gobench-")
		if err != nil {
			b.Fatal(err)
		}
		fixturesDir = d
	}
	ctx := context.Background()
	dir := filepath.Join(fixturesDir, fmt.Sprint(n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	corpus := NewCorpus(CorpusOptions{Records: n, Seed: 1, ChineseShare: DefaultChineseShare})
	corpusPath := filepath.Join(dir, "corpus.jsonl")
	f, err := os.Create(corpusPath)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := corpus.WriteJSONL(f); err != nil {
		b.Fatal(err)
	}
	f.Close()
	cfg, err := writeHomeConfig(homeIn(dir), corpusPath)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := timeSync(ctx, cfg, func(string, ...any) {}); err != nil {
		b.Fatal(err)
	}
	an := lexical.NewAnalyzer()
	_, g, err := index.OpenActive(context.Background(), cfg.Home, an)
	if err != nil {
		b.Fatal(err)
	}
	gen := genEnv{g: g, analyzer: an, k: 10, engine: search.New(search.ConfigFor(cfg.Retrieval), an), snap: &search.Snapshot{Gen: g, Query: g.Model}}
	fx := &fixture{systems: map[string]searchFunc{}, queries: corpus.Queries(benchQueriesPerKind, 1), gen: gen}
	for _, sys := range systems {
		switch {
		case sys.overGeneration != nil:
			fn, skip := sys.overGeneration(gen)
			if skip != "" {
				b.Fatalf("%s: %s", sys.name, skip)
			}
			fx.systems[sys.name] = fn
		case sys.overCorpus != nil:
			fn, release, err := sys.overCorpus(ctx, corpusEnv{dir: dir, keep: true, corpusPath: corpusPath, k: 10, say: func(string, ...any) {}}, &SizeReport{})
			if err != nil {
				b.Fatal(err)
			}
			fx.systems[sys.name], fx.releases = fn, append(fx.releases, release)
		}
	}
	fx.systems[SystemNovad] = serveNovad(b, cfg)
	fixtures[n] = fx
	return fx
}

// serveNovad runs the real daemon in this process on free loopback ports
// (so one CPU profile holds both ends of the HTTP search) and returns the
// search that goes through its facade with the typed client, as
// novactl bench's novad-http does against the binary.
func serveNovad(b *testing.B, cfg config.Config) searchFunc {
	b.Helper()
	cfg.Server.Port, cfg.Facade.Port = 0, 0
	srv, err := daemon.New(daemon.Options{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready, stopped := make(chan struct{}), make(chan error, 1)
	go func() { stopped <- srv.Run(ctx, ready) }()
	<-ready
	fixtureStops = append(fixtureStops, func() {
		cancel()
		if err := <-stopped; err != nil {
			fmt.Fprintln(os.Stderr, "novad:", err)
		}
	})
	c := client.New("http://"+srv.FacadeAddr().String(), "http://"+srv.DirectAddr().String())
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if h, err := c.Health(ctx); err == nil && h.IndexReady {
			break
		} else if time.Now().After(deadline) {
			b.Fatalf("novad did not load the generation: %v", err)
		}
	}
	return func(ctx context.Context, q Query) (outcome, error) {
		resp, status, err := c.Search(ctx, searchBody(q, 10))
		if err != nil {
			return outcome{}, err
		}
		if status != http.StatusOK {
			return outcome{}, fmt.Errorf("HTTP %d", status)
		}
		return envelopeOutcome(resp), nil
	}
}

func benchSearch(b *testing.B, n int) {
	fx := loadFixture(b, n)
	for _, sys := range slices.Concat(DefaultSystems, []string{SystemNovad}) {
		fn := fx.systems[sys]
		for _, kind := range QueryKinds {
			var qs []Query
			for _, q := range fx.queries {
				if q.Kind == kind {
					qs = append(qs, q)
				}
			}
			b.Run(sys+"/"+kind, func(b *testing.B) {
				ctx := context.Background()
				var lat []float64
				hits, targets := 0, 0
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					for _, q := range qs {
						t0 := time.Now()
						out, err := fn(ctx, q)
						lat = append(lat, float64(time.Since(t0).Nanoseconds())/1e6)
						if err != nil {
							b.Fatal(err)
						}
						if q.Target != "" {
							targets++
							for _, id := range out.ids {
								if id == q.Target {
									hits++
									break
								}
							}
						}
					}
				}
				b.StopTimer()
				sort.Float64s(lat)
				b.ReportMetric(eval.Percentile(lat, 0.5), "p50-ms")
				b.ReportMetric(eval.Percentile(lat, 0.99), "p99-ms")
				if targets > 0 {
					b.ReportMetric(float64(hits)/float64(targets), "hit@10")
				}
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// BenchmarkSearchManyTags10k times a search over 10 000 records whose tag
// filter lists 5 000 tags, two of them the corpus's (an agent that copies
// every tag it has seen into its request): the filter's cost grows with
// documents times the tags they carry, not times the tags asked for.
func BenchmarkSearchManyTags10k(b *testing.B) {
	fx := loadFixture(b, 10_000)
	tags := []string{"deploy", "incident"}
	for i := len(tags); i < 5000; i++ {
		tags = append(tags, fmt.Sprintf("tag-%d", i))
	}
	req := api.SearchRequest{Query: "deploy config rollback", TopK: 10, Filters: api.Filters{Tags: tags}}
	for b.Loop() {
		resp, err := fx.gen.engine.Search(context.Background(), fx.gen.snap, req)
		if err != nil || len(resp.Results) == 0 {
			b.Fatalf("search with many tags: %v, %d results", err, len(resp.Results))
		}
	}
}

// BenchmarkSearch10k times every system and query kind over 10 000
// records.
func BenchmarkSearch10k(b *testing.B) { benchSearch(b, 10_000) }

// BenchmarkSearch100k is BenchmarkSearch10k over 100 000 records; set
// NOVA_BENCH_LARGE=1.
func BenchmarkSearch100k(b *testing.B) {
	if os.Getenv("NOVA_BENCH_LARGE") == "" {
		b.Skip("set NOVA_BENCH_LARGE=1 to index 100 000 records")
	}
	benchSearch(b, 100_000)
}

// BenchmarkIndexSync10k times index sync of 10 000 records into a fresh
// home per iteration.
func BenchmarkIndexSync10k(b *testing.B) {
	dir := b.TempDir()
	corpusPath := filepath.Join(dir, "corpus.jsonl")
	f, err := os.Create(corpusPath)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := NewCorpus(CorpusOptions{Records: 10_000, Seed: 1, ChineseShare: DefaultChineseShare}).WriteJSONL(f); err != nil {
		b.Fatal(err)
	}
	f.Close()
	var total time.Duration
	var peak int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		home := homeIn(filepath.Join(dir, fmt.Sprint(i)))
		cfg, err := writeHomeConfig(home, corpusPath)
		if err != nil {
			b.Fatal(err)
		}
		s, err := timeSync(context.Background(), cfg, func(string, ...any) {})
		if err != nil {
			b.Fatal(err)
		}
		total += time.Duration(s.TotalMs) * time.Millisecond
		peak = max(peak, s.PeakRSSBytes)
	}
	b.ReportMetric(float64(10_000*b.N)/total.Seconds(), "records/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-rss-MiB")
}
