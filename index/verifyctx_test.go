package index_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
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
