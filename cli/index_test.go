package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/paths"
)

// TestSyncModes: a second sync after an append adds a delta; --full
// rebuilds every segment; a sync with nothing changed changes nothing.
func TestSyncModes(t *testing.T) {
	root, _, env := jsonlHome(t)
	data := filepath.Join(root, "src", "r.jsonl")
	mode := func(args ...string) string {
		t.Helper()
		code, out, errOut := runCLI(context.Background(), env, append([]string{"index", "sync", "--in-process", "--json"}, args...)...)
		if code != ExitOK {
			t.Fatalf("sync %v: exit %d\n%s\n%s", args, code, out, errOut)
		}
		var r struct {
			Result struct {
				Build struct{ Mode string }
			}
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("sync %v: %v\n%s", args, err, out)
		}
		return r.Result.Build.Mode
	}
	if m := mode(); m != "full" {
		t.Fatalf("first sync: mode %q", m)
	}
	f, err := os.OpenFile(data, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"id":"2","text":"the otter fishes below the mill"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if m := mode(); m != "incremental" {
		t.Errorf("sync after an append: mode %q", m)
	}
	if m := mode("--full"); m != "full" {
		t.Errorf("sync --full: mode %q", m)
	}
	if m := mode(); m != "unchanged" {
		t.Errorf("sync with nothing changed: mode %q", m)
	}
}

// jsonlHome makes a NOVA_HOME under a temporary root whose one jsonl
// source, root/src/r.jsonl, holds one record; env points novactl at it.
func jsonlHome(t *testing.T) (root string, home paths.Home, env []string) {
	t.Helper()
	root = t.TempDir()
	home = paths.Home{Root: filepath.Join(root, "nova")}
	src := filepath.Join(root, "src")
	for _, d := range []string{src, home.IndexDir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(src, "r.jsonl"), []byte(`{"id":"1","text":"the heron nests by the weir"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := "server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\nsources:\n  - {name: r, kind: jsonl, path: " + src + "}\n"
	if err := os.WriteFile(home.Config(), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return root, home, []string{"HOME=" + root, "NOVA_HOME=" + home.Root}
}

// TestIndex_unchangedText: a build or sync with nothing changed says, in
// text, that nothing was built and which generation stays active; it does
// not claim to have built the active one.
func TestIndex_unchangedText(t *testing.T) {
	_, _, env := jsonlHome(t)
	code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process", "--json")
	if code != ExitOK {
		t.Fatalf("first sync: exit %d\n%s\n%s", code, out, errOut)
	}
	var first struct {
		Result struct{ Build struct{ RunID string } }
	}
	if err := json.Unmarshal([]byte(out), &first); err != nil || first.Result.Build.RunID == "" {
		t.Fatalf("first sync: %v\n%s", err, out)
	}
	active := first.Result.Build.RunID
	for _, verb := range []string{"build", "sync"} {
		code, out, errOut := runCLI(context.Background(), env, "index", verb, "--in-process")
		if code != ExitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", verb, code, out, errOut)
		}
		want := "Nothing changed: the sources are as " + active + " read them, so no candidate was built and " + active + " stays active"
		if !strings.Contains(out, want) || strings.Contains(out, "Built") || strings.Contains(out, "Promoted") {
			t.Errorf("%s with nothing changed printed:\n%s\nwant %q and no Built or Promoted", verb, out, want)
		}
	}
}

// TestIndex_noSourcesSaysSo: a sync with no source configured says that,
// and how to add them, not to check the paths of sources that do not
// exist.
func TestIndex_noSourcesSaysSo(t *testing.T) {
	root := t.TempDir()
	env := []string{"HOME=" + root, "NOVA_HOME=" + filepath.Join(root, "nova")}
	code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process")
	if code != ExitFailure || !strings.Contains(errOut, "no sources are configured") || !strings.Contains(errOut, "novactl config init") || strings.Contains(errOut, "check the paths") {
		t.Errorf("sync with no sources: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestIndex_noSourcesInConfigSaysSo: a sync with a config.yaml that names
// no source (what config init writes where it finds no agent memory) says
// how to add one to that file: it said to run novactl config init, which
// the user had just run, and which only refuses while the file exists.
func TestIndex_noSourcesInConfigSaysSo(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "nova")
	novatest.Must(t, paths.MkdirPrivate(home))
	cfgPath := filepath.Join(home, "config.yaml")
	novatest.Must(t, os.WriteFile(cfgPath, []byte("sources: []\n"), 0o600))
	env := []string{"HOME=" + root, "NOVA_HOME=" + home}
	code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process")
	if code != ExitFailure || !strings.Contains(errOut, "no sources are configured") || !strings.Contains(errOut, cfgPath) ||
		!strings.Contains(errOut, "novactl config init --force --notes DIR") || strings.Contains(errOut, "check the paths") {
		t.Errorf("sync with a config.yaml of no sources: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestIndex_nothingToIndexSaysWhy: a sync whose sources give no memory
// (here a jsonl source whose every line is refused) shows what each
// source read and the problems that emptied it, in text and JSON, not
// only "check the paths in config.yaml".
func TestIndex_nothingToIndexSaysWhy(t *testing.T) {
	root, _, env := jsonlHome(t)
	if err := os.WriteFile(filepath.Join(root, "src", "r.jsonl"), []byte(`{"type":"user","message":{"role":"user","content":"hi"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process")
	if code != ExitFailure || !strings.Contains(errOut, "produced no memory") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"source r (jsonl): 1 files, 0 records", "r.jsonl:1"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(context.Background(), env, "index", "sync", "--in-process", "--json")
	var got struct {
		OK       bool
		Sources  []struct{ Name string }
		Problems []struct{ Reason string }
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != ExitFailure || got.OK || len(got.Sources) != 1 || len(got.Problems) == 0 {
		t.Errorf("--json: exit %d, %+v (%v)\n%s", code, got, err, out)
	}
}

// TestIndex_syncShowsWarnings: the index's warnings reach the operator
// (they were thrown away): here a damaged active generation, which the
// sync builds anew from scratch.
func TestIndex_syncShowsWarnings(t *testing.T) {
	_, home, env := jsonlHome(t)
	if code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process"); code != ExitOK {
		t.Fatalf("first sync: exit %d\n%s\n%s", code, out, errOut)
	}
	records, err := filepath.Glob(filepath.Join(home.IndexDir(), "segments", "*", "records.bin"))
	if err != nil || len(records) != 1 {
		t.Fatalf("segment records: %v %v", records, err)
	}
	if err := os.Chmod(records[0], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(records[0], 10); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process")
	if code != ExitOK {
		t.Fatalf("sync over a damaged generation: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "level=WARN") || !strings.Contains(errOut, "cannot be built upon") || strings.Contains(errOut, "time=") {
		t.Errorf("the warning was not shown, or not as expected:\n%s\n%s", errOut, out)
	}
}

// TestIndexList_saysABaseStateIsLost: index list named a generation whose
// base source state (index/states) is gone "intact", as if nothing were
// amiss; it says the states are lost, and that the memory is intact.
func TestIndexList_saysABaseStateIsLost(t *testing.T) {
	root, home, env := jsonlHome(t)
	sync := func() {
		t.Helper()
		if code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process"); code != ExitOK {
			t.Fatalf("sync: exit %d\n%s\n%s", code, out, errOut)
		}
	}
	sync()
	f, err := os.OpenFile(filepath.Join(root, "src", "r.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"id":"2","text":"the otter fishes below the mill"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	sync() // a delta: its states are written on a base
	bases, err := filepath.Glob(filepath.Join(home.IndexDir(), "states", "*.json"))
	if err != nil || len(bases) != 1 {
		t.Fatalf("base states: %v %v", bases, err)
	}
	if err := os.Remove(bases[0]); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(context.Background(), env, "index", "list")
	if code != ExitOK {
		t.Fatalf("list: exit %d\n%s\n%s", code, out, errOut)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 2 || !strings.Contains(lines[1], "active") || !strings.Contains(lines[1], "STATES LOST") ||
		!strings.Contains(out, "memory is intact") {
		t.Errorf("list with the active generation's base state deleted:\n%s", out)
	}
}

// TestIndexList_JSONEmptyIsAList: before the first build, index list
// --json lists no generations as [], not null: a script that iterates the
// result (for g in result) failed on a fresh home.
func TestIndexList_JSONEmptyIsAList(t *testing.T) {
	env := configHome(t, "server: {port: 0}\nfacade: {port: 0}\n")
	code, out, errOut := runCLI(context.Background(), env, "index", "list", "--json")
	var got struct {
		OK     bool
		Result json.RawMessage
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != ExitOK || !got.OK {
		t.Fatalf("exit %d, stdout %q (%v), stderr %q", code, out, err, errOut)
	}
	if string(got.Result) != "[]" {
		t.Errorf("result is %s, want []", got.Result)
	}
}

// TestIndexSync_namesTheCompaction: a sync whose delta was merged at once
// into a compaction named the delta as promoted, though the compaction
// had replaced it (and deleted it): the text did not name the generation
// left active, which a rollback or promote must be given.
func TestIndexSync_namesTheCompaction(t *testing.T) {
	root, home, env := jsonlHome(t)
	if code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process"); code != ExitOK {
		t.Fatalf("first sync: exit %d\n%s\n%s", code, out, errOut)
	}
	// A second record: its delta segment and the first, both of one
	// record, are merged at once.
	f, err := os.OpenFile(filepath.Join(root, "src", "r.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"id":"2","text":"the otter fishes below the mill"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process")
	if code != ExitOK {
		t.Fatalf("second sync: exit %d\n%s\n%s", code, out, errOut)
	}
	m, err := os.ReadFile(home.Manifest())
	if err != nil {
		t.Fatal(err)
	}
	var active struct{ RunID string }
	if err := json.Unmarshal(m, &active); err != nil || active.RunID == "" {
		t.Fatalf("manifest: %v\n%s", err, m)
	}
	gens, err := os.ReadDir(home.Generations())
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	for _, g := range gens {
		kept[g.Name()] = true
	}
	for _, line := range strings.Split(out, "\n") {
		if id, ok := strings.CutPrefix(line, "Promoted "); ok {
			id = strings.TrimRight(strings.Fields(id)[0], ",")
			if !kept[id] && !strings.Contains(line, "replaced it") {
				t.Errorf("the sync says it promoted %s, which is not kept, and not that it was replaced (active: %s):\n%s", id, active.RunID, out)
			}
		}
	}
	if !strings.Contains(out, active.RunID+" is active") {
		t.Errorf("the sync does not say that %s, the generation it left, is active:\n%s", active.RunID, out)
	}
}

// TestIndex_JSONDeletedIsAList: promote, rollback and sync --json list
// what retention removed as [] when it removed nothing, not null, as
// index list does: a script that iterates it failed.
func TestIndex_JSONDeletedIsAList(t *testing.T) {
	root, _, env := jsonlHome(t)
	run := func(args ...string) map[string]json.RawMessage {
		t.Helper()
		code, out, errOut := runCLI(context.Background(), env, append([]string{"index"}, args...)...)
		var got struct{ Result map[string]json.RawMessage }
		if err := json.Unmarshal([]byte(out), &got); err != nil || code != ExitOK {
			t.Fatalf("%v: exit %d (%v)\n%s\n%s", args, code, err, out, errOut)
		}
		return got.Result
	}
	deleted := func(name string, r map[string]json.RawMessage) {
		t.Helper()
		if string(r["deleted"]) != "[]" {
			t.Errorf("%s: deleted is %s, want []", name, r["deleted"])
		}
	}
	var promote map[string]json.RawMessage
	if err := json.Unmarshal(run("sync", "--in-process", "--json")["promote"], &promote); err != nil {
		t.Fatal(err)
	}
	deleted("sync", promote)
	if err := os.WriteFile(filepath.Join(root, "src", "r.jsonl"), []byte(`{"id":"2","text":"the otter fishes below the mill"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run("build", "--in-process", "--json")
	deleted("promote", run("promote", "--json"))
	deleted("rollback", run("rollback", "--json"))
}

// TestIndex_missingRunIDsSayWhy: a run id that cannot be promoted or
// rolled back to is named with the reason and the command to run: a
// candidate whose build did not finish (it showed the bare "open
// candidate.json: no such file"), a candidate given to rollback (it said
// "not kept", as if retention had removed it), a generation retention did
// remove, and an id that never existed.
func TestIndex_missingRunIDsSayWhy(t *testing.T) {
	root, home, env := jsonlHome(t)
	run := func(args ...string) (int, string) {
		t.Helper()
		code, out, errOut := runCLI(context.Background(), env, append([]string{"index"}, args...)...)
		return code, out + errOut
	}
	var sync struct {
		Result struct {
			Build      struct{ RunID string }
			Compaction *struct{ Build struct{ RunID string } }
		}
	}
	if code, out := run("sync", "--in-process", "--json"); code != ExitOK {
		t.Fatalf("sync: exit %d\n%s", code, out)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "r.jsonl"), []byte(`{"id":"1","text":"the heron nests by the weir"}`+"\n"+`{"id":"2","text":"the otter fishes below the mill"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out := run("sync", "--in-process", "--json")
	if err := json.Unmarshal([]byte(out), &sync); err != nil || code != ExitOK || sync.Result.Compaction == nil {
		t.Fatalf("second sync (a delta merged at once): exit %d (%v)\n%s", code, err, out)
	}
	replaced := sync.Result.Build.RunID // removed by its compaction
	if err := os.WriteFile(filepath.Join(root, "src", "r.jsonl"), []byte(`{"id":"3","text":"a grebe dives"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var build struct{ Result struct{ RunID string } }
	code, out = run("build", "--in-process", "--json")
	if err := json.Unmarshal([]byte(out), &build); err != nil || code != ExitOK {
		t.Fatalf("build: exit %d (%v)\n%s", code, err, out)
	}
	candidate := build.Result.RunID
	const unfinished = "20991231T235959Z-0badc0de"
	if err := os.MkdirAll(home.Candidate(unfinished), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"promote", unfinished}, []string{unfinished, "did not finish", "novactl index build"}},
		{[]string{"verify", unfinished}, []string{unfinished, "did not finish", "novactl index build"}},
		{[]string{"rollback", "--to", candidate}, []string{candidate + " is a candidate", "novactl index promote " + candidate}},
		{[]string{"rollback", "--to", replaced}, []string{replaced, "was removed", "novactl index list"}},
		{[]string{"promote", replaced}, []string{replaced, "was removed", "novactl index list"}},
		{[]string{"promote", "20000101T000000Z-00000000"}, []string{"20000101T000000Z-00000000", "novactl index list"}},
		{[]string{"rollback", "20000101T000000Z-00000000"}, []string{"20000101T000000Z-00000000", "novactl index list"}},
	} {
		code, out := run(c.args...)
		if code != ExitFailure {
			t.Errorf("%v: exit %d, want %d\n%s", c.args, code, ExitFailure, out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: the message lacks %q:\n%s", c.args, w, out)
			}
		}
	}
	// A sync promotes a newer generation, and retention removes the older
	// candidate: never promoted, it was not one of the generations kept.
	if err := os.WriteFile(filepath.Join(root, "src", "r.jsonl"), []byte(`{"id":"4","text":"a coot calls"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := run("sync", "--in-process"); code != ExitOK {
		t.Fatalf("sync: exit %d\n%s", code, out)
	}
	if code, out := run("promote", candidate); code != ExitFailure || !strings.Contains(out, candidate+" was removed") ||
		!strings.Contains(out, "candidate older than the active generation") {
		t.Errorf("promote of a candidate retention removed: exit %d\n%s", code, out)
	}
}

// TestIndexPromote_afterRollbackNamesTheWayForward: promote with no run
// id after a rollback, when there is no candidate, names the newer kept
// generation it rolled back from and the command that makes it active
// again; it said only "run novactl index build first".
func TestIndexPromote_afterRollbackNamesTheWayForward(t *testing.T) {
	root, _, env := jsonlHome(t)
	var sync struct {
		Result struct{ Build struct{ RunID string } }
	}
	for i, rec := range []string{`{"id":"1","text":"the heron nests by the weir"}`, `{"id":"2","text":"the otter fishes below the mill"}`} {
		if err := os.WriteFile(filepath.Join(root, "src", "r.jsonl"), []byte(rec+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process", "--full", "--json")
		if err := json.Unmarshal([]byte(out), &sync); err != nil || code != ExitOK {
			t.Fatalf("sync %d: exit %d (%v)\n%s\n%s", i, code, err, out, errOut)
		}
	}
	newer := sync.Result.Build.RunID
	if code, out, errOut := runCLI(context.Background(), env, "index", "rollback"); code != ExitOK {
		t.Fatalf("rollback: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut := runCLI(context.Background(), env, "index", "promote")
	if code != ExitFailure || !strings.Contains(errOut, "novactl index promote "+newer) {
		t.Errorf("promote after a rollback: exit %d, want %d and the command that makes %s active again\n%s\n%s", code, ExitFailure, newer, out, errOut)
	}
	if code, out, errOut := runCLI(context.Background(), env, "index", "promote", newer); code != ExitOK || !strings.Contains(out, "Promoted "+newer) {
		t.Errorf("promote %s: exit %d\n%s\n%s", newer, code, out, errOut)
	}
}

// TestIndexRollback_twiceStepsBackTwice: two plain rollbacks through the
// CLI step back two generations, each saying which generation is active
// and what the next plain rollback would take; the second used to return
// to the generation the first had left.
func TestIndexRollback_twiceStepsBackTwice(t *testing.T) {
	root, _, env := jsonlHome(t)
	var runs []string
	for i, rec := range []string{`{"id":"1","text":"the heron nests by the weir"}`, `{"id":"2","text":"the otter fishes below the mill"}`, `{"id":"3","text":"the kingfisher perches on the sluice"}`} {
		if err := os.WriteFile(filepath.Join(root, "src", "r.jsonl"), []byte(rec+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		var sync struct {
			Result struct{ Build struct{ RunID string } }
		}
		code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process", "--full", "--json")
		if err := json.Unmarshal([]byte(out), &sync); err != nil || code != ExitOK {
			t.Fatalf("sync %d: exit %d (%v)\n%s\n%s", i, code, err, out, errOut)
		}
		runs = append(runs, sync.Result.Build.RunID)
	}
	code, out, errOut := runCLI(context.Background(), env, "index", "rollback")
	if code != ExitOK || !strings.Contains(out, "Rolled back: "+runs[1]+" is active again") ||
		!strings.Contains(out, "next novactl index rollback steps back to "+runs[0]) || !strings.Contains(out, "rollback --to "+runs[2]) {
		t.Errorf("first rollback: exit %d, want %s active and %s next\n%s\n%s", code, runs[1], runs[0], out, errOut)
	}
	code, out, errOut = runCLI(context.Background(), env, "index", "rollback")
	if code != ExitOK || !strings.Contains(out, "Rolled back: "+runs[0]+" is active again") || !strings.Contains(out, "nothing further back") {
		t.Errorf("second rollback: exit %d, want %s active and nothing further back\n%s\n%s", code, runs[0], out, errOut)
	}
	code, out, errOut = runCLI(context.Background(), env, "index", "rollback")
	if code != ExitFailure || !strings.Contains(errOut, "the oldest kept") || !strings.Contains(errOut, "rollback --to "+runs[2]) {
		t.Errorf("third rollback: exit %d, want %d naming the way forward\n%s\n%s", code, ExitFailure, out, errOut)
	}
}

// TestIndexVerbHelp: each verb's --help says what that verb does and
// what it picks when no run id is given; each printed the overview of
// all of them, which does not say what promote or rollback pick, or how
// many generations are kept.
func TestIndexVerbHelp(t *testing.T) {
	for verb, want := range map[string][]string{
		"build":    {"does not change the active", "novactl index promote"},
		"sync":     {"merged", "without restart"},
		"verify":   {"newest candidate", "changes nothing"},
		"promote":  {"newest candidate", "interrupted", "index.keepGenerations"},
		"rollback": {"active before the\ncurrent one", "a second the one active before that", "next plain rollback", "damaged", "index.keepGenerations", "novactl index list"},
		"list":     {"newest first", "--deep"},
	} {
		code, out, errOut := runCLI(context.Background(), []string{"HOME=/nonexistent"}, "index", verb, "--help")
		if code != ExitOK || errOut != "" {
			t.Errorf("index %s --help: exit %d, stderr %q", verb, code, errOut)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("index %s --help lacks %q:\n%s", verb, w, out)
			}
		}
		if strings.Contains(errOut, "Manages index generations") {
			t.Errorf("index %s --help is the overview of every verb:\n%s", verb, errOut)
		}
	}
}

// TestIndexRollback_nothingToRollBackTo: a rollback with nothing to go
// back to says why: nothing promoted yet (and the command that promotes
// the first generation), or the active generation is the only one kept
// (named). It said "no other intact generation is kept (0 skipped)" in
// both cases.
func TestIndexRollback_nothingToRollBackTo(t *testing.T) {
	_, _, env := jsonlHome(t)
	code, out, errOut := runCLI(context.Background(), env, "index", "rollback")
	if code != ExitFailure || !strings.Contains(errOut, "nothing has been promoted yet") || !strings.Contains(errOut, "novactl index sync") {
		t.Errorf("rollback on a new home: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCLI(context.Background(), env, "index", "sync", "--in-process", "--json")
	var sync struct {
		Result struct{ Build struct{ RunID string } }
	}
	if err := json.Unmarshal([]byte(out), &sync); err != nil || code != ExitOK {
		t.Fatalf("sync: exit %d (%v)\n%s\n%s", code, err, out, errOut)
	}
	code, out, errOut = runCLI(context.Background(), env, "index", "rollback")
	if want := sync.Result.Build.RunID + ", the active generation, is the only one kept"; code != ExitFailure || !strings.Contains(errOut, want) {
		t.Errorf("rollback with one generation: exit %d, want %d and %q\n%s\n%s", code, ExitFailure, want, out, errOut)
	}
}

// TestIndex_JSONBusyNamesTheHolder: an index command refused because
// another holds the index lock says so in --json as fields, what the
// holder does, its pid, since when and the lock, so that a script can
// tell "busy, try again" from a failure without parsing the message.
func TestIndex_JSONBusyNamesTheHolder(t *testing.T) {
	_, home, env := jsonlHome(t)
	l, err := lockfile.Acquire(home.Lock(), 0o600, "sync", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	for _, verb := range []string{"build", "sync", "promote", "rollback"} {
		code, out, errOut := runCLI(context.Background(), env, "index", verb, "--json")
		var got struct {
			OK   bool
			Busy *struct {
				Operation string
				PID       int
				Since     string
				Lock      string
			}
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || code != ExitFailure || got.OK {
			t.Fatalf("%s while the lock is held: exit %d (%v)\n%s\n%s", verb, code, err, out, errOut)
		}
		if b := got.Busy; b == nil || b.Operation != "sync" || b.PID != os.Getpid() || b.Since == "" || b.Lock != home.Lock() {
			t.Errorf("%s while the lock is held: busy %+v, want the holder\n%s", verb, b, out)
		}
	}
}

// TestIndexList_showsAMissingActiveGeneration: when the generation the
// manifest names is gone from generations/, index list showed the kept
// ones and no active row at all, nothing amiss; it shows the active one
// as damaged, says it is missing, and what to run.
func TestIndexList_showsAMissingActiveGeneration(t *testing.T) {
	_, home, env := jsonlHome(t)
	code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process", "--json")
	var sync struct {
		Result struct{ Build struct{ RunID string } }
	}
	if err := json.Unmarshal([]byte(out), &sync); err != nil || code != ExitOK {
		t.Fatalf("sync: exit %d (%v)\n%s\n%s", code, err, out, errOut)
	}
	active := sync.Result.Build.RunID
	if err := os.RemoveAll(home.Generation(active)); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(context.Background(), env, "index", "list", "--json")
	var list struct {
		Result []struct{ RunID, State, Integrity, Problem string }
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != ExitOK {
		t.Fatalf("list: exit %d (%v)\n%s\n%s", code, err, out, errOut)
	}
	if len(list.Result) != 1 || list.Result[0].RunID != active || list.Result[0].State != "active" || list.Result[0].Integrity != "damaged" ||
		!strings.Contains(list.Result[0].Problem, "missing") || !strings.Contains(list.Result[0].Problem, "novactl index sync") {
		t.Errorf("list --json with the active generation's directory gone: %+v", list.Result)
	}
	code, out, errOut = runCLI(context.Background(), env, "index", "list")
	if code != ExitOK || !strings.Contains(out, active) || !strings.Contains(out, "DAMAGED") || !strings.Contains(out, "missing") {
		t.Errorf("list with the active generation's directory gone: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestIndexRollback_warnsTheWatcherSyncsOn: a rollback while the source
// watcher runs says that the watcher's next sync builds on the generation
// from the sources as they are now, bringing back what the rollback took
// away; it said only that the rollback was done, and the watcher undid it
// at the next change an agent wrote.
func TestIndexRollback_warnsTheWatcherSyncsOn(t *testing.T) {
	root, home, env := jsonlHome(t)
	for _, rec := range []string{`{"id":"1","text":"the heron nests by the weir"}`, `{"id":"2","text":"the otter fishes below the mill"}`} {
		if err := os.WriteFile(filepath.Join(root, "src", "r.jsonl"), []byte(rec+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process", "--full"); code != ExitOK {
			t.Fatalf("sync: exit %d\n%s\n%s", code, out, errOut)
		}
	}
	code, out, errOut := runCLI(context.Background(), env, "index", "rollback")
	if code != ExitOK || strings.Contains(out+errOut, "watcher") {
		t.Errorf("rollback with no watcher: exit %d, want 0 and no word of a watcher\n%s\n%s", code, out, errOut)
	}
	if err := paths.MkdirPrivate(filepath.Dir(home.WatcherLock())); err != nil {
		t.Fatal(err)
	}
	l, err := lockfile.Acquire(home.WatcherLock(), 0o600, "watch", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	// Forward again: a plain rollback from the oldest has nothing further back.
	ids := index.GenerationIDs(home)
	code, out, errOut = runCLI(context.Background(), env, "index", "rollback", "--to", ids[len(ids)-1])
	if code != ExitOK || !strings.Contains(out, "source watcher") || !strings.Contains(out, "next sync") {
		t.Errorf("rollback while the watcher runs: exit %d, want 0 and a word that its next sync builds on\n%s\n%s", code, out, errOut)
	}
}

// TestIndexRollback_otherEmbedderSaysWhich: a rollback to a generation
// the configured embedder cannot search names the generation's embedding
// profile and the configured one, and what to do, as promote does; it
// said only "a profile the configured embedder cannot search".
func TestIndexRollback_otherEmbedderSaysWhich(t *testing.T) {
	root, home, env := jsonlHome(t)
	sync := func() {
		t.Helper()
		if code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process", "--full"); code != ExitOK {
			t.Fatalf("sync: exit %d\n%s\n%s", code, out, errOut)
		}
	}
	sync()
	cfg := "server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\nembedding: {dimension: 64}\nsources:\n  - {name: r, kind: jsonl, path: " + filepath.Join(root, "src") + "}\n"
	if err := os.WriteFile(home.Config(), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	sync()
	code, out, errOut := runCLI(context.Background(), env, "index", "rollback")
	if code != ExitFailure || !strings.Contains(errOut, "/384") || !strings.Contains(errOut, "dimension 64") || !strings.Contains(errOut, "config.yaml") {
		t.Errorf("rollback to a generation of another embedder: exit %d, want %d, both profiles and what to change\n%s\n%s", code, ExitFailure, out, errOut)
	}
}

// TestIndexList_saysTheManifestIsDamaged: with a manifest that cannot be
// read, index list listed every generation as kept and none active, and
// said nothing of why; it says the manifest cannot be read and what to
// run, in text and in --json.
func TestIndexList_saysTheManifestIsDamaged(t *testing.T) {
	_, home, env := jsonlHome(t)
	if code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process"); code != ExitOK {
		t.Fatalf("sync: exit %d\n%s\n%s", code, out, errOut)
	}
	if err := os.WriteFile(home.Manifest(), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(context.Background(), env, "index", "list")
	if code != ExitOK || !strings.Contains(out, "manifest") || !strings.Contains(out, "cannot be read") || !strings.Contains(out, "novactl index rollback") {
		t.Errorf("list with a damaged manifest: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCLI(context.Background(), env, "index", "list", "--json")
	var got struct {
		OK            bool
		ManifestError string
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != ExitOK || !got.OK || !strings.Contains(got.ManifestError, "invalid manifest") {
		t.Errorf("list --json with a damaged manifest: exit %d (%v), %+v\n%s\n%s", code, err, got, out, errOut)
	}
	// A manifest of an older Nova is no case for rollback: the kept
	// generations are as old.
	if err := os.WriteFile(home.Manifest(), []byte(`{"schemaVersion":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(context.Background(), env, "index", "list")
	if code != ExitOK || !strings.Contains(out, "older Nova") || !strings.Contains(out, "novactl index sync") || strings.Contains(out, "rollback") {
		t.Errorf("list with a manifest of an older Nova: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestIndexList_explainsInterruptedAndIncomplete: index list showed the
// states "interrupted" (a promotion stopped after its generation was moved
// into place) and "incomplete" (a build stopped before its candidate was
// sealed) without a word of what they mean or what to run.
func TestIndexList_explainsInterruptedAndIncomplete(t *testing.T) {
	root, home, env := jsonlHome(t)
	candidate := syncThenBuildCandidate(t, root, env)
	moved := candidate // as a promotion interrupted after the move leaves it
	if err := os.Rename(home.Candidate(moved), home.Generation(moved)); err != nil {
		t.Fatal(err)
	}
	const unfinished = "20991231T235959Z-0badc0de"
	if err := os.MkdirAll(home.Candidate(unfinished), 0o700); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(context.Background(), env, "index", "list")
	if code != ExitOK {
		t.Fatalf("list: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		moved + ": its promotion was interrupted; novactl index promote finishes it",
		unfinished + ": it has no candidate record (a build, or a removal, that did not finish) and cannot be made active",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
}

// TestIndexPromote_damagedCandidateSaysRebuild: promote of a candidate
// whose files fail their checksums names the damage and the command that
// makes a new candidate; it named only the file.
func TestIndexPromote_damagedCandidateSaysRebuild(t *testing.T) {
	root, home, env := jsonlHome(t)
	candidate := syncThenBuildCandidate(t, root, env)
	report := filepath.Join(home.Candidate(candidate), "build-report.json")
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x20 // same size, another sum
	if err := os.WriteFile(report, b, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(context.Background(), env, "index", "promote")
	if code != ExitFailure || !strings.Contains(errOut, candidate) || !strings.Contains(errOut, "novactl index build") {
		t.Errorf("promote of a damaged candidate: exit %d, want %d naming it and novactl index build\n%s\n%s", code, ExitFailure, out, errOut)
	}
	// The damaged file is named where it is, under candidates/, not
	// where it would be once promoted.
	if want := filepath.Join("candidates", candidate, "build-report.json"); !strings.Contains(errOut, want) {
		t.Errorf("promote of a damaged candidate does not name %s:\n%s", want, errOut)
	}
}

// syncThenBuildCandidate syncs jsonlHome's source, changes its record and
// builds a candidate from it, which it returns, not promoted.
func syncThenBuildCandidate(t *testing.T, root string, env []string) (runID string) {
	t.Helper()
	if code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process"); code != ExitOK {
		t.Fatalf("sync: exit %d\n%s\n%s", code, out, errOut)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "r.jsonl"), []byte(`{"id":"2","text":"the otter fishes below the mill"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var build struct{ Result struct{ RunID string } }
	code, out, errOut := runCLI(context.Background(), env, "index", "build", "--in-process", "--json")
	if err := json.Unmarshal([]byte(out), &build); err != nil || code != ExitOK {
		t.Fatalf("build: exit %d (%v)\n%s\n%s", code, err, out, errOut)
	}
	return build.Result.RunID
}

// TestIndex_promoteAfterUnchangedBuild: after a build that found nothing
// changed (and so built no candidate), promote and verify must not send
// the user back to "novactl index build", which would build nothing
// again: they name the active generation and the --full that builds one
// anyway.
func TestIndex_promoteAfterUnchangedBuild(t *testing.T) {
	_, _, env := jsonlHome(t)
	if code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process"); code != ExitOK {
		t.Fatalf("first sync: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(context.Background(), env, "index", "build", "--in-process"); code != ExitOK || !strings.Contains(out, "Nothing changed") {
		t.Fatalf("unchanged build: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, verb := range []string{"promote", "verify"} {
		code, out, errOut := runCLI(context.Background(), env, "index", verb)
		if code != ExitFailure {
			t.Errorf("%s: exit %d, want %d\n%s\n%s", verb, code, ExitFailure, out, errOut)
		}
		if strings.Contains(errOut, "run novactl index build first") || !strings.Contains(errOut, "is active") || !strings.Contains(errOut, "novactl index build --full") {
			t.Errorf("%s after an unchanged build says:\n%s\nwant the active generation named and novactl index build --full, not a bare build", verb, errOut)
		}
	}
}

// TestIndexList_namesAnOlderNovasGenerations: on a home a Nova of
// generation format 1 wrote (its records in
// index/testdata/format1-home), index list said of each generation "it has
// no candidate record (a build, or a removal, that did not finish)" and
// rollback called them damaged. Both say an older Nova wrote them, and
// what to run.
func TestIndexList_namesAnOlderNovasGenerations(t *testing.T) {
	_, home, env := jsonlHome(t)
	src := filepath.Join("..", "index", "testdata", "format1-home")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() == "README.md" {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(home.Root, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(home.Root, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(context.Background(), env, "index", "list")
	if code != ExitOK || strings.Count(out, "OLDER FORMAT") != 2 || !strings.Contains(out, "older Nova (format 1)") || strings.Contains(out, "no candidate record") {
		t.Errorf("list of an older Nova's generations: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCLI(context.Background(), env, "index", "rollback")
	if code != ExitFailure || !strings.Contains(errOut, "older Nova") || !strings.Contains(errOut, "novactl index sync") || strings.Contains(errOut, "damaged") {
		t.Errorf("rollback with only an older Nova's generations: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestIndexList_namesTheWriterAtWork: index list while another index
// command holds the lock (the source watcher's sync, a sync in another
// terminal) shows the candidate that command is building and the
// generation it is promoting as its work in progress, naming it. They
// were listed as a build that did not finish and a promotion that was
// interrupted, with advice to run promote, which the running command
// does itself.
func TestIndexList_namesTheWriterAtWork(t *testing.T) {
	root, home, env := jsonlHome(t)
	promoting := syncThenBuildCandidate(t, root, env)
	if err := os.Rename(home.Candidate(promoting), home.Generation(promoting)); err != nil {
		t.Fatal(err)
	}
	const building = "20991231T235959Z-0badc0de"
	if err := os.MkdirAll(home.Candidate(building), 0o700); err != nil {
		t.Fatal(err)
	}
	lock, err := lockfile.Acquire(home.Lock(), paths.FileMode, "sync", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	code, out, errOut := runCLI(context.Background(), env, "index", "list")
	if code != ExitOK {
		t.Fatalf("list: exit %d\n%s\n%s", code, out, errOut)
	}
	writer := fmt.Sprintf("novactl index sync (pid %d)", os.Getpid())
	for _, want := range []string{
		building + ": being written now by " + writer,
		promoting + ": being written now by " + writer,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	for _, wrong := range []string{"did not finish", "was interrupted", "incomplete", "interrupted "} {
		if strings.Contains(out, wrong) {
			t.Errorf("list says %q of the running command's work:\n%s", wrong, out)
		}
	}
	code, out, _ = runCLI(context.Background(), env, "index", "list", "--json")
	var doc struct {
		Result []struct{ RunID, State string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != ExitOK {
		t.Fatalf("list --json: exit %d (%v)\n%s", code, err, out)
	}
	for _, g := range doc.Result {
		if (g.RunID == building || g.RunID == promoting) && g.State != "writing" {
			t.Errorf("list --json: %s is %q, want writing", g.RunID, g.State)
		}
	}
}

// TestIndexList_duringSyncsShowsNothingAmiss: index list run while syncs
// build, promote and prune (the watcher at work) never reports damage, a
// build that did not finish or an interrupted promotion: a generation
// being removed was listed as DAMAGED (its files half deleted).
func TestIndexList_duringSyncsShowsNothingAmiss(t *testing.T) {
	root, _, env := jsonlHome(t)
	data := filepath.Join(root, "src", "r.jsonl")
	f, err := os.OpenFile(data, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		fmt.Fprintf(f, `{"id":"b%d","text":"the otter %d fishes below mill %d"}`+"\n", i, i, i*3)
	}
	f.Close()
	if code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process"); code != ExitOK {
		t.Fatalf("sync: exit %d\n%s\n%s", code, out, errOut)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Second)
	defer cancel()
	syncs := make(chan struct{})
	go func() {
		defer close(syncs)
		for i := 0; ctx.Err() == nil; i++ {
			f, err := os.OpenFile(data, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Error(err)
				return
			}
			fmt.Fprintf(f, `{"id":"s%d","text":"the heron %d nests by the weir"}`+"\n", i, i)
			f.Close()
			args := []string{"index", "sync", "--in-process"}
			if i%3 == 0 {
				args = append(args, "--full") // new segments: the old ones are collected
			}
			// ctx: the sync in flight when the window closes stops
			// there; nothing lists after it.
			runCLI(ctx, env, args...)
		}
	}()
	bad := 0
	for ctx.Err() == nil && bad < 3 {
		code, out, errOut := runCLI(context.Background(), env, "index", "list")
		if code != ExitOK {
			t.Errorf("list: exit %d\n%s\n%s", code, out, errOut)
			bad++
			continue
		}
		for _, wrong := range []string{"DAMAGED", "missing", "incomplete", "interrupted", "did not finish"} {
			if strings.Contains(out, wrong) {
				t.Errorf("list during syncs says %q:\n%s", wrong, out)
				bad++
				break
			}
		}
	}
	cancel()
	<-syncs
}
