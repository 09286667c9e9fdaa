package search_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/search"
)

// TestExactTiesFollowIDsAfterDelta: two memories with the same text and
// date score alike, and the one with the smaller id must come first
// whether the generation was built whole or the second memory arrived in
// a delta segment. The final order broke such ties by document position,
// which a delta puts last: an incremental sync and a rebuild of the same
// sources answered with different ids.
func TestExactTiesFollowIDsAfterDelta(t *testing.T) {
	text := "The backup of the billing database runs nightly at 03:00 from the cron host."
	line := func(id string) string {
		return `{"id":"` + id + `","text":"` + text + `","date":"2026-07-01"}` + "\n"
	}
	src := t.TempDir()
	novatest.Must(t, os.WriteFile(filepath.Join(src, "b.jsonl"), []byte(line("zeta")), 0o600))
	home := t.TempDir()
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: home}
	cfg.Sources = []config.Source{{Name: "mem", Kind: config.KindJSONL, Path: src}}
	sync := func(full bool) []string {
		t.Helper()
		ix := index.New(cfg, index.Options{NoRemote: true, Full: full, Now: func() time.Time { return now }})
		if _, err := ix.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
		_, g, err := index.OpenActive(context.Background(), cfg.Home, lexical.NewAnalyzer())
		if err != nil {
			t.Fatal(err)
		}
		snap := &search.Snapshot{Gen: g, Query: g.Model}
		resp, err := engine().Search(context.Background(), snap, api.SearchRequest{Query: "billing database backup cron", TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range resp.Results {
			ids = append(ids, r.ID)
		}
		return ids
	}
	sync(false)
	novatest.Must(t, os.WriteFile(filepath.Join(src, "a.jsonl"), []byte(line("alpha")), 0o600))
	delta := sync(false)
	whole := sync(true)
	if len(whole) == 0 || len(delta) == 0 || whole[0] != delta[0] {
		t.Errorf("delta answered %q, a rebuild %q", delta, whole)
	}
}
