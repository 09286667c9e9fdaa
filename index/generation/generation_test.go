package generation_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/vector"
)

// The records the test generation holds: two sessions of two turns, so
// neighbouring context has something to show, and one note apart.
var records = []string{
	`{"id":"s1-1","session":"s1","role":"user","text":"Why does the heron deploy stall on port 7311?","date":"2026-11-02","project":"nova"}`,
	`{"id":"s1-2","session":"s1","role":"assistant","text":"The watcher held the lock; releasing it before promotion fixed the stall.","date":"2026-11-02","project":"nova"}`,
	`{"id":"s2-1","session":"s2","role":"user","text":"Which kingfisher tests are flaky under load?","date":"2026-11-03","project":"kingfisher"}`,
	`{"id":"s2-2","session":"s2","role":"assistant","text":"The manifest watch test: its directory appeared before the watch was armed.","date":"2026-11-03","project":"kingfisher"}`,
	`{"id":"note-1","text":"Osprey release notes live in the wiki under release engineering.","date":"2026-11-04","project":"osprey","tags":["release"]}`,
}

// built syncs the records into a new home and returns it with the active
// manifest.
func built(t *testing.T) (paths.Home, *manifest.Manifest) {
	t.Helper()
	return builtFrom(t, records)
}

// builtFrom syncs recs (JSONL lines) into a new home.
func builtFrom(t *testing.T, recs []string) (paths.Home, *manifest.Manifest) {
	t.Helper()
	cfg, _ := configFor(t, recs)
	if _, err := index.New(cfg, index.Options{NoRemote: true}).Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	m, _, err := manifest.Read(cfg.Home.Manifest())
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Home, m
}

// configFor writes recs (JSONL lines) to a source file of a new home and
// returns the home's configuration and the file's path.
func configFor(t *testing.T, recs []string) (config.Config, string) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	if err := os.WriteFile(src, []byte(strings.Join(recs, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: filepath.Join(dir, "home")}
	cfg.Sources = []config.Source{{Name: "notes", Kind: config.KindJSONL, Path: src}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg, src
}

func open(t *testing.T, home paths.Home, m *manifest.Manifest) (*generation.Generation, error) {
	t.Helper()
	return generation.Open(context.Background(), home.IndexDir(), m, lexical.NewAnalyzer(), generation.Options{})
}

// TestOpen_roundTrip: every record comes back with its fields, by
// document and by id, and each reader of a field agrees with the chunk.
func TestOpen_roundTrip(t *testing.T) {
	home, m := built(t)
	g, err := open(t, home, m)
	if err != nil {
		t.Fatal(err)
	}
	if g.Count() != len(records) || g.Len() != len(records) || g.Meta.RunID != m.RunID {
		t.Fatalf("generation %s holds %d chunks in %d slots, want %d", g.Meta.RunID, g.Count(), g.Len(), len(records))
	}
	var ids []string
	for doc, c := range g.All() {
		ids = append(ids, c.SourceID)
		if got := g.ID(doc); got != c.ID {
			t.Errorf("doc %d: ID %q, chunk says %q", doc, got, c.ID)
		}
		if got := g.Text(doc); got != c.Text {
			t.Errorf("doc %d: Text %q, chunk says %q", doc, got, c.Text)
		}
		if found, ok := g.Find(c.ID); !ok || found != doc {
			t.Errorf("Find(%q) = %d %v, want %d", c.ID, found, ok, doc)
		}
		if c.TextHash != memory.HashText(c.Text) || c.DedupeKey != memory.DedupeKey(c) {
			t.Errorf("doc %d: derived hashes differ from the text's", doc)
		}
	}
	slices.Sort(ids)
	if want := []string{"note-1", "s1-1", "s1-2", "s2-1", "s2-2"}; !slices.Equal(ids, want) {
		t.Fatalf("records %v, want %v", ids, want)
	}
	doc, ok := g.Find(memory.ChunkID("notes", "note-1", 0, 1))
	if !ok {
		t.Fatal("note-1 not found by its chunk id")
	}
	c := g.Chunk(doc)
	if c.Project != "osprey" || c.Date != "2026-11-04" || !slices.Contains(c.Tags, "release") || !strings.HasPrefix(c.Text, "Osprey release notes") {
		t.Errorf("note-1 came back as %+v", c)
	}
	if _, ok := g.Find("notes:nothing"); ok {
		t.Error("Find found an id that was never indexed")
	}
}

// TestSuperseded: records of one subject form a version chain whose
// newest member supersedes the others. A segment counts its chunks with a
// subject: one counting none is not decoded to find them, one written
// before the count (no "subjects" in its meta) is.
func TestSuperseded(t *testing.T) {
	home, m := builtFrom(t, []string{
		`{"id":"db-1","subject":"primary-database","text":"The primary database is Postgres 14 on heron.","date":"2026-10-01","project":"nova"}`,
		`{"id":"db-2","subject":"primary-database","text":"The primary database moved to Postgres 16 on kingfisher.","date":"2026-11-01","project":"nova"}`,
		`{"id":"other","text":"An unrelated note about the osprey release.","date":"2026-11-02","project":"nova"}`,
	})
	chains := func(opts generation.Options) (older, newest int, found bool) {
		t.Helper()
		g, err := generation.Open(context.Background(), home.IndexDir(), m, lexical.NewAnalyzer(), opts)
		if err != nil {
			t.Fatal(err)
		}
		older, _ = g.Find(memory.ChunkID("notes", "db-1", 0, 1))
		newest, _ = g.Find(memory.ChunkID("notes", "db-2", 0, 1))
		other, _ := g.Find(memory.ChunkID("notes", "other", 0, 1))
		by, superseded := g.Superseded(older)
		for _, d := range []int{newest, other} {
			if _, s := g.Superseded(d); s {
				t.Errorf("doc %d is superseded; only the older version is", d)
			}
		}
		if superseded && by != newest {
			t.Errorf("db-1 superseded by doc %d, want db-2 (doc %d)", by, newest)
		}
		return older, newest, superseded
	}
	if _, _, found := chains(generation.Options{}); !found {
		t.Fatal("db-1 is not superseded by db-2")
	}
	metas, err := filepath.Glob(filepath.Join(home.IndexDir(), "segments", "*", segment.FileMeta))
	if err != nil || len(metas) != 1 {
		t.Fatalf("segment metas %v (%v), want one", metas, err)
	}
	// Rewrite the count in place, keeping the size (a changed file fails its
	// checksum; the test opens without checksums).
	rewrite := func(from, to string) {
		t.Helper()
		b, err := os.ReadFile(metas[0])
		if err != nil || !strings.Contains(string(b), from) || len(from) != len(to) {
			t.Fatalf("%s: no %q to rewrite (%v)", metas[0], from, err)
		}
		if err := os.Chmod(metas[0], 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(metas[0], []byte(strings.Replace(string(b), from, to, 1)), 0o400); err != nil {
			t.Fatal(err)
		}
	}
	rewrite(`"subjects": 2`, `"subjects": 0`)
	if _, _, found := chains(generation.Options{SkipChecksums: true}); found {
		t.Error("a segment counting no subjects was decoded to find them")
	}
	rewrite(",\n  \"subjects\": 0", strings.Repeat(" ", len(",\n  \"subjects\": 0")))
	if _, _, found := chains(generation.Options{SkipChecksums: true}); !found {
		t.Error("a segment written before subjects were counted lost its version chain")
	}
}

// TestSuperseded_undated: an undated version was written after the
// versions above it in its file, and is newer than they are; a dated line
// below an undated one is newer than it.
func TestSuperseded_undated(t *testing.T) {
	home, m := builtFrom(t, []string{
		`{"id":"gw-1","subject":"gateway","text":"The gateway is gw-a.","date":"2026-10-01","project":"nova"}`,
		`{"id":"gw-2","subject":"gateway","text":"The gateway is gw-b.","date":"2026-11-01","project":"nova"}`,
		`{"id":"gw-3","subject":"gateway","text":"The gateway is gw-c.","project":"nova"}`,
		`{"id":"ns-1","subject":"resolver","text":"The resolver is ns-a.","project":"nova"}`,
		`{"id":"ns-2","subject":"resolver","text":"The resolver is ns-b.","date":"2026-09-01","project":"nova"}`,
	})
	g, err := open(t, home, m)
	if err != nil {
		t.Fatal(err)
	}
	doc := func(id string) int {
		d, ok := g.Find(memory.ChunkID("notes", id, 0, 1))
		if !ok {
			t.Fatalf("%s not found", id)
		}
		return d
	}
	for older, newest := range map[string]string{"gw-1": "gw-3", "gw-2": "gw-3", "ns-1": "ns-2"} {
		if by, ok := g.Superseded(doc(older)); !ok || by != doc(newest) {
			t.Errorf("%s: superseded %v by doc %d, want by %s (doc %d)", older, ok, by, newest, doc(newest))
		}
	}
	for _, id := range []string{"gw-3", "ns-2"} {
		if _, ok := g.Superseded(doc(id)); ok {
			t.Errorf("the newest version %s is superseded", id)
		}
	}
}

// TestSuperseded_dayAfterAnEveningWestOfUTC: for a user west of UTC,
// a record of an evening ("2026-06-01T20:00:00-07:00", 03:00 UTC on
// June 2) is older than one dated only the next day ("2026-06-02"):
// the bare date is a day of the machine's zone, which begins after that
// evening. Before, the time's UTC text sorted after the bare date's and
// the evening's state superseded the next day's. Two exact times are
// ordered as instants, whatever their offsets; on one day, an exact time
// is after the bare date, as before.
func TestSuperseded_dayAfterAnEveningWestOfUTC(t *testing.T) {
	home, m := builtFrom(t, []string{
		`{"id":"gw-1","subject":"gateway","text":"The gateway is gw-a.","date":"2026-06-01T20:00:00-07:00","project":"nova"}`,
		`{"id":"gw-2","subject":"gateway","text":"The gateway is gw-b.","date":"2026-06-02","project":"nova"}`,
		`{"id":"rt-1","subject":"router","text":"The router is rt-a.","date":"2026-06-01T23:00:00-07:00","project":"nova"}`,
		`{"id":"rt-2","subject":"router","text":"The router is rt-b.","date":"2026-06-02T08:00:00+09:00","project":"nova"}`,
		`{"id":"ns-1","subject":"resolver","text":"The resolver is ns-a.","date":"2026-06-01T09:00:00-07:00","project":"nova"}`,
		`{"id":"ns-2","subject":"resolver","text":"The resolver is ns-b.","date":"2026-06-01","project":"nova"}`,
	})
	west := generation.Options{Location: time.FixedZone("UTC-7", -7*3600)}
	g, err := generation.Open(context.Background(), home.IndexDir(), m, lexical.NewAnalyzer(), west)
	if err != nil {
		t.Fatal(err)
	}
	doc := func(id string) int {
		d, ok := g.Find(memory.ChunkID("notes", id, 0, 1))
		if !ok {
			t.Fatalf("%s not found", id)
		}
		return d
	}
	for older, newest := range map[string]string{"gw-1": "gw-2", "rt-2": "rt-1", "ns-2": "ns-1"} {
		if by, ok := g.Superseded(doc(older)); !ok || by != doc(newest) {
			t.Errorf("%s: superseded %v by doc %d, want by %s (doc %d)", older, ok, by, newest, doc(newest))
		}
		if _, ok := g.Superseded(doc(newest)); ok {
			t.Errorf("the newest version %s is superseded", newest)
		}
	}
	// The zone is the caller's: in UTC the bare date's day begins at
	// 00:00 UTC on June 2, before the evening's 03:00 UTC, so the
	// evening's state is the newer one.
	g, err = generation.Open(context.Background(), home.IndexDir(), m, lexical.NewAnalyzer(), generation.Options{Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	if by, ok := g.Superseded(doc("gw-2")); !ok || by != doc("gw-1") {
		t.Errorf("in UTC: gw-2 superseded %v by doc %d, want by gw-1 (doc %d)", ok, by, doc("gw-1"))
	}
}

// TestOpen_searches: the text index, the neighbouring context and the
// vectors of an opened generation each find what they should.
func TestOpen_searches(t *testing.T) {
	home, m := built(t)
	g, err := open(t, home, m)
	if err != nil {
		t.Fatal(err)
	}
	a := lexical.NewAnalyzer()
	hits := g.SearchText(g.Resolve(a.Terms("kingfisher flaky")), 3, nil)
	if len(hits) == 0 || g.Chunk(hits[0].Doc).SourceID != "s2-1" {
		t.Errorf("text search for kingfisher: %+v", hits)
	}
	// The answer's context holds the question before it.
	answer, _ := g.Find(memory.ChunkID("notes", "s1-2", 0, 1))
	if ctx, _ := g.Context(answer); !strings.Contains(ctx, "heron") {
		t.Errorf("context of s1-2 %q does not hold its question", ctx)
	}
	hits = g.SearchContext(g.Resolve(a.Terms("heron port")), 3, nil)
	if !slices.ContainsFunc(hits, func(h lexical.Hit) bool { return h.Doc == answer }) {
		t.Errorf("context search for the question's words does not find the answer: %+v", hits)
	}
	// A stored vector's nearest neighbour is itself.
	for doc := range g.Len() {
		vh, err := g.SearchVectors(g.Vector(doc), 1, nil)
		if err != nil || len(vh) != 1 || vh[0].Doc != doc {
			t.Errorf("doc %d: nearest vector %+v (%v)", doc, vh, err)
		}
	}
	// A filter on the project keeps only its documents.
	accept := g.Filter(api.Filters{Project: "osprey"}, nil)
	for doc := range g.Len() {
		if accept(doc) != (g.Chunk(doc).Project == "osprey") {
			t.Errorf("doc %d (%s): filter says %v", doc, g.Chunk(doc).Project, accept(doc))
		}
	}
}

// TestOpen_damage: a truncated file of each kind, or one changed byte,
// is refused with ErrCorrupt naming the file; a missing one too. Verify
// sees a change of size without checksums, and rot only with them.
func TestOpen_damage(t *testing.T) {
	home, m := built(t)
	for dir, files := range m.AllFiles() {
		for _, name := range manifest.SortedFiles(files) {
			rel := filepath.Join(dir, name)
			t.Run(rel, func(t *testing.T) {
				p := filepath.Join(home.IndexDir(), rel)
				orig, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				fi, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				restore := func() {
					if err := os.WriteFile(p, orig, 0o600); err != nil {
						t.Fatal(err)
					}
					if err := os.Chmod(p, fi.Mode().Perm()); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.Chmod(p, 0o600); err != nil {
					t.Fatal(err)
				}
				defer restore()

				damage := map[string][]byte{"truncated": orig[:len(orig)/2], "one byte changed": flip(orig)}
				for what, b := range damage {
					if err := os.WriteFile(p, b, 0o600); err != nil {
						t.Fatal(err)
					}
					_, err := open(t, home, m)
					if !errors.Is(err, generation.ErrCorrupt) || !strings.Contains(err.Error(), name) {
						t.Errorf("%s: Open returned %v, want ErrCorrupt naming %s", what, err, name)
					}
				}
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
				if _, err := open(t, home, m); err == nil {
					t.Error("missing: Open succeeded")
				}
			})
		}
	}
	// Restored, it opens again.
	if _, err := open(t, home, m); err != nil {
		t.Fatalf("the restored generation does not open: %v", err)
	}
}

func flip(b []byte) []byte {
	out := slices.Clone(b)
	out[len(out)/2] ^= 0x20
	return out
}

// TestSpace_roundTrip: a vector space (the quantizer's scales and centre)
// and its recall check survive MarshalSpace and ParseSpace; a cut encoding
// is refused; a space written before the centre (NOVSPC02) is read
// without one.
func TestSpace_roundTrip(t *testing.T) {
	sp := vector.Space{Quantizer: vector.Quantizer{Scale: []float32{0.5, 1, 2, 0.25}, Centre: []float32{0.1, -0.2, 0, 0.3}}}
	b := generation.MarshalSpace(sp, 0.97)
	got, meta, err := generation.ParseSpace(b)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Quantizer.Scale, sp.Quantizer.Scale) || !slices.Equal(got.Quantizer.Centre, sp.Quantizer.Centre) || got.Cells != nil || meta == nil {
		t.Errorf("round trip: %+v %+v", got, meta)
	}
	if _, _, err := generation.ParseSpace(b[:len(b)/2]); err == nil {
		t.Error("a cut space encoding was accepted")
	}

	// NOVSPC02: magic, dim, the scales, the exact-search flag.
	old := []byte("NOVSPC02")
	old = binary.LittleEndian.AppendUint32(old, 4)
	for _, s := range sp.Quantizer.Scale {
		old = binary.LittleEndian.AppendUint32(old, math.Float32bits(s))
	}
	old = binary.LittleEndian.AppendUint32(old, 0)
	got, _, err = generation.ParseSpace(old)
	if err != nil || !slices.Equal(got.Quantizer.Scale, sp.Quantizer.Scale) || got.Quantizer.Centre != nil {
		t.Errorf("a NOVSPC02 space: %v, %+v", err, got.Quantizer)
	}
}

// TestLegacyChunks: a first-format generation's chunks are read when the
// file matches its manifest, and refused as corrupt when it does not.
func TestLegacyChunks(t *testing.T) {
	dir := t.TempDir()
	gen := filepath.Join(dir, "generations", "20260101T000000Z-00000001")
	if err := os.MkdirAll(gen, 0o700); err != nil {
		t.Fatal(err)
	}
	var lines strings.Builder
	for i := range 3 {
		b, _ := json.Marshal(memory.Chunk{ID: fmt.Sprintf("notes:%d", i), SourceID: fmt.Sprint(i), Text: fmt.Sprintf("old memory %d", i)})
		lines.Write(b)
		lines.WriteByte('\n')
	}
	chunks := []byte(lines.String())
	writeManifest := func(sum string) {
		m := map[string]any{
			"schemaVersion": 1, "generationPath": "generations/20260101T000000Z-00000001",
			"files": map[string]any{"chunks.jsonl": map[string]any{"size": len(chunks), "sha256": sum}},
		}
		b, _ := json.Marshal(m)
		if err := os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(gen, "chunks.jsonl"), chunks, 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(chunks)
	writeManifest(hex.EncodeToString(sum[:]))
	got, err := generation.LegacyChunks(dir)
	if err != nil || len(got) != 3 || got[2].Text != "old memory 2" {
		t.Fatalf("LegacyChunks: %v %+v", err, got)
	}
	writeManifest(strings.Repeat("0", 64))
	if _, err := generation.LegacyChunks(dir); !errors.Is(err, generation.ErrCorrupt) {
		t.Errorf("a chunks file that does not match its manifest: %v, want ErrCorrupt", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"schemaVersion":2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := generation.LegacyChunks(dir); err == nil {
		t.Error("a second-format manifest was read as the first format")
	}
}

// TestIDOrderAcrossSegments: ties in score are broken by chunk id
// whichever segments hold the two documents. The segments each span the
// whole range of ids, so that the id fences order some pairs of different
// segments and leave others to their ids; every pair must come out as its
// ids do.
func TestIDOrderAcrossSegments(t *testing.T) {
	g := interleavedSegments(t)
	for a := range g.Len() {
		for b := range g.Len() {
			if got, want := g.IDLess(a, b), g.ID(a) < g.ID(b); got != want {
				t.Fatalf("IDLess(%s, %s) = %v", g.ID(a), g.ID(b), got)
			}
		}
	}
}

// TestFindAcrossSegments: Find finds every live document by its id, and
// no id that no segment holds (before, between and after the ids), both
// before the generation is prepared and after, when it searches each
// segment only between the id fences around the id.
func TestFindAcrossSegments(t *testing.T) {
	g := interleavedSegments(t)
	for _, stage := range []string{"opened", "prepared"} {
		if stage == "prepared" {
			g.Prepare()
		}
		for doc := range g.Len() {
			if !g.Live(doc) {
				continue
			}
			if got, ok := g.Find(g.ID(doc)); !ok || got != doc {
				t.Errorf("%s: Find(%s) = %d, %v; want %d", stage, g.ID(doc), got, ok, doc)
			}
		}
		for _, id := range []string{"", "a", "notes:r-", "notes:r-0000a", "notes:r-0100.5", "notes:r-0269x", "notes:r-9999", "zzz"} {
			if d, ok := g.Find(id); ok {
				t.Errorf("%s: Find(%q) found %d (%s)", stage, id, d, g.ID(d))
			}
		}
	}
}

// interleavedSegments is a generation of three syncs of records whose ids
// interleave: three segments, each spanning the whole range of ids.
func interleavedSegments(t *testing.T) *generation.Generation {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: filepath.Join(dir, "home")}
	cfg.Sources = []config.Source{{Name: "notes", Kind: config.KindJSONL, Path: src}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	order := rand.New(rand.NewPCG(3, 4)).Perm(270)
	var lines []string
	for _, upTo := range []int{100, 190, 270} {
		for _, i := range order[len(lines):upTo] {
			lines = append(lines, fmt.Sprintf(`{"id":"r-%04d","text":"heron kingfisher osprey note %d","date":"2026-11-02"}`, i, i))
		}
		if err := os.WriteFile(src, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := index.New(cfg, index.Options{NoRemote: true}).Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	m, _, err := manifest.Read(cfg.Home.Manifest())
	if err != nil {
		t.Fatal(err)
	}
	g, err := open(t, cfg.Home, m)
	if err != nil {
		t.Fatal(err)
	}
	if g.Segments() < 3 || g.Count() != 270 {
		t.Fatalf("%d segments, %d documents: want 3 syncs' segments of 270", g.Segments(), g.Count())
	}
	return g
}

// TestHasChinese: a generation says whether its text holds Chinese (novad
// then reads the Chinese tables before the first Chinese query needs
// them), and English alone, or an id or tag in Chinese, is not that.
func TestHasChinese(t *testing.T) {
	for _, c := range []struct {
		name string
		recs []string
		want bool
	}{
		{"english", records, false},
		{"one chinese note", append(slices.Clone(records), `{"id":"zh-1","text":"迁移记录：数据库端口改为 5433。","date":"2026-11-05"}`), true},
		{"traditional", []string{`{"id":"zh-2","text":"遷移記錄"}`}, true},
		{"japanese kana", []string{`{"id":"ja-1","text":"デプロイのキューがとまる"}`}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			home, m := builtFrom(t, c.recs)
			g, err := open(t, home, m)
			if err != nil {
				t.Fatal(err)
			}
			if got := g.HasChinese(); got != c.want {
				t.Errorf("HasChinese = %v, want %v", got, c.want)
			}
		})
	}
}

// TestSummary_afterFault: a fault while counting the facets (a file
// truncated under a mapping, which novad's handlers turn into a failed
// request) leaves nothing counted behind: once the file is whole again the
// counts come back. The first count was kept whatever happened, so
// /stats served null facets for as long as the generation was served.
func TestSummary_afterFault(t *testing.T) {
	home, m := built(t)
	g, err := open(t, home, m)
	if err != nil {
		t.Fatal(err)
	}
	type saved struct {
		path string
		data []byte
		mode os.FileMode
	}
	var files []saved
	for dir, names := range m.AllFiles() {
		for _, name := range manifest.SortedFiles(names) {
			p := filepath.Join(home.IndexDir(), dir, name)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, saved{p, data, fi.Mode().Perm()})
			if err := os.Chmod(p, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	func() {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if recover() == nil {
				t.Fatal("counting over truncated files did not fault")
			}
		}()
		g.Summary()
	}()
	for _, f := range files {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(f.path, f.mode); err != nil {
			t.Fatal(err)
		}
	}
	s := g.Summary()
	total := 0
	for _, n := range s.Layers {
		total += n
	}
	if total != len(records) || s.Projects["nova"] != 2 {
		t.Errorf("after the fault: layers %v, projects %v", s.Layers, s.Projects)
	}
}

// TestCache_segmentChangedSinceVerified: a segment file changed in place
// (made writable and rewritten, same size) after the cache verified it is
// hashed again when a generation that uses it is opened through the
// cache, and refused. Before, the cache checked only sizes: novad's
// SIGHUP, or the reload after a sync (whose generation shares the
// segment), served the changed bytes as verified, and stamped the new
// modification time as known good, so its quick checks never hashed the
// file again until the hourly deep check.
func TestCache_segmentChangedSinceVerified(t *testing.T) {
	home, m := built(t)
	cache := generation.NewCache()
	opts := generation.Options{Cache: cache}
	g, err := generation.Open(context.Background(), home.IndexDir(), m, lexical.NewAnalyzer(), opts)
	if err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(home.IndexDir(), manifest.SegmentDir(m.Segments[0].ID), segment.FileRecords)
	orig, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(seg, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(seg, flip(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	// A later time, whatever the file system's clock resolution.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(seg, later, later); err != nil {
		t.Fatal(err)
	}
	if _, err := generation.Open(context.Background(), home.IndexDir(), m, lexical.NewAnalyzer(), opts); !errors.Is(err, generation.ErrCorrupt) {
		t.Errorf("open through the cache after %s changed: %v, want ErrCorrupt", segment.FileRecords, err)
	}
	runtime.KeepAlive(g) // the cache holds its segments weakly
}

// TestCache_reloadKeepsSharedSegments: a generation that shares its
// segments with the one novad served before (the reload after an
// incremental sync) neither reads their id fences again nor drops the
// pages its searches had read (Prepare releases only the segments it
// opened): the first search after every promotion faulted them in again.
func TestCache_reloadKeepsSharedSegments(t *testing.T) {
	home, m := built(t)
	prepared := func(opts generation.Options) *generation.Generation {
		g, err := generation.Open(context.Background(), home.IndexDir(), m, lexical.NewAnalyzer(), opts)
		if err != nil {
			t.Fatal(err)
		}
		g.Prepare()
		return g
	}
	cached := generation.Options{Cache: generation.NewCache()}
	first, next, alone := prepared(cached), prepared(cached), prepared(generation.Options{})
	n := len(m.Segments)
	if a, b, c := generation.Opened(first), generation.Opened(next), generation.Opened(alone); a != n || b != 0 || c != n {
		t.Errorf("segments released by Prepare: first %d, next %d, without the cache %d; want %d, 0, %d", a, b, c, n, n)
	}
	for s := range m.Segments {
		if !generation.FencesRead(next, first, s) {
			t.Errorf("segment %d: the next generation read its id fences again", s)
		}
		if generation.FencesRead(alone, first, s) {
			t.Errorf("segment %d: a generation opened without the cache shares the first's fences", s)
		}
	}
	runtime.KeepAlive(first) // the cache holds its segments weakly
}

// TestCache_forgetsUnmappedSegments: novad opens every generation the
// watcher promotes through one Cache, and each incremental sync adds a
// segment of its own. An entry whose segment no generation uses any more
// (unmapped, its folder pruned) must not stay in the cache: before, every
// segment ever served kept its entry (its path and the stamp of each of
// its files) for the life of the process, a few hundred bytes more at
// every sync of a daemon that runs for weeks.
func TestCache_forgetsUnmappedSegments(t *testing.T) {
	cfg, src := configFor(t, records)
	ix := index.New(cfg, index.Options{NoRemote: true})
	cache := generation.NewCache()
	analyzer := lexical.NewAnalyzer()
	const cycles = 24
	most := 0
	for i := range cycles {
		if i > 0 {
			f, err := os.OpenFile(src, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(f, `{"id":"more-%d","text":"Appended record %d about the heron deploy."}`+"\n", i, i)
			f.Close()
			// A modification time the incremental sync cannot mistake
			// for the last one, whatever the file system's resolution.
			later := time.Now().Add(time.Duration(i) * time.Minute)
			if err := os.Chtimes(src, later, later); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := ix.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
		m, _, err := manifest.Read(cfg.Home.Manifest())
		if err != nil {
			t.Fatal(err)
		}
		g, err := generation.Open(context.Background(), cfg.Home.IndexDir(), m, analyzer, generation.Options{Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		most = max(most, len(m.Segments))
		runtime.KeepAlive(g)
		// The previous generation is unreachable now, as in novad once
		// no search holds it: its segments' cleanups run.
		runtime.GC()
	}
	runtime.GC()
	if n := generation.CacheEntries(cache); n > most+1 {
		t.Errorf("after %d syncs the cache holds %d segment entries; no generation had more than %d segments", cycles, n, most)
	}
}
