package ingest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/redact"
)

// writeHugeClaudeLine writes a Claude Code transcript whose second line
// is a prompt with a pasted image of imageBytes of base64, and returns its
// size.
func writeHugeClaudeLine(t *testing.T, path string, imageBytes int) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	w.WriteString(`{"type":"user","sessionId":"big","cwd":"/w/app","timestamp":"2026-03-05T10:00:00Z","uuid":"u1","message":{"role":"user","content":"before the image"}}` + "\n")
	w.WriteString(`{"type":"user","sessionId":"big","cwd":"/w/app","timestamp":"2026-03-05T10:01:00Z","uuid":"u2","message":{"role":"user","content":[{"type":"text","text":"The login page renders blank on Safari 17, see the screenshot."},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`)
	chunk := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAAB4AAAAQ4CAYAAADo08FDAAAgAElEQVR4nOzde3hU9b3v8c9aM5NJSEISYkJAQEREqoiKiqJ", 16)
	for n := 0; n < imageBytes; n += len(chunk) {
		w.WriteString(chunk)
	}
	w.WriteString(`"}},{"type":"text","text":"It works on Chrome."}]}}` + "\n")
	w.WriteString(`{"type":"assistant","sessionId":"big","cwd":"/w/app","timestamp":"2026-03-05T10:01:30Z","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Safari 17 lacks the :has() polyfill the login form relies on."}]}}` + "\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestReadFile_hugeClaudeLine reads a line over 16 MiB (a 17 MB pasted
// image): the text around the image is kept, the image becomes a marker,
// the lines after it are read, and reading allocates a small fraction of
// the line (it is never held whole, let alone twice).
func TestReadFile_hugeClaudeLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.jsonl")
	size := writeHugeClaudeLine(t, path, 17<<20)
	if size <= maxLineBytes {
		t.Fatalf("fixture is only %d bytes", size)
	}
	src := config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: dir}
	// What is built on first use (the secret rules, some 30 MiB) is not
	// the line's cost: run alone, this test counted it.
	readFrom(t, src, path, "big.jsonl", Cursor{}, &readResult{})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var res readResult
	readFrom(t, src, path, "big.jsonl", Cursor{}, &res)
	runtime.ReadMemStats(&after)
	if len(res.problems) != 0 {
		t.Errorf("problems: %v", res.problems)
	}
	var texts []string
	for _, r := range res.records {
		texts = append(texts, r.Text)
	}
	want := []string{
		"before the image",
		"The login page renders blank on Safari 17, see the screenshot.\n\n[image]\n\nIt works on Chrome.",
		"Safari 17 lacks the :has() polyfill the login form relies on.",
	}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Errorf("records %q, want %q", texts, want)
	}
	if res.cursor.Offset != size || res.cursor.Line != 3 {
		t.Errorf("cursor %+v, want the end of the file (%d) at line 3", res.cursor, size)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("reading a %d MiB line allocated %d MiB", size>>20, alloc>>20)
	}
}

func TestShrinker(t *testing.T) {
	long := strings.Repeat("QUJD", binaryStringBytes/4+10)
	prose := strings.Repeat("plain words, not base64. ", binaryStringBytes/20)
	tests := []struct {
		name, in string
		want     map[string]string
	}{
		{"base64 replaced", `{"a":"x","data":"` + long + `","b":"y"}`, map[string]string{"a": "x", "data": binaryMark, "b": "y"}},
		{"data URL replaced", `{"image_url":"data:image/png;base64,` + long + `"}`, map[string]string{"image_url": binaryMark}},
		{"escaped slashes are still base64", `{"d":"` + strings.Repeat(`ab\/`, binaryStringBytes/3) + `"}`, map[string]string{"d": binaryMark}},
		{"long prose kept", `{"t":"` + prose + `","q":"say \"hi\""}`, map[string]string{"t": prose, "q": `say "hi"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s shrinker
			s.reset()
			// Fed in small pieces, as the line scanner does.
			for i := 0; i < len(tt.in); i += 7 {
				s.write([]byte(tt.in[i:min(i+7, len(tt.in))]))
			}
			out, over := s.finish()
			var got map[string]string
			if over || json.Unmarshal(out, &got) != nil {
				t.Fatalf("over=%v, output not JSON: %.200s", over, out)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %.80q, want %.80q", k, got[k], v)
				}
			}
		})
	}
	t.Run("output past maxLineBytes is refused", func(t *testing.T) {
		var s shrinker
		s.reset()
		piece := []byte(`"` + strings.Repeat("words ", 1000) + `",`)
		s.write([]byte("["))
		for n := 0; n <= maxLineBytes; n += len(piece) {
			s.write(piece)
		}
		if out, over := s.finish(); !over || out != nil {
			t.Errorf("over = %v with %d bytes", over, len(out))
		}
	})
}

func TestReadFile_overlongLineReported(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.jsonl")
	text := strings.Repeat("many words of text ", (maxLineBytes/19)+10)
	content := `{"id":"huge","text":"` + text + `"}` + "\n" + `{"id":"next","text":"still read"}` + "\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	var res readResult
	readFrom(t, config.Source{Name: "rec", Kind: config.KindJSONL, Path: dir}, path, "r.jsonl", Cursor{}, &res)
	if len(res.records) != 1 || res.records[0].ID != "next" || res.records[0].Line != 2 {
		t.Errorf("records %+v", res.records)
	}
	if len(res.problems) != 1 || res.problems[0].Line != 1 || !strings.Contains(res.problems[0].Reason, "longer than") {
		t.Errorf("problems %v", res.problems)
	}
}

// FuzzShrinker: whatever JSON a line holds around a long string, the
// shrunk line is still JSON and its short strings come out unchanged.
// The long string (a fuzzed piece of a JSON string repeated past
// binaryStringBytes: the fuzzer's inputs are far shorter than that, and
// shrinking only starts there) comes out as binaryMark when its start is
// a base64 payload; else whole, or, when a cutting shrinker's cutAt
// falls inside it, as a start of it (cut at a character, so nothing
// decodes differently) followed by cutMark.
func FuzzShrinker(f *testing.F) {
	for _, seed := range []string{
		`{"a":"b"}`, `{"a":"b\"c","d":[1,2,{"e":"\\"}]}`, `["x",{"y":null}]`, `"just a string"`,
		`{"data":"` + strings.Repeat("QUJD", 300) + `"}`,
	} {
		f.Add(seed, "QUJD", 3, uint16(0))
		f.Add(seed, `step ok \"q\" \u00e9 \\ 日 \ud83d\ude00 x\n`, 5, uint16(70))
	}
	f.Add(`{"a":1}`, `ab\/`, 7, uint16(1))
	f.Add(`[]`, `data:image/png;base64,QUJD`, 64, uint16(90))
	f.Fuzz(func(t *testing.T, in, unit string, step int, cut uint16) {
		if !json.Valid([]byte(in)) || len(in) >= binaryStringBytes || step < 1 {
			return
		}
		var s shrinker
		s.reset()
		for i := 0; i < len(in); i += step {
			s.write([]byte(in[i:min(i+step, len(in))]))
		}
		out, over := s.finish()
		if over || string(out) != in {
			t.Fatalf("short input %q changed into %q (over %v)", in, out, over)
		}

		// unit is the inside of a JSON string, valid UTF-8 (a reader
		// hands the shrinker bytes as the file holds them; which of
		// several U+FFFD a cut keeps is not this property's business).
		if unit == "" || !utf8.ValidString(unit) || !json.Valid([]byte(`"`+unit+`"`)) {
			return
		}
		long := strings.Repeat(unit, binaryStringBytes/len(unit)+2)
		head := `[` + in + `,"`
		line := head + long + `",` + in + `]`
		// cutAt from a little before where the string is decided on to
		// a little past its end.
		cutAt := 0
		if cut > 0 {
			cutAt = len(head) + binaryStringBytes - 64 + int(cut)%(len(long)-binaryStringBytes+128)
		}
		out, over = shrinkInPieces([]byte(line), cutAt, step)
		var got []json.RawMessage
		if over || json.Unmarshal(out, &got) != nil || len(got) != 3 {
			t.Fatalf("over=%v, output not a JSON list of 3: …%q", over, out[max(0, len(out)-80):])
		}
		var inVal, first, last any
		if json.Unmarshal([]byte(in), &inVal) != nil || json.Unmarshal(got[0], &first) != nil || json.Unmarshal(got[2], &last) != nil ||
			!reflect.DeepEqual(first, inVal) || !reflect.DeepEqual(last, inVal) {
			t.Fatalf("%q around the long string came out %s and %s", in, got[0], got[2])
		}
		var whole, shrunk string
		if err := json.Unmarshal([]byte(`"`+long+`"`), &whole); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(got[1], &shrunk); err != nil {
			t.Fatalf("long string came out %.80s: %v", got[1], err)
		}
		// The cut falls on a byte read after the string's first
		// binaryStringBytes, at cutAt or past it.
		wantCut := cutAt > 0 && cutAt < len(head)+len(long) && len(long) > binaryStringBytes
		switch kept, isCut := strings.CutSuffix(shrunk, cutMark); {
		case base64Payload([]byte(long[:binaryStringBytes])):
			if shrunk != binaryMark {
				t.Errorf("base64 string %.40q… came out %.80q, want %q", long, shrunk, binaryMark)
			}
		case !wantCut:
			if shrunk != whole {
				t.Errorf("long string %.40q… (cutAt %d of %d) came out changed: …%q", long, cutAt, len(line), shrunk[max(0, len(shrunk)-60):])
			}
		case !isCut || !strings.HasPrefix(whole, kept):
			t.Errorf("long string %.40q… cut at %d came out …%q (%d bytes), want a start of it and %q", long, cutAt, shrunk[max(0, len(shrunk)-60):], len(shrunk), cutMark)
		}
	})
}

func TestSplitNULPadding(t *testing.T) {
	tests := []struct {
		in, line  string
		nuls, cut bool
	}{
		{`{"a":1}`, `{"a":1}`, false, false},
		{"\x00\x00\x00{\"a\":1}", `{"a":1}`, true, false},
		{"\x00\x00\x00", "", true, false},
		{"{\"a\":\x00\x00{\"b\":2}", `{"b":2}`, true, true},
		{"{\"a\":1}\x00\x00 ", `{"a":1}`, true, false},
	}
	for _, tt := range tests {
		line, nuls, cut := splitNULPadding([]byte(tt.in))
		if string(line) != tt.line || nuls != tt.nuls || cut != tt.cut {
			t.Errorf("splitNULPadding(%q) = %q, %v, %v; want %q, %v, %v", tt.in, line, nuls, cut, tt.line, tt.nuls, tt.cut)
		}
	}
}

// TestSplitNULPadding_allocates: a line of NUL bytes (a transcript a
// crash left preallocated, 10 MB of them) is split without a slice per
// NUL byte: bytes.Split made one, 240 MB for 10 MB, and a sync of such a
// file peaked at 300 MB.
func TestSplitNULPadding_allocates(t *testing.T) {
	b := make([]byte, 1<<20)
	copy(b[1000:], `{"a":1}`)
	if n := testing.AllocsPerRun(3, func() {
		if line, nuls, cut := splitNULPadding(b); string(line) != `{"a":1}` || !nuls || cut {
			t.Fatalf("splitNULPadding = %q, %v, %v", line, nuls, cut)
		}
	}); n > 0 {
		t.Errorf("splitNULPadding of 1 MiB of NUL bytes made %v allocations", n)
	}
}

// TestWithoutNULRuns: the padding of an interrupted write does not make
// a file of JSON lines binary, a UTF-16 one (a NUL after each ASCII
// character) still is.
func TestWithoutNULRuns(t *testing.T) {
	padded := "{\"a\":1}\n" + strings.Repeat("\x00", 300) + "{\"b\":2}\n"
	if binaryContent(string(withoutNULRuns([]byte(padded)))) {
		t.Error("NUL padding made JSON lines binary")
	}
	var utf16 []byte
	for _, c := range []byte("{\"a\":1}\r\n{\"b\":2}\r\n") {
		utf16 = append(utf16, c, 0)
	}
	if !binaryContent(string(withoutNULRuns(utf16))) {
		t.Error("UTF-16 text is no longer binary")
	}
}

func TestTornRecord(t *testing.T) {
	rec := `{"id":"a2","text":"the appended record {\"nested\": 1}"}`
	for _, c := range []struct {
		line, want string
		ok         bool
	}{
		{`{"id":"a1","text":"cut sho` + rec, rec, true},
		{`{"id":"a1","meta":{"k":"v"},"text":"cut` + rec, rec, true},
		{`not json at all`, "", false},
		{`{"id":"a1","text":"cut short, nothing after`, "", false},
		// Past the candidate bound: reported, not searched further.
		{strings.Repeat(`{"x`, 20) + rec, "", false},
	} {
		got, ok := tornRecord([]byte(c.line))
		if ok != c.ok || string(got) != c.want {
			t.Errorf("tornRecord(%.40q) = %q, %v, want %q, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

// TestReadFile_tornJSONL: a JSONL export whose writer was killed mid-line
// and then appended again keeps the appended record; the torn start and a
// line with nothing to recover are reported.
func TestReadFile_tornJSONL(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.jsonl")
	body := `{"id":"r1","text":"first"}` + "\n" +
		`{"id":"r2","text":"cut sh` + `{"id":"r3","text":"appended after the crash"}` + "\n" +
		`{"id":"r4","text":"no end` + "\n" +
		`{"id":"r5","text":"last"}` + "\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	var res readResult
	readFrom(t, config.Source{Name: "r", Kind: config.KindJSONL, Path: dir}, path, "r.jsonl", Cursor{}, &res)
	var ids []string
	for _, r := range res.records {
		ids = append(ids, r.ID)
	}
	if !slices.Equal(ids, []string{"r1", "r3", "r5"}) {
		t.Errorf("records %v, want r1 r3 r5", ids)
	}
	var lines []int
	for _, p := range res.problems {
		lines = append(lines, p.Line)
	}
	if !slices.Equal(lines, []int{2, 3}) {
		t.Errorf("problems %+v, want lines 2 (torn start) and 3 (not JSON)", res.problems)
	}
}

// TestReadFile_hugeClaudeTextLine reads a Claude Code line over 16 MiB
// of text, not base64 (a whole build log pasted into a prompt, or a tool
// result that holds one): the line is read with its long text cut (its
// question is memory), where the whole line was skipped and doctor,
// naming the session, advised to fix or remove it. A record of the
// generic jsonl kind longer than that is still skipped whole and
// reported (TestReadFile_overlongLineReported).
func TestReadFile_hugeClaudeTextLine(t *testing.T) {
	plainPassOnly(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "log.jsonl")
	// Multi-byte characters and escapes all through, so that a cut
	// falling on any byte must find the end of a character.
	logLine := `step ok é \"quoted\" \u00e9 \\ 日本 ` + `\n`
	var b strings.Builder
	b.WriteString(`{"type":"user","sessionId":"log","cwd":"/w/app","timestamp":"2026-03-05T10:00:00Z","uuid":"u1","message":{"role":"user","content":[{"type":"text","text":"Why does the nightly build fail? The log follows."},{"type":"text","text":"`)
	for b.Len() < maxLineBytes+(1<<20) {
		b.WriteString(logLine)
	}
	b.WriteString(`"}]}}` + "\n")
	b.WriteString(`{"type":"assistant","sessionId":"log","cwd":"/w/app","timestamp":"2026-03-05T10:01:30Z","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"The linker runs out of memory at step 40."}]}}` + "\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	var res readResult
	readFrom(t, config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: dir}, path, "log.jsonl", Cursor{}, &res)
	if len(res.problems) != 0 {
		t.Errorf("problems: %v", res.problems)
	}
	if len(res.records) != 2 || !strings.HasPrefix(res.records[0].Text, "Why does the nightly build fail?") || res.records[1].Text != "The linker runs out of memory at step 40." {
		for _, r := range res.records {
			t.Logf("record %.120q (%d bytes)", r.Text, len(r.Text))
		}
		t.Fatalf("%d records; want the question (with the start of its log) and the answer", len(res.records))
	}
	q := res.records[0].Text
	if !strings.HasSuffix(q, cutMark) || len(q) > maxLineBytes || !utf8.ValidString(q) || strings.Contains(q, "\uFFFD") {
		t.Errorf("question: %d bytes, ends %q; want it cut at a character, ending in %q", len(q), q[max(0, len(q)-40):], cutMark)
	}
}

// TestShrinker_cut: a long string an agent's line cuts (shrinker.cutAt)
// is cut at a character whatever byte the cut falls on (inside a UTF-8
// sequence, an escape, a surrogate pair), so the line stays JSON, the
// text kept is the start of the string's and nothing becomes U+FFFD;
// short strings and the fields after it are kept.
func TestShrinker_cut(t *testing.T) {
	unit := `é \"q\" \u00e9 \\ 日 \ud83d\ude00 x\n`
	long := strings.Repeat(unit, binaryStringBytes/len(unit)+20)
	in := `{"a":"short","t":"` + long + `","b":"after"}`
	var whole map[string]string
	if err := json.Unmarshal([]byte(in), &whole); err != nil {
		t.Fatal(err)
	}
	start := len(`{"a":"short","t":"`) + binaryStringBytes
	for at := start; at < start+2*len(unit); at++ {
		out, over := shrinkInPieces([]byte(in), at, 5)
		var got map[string]string
		if over || json.Unmarshal(out, &got) != nil {
			t.Fatalf("cut at %d: over=%v, output not JSON: …%q", at, over, out[max(0, len(out)-60):])
		}
		kept, cut := strings.CutSuffix(got["t"], cutMark)
		if !cut || !strings.HasPrefix(whole["t"], kept) || strings.ContainsRune(kept, utf8.RuneError) || len(kept) < binaryStringBytes/2 {
			t.Errorf("cut at %d: t ends %q (%d bytes); want a start of the string, then %q", at, got["t"][max(0, len(got["t"])-30):], len(got["t"]), cutMark)
		}
		if got["a"] != "short" || got["b"] != "after" {
			t.Errorf("cut at %d: a = %q, b = %q", at, got["a"], got["b"])
		}
	}
}

// cutSecrets are secrets of the shapes redaction knows by their own
// form, with no label before them.
var cutSecrets = []string{
	"ghp_R4nD0mT0k3nV4lu3F0rT3st1ngXyZ9q8w7",
	"AKIAQ7RT2WX5YZ3KLM4N",
	"xoxb-2837465019-5820394857-Kq7Lm2Xp9Rt4Vw8Zy1Bc5Df3",
}

// leakedPart returns the first 8 bytes of secret that text holds, or "".
func leakedPart(text, secret string) string {
	for i := 0; i+8 <= len(secret); i++ {
		if strings.Contains(text, secret[i:i+8]) {
			return secret[i : i+8]
		}
	}
	return ""
}

// TestShrinker_cutInSecret: a cut that falls inside a secret drops the
// whole word, so redaction of what is kept leaves nothing of it; the
// cut kept ghp_ and 28 of its 36 characters, which no rule knows as a
// token but which tell most of it.
func TestShrinker_cutInSecret(t *testing.T) {
	filler := strings.Repeat("step ok building target\\n", binaryStringBytes/24+10)
	for _, secret := range cutSecrets {
		head := `{"t":"` + filler + `token\n` + secret
		in := head + ` was rotated"}`
		for at := len(head) - len(secret) + 1; at <= len(head); at++ {
			out, over := shrinkInPieces([]byte(in), at, len(in))
			var got map[string]string
			if over || json.Unmarshal(out, &got) != nil {
				t.Fatalf("cut at %d: over=%v, output not JSON: …%q", at, over, out[max(0, len(out)-60):])
			}
			kept, _ := redact.Text(got["t"])
			if part := leakedPart(kept, secret); part != "" || !strings.HasSuffix(kept, "token\n"+cutMark) {
				t.Errorf("cut at %d of %s: kept ends %q; want the word cut dropped", at, secret[:4], kept[max(0, len(kept)-40):])
			}
		}
	}
}

// TestReadFile_hugeLineCutInSecret: an agent's line over 16 MiB whose
// cut falls inside a GitHub token indexes none of the token: 30 of its
// 40 characters were kept before [cut], unredacted.
func TestReadFile_hugeLineCutInSecret(t *testing.T) {
	plainPassOnly(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "log.jsonl")
	secret := cutSecrets[0]
	var b strings.Builder
	b.WriteString(`{"type":"user","sessionId":"log","cwd":"/w/app","timestamp":"2026-03-05T10:00:00Z","uuid":"u1","message":{"role":"user","content":[{"type":"text","text":"Why does the nightly build fail? The log follows."},{"type":"text","text":"`)
	// The secret starts 30 bytes before the cut (maxLineBytes - cutReserveBytes).
	start := maxLineBytes - cutReserveBytes - 30
	for b.Len() < start-30 {
		b.WriteString("step ok building target \\n")
	}
	b.WriteString(strings.Repeat("x", start-1-b.Len()) + " " + secret + " ")
	for b.Len() < maxLineBytes+(1<<20) {
		b.WriteString("step ok building target \\n")
	}
	b.WriteString(`"}]}}` + "\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	var res readResult
	readFrom(t, config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: dir}, path, "log.jsonl", Cursor{}, &res)
	if len(res.records) != 1 {
		t.Fatalf("%d records; want the question", len(res.records))
	}
	q := res.records[0].Text
	if part := leakedPart(q, secret); part != "" || !strings.HasSuffix(q, cutMark) {
		t.Errorf("question ends %q; want it cut before the token, none of it kept", q[max(0, len(q)-60):])
	}
}

// TestReadFile_longNULPadding: a transcript whose crash left more NUL
// bytes than a line may hold (20 MB), then an append, reads the record
// after the padding and calls the padding a crash's remains; the padding
// made the line too long, and the record was skipped with it.
func TestReadFile_longNULPadding(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pad.jsonl")
	first := `{"type":"user","sessionId":"pad","cwd":"/w/app","timestamp":"2026-03-05T10:00:00Z","uuid":"u1","message":{"role":"user","content":"before the crash"}}` + "\n"
	after := `{"type":"user","sessionId":"pad","cwd":"/w/app","timestamp":"2026-03-05T10:05:00Z","uuid":"u2","message":{"role":"user","content":"after the crash"}}` + "\n"
	content := first + string(make([]byte, maxLineBytes+(4<<20))) + after
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	var res readResult
	readFrom(t, config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: dir}, path, "pad.jsonl", Cursor{}, &res)
	var texts []string
	for _, r := range res.records {
		texts = append(texts, r.Text)
	}
	if strings.Join(texts, "|") != "before the crash|after the crash" {
		t.Errorf("records %q; want both", texts)
	}
	if len(res.problems) != 1 || !res.problems[0].Interrupted || res.problems[0].Line != 2 {
		t.Errorf("problems %+v; want line 2's NUL bytes, a crash's remains", res.problems)
	}
}

// shrinkInPieces runs a shrinker that cuts a long string at cutAt (0:
// never) over line, written in pieces of n bytes as a reader's buffer
// hands them over, and returns what it keeps and whether the line was
// over the limit.
func shrinkInPieces(line []byte, cutAt, n int) (out []byte, over bool) {
	var s shrinker
	s.reset()
	s.cutAt = cutAt
	for i := 0; i < len(line); i += n {
		s.write(line[i:min(i+n, len(line))])
	}
	return s.finish()
}
