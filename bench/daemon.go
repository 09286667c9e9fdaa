package bench

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dustin/go-humanize"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/client"
	"github.com/nova-recall/nova/eval"
	"github.com/nova-recall/nova/paths"
)

// procMem is a process's memory, in bytes.
type procMem struct {
	// RSS is resident now and Peak its high-water mark.
	RSS, Peak int64
	// Anon is the part of RSS that no file backs: the heap and stacks.
	// The rest, pages of the mapped generation, the kernel drops under
	// pressure and reads back from the page cache.
	Anon int64
}

// DaemonReport is the real novad serving one size's home on loopback.
type DaemonReport struct {
	// Binary and PID identify the novad that ran.
	Binary string `json:"binary"`
	PID    int    `json:"pid"`
	// ReadyMs is from exec to /health reporting the generation loaded.
	ReadyMs int64 `json:"readyMs"`
	// FirstSearchMs is the first search novad answered once ready: what
	// work a loaded generation leaves to its first search shows here.
	FirstSearchMs float64 `json:"firstSearchMs"`
	// RSS after the generation loaded, after the timed queries (one
	// client) and the peak (VmHWM) when it stopped being measured; on
	// macOS the RSS is read from ps, and the peak is not read (0).
	RSSAfterLoadBytes    int64 `json:"rssAfterLoadBytes"`
	RSSAfterQueriesBytes int64 `json:"rssAfterQueriesBytes"`
	PeakRSSBytes         int64 `json:"peakRssBytes"`
	// The anonymous part of the RSS (no file backs it) at the same
	// moments: what stays of novad's memory once the kernel reclaims the
	// generation's clean file pages.
	AnonAfterLoadBytes    int64 `json:"anonAfterLoadBytes,omitempty"`
	AnonAfterQueriesBytes int64 `json:"anonAfterQueriesBytes,omitempty"`
	// Load is the load test (nil without Options.Load).
	Load *LoadTestReport `json:"load,omitempty"`
	// Log is novad's log file in the work directory, when it is kept
	// (Options.Dir).
	Log string `json:"log,omitempty"`
}

// LoadTestReport is the loopback load test: concurrent clients sending
// the benchmark queries to POST /api/rag/external/search, bounded by a
// request count and a duration.
type LoadTestReport struct {
	// Clients, MaxRequests and MaxDurationMs are the bounds.
	Clients       int   `json:"clients"`
	MaxRequests   int   `json:"maxRequests"`
	MaxDurationMs int64 `json:"maxDurationMs"`
	// Requests were answered: OK (200), Rejected429 (capacity) or Errors.
	Requests    int `json:"requests"`
	OK          int `json:"ok"`
	Rejected429 int `json:"rejected429"`
	Errors      int `json:"errors"`
	// DurationMs is the test's wall time; RequestsPerSec counts OK ones.
	DurationMs     int64   `json:"durationMs"`
	RequestsPerSec float64 `json:"requestsPerSec"`
	// Latency of the OK requests.
	P50Ms  float64 `json:"p50Ms"`
	P99Ms  float64 `json:"p99Ms"`
	MeanMs float64 `json:"meanMs"`
	// novad's resident set after the test, and its peak.
	RSSAfterBytes int64 `json:"rssAfterBytes"`
	PeakRSSBytes  int64 `json:"peakRssBytes"`
	// CPUPerRequestMs is novad's CPU time over the test per successful
	// request (nil where novad's CPU time cannot be read: macOS).
	CPUPerRequestMs *float64 `json:"cpuPerRequestMs,omitempty"`
}

// DefaultNovadPath is bin/novad next to the running executable (novactl
// lives in bin/ beside it).
func DefaultNovadPath() string {
	exe, err := os.Executable()
	if err != nil {
		return "novad"
	}
	return filepath.Join(filepath.Dir(exe), "novad")
}

// runDaemon starts novad on home, waits for the generation to load, times
// the queries through the facade, optionally runs the load test, and stops
// it. The report is nil when novad never became ready.
func runDaemon(ctx context.Context, opts Options, home paths.Home, queries []Query, say func(string, ...any)) (*DaemonReport, []Result, error) {
	bin := opts.NovadPath
	if bin == "" {
		bin = DefaultNovadPath()
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, nil, fmt.Errorf("no novad binary at %s (build it with `make build` or pass --novad): %w", bin, err)
	}
	d := &DaemonReport{Binary: bin}
	logPath := filepath.Join(filepath.Dir(home.Root), "novad.log")
	os.Remove(home.ServerState())
	t0 := time.Now()
	p, err := startLogged(ctx, bin, []string{"--log-format", "text"}, append(withoutNova(os.Environ()), paths.EnvHome+"="+home.Root), logPath)
	if err != nil {
		// Nothing was measured: no report, whose zeros would read as
		// figures; the error is the size's note.
		return nil, nil, err
	}
	if opts.Dir != "" {
		// A temporary work directory, the log with it, is removed at the
		// end: the report would name a file that is gone.
		d.Log = logPath
	}
	d.PID = p.cmd.Process.Pid
	defer p.stop()
	say("novad started (pid %d), waiting for the generation to load", d.PID)

	c, err := waitReady(ctx, home, p, 15*time.Minute)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (%s)", err, logNote(logPath, opts.Dir != ""))
	}
	d.ReadyMs = time.Since(t0).Milliseconds()
	gone := func(err error) error { return fmt.Errorf("%w (%s)", err, logNote(logPath, opts.Dir != "")) }
	m, err := p.memory()
	if err != nil {
		return d, nil, gone(err)
	}
	d.RSSAfterLoadBytes, d.PeakRSSBytes, d.AnonAfterLoadBytes = m.RSS, m.Peak, m.Anon
	say("novad ready in %s, RSS %s", msf(float64(d.ReadyMs)), humanize.IBytes(uint64(d.RSSAfterLoadBytes)))

	say("timing %s over %d queries", SystemNovad, len(queries))
	var novadCPU func() time.Duration // nil: not read on this platform
	if _, err := childCPU(d.PID); err == nil {
		novadCPU = func() time.Duration { t, _ := childCPU(d.PID); return t }
	}
	first := true
	results, err := timeQueries(ctx, SystemNovad, queries, func(ctx context.Context, q Query) (outcome, error) {
		start := time.Now()
		resp, status, err := c.Search(ctx, searchBody(q, opts.TopK))
		if first {
			first = false
			d.FirstSearchMs = scalar.Round(float64(time.Since(start).Microseconds())/1000, 2)
		}
		if err != nil {
			return outcome{}, err
		}
		if status != http.StatusOK {
			return outcome{}, fmt.Errorf("HTTP %d", status)
		}
		return envelopeOutcome(resp), nil
	}, novadCPU, say)
	if err != nil {
		return d, nil, err
	}
	if m, err = p.memory(); err != nil {
		// The failed queries are in the results; the memory is not.
		return d, results, gone(err)
	}
	d.RSSAfterQueriesBytes, d.PeakRSSBytes, d.AnonAfterQueriesBytes = m.RSS, m.Peak, m.Anon
	say("novad RSS after the queries %s%s", humanize.IBytes(uint64(d.RSSAfterQueriesBytes)), peakNote(d.PeakRSSBytes))

	if opts.Load {
		c0, err0 := childCPU(d.PID)
		lt := loadTest(ctx, c, queries, opts, say)
		if c1, err := childCPU(d.PID); err0 == nil && err == nil && lt.OK > 0 {
			v := scalar.Round(float64((c1-c0).Nanoseconds())/1e6/float64(lt.OK), 2)
			lt.CPUPerRequestMs = &v
		}
		d.Load = lt
		if m, err = p.memory(); err != nil {
			return d, results, gone(err)
		}
		lt.RSSAfterBytes, lt.PeakRSSBytes = m.RSS, m.Peak
		d.PeakRSSBytes = max(d.PeakRSSBytes, lt.PeakRSSBytes)
		say("load: %d clients, %d requests in %s: %.1f req/s, %s, %d rejected, %d errors; novad RSS %s",
			lt.Clients, lt.Requests, msf(float64(lt.DurationMs)), lt.RequestsPerSec, lt.latencies(), lt.Rejected429, lt.Errors, humanize.IBytes(uint64(lt.RSSAfterBytes)))
	}
	return d, results, nil
}

func searchBody(q Query, k int) api.SearchBody {
	b := api.SearchBody{Query: q.Text, TopK: k, Project: q.Project}
	if q.DateFrom != "" || q.DateTo != "" {
		b.DateRange = &api.DateRange{From: q.DateFrom, To: q.DateTo}
	}
	return b
}

// withoutNova drops NOVA_* variables, so only the bench home applies, and
// the Go runtime's GOGC, GOMEMLIMIT and GOMAXPROCS (the ones the report's
// header lists), so novad is measured at the runtime defaults it has
// under launchd or systemd even when the bench itself runs with a memory
// limit or on fewer cores.
func withoutNova(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, "NOVA_") || strings.HasPrefix(kv, "GOGC=") || strings.HasPrefix(kv, "GOMEMLIMIT=") || strings.HasPrefix(kv, "GOMAXPROCS=")
	})
}

// process is a program the bench started. done is closed once it has
// exited, and err is then what Wait returned: every wait sees the exit,
// where a channel's one value would be taken by the first.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// startLogged starts bin with args and env, logging to logPath.
func startLogged(ctx context.Context, bin string, args, env []string, logPath string) (*process, error) {
	logf, err := paths.CreatePrivate(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, nil
}

// waitReady waits until novad (p) publishes its ports and reports the
// generation loaded.
func waitReady(ctx context.Context, home paths.Home, p *process, limit time.Duration) (*client.Client, error) {
	pid := p.cmd.Process.Pid
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return nil, fmt.Errorf("novad exited before it was ready: %v", p.err)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		st, err := client.ReadState(home)
		if err != nil || st.PID != pid || st.DirectPort == 0 || st.FacadePort == 0 {
			continue
		}
		c := client.New(fmt.Sprintf("http://127.0.0.1:%d", st.FacadePort), fmt.Sprintf("http://127.0.0.1:%d", st.DirectPort))
		hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		h, err := c.Health(hctx)
		cancel()
		if err == nil && h.IndexLoaded && h.IndexReady {
			return c, nil
		}
	}
	return nil, fmt.Errorf("novad did not load the generation within %s", limit)
}

// logNote points a failure at the log at path: its last lines, and its
// path when the work directory is kept (a temporary one, the log with it,
// is removed when the run ends).
func logNote(path string, kept bool) string {
	var tail []string
	if b, err := os.ReadFile(path); err == nil {
		lines := strings.Split(strings.TrimSpace(string(b[max(0, len(b)-4096):])), "\n")
		tail = lines[max(0, len(lines)-3):]
	}
	ends := "its log is empty"
	if len(tail) > 0 && tail[0] != "" {
		ends = fmt.Sprintf("its log ends: %q", strings.Join(tail, " | "))
	}
	if kept {
		return "log: " + path + "; " + ends
	}
	return ends + "; --keep keeps the log"
}

// memory reads the memory of p, a running novad (zeros where this
// platform cannot read it), or returns an error once p has exited: a
// process that is gone has no memory to read, and what the read gives
// then (no /proc file, or a zombie's with no figures) is zeros that
// would read as measured.
func (p *process) memory() (procMem, error) {
	m, err := childMemory(p.cmd.Process.Pid)
	if err == nil && m.RSS > 0 {
		return m, nil
	}
	// Nothing read: maybe gone, and Wait about to say so.
	select {
	case <-p.done:
		return procMem{}, fmt.Errorf("novad exited during the run: %v", p.err)
	case <-time.After(time.Second):
		return m, nil
	}
}

// stop asks the process to stop (SIGINT, as a terminal's Ctrl-C) and
// kills it if it has not exited within 15 seconds. The exit status of a
// process asked to stop is not a failure of the run.
func (p *process) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	// A failed signal means the process is already gone; done says so.
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		_ = p.cmd.Process.Kill()
	}
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// loadTest runs opts.LoadClients clients in a closed loop until
// opts.LoadRequests requests were sent or opts.LoadDuration passed.
func loadTest(ctx context.Context, c *client.Client, queries []Query, opts Options, say func(string, ...any)) *LoadTestReport {
	clients, maxReq, maxDur := opts.LoadClients, opts.LoadRequests, opts.LoadDuration
	if clients <= 0 {
		clients = 2
	}
	if maxReq <= 0 {
		maxReq = 2000
	}
	if maxDur <= 0 {
		maxDur = 60 * time.Second
	}
	lt := &LoadTestReport{Clients: clients, MaxRequests: maxReq, MaxDurationMs: maxDur.Milliseconds()}
	say("load test: %d clients, at most %d requests or %s", clients, maxReq, maxDur)
	ctx, cancel := context.WithTimeout(ctx, maxDur)
	defer cancel()
	var next atomic.Int64
	var mu sync.Mutex
	var lat []float64
	var wg sync.WaitGroup
	t0 := time.Now()
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= maxReq {
					return
				}
				q := queries[i%len(queries)]
				s := time.Now()
				_, status, err := c.Search(ctx, searchBody(q, opts.TopK))
				d := float64(time.Since(s).Nanoseconds()) / 1e6
				mu.Lock()
				switch {
				case err != nil && ctx.Err() != nil:
					// Cut by the duration bound: not counted.
				case err != nil:
					lt.Requests++
					lt.Errors++
				case status == http.StatusTooManyRequests:
					lt.Requests++
					lt.Rejected429++
				case status != http.StatusOK:
					lt.Requests++
					lt.Errors++
				default:
					lt.Requests++
					lt.OK++
					lat = append(lat, d)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	el := time.Since(t0)
	lt.DurationMs = el.Milliseconds()
	if el > 0 {
		lt.RequestsPerSec = scalar.Round(float64(lt.OK)/el.Seconds(), 2)
	}
	if len(lat) > 0 {
		sort.Float64s(lat)
		var sum float64
		for _, v := range lat {
			sum += v
		}
		lt.P50Ms, lt.P99Ms, lt.MeanMs = scalar.Round(eval.Percentile(lat, 0.5), 2), scalar.Round(eval.Percentile(lat, 0.99), 2), scalar.Round(sum/float64(len(lat)), 2)
	}
	return lt
}
