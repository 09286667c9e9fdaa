package index_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
)

// TestSync_otherAnalyzer: a generation whose terms another analyzer made
// (an older Nova's; here one with a lever off) is no damage: novad serves
// it as it is, and the next sync rebuilds it in full with today's
// analyzer, retrains the model (whose vocabulary the analyzer made), and
// keeps, re-analysed and embedded again, the memory of a file that is
// gone since.
func TestSync_otherAnalyzer(t *testing.T) {
	dir := t.TempDir()
	srcDir := filepath.Join(dir, "exports")
	recs := baseRecords()
	writeFile(t, filepath.Join(srcDir, "a.jsonl"), jsonlLines(t, recs[:2]...))
	writeFile(t, filepath.Join(srcDir, "b.jsonl"), jsonlLines(t, recs[2:]...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: srcDir})
	clk := newClock(epoch)
	older := lexical.NewAnalyzerWith(lexical.Options{NoLemmas: true})
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Analyzer: older}))

	// Served by today's analyzer, as it is.
	_, g := active(t, cfg.Home)
	if g.Meta.Analyzer != older.Version() || g.Count() != len(recs) {
		t.Fatalf("served: analyzer %q, %d chunks; want %q, %d", g.Meta.Analyzer, g.Count(), older.Version(), len(recs))
	}

	if err := os.Remove(filepath.Join(srcDir, "a.jsonl")); err != nil {
		t.Fatal(err)
	}
	r := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})).Build
	if r.Recovery != nil {
		t.Errorf("the older generation was treated as damaged: %+v", r.Recovery)
	}
	if r.Mode != index.ModeFull || !r.ModelTrained || r.Chunks != len(recs) || r.Embedded != len(recs) {
		t.Errorf("rebuild: mode %s, model trained %v, %d chunks, %d embedded; want full, trained, %d, %d",
			r.Mode, r.ModelTrained, r.Chunks, r.Embedded, len(recs), len(recs))
	}
	_, g = active(t, cfg.Home)
	if g.Meta.Analyzer != lexical.Version {
		t.Errorf("rebuilt with analyzer %q, want %q", g.Meta.Analyzer, lexical.Version)
	}
	if _, ok := chunkByID(t, g)["notes:mem-001"]; !ok {
		t.Error("the gone file's memory was dropped")
	}
}
