package index_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSync_recordIDLikeAPiece: a record whose own id is "x#2" and the
// second piece of a long record "x" were both chunk "notes:x#2", so one
// shadowed the other (found by id, cited, deduplicated). Each keeps its
// own chunk, and both are found.
func TestSync_recordIDLikeAPiece(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "exports")
	long := strings.Repeat("The ledger export runs at midnight from the first replica and retries twice. ", 12)
	writeFile(t, filepath.Join(src, "a.jsonl"), jsonlLines(t,
		rec{ID: "x", Text: long},
		rec{ID: "x#2", Text: "The webhook signing key rotates every ninety days."},
		rec{ID: "y#", Text: "The canary deploy waits for the readiness probe."},
		rec{ID: "y", Text: strings.Repeat("Quarterly planning moved the search team to the storage floor. ", 12)}))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	cfg.Index.ChunkMaxChars, cfg.Index.ChunkOverlapChars = 400, 40
	res := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now, NoCompact: true}))
	if res.Build.DuplicateIDs != 0 {
		t.Errorf("%d duplicate ids reported; the records' ids differ", res.Build.DuplicateIDs)
	}
	_, g := active(t, cfg.Home)
	chunks := chunkByID(t, g) // fails on a chunk id given twice
	bySource := map[string]int{}
	for _, c := range chunks {
		bySource[c.SourceID]++
	}
	if bySource["x"] < 2 || bySource["y"] < 2 || bySource["x#2"] != 1 || bySource["y#"] != 1 {
		t.Errorf("chunks per record %v; want x and y in pieces, x#2 and y# whole", bySource)
	}
	for q, want := range map[string]string{"webhook signing key rotates": "x#2", "canary deploy readiness probe": "y#"} {
		if ids := searchIDs(t, cfg.Home, q); len(ids) == 0 || ids[0] != want {
			t.Errorf("search %q: %v, want %s first", q, ids, want)
		}
	}
}
