package index_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lexical"
)

// TestGenerationOpen_corrupt damages every file a generation lists (its
// own, its segments' and its space's) in several ways and checks that Open
// refuses it with a CorruptError naming the file, without first allocating
// what a damaged size field claims, and that Verify finds it too.
func TestGenerationOpen_corrupt(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now}))
	// A second sync after an append gives the generation a delta segment
	// (with a dead.bin) besides its base.
	appendFile(t, src, jsonlLines(t, rec{ID: "mem-007", Text: "The backup job moved to 03:00 to avoid the deploy window.", Date: "2026-02-20"}))
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch.Add(time.Hour)).Now}))
	m, _ := active(t, cfg.Home)
	if len(m.Segments) != 2 {
		t.Fatalf("%d segments, want a base and a delta", len(m.Segments))
	}
	indexDir := cfg.Home.IndexDir()
	analyzer := lexical.NewAnalyzer()

	damages := map[string]func(t *testing.T, path string){
		"first byte":  func(t *testing.T, path string) { flipByte(t, path, 0) },
		"middle byte": func(t *testing.T, path string) { flipByte(t, path, size(t, path)/2) },
		"last byte":   func(t *testing.T, path string) { flipByte(t, path, -1) },
		"truncated": func(t *testing.T, path string) {
			b, _ := os.ReadFile(path)
			overwrite(t, path, b[:len(b)-1])
		},
		"zero-filled": func(t *testing.T, path string) { overwrite(t, path, make([]byte, size(t, path))) },
		"missing": func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		},
	}
	for dirRel, files := range m.AllFiles() {
		for name := range files {
			rel := filepath.Join(dirRel, name)
			for what, damage := range damages {
				t.Run(rel+"/"+what, func(t *testing.T) {
					path := filepath.Join(indexDir, rel)
					orig, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() {
						os.Remove(path)
						if err := os.WriteFile(path, orig, 0o400); err != nil {
							t.Fatal(err)
						}
					})
					damage(t, path)
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					g, err := generation.Open(context.Background(), indexDir, m, analyzer, generation.Options{})
					runtime.ReadMemStats(&after)
					if err == nil {
						t.Fatalf("Open of a generation with a damaged %s succeeded (%d chunks)", rel, g.Count())
					}
					ce, ok := errors.AsType[*generation.CorruptError](err)
					if !errors.Is(err, generation.ErrCorrupt) || !ok || ce.RunID != m.RunID || !strings.Contains(ce.File, name) {
						t.Errorf("Open: %v, want a CorruptError naming %s", err, rel)
					}
					if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
						t.Errorf("Open of a damaged %s allocated %d MB before refusing it", rel, grew>>20)
					}
				})
			}
		}
	}
	t.Run("intact", func(t *testing.T) {
		if _, err := generation.Open(context.Background(), indexDir, m, analyzer, generation.Options{}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("files are read-only and private", func(t *testing.T) {
		for dirRel, files := range m.AllFiles() {
			for name := range files {
				fi, err := os.Stat(filepath.Join(indexDir, dirRel, name))
				if err != nil {
					t.Fatal(err)
				}
				if perm := fi.Mode().Perm(); perm&0o077 != 0 || (dirRel != m.GenerationPath && perm != 0o400) {
					t.Errorf("%s/%s: mode %v", dirRel, name, perm)
				}
			}
		}
	})
}

func size(t testing.TB, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
