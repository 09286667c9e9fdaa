package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/eval"
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
