package index_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSync_cancelledLateStops: a sync cancelled (Ctrl-C) while it embeds,
// trains the inverted file or writes stops there with context.Canceled
// and promotes nothing. Only the
// reading stage looked at the context: cancelled later, a sync of 320 000
// records ran on for 7-10 s and promoted the generation it had been told
// to drop, while novactl said "interrupted; the active generation is
// unchanged".
func TestSync_cancelledLateStops(t *testing.T) {
	for _, stage := range []string{"embed", "ann", "write"} {
		t.Run(stage, func(t *testing.T) {
			dir := t.TempDir()
			data := filepath.Join(dir, "data")
			var b strings.Builder
			words := []string{"deploy", "rollback", "port", "firewall", "cache", "index", "query", "token", "session", "backup", "migration", "timeout"}
			// 1200 records: enough for the inverted file (annMinChunks
			// 1000) and no more, since the recall check's exact scans
			// dominate the test under the race detector.
			for i := range 1200 {
				fmt.Fprintf(&b, `{"id":"r%d","text":"%s %s %s note %d"}`+"\n", i, words[i%12], words[(i/12)%12], words[(i*7)%12], i)
			}
			writeFile(t, filepath.Join(data, "r.jsonl"), b.String())
			cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "r", Kind: config.KindJSONL, Path: data})
			cfg.Index.ANNMinChunks = 1000 // so that the ann stage runs
			// A small model: its training, not what is cancelled, was
			// most of the test's time under the race detector.
			cfg.Embedding.Dimension = 64
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			seen := false
			progress := func(p index.Progress) {
				if p.Stage == stage {
					seen = true
					cancel()
				}
			}
			// The first sync: it trains the model and the inverted file.
			r, err := index.New(cfg, index.Options{NoRemote: true, NoCompact: true, Progress: progress}).Sync(ctx)
			if !seen {
				t.Fatalf("the build never reached stage %q", stage)
			}
			if !errors.Is(err, context.Canceled) {
				promoted := ""
				if r != nil && r.Promote != nil {
					promoted = r.Active()
				}
				t.Fatalf("cancelled at %q: err %v, promoted %q", stage, err, promoted)
			}
			if _, err := os.Stat(cfg.Home.Manifest()); !os.IsNotExist(err) {
				t.Errorf("a generation was made active: %v", err)
			}
			if left, _ := os.ReadDir(cfg.Home.Candidates()); len(left) > 0 {
				t.Errorf("candidates left: %v", left)
			}
			// The next sync works.
			mustSync(t, index.New(cfg, index.Options{NoRemote: true, NoCompact: true}))
		})
	}
}
