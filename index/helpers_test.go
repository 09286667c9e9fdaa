package index_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/search"
)

// envChild makes the test binary act as a helper process (crash and lock
// tests) instead of running tests; see TestMain.
const envChild = "NOVA_TEST_CHILD"

func TestMain(m *testing.M) {
	if step := os.Getenv(envChild); step != "" {
		os.Exit(runChild(step))
	}
	// The parallel tests are of two kinds: the equivalence seeds keep a
	// core busy, the watcher tests and those that wait for a file to
	// settle mostly sleep. Two at a time (GOMAXPROCS on a 2-core
	// machine), a sleeping one held a core's turn; unless -parallel says
	// otherwise, at least four run at once (a larger machine keeps its
	// default, one per core).
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set && runtime.GOMAXPROCS(0) < 4 {
		_ = flag.Set("test.parallel", "4") // a flag the testing package defines
	}
	os.Exit(m.Run())
}

// clock is a deterministic clock that advances one second per reading,
// so run ids (second resolution) are distinct and ordered.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock(start time.Time) *clock { return &clock{t: start.UTC()} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// epoch is where test clocks start.
var epoch = time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)

// testConfig returns a valid configuration for a runtime home at root.
func testConfig(t testing.TB, root string, sources ...config.Source) config.Config {
	t.Helper()
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: root}
	cfg.Sources = sources
	if err := cfg.Validate(); err != nil {
		t.Fatalf("test config: %v", err)
	}
	return cfg
}

// rec is one line of a jsonl fixture.
type rec struct {
	ID      string   `json:"id"`
	Text    string   `json:"text"`
	Date    string   `json:"date,omitempty"`
	Agent   string   `json:"agent,omitempty"`
	Role    string   `json:"role,omitempty"`
	Project string   `json:"project,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	Session string   `json:"session,omitempty"`
	Title   string   `json:"title,omitempty"`
}

// jsonlLines renders records as jsonl lines.
func jsonlLines(t testing.TB, recs ...rec) string {
	t.Helper()
	var b strings.Builder
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t testing.TB, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
}

// baseRecords is a small realistic set of engineering memories.
func baseRecords() []rec {
	return []rec{
		{ID: "mem-001", Text: "Decided to keep the billing service on Postgres 16; the migration to 17 waits for pgvector 0.8.", Date: "2026-02-10", Agent: "codex", Project: "billing", Tags: []string{"decision", "database"}},
		{ID: "mem-002", Text: "The staging API listens on port 8443 behind the nginx proxy; health checks hit /healthz every 10s.", Date: "2026-02-11", Agent: "claude-code", Project: "billing", Tags: []string{"ops"}},
		{ID: "mem-003", Text: "Invoice totals drifted by a cent because each line was rounded before summing; fixed with ROUND_HALF_EVEN at the end.", Date: "2026-02-12T09:30:00Z", Agent: "codex", Project: "billing", Tags: []string{"bug"}},
		{ID: "mem-004", Text: "Release 2.4.1 shipped on Friday; the rollback plan is to redeploy image sha256:9f3c from the registry.", Date: "2026-02-13", Agent: "claude-code", Project: "web", Tags: []string{"release"}},
		{ID: "mem-005", Text: "The nightly export job runs at 02:15 UTC and writes parquet files to the analytics bucket.", Date: "2026-02-14", Agent: "codex", Project: "analytics"},
		{ID: "mem-006", Text: "Lesson: never run the schema migration and the backfill in the same deploy; split them and gate the backfill behind a flag.", Date: "2026-02-15", Agent: "claude-code", Project: "billing", Tags: []string{"lesson"}},
	}
}

// baseSource makes a fresh home whose one source, "notes", is a JSONL
// file of baseRecords, and returns that file's path and the config.
func baseSource(t testing.TB) (string, config.Config) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	return src, testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
}

// sync runs a Sync and fails the test on error.
func mustSync(t testing.TB, ix *index.Indexer) *index.SyncResult {
	t.Helper()
	r, err := ix.Sync(context.Background())
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if r.Promote == nil {
		t.Fatalf("Sync promoted nothing")
	}
	return r
}

// syncOK syncs and fails the test on an error; nothing need change.
func syncOK(t testing.TB, ix *index.Indexer) *index.SyncResult {
	t.Helper()
	r, err := ix.Sync(context.Background())
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return r
}

// active reads and validates the active manifest and loads its generation.
func active(t testing.TB, home paths.Home) (*manifest.Manifest, *generation.Generation) {
	t.Helper()
	m, g, err := index.OpenActive(context.Background(), home, lexical.NewAnalyzer())
	if err != nil {
		t.Fatalf("open the active generation: %v", err)
	}
	return m, g
}

// chunkByID indexes chunks by id, failing on duplicates.
func chunkByID(t testing.TB, g *generation.Generation) map[string]memory.Chunk {
	t.Helper()
	out := make(map[string]memory.Chunk, g.Count())
	for _, c := range g.All() {
		if _, dup := out[c.ID]; dup {
			t.Fatalf("duplicate chunk id %s", c.ID)
		}
		out[c.ID] = *c
	}
	return out
}

// history returns the events of the home's history.jsonl.
func history(t testing.TB, home paths.Home) []index.Event {
	t.Helper()
	ev, err := index.ReadHistory(home.History())
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// eventSummary renders events as "kind:runId" strings.
func eventSummary(ev []index.Event) []string {
	out := make([]string, len(ev))
	for i, e := range ev {
		out[i] = e.Event + ":" + e.RunID
	}
	return out
}

// hasEvent reports whether ev holds kind for runID.
func hasEvent(ev []index.Event, kind, runID string) bool {
	for _, e := range ev {
		if e.Event == kind && e.RunID == runID {
			return true
		}
	}
	return false
}

// dirNames lists the entries of dir (none when it does not exist).
func dirNames(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func fmtIDs(ids []string) string { return fmt.Sprintf("%q", ids) }

func TestOpenActiveWithNothingPromoted(t *testing.T) {
	_, _, err := index.OpenActive(context.Background(), paths.Home{Root: t.TempDir()}, lexical.NewAnalyzer())
	if !errors.Is(err, manifest.ErrNoManifest) {
		t.Fatalf("OpenActive on an empty home = %v, want manifest.ErrNoManifest", err)
	}
}

// searchIDs runs query through the search engine over home's active
// generation and returns the results' source ids, best first.
func searchIDs(t testing.TB, home paths.Home, query string) []string {
	t.Helper()
	return searchFiltered(t, home, query, api.Filters{})
}

// searchFiltered is searchIDs with the request's filters.
func searchFiltered(t testing.TB, home paths.Home, query string, f api.Filters) []string {
	t.Helper()
	_, g := active(t, home)
	engine := search.New(search.Config{Now: func() time.Time { return epoch }}, lexical.NewAnalyzer())
	r, err := engine.Search(context.Background(), &search.Snapshot{Gen: g, Query: g.Model}, api.SearchRequest{Query: query, TopK: 10, Filters: f})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, x := range r.Results {
		ids = append(ids, x.SourceID)
	}
	return ids
}

// syncedNotes writes files (a path under a Markdown source's folder, and
// its text) and syncs the source into a fresh home, whose paths it
// returns.
func syncedNotes(t *testing.T, files map[string]string) paths.Home {
	t.Helper()
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes")
	for name, text := range files {
		writeFile(t, filepath.Join(notes, name), text)
	}
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindMarkdown, Path: notes})
	mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now}))
	return cfg.Home
}
