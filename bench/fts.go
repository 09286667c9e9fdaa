package bench

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/kljensen/snowball/english"
	_ "modernc.org/sqlite" // pure-Go SQLite with FTS5, no cgo
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

// ftsIndex is the SQLite FTS5 baseline over the corpus.
type ftsIndex struct {
	db                        *sql.DB
	plain, byProject, byDates *sql.Stmt
}

// buildFTS creates an FTS5 database at dbPath from the corpus JSONL, the
// way the peers do: one row per record, ranked by FTS5's bm25.
func buildFTS(ctx context.Context, dbPath, corpusPath string) (*ftsIndex, *FTSBuild, error) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		os.Remove(dbPath + suffix)
	}
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		return nil, nil, err
	}
	db.SetMaxOpenConns(1)
	fail := func(err error) (*ftsIndex, *FTSBuild, error) {
		db.Close()
		return nil, nil, fmt.Errorf("sqlite fts5: %w", err)
	}
	for _, s := range []string{
		"PRAGMA journal_mode=WAL",
		"PRAGMA synchronous=NORMAL",
		"CREATE VIRTUAL TABLE docs USING fts5(body, rid UNINDEXED, project UNINDEXED, day UNINDEXED, tokenize = '" + FTSTokenizer + "')",
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fail(err)
		}
	}
	rep := &FTSBuild{Tokenizer: FTSTokenizer}
	t0 := time.Now()
	f, err := os.Open(corpusPath)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fail(err)
	}
	ins, err := tx.PrepareContext(ctx, "INSERT INTO docs(body, rid, project, day) VALUES (?, ?, ?, ?)")
	if err != nil {
		tx.Rollback()
		return fail(err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tx.Rollback()
			return fail(err)
		}
		if _, err := ins.ExecContext(ctx, r.Text, r.ID, r.Project, dayOf(r.Date)); err != nil {
			tx.Rollback()
			return fail(err)
		}
		rep.Records++
	}
	if err := sc.Err(); err != nil {
		tx.Rollback()
		return fail(err)
	}
	ins.Close()
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	rep.InsertMs = time.Since(t0).Milliseconds()
	t1 := time.Now()
	if _, err := db.ExecContext(ctx, "INSERT INTO docs(docs) VALUES('optimize')"); err != nil {
		return fail(err)
	}
	if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return fail(err)
	}
	rep.OptimizeMs = time.Since(t1).Milliseconds()
	rep.TotalMs = time.Since(t0).Milliseconds()
	if rep.TotalMs > 0 {
		rep.RecordsPerSec = float64(rep.Records) / (float64(rep.TotalMs) / 1000)
	}
	if fi, err := os.Stat(dbPath); err == nil {
		rep.DBBytes = fi.Size()
	}
	ix := &ftsIndex{db: db}
	const sel = "SELECT rid FROM docs WHERE docs MATCH ?1"
	const order = " ORDER BY rank LIMIT ?2"
	for _, p := range []struct {
		dst **sql.Stmt
		q   string
	}{
		{&ix.plain, sel + order},
		{&ix.byProject, sel + " AND project = ?3" + order},
		{&ix.byDates, sel + " AND day >= ?3 AND day <= ?4" + order},
	} {
		if *p.dst, err = db.PrepareContext(ctx, p.q); err != nil {
			return fail(err)
		}
	}
	return ix, rep, nil
}

// search returns the record ids of the best k matches of q.
func (ix *ftsIndex) search(ctx context.Context, q Query, k int) ([]string, error) {
	expr := ftsMatch(q.Text)
	if expr == "" {
		return nil, nil
	}
	var rows *sql.Rows
	var err error
	switch {
	case q.Project != "":
		rows, err = ix.byProject.QueryContext(ctx, expr, k, q.Project)
	case q.DateFrom != "" || q.DateTo != "":
		to := q.DateTo
		if to == "" {
			to = "9999-12-31"
		}
		rows, err = ix.byDates.QueryContext(ctx, expr, k, q.DateFrom, to)
	default:
		rows, err = ix.plain.QueryContext(ctx, expr, k)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// Close closes the database.
func (ix *ftsIndex) Close() error { return ix.db.Close() }

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
