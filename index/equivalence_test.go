package index_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/search"
)

// TestIncrementalEqualsFullRebuild is the property incremental sync rests
// on: after any sequence of changes to the sources (appends, edits,
// deletions and insertions inside a file, new files, removed and renamed
// files, records that move between conversations or files, duplicate
// ids), the generation incremental syncs built holds exactly the chunks,
// vectors and search results of a full rebuild of the same sources in the
// same vector space.
func TestIncrementalEqualsFullRebuild(t *testing.T) {
	// Each seed has a corpus and a home of its own: the seeds run side
	// by side, the longest test of the package otherwise.
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) { t.Parallel(); checkEquivalence(t, seed, 3, 3, 0, 0) })
	}
	// A larger corpus changed a little at a time: deltas pile up and are
	// merged (the tail merge), rather than the whole generation rewritten.
	for seed := uint64(10); seed < 12; seed++ {
		t.Run(fmt.Sprint("large, seed ", seed), func(t *testing.T) { t.Parallel(); checkEquivalence(t, seed, 60, 1, 3, 0) })
	}
	// Many duplicate ids: records held back, and given back when the
	// copy kept goes or moves after them.
	for _, seed := range []uint64{207, 218, 220, 221} {
		t.Run(fmt.Sprint("duplicates, seed ", seed), func(t *testing.T) { t.Parallel(); checkEquivalence(t, seed, 3, 3, 0, 4) })
	}
}

// corpus is a set of JSONL files of records, changed at random.
type corpus struct {
	rng   *rand.Rand
	dir   string
	files map[string][]rec // file name -> records
	next  int
	// dupEvery is the odds of a record repeating an earlier id (one in
	// dupEvery; 0: one in 40).
	dupEvery int
}

var words = strings.Fields("deploy rollback port 2096 firewall cache index query token session backup migration " +
	"timeout cron redis queue webhook signing key rotation postgres readiness canary staging terraform provider")

func (c *corpus) text() string {
	n := 3 + c.rng.IntN(25)
	if c.rng.IntN(10) == 0 {
		n = 200 + c.rng.IntN(300) // long enough to be cut into pieces
	}
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[c.rng.IntN(len(words))]
	}
	return strings.Join(ws, " ")
}

func (c *corpus) record() rec {
	c.next++
	r := rec{ID: fmt.Sprintf("r%03d", c.next), Text: c.text(), Date: fmt.Sprintf("2026-03-%02d", 1+c.rng.IntN(28)), Project: []string{"billing", "web"}[c.rng.IntN(2)]}
	if c.rng.IntN(3) > 0 {
		r.Session = fmt.Sprintf("s%d", c.rng.IntN(4)) // conversations span files
	}
	if c.rng.IntN(cmp.Or(c.dupEvery, 40)) == 0 && c.next > 5 {
		r.ID = fmt.Sprintf("r%03d", 1+c.rng.IntN(c.next-1)) // a duplicate id
	}
	return r
}

func (c *corpus) write(t *testing.T, name string) {
	t.Helper()
	writeFile(t, filepath.Join(c.dir, name), jsonlLines(t, c.files[name]...))
}

func (c *corpus) names() []string {
	var out []string
	for n := range c.files {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// change applies one random change and says what it was.
func (c *corpus) change(t *testing.T) string {
	names := c.names()
	pick := func() string { return names[c.rng.IntN(len(names))] }
	switch op := c.rng.IntN(8); {
	case op <= 1 || len(names) == 0: // a new file
		name := fmt.Sprintf("f%02d.jsonl", c.next)
		for range 1 + c.rng.IntN(6) {
			c.files[name] = append(c.files[name], c.record())
		}
		c.write(t, name)
		return "new " + name
	case op <= 3: // appends (how transcripts grow)
		name := pick()
		var add []rec
		for range 1 + c.rng.IntN(4) {
			add = append(add, c.record())
		}
		c.files[name] = append(c.files[name], add...)
		appendFile(t, filepath.Join(c.dir, name), jsonlLines(t, add...))
		return "append to " + name
	case op == 4: // an edit, a deletion or an insertion inside a file
		name := pick()
		rs := c.files[name]
		i := c.rng.IntN(len(rs))
		switch c.rng.IntN(3) {
		case 0:
			rs[i].Text = c.text()
		case 1:
			if len(rs) > 1 {
				rs = slices.Delete(rs, i, i+1)
			}
		default:
			rs = slices.Insert(rs, i, c.record())
		}
		c.files[name] = rs
		c.write(t, name)
		return "rewrite " + name
	case op == 5: // a record moves to another conversation
		name := pick()
		rs := c.files[name]
		rs[c.rng.IntN(len(rs))].Session = fmt.Sprintf("s%d", c.rng.IntN(4))
		c.write(t, name)
		return "move a record in " + name
	case op == 6 && len(names) > 1: // a removed file
		name := pick()
		delete(c.files, name)
		if err := os.Remove(filepath.Join(c.dir, name)); err != nil {
			t.Fatal(err)
		}
		return "remove " + name
	default: // a renamed file
		name := pick()
		to := fmt.Sprintf("g%02d.jsonl", c.next)
		c.next++
		c.files[to] = c.files[name]
		delete(c.files, name)
		if err := os.Rename(filepath.Join(c.dir, name), filepath.Join(c.dir, to)); err != nil {
			t.Fatal(err)
		}
		return "rename " + name + " to " + to
	}
}

// checkEquivalence starts from initial random changes and then makes up
// to perStep changes between syncs; mergeDeltas, when set, merges that
// many trailing deltas and never rewrites the whole generation; dupEvery
// is the corpus's (0: few duplicate ids).
func checkEquivalence(t *testing.T, seed uint64, initial, perStep, mergeDeltas, dupEvery int) {
	root := t.TempDir()
	c := &corpus{rng: rand.New(rand.NewPCG(seed, 99)), dir: filepath.Join(root, "src"), files: map[string][]rec{}, dupEvery: dupEvery}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for range initial {
		c.change(t)
	}
	cfg := testConfig(t, filepath.Join(root, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: c.dir})
	clk := newClock(epoch)
	// Pruning: the memory of removed files goes, as in a rebuild.
	opts := index.Options{NoRemote: true, Now: clk.Now, PruneMissing: true, MergeDeltas: mergeDeltas}
	if mergeDeltas > 0 {
		opts.RewriteShare = 1 // merge deltas; never rewrite the base
	}
	syncOK(t, index.New(cfg, opts))
	compactions, merges, resumed := 0, 0, 0
	defer func() {
		t.Logf("%d compactions, %d of them tail merges; %d files read on from their cursor", compactions, merges, resumed)
		if resumed == 0 {
			t.Error("no append was read on from its cursor")
		}
	}()
	for step := range 16 {
		var did []string
		for range 1 + c.rng.IntN(perStep) {
			did = append(did, c.change(t))
		}
		// A file changed within the same second keeps its size and time
		// only by accident; make every change visible to stat.
		later := time.Now().Add(time.Duration(step+1) * time.Second)
		for _, n := range c.names() {
			_ = os.Chtimes(filepath.Join(c.dir, n), later, later)
		}
		r := syncOK(t, index.New(cfg, opts))
		resumed += r.Build.FilesResumed
		if r.Compaction != nil {
			compactions++
			if m, _ := active(t, cfg.Home); len(m.Segments) > 1 {
				merges++ // the tail merged, the base kept
			}
		}
		if r.Build.Mode == index.ModeFull {
			t.Fatalf("step %d (%v): the sync rebuilt in full", step, did)
		}
		compareWithRebuild(t, cfg, opts, fmt.Sprintf("step %d (%v)", step, did))
	}
}

// compareWithRebuild builds a full candidate of the same sources in the
// active generation's space and compares it with the active generation.
func compareWithRebuild(t *testing.T, cfg config.Config, opts index.Options, what string) {
	t.Helper()
	m, inc := active(t, cfg.Home)
	full := opts
	full.Full = true
	full.PieceBytes = 300    // the rebuild reads every file in pieces of a few lines
	full.WaitingInMemory = 1 // and keeps records waiting for their neighbours on disk
	b, err := index.New(cfg, full).Build(context.Background())
	if err != nil {
		t.Fatalf("%s: rebuild: %v", what, err)
	}
	defer os.RemoveAll(b.Path)
	var rec manifest.Manifest
	raw, err := os.ReadFile(filepath.Join(b.Path, generation.FileCandidate))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Space.ID != m.Space.ID {
		t.Fatalf("%s: the rebuild made a new vector space", what)
	}
	reb, err := generation.Open(context.Background(), cfg.Home.IndexDir(), &rec, lexical.NewAnalyzer(), generation.Options{Dir: b.Path})
	if err != nil {
		t.Fatal(err)
	}
	if inc.Count() != reb.Count() || m.RecordCount != rec.RecordCount {
		t.Fatalf("%s: %d chunks and %d records incrementally, %d and %d rebuilt", what, inc.Count(), m.RecordCount, reb.Count(), rec.RecordCount)
	}
	rebDocs := map[string]int{}
	for d, ch := range reb.All() {
		rebDocs[ch.ID] = d
	}
	for d, ch := range inc.All() {
		rd, ok := rebDocs[ch.ID]
		if !ok {
			t.Fatalf("%s: %s is indexed incrementally but not by a rebuild", what, ch.ID)
		}
		want := reb.Chunk(rd)
		a, _ := json.Marshal(ch)
		bb, _ := json.Marshal(want)
		if string(a) != string(bb) {
			t.Fatalf("%s: chunk %s differs:\nincremental %s\nrebuilt     %s", what, ch.ID, a, bb)
		}
		ic, ib := inc.Context(d)
		rc, rbf := reb.Context(rd)
		if ic != rc || ib != rbf {
			t.Fatalf("%s: the context of %s differs:\nincremental %q\nrebuilt     %q", what, ch.ID, ic, rc)
		}
		if !slices.Equal(inc.Codes(d), reb.Codes(rd)) {
			t.Fatalf("%s: the vector of %s differs", what, ch.ID)
		}
	}
	engine := search.New(search.Config{Dense: true, Now: func() time.Time { return epoch }}, lexical.NewAnalyzer())
	for _, q := range []string{"deploy rollback", "port 2096 firewall", "webhook signing key rotation", "postgres readiness canary", "session cron"} {
		req := api.SearchRequest{Query: q, TopK: 20}
		ra, err := engine.Search(context.Background(), &search.Snapshot{Gen: inc, Query: inc.Model}, req)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := engine.Search(context.Background(), &search.Snapshot{Gen: reb, Query: reb.Model}, req)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := resultKey(ra), resultKey(rb); got != want {
			t.Fatalf("%s: %q answers differently:\nincremental %s\nrebuilt     %s", what, q, got, want)
		}
	}
}

func resultKey(r *api.SearchResponse) string {
	var b strings.Builder
	for _, x := range r.Results {
		fmt.Fprintf(&b, "%s:%.6f ", x.ID, x.Score)
	}
	return b.String()
}
