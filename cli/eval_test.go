package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/eval"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestEvalLoCoMo_namesUnknownEvidence: an evidence id of the file that
// names no turn caps every system's recall; the table says which, so the
// cap is not read as the systems' doing.
func TestEvalLoCoMo_namesUnknownEvidence(t *testing.T) {
	p := filepath.Join(t.TempDir(), "locomo.json")
	data := `[{"sample_id":"c1","conversation":{"session_1_date_time":"1:56 pm on 8 May, 2023","session_1":[
		{"speaker":"A","dia_id":"D1:1","text":"I adopted a puppy named Biscuit."},
		{"speaker":"B","dia_id":"D1:2","text":"Nice, what breed is Biscuit?"}]},
		"qa":[{"question":"What is the puppy called?","evidence":["D1:1", "D7:1"],"category":4}]}]`
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	inv := &Invocation{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Environ: []string{"HOME=/nonexistent", "NOVA_HOME=" + t.TempDir()}}
	if code := Run(context.Background(), []string{"eval", "locomo", p}, inv); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "1 evidence id names no turn") || !strings.Contains(out.String(), "c1:D7:1") {
		t.Errorf("the table does not name the unknown evidence id c1:D7:1:\n%s", out.String())
	}
}

func evalCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	inv := &Invocation{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Environ: []string{"HOME=/nonexistent", "NOVA_HOME=" + t.TempDir()}}
	code := Run(context.Background(), append([]string{"eval"}, args...), inv)
	return code, out.String(), errb.String()
}

// TestEvalLoCoMo_thresholdsAreShares: --min-r1 and --min-r5 are recalls
// from 0 to 1. 56 (a percentage) failed every run, and NaN passed every
// one, whatever the recall.
func TestEvalLoCoMo_thresholdsAreShares(t *testing.T) {
	for _, args := range [][]string{{"--min-r1", "56"}, {"--min-r5", "NaN"}, {"--min-r1", "-0.1"}} {
		code, _, stderr := evalCLI(t, append([]string{"locomo"}, append(args, "../eval/testdata/zh-dialogue.json")...)...)
		if code != ExitUsage || !strings.Contains(stderr, args[0]) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %s", args, code, stderr, args[0])
		}
	}
}

// TestEvalLoCoMo_ablateOnce: a lever named twice ("all" and itself) is
// measured once, not reported twice.
func TestEvalLoCoMo_ablateOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "locomo.json")
	data := `[{"sample_id":"c1","conversation":{"session_1_date_time":"1:56 pm on 8 May, 2023","session_1":[
		{"speaker":"A","dia_id":"D1:1","text":"I adopted a puppy named Biscuit."},
		{"speaker":"B","dia_id":"D1:2","text":"Nice, what breed is Biscuit?"}]},
		"qa":[{"question":"What is the puppy called?","evidence":["D1:1"],"category":4}]}]`
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := evalCLI(t, "locomo", "--json", "--ablate", "questions,all,dates", p)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep eval.LoCoMoReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, a := range rep.Ablations {
		if seen[a.Lever] {
			t.Errorf("lever %q measured twice", a.Lever)
		}
		seen[a.Lever] = true
	}
	if len(seen) != len(eval.SortedLevers()) {
		t.Errorf("%d levers measured, want %d", len(seen), len(eval.SortedLevers()))
	}
}

// TestEval_helpNamesEveryCaseField: novactl eval --help is where a new
// user learns the --queries format, so it names every field a case and
// its expect object take (read from eval.Case's JSON tags, the fields
// ReadCases accepts), and says which lines are skipped.
func TestEval_helpNamesEveryCaseField(t *testing.T) {
	_, help, _ := runCLI(t.Context(), nil, "eval", "--help")
	var fields []string
	for _, typ := range []reflect.Type{reflect.TypeFor[eval.Case](), reflect.TypeFor[eval.Expect]()} {
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			fields = append(fields, name)
		}
	}
	for _, name := range fields {
		if !regexp.MustCompile(`\b` + name + `\b`).MatchString(help) {
			t.Errorf("novactl eval --help does not name the case field %q", name)
		}
	}
	for _, want := range []string{"one JSON object per line", "//"} {
		if !strings.Contains(help, want) {
			t.Errorf("novactl eval --help does not say %q", want)
		}
	}
}

// TestEval_queriesFileErrors: a --queries file that cannot be read is
// named as the flag's, and one whose content is wrong points at the help
// that describes it; both are usage errors (2), on stderr or, with
// --json, as the JSON error envelope.
func TestEval_queriesFileErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"id":"a","query":"q","topK":"5"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + dir, "NOVA_HOME=" + filepath.Join(dir, ".nova")}
	for file, want := range map[string]string{
		filepath.Join(dir, "missing.jsonl"): "novactl eval: --queries: open ",
		dir:                                 "novactl eval: --queries: read ",
		bad:                                 ":1: topK must be a whole number (got a string) (novactl eval --help describes the file)",
	} {
		code, _, errOut := runCLI(t.Context(), env, "eval", "--queries", file)
		if code != ExitUsage || !strings.Contains(errOut, want) {
			t.Errorf("eval --queries %s: exit %d, stderr %q; want %d and %q", file, code, errOut, ExitUsage, want)
		}
		code, out, _ := runCLI(t.Context(), env, "eval", "--queries", file, "--json")
		var envelope struct {
			OK    bool
			Error string
		}
		if err := json.Unmarshal([]byte(out), &envelope); err != nil || code != ExitUsage || envelope.OK || envelope.Error == "" {
			t.Errorf("eval --queries %s --json: exit %d, %v, stdout %q", file, code, err, out)
		}
	}
}

// TestEval_helpExamplePasses: the case novactl eval --help shows is what a
// new user pastes into a file first, against the sample memory make run
// serves; pasted as shown it must parse (one case per line) and pass,
// where it was wrapped over two lines (a malformed case, exit 2) and
// named an id the sample does not hold.
func TestEval_helpExamplePasses(t *testing.T) {
	_, help, _ := runCLI(t.Context(), nil, "eval", "--help")
	// The example: the line that opens a case, and any that go on with
	// its keys, as a user copies them.
	var example strings.Builder
	for line := range strings.Lines(help) {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, `{"id"`) || example.Len() > 0 && strings.HasPrefix(l, `"`) {
			example.WriteString(l + "\n")
		} else if example.Len() > 0 {
			break
		}
	}
	if example.Len() == 0 {
		t.Fatalf("novactl eval --help shows no example case:\n%s", help)
	}
	sample, err := filepath.Abs(filepath.Join("..", "sample", "memory"))
	novatest.Must(t, err)
	// The configuration scripts/run.sh writes for the sample.
	env := configHome(t, "server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\nsources:\n"+
		"  - {name: notes, kind: markdown, path: '"+sample+"'}\n  - {name: records, kind: jsonl, path: '"+sample+"'}\n")
	if code, out, errOut := runCLI(t.Context(), env, "index", "sync", "--in-process"); code != ExitOK {
		t.Fatalf("index sync of the sample: exit %d\n%s\n%s", code, out, errOut)
	}
	cfg, err := config.Load(env)
	novatest.Must(t, err)
	startNovad(t, cfg)
	waitGenerationLoaded(t, cfg)
	cases := filepath.Join(t.TempDir(), "cases.jsonl")
	novatest.Must(t, os.WriteFile(cases, []byte(example.String()), 0o600))
	if code, out, errOut := runCLI(t.Context(), env, "eval", "--queries", cases); code != ExitOK {
		t.Errorf("the example of novactl eval --help, pasted into a file:\n%s\nexit %d, want %d\n%s\n%s", example.String(), code, ExitOK, out, errOut)
	}
}

// TestEval_interruptedJSON: an eval stopped by Ctrl-C before its cases
// ran says so in --json's document ("interrupted"), exit 1, and nothing
// on stderr beside it; the text form says it on stderr.
func TestEval_interruptedJSON(t *testing.T) {
	url, _ := fakeFacade(t, http.StatusOK, "", "")
	cases := filepath.Join(t.TempDir(), "cases.jsonl")
	novatest.Must(t, os.WriteFile(cases, []byte(`{"id":"p","query":"port","expect":{"evidenceTerms":["port"]}}`+"\n"), 0o600))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	code, out, errOut := runCLI(ctx, nil, "eval", "--queries", cases, "--facade-url", url, "--json")
	var got struct {
		Interrupted bool
		Cases       *[]json.RawMessage
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || !got.Interrupted || code != ExitFailure || errOut != "" {
		t.Errorf("--json: exit %d, stdout %q (%v), stderr %q; want exit 1, \"interrupted\": true and nothing on stderr", code, out, err, errOut)
	}
	// No case ran: a list of none, which a reader can range over, not null.
	if got.Cases == nil || len(*got.Cases) != 0 {
		t.Errorf("--json: cases %v in %s, want []", got.Cases, out)
	}
	code, _, errOut = runCLI(ctx, nil, "eval", "--queries", cases, "--facade-url", url)
	if code != ExitFailure || !strings.Contains(errOut, "interrupted") {
		t.Errorf("text: exit %d, stderr %q; want exit 1 and what was interrupted", code, errOut)
	}
}

// TestEvalLoCoMo_datasetErrors: a PATH that is missing, a directory or
// not a LoCoMo file is a usage error (2), as a bad --queries file is,
// named on stderr or, with --json, in the JSON error envelope; it was a
// failed run (1), the status of a recall below --min-r5, so a script
// could not tell a typo in the path from a regression.
func TestEvalLoCoMo_datasetErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "cases.jsonl")
	if err := os.WriteFile(bad, []byte(`{"id":"a","query":"q"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + dir, "NOVA_HOME=" + filepath.Join(dir, ".nova")}
	for file, want := range map[string]string{
		filepath.Join(dir, "missing.json"): "novactl eval locomo: open ",
		dir:                                "novactl eval locomo: read ",
		bad:                                "cases.jsonl: a LoCoMo file is a JSON list of conversations",
	} {
		code, _, errOut := runCLI(t.Context(), env, "eval", "locomo", file)
		if code != ExitUsage || !strings.Contains(errOut, want) {
			t.Errorf("eval locomo %s: exit %d, stderr %q; want %d and %q", file, code, errOut, ExitUsage, want)
		}
		code, out, _ := runCLI(t.Context(), env, "eval", "locomo", file, "--json")
		var envelope struct {
			OK    bool
			Error string
		}
		if err := json.Unmarshal([]byte(out), &envelope); err != nil || code != ExitUsage || envelope.OK || !strings.Contains(envelope.Error, filepath.Base(file)) {
			t.Errorf("eval locomo %s --json: exit %d, %v, stdout %q", file, code, err, out)
		}
	}
}

// TestEval_meansOverMeasuredCases: a case that names nothing relevant has
// no recall; its row shows "-" where it showed recall 1.000 and nDCG
// 0.000, and the run's means are over the cases that measure each, with
// how many said, and "-" over none. The summary read recall@k 0.500 for
// a run whose one measured case was missed.
func TestEval_meansOverMeasuredCases(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body api.SearchBody
		_ = json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		// An answer novad could give: the envelope of a search, with one
		// result that is not the case's relevant id.
		resp := api.Unavailable(body.Query, body.TopK, "")
		resp.Available, resp.Reason = true, nil
		resp.Results = []api.Result{{ID: "c1", SourceID: "other", TextPreview: "the dashboard port was taken", Provenance: api.Provenance{SourceID: "other"}}}
		_ = json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	cases := filepath.Join(t.TempDir(), "cases.jsonl")
	novatest.Must(t, os.WriteFile(cases, []byte(`{"id":"missed","query":"port","expect":{"relevantIds":["dec-003"]}}`+"\n"+
		`{"id":"terms-only","query":"port","expect":{"evidenceTerms":["port"]}}`+"\n"), 0o600))
	code, out, errOut := runCLI(t.Context(), nil, "eval", "--queries", cases, "--facade-url", srv.URL)
	if code != ExitFailure {
		t.Fatalf("exit %d, want 1 (a case failed)\n%s\n%s", code, out, errOut)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^terms-only\s+pass\s+-\s+-\s+-\s+-\s+1\.000\s`),
		regexp.MustCompile(`(?m)^missed\s+FAIL\s+0\.000\s+0\.000\s+0\.000\s+0\.000\s+-\s`),
		regexp.MustCompile(`recall@k 0\.000 · MRR 0\.000 · nDCG@10 0\.000 · citation hit 0\.000 · evidence 1\.000 · duplicates 0\.000 · aggregation -`),
		regexp.MustCompile(`means over the 1 case that names relevant results \(recall@k, MRR, nDCG@10, citation hit\), the 1 with evidenceTerms, the 0 with aggregation`),
	} {
		if !want.MatchString(out) {
			t.Errorf("the report does not match %s:\n%s", want, out)
		}
	}
}

// TestEvalLoCoMo_interruptedLeavesNothing: a LoCoMo run indexes into a
// temporary home of its own, removed after the run and after Ctrl-C,
// and reads or writes nothing under HOME or NOVA_HOME. Stopped, it says
// it was interrupted (exit 1), where it said "index the LoCoMo turns:
// context canceled", or a system's "question 451: context canceled".
func TestEvalLoCoMo_interruptedLeavesNothing(t *testing.T) {
	tmp, home := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	env := []string{"HOME=" + home, "NOVA_HOME=" + filepath.Join(home, ".nova")}
	// A conversation of a few turns: what a run leaves behind does not
	// depend on its size (eval/testdata/zh-dialogue.json took 15 s under
	// the race detector here, all of it the run that finishes).
	data := filepath.Join(t.TempDir(), "locomo.json")
	novatest.Must(t, os.WriteFile(data, []byte(`[{"sample_id":"c1","conversation":{"session_1_date_time":"1:56 pm on 8 May, 2023","session_1":[
		{"speaker":"A","dia_id":"D1:1","text":"I adopted a puppy named Biscuit."},
		{"speaker":"B","dia_id":"D1:2","text":"Nice, what breed is Biscuit?"},
		{"speaker":"A","dia_id":"D1:3","text":"A beagle. He sleeps in the laundry basket."}]},
		"qa":[{"question":"What is the puppy called?","evidence":["D1:1"],"category":4},
		      {"question":"Where does Biscuit sleep?","evidence":["D1:3"],"category":4}]}]`), 0o600))
	if code, out, errOut := runCLI(t.Context(), env, "eval", "locomo", data); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	code, out, errOut := runCLI(ctx, env, "eval", "locomo", data)
	if code != ExitFailure || out != "" || !strings.Contains(errOut, "novactl eval locomo: interrupted") || strings.Contains(errOut, "context canceled") {
		t.Errorf("interrupted: exit %d, stdout %q, stderr %q; want exit 1 saying it was interrupted, and no figures", code, out, errOut)
	}
	code, out, _ = runCLI(ctx, env, "eval", "locomo", data, "--json")
	var envelope struct {
		OK    bool
		Error string
	}
	if err := json.Unmarshal([]byte(out), &envelope); err != nil || code != ExitFailure || envelope.OK || !strings.HasPrefix(envelope.Error, "interrupted") {
		t.Errorf("interrupted --json: exit %d, %v, stdout %q", code, err, out)
	}
	for _, dir := range []string{tmp, home} {
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Errorf("%s holds %v after the runs", dir, left)
		}
	}
}

// TestEvalLoCoMo_missesWithinAnswers: Nova answers at most 20 turns, so
// --misses above 20 listed what --misses 20 lists, under a cut-off the
// run never looked at; it is a usage error naming the range.
func TestEvalLoCoMo_missesWithinAnswers(t *testing.T) {
	code, _, stderr := evalCLI(t, "locomo", "--misses", "50", "../eval/testdata/zh-dialogue.json")
	if code != ExitUsage || !strings.Contains(stderr, "--misses must be 0 (off) to 20") {
		t.Errorf("--misses 50: exit %d, stderr %q; want exit 2 naming 0 to 20", code, stderr)
	}
}

// TestEvalLoCoMo_saysWhatIsLeftOut: a question without evidence cannot
// be scored and is left out of every recall; the report says how many
// were, in text and JSON, where it said only how many were kept (495
// questions with evidence, of the dev set's 497).
func TestEvalLoCoMo_saysWhatIsLeftOut(t *testing.T) {
	p := filepath.Join(t.TempDir(), "locomo.json")
	data := `[{"sample_id":"c1","conversation":{"session_1_date_time":"1:56 pm on 8 May, 2023","session_1":[
		{"speaker":"A","dia_id":"D1:1","text":"I adopted a puppy named Biscuit."},
		{"speaker":"B","dia_id":"D1:2","text":"Nice, what breed is Biscuit?"}]},
		"qa":[{"question":"What is the puppy called?","evidence":["D1:1"],"category":4},
		      {"question":"What does Biscuit eat?","evidence":[],"category":5},
		      {"question":"Where does Biscuit sleep?","category":5}]}]`
	novatest.Must(t, os.WriteFile(p, []byte(data), 0o600))
	code, out, errOut := evalCLI(t, "locomo", p)
	if code != ExitOK || !strings.Contains(out, "1 questions with evidence (2 without, left out)") {
		t.Errorf("exit %d; the header does not say 2 questions were left out:\n%s\n%s", code, out, errOut)
	}
	code, out, _ = evalCLI(t, "locomo", "--json", p)
	var rep eval.LoCoMoReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != ExitOK || rep.Questions != 1 || rep.QuestionsWithoutEvidence != 2 {
		t.Errorf("--json: exit %d, %v, questions %d, without evidence %d; want 1 and 2", code, err, rep.Questions, rep.QuestionsWithoutEvidence)
	}
}

// TestEvalLoCoMo_runErrorIsNotUsage: a run that fails for its own sake
// (here the scratch home, under a TMPDIR that does not exist) is exit 1,
// though the error is a path's as a missing PATH's is: only PATH's
// fault is a usage error (2).
func TestEvalLoCoMo_runErrorIsNotUsage(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	code, _, stderr := evalCLI(t, "locomo", "../eval/testdata/zh-dialogue.json")
	if code != ExitFailure || !strings.Contains(stderr, "missing") {
		t.Errorf("exit %d, stderr %q; want exit 1 naming the missing folder", code, stderr)
	}
}

// TestEvalLoCoMo_missingFileSaysWhereToGetIt: LoCoMo is not shipped with
// Nova, so a fresh clone's make eval-locomo met only "open
// ../shared/data/locomo-dev.json: no such file or directory". A missing
// PATH names where the data set comes from and the sets that are shipped.
func TestEvalLoCoMo_missingFileSaysWhereToGetIt(t *testing.T) {
	dir := t.TempDir()
	env := []string{"HOME=" + dir, "NOVA_HOME=" + filepath.Join(dir, ".nova")}
	missing := filepath.Join(dir, "locomo-dev.json")
	code, _, errOut := runCLI(t.Context(), env, "eval", "locomo", missing)
	for _, want := range []string{"open " + missing, "github.com/snap-research/LoCoMo", "locomo10.json", "eval/testdata"} {
		if code != ExitUsage || !strings.Contains(errOut, want) {
			t.Errorf("eval locomo of a missing file: exit %d, stderr %q; want %d and %q", code, errOut, ExitUsage, want)
		}
	}
	// A file that exists but is not LoCoMo gets no download hint: the
	// user has the file they meant.
	bad := filepath.Join(dir, "other.json")
	if err := os.WriteFile(bad, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, errOut := runCLI(t.Context(), env, "eval", "locomo", bad); strings.Contains(errOut, "snap-research") {
		t.Errorf("eval locomo of a file that is not LoCoMo gives the download hint: %q", errOut)
	}
	_, help, _ := runCLI(t.Context(), nil, "eval", "locomo", "--help")
	if strings.Contains(help, "../shared") {
		t.Errorf("eval locomo --help names a path only the developers' machine has:\n%s", help)
	}
}
