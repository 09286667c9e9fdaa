package embedding_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nova-recall/nova/embedding"
)

const cacheDim = 4

func cacheVec(i int) []float32 {
	return []float32{float32(i), float32(i) + 0.5, -float32(i), 1}
}

func cacheKey(i int) embedding.Key { return embedding.KeyOf(fmt.Sprintf("text %d", i)) }

// fill opens the cache of profile "p" in dir, adds vectors [from, to) and
// flushes.
func fill(t *testing.T, dir string, from, to int) {
	t.Helper()
	c, err := embedding.OpenCache(dir, "p", cacheDim)
	if err != nil {
		t.Fatal(err)
	}
	for i := from; i < to; i++ {
		c.Put(cacheKey(i), cacheVec(i))
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
}

// holds checks that a freshly opened cache has exactly vectors [from, to).
func holds(t *testing.T, dir string, from, to int) *embedding.Cache {
	t.Helper()
	c, err := embedding.OpenCache(dir, "p", cacheDim)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != to-from {
		t.Errorf("cache holds %d vectors, want %d", c.Len(), to-from)
	}
	for i := from; i < to; i++ {
		if v, ok := c.Get(cacheKey(i)); !ok || !slices.Equal(v, cacheVec(i)) {
			t.Errorf("vector %d: %v %v", i, v, ok)
		}
	}
	return c
}

func open(t *testing.T, dir string) *embedding.Cache {
	t.Helper()
	c, err := embedding.OpenCache(dir, "p", cacheDim)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func cacheFile(dir string) string { return filepath.Join(dir, "p.vec") }

func TestCache_reopen(t *testing.T) {
	dir := t.TempDir()
	fill(t, dir, 0, 10)
	fill(t, dir, 10, 15)
	c := holds(t, dir, 0, 15)
	// Get returns a copy: changing it does not change the cache.
	v, _ := c.Get(cacheKey(3))
	v[0] = 99
	if w, _ := c.Get(cacheKey(3)); w[0] != 3 {
		t.Errorf("Get returned the cache's own storage")
	}
	// A second Put of a key, or a vector of the wrong size, is ignored.
	c.Put(cacheKey(3), cacheVec(100))
	c.Put(cacheKey(500), []float32{1})
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	holds(t, dir, 0, 15)
	// Another profile (or dimension) is another file.
	other, err := embedding.OpenCache(dir, "q", cacheDim)
	if err != nil || other.Len() != 0 {
		t.Errorf("cache of another profile: %d vectors, %v", other.Len(), err)
	}
}

// TestCache_tornTail: a crash mid-append leaves a partial record; the
// records before it are kept, and vectors added later survive reopening.
func TestCache_tornTail(t *testing.T) {
	tests := []struct {
		name string
		tear func(t *testing.T, path string)
	}{
		{"partial record", func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Write(make([]byte, 17)); err != nil {
				t.Fatal(err)
			}
		}},
		{"bad checksum in the last record", func(t *testing.T, path string) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)-1] ^= 0xff
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			fill(t, dir, 0, 5)
			tt.tear(t, cacheFile(dir))
			keep := 5
			if tt.name != "partial record" {
				keep = 4
			}
			holds(t, dir, 0, keep)
			fill(t, dir, 100, 103)
			c := open(t, dir)
			if c.Len() != keep+3 {
				t.Errorf("after a torn tail and another flush the cache holds %d vectors, want %d", c.Len(), keep+3)
			}
			for i := 100; i < 103; i++ {
				if _, ok := c.Get(cacheKey(i)); !ok {
					t.Errorf("vector %d added after the torn tail is lost", i)
				}
			}
		})
	}
	t.Run("bad header", func(t *testing.T) {
		dir := t.TempDir()
		fill(t, dir, 0, 5)
		b, _ := os.ReadFile(cacheFile(dir))
		b[0] ^= 0xff
		if err := os.WriteFile(cacheFile(dir), b, 0o600); err != nil {
			t.Fatal(err)
		}
		holds(t, dir, 0, 0)
		fill(t, dir, 10, 12)
		holds(t, dir, 10, 12)
	})
}

// TestCache_syncKeepsUnusedVectors: a build that looks up only the text
// that changed (a sync; a build that carries the codes of unchanged files)
// leaves the vectors of the rest in the cache. Flush dropped every vector
// the build did not use once the cache held over 1024, so after one sync
// the next build of a new space embedded the whole corpus again.
func TestCache_syncKeepsUnusedVectors(t *testing.T) {
	dir := t.TempDir()
	fill(t, dir, 0, 3000)
	c := open(t, dir)
	c.Get(cacheKey(7)) // the one changed record's old text
	c.Put(cacheKey(5000), cacheVec(5000))
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	// A sync with nothing to embed.
	if err := open(t, dir).Flush(); err != nil {
		t.Fatal(err)
	}
	r := open(t, dir)
	if r.Len() != 3001 {
		t.Fatalf("after two syncs the cache holds %d vectors, want 3001", r.Len())
	}
	for _, i := range []int{0, 7, 2999, 5000} {
		if v, ok := r.Get(cacheKey(i)); !ok || !slices.Equal(v, cacheVec(i)) {
			t.Errorf("vector %d: %v %v", i, v, ok)
		}
	}
}

// TestCache_compact: when most cached vectors were not used by a build
// that looked up every text, Compact rewrites the file with only the used
// ones.
func TestCache_compact(t *testing.T) {
	dir := t.TempDir()
	fill(t, dir, 0, 3000)
	before, err := os.Stat(cacheFile(dir))
	if err != nil {
		t.Fatal(err)
	}
	c, err := embedding.OpenCache(dir, "p", cacheDim)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 500; i++ {
		c.Get(cacheKey(i))
	}
	for i := 5000; i < 5100; i++ {
		c.Put(cacheKey(i), cacheVec(i))
	}
	if err := c.Compact(); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(cacheFile(dir))
	if err != nil {
		t.Fatal(err)
	}
	if after.Size() >= before.Size() {
		t.Errorf("cache file %d bytes after compaction, was %d", after.Size(), before.Size())
	}
	r := open(t, dir)
	if r.Len() != 600 {
		t.Errorf("compacted cache holds %d vectors, want the 600 used", r.Len())
	}
	for _, i := range []int{0, 499, 5000, 5099} {
		if v, ok := r.Get(cacheKey(i)); !ok || !slices.Equal(v, cacheVec(i)) {
			t.Errorf("used vector %d lost by compaction", i)
		}
	}
	if _, ok := r.Get(cacheKey(2999)); ok {
		t.Errorf("unused vector kept by compaction")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("compaction left %d files", len(entries))
	}
}
