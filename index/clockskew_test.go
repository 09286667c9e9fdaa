package index_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSync_shrunkFileWrittenAheadOfTheClockSettles: a line file rewritten
// shorter whose modification time is ahead of this machine's clock (a
// network share whose server clock runs ahead, a folder synced from a
// machine whose clock does) is taken for rewritten once it stays the same
// for a moment, as a file with a time in the past is. Before, it looked
// written "a moment ago" until the clock caught up with its time: every
// sync until then kept the removed records and left out the changed one,
// reporting a file that kept changing while nothing wrote to it.
func TestSync_shrunkFileWrittenAheadOfTheClockSettles(t *testing.T) {
	t.Parallel() // its own home; it mostly waits for files to settle
	dir := t.TempDir()
	p := filepath.Join(dir, "exports", "memory.jsonl")
	ahead := time.Now().Add(time.Hour)
	writeFile(t, p, jsonlLines(t, rec{ID: "a", Text: "The ledger export lists the first account."},
		rec{ID: "b", Text: "The ledger export lists the second account."}, rec{ID: "c", Text: "The ledger export lists the third account."}))
	if err := os.Chtimes(p, ahead, ahead); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "export", Kind: config.KindJSONL, Path: p})
	mustSync(t, index.New(cfg, index.Options{NoRemote: true}))

	writeFile(t, p, jsonlLines(t, rec{ID: "b", Text: "The ledger export lists the second account, corrected."}))
	ahead = ahead.Add(time.Minute)
	if err := os.Chtimes(p, ahead, ahead); err != nil {
		t.Fatal(err)
	}
	r := syncOK(t, index.New(cfg, index.Options{NoRemote: true})).Build
	if r.Unsettled != 0 || r.ProblemCount != 0 || r.Records != 1 {
		t.Errorf("%d unsettled, %d records, problems %v; want the rewrite read: none unsettled, 1 record, no problem", r.Unsettled, r.Records, r.Problems)
	}
	_, g := active(t, cfg.Home)
	var got []string
	for _, c := range g.All() {
		got = append(got, c.SourceID+": "+c.Text)
	}
	slices.Sort(got)
	if want := []string{"b: The ledger export lists the second account, corrected."}; !slices.Equal(got, want) {
		t.Errorf("the index holds %q, want %q", got, want)
	}
}
