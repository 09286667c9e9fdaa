package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
