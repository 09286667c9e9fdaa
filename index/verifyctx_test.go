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

// Ctrl-C while a promotion, a sync's promotion or a rollback verifies the
// generation it is about to make active stops it there, with
// context.Canceled: the active generation stays as it was, a sync's
// candidate is dropped as when it is interrupted before, and a rollback
// does not take the generation it did not finish checking for damaged.
func TestPromotion_cancelledInVerify(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	clk := newClock(epoch)
	writer := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Full: true})
	first := mustSync(t, writer).Active()
	appendFile(t, src, jsonlLines(t, rec{ID: "mem-007", Text: "The cache warms from the replica after each deploy.", Date: "2026-02-16"}))
	cancelling := func() (context.Context, *index.Indexer) {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		return ctx, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Full: true, Hook: func(step string) {
			if step == index.StepVerifyRecordRead {
				cancel()
			}
		}})
	}
	active := func() string {
		t.Helper()
		m, _, err := manifest.Read(cfg.Home.Manifest())
		if err != nil {
			t.Fatal(err)
		}
		return m.RunID
	}
	ctx, ix := cancelling()
	if _, err := ix.Sync(ctx); !errors.Is(err, context.Canceled) || active() != first {
		t.Fatalf("sync interrupted in its verification: %v, active %s; want context.Canceled, %s still active", err, active(), first)
	}
	if cands, _ := filepath.Glob(filepath.Join(cfg.Home.Candidates(), "*")); len(cands) > 0 {
		t.Errorf("the interrupted sync left candidates: %v", cands)
	}
	b, err := writer.Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, ix = cancelling()
	if _, err := ix.Promote(ctx, b.RunID); !errors.Is(err, context.Canceled) || active() != first {
		t.Fatalf("promote interrupted in its verification: %v, active %s; want context.Canceled, %s still active", err, active(), first)
	}
	if _, err := writer.Promote(context.Background(), b.RunID); err != nil || active() != b.RunID {
		t.Fatalf("promote after the interrupted one: %v", err)
	}
	for _, to := range []string{"", first} {
		ctx, ix = cancelling()
		if _, err := ix.Rollback(ctx, to); !errors.Is(err, context.Canceled) || active() != b.RunID {
			t.Errorf("rollback to %q interrupted in its verification: %v, active %s; want context.Canceled, %s still active", to, err, active(), b.RunID)
		}
	}
	if r, err := writer.Rollback(context.Background(), ""); err != nil || r.RunID != first {
		t.Errorf("rollback after the interrupted ones: %+v, %v; want %s, none skipped as damaged", r, err, first)
	}
}
