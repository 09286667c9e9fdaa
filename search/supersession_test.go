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
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/search"
)

// liveHome is a home whose sources are files a test writes and rewrites
// between syncs, as a user's exports change.
type liveHome struct{ cfg config.Config }

func newLiveHome(t *testing.T, sources ...config.Source) *liveHome {
	t.Helper()
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: t.TempDir()}
	cfg.Sources = sources
	return &liveHome{cfg: cfg}
}

// sync brings the index up to date with the files (a full build the first
// time, an incremental one after) and opens the active generation.
func (h *liveHome) sync(t *testing.T) *search.Snapshot {
	t.Helper()
	ix := index.New(h.cfg, index.Options{NoRemote: true, Now: func() time.Time { return now }})
	if _, err := ix.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, g, err := index.OpenActive(h.cfg.Home, lexical.NewAnalyzer())
	if err != nil {
		t.Fatal(err)
	}
	return &search.Snapshot{Gen: g, Query: g.Model}
}

// writeFile writes a source file (0600, in a 0700 directory).
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// versionFlags maps each result's source id to "current" or "by <id>".
func versionFlags(resp *api.SearchResponse) map[string]string {
	out := map[string]string{}
	for _, r := range resp.Results {
		out[r.SourceID] = "current"
		if r.Superseded {
			out[r.SourceID] = "by " + r.SupersededBy
		}
	}
	return out
}

func wantFlags(t *testing.T, got, want map[string]string) {
	t.Helper()
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %q, want %q (all: %v)", id, got[id], w, got)
		}
	}
}

// TestSupersession_subjectSpelling: exports write one subject with
// different capitals, spacing or Unicode form (a title retyped, "é" as
// one character or as e and a combining accent); they are one subject.
// Before, each spelling was a chain of its own and the older versions
// were returned as current.
func TestSupersession_subjectSpelling(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "state.jsonl"),
		`{"id":"db-1","subject":"Primary Database","date":"2026-05-01","project":"infra","text":"The primary database runs on host alpha."}
{"id":"db-2","subject":"  primary   database ","date":"2026-06-01","project":"infra","text":"The primary database runs on host beta."}
{"id":"db-3","subject":"PRIMARY DATABASE","date":"2026-07-01","project":"infra","text":"The primary database runs on host gamma."}
{"id":"cafe-1","subject":"caf\u00e9 wifi","date":"2026-05-01","project":"infra","text":"The cafe wifi password rotates monthly."}
{"id":"cafe-2","subject":"cafe\u0301 Wifi","date":"2026-06-01","project":"infra","text":"The cafe wifi is open now, no password."}
{"id":"cafe-3","subject":"cafe wifi","date":"2026-07-01","project":"infra","text":"The cafe wifi guest network was retired."}
`)
	snap := newLiveHome(t, config.Source{Name: "state", Kind: config.KindJSONL, Path: dir}).sync(t)
	e := engineWith()
	wantFlags(t, versionFlags(ask(t, e, snap, api.SearchRequest{Query: "primary database host", TopK: 10})),
		map[string]string{"db-1": "by state:db-3", "db-2": "by state:db-3", "db-3": "current"})
	// Without the accent it is another word: another subject.
	wantFlags(t, versionFlags(ask(t, e, snap, api.SearchRequest{Query: "cafe wifi password network", TopK: 10})),
		map[string]string{"cafe-1": "by state:cafe-2", "cafe-2": "current", "cafe-3": "current"})
}
