package index_test

import (
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// codexSubAgentRollouts are a Codex parent thread that spawns an explorer
// and the explorer's own rollout, as multi-agent builds (0.190) write
// them: the explorer's last message is its answer, and the parent's
// rollout receives that answer as a FINAL_ANSWER inter_agent_communication
// line. tools says whether the explorer ran a command before answering
// (its answer's record then carries the command's summary).
func codexSubAgentRollouts(answer string, tools bool) (parent, child string) {
	const (
		parentID = "019dc000-0190-7000-8000-000000000190"
		childID  = "019dc000-0191-7000-8000-000000000191"
	)
	parent = `{"timestamp":"2026-10-08T10:00:00.000Z","type":"session_meta","payload":{"id":"` + parentID + `","cwd":"/home/ola/photos","originator":"codex_cli_rs","cli_version":"0.190.0","source":"cli","thread_source":"user"}}
{"timestamp":"2026-10-08T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Why are the thumbnails blurry on retina screens?"}]}}
{"timestamp":"2026-10-08T10:00:01.001Z","type":"event_msg","payload":{"type":"user_message","message":"Why are the thumbnails blurry on retina screens?","images":[]}}
{"timestamp":"2026-10-08T10:00:04.000Z","type":"response_item","payload":{"type":"function_call","name":"spawn_agent","arguments":"{\"task_name\": \"explorer\", \"message\": \"List every call to resize_image.\"}","call_id":"call_S1"}}
{"timestamp":"2026-10-08T10:00:05.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"I sent an explorer to find every resize call."}],"phase":"commentary"}}
{"timestamp":"2026-10-08T10:00:30.000Z","type":"inter_agent_communication","payload":{"author":"/root/explorer","recipient":"/root","other_recipients":[],"content":"Message Type: FINAL_ANSWER\nTask name: /root\nSender: /root/explorer\nPayload:\n` + answer + `","trigger_turn":true}}
{"timestamp":"2026-10-08T10:00:40.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Both callers pass the CSS size; multiply by devicePixelRatio."}],"phase":"final_answer"}}
{"timestamp":"2026-10-08T10:00:40.001Z","type":"event_msg","payload":{"type":"agent_message","message":"Both callers pass the CSS size; multiply by devicePixelRatio.","phase":"final_answer"}}
`
	child = `{"timestamp":"2026-10-08T10:00:04.100Z","ordinal":0,"type":"session_meta","payload":{"id":"` + childID + `","session_id":"` + parentID + `","cwd":"/home/ola/photos","originator":"codex_cli_rs","cli_version":"0.190.0","source":{"subagent":{"thread_spawn":{"parent_thread_id":"` + parentID + `","depth":1,"agent_path":"/root/explorer","agent_nickname":"Noether","agent_role":"explorer"}}},"thread_source":"subagent"}}
{"timestamp":"2026-10-08T10:00:04.200Z","ordinal":1,"type":"inter_agent_communication","payload":{"author":"/root","recipient":"/root/explorer","other_recipients":[],"content":"Message Type: NEW_TASK\nTask name: /root/explorer\nSender: /root\nPayload:\nList every call to resize_image.","trigger_turn":true}}
`
	if tools {
		child += `{"timestamp":"2026-10-08T10:00:06.000Z","ordinal":2,"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"rg -n resize_image\"}","call_id":"call_R1"}}
`
	}
	child += `{"timestamp":"2026-10-08T10:00:29.000Z","ordinal":3,"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"` + answer + `"}],"phase":"final_answer"}}
{"timestamp":"2026-10-08T10:00:29.001Z","ordinal":4,"type":"event_msg","payload":{"type":"agent_message","message":"` + answer + `","phase":"final_answer"}}
`
	return parent, child
}

// TestSearch_codexSubAgentAnswer: a Codex sub-agent's answer is in two
// rollouts, the sub-agent's own (its last message) and its parent's (the
// FINAL_ANSWER it receives). Through a real sync and a real search, a
// user looking for that answer finds it once; with only one of the two
// rollouts there, still once.
func TestSearch_codexSubAgentAnswer(t *testing.T) {
	const answer = "resize_image is called twice, both times with the CSS size, never with devicePixelRatio."
	day := filepath.Join("sessions", "2026", "10", "08")
	parentName := "rollout-2026-10-08T10-00-00-019dc000-0190-7000-8000-000000000190.jsonl"
	childName := "rollout-2026-10-08T10-00-04-019dc000-0191-7000-8000-000000000191.jsonl"
	for _, tc := range []struct {
		name          string
		tools         bool
		parent, child bool
	}{
		{name: "both rollouts, explorer ran a command", tools: true, parent: true, child: true},
		{name: "both rollouts, explorer answered at once", parent: true, child: true},
		{name: "only the parent's rollout", tools: true, parent: true},
		{name: "only the explorer's rollout", tools: true, child: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			parent, child := codexSubAgentRollouts(answer, tc.tools)
			if tc.parent {
				writeFile(t, filepath.Join(dir, day, parentName), parent)
			}
			if tc.child {
				writeFile(t, filepath.Join(dir, day, childName), child)
			}
			cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "codex", Kind: config.KindCodex, Path: filepath.Join(dir, "sessions")})
			mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now}))
			got := searchTexts(t, cfg.Home, "resize_image CSS size devicePixelRatio")
			if n := countHolding(got, answer); n != 1 {
				t.Errorf("the explorer's answer is in %d results, want 1: %q", n, got)
			}
		})
	}
}
