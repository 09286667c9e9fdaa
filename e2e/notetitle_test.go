package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/internal/novatest"
)

// noteHits searches the facade and returns its results' source ids and
// titles, best first.
func noteHits(t *testing.T, d *novatest.Daemon, query string) []api.Result {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": query, "topK": 5})
	novatest.Must(t, err)
	r := search(t, d.Facade, string(body))
	if r.status != 200 {
		t.Fatalf("search %q: %d %s", query, r.status, r.body)
	}
	var resp api.SearchResponse
	novatest.Must(t, json.Unmarshal(r.body, &resp))
	if len(resp.Results) == 0 {
		t.Fatalf("search %q found nothing", query)
	}
	return resp.Results
}

// writeNotes writes notes (file name -> text) into the home's memory.
func writeNotes(t *testing.T, h *novatest.Home, notes map[string]string) {
	t.Helper()
	for name, text := range notes {
		novatest.Must(t, os.WriteFile(filepath.Join(h.Data, name), []byte(text), 0o600))
	}
}

// TestSearch_sectionCarriesNoteName: a note without a top heading, as
// Obsidian keeps them (the file name is the title), gives sections that
// name their note: "phoenix risks" finds the Risks section of "Project
// Phoenix", titled so, above the note's introduction and above another
// note's Risks; a note whose H1 is its name does not repeat it.
func TestSearch_sectionCarriesNoteName(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	writeNotes(t, h, map[string]string{
		"Project Phoenix.md": "Phoenix rebuilds the billing export on the new queue; Dana leads it and ships in March.\n\n" +
			"## Risks\n\nThe vendor's API may change before launch, and the team is two people short.\n\n" +
			"## Timeline\n\nDesign in January, build in February, launch in March.\n",
		"Project Atlas.md": "Atlas moves the search cluster to the new region.\n\n" +
			"## Risks\n\nCross-region latency may break the nightly reindex.\n",
		"Harbor.md": "# Harbor\n\nHarbor is the container registry mirror.\n\n## Risks\n\nDisk on the mirror host fills up within a week.\n",
	})
	h.Sync()
	d := h.Start()
	defer d.Stop()

	got := noteHits(t, d, "phoenix risks")
	if got[0].SourceID != "Project Phoenix.md#risks" || got[0].Title != "Project Phoenix > Risks" {
		t.Errorf(`"phoenix risks": first %q titled %q, want Project Phoenix.md#risks titled "Project Phoenix > Risks"`, got[0].SourceID, got[0].Title)
	}
	got = noteHits(t, d, "harbor mirror disk risks")
	if got[0].SourceID != "Harbor.md#harbor-risks" || got[0].Title != "Harbor > Risks" {
		t.Errorf(`"harbor mirror disk risks": first %q titled %q, want Harbor.md#harbor-risks titled "Harbor > Risks"`, got[0].SourceID, got[0].Title)
	}
}

// TestSearch_obsidianAliases: the aliases front matter gives a note (a
// list, one string, the older alias) are its names too: a query naming
// one finds the note's section, whose title shows it. They were read as
// nothing, and "firebird risks" found another note's Risks.
func TestSearch_obsidianAliases(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	writeNotes(t, h, map[string]string{
		"Project Phoenix.md": "---\naliases:\n  - Firebird\n  - PX\n---\nThe billing export moves to the new queue.\n\n" +
			"## Risks\n\nThe vendor's API may change before launch, and the team is two people short.\n",
		"Project Atlas.md": "---\nalias: Meridian\n---\nThe search cluster moves to the new region.\n\n" +
			"## Risks\n\nCross-region latency may break the nightly reindex.\n",
		"Harbor.md": "---\naliases: Dockyard\n---\n# Harbor\n\nThe container registry mirror.\n\n## Risks\n\nDisk on the mirror host fills up within a week.\n",
	})
	h.Sync()
	d := h.Start()
	for _, tt := range []struct{ query, id, title string }{
		{"firebird risks", "Project Phoenix.md#risks", "Project Phoenix (Firebird, PX) > Risks"},
		{"meridian risks", "Project Atlas.md#risks", "Project Atlas (Meridian) > Risks"},
		{"dockyard risks", "Harbor.md#harbor-risks", "Harbor (Dockyard) > Risks"},
	} {
		if got := noteHits(t, d, tt.query); got[0].SourceID != tt.id || got[0].Title != tt.title {
			t.Errorf("%q: first %q titled %q, want %q titled %q", tt.query, got[0].SourceID, got[0].Title, tt.id, tt.title)
		}
	}
}
