package bench

import (
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"
)

// FTSTokenizer is the FTS5 tokenizer of the peer baseline: what qmd uses
// (basic-memory and claude-mem use unicode61 without porter).
const FTSTokenizer = "porter unicode61"

// FTSBuild reports building the SQLite FTS5 baseline.
type FTSBuild struct {
	Tokenizer string `json:"tokenizer"`
	Records   int    `json:"records"`
	// InsertMs is reading the corpus and inserting every record in one
	// transaction (FTS5 indexes as rows are inserted).
	InsertMs int64 `json:"insertMs"`
	// OptimizeMs is merging the index segments ('optimize'), which makes
	// queries faster.
	OptimizeMs    int64   `json:"optimizeMs"`
	TotalMs       int64   `json:"totalMs"`
	RecordsPerSec float64 `json:"recordsPerSec"`
	DBBytes       int64   `json:"dbBytes"`
}

// ftsMatch turns a query into an FTS5 MATCH expression: every
// whitespace-separated word (English stop words dropped, as Nova's
// analyzer drops them) becomes a quoted phrase, and the phrases are
// OR-ed. A quoted "NOVA-123" or "src/app/x.py" matches the tokens in
// sequence.
func ftsMatch(text string) string {
	var parts []string
	for _, w := range strings.Fields(text) {
		w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if w == "" || english.IsStopWord(strings.ToLower(w)) {
			continue
		}
		parts = append(parts, `"`+strings.ReplaceAll(w, `"`, `""`)+`"`)
	}
	return strings.Join(parts, " OR ")
}

// dayOf returns the YYYY-MM-DD day of an RFC 3339 date.
func dayOf(date string) string {
	if len(date) >= 10 {
		return date[:10]
	}
	return date
}
