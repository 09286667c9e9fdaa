package index_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
)

// pausedVerify starts ix.Verify(runID) in a goroutine that stops once it
// has read the candidate record; run what races it, then call the
// returned function to let the verification finish and get its result.
func pausedVerify(t *testing.T, cfg config.Config, clk *clock, runID string) func() (*index.VerifyResult, error) {
	t.Helper()
	paused, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	ix := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Hook: func(step string) {
		if step == index.StepVerifyRecordRead {
			// Only the first reading: a second one runs freely.
			once.Do(func() {
				close(paused)
				<-resume
			})
		}
	}})
	type result struct {
		v   *index.VerifyResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := ix.Verify(context.Background(), runID)
		done <- result{v, err}
	}()
	select {
	case <-paused:
	case r := <-done:
		t.Fatalf("verify finished before it read the record: %+v %v", r.v, r.err)
	}
	return func() (*index.VerifyResult, error) {
		close(resume)
		r := <-done
		return r.v, r.err
	}
}

// A candidate promoted while it is verified is verified where it went: it
// is no unfinished build, nor damaged.
func TestVerify_candidatePromotedMeanwhile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	clk := newClock(epoch)
	writer := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now})
	b, err := writer.Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	finish := pausedVerify(t, cfg, clk, "")
	if _, err := writer.Promote(context.Background(), ""); err != nil {
		t.Fatalf("promote beside verify: %v", err)
	}
	v, err := finish()
	if err != nil {
		t.Fatalf("verify of a candidate promoted meanwhile: %v", err)
	}
	if v.RunID != b.RunID || v.Where != "generation" || v.Chunks != 6 {
		t.Errorf("verify: %+v, want generation %s with 6 chunks", v, b.RunID)
	}
}

// A kept generation that retention removes (and whose files the garbage
// collector takes) while it is verified is reported as removed, with
// advice to run again, never as damage.
func TestVerify_generationRemovedMeanwhile(t *testing.T) {
	src, cfg, clk, writer := keepingTwo(t)
	first := mustSync(t, writer).Active()
	appendFile(t, src, jsonlLines(t, rec{ID: "mem-007", Text: "The cache warms from the replica after each deploy.", Date: "2026-02-16"}))
	mustSync(t, writer)

	finish := pausedVerify(t, cfg, clk, first)
	appendFile(t, src, jsonlLines(t, rec{ID: "mem-008", Text: "Feature flags live in the settings table, read once a minute.", Date: "2026-02-17"}))
	r := mustSync(t, writer)
	if !strings.Contains(fmtIDs(r.Promote.Deleted), first) {
		t.Fatalf("the sync beside verify removed %v, want %s among them", r.Promote.Deleted, first)
	}
	v, err := finish()
	if err == nil {
		t.Fatalf("verify of a generation removed meanwhile: %+v, want an error", v)
	}
	if errors.Is(err, generation.ErrCorrupt) || !errors.Is(err, index.ErrNotFound) {
		t.Errorf("verify of a generation removed meanwhile: %v, want ErrNotFound, not ErrCorrupt", err)
	}
	if !strings.Contains(err.Error(), "while it was verified") {
		t.Errorf("error %q does not say the generation went while it was verified", err)
	}
}

// Syncs beside a listing that retire the active generation it read of
// the manifest leave no false damage in it: the generation they made
// active is listed active, and the one they removed is not listed as an
// active generation gone missing.
func TestList_activeRetiredMeanwhile(t *testing.T) {
	src, cfg, clk, writer := keepingTwo(t)
	read := mustSync(t, writer).Active()
	later := ""
	lister := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Hook: func(step string) {
		if step != index.StepListManifestRead || later != "" {
			return
		}
		for i, text := range []string{"The cache warms from the replica after each deploy.", "Feature flags live in the settings table."} {
			appendFile(t, src, jsonlLines(t, rec{ID: fmt.Sprintf("mem-10%d", i), Text: text, Date: "2026-02-16"}))
			later = mustSync(t, writer).Active()
		}
	}})
	list, err := lister.List(context.Background(), index.Quick)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range list {
		if g.RunID == read || g.Integrity == "damaged" || (g.RunID == later) != (g.State == "active") {
			t.Errorf("listed %s: %s %s %s; %s was removed, %s is active", g.RunID, g.State, g.Integrity, g.Problem, read, later)
		}
	}
}

// keepingTwo returns a JSONL source of the base records and a home over it
// that keeps two generations, with its clock and an indexer that builds
// in full.
func keepingTwo(t *testing.T) (string, config.Config, *clock, *index.Indexer) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	cfg.Index.KeepGenerations = 2
	clk := newClock(epoch)
	return src, cfg, clk, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Full: true})
}
