package index_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/manifest"
)

// set moves the clock to t: a machine whose clock was corrected
// backwards (NTP after a wrong manual setting, a dead RTC battery).
func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t.UTC()
}

// TestSync_clockWentBackwards: syncs made after the clock went back have
// run ids that sort before the generation active when it did. Each still
// becomes active and serves its memory, retention keeps the generations
// by when they were made active, and plain rollbacks step back through
// them in the order they were made active, never forward, down to the
// first promotion, from which there is nothing further back.
func TestSync_clockWentBackwards(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	clk := newClock(epoch.Add(2 * time.Hour))
	ix := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true})
	ctx := context.Background()

	var runs []string
	for v, at := range []time.Time{epoch.Add(2 * time.Hour), epoch, epoch.Add(time.Hour)} {
		clk.set(at)
		runs = append(runs, syncVersion(t, ix, src, v+1).Build.RunID)
		if id, texts := activeTexts(t, cfg); id != runs[v] || !slices.Equal(texts, versionTexts(v+1)) {
			t.Fatalf("sync %d at %s: active %s serves %q, want %s with version %d", v+1, at, id, texts, runs[v], v+1)
		}
	}
	if !(runs[1] < runs[2] && runs[2] < runs[0]) {
		t.Fatalf("run ids %v do not show the clock going back", runs)
	}
	if got, want := dirNames(t, cfg.Home.Generations()), []string{runs[1], runs[2], runs[0]}; !slices.Equal(got, want) {
		t.Errorf("generations %v, want all three kept: %v", got, want)
	}

	// Plain rollbacks step back in the order of promotion: 3 → 2 → 1.
	for _, want := range []string{runs[1], runs[0]} {
		p, err := ix.Rollback(ctx, "")
		if err != nil || p.RunID != want {
			t.Fatalf("plain rollback: %+v %v, want %s", p, err, want)
		}
	}
	// runs[0] was promoted first: nothing lies further back, whatever its
	// run id says about the clock.
	if p, err := ix.Rollback(ctx, ""); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("plain rollback from the first promotion: %+v %v, want ErrNotFound", p, err)
	}
	if id, texts := activeTexts(t, cfg); id != runs[0] || !slices.Equal(texts, versionTexts(1)) {
		t.Errorf("active %s serves %q, want %s with version 1", id, texts, runs[0])
	}
	// A sync after the rollbacks, the clock still behind, builds on what
	// is active and promotes.
	clk.set(epoch.Add(90 * time.Minute))
	r := syncVersion(t, ix, src, 4)
	if id, texts := activeTexts(t, cfg); id != r.Build.RunID || !slices.Equal(texts, versionTexts(4)) {
		t.Errorf("after the last sync: active %s serves %q, want %s with version 4", id, texts, r.Build.RunID)
	}
	if r.Promote.PreviousRunID != runs[0] {
		t.Errorf("the last sync replaced %s, want %s", r.Promote.PreviousRunID, runs[0])
	}

	// The manifest lost: what novad falls back to, and what the next sync
	// builds on, is the generation promoted last, not the one whose run id
	// the clock set furthest ahead.
	if err := os.Remove(cfg.Home.Manifest()); err != nil {
		t.Fatal(err)
	}
	fb, _, err := index.NewestIntact(context.Background(), cfg.Home, cfg, index.Deep)
	if err != nil {
		t.Fatal(err)
	}
	if fb.RunID != r.Build.RunID {
		t.Fatalf("fallback without a manifest: %s, want %s, promoted last", fb.RunID, r.Build.RunID)
	}
	clk.set(epoch.Add(100 * time.Minute))
	rr, err := ix.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rr.Build.Recovery == nil || rr.Build.Recovery.BuiltOn != r.Build.RunID || rr.Build.Recovery.Unknown {
		t.Errorf("sync without a manifest: recovery %+v, want built on %s, nothing unknown", rr.Build.Recovery, r.Build.RunID)
	}
}

// TestPromote_interruptedAfterTheClockWentBack: a promotion interrupted
// after the clock went back (a full disk at the manifest) leaves a
// generation whose run id sorts before the active one. It is still the
// interrupted promotion: listed so, finished by a plain promote as the
// error said, and never a step back for rollback, which has nothing to
// go to.
func TestPromote_interruptedAfterTheClockWentBack(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	ctx := context.Background()
	first := syncVersion(t, index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch.Add(2 * time.Hour)).Now}), src, 1).Build.RunID

	writeFile(t, src, jsonlLines(t, versionRecords(2)...))
	fail := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now, Hook: func(step string) {
		if step == manifest.StepTempWritten {
			panic("disk full") // the manifest cannot be written
		}
	}})
	var built string
	func() {
		defer func() { _ = recover() }()
		_, _ = fail.Sync(ctx)
	}()
	ids := dirNames(t, cfg.Home.Generations())
	if len(ids) != 2 || ids[1] != first {
		t.Fatalf("generations %v, want the interrupted one before %s", ids, first)
	}
	built = ids[0]

	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch.Add(time.Hour)).Now})
	list, err := ix.List(context.Background(), index.Quick)
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, g := range list {
		states[g.RunID] = g.State
	}
	if states[built] != "interrupted" || states[first] != "active" {
		t.Errorf("states %v, want %s interrupted and %s active", states, built, first)
	}
	if p, err := ix.Rollback(ctx, ""); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("plain rollback: %+v %v, want ErrNotFound: %s was never active", p, err, built)
	}
	p, err := ix.Promote(ctx, "")
	if err != nil || p.RunID != built {
		t.Fatalf("promote to finish the interrupted promotion: %+v %v, want %s", p, err, built)
	}
	if id, texts := activeTexts(t, cfg); id != built || !slices.Equal(texts, versionTexts(2)) {
		t.Errorf("active %s serves %q, want %s with version 2", id, texts, built)
	}
}

// TestPromote_candidateBuiltAfterTheClockWentBack: novactl index promote
// without a run id makes the candidate built last active, though a
// candidate built while the clock ran ahead has a later run id; that
// older candidate is then retired, as any candidate built before the
// active generation is. Before, promote made the older one active (the
// memory as it was before the last build), retention deleted the newer
// one, and the older one's like stayed until the clock caught up.
func TestPromote_candidateBuiltAfterTheClockWentBack(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	ctx := context.Background()
	clk := newClock(epoch)
	ix := index.New(cfg, index.Options{NoRemote: true, NoCompact: true, Now: clk.Now})
	syncVersion(t, ix, src, 1)

	var built []string
	for v, at := range []time.Time{epoch.Add(3 * time.Hour), epoch.Add(time.Hour)} {
		clk.set(at)
		writeFile(t, src, jsonlLines(t, versionRecords(v+2)...))
		b, err := ix.Build(ctx)
		if err != nil {
			t.Fatal(err)
		}
		built = append(built, b.RunID)
	}
	if built[1] > built[0] {
		t.Fatalf("candidates %v: the clock did not go back", built)
	}
	p, err := ix.Promote(ctx, "")
	if err != nil || p.RunID != built[1] {
		t.Fatalf("promote: %+v %v, want %s, built last", p, err, built[1])
	}
	if id, texts := activeTexts(t, cfg); id != built[1] || !slices.Equal(texts, versionTexts(3)) {
		t.Errorf("active %s serves %q, want %s with version 3", id, texts, built[1])
	}
	if left := dirNames(t, cfg.Home.Candidates()); len(left) != 0 {
		t.Errorf("candidates left after the promotion: %v, want %s retired with the one before it", left, built[0])
	}
}
