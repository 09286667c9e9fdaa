package bench

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteText prints the report for people: per size, what indexing,
// loading and the daemon cost, then one row per system and query kind.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "Nova bench: seed %d, %d queries per kind, top %d, %s %s/%s, %s (%d CPUs), %s\n",
		r.Seed, r.QueriesPerKind, r.TopK, r.Machine.GoVersion, r.Machine.OS, r.Machine.Arch, orUnknown(r.Machine.CPU), r.Machine.CPUs,
		r.StartedAt.Format("2006-01-02"))
	if len(r.Machine.RuntimeEnv) > 0 {
		fmt.Fprintf(w, "bench process runtime: %s (novad runs at the defaults)\n", strings.Join(r.Machine.RuntimeEnv, " "))
	}
	for i := range r.Sizes {
		s := &r.Sizes[i]
		fmt.Fprintf(w, "\n== %s records ==\n", humanCount(s.Records))
		c := s.Corpus
		reused := ""
		if c.Reused {
			reused = " (reused)"
		}
		fmt.Fprintf(w, "corpus:      %s, %d sessions, %d Chinese records, median %d chars (%d-%d)%s\n",
			humanBytes(c.Bytes), c.Sessions, c.ChineseRecords, c.MedianChars, c.MinChars, c.MaxChars, reused)
		if y := s.Sync; y != nil {
			reused = ""
			if y.Reused {
				reused = " (reused from an earlier run)"
			}
			fmt.Fprintf(w, "index sync:  %s total, CPU %s (%s); %.0f records/s, %.0f chunks/s, %.0f embeddings/s; peak RSS %s; index %s%s\n",
				msf(float64(y.TotalMs)), msf(float64(y.CPUMs)), stages(y.StageMs), y.RecordsPerSec, y.ChunksPerSec, y.EmbeddingsPerSec,
				humanBytes(y.PeakRSSBytes), humanBytes(y.IndexBytes), reused)
		}
		if l := s.GenerationLoad; l != nil {
			fmt.Fprintf(w, "load:        generation.Open %s; process RSS %s -> %s\n", msf(float64(l.OpenMs)), humanBytes(l.RSSBeforeBytes), humanBytes(l.RSSAfterBytes))
		}
		if f := s.FTS5; f != nil {
			fmt.Fprintf(w, "sqlite fts5: built in %s (insert %s, optimize %s), %.0f records/s, %s on disk, tokenize '%s'\n",
				msf(float64(f.TotalMs)), msf(float64(f.InsertMs)), msf(float64(f.OptimizeMs)), f.RecordsPerSec, humanBytes(f.DBBytes), f.Tokenizer)
		}
		if d := s.Daemon; d != nil {
			fmt.Fprintf(w, "novad:       ready in %s; RSS %s after load, %s after the queries, peak %s\n",
				msf(float64(d.ReadyMs)), humanBytes(d.RSSAfterLoadBytes), humanBytes(d.RSSAfterQueriesBytes), humanBytes(d.PeakRSSBytes))
			if lt := d.Load; lt != nil {
				fmt.Fprintf(w, "load test:   %d clients, %d requests in %s: %.1f requests/s, p50 %s, p99 %s; %d rejected (429), %d errors; novad CPU %.1f ms/request, RSS %s (peak %s)\n",
					lt.Clients, lt.Requests, msf(float64(lt.DurationMs)), lt.RequestsPerSec, msf(lt.P50Ms), msf(lt.P99Ms),
					lt.Rejected429, lt.Errors, lt.CPUPerRequestMs, humanBytes(lt.RSSAfterBytes), humanBytes(lt.PeakRSSBytes))
			}
		}
		for _, n := range s.Notes {
			fmt.Fprintf(w, "note:        %s\n", n)
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "records\tsystem\tkind\tqueries\tp50 ms\tp99 ms\tmean ms\tcpu ms\thit@%d\tempty\tbaseline-only\t\n", r.TopK)
	for _, s := range r.Sizes {
		for _, x := range sortedResults(s.Results) {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", humanCount(s.Records), x.System, x.Kind, x.Queries,
				latency(x.P50Ms), latency(x.P99Ms), latency(x.MeanMs), latency(x.CPUMeanMs), pct(x.HitAtK), pct(&x.EmptyRate), pct(x.BaselineOnly))
		}
	}
	tw.Flush()
}

// sortedResults orders rows by system (as run) and kind (report order).
func sortedResults(in []Result) []Result {
	sysOrder := map[string]int{}
	for _, r := range in {
		if _, ok := sysOrder[r.System]; !ok {
			sysOrder[r.System] = len(sysOrder)
		}
	}
	kindOrder := map[string]int{}
	for i, k := range append(append([]string(nil), QueryKinds...), KindAll, KindBaselineOnly) {
		kindOrder[k] = i
	}
	out := append([]Result(nil), in...)
	sort.SliceStable(out, func(a, b int) bool {
		if sysOrder[out[a].System] != sysOrder[out[b].System] {
			return sysOrder[out[a].System] < sysOrder[out[b].System]
		}
		return kindOrder[out[a].Kind] < kindOrder[out[b].Kind]
	})
	return out
}

func stages(m map[string]int64) string {
	var parts []string
	for _, k := range []string{"read", "lexical", "embed", "write"} {
		if v, ok := m[k]; ok {
			parts = append(parts, k+" "+msf(float64(v)))
		}
	}
	return strings.Join(parts, ", ")
}

// latency formats milliseconds with three significant digits or more.
func latency(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}

func pct(f *float64) string {
	if f == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", *f*100)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown CPU"
	}
	return s
}

// msf formats milliseconds for people.
func msf(v float64) string {
	switch {
	case v >= 60_000:
		return (time.Duration(v) * time.Millisecond).Round(time.Second).String()
	case v >= 1000:
		return fmt.Sprintf("%.1f s", v/1000)
	default:
		return fmt.Sprintf("%.1f ms", v)
	}
}

// humanBytes formats a byte count (binary units).
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// humanCount formats a record count with thin grouping: 100000 -> 100k.
func humanCount(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	default:
		return fmt.Sprint(n)
	}
}
