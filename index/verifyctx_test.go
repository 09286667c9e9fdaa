package index_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/manifest"
)

// A verification interrupted (Ctrl-C cancels its context) once it has read
// the candidate record stops with context.Canceled: it neither finishes
// as if nothing happened nor reports the candidate as damaged.
func TestVerify_cancelled(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	clk := newClock(epoch)
	if _, err := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now}).Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ix := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Hook: func(step string) {
		if step == index.StepVerifyRecordRead {
			cancel()
		}
	}})
	v, err := ix.Verify(ctx, "")
	if !errors.Is(err, context.Canceled) || errors.Is(err, generation.ErrCorrupt) || v != nil {
		t.Fatalf("verify with its context cancelled: %+v, %v; want context.Canceled, no result, no damage", v, err)
	}
	// The candidate is intact: verified again, it passes.
	if _, err := ix.Verify(context.Background(), ""); err != nil {
		t.Errorf("verify after the interrupted one: %v", err)
	}
}

// A deep listing or check with its context cancelled stops with
// context.Canceled, and lists nothing: a generation whose files were not
// all hashed is neither intact nor damaged. Quick ones hash nothing and
// are not cut short.
func TestListAndCheck_cancelled(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})
	mustSync(t, ix)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if list, err := ix.List(ctx, index.Deep); !errors.Is(err, context.Canceled) || list != nil {
		t.Errorf("deep list with its context cancelled: %+v, %v; want context.Canceled and no listing", list, err)
	}
	m, _, err := manifest.Read(cfg.Home.Manifest())
	if err != nil {
		t.Fatal(err)
	}
	if err := index.CheckGeneration(ctx, cfg.Home, m, index.Deep); !errors.Is(err, context.Canceled) || errors.Is(err, generation.ErrCorrupt) {
		t.Errorf("deep check with its context cancelled: %v; want context.Canceled, no damage", err)
	}
	if list, err := ix.List(context.Background(), index.Deep); err != nil || len(list) != 1 || list[0].Integrity != "intact" {
		t.Errorf("deep list after: %+v, %v; want the one generation, intact", list, err)
	}
}
