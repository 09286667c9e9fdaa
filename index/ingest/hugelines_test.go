package ingest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/internal/racebuild"
	"github.com/nova-recall/nova/memory"
)

// plainPassTests matches the tests that call plainPassOnly. Keep it the
// pattern of make test's plain pass (Makefile, PLAIN_PASS_TESTS), which
// runs them without the race detector.
const plainPassTests = `[hH]uge|bigNoteMemory|BoundedMemory`

// plainPassOnly skips a test under the race detector. It is for tests
// that read tens of MiB on one goroutine: the detector has nothing to
// check there and makes them 7 to 15 times slower (about 100 s of the
// package's 180 under -race, against 15 s without).
func plainPassOnly(t *testing.T) {
	t.Helper()
	if ok, _ := regexp.MatchString(plainPassTests, t.Name()); !ok {
		t.Fatalf("%s is not matched by plainPassTests, so make test would never run it", t.Name())
	}
	if racebuild.Enabled {
		t.Skip("one goroutine reading tens of MiB: make test runs it without the race detector")
	}
}

// hugeText is a JSON string body (escaped) of more than maxLineBytes of
// plain text: a pasted build log.
func hugeText() string {
	return strings.Repeat(`step ok \"built\" 日本\n`, maxLineBytes/20+(1<<16))
}

// TestReadFile_claudeResumedHugeLine: a resumed session's copy of a line
// over 16 MiB is known for a copy. The other session's file was scanned
// for its uuids without cutting, so that line was lost there, and its
// copy was indexed a second time as a turn of the resumed session.
func TestReadFile_claudeResumedHugeLine(t *testing.T) {
	plainPassOnly(t)
	dir := t.TempDir()
	line := func(session, uuid, ts, text string) string {
		return `{"type":"user","sessionId":"` + session + `","cwd":"/w/app","timestamp":"` + ts + `","uuid":"` + uuid + `","message":{"role":"user","content":"` + text + `"}}` + "\n"
	}
	huge := line("old", "u2", "2026-03-05T10:01:00Z", "Why does the build fail? "+hugeText())
	old := line("old", "u1", "2026-03-05T10:00:00Z", "first question") + huge
	resumed := line("old", "u1", "2026-03-05T10:00:00Z", "first question") + huge +
		line("new", "u3", "2026-03-06T09:00:00Z", "the resumed session's own question")
	for name, body := range map[string]string{"old.jsonl": old, "new.jsonl": resumed} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var res readResult
	readFrom(t, config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: dir}, filepath.Join(dir, "new.jsonl"), "new.jsonl", Cursor{}, &res)
	var texts []string
	for _, r := range res.records {
		texts = append(texts, r.Text[:min(len(r.Text), 40)])
	}
	if len(texts) != 1 || texts[0] != "the resumed session's own question" {
		t.Errorf("records %q; want only the resumed session's own question", texts)
	}
}

// TestReadFile_codexForkHugeLine: a forked Codex thread's copy of a
// line over 16 MiB is known for part of the history it copied. The
// parent's rollout was scanned without cutting, that line was lost there,
// and the copied history ended at it: it and every copied line after it
// were indexed again as the fork's.
func TestReadFile_codexForkHugeLine(t *testing.T) {
	plainPassOnly(t)
	dir := t.TempDir()
	const parent, child = "0197aaaa-bbbb-7ccc-8ddd-eeeeffff0001", "0197aaaa-bbbb-7ccc-8ddd-eeeeffff0002"
	meta := func(id string) string {
		return `{"timestamp":"2026-03-03T08:00:00Z","type":"session_meta","payload":{"id":"` + id + `","cwd":"/w/nova"}}` + "\n"
	}
	user := func(ts, text string) string {
		return `{"timestamp":"` + ts + `","type":"event_msg","payload":{"type":"user_message","message":"` + text + `"}}` + "\n"
	}
	history := meta(parent) + user("2026-03-03T08:00:01Z", "first") +
		user("2026-03-03T08:00:02Z", "Why does the build fail? "+hugeText()) +
		user("2026-03-03T08:00:03Z", "after the log")
	fork := meta(child) + history + user("2026-03-04T08:00:00Z", "the fork's own question")
	for name, body := range map[string]string{
		"rollout-2026-03-03T08-00-00-" + parent + ".jsonl": history,
		"rollout-2026-03-04T08-00-00-" + child + ".jsonl":  fork,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rel := "rollout-2026-03-04T08-00-00-" + child + ".jsonl"
	var res readResult
	readFrom(t, config.Source{Name: "codex", Kind: config.KindCodex, Path: dir}, filepath.Join(dir, rel), rel, Cursor{}, &res)
	var texts []string
	for _, r := range res.records {
		texts = append(texts, r.Text[:min(len(r.Text), 40)])
	}
	if len(texts) != 1 || texts[0] != "the fork's own question" {
		t.Errorf("records %q; want only the fork's own question", texts)
	}
}

// TestShrinker_allocates: a long line of text costs under three times
// its length to copy through a shrinker, the copy's growth included (it
// doubles); it was copied a byte at a time into a copy that grew by a
// quarter at a time once large, five times the line, 80 MiB for a line
// of 15 MiB. NOVA_HUGE_TESTS=1 runs it on a line just under the cut.
func TestShrinker_allocates(t *testing.T) {
	size := 4 << 20
	if os.Getenv("NOVA_HUGE_TESTS") != "" {
		size = maxLineBytes - cutReserveBytes - binaryStringBytes
	}
	const unit = `step ok \"built\" 日本\n`
	line := []byte(`{"type":"user","text":"` + strings.Repeat(unit, size/len(unit)) + `"}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, over := shrinkInPieces(line, maxLineBytes-cutReserveBytes, lineBufferBytes)
	runtime.ReadMemStats(&after)
	if over || len(out) != len(line) {
		t.Fatalf("over = %v, %d bytes of %d", over, len(out), len(line))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*uint64(len(line)) && !raceOn {
		t.Errorf("shrinking a %d KiB line allocated %d KiB", len(line)>>10, alloc>>10)
	}
}

// TestShrinker_cutEarly: a cut due before a long string is decided (in
// its first binaryStringBytes, or before it starts) falls at the first
// character boundary after them, whatever the window's end splits (a
// UTF-8 sequence, an escape, a surrogate pair's halves): the text kept
// is a start of the string's, with no broken character.
func TestShrinker_cutEarly(t *testing.T) {
	const unit = `é \"q\" \u00e9 \\ 日 \ud83d\ude00 x\n`
	const head = `{"a":"short","t":"`
	for pad := range len(unit) {
		in := head + strings.Repeat("p", pad) + strings.Repeat(unit, binaryStringBytes/len(unit)+20) + `","b":"after"}`
		var whole map[string]string
		if err := json.Unmarshal([]byte(in), &whole); err != nil {
			t.Fatal(err)
		}
		for _, at := range []int{1, len(head) + 5, len(head) + binaryStringBytes - 1} {
			out, over := shrinkInPieces([]byte(in), at, 5)
			var got map[string]string
			if over || json.Unmarshal(out, &got) != nil {
				t.Fatalf("pad %d, cut at %d: output not JSON: …%q", pad, at, out[max(0, len(out)-60):])
			}
			kept, cut := strings.CutSuffix(got["t"], cutMark)
			if !cut || !strings.HasPrefix(whole["t"], kept) || strings.ContainsRune(kept, utf8.RuneError) || got["b"] != "after" {
				t.Errorf("pad %d, cut at %d: t ends %q (%d bytes), b = %q", pad, at, got["t"][max(0, len(got["t"])-30):], len(got["t"]), got["b"])
			}
		}
	}
}

// liveHeap collects and returns the heap the collection found live.
func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// peakLiveHeap runs read while another goroutine collects and samples
// the live heap, and returns how far the live heap rose above what it
// was before. The live heap is what the last collection marked
// (runtime/metrics' /gc/heap/live:bytes), not MemStats.HeapAlloc read
// after it: that also counts what read allocated between the
// collection's end and the reading, garbage, and how much depends on the
// scheduler. On one processor (go test -cpu 1, or a loaded machine that
// keeps the sampler's thread waiting) read ran there and a big note's
// 23-27 MiB was sampled as 46-57. What read allocates while a
// collection marks still counts as live, so a loaded machine still adds
// some (up to 12 MiB of that note's 23 seen).
func peakLiveHeap(read func()) uint64 {
	live := liveHeap
	base := live()
	peak := base
	done, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			peak = max(peak, live())
			select {
			case <-done:
				return
			default:
			}
		}
	}()
	read()
	close(done)
	<-sampled
	return peak - min(base, peak)
}

// TestReadGemini_legacyBoundedMemory: a legacy recording (one JSON
// object) is read a message at a time, so what it holds is about its
// largest message, not the file: it was read whole (up to 256 MB) and
// held twice, the bytes and every message's copy. Most of the file is
// tool output, which is not read. NOVA_HUGE_TESTS=1 reads 200 MiB.
func TestReadGemini_legacyBoundedMemory(t *testing.T) {
	plainPassOnly(t)
	size := 16 << 20
	if os.Getenv("NOVA_HUGE_TESTS") != "" {
		size = 200 << 20
	}
	src, f := writeGemini(t, "")
	if err := os.Remove(f.Path); err != nil {
		t.Fatal(err)
	}
	legacy, rel := strings.TrimSuffix(f.Path, "l"), strings.TrimSuffix(f.Rel, "l")
	fh, err := os.Create(legacy)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(fh)
	output := strings.Repeat("line of a file the tool read\\n", (256<<10)/30)
	w.WriteString(`{"sessionId":"aaaaaaaa-0000-4000-8000-00000000000d","projectHash":"x","startTime":"2026-03-05T08:00:00.000Z","messages":[`)
	w.WriteString(`{"id":"u-0","timestamp":"2026-03-05T08:00:01.000Z","type":"user","content":"Which files mention the mailer?"}`)
	n := 0
	for written := 0; written < size; written += len(output) {
		n++
		ts := fmt.Sprintf("2026-03-05T08:%02d:%02d.000Z", n/60%60, n%60)
		fmt.Fprintf(w, `,{"id":"g-%d","timestamp":"%s","type":"gemini","content":"","toolCalls":[{"id":"t-%d","name":"read_file","args":{"file_path":"src/f%d.go"}}]}`, n, ts, n, n)
		fmt.Fprintf(w, `,{"id":"r-%d","timestamp":"%s","type":"user","content":[{"functionResponse":{"id":"t-%d","name":"read_file","response":{"output":"%s"}}}]}`, n, ts, n, output)
	}
	w.WriteString(`,{"id":"g-last","timestamp":"2026-03-05T09:00:00.000Z","type":"gemini","content":"Only the mailer package does."}],"summary":"Mailer files"}`)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	// What is built on first use (the secret rules) is not the file's
	// cost.
	readFrom(t, src, legacy, rel, Cursor{}, &readResult{})
	var got readResult
	peak := peakLiveHeap(func() { readFrom(t, src, legacy, rel, Cursor{}, &got) })
	if len(got.problems) != 0 {
		t.Errorf("problems %v", got.problems)
	}
	if len(got.records) != 2 || got.records[0].Text != "Which files mention the mailer?" || !strings.HasPrefix(got.records[1].Text, "Only the mailer package does.") {
		for _, r := range got.records {
			t.Logf("record %.100q", r.Text)
		}
		t.Errorf("%d records; want the prompt and the answer", len(got.records))
	}
	t.Logf("peak %d KiB", peak>>10)
	// Read whole, it held more than twice the file (37 MiB for 16);
	// a message at a time, a few MiB, but the sampler also counts what
	// other goroutines of the test binary hold: the bound is the file.
	if peak > uint64(size) {
		t.Errorf("reading a %d MiB recording held %d MiB", size>>20, peak>>20)
	}
}

// TestReadFile_nulTailSettled: a transcript that ends in NUL bytes with
// no line ending (a crash left it preallocated) is reported as a crash's
// remains once it has been left alone for settleAfter, and its cursor
// stays before them, so that a record appended after them is still read;
// written a moment ago it is taken for a write in progress and is not
// reported. It was silent however long it stayed so.
func TestReadFile_nulTailSettled(t *testing.T) {
	first := `{"type":"user","sessionId":"pad","cwd":"/w/app","timestamp":"2026-03-05T10:00:00Z","uuid":"u1","message":{"role":"user","content":"before the crash"}}` + "\n"
	src := config.Source{Name: "claude", Kind: config.KindClaudeCode}
	for _, tc := range []struct {
		name, body string
		age        time.Duration
		problem    int // the line reported, 0 for none
	}{
		{"after a record, settled", first + string(make([]byte, 1<<20)), time.Hour, 2},
		{"after a record, just written", first + string(make([]byte, 1<<20)), 0, 0},
		{"alone, settled", string(make([]byte, 1<<20)), time.Hour, 1},
		{"alone, just written", string(make([]byte, 1<<20)), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src.Path = dir
			path := filepath.Join(dir, "pad.jsonl")
			if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			mod := time.Now().Add(-tc.age)
			if err := os.Chtimes(path, mod, mod); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			var res readResult
			cur, err := ReadFile(context.Background(), src, File{Path: path, Rel: "pad.jsonl", Info: fi}, Cursor{}, Sink{
				Record:  func(r memory.Record) error { res.records = append(res.records, r); return nil },
				Problem: func(p Problem) { res.problems = append(res.problems, p) },
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := int64(len(tc.body) - 1<<20); cur.Offset != want {
				t.Errorf("cursor at %d, want %d (before the NUL bytes)", cur.Offset, want)
			}
			switch {
			case tc.problem == 0 && len(res.problems) != 0:
				t.Errorf("problems %+v; want none for a write in progress", res.problems)
			case tc.problem != 0 && (len(res.problems) != 1 || !res.problems[0].Interrupted || res.problems[0].Line != tc.problem):
				t.Errorf("problems %+v; want line %d's NUL bytes, a crash's remains", res.problems, tc.problem)
			}
		})
	}
}
