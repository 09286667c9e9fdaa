package search_test

import (
	"context"
	"os"
	"path/filepath"
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
	_, g, err := index.OpenActive(context.Background(), h.cfg.Home, lexical.NewAnalyzer())
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
// one character, as e and a combining accent, or as e); they are one
// subject.
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
	// Without the accent it is the same word, as a person types it
	// (lexical.Normalize folds Latin letters to ASCII): the same subject.
	wantFlags(t, versionFlags(ask(t, e, snap, api.SearchRequest{Query: "cafe wifi password network", TopK: 10})),
		map[string]string{"cafe-1": "by state:cafe-3", "cafe-2": "by state:cafe-3", "cafe-3": "current"})
}

// TestSupersession_taskBoardTitledWithItsDate: a board snapshot is
// often titled with its day ("# Task board 2026-06-01"); the next
// snapshot's card is still the same card. Before, the title's date made
// every heading path of every snapshot a subject of its own, and the
// June card was returned as current beside the July one.
func TestSupersession_taskBoardTitledWithItsDate(t *testing.T) {
	dir := t.TempDir()
	board := func(day, status, logDay string) string {
		return "---\nproject: nova\n---\n# Task board " + day + "\n\n## NOVA-31 search latency\n\nStatus: " + status + "\n\n## " + logDay + "\n\nDaily note of that day about the search latency work.\n"
	}
	writeFile(t, filepath.Join(dir, "board-2026-06-01.md"), board("2026-06-01", "blocked, waiting for the benchmark harness; search latency far over budget.", "2026-05-30"))
	writeFile(t, filepath.Join(dir, "board-2026-07-01.md"), board("2026-07-01", "done, shipped in v0.4.", "2026-06-30"))
	snap := newLiveHome(t, config.Source{Name: "board", Kind: config.KindMarkdown, Path: dir, SourceSet: "task-board-snapshot"}).sync(t)
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "NOVA-31 search latency blocked benchmark harness", TopK: 10})
	june, july := "board-2026-06-01.md#task-board-2026-06-01-nova-31-search-latency", "board-2026-07-01.md#task-board-2026-07-01-nova-31-search-latency"
	wantFlags(t, versionFlags(resp), map[string]string{june: "by board:" + july, july: "current"})
	if len(resp.Results) == 0 || resp.Results[0].SourceID != july {
		t.Errorf("results %v, want the July card first", ids(resp))
	}
	// The dates of the headings below tell sections apart: a heading
	// that is only a date names a day, and the June board's day and the
	// July board's are different sections.
	for _, r := range resp.Results {
		if (strings.HasSuffix(r.SourceID, "-2026-05-30") || strings.HasSuffix(r.SourceID, "-2026-06-30")) && r.Superseded {
			t.Errorf("%s (a day's section) is superseded by %s", r.SourceID, r.SupersededBy)
		}
	}
}

// TestSupersession_taskBoardRepeatedHeading: a heading path that repeats
// within one snapshot (two "## Blocked" lanes) names two sections of the
// same state; one does not supersede the other. Each pairs with its
// counterpart of the next snapshot. Lanes told apart by their dates
// stay apart.
func TestSupersession_taskBoardRepeatedHeading(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "board-2026-06-01.md"), "# Board\n\n## Blocked\n\nNOVA-7 zebra crossing waits for legal.\n\n## Blocked\n\nNOVA-8 zebra stripes wait for paint.\n"+
		"\n## Shipped 2026-05-01\n\nNOVA-5 zebra signs, after a wait.\n\n## Shipped 2026-05-08\n\nNOVA-6 zebra lights, after a wait.\n")
	snap := newLiveHome(t, config.Source{Name: "board", Kind: config.KindMarkdown, Path: dir, SourceSet: "task-board-snapshot"}).sync(t)
	wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "zebra wait", TopK: 10})),
		map[string]string{"board-2026-06-01.md#board-blocked": "current", "board-2026-06-01.md#board-blocked~2": "current",
			"board-2026-06-01.md#board-shipped-2026-05-01": "current", "board-2026-06-01.md#board-shipped-2026-05-08": "current"})
}

// TestSupersession_tieAcrossFiles: two versions of a subject in two files
// with the same time: the one of the later path is the newest (an export
// named by its day names the later state later), in a full build and
// after an incremental sync re-read the other file alike. Before, the tie
// went to the version read last, and re-reading a.jsonl made its version
// the newest until the next full build.
func TestSupersession_tieAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	writeFile(t, a, `{"id":"gw-a","subject":"gateway","date":"2026-06-01","project":"infra","text":"The walrus gateway listens on port 8080."}`+"\n")
	writeFile(t, b, `{"id":"gw-b","subject":"gateway","date":"2026-06-01","project":"infra","text":"The walrus gateway listens on port 9090."}`+"\n")
	h := newLiveHome(t, config.Source{Name: "state", Kind: config.KindJSONL, Path: dir})
	want := map[string]string{"gw-a": "by state:gw-b", "gw-b": "current"}
	req := api.SearchRequest{Query: "walrus gateway port", TopK: 10}
	wantFlags(t, versionFlags(ask(t, engineWith(), h.sync(t), req)), want)
	writeFile(t, a, `{"id":"gw-a","subject":"gateway","date":"2026-06-01","project":"infra","text":"The walrus gateway listens on port 8080."}`+"\n"+
		`{"id":"other","date":"2026-05-01","project":"infra","text":"Unrelated note about lunch."}`+"\n")
	wantFlags(t, versionFlags(ask(t, engineWith(), h.sync(t), req)), want)
}

// TestSupersession_taskBoardHeadingSpelling: the next board retypes a
// card's heading (other capitals, a doubled space, "é" composed one way
// or the other); it is still the same card, as a record's subject
// retyped is the same subject. Before, a task board's heading path was
// its subject as written, and the June card was returned as current
// beside the July one, and quoted first by the evidence summary.
func TestSupersession_taskBoardHeadingSpelling(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "board-2026-06-01.md"), "---\ndate: 2026-06-01\n---\n# Board\n\n## NOVA-31 Search  Latency\n\nStatus: blocked on the zebra harness.\n\n## Caf\u00e9 Wifi\n\nStatus: zebra router ordered.\n")
	writeFile(t, filepath.Join(dir, "board-2026-07-01.md"), "---\ndate: 2026-07-01\n---\n# board\n\n## NOVA-31 search latency\n\nStatus: done, the zebra harness shipped.\n\n## cafe\u0301 wifi\n\nStatus: zebra router installed.\n")
	snap := newLiveHome(t, config.Source{Name: "board", Kind: config.KindMarkdown, Path: dir, SourceSet: "task-board-snapshot"}).sync(t)
	june, july := "board-2026-06-01.md#board-nova-31-search-latency", "board-2026-07-01.md#board-nova-31-search-latency"
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "NOVA-31 zebra harness blocked", TopK: 10})
	wantFlags(t, versionFlags(resp), map[string]string{june: "by board:" + july, july: "current"})
	if len(resp.Results) == 0 || resp.Results[0].SourceID != july {
		t.Errorf("results %v, want the July card first", ids(resp))
	}
	for _, c := range resp.CitationPack {
		if c.ResultID != "board:"+june && c.ResultID != "board:"+july {
			continue
		}
		if want := c.ResultID == "board:"+june; c.Superseded != want || (want && c.SupersededBy != "board:"+july) {
			t.Errorf("citation of %s: superseded %v by %q", c.ResultID, c.Superseded, c.SupersededBy)
		}
	}
	if s := resp.AnswerSynthesis.Summary; !strings.Contains(s, "2026-07-01") {
		t.Errorf("summary %q, want the July card's", s)
	}
	// A heading's id is made of its text in one Unicode form: "é" as
	// e and a combining accent was "cafe", composed "café", so one card
	// had two ids by how the board was saved.
	flags := versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "cafe wifi zebra router", TopK: 10}))
	wantFlags(t, flags, map[string]string{"board-2026-06-01.md#board-caf\u00e9-wifi": "by board:board-2026-07-01.md#board-caf\u00e9-wifi", "board-2026-07-01.md#board-caf\u00e9-wifi": "current"})
}

// TestSupersession_projectInEitherUnicodeForm: one project written in
// its decomposed form (a macOS folder's name, e and a combining accent)
// by one export and composed by another is one project, as the project
// filter reads it: the newer version supersedes the older across the
// two forms. Before, each form held a chain of its own, and the filter
// returned both versions as current.
func TestSupersession_projectInEitherUnicodeForm(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.jsonl"), `{"id":"gw-1","subject":"gateway","date":"2026-05-01","project":"cafe\u0301","text":"The walrus gateway listens on port 8080."}`+"\n")
	writeFile(t, filepath.Join(dir, "b.jsonl"), `{"id":"gw-2","subject":"gateway","date":"2026-06-01","project":"caf\u00e9","text":"The walrus gateway listens on port 9090."}`+"\n")
	snap := newLiveHome(t, config.Source{Name: "state", Kind: config.KindJSONL, Path: dir}).sync(t)
	for _, project := range []string{"", "caf\u00e9", "cafe\u0301"} {
		resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "walrus gateway port", TopK: 10, Filters: api.Filters{Project: project}})
		wantFlags(t, versionFlags(resp), map[string]string{"gw-1": "by state:gw-2", "gw-2": "current"})
	}
}

// TestSupersession_taskBoardCardMovesLane: the commonest board change is
// a card moving lane ("## In progress" > "### NOVA-40" on one snapshot,
// "## Done" > "### NOVA-40" on the next); it is the same card in a newer
// state. A title two lanes of one snapshot both hold ("Docs" in progress
// and done) names two cards: each stays in its lane's chain. Before, the
// lane was part of the card's key, and the June card in progress was
// returned as current beside the July one that is done.
func TestSupersession_taskBoardCardMovesLane(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "board-2026-06-01.md"), "---\ndate: 2026-06-01\n---\n# Board\n\n"+
		"## 🚧 In progress (2)\n\n### NOVA-40 quokka importer\n\nParsing the quokka export, half done.\n\n### Docs\n\nQuokka guide draft, chapter one.\n\n"+
		"## Done\n\n### Docs\n\nQuokka release notes published.\n")
	writeFile(t, filepath.Join(dir, "board-2026-07-01.md"), "---\ndate: 2026-07-01\n---\n# Board\n\n"+
		"## In progress\n\n### Docs\n\nQuokka guide draft, chapter two.\n\n"+
		"## Done ✅\n\n### NOVA-40 quokka importer\n\nShipped the quokka export importer.\n\n### Docs\n\nQuokka release notes updated.\n")
	snap := newLiveHome(t, config.Source{Name: "board", Kind: config.KindMarkdown, Path: dir, SourceSet: "task-board-snapshot"}).sync(t)
	june, july := "board-2026-06-01.md#board-in-progress-2-nova-40-quokka-importer", "board-2026-07-01.md#board-done-nova-40-quokka-importer"
	resp := ask(t, engineWith(), snap, api.SearchRequest{Query: "NOVA-40 quokka importer export", TopK: 10})
	wantFlags(t, versionFlags(resp), map[string]string{june: "by board:" + july, july: "current"})
	if len(resp.Results) == 0 || resp.Results[0].SourceID != july {
		t.Errorf("results %v, want the July card first", ids(resp))
	}
	wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "quokka guide draft release notes", TopK: 10})), map[string]string{
		"board-2026-06-01.md#board-in-progress-2-docs": "by board:board-2026-07-01.md#board-in-progress-docs",
		"board-2026-06-01.md#board-done-docs":          "by board:board-2026-07-01.md#board-done-docs",
		"board-2026-07-01.md#board-in-progress-docs":   "current",
		"board-2026-07-01.md#board-done-docs":          "current",
	})
}

// TestSupersession_taskBoardSectionDropped: a section an older snapshot
// of a board holds and its newest snapshot no longer does (a card taken
// off the board, the second of two "## Blocked" lanes when one is left)
// is no longer the board's state: the newest snapshot supersedes it.
// A board edited in place in one file, beside copies of it named by
// their day, is one board. Another board of the same folder, a board's
// newest snapshot and a section a heading dates are current. Before,
// such a section had nothing newer in its chain and was returned as
// current forever.
func TestSupersession_taskBoardSectionDropped(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "board-2026-06-01.md"), "---\ndate: 2026-06-01\n---\n# Board\n\n## Blocked\n\nNOVA-7 wombat crossing waits for legal.\n\n"+
		"## Blocked\n\nNOVA-8 wombat stripes wait for paint.\n\n## NOVA-9 wombat signs\n\nWombat signs ordered, waiting.\n\n"+
		"## Shipped 2026-05-20\n\nNOVA-6 wombat lights, after a wait.\n\n## 2026-05-30\n\nDaily note: wombat paint wait.\n")
	writeFile(t, filepath.Join(dir, "board-2026-07-01.md"), "---\ndate: 2026-07-01\n---\n# Board\n\n## Blocked\n\nNOVA-8 wombat stripes still wait for paint.\n")
	writeFile(t, filepath.Join(dir, "ops-2026-05-01.md"), "---\ndate: 2026-05-01\n---\n# Board\n\n## Wombat fence\n\nThe wombat fence waits for a permit.\n")
	// A board kept in one file edited in place, beside a copy of it
	// named by its day: one board.
	writeFile(t, filepath.Join(dir, "TASK_BOARD.md"), "# Ops\n\n## Wombat gate\n\nThe wombat gate opened.\n")
	writeFile(t, filepath.Join(dir, "TASK_BOARD 2026-05-01.md"), "# Ops\n\n## Wombat gate\n\nThe wombat gate waits.\n\n## Wombat tunnel\n\nThe wombat tunnel waits for a drill.\n")
	snap := newLiveHome(t, config.Source{Name: "board", Kind: config.KindMarkdown, Path: dir, SourceSet: "task-board-snapshot"}).sync(t)
	july := "board:board-2026-07-01.md#board-blocked"
	wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "wombat wait", TopK: 10})), map[string]string{
		"board-2026-06-01.md#board-blocked":             "by " + july,
		"board-2026-06-01.md#board-blocked~2":           "by " + july,
		"board-2026-06-01.md#board-nova-9-wombat-signs": "by " + july,
		"board-2026-07-01.md#board-blocked":             "current",
		// A section a heading dates (a lane of the day's releases, a
		// log's day) is of its day, not the board's state then.
		"board-2026-06-01.md#board-shipped-2026-05-20": "current",
		"board-2026-06-01.md#board-2026-05-30":         "current",
		"ops-2026-05-01.md#board-wombat-fence":         "current",
		"TASK_BOARD.md#ops-wombat-gate":                "current",
		"TASK_BOARD 2026-05-01.md#ops-wombat-gate":     "by board:TASK_BOARD.md#ops-wombat-gate",
		"TASK_BOARD 2026-05-01.md#ops-wombat-tunnel":   "by board:TASK_BOARD.md#ops-wombat-gate",
	})
}

// TestSupersession_taskBoardCardDroppedLater: a card two snapshots hold
// and the newest one no longer does: both older versions are superseded
// by the newest snapshot, the board's state, not the first by the second
// (itself superseded), as a result's supersededBy names the newest
// version.
func TestSupersession_taskBoardCardDroppedLater(t *testing.T) {
	dir := t.TempDir()
	board := func(day, body string) string { return "---\ndate: " + day + "\n---\n# Board\n\n" + body }
	writeFile(t, filepath.Join(dir, "board-2026-06-01.md"), board("2026-06-01", "## NOVA-50 numbat survey\n\nNumbat survey planned.\n\n## NOVA-51 numbat map\n\nNumbat map drafted.\n"))
	writeFile(t, filepath.Join(dir, "board-2026-07-01.md"), board("2026-07-01", "## NOVA-50 numbat survey\n\nNumbat survey under way.\n\n## NOVA-51 numbat map\n\nNumbat map printed.\n"))
	writeFile(t, filepath.Join(dir, "board-2026-08-01.md"), board("2026-08-01", "## NOVA-51 numbat map\n\nNumbat map framed.\n"))
	snap := newLiveHome(t, config.Source{Name: "board", Kind: config.KindMarkdown, Path: dir, SourceSet: "task-board-snapshot"}).sync(t)
	aug := "by board:board-2026-08-01.md#board-nova-51-numbat-map"
	wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "numbat survey map", TopK: 10})), map[string]string{
		"board-2026-06-01.md#board-nova-50-numbat-survey": aug,
		"board-2026-07-01.md#board-nova-50-numbat-survey": aug,
		"board-2026-06-01.md#board-nova-51-numbat-map":    aug,
		"board-2026-07-01.md#board-nova-51-numbat-map":    aug,
		"board-2026-08-01.md#board-nova-51-numbat-map":    "current",
	})
}

// TestSupersession_taskBoardUntitledBoards: two boards of one project
// without a title (frontend.md and backend.md, each with "## Todo") are
// two boards: one's lane never supersedes the other's. The snapshots of
// one untitled board (its copies named by their day, or only by a day
// or a month, in one folder) still chain. Before, an untitled board's
// lane was keyed by its heading alone, and the backend's current Todo
// was flagged superseded by the frontend's.
func TestSupersession_taskBoardUntitledBoards(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "frontend.md"), "---\ndate: 2026-07-01\n---\n## Todo\n\nQuoll login page polish.\n")
	writeFile(t, filepath.Join(dir, "backend.md"), "---\ndate: 2026-06-01\n---\n## Todo\n\nQuoll login endpoint rate limit.\n")
	writeFile(t, filepath.Join(dir, "ops-2026-06-01.md"), "---\ndate: 2026-06-01\n---\n## Todo\n\nQuoll login alerts, draft.\n")
	writeFile(t, filepath.Join(dir, "ops-2026-07-01.md"), "---\ndate: 2026-07-01\n---\n## Todo\n\nQuoll login alerts, final.\n")
	// Snapshots named only by their day or month, in a folder of their own.
	writeFile(t, filepath.Join(dir, "sprints", "2026-05.md"), "---\ndate: 2026-05-01\n---\n## Doing\n\nQuoll login sprint, May.\n")
	writeFile(t, filepath.Join(dir, "sprints", "june.md"), "---\ndate: 2026-06-01\n---\n## Doing\n\nQuoll login sprint, June.\n")
	writeFile(t, filepath.Join(dir, "sprints", "2026-07-01.md"), "---\ndate: 2026-07-01\n---\n## Doing\n\nQuoll login sprint, July.\n")
	// Pages named by a number alone are not a board's snapshots.
	writeFile(t, filepath.Join(dir, "pages", "1.md"), "---\ndate: 2026-06-01\n---\n## Todo\n\nQuoll login page one.\n")
	writeFile(t, filepath.Join(dir, "pages", "2.md"), "---\ndate: 2026-07-01\n---\n## Todo\n\nQuoll login page two.\n")
	// A titled board keeps chaining across file names.
	writeFile(t, filepath.Join(dir, "team-a.md"), "---\ndate: 2026-06-01\n---\n# Quoll board\n\n## Review\n\nQuoll login review, old.\n")
	writeFile(t, filepath.Join(dir, "team-b.md"), "---\ndate: 2026-07-01\n---\n# Quoll board\n\n## Review\n\nQuoll login review, new.\n")
	snap := newLiveHome(t, config.Source{Name: "board", Kind: config.KindMarkdown, Path: dir, SourceSet: "task-board-snapshot"}).sync(t)
	wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "quoll login", TopK: 20})), map[string]string{
		"frontend.md#todo":             "current",
		"backend.md#todo":              "current",
		"ops-2026-06-01.md#todo":       "by board:ops-2026-07-01.md#todo",
		"ops-2026-07-01.md#todo":       "current",
		"sprints/2026-05.md#doing":     "by board:sprints/2026-07-01.md#doing",
		"sprints/june.md#doing":        "by board:sprints/2026-07-01.md#doing",
		"sprints/2026-07-01.md#doing":  "current",
		"team-a.md#quoll-board-review": "by board:team-b.md#quoll-board-review",
		"team-b.md#quoll-board-review": "current",
		"pages/1.md#todo":              "current",
		"pages/2.md#todo":              "current",
	})
}

// TestSupersession_taskBoardDroppedRepeat: a section of an older
// snapshot the newest no longer holds, whose card the newest still holds
// at another place (the second of two "## Blocked" lanes when one is
// left, below another lane), is superseded by that card, not by the
// board's first section.
func TestSupersession_taskBoardDroppedRepeat(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "board-2026-06-01.md"), "---\ndate: 2026-06-01\n---\n# Board\n\n## Blocked\n\nNOVA-7 dingo crossing waits for legal.\n\n## Blocked\n\nNOVA-8 dingo stripes wait for paint.\n")
	writeFile(t, filepath.Join(dir, "board-2026-07-01.md"), "---\ndate: 2026-07-01\n---\n# Board\n\n## NOVA-9 dingo signs\n\nDingo signs ordered.\n\n## Blocked\n\nNOVA-8 dingo stripes still wait for paint.\n")
	snap := newLiveHome(t, config.Source{Name: "board", Kind: config.KindMarkdown, Path: dir, SourceSet: "task-board-snapshot"}).sync(t)
	july := "by board:board-2026-07-01.md#board-blocked"
	wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "dingo wait paint", TopK: 10})), map[string]string{
		"board-2026-06-01.md#board-blocked":   july,
		"board-2026-06-01.md#board-blocked~2": july,
		"board-2026-07-01.md#board-blocked":   "current",
	})
}

// TestSupersession_taskBoardArchiveFolder: dated snapshots moved to an
// archive folder beside the board (archive/board-2026-01-01.md beside
// board.md) are snapshots of that board; two boards of one name in two
// folders (frontend/board.md, backend/board.md) stay two boards.
func TestSupersession_taskBoardArchiveFolder(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "frontend", "board.md"), "---\ndate: 2026-07-01\n---\n## Todo\n\nPlatypus widget styling.\n")
	writeFile(t, filepath.Join(dir, "frontend", "archive", "board-2026-01-01.md"), "---\ndate: 2026-01-01\n---\n## Todo\n\nPlatypus widget draft.\n\n## Tunnel\n\nPlatypus tunnel widget.\n")
	writeFile(t, filepath.Join(dir, "backend", "board.md"), "---\ndate: 2026-06-01\n---\n## Todo\n\nPlatypus widget endpoint.\n")
	writeFile(t, filepath.Join(dir, "backend", "History", "board 2026-02-01.md"), "---\ndate: 2026-02-01\n---\n## Todo\n\nPlatypus widget schema.\n")
	snap := newLiveHome(t, config.Source{Name: "board", Kind: config.KindMarkdown, Path: dir, SourceSet: "task-board-snapshot"}).sync(t)
	wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "platypus widget", TopK: 10})), map[string]string{
		"frontend/board.md#todo":                      "current",
		"frontend/archive/board-2026-01-01.md#todo":   "by board:frontend/board.md#todo",
		"frontend/archive/board-2026-01-01.md#tunnel": "by board:frontend/board.md#todo",
		"backend/board.md#todo":                       "current",
		"backend/History/board 2026-02-01.md#todo":    "by board:backend/board.md#todo",
	})
}
