package index_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// codexSubAgentRollouts are a Codex parent thread that spawns an explorer
// and the explorer's own rollout, as multi-agent builds (0.190) write
// them: the explorer's last message is its answer, and the parent's
// rollout receives that answer as a FINAL_ANSWER inter_agent_communication
// line, or (older builds, when older is set) as a user-role message item
// holding that message as JSON. tools says whether the explorer ran a
// command before answering (its answer's record then carries the
// command's summary).
func codexSubAgentRollouts(answer string, tools, older bool) (parent, child string) {
	const (
		parentID = "019dc000-0190-7000-8000-000000000190"
		childID  = "019dc000-0191-7000-8000-000000000191"
	)
	received := `{"timestamp":"2026-10-08T10:00:30.000Z","type":"inter_agent_communication","payload":{"author":"/root/explorer","recipient":"/root","other_recipients":[],"content":"Message Type: FINAL_ANSWER\nTask name: /root\nSender: /root/explorer\nPayload:\n` + answer + `","trigger_turn":true}}`
	if older {
		received = `{"timestamp":"2026-10-08T10:00:30.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"{\"author\":\"/root/explorer\",\"recipient\":\"/root\",\"other_recipients\":[],\"content\":\"` + answer + `\",\"trigger_turn\":true}"}]}}`
	}
	parent = `{"timestamp":"2026-10-08T10:00:00.000Z","type":"session_meta","payload":{"id":"` + parentID + `","cwd":"/home/ola/photos","originator":"codex_cli_rs","cli_version":"0.190.0","source":"cli","thread_source":"user"}}
{"timestamp":"2026-10-08T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Why are the thumbnails blurry on retina screens?"}]}}
{"timestamp":"2026-10-08T10:00:01.001Z","type":"event_msg","payload":{"type":"user_message","message":"Why are the thumbnails blurry on retina screens?","images":[]}}
{"timestamp":"2026-10-08T10:00:04.000Z","type":"response_item","payload":{"type":"function_call","name":"spawn_agent","arguments":"{\"task_name\": \"explorer\", \"message\": \"List every call to resize_image.\"}","call_id":"call_S1"}}
{"timestamp":"2026-10-08T10:00:05.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"I sent an explorer to find every resize call."}],"phase":"commentary"}}
` + received + `
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
// FINAL_ANSWER it receives). Through real syncs and a real search, a user
// looking for that answer finds it once: with both rollouts, whichever
// sync read each, and with only one of them there (never written, or
// removed after a sync read both).
func TestSearch_codexSubAgentAnswer(t *testing.T) {
	const short = "resize_image is called twice, both times with the CSS size, never with devicePixelRatio."
	// An answer longer than a chunk (1600 characters by default) is
	// indexed in pieces.
	long := "resize_image is called twice. " + strings.Repeat("The gallery grid and the lightbox both build their thumbnails from the CSS width of the tile. ", 24) +
		"Both pass the CSS size, never with devicePixelRatio."
	day := filepath.Join("sessions", "2026", "10", "08")
	parentPath := filepath.Join(day, "rollout-2026-10-08T10-00-00-019dc000-0190-7000-8000-000000000190.jsonl")
	childPath := filepath.Join(day, "rollout-2026-10-08T10-00-04-019dc000-0191-7000-8000-000000000191.jsonl")
	// Each step writes (+) or removes (-) a rollout, then syncs.
	for _, tc := range []struct {
		name         string
		answer       string
		tools, older bool
		steps        []string
	}{
		{name: "both, the explorer ran a command", answer: short, tools: true, steps: []string{"+parent +child"}},
		{name: "both, the explorer answered at once", answer: short, steps: []string{"+parent +child"}},
		{name: "both, an older build's JSON message item", answer: short, tools: true, older: true, steps: []string{"+parent +child"}},
		{name: "both, a long answer", answer: long, tools: true, steps: []string{"+parent +child"}},
		{name: "the explorer's, then the parent's in a later sync", answer: short, tools: true, steps: []string{"+child", "+parent"}},
		{name: "only the parent's", answer: short, tools: true, steps: []string{"+parent"}},
		{name: "the parent's removed after both were read", answer: short, tools: true, steps: []string{"+parent +child", "-parent"}},
		{name: "the explorer's removed after both were read", answer: short, tools: true, steps: []string{"+parent +child", "-child"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			parent, child := codexSubAgentRollouts(tc.answer, tc.tools, tc.older)
			cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "codex", Kind: config.KindCodex, Path: filepath.Join(dir, "sessions")})
			ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})
			first, last := tc.answer[:40], tc.answer[len(tc.answer)-40:]
			for _, step := range tc.steps {
				for _, do := range strings.Fields(step) {
					path, content := filepath.Join(dir, parentPath), parent
					if do[1:] == "child" {
						path, content = filepath.Join(dir, childPath), child
					}
					if do[0] == '+' {
						writeFile(t, path, content)
					} else if err := os.Remove(path); err != nil {
						t.Fatal(err)
					}
				}
				syncOK(t, ix)
				got := searchTexts(t, cfg.Home, "resize_image CSS size devicePixelRatio")
				for _, words := range []string{first, last} {
					if n := countHolding(got, words); n != 1 {
						t.Errorf("after %q: %q is in %d results, want 1: %q", step, words, n, got)
					}
				}
			}
		})
	}
}
