package lexical_test

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
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/search"
)

// TestCamelCaseIdentifierIsRecalled: a memory that names an identifier
// only in camelCase is found, first, by the identifier's words and by its
// snake_case spelling, in an index built and searched as Nova does, among
// memories that hold one of the words alone.
func TestCamelCaseIdentifierIsRecalled(t *testing.T) {
	records := []struct{ id, text string }{
		{"target", "Fixed the crash at startup: parseConfig now returns an error when the file is empty."},
		{"parse", "The JSON parse step of the importer was slow, so we cached the decoder."},
		{"config", "Moved the nginx config to the shared volume and reloaded it."},
		{"other", "The retry loop of the uploader gives up after five attempts."},
		{"user", "getUserByID is cached for a minute now, which fixed the slow profile page."},
	}
	engine, snap := identifierHome(t, records)
	for query, want := range map[string]string{
		"where do we parse the config": "target",
		"parse_config":                 "target",
		"parseConfig":                  "target",
		"get user by id":               "user",
		"get_user_by_id":               "user",
	} {
		resp, err := engine.Search(context.Background(), snap, api.SearchRequest{Query: query, TopK: 3})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range resp.Results {
			got = append(got, r.ID)
		}
		if len(got) == 0 || got[0] != "notes:"+want {
			t.Errorf("%q found %q, want %q first", query, got, want)
		}
	}
}

// TestCamelCaseIdentifierCoversItsWords: a memory that names parseConfig
// covers the question's "parse" and "config" in the response's quality,
// as its terms do in the index; "config" was reported missing, lowering
// the coverage agents read to decide whether to search again.
func TestCamelCaseIdentifierCoversItsWords(t *testing.T) {
	engine, snap := identifierHome(t, []struct{ id, text string }{
		{"target", "Fixed the crash at startup: parseConfig now returns an error when the file is empty."},
		{"other", "The retry loop of the uploader gives up after five attempts."},
	})
	resp, err := engine.Search(context.Background(), snap, api.SearchRequest{Query: "where do we parse the config", TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if q := resp.Quality; len(resp.Results) == 0 || resp.Results[0].ID != "notes:target" || len(q.MissingTerms) != 0 || q.Coverage != 1 {
		t.Errorf("quality %+v over %d results, want parse and config covered by notes:target", q, len(resp.Results))
	}
}

// identifierHome indexes records as a JSONL source in a new home, as
// Nova does, and returns an engine and the snapshot to search.
func identifierHome(t *testing.T, records []struct{ id, text string }) (*search.Engine, *search.Snapshot) {
	t.Helper()
	var src strings.Builder
	for _, r := range records {
		src.WriteString(`{"id":"` + r.id + `","text":"` + r.text + `","date":"2026-07-01"}` + "\n")
	}
	dir := t.TempDir()
	novatest.Must(t, os.WriteFile(filepath.Join(dir, "notes.jsonl"), []byte(src.String()), 0o600))
	now := time.Date(2026, 7, 2, 12, 0, 0, 0, time.UTC)
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: t.TempDir()}
	cfg.Sources = []config.Source{{Name: "notes", Kind: config.KindJSONL, Path: dir}}
	ix := index.New(cfg, index.Options{NoRemote: true, Now: func() time.Time { return now }})
	if _, err := ix.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, g, err := index.OpenActive(context.Background(), cfg.Home, lexical.NewAnalyzer())
	if err != nil {
		t.Fatal(err)
	}
	engine := search.New(search.Config{HalfLifeDays: 7, Dense: true, Now: func() time.Time { return now }}, lexical.NewAnalyzer())
	return engine, &search.Snapshot{Gen: g, Query: g.Model}
}

// TestWrittenFormsAreRecalled: a memory is found, first, by the words a
// person types for it, however its text wrote them (the analyzer's folds,
// in an index built and searched as Nova does).
func TestWrittenFormsAreRecalled(t *testing.T) {
	records := []struct{ id, text string }{
		// A soft hyphen inside a word, as text copied from a web page has it.
		{"shy", "The PDF export broke the hyph\u00adenation of long table headers."},
		{"other", "The PDF export of the quarterly report is slow on long tables."},
		// Diacritics, which a person leaves out when typing a query.
		{"accents", "Sent my résumé to Zoë at the café on Rue Müller."},
		{"plain", "Sent the quarterly report to the team at the office."},
		// A kanji alone between kana, in Japanese.
		{"neko", "昨日、猫が窓から外をじっと見ていた。"},
		{"inu", "昨日、犬が庭でずっと遊んでいた。"},
		// Greek capitals are written without accents.
		{"athens", "ΣΥΝΑΝΤΗΣΗ ΣΤΗΝ ΑΘΗΝΑ ΤΗΝ ΤΡΙΤΗ"},
		{"patra", "Συνάντηση στην Πάτρα την Πέμπτη"},
		// A number with thousands separators, typed without them.
		{"thousand", "The paid plan passed 1,000 subscribers in March; churn stayed flat."},
		{"subscribers", "Subscribers asked for yearly billing; two subscribers wrote in about invoices."},
		// A Korean noun of one syllable, with its particle.
		{"chaek", "어제 도서관에서 책을 빌렸다"},
		{"jip", "어제 도서관에서 집까지 걸었다"},
		// A language named by a letter and ++.
		{"cpp", "Rewrote the parser in C++ with templates; the build takes longer now."},
		{"c", "Rewrote the parser in C with macros; the build is faster now."},
	}
	engine, snap := identifierHome(t, records)
	for query, want := range map[string]string{
		"hyphenation in the pdf export":  "shy",
		"sent resume to zoe at the cafe": "accents",
		"私の猫":                            "neko",
		"συνάντηση Αθήνα":                "athens",
		"1000 subscribers":               "thousand",
		"도서관 책":                          "chaek",
		"parser in C++":                  "cpp",
	} {
		resp, err := engine.Search(context.Background(), snap, api.SearchRequest{Query: query, TopK: 3})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range resp.Results {
			got = append(got, r.ID)
		}
		if len(got) == 0 || got[0] != "notes:"+want {
			t.Errorf("%q found %q, want %q first", query, got, want)
		}
	}
}

// TestIndicWordIsNotItsConsonants: a memory that does not hold a Hindi
// word is not found by it. भाषा (language) was searched as its consonants
// भ and ष, which "यह भी विशेष है" (this too is special) holds in other
// words: the memory was found, and the response called it strong.
func TestIndicWordIsNotItsConsonants(t *testing.T) {
	engine, snap := identifierHome(t, []struct{ id, text string }{
		{"other", "यह भी विशेष है"},
	})
	resp, err := engine.Search(context.Background(), snap, api.SearchRequest{Query: "भाषा", TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) != 0 || !resp.Quality.NeedsMoreEvidence {
		t.Errorf("found %d results, quality %q, want none found", len(resp.Results), resp.Quality.Status)
	}
}

// TestLettersDashNumberIsRecalled: a memory that wrote UTF-8 is found
// first by "utf8", as a person types it, beside one about another
// decoding error. (The response's coverage still reports utf8 missing:
// search matches the question's words in the text as written.)
func TestLettersDashNumberIsRecalled(t *testing.T) {
	engine, snap := identifierHome(t, []struct{ id, text string }{
		{"utf", "The CSV importer failed with a UTF-8 decoding error on the March export."},
		{"xml", "The XML importer failed with a decoding error."},
		{"other", "Cooking pasta tonight with garlic."},
	})
	resp, err := engine.Search(context.Background(), snap, api.SearchRequest{Query: "utf8 decoding error", TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range resp.Results {
		got = append(got, r.ID)
	}
	if len(got) == 0 || got[0] != "notes:utf" {
		t.Errorf("found %q, want notes:utf first", got)
	}
}
