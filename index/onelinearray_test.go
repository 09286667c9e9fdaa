package index_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
)

// TestSync_oneLineArray: the records of a jsonl source exported as one
// JSON array on one line (a minified export) all start on line 1, yet
// each is a record of its own with its neighbours as context, as the
// records of a pretty-printed array or of one object per line are:
// after a full build, after an incremental sync that adds an element to
// each of the file's two sessions, and after one that edits a record.
// A record's pieces stay together, no session lends another its words,
// and the record ids stay the ones the file gives.
func TestSync_oneLineArray(t *testing.T) {
	// Each format has a home of its own; a few records, syncs mostly
	// waiting on fsync: they run beside other tests.
	t.Parallel()
	// c is cut into pieces: its neighbours read its first, and every
	// piece has c's neighbours.
	long := "Some fun ones like charades and sack races." + strings.Repeat(" Relay games on the lawn keep everyone moving.", 60)
	first := []rec{
		{ID: "a", Text: "What games suit the church picnic?", Session: "picnic"},
		{ID: "b", Text: "Where do the billing backups go?", Session: "backups"},
		{ID: "c", Text: long, Session: "picnic"},
		{ID: "d", Text: "The cold-storage bucket, every night.", Session: "backups"},
		{ID: "e", Text: "Great, thanks a lot.", Session: "picnic"},
	}
	added := append(slices.Clone(first),
		rec{ID: "f", Text: "Bring sunscreen for the meadow.", Session: "picnic"},
		rec{ID: "g", Text: "Are restores rehearsed?", Session: "backups"})
	edited := slices.Clone(added)
	edited[3].Text = "The glacier bucket, every night."

	formats := map[string]func(t *testing.T, recs []rec) string{
		"minified array": func(t *testing.T, recs []rec) string {
			b, err := json.Marshal(recs)
			if err != nil {
				t.Fatal(err)
			}
			return string(b) + "\n"
		},
		"pretty-printed array": func(t *testing.T, recs []rec) string {
			b, err := json.MarshalIndent(recs, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			return string(b) + "\n"
		},
		"one object per line": func(t *testing.T, recs []rec) string { return jsonlLines(t, recs...) },
	}
	for name, render := range formats {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			file := filepath.Join(dir, "records", "export.jsonl")
			writeFile(t, file, render(t, first))
			cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "export", Kind: config.KindJSONL, Path: filepath.Dir(file)})
			// No compaction: the deltas are checked as the syncs wrote them.
			ix := index.New(cfg, index.Options{NoRemote: true, NoCompact: true, Now: newClock(epoch).Now})
			analyzer := lexical.NewAnalyzer()
			not := []string{"church", "charades", "thanks", "sunscreen", "billing", "cold-storage", "glacier", "restores"}
			check := func(when string, recs []rec, want map[string][]string) {
				t.Helper()
				_, g := active(t, cfg.Home)
				docs := map[string][]int{}
				for d, c := range g.All() {
					docs[c.SourceID] = append(docs[c.SourceID], d)
				}
				var ids, wantIDs []string
				for id := range docs {
					ids = append(ids, id)
				}
				for _, r := range recs {
					wantIDs = append(wantIDs, r.ID)
				}
				slices.Sort(ids)
				if !slices.Equal(ids, wantIDs) {
					t.Fatalf("%s: record ids %v, want %v", when, ids, wantIDs)
				}
				if len(docs["c"]) < 2 {
					t.Fatalf("%s: c has %d pieces, want several", when, len(docs["c"]))
				}
				for id, words := range want {
					for _, d := range docs[id] {
						ctx, _ := g.Context(d)
						for _, w := range words {
							if !strings.Contains(ctx, w) {
								t.Errorf("%s: context of %s (doc %d) is %q, want %q in it", when, id, d, ctx, w)
							}
							// What the context field indexed is the same context.
							hits := g.SearchContext(g.Resolve(analyzer.Terms(w)), 20, nil)
							if !slices.ContainsFunc(hits, func(h lexical.Hit) bool { return h.Doc == d }) {
								t.Errorf("%s: the context field does not find %s (doc %d) for %q", when, id, d, w)
							}
						}
						for _, w := range not {
							if slices.Contains(words, w) {
								continue
							}
							if strings.Contains(ctx, w) {
								t.Errorf("%s: context of %s (doc %d) is %q, which holds %q: another session's, its own or beyond its neighbours", when, id, d, ctx, w)
							}
							hits := g.SearchContext(g.Resolve(analyzer.Terms(w)), 20, nil)
							if slices.ContainsFunc(hits, func(h lexical.Hit) bool { return h.Doc == d }) {
								t.Errorf("%s: the context field finds %s (doc %d) for %q", when, id, d, w)
							}
						}
					}
				}
			}

			mustSync(t, ix)
			check("full build", first, map[string][]string{
				"a": {"charades", "thanks"},
				"b": {"cold-storage"},
				"c": {"church", "thanks"},
				"d": {"billing"},
				"e": {"church", "charades"},
			})

			writeFile(t, file, render(t, added))
			if b := mustSync(t, ix).Build; b.Mode != index.ModeIncremental {
				t.Fatalf("second sync: %s, want incremental", b.Mode)
			}
			check("after an element is added to each session", added, map[string][]string{
				"a": {"charades", "thanks"},
				"b": {"cold-storage", "restores"},
				"c": {"church", "thanks", "sunscreen"},
				"d": {"billing", "restores"},
				"e": {"church", "charades", "sunscreen"},
				"f": {"charades", "thanks"},
				"g": {"billing", "cold-storage"},
			})

			writeFile(t, file, render(t, edited))
			if b := mustSync(t, ix).Build; b.Mode != index.ModeIncremental {
				t.Fatalf("third sync: %s, want incremental", b.Mode)
			}
			want := map[string][]string{
				"a": {"charades", "thanks"},
				"b": {"glacier", "restores"},
				"c": {"church", "thanks", "sunscreen"},
				"d": {"billing", "restores"},
				"e": {"church", "charades", "sunscreen"},
				"f": {"charades", "thanks"},
				"g": {"billing", "glacier"},
			}
			check("after a record is edited", edited, want)

			// The file rewritten one object a line, then minified: records
			// leave a shared line and come back to one.
			for _, again := range []string{"one object per line", "minified array"} {
				writeFile(t, file, formats[again](t, edited))
				if b := mustSync(t, ix).Build; b.Mode != index.ModeIncremental {
					t.Fatalf("rewritten as %s: %s, want incremental", again, b.Mode)
				}
				check("rewritten as "+again, edited, want)
			}

			// The file gone (a folder in its place): a full build
			// carries its memory forward as the generation holds it.
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(file, 0o755); err != nil {
				t.Fatal(err)
			}
			full := index.New(cfg, index.Options{NoRemote: true, NoCompact: true, Full: true, Now: newClock(epoch.Add(time.Hour)).Now})
			if b := mustSync(t, full).Build; b.Mode != index.ModeFull {
				t.Fatalf("fourth sync: %s, want full", b.Mode)
			}
			check("carried by a full build", edited, want)
		})
	}
}
