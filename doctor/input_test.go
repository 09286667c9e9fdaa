package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/memory"
)

// binaryNote is what a .md that is not text looks like to the reader.
var binaryNote = "\x7fELF\x02\x01\x01\x00" + strings.Repeat("\x00\x01\x02\x03", 100)

// TestInput: a sync over a source with a binary .md beside a good one,
// and a jsonl file with malformed lines: doctor names the skipped files
// with their reasons (the first few in the check, all of them in the
// report), leaves out a file gone from its source, and is Ready once the
// files are fixed and synced.
func TestInput(t *testing.T) {
	f := newFixture(t)
	notes := filepath.Join(filepath.Dir(f.src), "md")
	good, bin := filepath.Join(notes, "good.md"), filepath.Join(notes, "bin.md")
	novatest.Must(t, os.MkdirAll(notes, 0o700))
	novatest.Must(t, os.WriteFile(good, []byte("# Queue\nWe chose SQLite for the queue.\n"), 0o600))
	novatest.Must(t, os.WriteFile(bin, []byte(binaryNote), 0o600))
	f.extra = fmt.Sprintf("  - {name: docs, kind: markdown, path: %q}\n", notes)
	f.writeConfig()
	f.sync()

	rep := f.run(Options{})
	c := want(t, rep, "input", Degraded, CodeInputSkipped)
	if !strings.Contains(c.Message, "input of 1 file was skipped") || !strings.Contains(c.Message, bin+": binary content") ||
		strings.Contains(c.Message, good) || strings.Contains(c.Message, f.src) {
		t.Errorf("input: %s", c.Message)
	}
	if !strings.Contains(c.Advice, "fix or remove the file") || !strings.Contains(c.Advice, "novactl index sync") {
		t.Errorf("input advice: %s", c.Advice)
	}
	if len(rep.SkippedInput) != 1 || rep.SkippedInput[0].Path != bin || rep.SkippedInput[0].Source != "docs" ||
		rep.SkippedInput[0].Count != 1 || !strings.HasPrefix(rep.SkippedInput[0].Reason, "binary content") {
		t.Errorf("skipped input: %+v", rep.SkippedInput)
	}

	// More files than the check names: the report lists every one, with
	// path, source, count and reason.
	var bins []string
	for i := range 3 {
		p := filepath.Join(notes, fmt.Sprintf("bin%d.md", i))
		novatest.Must(t, os.WriteFile(p, []byte(binaryNote), 0o600))
		bins = append(bins, p)
	}
	novatest.Must(t, os.WriteFile(f.src, []byte(`{"id":"r1","text":"we chose SQLite for the queue","date":"2026-03-01"}`+"\nnot json\n{\"text\":\"no id\"}\n"), 0o600))
	f.sync()
	rep = f.run(Options{})
	c = want(t, rep, "input", Degraded, CodeInputSkipped)
	if !strings.Contains(c.Message, "input of 5 files") || !strings.HasSuffix(c.Message, "; and 2 more") || !strings.Contains(c.Advice, "--json") {
		t.Errorf("five files: %s (%s)", c.Message, c.Advice)
	}
	b, err := json.Marshal(rep)
	novatest.Must(t, err)
	var wire struct {
		SkippedInput []map[string]any `json:"skippedInput"`
	}
	novatest.Must(t, json.Unmarshal(b, &wire))
	var paths []string
	for _, s := range wire.SkippedInput {
		paths = append(paths, s["path"].(string))
		if s["path"] == f.src && (s["source"] != "notes" || s["count"] != 2.0 || !strings.HasPrefix(s["reason"].(string), "line 2: not a JSON object: ")) {
			t.Errorf("the jsonl file in --json: %v", s)
		}
	}
	// Sources in the configuration's order, files by path.
	if w := append([]string{f.src, bin}, bins...); !slices.Equal(paths, w) {
		t.Errorf("--json lists %v, want %v", paths, w)
	}

	// A file gone from its source keeps its memory, not its place here.
	novatest.Must(t, os.Remove(bins[0]))
	f.sync()
	if rep = f.run(Options{}); len(rep.SkippedInput) != 4 || slices.ContainsFunc(rep.SkippedInput, func(s SkippedFile) bool { return s.Path == bins[0] }) {
		t.Errorf("after a removal: %+v", rep.SkippedInput)
	}

	// Fixed (a while before the sync: a jsonl file with fewer lines
	// written a moment ago is taken for a rewrite in progress), synced:
	// Ready.
	earlier := time.Now().Add(-time.Hour)
	novatest.Must(t, os.WriteFile(f.src, []byte(`{"id":"r1","text":"we chose SQLite for the queue","date":"2026-03-01"}`+"\n"), 0o600))
	novatest.Must(t, os.Chtimes(f.src, earlier, earlier))
	for _, p := range append([]string{bin}, bins[1:]...) {
		novatest.Must(t, os.Remove(p))
	}
	novatest.Must(t, os.WriteFile(bin, []byte("# Release\nRelease 2.4.1 shipped on Friday.\n"), 0o600))
	novatest.Must(t, os.Chtimes(bin, earlier, earlier))
	f.sync()
	rep = f.run(Options{})
	want(t, rep, "input", Ready, "")
	if rep.SkippedInput != nil {
		t.Errorf("fixed: %+v", rep.SkippedInput)
	}
}

// TestInput_interruptedWrites: a live file whose only skipped input is
// the remains of a write a crash interrupted (NUL padding, a line cut
// short) has nothing to fix: the check stays Ready and says so (it told
// the user to fix or remove a live transcript), the report still lists
// it, and a fixable problem beside it is named first.
func TestInput_interruptedWrites(t *testing.T) {
	f := newFixture(t)
	good := `{"id":"r1","text":"we chose SQLite for the queue","date":"2026-03-01"}` + "\n"
	padded := good + `{"id":"r2","text":"cut sh` + strings.Repeat("\x00", 64) + `{"id":"r3","text":"after the crash"}` + "\n"
	novatest.Must(t, os.WriteFile(f.src, []byte(padded), 0o600))
	f.sync()
	rep := f.run(Options{})
	c := want(t, rep, "input", Ready, "")
	if !strings.Contains(c.Message, "no input to fix; 1 file holds the remains of a write a crash interrupted") || !strings.Contains(c.Message, f.src+": line 2: ") {
		t.Errorf("input: %s", c.Message)
	}
	if len(rep.SkippedInput) != 1 || rep.SkippedInput[0].Interrupted != 1 || rep.SkippedInput[0].Count != 1 {
		t.Errorf("skipped input: %+v", rep.SkippedInput)
	}

	novatest.Must(t, os.WriteFile(f.src, []byte(padded+"not json\n"), 0o600))
	f.sync()
	rep = f.run(Options{})
	c = want(t, rep, "input", Degraded, CodeInputSkipped)
	// The file's other records are searchable: removing it would drop
	// them too.
	if !strings.Contains(c.Message, f.src+": line 3: not a JSON object") || !strings.Contains(c.Advice, "fix the input named in the file") || strings.Contains(c.Advice, "fix or remove") {
		t.Errorf("with a malformed line too: %s (%s)", c.Message, c.Advice)
	}
}

// TestSkippedFile_describe: how the input check names a file.
func TestSkippedFile_describe(t *testing.T) {
	for _, tt := range []struct {
		s    SkippedFile
		want string
	}{
		{SkippedFile{Path: "/n/a.md", Count: 1, Reason: "binary content"}, "/n/a.md: binary content"},
		{SkippedFile{Path: "/n/b.jsonl", Count: 3, Reason: "line 12: not a JSON object"}, "/n/b.jsonl: line 12: not a JSON object (2 more in this file)"},
		// Read by a Nova that counted problems without their reason.
		{SkippedFile{Path: "/n/c.jsonl", Count: 1}, "/n/c.jsonl: 1 problem (novactl index sync --full says which)"},
		{SkippedFile{Path: "/n/d.jsonl", Count: 4}, "/n/d.jsonl: 4 problems (novactl index sync --full says which)"},
	} {
		if got := tt.s.describe(); got != tt.want {
			t.Errorf("describe(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

// TestDiskSpace: with less room on NOVA_HOME's volume than a full sync
// needs, doctor says so (every check stayed Ready while syncs failed on
// a full disk); with room, it says how much there is.
func TestDiskSpace(t *testing.T) {
	f := newFixture(t)
	m := f.sync()
	room := func(n uint64) func(string) (uint64, error) {
		return func(string) (uint64, error) { return n, nil }
	}
	c := want(t, f.run(Options{FreeSpace: room(1 << 20)}), "disk", Degraded, CodeDiskSpaceLow)
	if !strings.Contains(c.Message, "1.0 MiB free on the volume of "+f.home.Root) || !strings.Contains(c.Message, "a full sync needs about 64 MiB") ||
		!strings.Contains(c.Advice, "free space") {
		t.Errorf("low: %+v", c)
	}
	big := uint64(m.Bytes()) * 100
	c = want(t, f.run(Options{FreeSpace: room(big + 1<<30)}), "disk", Ready, "")
	if !strings.Contains(c.Message, "free on the volume of") {
		t.Errorf("room: %+v", c)
	}
	// The real volume: a check whatever its answer.
	rep := f.run(Options{})
	if !hasCheck(rep, "disk") {
		t.Errorf("no disk check on this machine's volume: %+v", rep.Checks)
	}
}

// TestEmptySources: with no index and no file in any source, doctor does
// not send the user to a sync that can only fail ("the sources produced
// no memory"): the source says it holds nothing yet, and the index check
// says what to do.
func TestEmptySources(t *testing.T) {
	f := newFixture(t)
	empty := filepath.Join(filepath.Dir(f.src), "empty")
	novatest.Must(t, os.MkdirAll(empty, 0o700))
	f.src = empty
	f.writeConfig()
	rep := f.run(Options{})
	c := want(t, rep, "index", Blocked, CodeIndexMissing)
	if !strings.Contains(c.Advice, "nothing to index yet") {
		t.Errorf("index advice with empty sources: %q", c.Advice)
	}
	if s := want(t, rep, "source:notes", Ready, ""); !strings.Contains(s.Message, "holds no file a jsonl source reads yet") {
		t.Errorf("empty source: %q", s.Message)
	}
}

// TestNoSources: with no index and no source configured (no config.yaml,
// or one that lists none), the index check does not send the user to a
// sync that can only fail ("the sources produced no memory") but to the
// sources check, which says how to add one.
func TestNoSources(t *testing.T) {
	for _, withFile := range []bool{false, true} {
		t.Run(fmt.Sprintf("config.yaml=%v", withFile), func(t *testing.T) {
			f := newFixture(t)
			novatest.Must(t, os.Remove(f.home.Config()))
			// Closed ports, in the environment: never the default ones.
			f.environ = append(f.environ, fmt.Sprintf("NOVA_SERVER_PORT=%d", f.port), fmt.Sprintf("NOVA_FACADE_PORT=%d", novatest.ClosedPort(t, f.port)))
			if withFile {
				novatest.Must(t, os.WriteFile(f.home.Config(), []byte("retrieval: {topK: 5}\n"), 0o600))
			}
			rep := f.run(Options{})
			want(t, rep, "sources", Degraded, CodeNoSources)
			c := want(t, rep, "index", Blocked, CodeIndexMissing)
			if c.Advice == "build one: novactl index sync" || !strings.Contains(c.Advice, "sources check") {
				t.Errorf("index advice with no source: %q", c.Advice)
			}
		})
	}
}

// TestInput_lostBaseState: the base of the source states
// (index/states/<id>.json) deleted or damaged loses only how far each file
// was read, not memory. Doctor says so and that the next sync reads the
// sources again; it called the generation corrupt and offered a rollback,
// which would drop the memory added since.
func TestInput_lostBaseState(t *testing.T) {
	f := newFixture(t)
	f.sync()
	novatest.Must(t, os.WriteFile(f.src, []byte(`{"id":"r1","text":"we chose SQLite for the queue","date":"2026-03-01"}`+"\n"+
		`{"id":"r2","text":"the queue keeps a week of jobs","date":"2026-03-02"}`+"\n"), 0o600))
	f.sync()
	bases, err := filepath.Glob(filepath.Join(f.home.IndexDir(), "states", "*.json"))
	novatest.Must(t, err)
	if len(bases) != 1 {
		t.Fatalf("base states after an incremental sync: %v", bases)
	}
	novatest.Must(t, os.Remove(bases[0]))
	c := want(t, f.run(Options{}), "input", Degraded, CodeGenerationCorrupt)
	if !strings.Contains(c.Message, bases[0]) || !strings.Contains(c.Message, "memory is intact") {
		t.Errorf("lost base: %s", c.Message)
	}
	if !strings.Contains(c.Advice, "novactl index sync") || strings.Contains(c.Advice, "rollback") {
		t.Errorf("lost base advice: %s", c.Advice)
	}
}

// TestSourcesHoldNoMemory: with no index and sources whose files hold
// nothing their kinds read (JSONL lines without text, a note of headings
// only), novactl index sync fails ("the sources produced no memory to
// index") and sends the user to doctor, which sent the user back to the
// sync ("build one") and called each source readable. Doctor now says
// which sources hold no memory and why, and that a sync has nothing to
// index yet.
func TestSourcesHoldNoMemory(t *testing.T) {
	f := newFixture(t)
	novatest.Must(t, os.WriteFile(f.src, []byte(`{"id":"r1","body":"we chose SQLite for the queue"}`+"\n"), 0o600))
	notes := filepath.Join(filepath.Dir(f.src), "notes")
	novatest.Must(t, os.MkdirAll(notes, 0o700))
	novatest.Must(t, os.WriteFile(filepath.Join(notes, "a.md"), []byte("# Queue\n"), 0o600))
	f.extra = fmt.Sprintf("  - {name: docs, kind: markdown, path: %q}\n", notes)
	f.writeConfig()
	if _, err := index.New(f.config(), index.Options{NoRemote: true}).Sync(context.Background()); !errors.Is(err, index.ErrNothingToIndex) {
		t.Fatalf("sync of sources without memory: %v, want %v", err, index.ErrNothingToIndex)
	}
	rep := f.run(Options{})
	c := want(t, rep, "index", Blocked, CodeIndexMissing)
	if !strings.Contains(c.Advice, "nothing to index yet") || !strings.Contains(c.Advice, "notes") || !strings.Contains(c.Advice, "docs") {
		t.Errorf("index advice with sources that hold no memory: %q", c.Advice)
	}
	if s := check(t, rep, "source:notes"); !strings.Contains(s.Message, "holds no memory a jsonl source reads") ||
		!strings.Contains(s.Message, `notes.jsonl:1: missing or empty "text"`) {
		t.Errorf("jsonl source without memory: %q", s.Message)
	}
	if s := check(t, rep, "source:docs"); !strings.Contains(s.Message, "holds no memory a markdown source reads") {
		t.Errorf("markdown source without memory: %q", s.Message)
	}

	// One source with memory is enough for a sync: the advice is the sync.
	novatest.Must(t, os.WriteFile(filepath.Join(notes, "a.md"), []byte("# Queue\n\nWe chose SQLite for the queue.\n"), 0o600))
	rep = f.run(Options{})
	if c := want(t, rep, "index", Blocked, CodeIndexMissing); c.Advice != "build one: novactl index sync" {
		t.Errorf("index advice with memory in a source: %q", c.Advice)
	}
	if s := check(t, rep, "source:docs"); strings.Contains(s.Message, "no memory") {
		t.Errorf("markdown source with memory: %q", s.Message)
	}
}

// TestGoneFilesAsTheActiveIndexHoldsThem: the gone check names the files
// whose memory the active generation keeps after they disappeared, with
// or without a watcher, and says nothing once novactl index sync
// --prune-missing dropped them, whatever the watcher's last sync saw.
func TestGoneFilesAsTheActiveIndexHoldsThem(t *testing.T) {
	f := newFixture(t)
	notes := filepath.Join(filepath.Dir(f.src), "md")
	kept, deleted := filepath.Join(notes, "kept.md"), filepath.Join(notes, "deleted.md")
	novatest.Must(t, os.MkdirAll(notes, 0o700))
	novatest.Must(t, os.WriteFile(kept, []byte("# Queue\nWe chose SQLite for the queue.\n"), 0o600))
	novatest.Must(t, os.WriteFile(deleted, []byte("# Replica\nThe replica lags because wal_keep_size is 64MB.\n"), 0o600))
	f.extra = fmt.Sprintf("  - {name: docs, kind: markdown, path: %q}\n", notes)
	f.writeConfig()
	f.sync()
	novatest.Must(t, os.Remove(deleted))
	f.sync()

	// No watcher has ever run: the sync alone kept the memory.
	c := find(f.run(Options{}), "gone")
	if c == nil || c.State != Ready || !strings.Contains(c.Message, "memory is kept for 1 source file that no longer exists: "+deleted) {
		t.Fatalf("gone after a sync without a watcher: %+v", c)
	}

	// The watcher's last sync saw it gone; the operator then pruned it.
	st := &freshness.State{SchemaVersion: freshness.SchemaVersion, Gone: freshness.Gone{Count: 1, Files: []string{deleted}}}
	novatest.Must(t, freshness.Write(f.home, st))
	_, err := index.New(f.config(), index.Options{NoRemote: true, PruneMissing: true}).Sync(context.Background())
	novatest.Must(t, err)
	if c := find(f.run(Options{}), "gone"); c != nil {
		t.Fatalf("gone after --prune-missing: %+v", c)
	}
}

// TestInput_unknownLineShape: an agent's transcript with a line of a
// shape newer than its reader is the agent's file, fine as it is: the
// advice is to update Nova, not to fix or remove the transcript.
func TestInput_unknownLineShape(t *testing.T) {
	f := newFixture(t)
	projects := filepath.Join(filepath.Dir(f.src), "projects")
	session := filepath.Join(projects, "-home-dev-src-zoo", "5b1c2d3e-0000-4a4a-9b9b-0000000000aa.jsonl")
	novatest.Must(t, os.MkdirAll(filepath.Dir(session), 0o700))
	novatest.Must(t, os.WriteFile(session, []byte(
		`{"type":"user","cwd":"/home/dev/src/zoo","sessionId":"5b1c2d3e-0000-4a4a-9b9b-0000000000aa","uuid":"u1","timestamp":"2026-11-30T10:00:01Z","message":{"role":"user","content":"Where do the heron photos go?"}}`+"\n"+
			`{"type":"mood-ring","color":"teal","sessionId":"5b1c2d3e-0000-4a4a-9b9b-0000000000aa"}`+"\n"), 0o600))
	f.extra = fmt.Sprintf("  - {name: claude, kind: claude-code, path: %q}\n", projects)
	f.writeConfig()
	f.sync()
	c := want(t, f.run(Options{}), "input", Degraded, CodeInputSkipped)
	if !strings.Contains(c.Message, session) || !strings.Contains(c.Message, "line shape") {
		t.Errorf("input: %s", c.Message)
	}
	if strings.Contains(c.Advice, "fix or remove") || !strings.Contains(c.Advice, "update Nova") {
		t.Errorf("advice for a transcript newer than its reader: %s", c.Advice)
	}

	// Beside a note to fix, each advice is given for its own files.
	notes := filepath.Join(filepath.Dir(f.src), "md")
	novatest.Must(t, os.MkdirAll(notes, 0o700))
	novatest.Must(t, os.WriteFile(filepath.Join(notes, "bin.md"), []byte(binaryNote), 0o600))
	f.extra += fmt.Sprintf("  - {name: docs, kind: markdown, path: %q}\n", notes)
	f.writeConfig()
	f.sync()
	c = want(t, f.run(Options{}), "input", Degraded, CodeInputSkipped)
	if !strings.Contains(c.Advice, "fix or remove the files") || !strings.Contains(c.Advice, "do not remove it, update Nova") {
		t.Errorf("advice for a note to fix beside a transcript newer than its reader: %s", c.Advice)
	}
}

// TestSourcesHoldNoMemory_cursorFolder: a cursor source that names
// ~/.cursor rather than its projects folder lists no transcript; the
// check says which folder the path is to name.
func TestSourcesHoldNoMemory_cursorFolder(t *testing.T) {
	f := newFixture(t)
	dot := filepath.Join(filepath.Dir(f.src), ".cursor")
	transcript := filepath.Join(dot, "projects", "home-ada-shop", "agent-transcripts", "s", "s.jsonl")
	novatest.Must(t, os.MkdirAll(filepath.Dir(transcript), 0o700))
	novatest.Must(t, os.WriteFile(transcript, []byte(`{"role":"user","message":{"content":"<user_query>Where is the shop's stock kept?</user_query>"}}`+"\n"), 0o600))
	f.extra = fmt.Sprintf("  - {name: cu, kind: cursor, path: %q}\n", dot)
	f.writeConfig()
	if s := check(t, f.run(Options{}), "source:cu"); !strings.Contains(s.Message, "holds no file a cursor source reads yet; its path is Cursor's projects folder (~/.cursor/projects") {
		t.Errorf("cursor source naming ~/.cursor: %q", s.Message)
	}
}

// TestSourcesHoldNoMemory_chatExportZip: a chat-export source over a
// folder that holds the export's zip, not unzipped, lists nothing; the
// check says the exports are to be unzipped there.
func TestSourcesHoldNoMemory_chatExportZip(t *testing.T) {
	f := newFixture(t)
	downloads := filepath.Join(filepath.Dir(f.src), "downloads")
	novatest.Must(t, os.MkdirAll(downloads, 0o700))
	novatest.Must(t, os.WriteFile(filepath.Join(downloads, "chatgpt-export.zip"), []byte("PK\x03\x04"), 0o600))
	f.extra = fmt.Sprintf("  - {name: chats, kind: chat-export, path: %q}\n", downloads)
	f.writeConfig()
	if s := check(t, f.run(Options{}), "source:chats"); !strings.Contains(s.Message, "holds no file a chat-export source reads yet; its path is a folder of unzipped ChatGPT or Claude.ai exports") {
		t.Errorf("chat-export source over a zip: %q", s.Message)
	}
}

// TestInput_duplicateIDs: a record left out because an earlier record of
// its source has its id (an export copied twice, a record appended again
// to its file) is input not in memory: the sync that met it reported it,
// and so does doctor after it, as after any other skipped line. Before,
// doctor was Ready: with novad's watcher syncing, nothing ever said the
// record was not searchable.
func TestInput_duplicateIDs(t *testing.T) {
	f := newFixture(t)
	exports := filepath.Join(filepath.Dir(f.src), "exports")
	first, second := filepath.Join(exports, "a-march.jsonl"), filepath.Join(exports, "b-march-copy.jsonl")
	novatest.Must(t, os.MkdirAll(exports, 0o700))
	novatest.Must(t, os.WriteFile(first, []byte(`{"id":"e1","text":"the ledger closes on the fifth"}`+"\n"), 0o600))
	novatest.Must(t, os.WriteFile(second, []byte(`{"id":"e2","text":"payroll runs on the 25th"}`+"\n"+`{"id":"e1","text":"the ledger closes on the sixth"}`+"\n"), 0o600))
	f.extra = fmt.Sprintf("  - {name: exports, kind: jsonl, path: %q}\n", exports)
	f.writeConfig()
	f.sync()

	rep := f.run(Options{})
	c := want(t, rep, "input", Degraded, CodeInputSkipped)
	if !strings.Contains(c.Message, "input of 1 file was skipped") || !strings.Contains(c.Message, second+": ") || !strings.Contains(c.Message, `duplicate id "e1"`) {
		t.Errorf("input: %s", c.Message)
	}
	if len(rep.SkippedInput) != 1 || rep.SkippedInput[0].Path != second || rep.SkippedInput[0].Count != 1 ||
		!strings.HasPrefix(rep.SkippedInput[0].Reason, `duplicate id "e1"`) {
		t.Errorf("skipped input: %+v", rep.SkippedInput)
	}

	// A record appended again to its own file, read on from the cursor:
	// still named, the file's count with it.
	f2, err := os.OpenFile(first, os.O_WRONLY|os.O_APPEND, 0)
	novatest.Must(t, err)
	_, err = f2.WriteString(`{"id":"e1","text":"the ledger closes on the seventh"}` + "\n")
	novatest.Must(t, errors.Join(err, f2.Close()))
	f.sync()
	rep = f.run(Options{})
	want(t, rep, "input", Degraded, CodeInputSkipped)
	counts := map[string]int{}
	for _, s := range rep.SkippedInput {
		counts[s.Path] = s.Count
		if !strings.Contains(s.Reason, `duplicate id "e1"`) {
			t.Errorf("%s: reason %q", s.Path, s.Reason)
		}
	}
	if counts[first] != 1 || counts[second] != 1 || len(counts) != 2 {
		t.Errorf("skipped input after an append: %+v", rep.SkippedInput)
	}
}

// TestInput_redactedIDsNoDuplicate: records whose ids differ only in
// the secrets redaction takes out (notes named for tokens, jsonl ids
// that are keys) are not the user's duplicates: doctor stays Ready and
// names none. Each became "[redacted]" and all but the first were
// reported as duplicate ids the user should fix.
func TestInput_redactedIDsNoDuplicate(t *testing.T) {
	const (
		ghpA = "ghp_R4nD0mT0k3nV4lu3F0rT3st1ngXyZ9q8wA"
		ghpB = "ghp_Q9zW3xK7mN2pL5vB8cR1tY6uI4oE0aSdFgB"
		skA  = "sk-proj-Xq7Lm2Np9Rt4Vw1Yz6Ab3Cd8Ef5Gh0Jk2Mn7Pq4Rs9Tu1Vw6Xy3Za8Bc5De0FgHjA"
		skB  = "sk-proj-Wp3Kn8Mq1Rs6Tv9Xy4Zb7Ac2Df5Eg0Hj3Km8Np1Qr6St9Uv4Wx7Yz2Ab5Cd0EfGhB"
	)
	f := newFixture(t)
	exports := filepath.Join(filepath.Dir(f.src), "exports")
	novatest.Must(t, os.MkdirAll(exports, 0o700))
	novatest.Must(t, os.WriteFile(filepath.Join(exports, "keys.jsonl"), []byte(`{"id":"`+skA+`","text":"the violin bow needs new horsehair"}`+"\n"+`{"id":"`+skB+`","text":"the telescope mirror was recoated"}`+"\n"), 0o600))
	notes := filepath.Join(filepath.Dir(f.src), "vault")
	novatest.Must(t, os.MkdirAll(notes, 0o700))
	novatest.Must(t, os.WriteFile(filepath.Join(notes, ghpA+".md"), []byte("The orchard ladder leans on the north barn.\n"), 0o600))
	novatest.Must(t, os.WriteFile(filepath.Join(notes, ghpB+".md"), []byte("The kiln cools for two days before glazing.\n"), 0o600))
	f.extra = fmt.Sprintf("  - {name: exports, kind: jsonl, path: %q}\n  - {name: vault, kind: markdown, path: %q}\n", exports, notes)
	f.writeConfig()
	f.sync()

	rep := f.run(Options{})
	c := want(t, rep, "input", Ready, "")
	if strings.Contains(c.Message, "duplicate") || len(rep.SkippedInput) != 0 {
		t.Errorf("input: %s; skipped %+v", c.Message, rep.SkippedInput)
	}
}

// TestDuplicateReason: a dropped record is named by its own id whatever
// its first chunk's id looks like (memory.ChunkID).
func TestDuplicateReason(t *testing.T) {
	for _, id := range []string{"e1", "x#2", "x#", "a#b", "42"} {
		for _, parts := range []int{1, 3} {
			got := duplicateReason("src", memory.ChunkID("src", id, 1, parts))
			if !strings.HasPrefix(got, fmt.Sprintf("duplicate id %q:", id)) {
				t.Errorf("id %q in %d parts: %s", id, parts, got)
			}
		}
	}
}

// TestDiskSpace_quotaUsedUp: the volume's free space does not count the
// user's disk quota; when the watcher's last sync failed because the
// quota is used up (EDQUOT), doctor says so instead of "plenty of room".
// A generation promoted since (a sync by hand after room was made) clears
// it.
func TestDiskSpace_quotaUsedUp(t *testing.T) {
	f := newFixture(t)
	m := f.sync()
	plenty := func(string) (uint64, error) { return 1 << 40, nil }
	failed := func(at time.Time, noRoom string) {
		t.Helper()
		st := &freshness.State{SchemaVersion: freshness.SchemaVersion, PID: 1, StartedAt: at.Add(-time.Hour), UpdatedAt: at,
			LastSync: &freshness.Sync{StartedAt: at.Add(-time.Second), FinishedAt: at, Result: freshness.ResultFailed, NoRoom: noRoom,
				Error: "your disk quota on the disk holding " + f.home.Root + " is used up"}}
		novatest.Must(t, freshness.Write(f.home, st))
	}
	failed(m.CreatedAt.Add(time.Minute), index.CauseQuota)
	c := want(t, f.run(Options{FreeSpace: plenty}), "disk", Degraded, CodeDiskSpaceLow)
	if !strings.Contains(c.Message, "quota") || strings.Contains(c.Message, "1.0 TiB free") || !strings.Contains(c.Advice, "quota") {
		t.Errorf("quota used up: %+v", c)
	}
	// A full disk is what the free space already shows.
	failed(m.CreatedAt.Add(time.Minute), index.CauseNoSpace)
	want(t, f.run(Options{FreeSpace: plenty}), "disk", Ready, "")
	// Synced since the failure.
	failed(m.CreatedAt.Add(-time.Minute), index.CauseQuota)
	want(t, f.run(Options{FreeSpace: plenty}), "disk", Ready, "")
}

// TestSourcesHoldNoMemory_notesExport: a source over a notes app's
// export that its kind's globs do not list (a markdown source over a
// Takeout's Keep folder or a Day One export, over HTML notes; a jsonl
// source without *.json over a Keep folder) says what the folder holds
// and the line that reads it. Before, it said only that the folder held
// no file the source reads.
func TestSourcesHoldNoMemory_notesExport(t *testing.T) {
	f := newFixture(t)
	root := filepath.Dir(f.src)
	write := func(rel, content string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		novatest.Must(t, os.MkdirAll(filepath.Dir(p), 0o700))
		novatest.Must(t, os.WriteFile(p, []byte(content), 0o600))
	}
	write("Takeout/Keep/Boiler.json", `{"isTrashed":false,"textContent":"The boiler engineer is Priya","title":"Boiler","createdTimestampUsec":1717000000000000}`)
	write("Takeout/Keep/Boiler.html", "<html><body>The boiler engineer is Priya</body></html>")
	write("Day One/Journal.json", "{\n  \"metadata\" : {\n    \"version\" : \"1.0\"\n  },\n  \"entries\" : [\n  ]\n}\n")
	write("Apple Notes/Kiosk.html", "<html><body>The kiosk reboots at noon</body></html>")
	f.extra = fmt.Sprintf("  - {name: keep, kind: markdown, path: %q}\n  - {name: keep2, kind: jsonl, path: %q}\n  - {name: journal, kind: markdown, path: %q}\n  - {name: apple, kind: markdown, path: %q}\n",
		filepath.Join(root, "Takeout"), filepath.Join(root, "Takeout", "Keep"), filepath.Join(root, "Day One"), filepath.Join(root, "Apple Notes"))
	f.writeConfig()
	rep := f.run(Options{})
	for id, want := range map[string]string{
		"source:keep":    "holds Google Keep notes (Takeout), which a jsonl source reads: {kind: jsonl, path: '" + filepath.Join(root, "Takeout", "Keep") + "', include: ['*.json']}",
		"source:keep2":   "holds Google Keep notes (Takeout), which a jsonl source reads: {kind: jsonl, path: '" + filepath.Join(root, "Takeout", "Keep") + "', include: ['*.json']}",
		"source:journal": "holds a Day One journal (Journal.json), which a jsonl source reads: {kind: jsonl, path: '" + filepath.Join(root, "Day One") + "', include: ['*.json']}",
		"source:apple":   "holds HTML notes, which a markdown source reads with include: ['*.md', '*.html']",
	} {
		if s := check(t, rep, id); !strings.Contains(s.Message, want) {
			t.Errorf("%s: %q, want %q in it", id, s.Message, want)
		}
	}
}

// TestInput_searchableRestIsNotToBeRemoved: the advice to remove a file
// whose input was skipped, or leave it out, is given only for files of
// which nothing is searchable; beside files whose other records are
// searchable it says what removing them costs, and with none such it is
// to fix the input alone. It said "fix or remove" for every file, and
// taken literally dropped the records a sync had read.
func TestInput_searchableRestIsNotToBeRemoved(t *testing.T) {
	f := newFixture(t)
	good := `{"id":"r1","text":"we chose SQLite for the queue","date":"2026-03-01"}` + "\n"
	novatest.Must(t, os.WriteFile(f.src, []byte(good+"not json\n"), 0o600))
	other := filepath.Join(filepath.Dir(f.src), "other.jsonl")
	novatest.Must(t, os.WriteFile(other, []byte(`{"id":"o1","text":"the queue keeps a week of jobs"}`+"\n{cut\n"), 0o600))
	f.extra = fmt.Sprintf("  - {name: other, kind: jsonl, path: %q}\n", other)
	f.writeConfig()
	f.sync()
	c := want(t, f.run(Options{}), "input", Degraded, CodeInputSkipped)
	if !strings.HasPrefix(c.Advice, "fix the input named in each file, then novactl index sync; the rest of each file is searchable") {
		t.Errorf("two files with searchable records: %s", c.Advice)
	}

	// Beside a file of which nothing was read.
	bin := filepath.Join(filepath.Dir(f.src), "bin.jsonl")
	novatest.Must(t, os.WriteFile(bin, []byte("{not json\n"), 0o600))
	f.extra += fmt.Sprintf("  - {name: bin, kind: jsonl, path: %q}\n", bin)
	f.writeConfig()
	f.sync()
	c = want(t, f.run(Options{}), "input", Degraded, CodeInputSkipped)
	if !strings.HasPrefix(c.Advice, "fix the input named in each file, then novactl index sync; removing a file, or leaving it out (sources[].exclude), drops whatever of it is searchable too") {
		t.Errorf("beside a file of which nothing is searchable: %s", c.Advice)
	}
}
