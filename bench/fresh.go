package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/client"
	"github.com/nova-recall/nova/eval"
	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/paths"
)

// FreshOptions configure the time-to-searchable measurement: how long a
// record appended to a watched source takes to be returned by novad's
// facade search, with the real novad and the real watcher (novactl index
// watch) running over a generated corpus.
type FreshOptions struct {
	// Records is the corpus size; Seed and ChineseShare make it.
	Records      int
	Seed         int64
	ChineseShare float64
	// Appends is the number of appends timed, one at a time.
	Appends int
	// Dir keeps the corpus and home for reuse; "" uses a temporary one.
	Dir string
	// NovadPath and NovactlPath are the binaries run.
	NovadPath, NovactlPath string
	// Quiet and MaxWait are passed to the watcher (0: its defaults).
	Quiet, MaxWait time.Duration
	// Timeout bounds the wait for one append; 0 means 10 minutes.
	Timeout time.Duration
	// Progress receives one line per step; nil discards them.
	Progress func(string)
}

// FreshReport is what RunFresh measured.
type FreshReport struct {
	Command string  `json:"command"`
	Machine Machine `json:"machine"`
	Records int     `json:"records"`
	Chunks  int     `json:"chunks"`
	Appends int     `json:"appends"`
	QuietMs int64   `json:"watcherQuietMs"`
	MaxWait int64   `json:"watcherMaxWaitMs"`
	SyncMs  int64   `json:"initialSyncMs"`
	// Ways are the measurements, one per way memory arrives.
	Ways     []FreshWayReport `json:"ways"`
	Syncs    int              `json:"watcherSyncs"`
	LastSync int64            `json:"lastWatcherSyncMs"`
	// WatcherPeakRSSBytes is the watcher's peak resident memory (Linux).
	WatcherPeakRSSBytes int64 `json:"watcherPeakRssBytes"`
	// WatcherIdleCPUMs is the watcher's CPU time over IdleWindowMs with
	// nothing changing (Linux; nil where it cannot be read).
	WatcherIdleCPUMs *int64 `json:"watcherIdleCpuMs,omitempty"`
	IdleWindowMs     int64  `json:"idleWindowMs"`
	WorkDir          string `json:"workDir"`
}

// FreshWayReport is the time to searchable of one way memory arrives
// (FreshJSONL, FreshClaudeCode, FreshCodex).
type FreshWayReport struct {
	Way     string  `json:"way"`
	P50Ms   float64 `json:"p50Ms"`
	P95Ms   float64 `json:"p95Ms"`
	MinMs   float64 `json:"minMs"`
	MaxMs   float64 `json:"maxMs"`
	Samples []int64 `json:"samplesMs"`
}

// RunFresh generates the corpus and the agents' files, syncs them once,
// starts novad and the watcher on them, then writes Appends pieces of
// memory each way (freshWay), one at a time, each after the watcher is
// idle again, and times each from the write to the first facade search
// that returns it.
func RunFresh(ctx context.Context, opts FreshOptions) (*FreshReport, error) {
	say := func(format string, args ...any) {
		if opts.Progress != nil {
			opts.Progress(fmt.Sprintf(format, args...))
		}
	}
	if opts.Appends <= 0 {
		opts.Appends = 20
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Minute
	}
	for _, b := range []string{opts.NovadPath, opts.NovactlPath} {
		if _, err := os.Stat(b); err != nil {
			return nil, fmt.Errorf("no binary at %s (make build): %w", b, err)
		}
	}
	dir := opts.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "nova-bench-fresh-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	dir = filepath.Join(dir, fmt.Sprintf("fresh-%d-seed%d", opts.Records, opts.Seed))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	rep := &FreshReport{Machine: DescribeMachine(), Records: opts.Records, Appends: opts.Appends, WorkDir: dir,
		QuietMs: opts.Quiet.Milliseconds(), MaxWait: opts.MaxWait.Milliseconds()}

	// A fresh corpus and home each run: the appends change the corpus.
	corpusPath := filepath.Join(dir, "corpus.jsonl")
	home := homeIn(dir)
	os.RemoveAll(home.Root)
	f, err := paths.CreatePrivate(corpusPath)
	if err != nil {
		return nil, err
	}
	say("writing %d records", opts.Records)
	_, err = NewCorpus(CorpusOptions{Records: opts.Records, Seed: opts.Seed, ChineseShare: opts.ChineseShare}).WriteJSONL(&corpusWriter{ctx: ctx, w: f, records: opts.Records, said: time.Now(), say: say})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	agentDir := filepath.Join(dir, "agents")
	os.RemoveAll(agentDir)
	agentSrcs, agentWays, err := agentSources(agentDir, time.Now())
	if err != nil {
		return nil, err
	}
	cfg, err := writeHomeConfig(home, corpusPath, agentSrcs...)
	if err != nil {
		return nil, err
	}
	s, err := timeSync(ctx, cfg, say)
	if err != nil {
		return nil, err
	}
	rep.SyncMs, rep.Chunks = s.TotalMs, s.Chunks
	releaseMemory()

	env := append(withoutNova(os.Environ()), paths.EnvHome+"="+home.Root)
	novad, err := startLogged(ctx, opts.NovadPath, []string{"--log-format", "text"}, env, filepath.Join(dir, "novad.log"))
	if err != nil {
		return nil, err
	}
	defer novad.stop()
	kept := opts.Dir != ""
	c, err := waitReady(ctx, home, novad, 15*time.Minute)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, logNote(filepath.Join(dir, "novad.log"), kept))
	}
	args := []string{"index", "watch", "--log-format", "text"}
	if opts.Quiet > 0 {
		args = append(args, "--quiet", opts.Quiet.String())
	}
	if opts.MaxWait > 0 {
		args = append(args, "--max-wait", opts.MaxWait.String())
	}
	watcher, err := startLogged(ctx, opts.NovactlPath, args, env, filepath.Join(dir, "watcher.log"))
	if err != nil {
		return nil, err
	}
	defer watcher.stop()
	if err := waitWatcherIdle(ctx, home, watcher, opts.Timeout); err != nil {
		return nil, fmt.Errorf("%w (%s)", err, logNote(filepath.Join(dir, "watcher.log"), kept))
	}
	say("novad and the watcher run (pids %d, %d)", novad.cmd.Process.Pid, watcher.cmd.Process.Pid)

	ways := append([]freshWay{{Name: FreshJSONL, write: func(i int, token string) error {
		line, _ := json.Marshal(map[string]string{"id": "fresh-" + token, "text": "Decision " + token + ": the fresh record number " + fmt.Sprint(i) + " is searchable.", "date": time.Now().UTC().Format("2006-01-02")})
		return appendLine(corpusPath, line)
	}}}, agentWays...)
	for w, way := range ways {
		var samples []float64
		wr := FreshWayReport{Way: way.Name}
		for i := range opts.Appends {
			token := fmt.Sprintf("freshtok%dw%dq%dz", opts.Seed, w, i)
			t0 := time.Now()
			if err := way.write(i, token); err != nil {
				return rep, fmt.Errorf("%s %d: %w", way.Name, i, err)
			}
			if err := waitFound(ctx, c, token, opts.Timeout); err != nil {
				where := "--keep keeps the logs"
				if kept {
					where = "logs in " + dir
				}
				return rep, fmt.Errorf("%s %d: %w (%s)", way.Name, i, err, where)
			}
			ms := float64(time.Since(t0).Microseconds()) / 1000
			samples = append(samples, ms)
			wr.Samples = append(wr.Samples, int64(ms))
			say("%s %d/%d searchable after %s", way.Name, i+1, opts.Appends, msf(ms))
			if err := waitWatcherIdle(ctx, home, watcher, opts.Timeout); err != nil {
				return rep, err
			}
		}
		sort.Float64s(samples)
		wr.P50Ms, wr.P95Ms = scalar.Round(eval.Percentile(samples, 0.5), 2), scalar.Round(eval.Percentile(samples, 0.95), 2)
		wr.MinMs, wr.MaxMs = scalar.Round(samples[0], 2), scalar.Round(samples[len(samples)-1], 2)
		rep.Ways = append(rep.Ways, wr)
	}

	// Idle: nothing changes for a while; the watcher should spend nothing.
	window := 10 * time.Second
	c0, err0 := childCPU(watcher.cmd.Process.Pid)
	select {
	case <-ctx.Done():
		return rep, ctx.Err()
	case <-time.After(window):
	}
	rep.IdleWindowMs = window.Milliseconds()
	if c1, err := childCPU(watcher.cmd.Process.Pid); err0 == nil && err == nil {
		idle := (c1 - c0).Milliseconds()
		rep.WatcherIdleCPUMs = &idle
	}
	m, _ := childMemory(watcher.cmd.Process.Pid)
	rep.WatcherPeakRSSBytes = m.Peak
	if st, err := freshness.Read(home); err == nil {
		rep.Syncs = st.Syncs[freshness.ResultOK]
		if st.LastSync != nil {
			rep.LastSync = st.LastSync.FinishedAt.Sub(st.LastSync.StartedAt).Milliseconds()
		}
	}
	return rep, nil
}

// waitWatcherIdle waits until the watcher p runs, nothing is pending and
// no sync is in flight.
func waitWatcherIdle(ctx context.Context, home paths.Home, p *process, limit time.Duration) error {
	pid := p.cmd.Process.Pid
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return fmt.Errorf("the watcher exited: %v", p.err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		st, err := freshness.Read(home)
		if err != nil || st.PID != pid {
			continue
		}
		if st.PendingSince.IsZero() && (st.LastSync == nil || !st.LastSync.FinishedAt.IsZero()) {
			return nil
		}
	}
	return fmt.Errorf("the watcher was not idle within %s", limit)
}

func appendLine(path string, line []byte) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// waitFound polls the facade until a result holds token.
func waitFound(ctx context.Context, c *client.Client, token string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		resp, status, err := c.Search(ctx, api.SearchBody{Query: token, TopK: 3})
		if err == nil && status == http.StatusOK {
			for _, r := range resp.Results {
				if r.Text != nil && strings.Contains(*r.Text, token) {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return fmt.Errorf("%q was not searchable within %s", token, limit)
}

// WriteText prints the report for a person.
func (r *FreshReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "Time to searchable: %d records → %d chunks; %d writes of each kind, one at a time, each measured from the write to the first facade search returning it.\n", r.Records, r.Chunks, r.Appends)
	for _, x := range r.Ways {
		fmt.Fprintf(w, "  %-34s p50 %s · p95 %s · min %s · max %s\n", x.Way, msf(x.P50Ms), msf(x.P95Ms), msf(x.MinMs), msf(x.MaxMs))
	}
	fmt.Fprintf(w, "  initial sync %s; watcher syncs %d, last %s", msf(float64(r.SyncMs)), r.Syncs, msf(float64(r.LastSync)))
	// Figures this platform does not read are left out, not printed as 0.
	if r.WatcherPeakRSSBytes > 0 {
		fmt.Fprintf(w, "; watcher peak RSS %s", humanize.IBytes(uint64(r.WatcherPeakRSSBytes)))
	}
	if r.WatcherIdleCPUMs != nil {
		fmt.Fprintf(w, "; idle CPU %d ms over %s", *r.WatcherIdleCPUMs, msf(float64(r.IdleWindowMs)))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  machine: %s, %d CPUs, %s; load at start %s\n", r.Machine.CPU, r.Machine.CPUs, r.Machine.GoVersion, r.Machine.LoadAvg)
}
