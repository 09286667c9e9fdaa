package index_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/manifest"
)

// TestRetain_logsADamagedGenerationOnce: retention checks the generation
// a promotion replaced, then the most recently active ones; the replaced
// one is also the most recently active, and when it was damaged it was
// checked, and logged as damaged, twice.
func TestRetain_logsADamagedGenerationOnce(t *testing.T) {
	cfg, runs := versions(t)
	// The active generation loses a file of its segment: quick checks see it.
	rec := record(t, cfg, runs[2])
	seg := filepath.Join(cfg.Home.IndexDir(), manifest.SegmentDir(rec.Segments[0].ID), "records.bin")
	if err := os.Remove(seg); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	ix := index.New(cfg, index.Options{NoRemote: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if _, err := ix.Rollback(context.Background(), runs[0]); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "runId="+runs[2]); n != 1 {
		t.Errorf("the damaged generation %s is logged %d times, want once:\n%s", runs[2], n, logs.String())
	}
}
