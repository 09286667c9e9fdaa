package index_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
)

// threeGenerations syncs three versions of a small memory and returns the
// configuration and the run ids, oldest first (the last is active).
func threeGenerations(t *testing.T) (config.Config, []string) {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join(root, "memory.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	cfg := testConfig(t, filepath.Join(root, "home"), config.Source{Name: "m", Kind: config.KindJSONL, Path: src})
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})
	var runs []string
	for i := range 3 {
		appendFile(t, src, jsonlLines(t, rec{ID: "extra-" + string(rune('a'+i)), Text: "One more memory about the deploy queue.", Date: "2026-02-20"}))
		runs = append(runs, mustSync(t, ix).Build.RunID)
	}
	return cfg, runs
}

func flipMiddle(t *testing.T, path string, keepTime bool) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x01
	overwrite(t, path, b)
	if keepTime {
		if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpenNewestIntact_skipsDamagedAndExcluded(t *testing.T) {
	cfg, runs := threeGenerations(t)
	home, an := cfg.Home, lexical.NewAnalyzer()

	// The middle generation is damaged: the newest intact one other than
	// the active is the oldest.
	flipMiddle(t, filepath.Join(home.Generation(runs[1]), generation.FileSources), false)
	s, skipped, err := index.OpenNewestIntact(t.Context(), home, cfg, an, nil, runs[2])
	if err != nil {
		t.Fatal(err)
	}
	if s.Record.RunID != runs[0] || s.Gen.Count() != s.Record.ChunkCount {
		t.Errorf("opened %s (%d chunks), want %s", s.Record.RunID, s.Gen.Count(), runs[0])
	}
	if len(skipped) != 1 || !errors.Is(skipped[0], generation.ErrCorrupt) {
		t.Errorf("skipped %v, want the damaged %s", skipped, runs[1])
	}

	// Without exclusion the active one is the newest intact.
	if s, _, err := index.OpenNewestIntact(t.Context(), home, cfg, an, nil); err != nil || s.Record.RunID != runs[2] {
		t.Errorf("newest intact = %v %v, want %s", s, err, runs[2])
	}

	// A profile the configured embedder cannot search is passed over.
	other := cfg
	other.Embedding.Dimension = 128
	if _, skipped, err := index.OpenNewestIntact(t.Context(), home, other, an, nil); !errors.Is(err, index.ErrNoIntact) || len(skipped) != 3 {
		t.Errorf("with another dimension: %v, skipped %d, want ErrNoIntact and 3", err, len(skipped))
	}

	// NewestIntact answers the same question without loading.
	if rec, _, err := index.NewestIntact(context.Background(), home, cfg, index.Deep, runs[2]); err != nil || rec.RunID != runs[0] {
		t.Errorf("NewestIntact = %v %v, want %s", rec, err, runs[0])
	}
}

func TestCheckGeneration_depths(t *testing.T) {
	cfg, runs := threeGenerations(t)
	home := cfg.Home
	m, _, err := manifest.Read(home.Manifest())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []index.Depth{index.Quick, index.Deep} {
		if err := index.CheckGeneration(context.Background(), home, m, d); err != nil {
			t.Fatalf("intact generation, depth %d: %v", d, err)
		}
	}
	dir := home.Generation(runs[2])

	// Rot that keeps size and time: only Deep sees it.
	flipMiddle(t, filepath.Join(dir, generation.FileReport), true)
	if err := index.CheckGeneration(context.Background(), home, m, index.Quick); err != nil {
		t.Errorf("Quick hashed a file that did not change size or time: %v", err)
	}
	if err := index.CheckGeneration(context.Background(), home, m, index.Deep); !errors.Is(err, generation.ErrCorrupt) {
		t.Errorf("Deep = %v, want ErrCorrupt", err)
	}

	// A file rewritten after the generation was sealed is hashed by Quick.
	flipMiddle(t, filepath.Join(dir, generation.FileReport), true) // restore
	later := time.Now().Add(time.Minute)
	flipMiddle(t, filepath.Join(dir, generation.FileSources), false)
	if err := os.Chtimes(filepath.Join(dir, generation.FileSources), later, later); err != nil {
		t.Fatal(err)
	}
	var ce *generation.CorruptError
	if err := index.CheckGeneration(context.Background(), home, m, index.Quick); !errors.As(err, &ce) || filepath.Base(ce.File) != generation.FileSources {
		t.Errorf("Quick after a rewrite = %v, want a CorruptError naming %s", err, generation.FileSources)
	}

	// A missing file is named.
	os.Remove(filepath.Join(dir, generation.FileSources))
	if err := index.CheckGeneration(context.Background(), home, m, index.Quick); !errors.As(err, &ce) || ce.Reason != "file is missing" {
		t.Errorf("missing file = %v", err)
	}
}

func TestServedRecheck(t *testing.T) {
	cfg, runs := threeGenerations(t)
	home := cfg.Home
	m, _, err := manifest.Read(home.Manifest())
	if err != nil {
		t.Fatal(err)
	}
	s, err := index.OpenServed(t.Context(), home, m, lexical.NewAnalyzer(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Recheck(t.Context(), index.Quick); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home.Generation(runs[2]), generation.FileSources)

	// touch: the time changed, the content did not: Quick hashes it once,
	// finds it intact, and remembers the new time.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if err := s.Recheck(t.Context(), index.Quick); err != nil {
		t.Errorf("after touch: %v", err)
	}

	flipMiddle(t, path, true)
	if err := s.Recheck(t.Context(), index.Quick); err != nil {
		t.Errorf("Quick hashed a file whose size and time did not change: %v", err)
	}
	if err := s.Recheck(t.Context(), index.Deep); !errors.Is(err, generation.ErrCorrupt) {
		t.Errorf("Deep = %v, want ErrCorrupt", err)
	}
	if s.Gen.Count() == 0 {
		t.Error("the loaded generation must be untouched")
	}

	if err := os.Truncate(path, 10); err != nil {
		t.Fatal(err)
	}
	if err := s.Recheck(t.Context(), index.Quick); !errors.Is(err, generation.ErrCorrupt) {
		t.Errorf("Quick after truncation = %v, want ErrCorrupt", err)
	}
}

func TestList_showsIntegrity(t *testing.T) {
	cfg, runs := threeGenerations(t)
	if err := os.Truncate(filepath.Join(cfg.Home.Generation(runs[0]), generation.FileReport), 3); err != nil {
		t.Fatal(err)
	}
	ix := index.New(cfg, index.Options{NoRemote: true})
	list, err := ix.List(context.Background(), index.Quick)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, g := range list {
		got[g.RunID] = g.Integrity
		if g.Integrity == "damaged" && g.Problem == "" {
			t.Errorf("%s is damaged with no problem given", g.RunID)
		}
	}
	if got[runs[0]] != "damaged" || got[runs[1]] != "intact" || got[runs[2]] != "intact" {
		t.Errorf("integrity %v", got)
	}
}
