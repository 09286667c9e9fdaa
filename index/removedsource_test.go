package index_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSync_reportsARemovedSource: a source taken out of config.yaml (by
// hand, or by config init --force without its --notes) has its memory
// dropped by the next sync, incremental or full; the build says which
// source, and how much, rather than only counting fewer chunks.
func TestSync_reportsARemovedSource(t *testing.T) {
	for _, full := range []bool{false, true} {
		dir := t.TempDir()
		recs := baseRecords()
		a := config.Source{Name: "exports", Kind: config.KindJSONL, Path: filepath.Join(dir, "exports")}
		b := config.Source{Name: "archive", Kind: config.KindJSONL, Path: filepath.Join(dir, "archive")}
		writeFile(t, filepath.Join(a.Path, "a.jsonl"), jsonlLines(t, recs[:3]...))
		writeFile(t, filepath.Join(b.Path, "b.jsonl"), jsonlLines(t, recs[3]))
		writeFile(t, filepath.Join(b.Path, "c.jsonl"), jsonlLines(t, recs[4:]...))
		clk := newClock(epoch)
		mustSync(t, index.New(testConfig(t, filepath.Join(dir, "home"), a, b), index.Options{NoRemote: true, Now: clk.Now}))
		r := mustSync(t, index.New(testConfig(t, filepath.Join(dir, "home"), a), index.Options{NoRemote: true, Now: clk.Now, Full: full}))
		want := []index.RemovedSource{{Source: "archive", Files: 2, Records: len(recs) - 3}}
		if !slices.Equal(r.Build.RemovedSources, want) || r.Build.Records != 3 {
			t.Errorf("full %v: removed %+v with %d records left, want %+v with 3", full, r.Build.RemovedSources, r.Build.Records, want)
		}
		// The next sync has nothing more to say.
		r, err := index.New(testConfig(t, filepath.Join(dir, "home"), a), index.Options{NoRemote: true, Now: clk.Now, Full: full}).Sync(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Build.RemovedSources) != 0 {
			t.Errorf("full %v: a second sync reports %+v removed again", full, r.Build.RemovedSources)
		}
	}
}
