package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// TestApproximateIndexDecision: below the threshold the build records
// exact search; above it the recall check runs and its figure is recorded,
// and the generation's segments get inverted-file lists only when the
// check passed.
func TestApproximateIndexDecision(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(data, "r.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"deploy", "rollback", "port", "firewall", "cache", "index", "query", "token", "session", "backup", "migration", "timeout"}
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(f, `{"id":"r%d","text":"%s %s %s note %d"}`+"\n", i, words[i%12], words[(i/12)%12], words[(i*7)%12], i)
	}
	f.Close()
	for _, tc := range []struct {
		threshold int
		check     bool
	}{{0, false}, {10000, false}, {1000, true}} {
		cfg := config.Defaults()
		cfg.Home = paths.Home{Root: filepath.Join(dir, fmt.Sprint("home", tc.threshold))}
		cfg.Embedding.Dimension = 16
		cfg.Index.ANNMinChunks = tc.threshold
		cfg.Sources = []config.Source{{Name: "r", Kind: config.KindJSONL, Path: data}}
		res, err := New(cfg, Options{NoRemote: true}).Sync(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ann := res.Build.ANN
		if ann == nil {
			t.Fatal("no ANN decision recorded")
		}
		if !tc.check && (ann.Enabled || ann.RecallAt10 != 0) {
			t.Errorf("threshold %d: %+v", tc.threshold, ann)
		}
		if tc.check && ann.RecallAt10 <= 0 {
			t.Errorf("threshold %d: the recall check did not run: %+v", tc.threshold, ann)
		}
		m, _, err := manifest.Read(cfg.Home.Manifest())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m.Segments {
			if _, listed := p.Files[segment.FileLists]; listed != ann.Enabled {
				t.Errorf("segment %s lists inverted-file lists=%v but enabled=%v", p.ID, listed, ann.Enabled)
			}
		}
		g, err := generation.Open(context.Background(), cfg.Home.IndexDir(), m, lexical.NewAnalyzer(), generation.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if g.HasANN() != ann.Enabled || g.Meta.ANN == nil || g.Meta.ANN.Reason == "" {
			t.Errorf("loaded generation: HasANN %v, meta %+v", g.HasANN(), g.Meta.ANN)
		}
		t.Logf("threshold %d: %+v", tc.threshold, *ann)
	}
}
