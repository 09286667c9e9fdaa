package memory_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/search"
)

// now is the tests' clock: builds and searches are deterministic.
var now = time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)

// buildJSONL indexes records (JSONL objects) as one jsonl source in a
// temporary home, through a real build, and returns the active snapshot.
func buildJSONL(t *testing.T, records ...map[string]any) *search.Snapshot {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for _, r := range records {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "records.jsonl"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: t.TempDir()}
	cfg.Sources = []config.Source{{Name: "mem", Kind: config.KindJSONL, Path: dir}}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("test config: %v", err)
	}
	ix := index.New(cfg, index.Options{NoRemote: true, Now: func() time.Time { return now }})
	if _, err := ix.Sync(context.Background()); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	_, g, err := index.OpenActive(context.Background(), cfg.Home, lexical.NewAnalyzer())
	if err != nil {
		t.Fatal(err)
	}
	return &search.Snapshot{Gen: g, Query: g.Model}
}

// searchIDs runs a search and returns the ids of its results.
func searchIDs(t *testing.T, snap *search.Snapshot, query string, f api.Filters) []string {
	t.Helper()
	e := search.New(search.Config{HalfLifeDays: 7, Dense: true, Location: time.UTC, Now: func() time.Time { return now }}, lexical.NewAnalyzer())
	resp, err := e.Search(context.Background(), snap, api.SearchRequest{Query: query, TopK: 10, Filters: f, IncludeFullText: true, IncludeGovernance: true})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range resp.Results {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	return ids
}

// TestBuild_negatedIncidentIsNoIncident: a memory that says a deploy went
// well ("no errors", "没有报错") is not found by a search for incidents;
// one that says it failed is.
func TestBuild_negatedIncidentIsNoIncident(t *testing.T) {
	snap := buildJSONL(t,
		map[string]any{"id": "clean", "text": "Deployed the billing service to staging. No errors.", "date": "2026-02-10"},
		map[string]any{"id": "clean-zh", "text": "账单服务已部署到预发环境，没有报错。", "date": "2026-02-10"},
		map[string]any{"id": "broken", "text": "Deployed the billing service to staging and the deploy failed.", "date": "2026-02-11"},
	)
	got := searchIDs(t, snap, "billing service staging 部署", api.Filters{WorkTypes: []string{"incident"}})
	if want := []string{"mem:broken"}; !slices.Equal(got, want) {
		t.Errorf("incidents found %q, want %q", got, want)
	}
}

// TestBuild_codeIdentifiersAreNoIncident: a note of Go code that returns
// an error is coding, not an incident; a pasted panic is an incident.
func TestBuild_codeIdentifiersAreNoIncident(t *testing.T) {
	snap := buildJSONL(t,
		map[string]any{"id": "parser", "text": "The config parser:\n```go\nfunc ParsePort(s string) (int, error) {\n\treturn strconv.Atoi(s)\n}\n```\nCompare with `errors.Is`.", "date": "2026-02-10"},
		map[string]any{"id": "crash", "text": "The port parser crashed in production:\n```\npanic: runtime error: index out of range [3] with length 3\n```", "date": "2026-02-11"},
	)
	if got, want := searchIDs(t, snap, "port parser", api.Filters{WorkTypes: []string{"incident"}}), []string{"mem:crash"}; !slices.Equal(got, want) {
		t.Errorf("incidents found %q, want %q", got, want)
	}
	if got, want := searchIDs(t, snap, "port parser", api.Filters{Tags: []string{"coding"}}), []string{"mem:crash", "mem:parser"}; !slices.Equal(got, want) {
		t.Errorf("coding memories found %q, want %q", got, want)
	}
}

// TestBuild_sourceSetSpelling: a record whose sourceSet is written
// "Lessons" is trusted as a lesson: found by the canonical lifecycle
// filter, with the lessons' authority.
func TestBuild_sourceSetSpelling(t *testing.T) {
	snap := buildJSONL(t,
		map[string]any{"id": "l1", "text": "Never run the schema migration and the backfill in one deploy.", "date": "2026-02-10", "sourceSet": "Lessons"},
		map[string]any{"id": "l2", "text": "Split the schema migration from the backfill deploy.", "date": "2026-02-11", "sourceSet": "lessons", "lifecycle": "Canonical"},
	)
	if got, want := searchIDs(t, snap, "schema migration backfill", api.Filters{Lifecycles: []string{"canonical"}}), []string{"mem:l1", "mem:l2"}; !slices.Equal(got, want) {
		t.Errorf("canonical memories found %q, want %q", got, want)
	}
	if got, want := searchIDs(t, snap, "schema migration backfill", api.Filters{SourceSets: []string{"lessons"}}), []string{"mem:l1", "mem:l2"}; !slices.Equal(got, want) {
		t.Errorf("lessons found %q, want %q", got, want)
	}
	for doc := range snap.Gen.Len() {
		c := snap.Gen.Chunk(doc)
		if g := c.Governance; g.SourceSet != "lessons" || g.AuthorityRank != 95 || len(g.Warnings) != 0 {
			t.Errorf("%s: governance %+v, want the lessons policy", c.ID, g)
		}
		if c.SourceSet != "lessons" {
			t.Errorf("%s: source set %q, want lessons", c.ID, c.SourceSet)
		}
	}
}

// TestBuild_storedTagCapitals: a record tagged "Incident" by its writer is
// an incident for the work-type and tags filters.
func TestBuild_storedTagCapitals(t *testing.T) {
	snap := buildJSONL(t,
		map[string]any{"id": "pager", "text": "The pager went off at night for the billing queue.", "date": "2026-02-10", "tags": []string{"Incident"}},
		map[string]any{"id": "quiet", "text": "The billing queue drained overnight.", "date": "2026-02-10"},
	)
	for _, f := range []api.Filters{{WorkTypes: []string{"incident"}}, {Tags: []string{"incident"}}} {
		if got, want := searchIDs(t, snap, "billing queue", f), []string{"mem:pager"}; !slices.Equal(got, want) {
			t.Errorf("filter %+v found %q, want %q", f, got, want)
		}
	}
}

// TestBuild_cjkFalseFriends: a note about the taskbar (任务栏) is not a
// task, one about a task (任务) is.
func TestBuild_cjkFalseFriends(t *testing.T) {
	snap := buildJSONL(t,
		map[string]any{"id": "bar", "text": "升级后任务栏图标消失了", "date": "2026-02-10"},
		map[string]any{"id": "todo", "text": "升级后的任务还没完成", "date": "2026-02-10"},
	)
	if got, want := searchIDs(t, snap, "升级", api.Filters{WorkTypes: []string{"task"}}), []string{"mem:todo"}; !slices.Equal(got, want) {
		t.Errorf("tasks found %q, want %q", got, want)
	}
}

// TestBuild_errorDesignIsNoIncident: a plan to improve error messages is
// not found by a search for incidents; an error rate that spiked is.
func TestBuild_errorDesignIsNoIncident(t *testing.T) {
	snap := buildJSONL(t,
		map[string]any{"id": "plan", "text": "Improve the error messages of the importer before the release.", "date": "2026-02-10"},
		map[string]any{"id": "spike", "text": "The importer error rate spiked before the release.", "date": "2026-02-11"},
	)
	if got, want := searchIDs(t, snap, "importer release", api.Filters{WorkTypes: []string{"incident"}}), []string{"mem:spike"}; !slices.Equal(got, want) {
		t.Errorf("incidents found %q, want %q", got, want)
	}
}
