// The SQLite FTS5 baseline goes through database/sql: the driver,
// modernc.org/sqlite, is registered by cmd/novactl, which links it anyway
// to read Hermes' state.db, and by this package's tests. Importing it here
// would put SQLite into novactl-tui too (it links cli, and so bench),
// which never runs a benchmark.

package bench

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/nova-recall/nova/paths"
)

// corpusSystems are the systems that build an index of their own.
var corpusSystems = []system{{name: SystemFTS5, overCorpus: openFTS}}

// openFTS builds the FTS5 database in the size's work directory; release
// closes it and, unless the directory is kept, deletes it.
func openFTS(ctx context.Context, e corpusEnv, sr *SizeReport) (searchFunc, func(), error) {
	e.say("building SQLite FTS5 (%s)", FTSTokenizer)
	dbPath := filepath.Join(e.dir, "fts5.db")
	ix, build, err := buildFTS(ctx, dbPath, e.corpusPath, func(done int) {
		e.say("fts5: %d/%d records inserted", done, e.records)
	})
	if err != nil {
		return nil, nil, err
	}
	sr.FTS5 = build
	e.say("FTS5 built in %s (insert %s, optimize %s), %s", msf(float64(build.TotalMs)), msf(float64(build.InsertMs)), msf(float64(build.OptimizeMs)), humanize.IBytes(uint64(build.DBBytes)))
	fn := func(ctx context.Context, q Query) (outcome, error) {
		ids, err := ix.search(ctx, q, e.k)
		return outcome{ids: ids}, err
	}
	release := func() {
		ix.Close()
		if !e.keep {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(dbPath + suffix)
			}
		}
	}
	return fn, release, nil
}

// ftsIndex is the SQLite FTS5 baseline over the corpus.
type ftsIndex struct {
	db                        *sql.DB
	plain, byProject, byDates *sql.Stmt
}

// buildFTS creates an FTS5 database at dbPath from the corpus JSONL, the
// way the peers do: one row per record, ranked by FTS5's bm25. progress
// is told the records inserted every progressEvery.
func buildFTS(ctx context.Context, dbPath, corpusPath string, progress func(done int)) (*ftsIndex, *FTSBuild, error) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		os.Remove(dbPath + suffix)
	}
	// SQLite creates a missing database 0644, and its journals with the
	// database's mode: an empty private file first keeps all of them 0600.
	empty, err := paths.CreatePrivate(dbPath)
	if err != nil {
		return nil, nil, err
	}
	if err := empty.Close(); err != nil {
		return nil, nil, err
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
		_ = tx.Rollback() // the insert error is the one to report
		return fail(err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	said := time.Now()
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			_ = tx.Rollback()
			return fail(err)
		}
		if _, err := ins.ExecContext(ctx, r.Text, r.ID, r.Project, dayOf(r.Date)); err != nil {
			_ = tx.Rollback()
			return fail(err)
		}
		rep.Records++
		if time.Since(said) >= progressEvery {
			said = time.Now()
			progress(rep.Records)
		}
	}
	if err := sc.Err(); err != nil {
		_ = tx.Rollback()
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
