package bench

import (
	"context"
	"slices"
	"sort"
	"time"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/nova-recall/nova/eval"
)

// KindAll and KindBaselineOnly are the summary rows of a system: every
// query, and (Nova) the queries that stopped after the baseline pass.
const (
	KindAll          = "all"
	KindBaselineOnly = "baseline-only"
)

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
// query, outside the timed span; nil when the searching process's CPU
// time cannot be read here) and hits per kind.
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
		var c0 time.Duration
		if cpu != nil {
			c0 = cpu()
		}
		t0 := time.Now()
		out, err := fn(ctx, q)
		d := time.Since(t0)
		s := sample{q: q, d: d, out: out, err: err}
		if cpu != nil {
			s.cpu = cpu() - c0
		}
		samples = append(samples, s)
		if time.Since(last) >= progressEvery {
			last = time.Now()
			say("%s: %d/%d queries", system, i+1, len(queries))
		}
	}
	return summarise(system, samples, cpu != nil), nil
}

// summarise turns samples into one Result per kind, plus "all" and, when
// pass counts are known, "baseline-only"; cpuRead says whether the
// samples' CPU times were read.
func summarise(system string, samples []sample, cpuRead bool) []Result {
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
			out = append(out, summary(system, k, byKind[k], novaLike, cpuRead))
		}
	}
	if len(samples) > 0 {
		out = append(out, summary(system, KindAll, samples, novaLike, cpuRead))
	}
	if novaLike && len(baseline) > 0 {
		out = append(out, summary(system, KindBaselineOnly, baseline, novaLike, cpuRead))
	}
	return out
}

func summary(system, kind string, ss []sample, novaLike, cpuRead bool) Result {
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
		r.P50Ms, r.P99Ms = scalar.Round(eval.Percentile(ds, 0.50), 3), scalar.Round(eval.Percentile(ds, 0.99), 3)
		r.MeanMs, r.MaxMs = scalar.Round(sum/float64(len(ds)), 3), scalar.Round(ds[len(ds)-1], 3)
		r.EmptyRate = scalar.Round(float64(empty)/float64(len(ds)), 4)
		if cpuRead {
			c := scalar.Round(cpu/float64(len(ds)), 3)
			r.CPUMeanMs = &c
		}
		if novaLike {
			b := scalar.Round(float64(baseline)/float64(len(ds)), 4)
			r.BaselineOnly = &b
		}
	}
	if withTarget > 0 {
		h := scalar.Round(float64(hits)/float64(withTarget), 4)
		r.HitAtK = &h
	}
	return r
}
