package segment

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/vector"
)

// sampleChunks returns n chunks exercising every field, with repeated
// and unique values, empty ones and odd ones.
func sampleChunks(n int) []memory.Chunk {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]memory.Chunk, n)
	for i := range out {
		scope := fmt.Sprintf("current-state:p%d:state", i%3)
		c := memory.Chunk{
			ID: fmt.Sprintf("notes:rec-%d", i), Text: fmt.Sprintf("text %d about port %d 端口 %d", i, 2000+i, rng.IntN(9)),
			Title: []string{"", "Session title"}[i%2], Date: fmt.Sprintf("2026-0%d-1%d", 1+i%9, i%10), Time: "2026-01-10T08:00:00Z",
			Agent: []string{"", "codex", "claude"}[i%3], Role: "user", Project: fmt.Sprintf("p%d", i%3),
			Tags: []string{"decision", "config"}[:i%3], WorkType: "ops", Layer: "dialogue", SourceName: "notes",
			SourceSet: "notes", SourceType: "jsonl", SourceID: fmt.Sprintf("rec-%d", i), SourcePath: fmt.Sprintf("/m/f%d.jsonl", i%4),
			LineNumber: i + 1, SessionID: "s1", HeadingPath: []string{"A", "B"}[:i%3], Part: i % 3 / 2, Parts: i % 4 / 2 * (1 + i%2),
			TextHash: memory.HashText(fmt.Sprint(i)), DedupeKey: memory.HashText(fmt.Sprint("d", i)), Conversation: fmt.Sprintf("c%d", i%5),
			Subject: []string{"", "primary-database"}[i%2],
			Governance: api.Governance{Version: 1, SourceSet: "notes", AuthorityRank: 85, Lifecycle: "canonical", Retention: "long-term",
				CanonicalEligible: i%2 == 0, ProvenanceScore: 1, RetrievalWeight: 1.04, DuplicateGroupKey: fmt.Sprint("notes:p:", i),
				CanonicalCandidate: true, Warnings: []string{"missing-date"}[:i%2]},
		}
		if i%4 == 0 {
			c.Governance.SupersessionScope = &scope
		}
		if i%5 == 0 {
			empty := ""
			c.Governance.SupersessionScope = &empty
		}
		if i%11 == 0 {
			c.TextHash = "not-a-hash"
		}
		if i%8 == 3 {
			c.ID = memory.ChunkID(c.SourceName, c.SourceID, c.Part, c.Parts) // "notes:rec-3#0": derived, not stored
		}
		if len(c.HeadingPath) == 0 {
			c.HeadingPath = nil // the build never writes an empty path
		}
		if c.Tags == nil {
			c.Tags = []string{}
		}
		if c.Governance.Warnings == nil {
			c.Governance.Warnings = []string{}
		}
		out[i] = c
	}
	return out
}

// writeSegment writes chunks as a segment under dir/seg and returns its
// directory and files.
func writeSegment(t testing.TB, dir string, chunks []memory.Chunk, dead *Dead) (string, map[string]manifest.FileSum) {
	t.Helper()
	a := lexical.NewAnalyzer()
	seg := filepath.Join(dir, "seg")
	w, err := Create(seg, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range chunks {
		w.Add(&chunks[i], a.Terms(chunks[i].OwnText()), lexical.Parts{Parts: []string{chunks[i].Context}, Terms: [][]string{a.Terms(chunks[i].Context)}})
	}
	if err := w.Seal(); err != nil {
		t.Fatal(err)
	}
	q := vector.TrainQuantizer([]float32{1, -1, 0.5, 0.25}, 4)
	cw, err := w.Vectors(q)
	if err != nil {
		t.Fatal(err)
	}
	assign := make([]uint32, len(chunks))
	for i := range chunks {
		if err := cw.Add([]float32{float32(i%3) / 3, 0.5, -0.5, 0}); err != nil {
			t.Fatal(err)
		}
		assign[i] = uint32(i % 4)
	}
	if err := w.EndVectors(); err != nil {
		t.Fatal(err)
	}
	files, err := w.Finish(Meta{ID: "20260101T000000Z-00000001", Dim: 4, Analyzer: "test", Space: "s"}, 4, assign, dead)
	if err != nil {
		t.Fatal(err)
	}
	return seg, files
}

func TestRoundTrip(t *testing.T) {
	chunks := sampleChunks(300)
	dead := &Dead{Docs: []uint32{7, 3, 9}}
	dead.Text.AddTerms([]string{"port", "port", "cron"})
	dead.Context.AddTerms([]string{"word"})
	seg, files := writeSegment(t, t.TempDir(), chunks, dead)
	for name := range files {
		fi, err := os.Stat(filepath.Join(seg, name))
		if err != nil || fi.Mode().Perm() != 0o400 {
			t.Errorf("%s: mode %v (%v), want read-only 0400", name, fi.Mode().Perm(), err)
		}
	}
	r, err := Open(t.Context(), seg, files, 10, true)
	if err != nil {
		t.Fatal(err)
	}
	if r.Docs() != len(chunks) || r.Lists == nil || r.Text.Docs() != len(chunks) {
		t.Fatalf("opened %d docs", r.Docs())
	}
	if r.Meta.Subjects == nil || *r.Meta.Subjects != len(chunks)/2 {
		t.Errorf("meta counts %v chunks with a subject, want %d", r.Meta.Subjects, len(chunks)/2)
	}
	for i := range chunks {
		got, err := r.Chunk(i)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*got, chunks[i]) {
			t.Fatalf("chunk %d:\n got %+v\nwant %+v", i, *got, chunks[i])
		}
		c := &chunks[i]
		if r.ID(i) != c.ID || r.ChunkText(i) != c.Text || r.Facet(FacetDate, i) != c.Date || r.Facet(FacetProject, i) != c.Project ||
			r.Facet(FacetLifecycle, i) != c.Governance.Lifecycle || r.Facet(FacetConversation, i) != c.Conversation ||
			r.Facet(FacetPath, i) != c.SourcePath || r.Line(i) != c.LineNumber || r.Part(i) != c.Part || !slices.Equal(r.Tags(i), c.Tags) {
			t.Fatalf("facets of %d differ", i)
		}
	}
	if !slices.Equal(r.Dead.Docs, []uint32{3, 7, 9}) || r.Dead.Text.DF["port"] != 1 || r.Dead.Text.Len != 3 || r.Dead.Context.DF["word"] != 1 {
		t.Errorf("dead %+v", r.Dead)
	}
	for i := range chunks {
		if d, ok := r.Find(chunks[i].ID); !ok || d != i {
			t.Fatalf("Find(%s) = %d %v", chunks[i].ID, d, ok)
		}
	}
	if _, ok := r.Find("notes:absent"); ok {
		t.Error("found an absent id")
	}
	for a := range chunks {
		for b := range chunks {
			if (r.IDRank(a) < r.IDRank(b)) != (chunks[a].ID < chunks[b].ID) {
				t.Fatalf("IDRank orders %s and %s unlike their ids", chunks[a].ID, chunks[b].ID)
			}
		}
	}
	is := r.Matcher(FacetProject, []string{"p1", "absent"})
	for i := range chunks {
		if is(i) != (chunks[i].Project == "p1") {
			t.Fatalf("matcher wrong for %d", i)
		}
	}
	// Tags and projects by id, from a short list and from one long enough
	// to be kept as a map.
	var many []string
	for i := range 20 {
		many = append(many, fmt.Sprintf("absent-%d", i))
	}
	for _, extra := range [][]string{nil, many} {
		hasConfig := r.TagMatcher(append([]string{"config", "absent"}, extra...))
		inP1 := r.Matcher(FacetProject, append(slices.Clone(extra), "p1"))
		for i := range chunks {
			if hasConfig(i) != slices.Contains(chunks[i].Tags, "config") || inP1(i) != (chunks[i].Project == "p1") {
				t.Fatalf("tag or project matcher wrong for %d, with %d more values", i, len(extra))
			}
		}
	}
	// A value matcher gives match's verdict, asking it again only where
	// the value changes from one document to the next.
	from := chunks[len(chunks)/2].Date
	calls, changes := 0, 1
	since := r.ValueMatcher(FacetDate, func(date string) bool { calls++; return date >= from })
	for i := range chunks {
		if i > 0 && chunks[i].Date != chunks[i-1].Date {
			changes++
		}
		if since(i) != (chunks[i].Date >= from) {
			t.Fatalf("value matcher wrong for %d (%s)", i, chunks[i].Date)
		}
	}
	if calls > changes+1 {
		t.Errorf("match asked %d times for %d runs of equal dates", calls, changes)
	}
	if _, err := Open(t.Context(), seg, files, 5, true); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a segment retiring documents after its own start opened: %v", err)
	}
}

// TestDamageIsRefused: every file of a segment, truncated, extended,
// missing or with a flipped byte, is refused with a named error — by its
// size before it is ever mapped, by its checksum, or (with verification
// off, as the daemon's cheap re-check runs) by its structure, never by a
// crash.
func TestDamageIsRefused(t *testing.T) {
	dir := t.TempDir()
	dead := &Dead{Docs: []uint32{1}}
	seg, files := writeSegment(t, dir, sampleChunks(200), dead)
	for name, sum := range files {
		path := filepath.Join(seg, name)
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		damage := map[string][]byte{
			"truncated": orig[:len(orig)/2],
			"extended":  append(slices.Clone(orig), 0),
			"flipped":   flip(orig, len(orig)/3),
			"header":    flip(orig, 2),
		}
		for what, b := range damage {
			for _, verify := range []bool{true, false} {
				if err := os.Chmod(path, 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b, 0o600); err != nil {
					t.Fatal(err)
				}
				fs := files
				if what == "flipped" || what == "header" {
					if !verify {
						// With the size unchanged and no checksum, only the
						// structure can tell: it must not crash, and must
						// refuse what it can see.
						fs = map[string]manifest.FileSum{}
						for k, v := range files {
							fs[k] = v
						}
					}
				}
				_, err := Open(t.Context(), seg, fs, 10, verify)
				var fe *FileError
				switch {
				case verify && (err == nil || !errors.As(err, &fe) || fe.File != name):
					t.Errorf("%s %s (verified): %v", name, what, err)
				case !verify && what != "flipped" && what != "header" && err == nil:
					t.Errorf("%s %s (size only): opened", name, what)
				}
			}
		}
		if err := os.WriteFile(path, orig, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(t.Context(), seg, files, 10, true); err != nil {
			t.Fatalf("restored %s: %v", name, err)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		var fe *FileError
		if _, err := Open(t.Context(), seg, files, 10, true); !errors.As(err, &fe) || fe.File != name || !errors.Is(err, ErrCorrupt) {
			t.Errorf("missing %s: %v", name, err)
		}
		if err := os.WriteFile(path, orig, 0o400); err != nil {
			t.Fatal(err)
		}
		_ = sum
	}
	extra := map[string]manifest.FileSum{"stray.txt": {Size: 0, XXH3: files[FileMeta].XXH3}}
	for k, v := range files {
		extra[k] = v
	}
	if _, err := Open(t.Context(), seg, extra, 10, true); !errors.Is(err, ErrCorrupt) {
		t.Errorf("an unknown listed file was accepted: %v", err)
	}
}

func flip(b []byte, at int) []byte {
	out := slices.Clone(b)
	out[at] ^= 0x41
	return out
}

// TestChunkStoredDefersHashes: ChunkStored leaves out exactly the hashes a
// record does not store, and Derive then gives the chunk Chunk gives.
func TestChunkStoredDefersHashes(t *testing.T) {
	chunks := sampleChunks(40)
	for i := range chunks {
		c := &chunks[i]
		switch i % 4 {
		case 0: // every hash what the chunk derives: none stored
			c.TextHash = memory.HashText(c.Text)
			c.DedupeKey = memory.DedupeKey(c)
			c.Governance.DuplicateGroupKey = memory.DuplicateGroupKey(c)
		case 1: // only the text hash derived, and the group key made of it
			c.TextHash = memory.HashText(c.Text)
			c.Governance.DuplicateGroupKey = memory.DuplicateGroupKey(c)
		}
	}
	seg, files := writeSegment(t, t.TempDir(), chunks, nil)
	r, err := Open(t.Context(), seg, files, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range chunks {
		got, missing, err := r.ChunkStored(i)
		if err != nil {
			t.Fatal(err)
		}
		want := []Hashes{TextHash | DedupeKey | DuplicateGroupKey, TextHash | DuplicateGroupKey, 0, 0}[i%4]
		if missing != want {
			t.Fatalf("chunk %d: missing %03b, want %03b", i, missing, want)
		}
		if (missing&TextHash != 0) != (got.TextHash == "") || (missing&DedupeKey != 0) != (got.DedupeKey == "") ||
			(missing&DuplicateGroupKey != 0) != (got.Governance.DuplicateGroupKey == "") {
			t.Fatalf("chunk %d: hashes %q %q %q with %03b missing", i, got.TextHash, got.DedupeKey, got.Governance.DuplicateGroupKey, missing)
		}
		Derive(got, missing)
		full, err := r.Chunk(i)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, full) || !reflect.DeepEqual(*got, chunks[i]) {
			t.Fatalf("chunk %d derived:\n got %+v\nwant %+v", i, *got, chunks[i])
		}
	}
}

// TestChunkMetaLeavesTextInPlace: ChunkMeta gives the stored chunk but
// for the fields it leaves out, which Complete fills in, and shows the
// text to its function, byte for byte.
func TestChunkMetaLeavesTextInPlace(t *testing.T) {
	chunks := sampleChunks(60)
	chunks[5].Text = ""
	chunks[6].Text = "does it end with a question? "
	seg, files := writeSegment(t, t.TempDir(), chunks, nil)
	r, err := Open(t.Context(), seg, files, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range chunks {
		var seen string
		asked := 0
		got, textIs, err := r.ChunkMeta(i, func(b []byte) bool {
			asked++
			seen = string(b)
			return len(b)%2 == 1
		})
		if err != nil {
			t.Fatal(err)
		}
		want, err := r.Chunk(i)
		if err != nil {
			t.Fatal(err)
		}
		// The build leaves an empty text out of the record: nothing to ask.
		wantAsked := min(1, len(chunks[i].Text))
		if asked != wantAsked || seen != chunks[i].Text || textIs != (len(chunks[i].Text)%2 == 1) {
			t.Fatalf("chunk %d: text asked %d times of %q (%v), want %d of %q", i, asked, seen, textIs, wantAsked, chunks[i].Text)
		}
		want.Text, want.ID, want.SourceID, want.HeadingPath, want.TextHash, want.DedupeKey = "", "", "", nil, "", ""
		want.Governance.DuplicateGroupKey, want.Governance.Warnings = "", nil
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("chunk %d metadata:\n got %+v\nwant %+v", i, *got, *want)
		}
		// Completed, it is the stored chunk.
		var into memory.Chunk
		intoMissing, err := r.ChunkStoredInto(i, &into)
		if err != nil {
			t.Fatal(err)
		}
		stored, storedMissing, err := r.ChunkStored(i)
		if err != nil {
			t.Fatal(err)
		}
		Complete(got, &into)
		if intoMissing != storedMissing || !reflect.DeepEqual(&into, stored) || !reflect.DeepEqual(got, stored) {
			t.Fatalf("chunk %d completed:\n got %+v\nwant %+v", i, *got, *stored)
		}
		if _, textIs, err := r.ChunkMeta(i, nil); err != nil || textIs {
			t.Fatalf("chunk %d without a text function: %v, %v", i, textIs, err)
		}
	}
}

// BenchmarkChunkDecode compares decoding a record whole (what scoring a
// candidate did) with decoding it without copying its text out.
func BenchmarkChunkDecode(b *testing.B) {
	chunks := sampleChunks(256)
	long := strings.Repeat("a sentence of a dialogue turn, as long as most are. ", 12)
	for i := range chunks {
		chunks[i].Text = long + chunks[i].Text
	}
	seg, files := writeSegment(b, b.TempDir(), chunks, nil)
	r, err := Open(b.Context(), seg, files, 0, true)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("stored", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, _, err := r.ChunkStored(i % len(chunks)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("meta", func(b *testing.B) {
		b.ReportAllocs()
		asks := func(t []byte) bool { return bytes.HasSuffix(bytes.TrimSpace(t), []byte("?")) }
		for i := 0; b.Loop(); i++ {
			if _, _, err := r.ChunkMeta(i%len(chunks), asks); err != nil {
				b.Fatal(err)
			}
		}
	})
}
