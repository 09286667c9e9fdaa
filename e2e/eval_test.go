package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/eval"
	"github.com/nova-recall/nova/internal/novatest"
)

func TestEvalCasesAgainstRealNovad(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	h.Sync()
	h.Start()
	cases := `{"id":"port","query":"Why was the dashboard port 2096 unavailable?","expect":{"relevantIds":["inc-7"],"minRecallAtK":1,"evidenceTerms":["firewall","allow rule"],"minEvidenceCoverage":1,"maxDuplicateRate":0}}
{"id":"rollback","query":"which script broke the v1.4.0 release","project":"nova","expect":{"relevantEvidence":[{"terms":["RC-204"],"projects":["nova"]}],"minRecallAtK":1,"minCitationHitRate":1}}
{"id":"chinese","query":"迁移后定时任务为什么失败","expect":{"relevantIds":["zh-1"],"minRecallAtK":1}}
{"id":"wrong-project","query":"Why was the dashboard port 2096 unavailable?","project":"billing","expect":{"relevantIds":["inc-7"],"minRecallAtK":1}}
{"id":"missing-evidence","query":"SQLite WAL task store","expect":{"relevantIds":["dec-1"],"evidenceTerms":["kubernetes"],"minEvidenceCoverage":1}}
`
	path := filepath.Join(h.Dir, "cases.jsonl")
	novatest.Must(t, os.WriteFile(path, []byte(cases), 0o644))
	out, errs, code := h.Novactl("eval", "--queries", path, "--json")
	if code != 1 {
		t.Fatalf("a failing case must make eval exit 1, got %d: %s %s", code, out, errs)
	}
	var sum eval.Summary
	novatest.Must(t, json.Unmarshal([]byte(out), &sum))
	want := map[string]bool{"port": true, "rollback": true, "chinese": true, "wrong-project": false, "missing-evidence": false}
	for _, c := range sum.Cases {
		if c.Passed != want[c.ID] {
			t.Errorf("case %s passed=%v, want %v: %+v", c.ID, c.Passed, want[c.ID], c)
		}
	}
	if sum.PassedCount != 3 || sum.FailedCount != 2 || sum.Status != "failed" || sum.Metrics.LatencyP95Ms <= 0 {
		t.Errorf("summary %+v", sum)
	}
	// The human report names the failed checks.
	text, _, _ := h.Novactl("eval", "--queries", path)
	if !strings.Contains(text, "missing-evidence") || !strings.Contains(text, "evidenceCoverage") || !strings.Contains(text, "3/5 passed") {
		t.Errorf("report:\n%s", text)
	}
	// A malformed case file is a usage error naming the line.
	bad := filepath.Join(h.Dir, "bad.jsonl")
	novatest.Must(t, os.WriteFile(bad, []byte(`{"id":"a","query":"x"}`+"\n"+`{"id":"b","qery":"typo"}`+"\n"), 0o644))
	if _, errs, code := h.Novactl("eval", "--queries", bad); code != 2 || !strings.Contains(errs, "bad.jsonl:2") {
		t.Errorf("bad case file: %d %s", code, errs)
	}
}
