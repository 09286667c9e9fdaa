package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// readResult is what one or more ReadFile calls produced.
type readResult struct {
	records  []memory.Record
	problems []Problem
	cursor   Cursor
}

// readFrom reads path (as file rel of src) from cur and adds what it got
// to res.
func readFrom(t *testing.T, src config.Source, path, rel string, cur Cursor, res *readResult) {
	t.Helper()
	next, err := ReadFile(context.Background(), src, File{Path: path, Rel: rel}, cur, Sink{
		Record:  func(r memory.Record) error { res.records = append(res.records, r); return nil },
		Problem: func(p Problem) { res.problems = append(res.problems, p) },
	})
	if err != nil {
		t.Fatalf("ReadFile from %+v: %v", cur, err)
	}
	res.cursor = next
}

// readResumed reads path on from cur into res, as the index does: a read on
// that is ErrFileChanged (lines it read before were taken back: a Codex
// rollback) gives way to a whole read, which replaces what res had.
func readResumed(t *testing.T, src config.Source, path, rel string, cur Cursor, res *readResult) {
	t.Helper()
	var got readResult
	next, err := ReadFile(context.Background(), src, File{Path: path, Rel: rel}, cur, Sink{
		Record:  func(r memory.Record) error { got.records = append(got.records, r); return nil },
		Problem: func(p Problem) { got.problems = append(got.problems, p) },
	})
	if errors.Is(err, ErrFileChanged) && cur.Offset > 0 {
		*res = readResult{}
		readFrom(t, src, path, rel, Cursor{}, res)
		return
	}
	if err != nil {
		t.Fatalf("ReadFile from %+v: %v", cur, err)
	}
	res.records = append(res.records, got.records...)
	res.problems = append(res.problems, got.problems...)
	res.cursor = next
}

// canonical returns records comparable with reflect.DeepEqual: a time
// parsed twice from "+08:00" has two distinct *time.Location values, so
// times are compared as text.
func canonical(recs []memory.Record) ([]memory.Record, []string) {
	out := make([]memory.Record, len(recs))
	times := make([]string, len(recs))
	for i, r := range recs {
		times[i] = r.Time.Format(time.RFC3339Nano)
		r.Time = time.Time{}
		out[i] = r
	}
	return out, times
}

// sameResult fails t unless got is exactly want: records (every field),
// problems and where the cursor ended.
func sameResult(t *testing.T, what string, got, want readResult) {
	t.Helper()
	gr, gt := canonical(got.records)
	wr, wt := canonical(want.records)
	if !reflect.DeepEqual(gr, wr) || !reflect.DeepEqual(gt, wt) {
		t.Fatalf("%s: records differ from a whole read:\n got %+v\nwant %+v", what, got.records, want.records)
	}
	if !reflect.DeepEqual(got.problems, want.problems) {
		t.Fatalf("%s: problems differ from a whole read:\n got %v\nwant %v", what, got.problems, want.problems)
	}
	if got.cursor.Offset != want.cursor.Offset || got.cursor.Line != want.cursor.Line || got.cursor.Open != want.cursor.Open || got.cursor.Prefix != want.cursor.Prefix {
		t.Fatalf("%s: cursor %+v, want %+v", what, got.cursor, want.cursor)
	}
}

// resumableFixtures are the fixture files of the kinds that resume, with
// the kind that reads them.
func resumableFixtures(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for dir, kind := range map[string]string{
		"testdata/codex": config.KindCodex, "testdata/claude-code": config.KindClaudeCode,
		"testdata/shapes/codex": config.KindCodex, "testdata/shapes/claude-code": config.KindClaudeCode,
		driftRoot + "/codex": config.KindCodex, driftRoot + "/claude-code": config.KindClaudeCode,
		"testdata/jsonl": config.KindJSONL, "testdata/cursor/projects": config.KindCursor,
	} {
		listing, err := List(config.Source{Name: "fx", Kind: kind, Path: dir})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range listing.Files {
			out[f.Path] = kind
		}
	}
	// Each OpenClaw case is a state directory of its own; its notes are
	// read whole.
	cases, err := filepath.Glob(driftRoot + "/openclaw/*")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no OpenClaw cases: %v", err)
	}
	for _, dir := range cases {
		listing, err := List(config.Source{Name: "fx", Kind: config.KindOpenClaw, Path: dir})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range listing.Files {
			if LineBased(config.KindOpenClaw, f.Path) {
				out[f.Path] = config.KindOpenClaw
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d fixtures found", len(out))
	}
	return out
}

// TestReadFile_resumeEqualsWhole is the property incremental sync rests
// on: a file read whole and the same file read in resumed pieces, cut at
// every line boundary (and in the middle of every line, as a torn write),
// give the same records, problems and final cursor.
func TestReadFile_resumeEqualsWhole(t *testing.T) {
	for fixture, kind := range resumableFixtures(t) {
		t.Run(fixture, func(t *testing.T) {
			content, err := os.ReadFile(fixture)
			if err != nil {
				t.Fatal(err)
			}
			// The reader sees the same path (ids and conversations come
			// from it) in every run.
			rel := strings.TrimPrefix(fixture, "testdata/")
			path := filepath.Join(t.TempDir(), filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			src := config.Source{Name: "fx", Kind: kind, Path: filepath.Dir(path)}
			write := func(b []byte) {
				t.Helper()
				if err := os.WriteFile(path, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			write(content)
			var whole readResult
			readFrom(t, src, path, rel, Cursor{}, &whole)
			if len(whole.records) == 0 {
				t.Fatal("the fixture yields no record")
			}
			var cuts []int
			for i, c := range content {
				if c == '\n' {
					cuts = append(cuts, i+1)
				}
			}
			if !bytes.HasSuffix(content, []byte("\n")) {
				cuts = append(cuts, len(content))
			}
			start := 0
			for _, end := range cuts {
				for _, cut := range []int{end, start + (end-start)/2} {
					var pieces readResult
					write(content[:cut])
					readFrom(t, src, path, rel, Cursor{}, &pieces)
					write(content)
					readResumed(t, src, path, rel, pieces.cursor, &pieces)
					sameResult(t, "cut at byte "+strconv.Itoa(cut), pieces, whole)
				}
				start = end
			}
			// An agent appending line by line, read after every append.
			var steps readResult
			for _, end := range cuts {
				write(content[:end])
				readResumed(t, src, path, rel, steps.cursor, &steps)
			}
			sameResult(t, "read after every line", steps, whole)
			// Nothing new: nothing read, the cursor stays.
			before := len(steps.records)
			readFrom(t, src, path, rel, steps.cursor, &steps)
			if len(steps.records) != before || steps.cursor.Offset != whole.cursor.Offset {
				t.Errorf("a read with nothing new moved: %d records, cursor %+v", len(steps.records)-before, steps.cursor)
			}
		})
	}
}

// storedCursor returns cur as the next sync finds it: through JSON, as
// the source states keep it.
func storedCursor(t *testing.T, cur Cursor) Cursor {
	t.Helper()
	b, err := json.Marshal(cur)
	if err != nil {
		t.Fatal(err)
	}
	var out Cursor
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestReadFile_cursor(t *testing.T) {
	src := config.Source{Name: "rec", Kind: config.KindJSONL}
	line := func(id, text string) string { return `{"id":"` + id + `","text":"` + text + `"}` }
	setup := func(t *testing.T, content string) (string, config.Source) {
		t.Helper()
		dir := t.TempDir()
		p := filepath.Join(dir, "r.jsonl")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		s := src
		s.Path = dir
		return p, s
	}
	appendTo := func(t *testing.T, p, s string) {
		t.Helper()
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(res readResult) string {
		var out []string
		for _, r := range res.records {
			out = append(out, r.ID+"@"+strconv.Itoa(r.Line))
		}
		return strings.Join(out, " ")
	}

	t.Run("torn last line is left for the next read", func(t *testing.T) {
		p, s := setup(t, line("a", "one")+"\n"+`{"id":"b","te`)
		var res readResult
		readFrom(t, s, p, "r.jsonl", Cursor{}, &res)
		if ids(res) != "a@1" || res.cursor.Line != 1 || res.cursor.Offset != int64(len(line("a", "one"))+1) || len(res.problems) != 0 {
			t.Fatalf("first read: %s %+v %v", ids(res), res.cursor, res.problems)
		}
		appendTo(t, p, `xt":"two"}`+"\n")
		readFrom(t, s, p, "r.jsonl", res.cursor, &res)
		if ids(res) != "a@1 b@2" || res.cursor.Line != 2 {
			t.Fatalf("second read: %s %+v", ids(res), res.cursor)
		}
	})

	t.Run("a whole JSON last line without line ending is read once", func(t *testing.T) {
		p, s := setup(t, line("a", "one"))
		var res readResult
		readFrom(t, s, p, "r.jsonl", Cursor{}, &res)
		if ids(res) != "a@1" || !res.cursor.Open {
			t.Fatalf("first read: %s %+v", ids(res), res.cursor)
		}
		appendTo(t, p, "\n"+line("b", "two")+"\n")
		readFrom(t, s, p, "r.jsonl", res.cursor, &res)
		if ids(res) != "a@1 b@2" || res.cursor.Open || len(res.problems) != 0 {
			t.Fatalf("second read: %s %+v %v", ids(res), res.cursor, res.problems)
		}
	})

	t.Run("a line that grows after it was read is reported", func(t *testing.T) {
		p, s := setup(t, line("a", "one"))
		var res readResult
		readFrom(t, s, p, "r.jsonl", Cursor{}, &res)
		appendTo(t, p, `,"junk":1}`+"\n"+line("b", "two")+"\n")
		readFrom(t, s, p, "r.jsonl", res.cursor, &res)
		if ids(res) != "a@1 b@2" || len(res.problems) != 1 || res.problems[0].Line != 1 || !strings.Contains(res.problems[0].Reason, "grew") {
			t.Fatalf("got %s %v", ids(res), res.problems)
		}
	})

	t.Run("a rewritten or truncated file is refused", func(t *testing.T) {
		p, s := setup(t, line("a", "one")+"\n"+line("b", "two")+"\n")
		var res readResult
		readFrom(t, s, p, "r.jsonl", Cursor{}, &res)
		for name, content := range map[string]string{
			"rewritten": line("x", "one") + "\n" + line("b", "two") + "\n" + line("c", "three") + "\n",
			"truncated": line("a", "one") + "\n",
		} {
			if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := ReadFile(context.Background(), s, File{Path: p, Rel: "r.jsonl"}, res.cursor, Sink{
				Record:  func(memory.Record) error { t.Errorf("%s: record read", name); return nil },
				Problem: func(Problem) {},
			})
			if !errors.Is(err, ErrFileChanged) {
				t.Errorf("%s: err = %v, want ErrFileChanged", name, err)
			}
		}
	})

	t.Run("a stored cursor refuses an edit anywhere before it", func(t *testing.T) {
		// More than a kilobyte of records, so the edit is far from the
		// cursor; the edited record keeps its length and the file grows,
		// as an exporter rewriting its file in place and appending does.
		var b strings.Builder
		for i := range 40 {
			b.WriteString(line("r"+strconv.Itoa(i), "record "+strconv.Itoa(i)+" about the quarterly close word"+strconv.Itoa(i)+"x") + "\n")
		}
		p, s := setup(t, b.String())
		var res readResult
		readFrom(t, s, p, "r.jsonl", Cursor{}, &res)
		stored := storedCursor(t, res.cursor)

		// Appended only: the stored cursor resumes and reads the new line.
		appendTo(t, p, line("r40", "appended")+"\n")
		var more readResult
		readFrom(t, s, p, "r.jsonl", stored, &more)
		if ids(more) != "r40@41" {
			t.Fatalf("append read from a stored cursor: %s", ids(more))
		}
		stored = storedCursor(t, more.cursor)

		content, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		edited := bytes.Replace(content, []byte("word2x"), []byte("WORD2Y"), 1)
		edited = append(edited, line("r41", "appended again")+"\n"...)
		if err := os.WriteFile(p, edited, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err = ReadFile(context.Background(), s, File{Path: p, Rel: "r.jsonl"}, stored, Sink{
			Record:  func(r memory.Record) error { t.Errorf("record %s read from the stale cursor", r.ID); return nil },
			Problem: func(Problem) {},
		})
		if !errors.Is(err, ErrFileChanged) {
			t.Fatalf("edit before the cursor: err = %v, want ErrFileChanged", err)
		}
		// A cursor stored by an older version, without a digest of what
		// it consumed, is never trusted.
		old := stored
		old.Prefix = ""
		if _, err := ReadFile(context.Background(), s, File{Path: p, Rel: "r.jsonl"}, old, Sink{}); !errors.Is(err, ErrFileChanged) {
			t.Fatalf("cursor without a prefix digest: err = %v, want ErrFileChanged", err)
		}
	})

	t.Run("files read whole refuse a cursor", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "n.md")
		if err := os.WriteFile(p, []byte("# A\n\ntext\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		md := config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir}
		if LineBased(config.KindMarkdown, p) || LineBased(config.KindCodex, "rollout-x.jsonl.zst") || !LineBased(config.KindCodex, "rollout-x.jsonl") {
			t.Error("LineBased is wrong about markdown or .zst")
		}
		var res readResult
		readFrom(t, md, p, "n.md", Cursor{}, &res)
		if len(res.records) != 1 || !reflect.DeepEqual(res.cursor, Cursor{}) {
			t.Errorf("whole read: %d records, cursor %+v", len(res.records), res.cursor)
		}
		_, err := ReadFile(context.Background(), md, File{Path: p, Rel: "n.md"}, Cursor{Offset: 3, Line: 1}, Sink{Record: func(memory.Record) error { return nil }, Problem: func(Problem) {}})
		if err == nil {
			t.Error("a markdown file resumed from a cursor")
		}
	})

	t.Run("missing file is an error naming it", func(t *testing.T) {
		_, err := ReadFile(context.Background(), src, File{Path: "/nonexistent/r.jsonl", Rel: "r.jsonl"}, Cursor{}, Sink{})
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("err = %v", err)
		}
	})
}

// TestReadFilePiece_piecesEqualWhole: a file read in pieces of at most
// limit bytes (each piece on from the last one's cursor) gives a whole
// read's records, problems and final cursor, for every limit from one
// line per piece up.
// finishes reports whether the reader of the file holds its records
// until its last line (a finisher), which reads it in one piece.
func finishes(t *testing.T, src config.Source, path, rel string) bool {
	t.Helper()
	h, err := newLineHandler(&fileCtx{ctx: context.Background(), src: src, path: path, rel: rel, loc: time.Local}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, ok := h.(finisher)
	return ok
}

func TestReadFilePiece_piecesEqualWhole(t *testing.T) {
	for fixture, kind := range resumableFixtures(t) {
		t.Run(fixture, func(t *testing.T) {
			rel := strings.TrimPrefix(fixture, "testdata/")
			src := config.Source{Name: "fx", Kind: kind, Path: filepath.Dir(fixture)}
			var whole readResult
			readFrom(t, src, fixture, rel, Cursor{}, &whole)
			fi, err := os.Stat(fixture)
			if err != nil {
				t.Fatal(err)
			}
			for _, limit := range []int64{1, 100, 1000, fi.Size() / 3, fi.Size()} {
				var got readResult
				cur, pieces := Cursor{}, 0
				for {
					next, more, err := ReadFilePiece(context.Background(), src, File{Path: fixture, Rel: rel}, cur, limit, Sink{
						Record:  func(r memory.Record) error { got.records = append(got.records, r); return nil },
						Problem: func(p Problem) { got.problems = append(got.problems, p) },
					})
					if err != nil {
						t.Fatalf("limit %d, piece %d: %v", limit, pieces, err)
					}
					cur, pieces = next, pieces+1
					if !more {
						break
					}
					if pieces > 100_000 {
						t.Fatal("pieces never end")
					}
				}
				got.cursor = cur
				sameResult(t, "limit "+strconv.FormatInt(limit, 10), got, whole)
				if limit == 1 && whole.cursor.Line > 1 && pieces < 2 && !finishes(t, src, fixture, rel) {
					t.Errorf("limit 1 read %d lines in one piece", whole.cursor.Line)
				}
			}
		})
	}
}
