package ingest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
)

// The fast paths for ids and tags must decode exactly what encoding/json
// does, or step aside for it.
func TestPlainStringsDecodeAsJSONDoes(t *testing.T) {
	for _, raw := range []string{
		`"rec-1"`, `""`, `" spaced "`, `"naïve 名字"`, `"a\"b"`, `"tab\tx"`, `"\u00e9"`, `12`, `null`, `["x"]`,
	} {
		got, ok := plainString([]byte(raw))
		var want string
		err := json.Unmarshal([]byte(raw), &want)
		if ok && (err != nil || got != want) {
			t.Errorf("plainString(%s) = %q, encoding/json %q (%v)", raw, got, want, err)
		}
	}
	for _, raw := range []string{
		`[]`, `[ ]`, `["a"]`, `["a","b"]`, ` [ "a" , "b" ] `, "[\n\t\"a\",\r\n\"b\"\n]", `["", " x "]`, `["naïve","名字"]`,
		`["a\"b"]`, `["a\\"]`, `["\u0041"]`, `[1]`, `["a",1]`, `[null]`, `"a,b"`, `{"a":1}`, `[["a"]]`, `["a"]x`,
	} {
		got, ok := plainStrings([]byte(raw))
		var want []string
		err := json.Unmarshal([]byte(raw), &want)
		if ok && (err != nil || !slices.Equal(got, want)) {
			t.Errorf("plainStrings(%s) = %q, encoding/json %q (%v)", raw, got, want, err)
		}
	}
	// The common forms take the fast path.
	if _, ok := plainString([]byte(`"rec-000001-00af"`)); !ok {
		t.Error("a plain id did not take the fast path")
	}
	if _, ok := plainStrings([]byte(`["ops","bug"]`)); !ok {
		t.Error("plain tags did not take the fast path")
	}
}

// TestRead_recordFieldTypes: a record whose session, conversation,
// subject or project is a number (an id from a database) is read, the
// number as written, as its id is; one whose other field has a wrong
// type is reported naming that field. Both were skipped as "not a JSON
// object".
func TestRead_recordFieldTypes(t *testing.T) {
	dir := writeTree(t, map[string]string{"r.jsonl": `{"id":"n1","text":"numeric keys","session":42,"project":7,"subject":1234,"conversation":99}` + "\n" +
		`{"id":"n2","text":"a list for a title","title":["x"]}` + "\n" +
		`{"id":"n3","text":"null keys","session":null,"project":null}` + "\n"})
	recs, problems := collect(t, config.Source{Name: "recs", Kind: config.KindJSONL, Path: dir})
	if len(recs) != 2 || len(problems) != 1 {
		t.Fatalf("records %+v, problems %v", recs, problems)
	}
	if r := recs[0]; r.ID != "n1" || r.SessionID != "42" || r.Project != "7" || r.Subject != "1234" || r.Conversation != "99" {
		t.Errorf("record %s: session %q project %q subject %q conversation %q", r.ID, r.SessionID, r.Project, r.Subject, r.Conversation)
	}
	if r := recs[1]; r.ID != "n3" || r.SessionID != "" || r.Project != "" || r.Conversation != "r.jsonl|" {
		t.Errorf("record %s: session %q project %q conversation %q", r.ID, r.SessionID, r.Project, r.Conversation)
	}
	if p := problems[0]; p.Line != 2 || !strings.Contains(p.Reason, `"title"`) || strings.Contains(p.Reason, "not a JSON object") {
		t.Errorf("problem %v", p)
	}
}

// TestRead_subjectKey: a subject is read as its version-chain key (see
// subjectKey), and a secret in it is redacted before it is folded: lower
// case, an AWS key no longer looks like one.
func TestRead_subjectKey(t *testing.T) {
	dir := writeTree(t, map[string]string{"r.jsonl": `{"id":"s1","text":"a subject retyped","subject":"  Primary\tDatabase  "}` + "\n" +
		`{"id":"s2","text":"a key for a subject","subject":"rotate AKIAQ7RT2WX5YZ3KLM4N"}` + "\n"})
	recs, problems := collect(t, config.Source{Name: "recs", Kind: config.KindJSONL, Path: dir})
	if len(recs) != 2 || len(problems) != 0 {
		t.Fatalf("records %+v, problems %v", recs, problems)
	}
	if got := recs[0].Subject; got != "primary database" {
		t.Errorf("subject %q, want %q", got, "primary database")
	}
	if got := recs[1].Subject; strings.Contains(strings.ToLower(got), "akiaq7rt2wx5yz3klm4n") || recs[1].Redactions == 0 {
		t.Errorf("subject %q (%d redactions): the key was not redacted", got, recs[1].Redactions)
	}
}

// TestRead_epochDates: exports from databases and chat tools write a
// record's time as Unix seconds or milliseconds, as a number or as a
// string of digits (a fraction of a second too), and some a compact
// YYYYMMDD. Such a record is read with its time, in the machine's zone
// for its day; before, it was skipped, its date "not RFC 3339".
func TestRead_epochDates(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	at := time.Date(2026, 6, 30, 20, 30, 0, 0, time.UTC) // 2026-07-01 05:30 in Tokyo
	for _, c := range []struct{ date, day string }{
		{`1782851400`, "2026-07-01"},
		{`"1782851400"`, "2026-07-01"},
		{`1782851400.25`, "2026-07-01"},
		{`"1782851400.25"`, "2026-07-01"},
		{`1782851400000`, "2026-07-01"},
		{`"1782851400250"`, "2026-07-01"},
		{`20260630`, "2026-06-30"},
		{`"20260630"`, "2026-06-30"},
	} {
		rec, reason, err := parseJSONLLine([]byte(`{"id":"e1","text":"deploy","date":`+c.date+`}`), tokyo)
		if err != nil || reason != "" {
			t.Errorf("date %s: skipped: %q %v", c.date, reason, err)
			continue
		}
		if rec.Date != c.day {
			t.Errorf("date %s: day %s, want %s", c.date, rec.Date, c.day)
		}
		if c.day == "2026-07-01" && rec.Time.Truncate(time.Second) != at {
			t.Errorf("date %s: time %v, want %v", c.date, rec.Time, at)
		}
	}
	// Read from a file as a Windows tool writes it: a byte-order mark,
	// CRLF, no line break after the last record.
	dir := writeTree(t, map[string]string{"export.jsonl": "\ufeff" + `{"id":"m1","text":"first","date":1782851400,"meta":{"channel":"ops","n":[1,2]}}` + "\r\n" +
		`{"id":"m2","text":"second","date":"1782851400250","unknown":true}` + "\r\n" +
		`{"id":"m3","text":"third","date":20260630}`})
	recs, problems := collect(t, config.Source{Name: "recs", Kind: config.KindJSONL, Path: dir})
	if len(recs) != 3 || len(problems) != 0 {
		t.Fatalf("records %+v, problems %v", recs, problems)
	}
	local := at.In(time.Local).Format("2006-01-02") // a reader's zone is the machine's
	for i, want := range []string{local, local, "2026-06-30"} {
		if recs[i].Date != want {
			t.Errorf("record %s: date %q, want %q", recs[i].ID, recs[i].Date, want)
		}
	}
	// What is not a time is still reported, naming the value.
	for _, date := range []string{`0`, `-5`, `"12"`, `true`, `{"t":1}`, `"next tuesday"`} {
		_, reason, err := parseJSONLLine([]byte(`{"id":"e1","text":"deploy","date":`+date+`}`), tokyo)
		if err != nil || !strings.Contains(reason, "date") {
			t.Errorf("date %s: reason %q (%v), want one naming the date", date, reason, err)
		}
	}
}

// TestRead_exportedTimestamps: the timestamps languages and databases
// print by default, each an instant with its offset. A record dated so
// was skipped, its date "not RFC 3339".
func TestRead_exportedTimestamps(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	for _, c := range []struct {
		date string
		at   time.Time
	}{
		{"2026-06-01 10:00:00 UTC", time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)},            // Ruby's Time#to_s
		{"2026-06-01 12:00:00.5 +0200 CEST", time.Date(2026, 6, 1, 10, 0, 0, 5e8, time.UTC)}, // Go's Time.String
		{"2026-06-01 15:30:00.123+05:30", time.Date(2026, 6, 1, 10, 0, 0, 123e6, time.UTC)},  // PostgreSQL timestamptz
		{"2026-06-01 10:00:00+00", time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)},             // PostgreSQL in UTC
		{"2026-06-01T10:00Z", time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)},                  // ISO 8601 without seconds
		{"2026-06-01T12:00+02:00", time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)},             // the same with an offset
	} {
		rec, reason, err := parseJSONLLine([]byte(`{"id":"t1","text":"deploy","date":"`+c.date+`"}`), tokyo)
		if err != nil || reason != "" {
			t.Errorf("%s: skipped: %q %v", c.date, reason, err)
			continue
		}
		if !rec.Time.Equal(c.at) || rec.Date != "2026-06-01" {
			t.Errorf("%s: %s %v, want 2026-06-01 at %v", c.date, rec.Date, rec.Time, c.at)
		}
	}
	// A zone named but not known by its offset is not guessed.
	if _, reason, _ := parseJSONLLine([]byte(`{"id":"t1","text":"deploy","date":"2026-06-01 10:00:00 CEST"}`), tokyo); reason == "" {
		t.Error("a time in a named zone without an offset was read")
	}
}

// TestRead_emailDates: records exported from mail and from JavaScript
// carry an RFC 2822 date (an email's Date header, Date.toUTCString()) or
// JavaScript's Date.toString(). Such a record is read with its time, its
// day in its own offset; before, it was skipped, its date "not RFC 3339".
// A zone named without a known offset (PST, CEST) is still not guessed.
func TestRead_emailDates(t *testing.T) {
	at := time.Date(2026, 3, 4, 23, 30, 0, 0, time.UTC)
	lines := []string{
		`{"id":"m1","text":"header","date":"Wed, 04 Mar 2026 23:30:00 +0000"}`,
		`{"id":"m2","text":"utc string","date":"Wed, 04 Mar 2026 23:30:00 GMT"}`,
		`{"id":"m3","text":"one digit day, offset","date":"Thu, 5 Mar 2026 01:30:00 +0200"}`,
		`{"id":"m4","text":"no weekday, no seconds","date":"4 Mar 2026 18:30 -0500"}`,
		`{"id":"m5","text":"a comment after","date":"Wed, 04 Mar 2026 23:30:00 +0000 (UTC)"}`,
		`{"id":"m6","text":"javascript","date":"Thu Mar 05 2026 00:30:00 GMT+0100 (Central European Standard Time)"}`,
		`{"id":"m7","text":"UT","date":"Wed, 04 Mar 2026 23:30:00 UT"}`,
		`{"id":"bad1","text":"named zone","date":"Wed, 04 Mar 2026 23:30:00 PST"}`,
		`{"id":"bad2","text":"named zone","date":"Wed, 04 Mar 2026 23:30:00 CEST"}`,
	}
	dir := writeTree(t, map[string]string{"mail.jsonl": strings.Join(lines, "\r\n") + "\r\n"})
	recs, problems := collect(t, config.Source{Name: "recs", Kind: config.KindJSONL, Path: dir})
	days := map[string]string{"m1": "2026-03-04", "m2": "2026-03-04", "m3": "2026-03-05", "m4": "2026-03-04", "m5": "2026-03-04", "m6": "2026-03-05", "m7": "2026-03-04"}
	for _, r := range recs {
		if want, ok := days[r.ID]; !ok || r.Date != want || !r.Time.Equal(at) {
			t.Errorf("record %s: %s %v, want %s at %v", r.ID, r.Date, r.Time, want, at)
		}
		delete(days, r.ID)
	}
	for id := range days {
		t.Errorf("record %s was not read", id)
	}
	if len(problems) != 2 {
		t.Fatalf("problems %v, want the two named zones", problems)
	}
	for i, p := range problems {
		if p.Line != 8+i || !strings.Contains(p.Reason, "date") || !strings.Contains(p.Reason, "RFC 2822") {
			t.Errorf("problem %v, want line %d naming the date and the forms read", p, 8+i)
		}
	}
}

// TestRead_textParts: exports from chat tools write a record's text as
// its parts: a list of strings (ChatGPT's content.parts), a list of
// content blocks ({"type":"text","text":...}, as the Anthropic and OpenAI
// APIs and Gemini's parts write them), or one such block. Such a record
// is read with its text blocks' words, one part a line, and its other
// blocks (an image, a tool call, a model's thoughts) left out; before,
// it was skipped, "text" not a string. A record with no words in any
// part, or parts of another shape, is still reported.
func TestRead_textParts(t *testing.T) {
	lines := []string{
		`{"id":"p1","text":["the deploy runs at noon","then the cache warms"]}`,
		`{"id":"p2","text":[{"type":"text","text":"billing uses postgres"},{"type":"image","source":{"data":"iVBOR"}},{"type":"output_text","text":"version 16"}]}`,
		`{"id":"p3","text":{"type":"text","text":"one block, token ghp_abcdefghijklmnopqrstuvwxyz0123456789"}}`,
		`{"id":"p4","text":[{"text":"thinking it over","thought":true},{"text":"the answer is 42"}],"title":"gemini"}`,
		`{"id":"p5","text":[{"type":"image","url":"x"}]}`,
		`{"id":"p6","text":[1,2]}`,
		`{"id":"p7","text":["fine words"],"agent":7}`,
		`{"id":"p8","text":[{"type":"tool_use","text":"not words"}]}`,
	}
	dir := writeTree(t, map[string]string{"chat.jsonl": strings.Join(lines, "\n") + "\n"})
	recs, problems := collect(t, config.Source{Name: "recs", Kind: config.KindJSONL, Path: dir})
	want := map[string]string{
		"p1": "the deploy runs at noon\nthen the cache warms",
		"p2": "billing uses postgres\nversion 16",
		"p4": "the answer is 42",
	}
	for _, r := range recs {
		if r.ID == "p3" {
			if !strings.HasPrefix(r.Text, "one block, token ") || strings.Contains(r.Text, "ghp_") || r.Redactions != 1 {
				t.Errorf("record p3: text %q (%d redactions), want the block's words with the token redacted", r.Text, r.Redactions)
			}
			delete(want, "p3")
			continue
		}
		if w, ok := want[r.ID]; !ok || r.Text != w {
			t.Errorf("record %s: text %q, want %q", r.ID, r.Text, w)
		}
		if r.ID == "p4" && r.Title != "gemini" {
			t.Errorf("record p4: title %q, the record's other fields were lost", r.Title)
		}
		delete(want, r.ID)
	}
	for id := range want {
		t.Errorf("record %s was not read", id)
	}
	wantProblems := []struct {
		line   int
		reason string
	}{{5, `missing or empty "text"`}, {6, `"text" must be`}, {7, `"agent" must be a string`}, {8, `missing or empty "text"`}}
	if len(problems) != len(wantProblems) {
		t.Fatalf("problems %v, want %v", problems, wantProblems)
	}
	for i, w := range wantProblems {
		if p := problems[i]; p.Line != w.line || !strings.Contains(p.Reason, w.reason) {
			t.Errorf("problem %v, want line %d: %s", p, w.line, w.reason)
		}
	}
}

// TestRead_concatenatedExports: files joined with cat (or Windows' type
// or copy /b), each saved with a byte-order mark, leave a mark at the
// start of a line inside the file. Such a line is its record, read
// without a problem; before, it was reported as "the start of a line cut
// short (a write a crash interrupted)", and a record whose line did not
// start with {" was lost as "not a JSON object".
func TestRead_concatenatedExports(t *testing.T) {
	dir := writeTree(t, map[string]string{"all.jsonl": "\ufeff" + `{"id":"a1","text":"from the first export"}` + "\r\n" +
		"\ufeff" + `{"id":"b1","text":"from the second export"}` + "\r\n" +
		"\ufeff" + `{ "id": "c1", "text": "from the third, spaced" }` + "\r\n"})
	recs, problems := collect(t, config.Source{Name: "recs", Kind: config.KindJSONL, Path: dir})
	if len(problems) != 0 {
		t.Errorf("problems %v, want none", problems)
	}
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	if !slices.Equal(ids, []string{"a1", "b1", "c1"}) {
		t.Errorf("records %v, want a1, b1, c1", ids)
	}
}

// TestRead_numberTitleAndTags: exports from spreadsheets and databases
// write a title that is a number (a year, a ticket number) as one, and
// tags the same ([2024, "q1"]). Such a record is read with the number as
// written, as a numeric id or project is; before, it was skipped. A
// value of another type is still reported.
func TestRead_numberTitleAndTags(t *testing.T) {
	dir := writeTree(t, map[string]string{"sheet.jsonl": `{"id":"n1","text":"the budget was approved","title":2024,"tags":[2024,"q1",7.5]}` + "\n" +
		`{"id":"n2","text":"a title list","title":["x"]}` + "\n" +
		`{"id":"n3","text":"a boolean tag","tags":["ok",true]}` + "\n"})
	recs, problems := collect(t, config.Source{Name: "recs", Kind: config.KindJSONL, Path: dir})
	if len(recs) != 1 {
		t.Fatalf("records %+v, want n1; problems %v", recs, problems)
	}
	if r := recs[0]; r.Title != "2024" || !slices.Equal(r.Tags, []string{"2024", "q1", "7.5"}) {
		t.Errorf("record n1: title %q, tags %q", r.Title, r.Tags)
	}
	if len(problems) != 2 || problems[0].Line != 2 || !strings.Contains(problems[0].Reason, `"title"`) ||
		problems[1].Line != 3 || !strings.Contains(problems[1].Reason, `"tags"`) {
		t.Errorf("problems %v, want the title of line 2 and the tags of line 3", problems)
	}
}

// TestRead_zoneSuffixedDates: Java's ZonedDateTime.toString() and
// JavaScript's Temporal write a time with its offset and then its zone's
// name in brackets (RFC 9557: 2026-03-04T23:30+01:00[Europe/Paris]). Such
// a record is read with its time, the offset deciding; before, it was
// skipped. A zone in brackets after a time without an offset is not
// guessed.
func TestRead_zoneSuffixedDates(t *testing.T) {
	at := time.Date(2026, 3, 4, 22, 30, 0, 0, time.UTC)
	dir := writeTree(t, map[string]string{"java.jsonl": `{"id":"j1","text":"zoned","date":"2026-03-04T23:30+01:00[Europe/Paris]"}` + "\n" +
		`{"id":"j2","text":"zoned, seconds","date":"2026-03-04T23:30:00.250+01:00[Europe/Paris]"}` + "\n" +
		`{"id":"j3","text":"utc","date":"2026-03-04T22:30:00Z[UTC]"}` + "\n" +
		`{"id":"j4","text":"no offset","date":"2026-03-04T23:30[Europe/Paris]"}` + "\n"})
	recs, problems := collect(t, config.Source{Name: "recs", Kind: config.KindJSONL, Path: dir})
	if len(recs) != 3 || len(problems) != 1 || problems[0].Line != 4 || !strings.Contains(problems[0].Reason, "date") {
		t.Fatalf("records %+v, problems %v; want j1-j3 and the date of line 4", recs, problems)
	}
	for _, r := range recs {
		if r.Date != "2026-03-04" || !r.Time.Truncate(time.Second).Equal(at) {
			t.Errorf("record %s: %s %v, want 2026-03-04 at %v", r.ID, r.Date, r.Time, at)
		}
	}
}

// TestRead_notUTF8Lines: a record with bytes that are not UTF-8 is read,
// as a note is, not dropped: a line saved as Windows-1252 (an export
// from a spreadsheet, "caf\xe9") is decoded as such, and a UTF-8 line
// with a damaged byte keeps its words with U+FFFD for the byte. Before,
// either line was a problem and its record lost. A line that is not
// JSON at all is still reported, at its line.
func TestRead_notUTF8Lines(t *testing.T) {
	lines := []string{
		"{\"id\":\"w1252\",\"text\":\"caf\xe9 cr\xe8me br\xfbl\xe9e\",\"title\":\"menu \x96 dessert\"}",
		"{\"id\":\"damaged\",\"text\":\"na\xefve \xe4\xb8\xad\xe6\x96\x87 and \xff bytes\"}",
		"not a record \xe9 at all",
		`{"id":"fine","text":"plain"}`,
	}
	dir := writeTree(t, map[string]string{"r.jsonl": strings.Join(lines, "\n") + "\n"})
	recs, problems := collect(t, config.Source{Name: "recs", Kind: config.KindJSONL, Path: dir})
	want := map[string]string{
		"w1252":   "café crème brûlée",
		"damaged": "na\uFFFDve 中文 and \uFFFD bytes",
		"fine":    "plain",
	}
	for _, r := range recs {
		if w, ok := want[r.ID]; !ok || r.Text != w {
			t.Errorf("record %s: text %q, want %q", r.ID, r.Text, w)
		}
		if r.ID == "w1252" && r.Title != "menu – dessert" {
			t.Errorf("title %q, want the en dash of Windows-1252's 0x96", r.Title)
		}
		delete(want, r.ID)
	}
	for id := range want {
		t.Errorf("record %s was not read", id)
	}
	if len(problems) != 1 || problems[0].Line != 3 || !strings.Contains(problems[0].Reason, "not a JSON object") {
		t.Errorf("problems %v, want line 3 only, not JSON", problems)
	}
}
