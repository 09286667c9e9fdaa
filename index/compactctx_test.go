package index_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/manifest"
)

// TestSync_cancelledInCompactionVerify: Ctrl-C while a sync verifies the
// compaction that merges its delta stops that verification: the sync's
// own build stays active, the compaction is dropped (its candidate too),
// and the next sync may compact again. The compaction's verification did
// not look at the context: it hashed every file it shares to the end, and
// promoted the compaction after Ctrl-C.
func TestSync_cancelledInCompactionVerify(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memory.jsonl")
	var lines strings.Builder
	for i := range 64 { // a delta of one record is small beside this
		fmt.Fprintf(&lines, `{"id":"r%d","text":"Runner %d of the deploy pool drained its queue."}`+"\n", i, i)
	}
	writeFile(t, src, lines.String())
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "m", Kind: config.KindJSONL, Path: src})
	clk := newClock(epoch)
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, MergeDeltas: 1}))
	appendFile(t, src, `{"id":"late","text":"The hangar door sticks in the cold."}`+"\n")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	verifies := 0
	ix := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, MergeDeltas: 1, Hook: func(step string) {
		if step == index.StepVerifyRecordRead {
			if verifies++; verifies == 2 { // the sync's, then the compaction's
				cancel()
			}
		}
	}})
	r, err := ix.Sync(ctx)
	if verifies < 2 {
		t.Fatalf("no compaction was verified (%d verifications): %+v, %v", verifies, r, err)
	}
	if err != nil || r == nil || r.Promote == nil {
		t.Fatalf("sync cancelled in its compaction's verification: %+v, %v; want its build promoted", r, err)
	}
	if r.Compaction != nil {
		t.Errorf("the compaction was promoted after Ctrl-C: %s", r.Compaction.Promote.RunID)
	}
	if m, _, err := manifest.Read(cfg.Home.Manifest()); err != nil || m.RunID != r.Promote.RunID {
		t.Errorf("active after: %v; want the sync's build %s", err, r.Promote.RunID)
		if m != nil {
			t.Errorf("active after: %s", m.RunID)
		}
	}
	if cands, _ := os.ReadDir(cfg.Home.Candidates()); len(cands) > 0 {
		t.Errorf("the dropped compaction left candidates: %v", cands)
	}
	appendFile(t, src, `{"id":"later","text":"The hangar door was oiled."}`+"\n")
	if r := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, MergeDeltas: 1})); r.Compaction == nil {
		t.Error("the next sync made no compaction")
	}
}
