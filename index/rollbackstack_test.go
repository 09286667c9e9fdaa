package index_test

import (
	"context"
	"errors"
	"testing"

	"github.com/nova-recall/nova/index"
)

// TestRollback_stepsBack: each plain rollback steps one generation further
// back in the history of promotions, as a stack, where the second used to
// return to the generation the first had left. --to stays exact, and a
// promotion after rollbacks starts the stack again from there.
func TestRollback_stepsBack(t *testing.T) {
	cfg, ix, runs := threeVersions(t, 4, index.Options{})
	src := cfg.Sources[0].Path
	ctx := context.Background()
	step := func(want, next string) {
		t.Helper()
		p, err := ix.Rollback(ctx, "")
		if err != nil {
			t.Fatalf("plain rollback: %v, want %s", err, want)
		}
		if p.RunID != want || p.NextRollback != next {
			t.Errorf("plain rollback made %s active (next rollback: %q), want %s (next %q)", p.RunID, p.NextRollback, want, next)
		}
		if id, _ := activeTexts(t, cfg); id != want {
			t.Errorf("active %s, want %s", id, want)
		}
	}
	step(runs[1], runs[0])
	step(runs[0], "")
	if _, err := ix.Rollback(ctx, ""); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("a plain rollback from the oldest: %v, want ErrNotFound", err)
	}
	// --to is exact; a plain rollback then steps back from there.
	if p, err := ix.Rollback(ctx, runs[2]); err != nil || p.RunID != runs[2] {
		t.Fatalf("rollback --to %s: %+v %v", runs[2], p, err)
	}
	step(runs[1], runs[0])
	// A sync after a rollback stacks on the generation it replaced.
	runs = append(runs, syncVersion(t, ix, src, 4).Build.RunID)
	step(runs[1], runs[0])
}
