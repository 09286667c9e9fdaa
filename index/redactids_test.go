package index_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/paths"
)

// Two GitHub tokens and two OpenAI project keys that redaction knows.
const (
	ghpA = "ghp_R4nD0mT0k3nV4lu3F0rT3st1ngXyZ9q8wA"
	ghpB = "ghp_Q9zW3xK7mN2pL5vB8cR1tY6uI4oE0aSdFgB"
	skA  = "sk-proj-Xq7Lm2Np9Rt4Vw1Yz6Ab3Cd8Ef5Gh0Jk2Mn7Pq4Rs9Tu1Vw6Xy3Za8Bc5De0FgHjA"
	skB  = "sk-proj-Wp3Kn8Mq1Rs6Tv9Xy4Zb7Ac2Df5Eg0Hj3Km8Np1Qr6St9Uv4Wx7Yz2Ab5Cd0EfGhB"
)

// homeHolds lists the files of home whose bytes contain s.
func homeHolds(t *testing.T, home paths.Home, s string) []string {
	t.Helper()
	var in []string
	err := filepath.WalkDir(home.Root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if strings.Contains(string(b), s) {
			in = append(in, filepath.Base(path))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestSync_redactedIDsKeepEveryRecord: records whose ids redaction
// changed (notes named for a token, jsonl records whose id is a key,
// headings holding keys) all stay in the index, none reported as a
// duplicate: both notes became "[redacted].md#top" and the second was
// dropped as the user's duplicate id, as were the second jsonl record
// ("[redacted]"). The ids are the same after an incremental sync, the
// secrets are not in the chunk ids, and records redaction did not touch
// keep their ids.
func TestSync_redactedIDsKeepEveryRecord(t *testing.T) {
	dir := t.TempDir()
	notes, exports := filepath.Join(dir, "notes"), filepath.Join(dir, "exports")
	writeFile(t, filepath.Join(notes, ghpA+".md"), "The orchard ladder leans on the north barn.\n")
	writeFile(t, filepath.Join(notes, ghpB+".md"), "The kiln cools for two days before glazing.\n")
	writeFile(t, filepath.Join(notes, "plain.md"), "# Rotate "+ghpA+"\n\nThe harbour crane lifts at dawn.\n\n# Rotate "+ghpB+"\n\nThe granary roof leaks in March.\n")
	writeFile(t, filepath.Join(exports, "keys.jsonl"), jsonlLines(t,
		rec{ID: skA, Text: "The violin bow needs new horsehair."},
		rec{ID: skB, Text: "The telescope mirror was recoated."},
		rec{ID: "plain-1", Text: "The bakery opens at six."}))
	cfg := testConfig(t, filepath.Join(dir, "home"),
		config.Source{Name: "notes", Kind: config.KindMarkdown, Path: notes},
		config.Source{Name: "exports", Kind: config.KindJSONL, Path: exports})
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now, NoCompact: true})
	res := mustSync(t, ix)
	if res.Build.DuplicateIDs != 0 {
		t.Errorf("%d duplicate ids reported; the user's ids all differ", res.Build.DuplicateIDs)
	}
	words := []string{"orchard ladder", "kiln cools", "harbour crane", "granary roof", "violin bow", "telescope mirror", "bakery opens"}
	ids := func() []string {
		_, g := active(t, cfg.Home)
		var got []string
		for id, c := range chunkByID(t, g) {
			for _, secret := range []string{ghpA, ghpB, skA, skB} {
				if strings.Contains(id, secret[8:24]) {
					t.Errorf("chunk id %q holds a secret", id)
				}
			}
			for _, w := range words {
				if strings.Contains(c.Text, w) {
					got = append(got, w+" "+id)
				}
			}
		}
		slices.Sort(got)
		return got
	}
	first := ids()
	if len(first) != len(words) {
		t.Fatalf("indexed %d of the %d records: %q", len(first), len(words), first)
	}
	for _, want := range []string{"bakery opens exports:plain-1"} {
		if !slices.Contains(first, want) {
			t.Errorf("ids %q lack %q: an untouched record's id changed", first, want)
		}
	}
	for _, secret := range []string{skA, skB} {
		if in := homeHolds(t, cfg.Home, secret[8:24]); len(in) > 0 {
			t.Errorf("%s… is in %v", secret[:12], in)
		}
	}
	// An incremental sync (another note changes) keeps every id.
	writeFile(t, filepath.Join(notes, "other.md"), "The ferry schedule changed.\n")
	res = mustSync(t, ix)
	if res.Build.DuplicateIDs != 0 {
		t.Errorf("incremental sync: %d duplicate ids reported", res.Build.DuplicateIDs)
	}
	if again := ids(); !slices.Equal(again, first) {
		t.Errorf("ids changed in an incremental sync:\n%q\n%q", first, again)
	}
}

// TestSync_redactedIDsOnOneLine: the elements of a JSON array written on
// one line whose ids are keys share their file and line, so the line
// alone does not tell them apart; each is still indexed.
func TestSync_redactedIDsOnOneLine(t *testing.T) {
	dir := t.TempDir()
	exports := filepath.Join(dir, "exports")
	writeFile(t, filepath.Join(exports, "keys.jsonl"), `[{"id":"`+skA+`","text":"The violin bow needs new horsehair."},{"id":"`+skB+`","text":"The telescope mirror was recoated."}]`+"\n")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "exports", Kind: config.KindJSONL, Path: exports})
	res := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now, NoCompact: true}))
	if res.Build.DuplicateIDs != 0 {
		t.Errorf("%d duplicate ids reported; the user's ids differ", res.Build.DuplicateIDs)
	}
	_, g := active(t, cfg.Home)
	found := 0
	for _, c := range chunkByID(t, g) {
		if strings.Contains(c.Text, "violin bow") || strings.Contains(c.Text, "telescope mirror") {
			found++
		}
	}
	if found != 2 {
		t.Errorf("indexed %d of the 2 records", found)
	}
}
