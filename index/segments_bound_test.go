package index_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// TestCompaction_boundsSegments: syncs that each append more than an
// eighth of the largest segment's documents add a segment that no merge
// of small deltas takes, and appends retire nothing: before, every such
// sync added a segment for good (its files mapped by novad, a folder in
// segments/), bounded only by a retrain of the builtin model, which an
// OpenAI-compatible embedder, or a builtin model trained on the most
// documents it takes, never does. The generation is rewritten once it
// has more than MaxSegments segments.
func TestCompaction_boundsSegments(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	var lines []string
	for i := range 60 {
		lines = append(lines, fmt.Sprintf(`{"id":"base-%d","text":"Base record %d: the heron deploy of build %d passed its canary."}`, i, i, 9000+i))
	}
	if err := os.WriteFile(src, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: filepath.Join(dir, "home")}
	cfg.Sources = []config.Source{{Name: "notes", Kind: config.KindJSONL, Path: src}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	const most = 4
	x := index.New(cfg, index.Options{NoRemote: true, MaxSegments: most})
	for i := range 10 {
		if i > 0 {
			f, err := os.OpenFile(src, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			for j := range 10 {
				fmt.Fprintf(f, `{"id":"more-%d-%d","text":"Appended record %d of sync %d about kingfisher port %d."}`+"\n", i, j, j, i, 7000+10*i+j)
			}
			f.Close()
			later := time.Now().Add(time.Duration(i) * time.Minute)
			if err := os.Chtimes(src, later, later); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := x.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
		m, _, err := manifest.Read(cfg.Home.Manifest())
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Segments) > most {
			t.Fatalf("sync %d: %d segments (%d chunks), more than %d", i, len(m.Segments), m.ChunkCount, most)
		}
	}
}
