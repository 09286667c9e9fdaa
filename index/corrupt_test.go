package index_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
)

// copyDir copies the regular files of src into a new temp directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	for _, name := range dirNames(t, src) {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestGenerationOpen_corrupt damages every file of a generation in several
// ways and checks that Open refuses it with ErrCorrupt naming the file,
// without first allocating what a damaged size field claims.
func TestGenerationOpen_corrupt(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now}))
	m, _ := active(t, cfg.Home)
	genDir := filepath.Join(cfg.Home.IndexDir(), m.GenerationPath)
	analyzer := lexical.NewAnalyzer()

	type damage struct {
		name string
		do   func(t *testing.T, path string)
	}
	flipAt := func(off int64) func(t *testing.T, path string) {
		return func(t *testing.T, path string) { flipByte(t, path, off) }
	}
	// xorAt flips one bit mask at off: a realistic single-bit error.
	xorAt := func(off int64, mask byte) func(t *testing.T, path string) {
		return func(t *testing.T, path string) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b[off] ^= mask
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	common := []damage{
		{"first byte", flipAt(0)},
		{"middle byte", func(t *testing.T, path string) {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			flipByte(t, path, fi.Size()/2)
		}},
		{"last byte", flipAt(-1)},
		{"truncated", func(t *testing.T, path string) {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, fi.Size()-1); err != nil {
				t.Fatal(err)
			}
		}},
		{"zero-filled", func(t *testing.T, path string) {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, make([]byte, fi.Size()), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"missing", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}},
	}
	// Size fields of the binary headers: a flipped high bit claims a
	// huge index or vocabulary.
	headers := map[string][]damage{
		generation.FileLexical: {{"term count bit 29", xorAt(8+4+3, 0x20)}, {"term count byte 2", xorAt(8+4+2, 0xff)}, {"posting count bit 29", xorAt(8+8+3, 0x20)}},
		generation.FileContext: {{"document count bit 29", xorAt(8+3, 0x20)}},
		generation.FileModel:   {{"vocabulary byte 2", xorAt(8+8+2, 0xff)}, {"dimension bit 12", xorAt(8+1, 0x10)}},
	}
	for _, file := range m.SortedFiles() {
		for _, d := range append(common, headers[file]...) {
			t.Run(file+"/"+d.name, func(t *testing.T) {
				bad := copyDir(t, genDir)
				d.do(t, filepath.Join(bad, file))
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				g, err := generation.Open(bad, m.RunID, m.Files, analyzer)
				runtime.ReadMemStats(&after)
				if err == nil {
					t.Fatalf("Open of a generation with a damaged %s succeeded (%d chunks)", file, g.Count())
				}
				ce, ok := errors.AsType[*generation.CorruptError](err)
				if !errors.Is(err, generation.ErrCorrupt) || !ok || ce.File != file || ce.RunID != m.RunID || !strings.Contains(err.Error(), file) {
					t.Errorf("Open: %v, want a CorruptError naming %s", err, file)
				}
				if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
					t.Errorf("Open of a damaged %s allocated %d MB before refusing it", file, grew>>20)
				}
				if err := generation.Verify(bad, m.Files); err == nil {
					t.Errorf("Verify of a damaged %s succeeded", file)
				}
			})
		}
	}

	t.Run("manifest lists no such file", func(t *testing.T) {
		files := map[string]manifest.FileSum{}
		for k, v := range m.Files {
			if k != generation.FileVectors {
				files[k] = v
			}
		}
		if _, err := generation.Open(genDir, m.RunID, files, analyzer); !errors.Is(err, generation.ErrCorrupt) || !strings.Contains(err.Error(), generation.FileVectors) {
			t.Errorf("Open with vectors unlisted: %v", err)
		}
	})
	t.Run("another run id", func(t *testing.T) {
		if _, err := generation.Open(genDir, "20260101T000000Z-00000000", m.Files, analyzer); !errors.Is(err, generation.ErrCorrupt) {
			t.Errorf("Open under another run id: %v", err)
		}
	})
	t.Run("intact", func(t *testing.T) {
		if _, err := generation.Open(genDir, m.RunID, m.Files, analyzer); err != nil {
			t.Fatal(err)
		}
		if err := generation.Verify(genDir, m.Files); err != nil {
			t.Fatal(err)
		}
	})
}
