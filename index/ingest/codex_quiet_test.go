package ingest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/config"
)

// TestReadCodexFile_newerQuietKinds: the line types and events newer
// Codex builds persist in every rollout (codex-rs rollout/src/policy.rs,
// is_persisted_rollout_item and should_persist_event_msg as of 2026-11:
// the tool_manifest and sampling_boundary lines; the model_reroute,
// model_verification, hook_started, hook_completed and
// thread_settings_applied events, kept "for replay and diagnosis") carry
// nothing to remember: a rollout of them is read without a problem, and
// a hook's output (hook_completed entries) is not the user's words.
func TestReadCodexFile_newerQuietKinds(t *testing.T) {
	rollout := `{"timestamp":"2026-11-02T10:00:00.000Z","type":"session_meta","payload":{"id":"019e1000-0000-7000-8000-000000000001","cwd":"/home/ana/src/ledger","cli_version":"0.190.0","source":"cli"}}` + "\n" +
		`{"timestamp":"2026-11-02T10:00:00.100Z","type":"tool_manifest","payload":{"tools":[{"type":"function","name":"shell"}]}}` + "\n" +
		`{"timestamp":"2026-11-02T10:00:01.000Z","type":"event_msg","payload":{"type":"thread_settings_applied","thread_settings":{"model":"gpt-5.5","approval_policy":"on-request"}}}` + "\n" +
		`{"timestamp":"2026-11-02T10:00:02.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Why does the ledger replica lag?"}]}}` + "\n" +
		`{"timestamp":"2026-11-02T10:00:02.100Z","type":"event_msg","payload":{"type":"user_message","message":"Why does the ledger replica lag?"}}` + "\n" +
		`{"timestamp":"2026-11-02T10:00:02.200Z","type":"sampling_boundary","payload":{"unresolved_context":false}}` + "\n" +
		`{"timestamp":"2026-11-02T10:00:03.000Z","type":"event_msg","payload":{"type":"model_reroute","from_model":"requested","to_model":"served","reason":"high_risk_cyber_activity"}}` + "\n" +
		`{"timestamp":"2026-11-02T10:00:03.100Z","type":"event_msg","payload":{"type":"model_verification","verifications":["trusted_access_for_cyber"]}}` + "\n" +
		`{"timestamp":"2026-11-02T10:00:04.000Z","type":"event_msg","payload":{"type":"hook_started","turn_id":"turn-1","run":{"id":"hook-1","event_name":"stop","status":"running","entries":[]}}}` + "\n" +
		`{"timestamp":"2026-11-02T10:00:04.100Z","type":"event_msg","payload":{"type":"hook_completed","turn_id":"turn-1","run":{"id":"hook-1","event_name":"stop","status":"blocked","entries":[{"kind":"stop","text":"MARKER validation required"}]}}}` + "\n" +
		`{"timestamp":"2026-11-02T10:00:05.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The replica applies the WAL in one thread."}]}}` + "\n"
	dir := t.TempDir()
	name := "rollout-2026-11-02T10-00-00-019e1000-0000-7000-8000-000000000001.jsonl"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(rollout), 0o600); err != nil {
		t.Fatal(err)
	}
	recs, problems := collect(t, config.Source{Name: "c", Kind: config.KindCodex, Path: dir})
	if len(problems) > 0 {
		t.Errorf("problems %v", problems)
	}
	if len(recs) != 2 || recs[0].Text != "Why does the ledger replica lag?" || recs[1].Text != "The replica applies the WAL in one thread." {
		t.Errorf("records %+v, want the prompt and the answer", recs)
	}
	for _, r := range recs {
		if noiseLeak.MatchString(r.Text) {
			t.Errorf("noise in %q", r.Text)
		}
	}
}
