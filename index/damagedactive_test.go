package index_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/manifest"
)

// goneHome is a Claude Code home whose active generation holds, besides
// the live session kept.jsonl, the memory of three sessions that are
// gone: early.jsonl, indexed by the first generation; late.jsonl, indexed
// by a later delta (and so only in generations whose segments include
// that delta); grown.jsonl, indexed by the first generation and grown by
// a line in the delta. It returns the configuration, the live session's path,
// the run ids (the first, then the active one) and the delta segment that
// alone holds late.jsonl's memory.
func goneHome(t *testing.T) (cfg config.Config, kept string, first, last string, lateSeg manifest.Part) {
	t.Helper()
	dir := t.TempDir()
	projects := filepath.Join(dir, "projects")
	kept = filepath.Join(projects, "-src-app", "kept.jsonl")
	early := filepath.Join(projects, "-src-app", "early.jsonl")
	late := filepath.Join(projects, "-src-app", "late.jsonl")
	grown := filepath.Join(projects, "-src-app", "grown.jsonl")
	session := func(name, word string, n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			b.WriteString(strings.Replace(claudeLine(i, word), `"s1"`, `"`+name+`"`, 1))
		}
		return b.String()
	}
	writeFile(t, kept, session("kept", "question", 3))
	writeFile(t, early, session("early", "vanishedearly", 3))
	writeFile(t, grown, session("grown", "vanishedgrown", 2))
	cfg = testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: projects})
	// Promoted after their files were written, as in real use: a quick
	// check hashes none of them.
	clk := newClock(time.Now())
	ix := func() *index.Indexer {
		return index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true})
	}
	first = mustSync(t, ix()).Active()
	novatest.Must(t, os.Remove(early))
	writeFile(t, late, session("late", "vanishedlate", 3))
	appendFile(t, grown, strings.Replace(claudeLine(3, "vanishedgrown"), `"s1"`, `"grown"`, 1))
	mustSync(t, ix())
	m, _ := active(t, cfg.Home)
	lateSeg = m.Segments[len(m.Segments)-1]
	novatest.Must(t, os.Remove(late))
	novatest.Must(t, os.Remove(grown))
	last = mustSync(t, ix()).Active()
	if n := countText(t, cfg, "vanishedearly"); n != 3 {
		t.Fatalf("early.jsonl: %d chunks kept, want 3", n)
	}
	if n := countText(t, cfg, "vanishedlate"); n != 3 {
		t.Fatalf("late.jsonl: %d chunks kept, want 3", n)
	}
	if n := countText(t, cfg, "vanishedgrown"); n != 3 {
		t.Fatalf("grown.jsonl: %d chunks kept, want 3", n)
	}
	return cfg, kept, first, last, lateSeg
}

// countText counts the active generation's chunks whose text holds word.
func countText(t *testing.T, cfg config.Config, word string) int {
	t.Helper()
	_, g := active(t, cfg.Home)
	n := 0
	for _, c := range g.All() {
		if strings.Contains(c.Text, word) {
			n++
		}
	}
	return n
}

// damageFile damages path as what says: its bytes changed in place (a
// later time), truncated, or missing.
func damageFile(t *testing.T, path, what string) {
	t.Helper()
	switch what {
	case "checksum":
		flipByte(t, path, 20)
		later := time.Now().Add(time.Hour)
		novatest.Must(t, os.Chtimes(path, later, later))
	case "bit rot": // the time kept: no quick check sees it
		fi, err := os.Stat(path)
		novatest.Must(t, err)
		flipByte(t, path, fi.Size()/2)
		novatest.Must(t, os.Chtimes(path, fi.ModTime(), fi.ModTime()))
	case "truncated":
		novatest.Must(t, os.Chmod(path, 0o600))
		novatest.Must(t, os.Truncate(path, size(t, path)-1))
	case "missing":
		novatest.Must(t, os.Remove(path))
	}
}

// TestSync_damagedActiveKeepsGoneMemory: when the active generation's own
// files are damaged, a sync built from the sources alone, and the memory
// of every source file already gone was dropped without a word. It now
// builds on the newest intact kept generation and reads the sources on
// top: the gone files that generation holds keep their memory, and the
// memory only the damaged generations held is named as lost in the
// sync's result and in index/lost.json (which doctor reads).
func TestSync_damagedActiveKeepsGoneMemory(t *testing.T) {
	// Each damage has a home of its own; a few records, syncs mostly
	// waiting on fsync: they run beside other tests.
	t.Parallel()
	for _, what := range []string{"checksum", "bit rot", "truncated", "missing"} {
		t.Run(what, func(t *testing.T) {
			t.Parallel()
			cfg, kept, first, damaged, lateSeg := goneHome(t)
			// The delta that holds late.jsonl is damaged: every generation
			// since has it; the first one does not, and is intact.
			damageFile(t, filepath.Join(cfg.Home.IndexDir(), manifest.SegmentDir(lateSeg.ID), "records.bin"), what)
			appendFile(t, kept, claudeLine(4, "question"))
			r, err := index.New(cfg, index.Options{NoRemote: true, Now: newClock(time.Now().Add(time.Hour)).Now, NoCompact: true}).Sync(context.Background())
			if err != nil {
				t.Fatalf("sync over a damaged active generation: %v", err)
			}
			if n := countText(t, cfg, "vanishedearly"); n != 3 {
				t.Errorf("early.jsonl, gone, held by the intact %s: %d chunks after the sync, want 3", first, n)
			}
			if n := countText(t, cfg, "question 004"); n != 1 {
				t.Errorf("the line appended to kept.jsonl: %d chunks, want 1", n)
			}
			if r.Build.ModelTrained {
				t.Error("the builtin model was trained again: the intact generation's vector space was not kept")
			}
			rec := r.Build.Recovery
			if rec == nil {
				t.Fatalf("the sync's result says nothing of the damaged generation: %+v", r.Build)
			}
			if rec.Damaged != damaged || rec.BuiltOn != first || !strings.Contains(rec.Problem, lateSeg.ID) {
				t.Errorf("recovery %+v, want %s damaged, built on %s", rec, damaged, first)
			}
			if n := countText(t, cfg, "vanishedgrown"); n != 2 {
				t.Errorf("grown.jsonl, gone, its first two lines held by %s: %d chunks after the sync, want 2", first, n)
			}
			if len(rec.Lost) != 2 || !strings.HasSuffix(rec.Lost[0].Path, "grown.jsonl") || rec.Lost[0].Records != 3 || rec.Lost[0].Kept != 2 ||
				!strings.HasSuffix(rec.Lost[1].Path, "late.jsonl") || rec.Lost[1].Records != 3 || rec.Lost[1].Kept != 0 {
				t.Errorf("lost %+v, want grown.jsonl's 3 records (2 kept) and late.jsonl's 3", rec.Lost)
			}
			lost, err := index.ReadLost(cfg.Home)
			if err != nil || len(lost) != 2 || !strings.HasSuffix(lost[1].Path, "late.jsonl") || lost[1].Damaged != damaged {
				t.Errorf("index/lost.json: %+v %v", lost, err)
			}
			// The next sync is an ordinary delta, and finds nothing lost.
			appendFile(t, kept, claudeLine(5, "question"))
			r = mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: newClock(time.Now().Add(2 * time.Hour)).Now, NoCompact: true}))
			if r.Build.Mode != index.ModeIncremental || r.Build.Recovery != nil {
				t.Errorf("the sync after: mode %s, recovery %+v", r.Build.Mode, r.Build.Recovery)
			}
			if n := countText(t, cfg, "vanishedearly"); n != 3 {
				t.Errorf("early.jsonl after the next sync: %d chunks, want 3", n)
			}
		})
	}
}

// TestSync_damagedActiveNothingIntact: with no intact generation left,
// the sync builds from the sources, and says that the memory of every
// gone file is lost.
func TestSync_damagedActiveNothingIntact(t *testing.T) {
	cfg, _, first, _, _ := goneHome(t)
	base := record(t, cfg, first).Segments[0]
	damageFile(t, filepath.Join(cfg.Home.IndexDir(), manifest.SegmentDir(base.ID), "records.bin"), "missing")
	r, err := index.New(cfg, index.Options{NoRemote: true, Now: newClock(time.Now().Add(time.Hour)).Now, NoCompact: true}).Sync(context.Background())
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	rec := r.Build.Recovery
	if rec == nil || rec.BuiltOn != "" || len(rec.Lost) != 3 {
		t.Fatalf("recovery %+v, want nothing built on and three files lost", rec)
	}
	if n := countText(t, cfg, "question"); n != 3 {
		t.Errorf("kept.jsonl: %d chunks, want 3", n)
	}
}

// TestSync_fullOverBitRotCarriesNoDamage: a full build carries the memory
// of gone files from the active generation, which it opened with quick
// checks only. Over bit rot (a file's bytes changed, its size and time
// not) sync --full carried the damaged text into a new generation that
// verified clean: the damage became memory. A full build that carries
// from the active generation now hashes it first, and builds past it when
// it is damaged.
func TestSync_fullOverBitRotCarriesNoDamage(t *testing.T) {
	cfg, kept, first, _, lateSeg := goneHome(t)
	damageFile(t, filepath.Join(cfg.Home.IndexDir(), manifest.SegmentDir(lateSeg.ID), "records.bin"), "bit rot")
	appendFile(t, kept, claudeLine(4, "question"))
	r, err := index.New(cfg, index.Options{NoRemote: true, Now: newClock(time.Now().Add(time.Hour)).Now, NoCompact: true, Full: true}).Sync(context.Background())
	if err != nil {
		t.Fatalf("sync --full: %v", err)
	}
	_, g := active(t, cfg.Home)
	for _, c := range g.All() {
		if !strings.Contains(c.Text, "quarterly ledger export") {
			t.Errorf("chunk %s carries damaged text: %q", c.ID, c.Text)
		}
	}
	if rec := r.Build.Recovery; rec == nil || rec.BuiltOn != first || len(rec.Lost) != 2 {
		t.Errorf("recovery %+v, want built on %s with late.jsonl and grown.jsonl named lost", rec, first)
	}
	if n := countText(t, cfg, "vanishedearly"); n != 3 {
		t.Errorf("early.jsonl: %d chunks, want 3", n)
	}
}

// TestSync_damagedManifestKeepsGoneMemory: with manifest.json damaged, a
// sync built from the sources alone too. It now builds on the newest
// intact kept generation (the one the manifest named, here), keeping the
// memory of gone files, and, nothing newer being kept, claims no loss.
func TestSync_damagedManifestKeepsGoneMemory(t *testing.T) {
	cfg, kept, _, last, _ := goneHome(t)
	b, err := os.ReadFile(cfg.Home.Manifest())
	novatest.Must(t, err)
	overwrite(t, cfg.Home.Manifest(), b[:len(b)/2])
	appendFile(t, kept, claudeLine(4, "question"))
	r, err := index.New(cfg, index.Options{NoRemote: true, Now: newClock(time.Now().Add(time.Hour)).Now, NoCompact: true}).Sync(context.Background())
	if err != nil {
		t.Fatalf("sync over a damaged manifest: %v", err)
	}
	for word, want := range map[string]int{"vanishedearly": 3, "vanishedlate": 3, "vanishedgrown": 3, "question 004": 1} {
		if n := countText(t, cfg, word); n != want {
			t.Errorf("%s: %d chunks, want %d", word, n, want)
		}
	}
	if rec := r.Build.Recovery; rec == nil || rec.BuiltOn != last || rec.Unknown || len(rec.Lost) != 0 {
		t.Errorf("recovery %+v, want built on %s with nothing lost", rec, last)
	}
}

// TestSync_missingManifestKeepsGoneMemory: with manifest.json gone
// (deleted by hand, or by a cleanup tool) and generations kept, a sync
// built from the sources alone, as for a first sync: the memory of every
// source file already gone was dropped without a word, and the builtin
// embedder was trained again from scratch. It now builds on the newest
// intact kept generation, as for a damaged manifest.
func TestSync_missingManifestKeepsGoneMemory(t *testing.T) {
	cfg, kept, _, last, _ := goneHome(t)
	novatest.Must(t, os.Remove(cfg.Home.Manifest()))
	appendFile(t, kept, claudeLine(4, "question"))
	r, err := index.New(cfg, index.Options{NoRemote: true, Now: newClock(time.Now().Add(time.Hour)).Now, NoCompact: true}).Sync(context.Background())
	if err != nil {
		t.Fatalf("sync without a manifest: %v", err)
	}
	for word, want := range map[string]int{"vanishedearly": 3, "vanishedlate": 3, "vanishedgrown": 3, "question 004": 1} {
		if n := countText(t, cfg, word); n != want {
			t.Errorf("%s: %d chunks, want %d", word, n, want)
		}
	}
	if rec := r.Build.Recovery; rec == nil || rec.BuiltOn != last || rec.Unknown || len(rec.Lost) != 0 {
		t.Errorf("recovery %+v, want built on %s with nothing lost", rec, last)
	}
}
