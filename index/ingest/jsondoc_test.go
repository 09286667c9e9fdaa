package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
)

// jsonSource is a jsonl source that also lists .json files, as a user
// who exports records as one JSON array configures it.
func jsonSource(dir string) config.Source {
	return config.Source{Name: "recs", Kind: config.KindJSONL, Path: dir, Include: []string{"*.jsonl", "*.json"}}
}

// TestReadJSONL_array: a jsonl source reads a file that is one JSON
// array, pretty-printed, as one record per element: at the element's
// line, validated and redacted as a line is, its problems named with the
// element's index. Before, the elements that happened to sit on one line
// were read and every other line ("[", "]", a multi-line object's lines)
// was reported as "not a JSON object".
func TestReadJSONL_array(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"records.json": "[\n" +
			`  {"id": "a1", "text": "the deploy key rotates monthly"},` + "\n" +
			`  {"id": "a2", "text": "billing api uses postgres"}` + "\n" +
			"]\n",
		"pretty.json": "\ufeff[\n" +
			"  {\n    \"id\": \"p1\",\n    \"text\": \"the staging token is AKIAQ7RT2WX5YZ3KLM4N for now\",\n    \"project\": \"ops\",\n    \"tags\": [\"keys\"]\n  },\n" +
			"  {\n    \"id\": \"p2\",\n    \"text\": \"\"\n  },\n" +
			"  \"a string\",\n" +
			"  {\n    \"id\": \"p4\",\n    \"text\": \"the last one\",\n    \"date\": \"2026-03-04\"\n  }\n" +
			"]\n",
	})
	recs, problems := collect(t, jsonSource(dir))
	type got struct {
		id, path string
		line     int
	}
	var ids []got
	for _, r := range recs {
		ids = append(ids, got{r.ID, filepath.Base(r.Path), r.Line})
	}
	want := []got{{"p1", "pretty.json", 2}, {"p4", "pretty.json", 13}, {"a1", "records.json", 2}, {"a2", "records.json", 3}}
	if len(ids) != len(want) {
		t.Fatalf("records %v, want %v; problems %v", ids, want, problems)
	}
	for i := range want {
		if ids[i] != want[i] {
			t.Errorf("record %d: %v, want %v", i, ids[i], want[i])
		}
	}
	p1 := recs[0]
	if strings.Contains(p1.Text, "AKIAQ7RT2WX5YZ3KLM4N") || p1.Redactions != 1 || p1.Project != "ops" || len(p1.Tags) != 1 ||
		p1.Conversation != "pretty.json|ops" || p1.Kind != config.KindJSONL {
		t.Errorf("p1 is not read as a line is: %+v", p1)
	}
	if recs[1].Date != "2026-03-04" {
		t.Errorf("p4 date %q", recs[1].Date)
	}
	if len(problems) != 2 {
		t.Fatalf("problems %v, want the empty text of element [1] and the string of element [2]", problems)
	}
	if p := problems[0]; p.Line != 8 || !strings.Contains(p.Reason, "element [1]") || !strings.Contains(p.Reason, `missing or empty "text"`) {
		t.Errorf("problem %v, want line 8, element [1], missing text", p)
	}
	if p := problems[1]; p.Line != 12 || !strings.Contains(p.Reason, "element [2]") || !strings.Contains(p.Reason, "not a JSON object") {
		t.Errorf("problem %v, want line 12, element [2], not a JSON object", p)
	}
}

// TestReadJSONL_prettyObject: a file holding one pretty-printed object is
// one record, at its first line; it was a "not a JSON object" per line.
func TestReadJSONL_prettyObject(t *testing.T) {
	dir := writeTree(t, map[string]string{"one.json": "\n{\n  \"id\": \"o1\",\n  \"text\": \"one object, pretty-printed\"\n}\n"})
	recs, problems := collect(t, jsonSource(dir))
	if len(recs) != 1 || len(problems) != 0 || recs[0].ID != "o1" || recs[0].Line != 2 {
		t.Fatalf("records %+v, problems %v; want o1 at line 2", recs, problems)
	}
}

// TestReadJSONL_linesStayLines: a JSONL file whose first line is not
// JSON (a torn write, a stray brace) is still read line by line, as
// before: its first line reported, the next ones read.
func TestReadJSONL_linesStayLines(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"torn.jsonl":  `{"id":"t0","te` + "\n" + `{"id":"t1","text":"after a torn line"}` + "\n",
		"brace.jsonl": "{\n" + `{"id":"b1","text":"after a brace"}` + "\n",
		"tail.jsonl":  `{"id":"c0","text":"x"} tail` + "\n" + `{"id":"c1","text":"after a tail"}` + "\n",
	})
	recs, problems := collect(t, jsonSource(dir))
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	if strings.Join(ids, " ") != "b1 c1 t1" || len(problems) != 3 {
		t.Fatalf("records %v, problems %v; want b1 c1 t1 and each first line reported", ids, problems)
	}
	for _, p := range problems {
		if p.Line != 1 || !strings.Contains(p.Reason, "not a JSON object") {
			t.Errorf("problem %v", p)
		}
	}
}

// TestReadJSONL_arrayRewrittenIsReadWhole: an array is not appended to
// like JSONL: a cursor after one is never read on from (the array's
// closing bracket moved, or the file was replaced), so a changed file is
// read again whole; and an array cut short (a write in progress) gives
// the elements before the cut and says where it ends.
func TestReadJSONL_arrayRewrittenIsReadWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "records.json")
	src := jsonSource(dir)
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("[\n" + `{"id": "a1", "text": "first"}` + "\n]\n")
	var first readResult
	readFrom(t, src, p, "records.json", Cursor{}, &first)
	if len(first.records) != 1 || first.cursor.Offset == 0 || first.cursor.Line != 3 || len(first.cursor.State) == 0 {
		t.Fatalf("first read: %+v", first)
	}
	// Appended after the array, as a JSONL writer would: still not read on.
	content, _ := os.ReadFile(p)
	write(string(content) + `{"id": "a2", "text": "second"}` + "\n")
	if _, err := ReadFile(context.Background(), src, File{Path: p, Rel: "records.json"}, first.cursor, Sink{}); !errors.Is(err, ErrFileChanged) {
		t.Fatalf("read on from an array's cursor: %v, want ErrFileChanged", err)
	}
	write("[\n" + `{"id": "a2", "text": "second"},` + "\n" + `{"id": "a3", "text": "third"}` + "\n]\n")
	var again readResult
	readResumed(t, src, p, "records.json", first.cursor, &again)
	if len(again.records) != 2 || again.records[0].ID != "a2" || again.records[1].ID != "a3" || again.cursor.Line != 4 {
		t.Fatalf("rewritten: %+v", again)
	}
	write("[\n" + `{"id": "a2", "text": "second"},` + "\n" + `{"id": "a3", "te`)
	var cut readResult
	readFrom(t, src, p, "records.json", Cursor{}, &cut)
	if len(cut.records) != 1 || len(cut.problems) != 1 || cut.problems[0].Line != 3 || !strings.Contains(cut.problems[0].Reason, "element [1]") {
		t.Fatalf("cut short: records %+v, problems %v; want a2 and element [1] at line 3 reported", cut.records, cut.problems)
	}
}

// TestReadJSONL_arrayElementTooLong: an array is streamed, one element
// held at a time: an element longer than maxLineBytes (a line that long
// is skipped too) is reported at its line with the rest of the file,
// and the elements before it stand. The cursor still covers the whole
// file, so that a change to it is read again.
func TestReadJSONL_arrayElementTooLong(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big.json")
	big := `{"id": "b2", "text": "` + strings.Repeat("word ", maxLineBytes/5+1024) + `"}`
	content := "[\n" + `{"id": "b1", "text": "before the big one"},` + "\n" + big + ",\n" + `{"id": "b3", "text": "after"}` + "\n]\n"
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	var res readResult
	readFrom(t, jsonSource(dir), p, "big.json", Cursor{}, &res)
	if len(res.records) != 1 || res.records[0].ID != "b1" {
		t.Fatalf("records %d, want b1 alone", len(res.records))
	}
	if len(res.problems) != 1 || res.problems[0].Line != 3 || !strings.Contains(res.problems[0].Reason, "element [1]") ||
		!strings.Contains(res.problems[0].Reason, "longer than") {
		t.Fatalf("problems %v, want element [1] at line 3, too long", res.problems)
	}
	if res.cursor.Offset != int64(len(content)) || res.cursor.Line != 5 {
		t.Errorf("cursor %+v, want the whole file: offset %d, line 5", res.cursor, len(content))
	}
}

// TestReadJSONL_wrappedArray: records exported inside an object (an API's
// {"records": [...]}, a dump's {"data": [...]}), minified on one line or
// pretty-printed, are not read where the wrapper is ambiguous: a line of
// a JSONL file, an object with fields of a record's own ("tags"), with
// two arrays of objects, or whose array's elements are not records;
// which array holds the records is the export's word, not the reader's
// guess (TestReadJSONL_dayOne reads a plain wrapper). The problem says
// they are wrapped and under which key, where it said the line lacked an
// "id". An object that is a record missing its id is still told so.
func TestReadJSONL_wrappedArray(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"api.jsonl":   `{"count":2,"records":[{"id":"a","text":"first"},{"id":"b","text":"second"}]}` + "\n",
		"dump.json":   "{\n  \"exported\": \"2026-03-01\",\n  \"tags\": [\"x\"],\n  \"data\": [\n    {\"id\": \"c\", \"text\": \"third\"}\n  ]\n}\n",
		"record.json": "{\n  \"text\": \"a record without an id\",\n  \"tags\": [\"x\"]\n}\n",
		"two.json":    "{\n  \"users\": [{\"id\": \"u\", \"text\": \"a user\"}],\n  \"notes\": [{\"id\": \"n\", \"text\": \"a note\"}]\n}\n",
		"items.json":  "{\n  \"meta\": {\"v\": 1},\n  \"items\": [{\"name\": \"not a record\"}]\n}\n",
	})
	recs, problems := collect(t, jsonSource(dir))
	if len(recs) != 0 {
		t.Errorf("records %v, want none", recs)
	}
	want := map[string]string{"api.jsonl": `under "records"`, "dump.json": `under "data"`, "record.json": `missing or empty "id"`,
		"two.json": `under "users"`, "items.json": `under "items"`}
	if len(problems) != len(want) {
		t.Fatalf("problems %v, want one per file", problems)
	}
	for _, p := range problems {
		w, ok := want[filepath.Base(p.Path)]
		if !ok || p.Line != 1 || !strings.Contains(p.Reason, w) {
			t.Errorf("problem %+v, want line 1 and %q", p, w)
		}
		if filepath.Base(p.Path) != "record.json" && (!strings.Contains(p.Reason, "wrapped") || strings.Contains(p.Reason, `"id"`)) {
			t.Errorf("problem %+v, want it to say the records are wrapped, not that an id is missing", p)
		}
	}
}

// TestReadJSONL_wrapperElementTooLong: the records of a plain wrapper
// (Day One's Journal.json) are streamed as an array's are, one held at a
// time: an entry longer than maxLineBytes is reported at its line, named
// by its key and index, and the entries before it stand.
func TestReadJSONL_wrapperElementTooLong(t *testing.T) {
	dir := t.TempDir()
	big := `{"uuid": "B2", "creationDate": "2024-05-05T18:00:00Z", "text": "` + strings.Repeat("word ", maxLineBytes/5+1024) + `"}`
	content := "{\n  \"metadata\" : {\"version\" : \"1.0\"},\n  \"entries\" : [\n" +
		`    {"uuid": "B1", "creationDate": "2024-05-04T18:00:00Z", "text": "before the big one"},` + "\n    " + big + ",\n" +
		`    {"uuid": "B3", "creationDate": "2024-05-06T18:00:00Z", "text": "after"}` + "\n  ]\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "Journal.json"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	recs, problems := collect(t, jsonSource(dir))
	if len(recs) != 1 || recs[0].ID != "B1" {
		t.Fatalf("records %d (%q), want B1 alone; problems %v", len(recs), recs[0].ID, problems)
	}
	if len(problems) != 1 || problems[0].Line != 5 || !strings.Contains(problems[0].Reason, `"entries" element [1]`) ||
		!strings.Contains(problems[0].Reason, "longer than") {
		t.Fatalf("problems %v, want \"entries\" element [1] at line 5, too long", problems)
	}
}
