package ingest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
)

const claudeSession = "5b1c2d3e-0000-4a4a-9b9b-123456789abc"

func TestReadClaudeCodeFile(t *testing.T) {
	recs, problems := collect(t, config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: "testdata/claude-code/projects"})
	turn := func(line int, role, text, project, ts string, redactions int) wantRecord {
		return wantRecord{
			ID: claudeSession + ":" + strconv.Itoa(line), Role: role, Text: text, Project: project,
			Session: claudeSession, Conversation: "claude-code:" + claudeSession, Time: ts, Line: line, Redactions: redactions,
		}
	}
	side := func(line int, role, text, ts string) wantRecord {
		return wantRecord{
			ID: claudeSession + "/agent-a17f:" + strconv.Itoa(line), Role: role, Text: text, Project: "billing",
			Session: claudeSession, Conversation: "claude-code:" + claudeSession + "/agent-a17f", Time: ts, Line: line,
		}
	}
	checkRecords(t, config.KindClaudeCode, recs, []wantRecord{
		// Lines 2-4 are the meta caveat and the /clear command echo; the
		// system reminder is cut from the prompt.
		turn(5, "user", "Add a regression test for the rounding bug.", "billing", "2026-03-02T10:01:00Z", 0),
		// Lines 6-8 are one reply written a block per line (thinking,
		// text, tool use): each text line is a record, and the tool calls
		// are summarized on the next text.
		turn(7, "assistant", "I'll read money.py first.", "billing", "2026-03-02T10:01:03Z", 0),
		// Line 9 is a tool result; line 10 a reply with a tool call only.
		turn(12, "assistant", "Added tests/test_money.py::test_half_even.\n[tool: Read /home/dev/src/billing/src/money.py]\n[tool: Bash pytest -q tests/test_money.py]", "billing", "2026-03-02T10:01:20Z", 0),
		// Line 13 is malformed.
		turn(14, "assistant", "It fails before the fix and passes after it.", "billing", "2026-03-02T10:01:20.4Z", 0),
		// The project follows the line's cwd; the pasted image is a
		// placeholder and the token is redacted.
		turn(17, "user", "CI still fails, see the screenshot. Use Authorization: Bearer [redacted] for the API.\n\n[image]", "web", "2026-03-02T10:05:00Z", 1),
		// Line 18 is an interruption notice, 19 an API error, 20
		// thinking; the Task call of line 22 waits for a next text.
		turn(21, "assistant", "The screenshot shows the web build using the old money.py; rebuild the web bundle.", "web", "2026-03-02T10:05:31Z", 0),
		// The sub-agent belongs to the session, in its own conversation;
		// its prompt is the main agent's.
		side(1, "assistant", "Find every call to round() in src/ and report file:line.", "2026-03-02T10:05:33Z"),
		side(4, "assistant", "One call remains: src/money.py:41.\n[tool: Grep round\\(]", "2026-03-02T10:05:40Z"),
	})
	if len(problems) != 1 || problems[0].Line != 13 || !strings.HasSuffix(problems[0].Path, claudeSession+".jsonl") {
		t.Errorf("problems = %v, want the malformed line 13", problems)
	}
}

func TestReadClaudeCodeFile_edges(t *testing.T) {
	line := func(typ, body string) string {
		return `{"type":"` + typ + `","sessionId":"s-9","cwd":"/w/nova","timestamp":"2026-03-04T12:00:00Z","message":` + body + "}\n"
	}
	// queueOp and attachment are the lines of a prompt typed while a turn
	// ran (2.1): its moves in the queue, and the attachment that hands it
	// to the running turn.
	queueOp := func(op, reason, content string) string {
		l := map[string]string{"type": "queue-operation", "operation": op, "sessionId": "s-9", "timestamp": "2026-03-04T12:00:00Z"}
		if reason != "" {
			l["reason"] = reason
		}
		if content != "" {
			l["content"] = content
		}
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	attachment := func(prompt string) string {
		b, err := json.Marshal(prompt)
		if err != nil {
			t.Fatal(err)
		}
		return `{"type":"attachment","sessionId":"s-9","timestamp":"2026-03-04T12:00:00Z","attachment":{"type":"queued_command","commandMode":"prompt","prompt":` +
			string(b) + `,"origin":{"kind":"human"}}}` + "\n"
	}
	tests := []struct {
		name  string
		rel   string
		lines string
		want  []string
	}{
		{
			name: "each text line of a reply interleaved with its tool results is a record",
			rel:  "p/s-9.jsonl",
			lines: line("assistant", `{"id":"m1","content":[{"type":"text","text":"Part one."}]}`) +
				line("user", `{"content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}`) +
				line("assistant", `{"id":"m1","content":[{"type":"text","text":"Part two."}]}`) +
				line("assistant", `{"id":"m1","content":[{"type":"text","text":"Part one."}]}`),
			want: []string{"s-9:1 Part one.", "s-9:3 Part two."},
		},
		{
			name: "repeated line uuid read once",
			rel:  "p/s-9.jsonl",
			lines: strings.Replace(line("user", `{"content":"hello"}`), `{"type"`, `{"uuid":"u1","type"`, 1) +
				strings.Replace(line("user", `{"content":"hello"}`), `{"type"`, `{"uuid":"u1","type"`, 1),
			want: []string{"s-9:1 hello"},
		},
		{
			name:  "compact summary and meta lines are not turns",
			rel:   "p/s-9.jsonl",
			lines: strings.Replace(line("user", `{"content":"This session is being continued from a previous conversation."}`), `{"type"`, `{"isCompactSummary":true,"type"`, 1),
		},
		{
			name:  "older sidechain file next to the session",
			rel:   "p/agent-77.jsonl",
			lines: line("user", `{"content":"look around"}`),
			want:  []string{"s-9/agent-77:1 look around"},
		},
		{
			name:  "tool-results files are skipped",
			rel:   "p/s-9/tool-results/t1.jsonl",
			lines: line("user", `{"content":"externalized output"}`),
		},
		{
			name: "an assistant message whose content is a string",
			rel:  "p/s-9.jsonl",
			lines: line("assistant", `{"id":"m1","model":"claude-opus-4-7","content":"Plain answer."}`) +
				line("assistant", `{"id":"m2","content":[{"type":"text","text":"Block answer."}]}`),
			want: []string{"s-9:1 Plain answer.", "s-9:2 Block answer."},
		},
		{
			name: "a line of megabytes (a pasted screenshot) is read, the image a mark",
			rel:  "p/s-9.jsonl",
			lines: line("user", `{"content":[{"type":"text","text":"the chart is cut off"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`+
				strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 3<<20/24)+`"}}]}`) +
				line("assistant", `{"id":"m1","content":[{"type":"text","text":"The axis labels overflow."}]}`),
			want: []string{`s-9:1 the chart is cut off\n\n[image]`, "s-9:2 The axis labels overflow."},
		},
		{
			name: "a future line type is a problem, and the lines after it are read",
			rel:  "p/s-9.jsonl",
			lines: `{"type":"hologram-state","sessionId":"s-9","frames":[1,2]}` + "\n" +
				line("user", `{"content":"still read"}`),
			want: []string{"s-9:2 still read"},
		},
		{
			name: "a prompt taken into the turn is read once, its attachment before or after the remove",
			rel:  "p/s-9.jsonl",
			lines: queueOp("enqueue", "", "use the v2 schema") + attachment("use the v2 schema") + queueOp("remove", "absorbed_mid_turn", "use the v2 schema") +
				line("assistant", `{"id":"m1","content":[{"type":"text","text":"Switched to v2."}]}`) +
				queueOp("enqueue", "", "and drop v1") + queueOp("remove", "absorbed_mid_turn", "and drop v1") + attachment("and drop v1") +
				line("assistant", `{"id":"m2","content":[{"type":"text","text":"Dropped v1."}]}`),
			want: []string{"s-9:2 use the v2 schema", "s-9:4 Switched to v2.", "s-9:7 and drop v1", "s-9:8 Dropped v1."},
		},
		{
			name: "a queued prompt with an image is read once, from the line that carries the image",
			rel:  "p/s-9.jsonl",
			lines: queueOp("enqueue", "", "[Image #2] the legend overlaps") + queueOp("remove", "absorbed_mid_turn", "[Image #2] the legend overlaps") +
				`{"type":"attachment","sessionId":"s-9","timestamp":"2026-03-04T12:00:00Z","attachment":{"type":"queued_command","commandMode":"prompt","prompt":[{"type":"text","text":"the legend overlaps"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}],"origin":{"kind":"human"}}}` + "\n" +
				queueOp("enqueue", "", "[Image #3]") + queueOp("remove", "absorbed_mid_turn", "[Image #3]") +
				line("assistant", `{"id":"m1","content":[{"type":"text","text":"Moved the legend."}]}`),
			want: []string{`s-9:3 the legend overlaps\n\n[image]`, "s-9:6 Moved the legend."},
		},
		{
			name: "prompts sent at once are one user line",
			rel:  "p/s-9.jsonl",
			lines: queueOp("enqueue", "", "rename the flag") + queueOp("enqueue", "", "and update the docs") +
				queueOp("dequeue", "", "") + line("user", `{"content":"rename the flag\nand update the docs"}`) +
				line("assistant", `{"id":"m1","content":[{"type":"text","text":"Done."}]}`),
			want: []string{`s-9:4 rename the flag\nand update the docs`, "s-9:5 Done."},
		},
		{
			name: "a task's notice removed from the queue takes no prompt with it",
			rel:  "p/s-9.jsonl",
			lines: queueOp("enqueue", "", "check the logs too") +
				queueOp("enqueue", "", "<task-notification><task-id>b1</task-id></task-notification>") +
				queueOp("remove", "absorbed_mid_turn", "<task-notification><task-id>b1</task-id></task-notification>") +
				line("assistant", `{"id":"m1","content":[{"type":"text","text":"The build finished."}]}`) +
				queueOp("dequeue", "", "") + line("user", `{"content":"check the logs too"}`),
			want: []string{"s-9:4 The build finished.", "s-9:6 check the logs too"},
		},
		{
			name: "a bare slash command taken in, or a prompt removed for a reason not known to mean sent, is no prompt",
			rel:  "p/s-9.jsonl",
			lines: queueOp("enqueue", "", "/status") + queueOp("remove", "absorbed_mid_turn", "/status") +
				queueOp("enqueue", "", "never mind") + queueOp("remove", "cancelled", "never mind") +
				line("assistant", `{"id":"m1","content":[{"type":"text","text":"Still running."}]}`),
			want: []string{"s-9:5 Still running."},
		},
		{
			name:  "unknown content shape is a problem, not a crash",
			rel:   "p/s-9.jsonl",
			lines: line("user", `{"content":42}`) + line("user", `{"content":"still read"}`),
			want:  []string{"s-9:2 still read"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, filepath.FromSlash(tt.rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(tt.lines), 0o600); err != nil {
				t.Fatal(err)
			}
			recs, problems := collect(t, config.Source{Name: "c", Kind: config.KindClaudeCode, Path: dir})
			var got []string
			for _, r := range recs {
				got = append(got, r.ID+" "+strings.ReplaceAll(r.Text, "\n", `\n`))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("records %q, want %q", got, tt.want)
			}
			wantProblems := 0
			if strings.Contains(tt.name, "problem") {
				wantProblems = 1
			}
			if len(problems) != wantProblems {
				t.Errorf("problems %v, want %d", problems, wantProblems)
			}
		})
	}
}

func TestClaudeUserText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "fix the test", "fix the test"},
		{"reminder cut", "fix it\n<system-reminder>\nbe brief\n</system-reminder>", "fix it"},
		{"command echo", "<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>auth flow</command-args>", "/review auth flow"},
		{"command echo without arguments", "<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>", ""},
		{"local output", "<local-command-stdout>Set model to opus</local-command-stdout>", ""},
		{"session start hook", "<session-start-hook>use the ask tool</session-start-hook>\nwhy twice?", "why twice?"},
		{"tick", "<tick>14:20:15</tick>", ""},
		{"caveat", "Caveat: The messages below were generated by the user while running local commands. DO NOT respond.", ""},
		{"interrupted", "[Request interrupted by user for tool use]", ""},
		{"resume ping", "Continue from where you left off.", ""},
		{"words that begin like it", "Continue from where you left off. Then add the test.", "Continue from where you left off. Then add the test."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := claudeUserText(tt.in); got != tt.want {
				t.Errorf("claudeUserText = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestClaudeHandoff(t *testing.T) {
	pointer := "\n\nIf you need specific details from before exiting plan mode (like exact code snippets, error messages, or content you generated), read the full transcript at: /home/jo/.claude/projects/-w/a.jsonl"
	tests := []struct{ name, text, planContent, want string }{
		{"pasted plan is the user's", "Implement the following plan:\n\n# Plan: X\n\n1. Do it", "", "Implement the following plan:\n\n# Plan: X\n\n1. Do it"},
		{"handoff without planContent", "Implement the following plan:\n\n\n## Expire sessions\n\n1. Store issued_at" + pointer, "", "Implement the following plan:\n\n## Expire sessions\n\n1. Store issued_at"},
		{"handoff with feedback", "Implement the following plan:\n\n# Plan: X\n\n1. Do it" + pointer + "\n\nUser feedback on this plan: not on Fridays", "# Plan: X\n\n1. Do it", "Implement the following plan:\n\n# Plan: X\n\n1. Do it\n\nnot on Fridays"},
		{"other prompt", "fix the test", "", "fix the test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := claudeHandoff(tt.text, tt.planContent); got != tt.want {
				t.Errorf("claudeHandoff = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestClaudeToolResultWords(t *testing.T) {
	result := func(content string) json.RawMessage {
		return json.RawMessage(`[{"type":"tool_result","tool_use_id":"t","content":` + content + `}]`)
	}
	tests := []struct {
		name    string
		content json.RawMessage
		want    string
	}{
		{"reason", result(`"The user doesn't want to proceed with this tool use. The tool use was rejected. To tell you how to proceed, the user said:\nuse TDD"`), "use TDD"},
		{"output quoting a rejection", result(`"log: To tell you how to proceed, the user said:\nnot the user"`), ""},
		{"rejection alone", result(`"The user doesn't want to proceed with this tool use. STOP what you are doing and wait for the user to tell you how to proceed."`), ""},
		{"answers", result(`[{"type":"text","text":"User has answered your questions: \"Color?\"=\"Blue\", \"Size?\"=\"L\". You can now continue with the user's answers in mind."}]`), `"Color?"="Blue", "Size?"="L"`},
		{"older answers", result(`"Your questions have been answered: \"Q\"=\"keep it\". You can now continue."`), `"Q"="keep it"`},
		{"answers without the closing sentence", result(`"User has answered your questions: \"Q\"=\"a\""`), `"Q"="a"`},
		{"tool output that quotes them", result(`"grep: To tell you how to proceed"`), ""},
		// The preview of the option picked is the assistant's; the notes
		// are the user's (Claude Code 2.1's AskUserQuestion result).
		{"preview dropped", result(`"User has answered your questions: \"A?\"=\"x\" selected preview:\nfn a() {}, \"B?\"=\"y\". You can now continue with the user's answers in mind."`), `"A?"="x", "B?"="y"`},
		{"preview and notes", result(`"User has answered your questions: \"A?\"=\"x\" selected preview:\n| a | b | user notes: wider. You can now continue with the user's answers in mind."`), `"A?"="x" user notes: wider`},
		{"notes repeating an Other answer", result(`"User has answered your questions: \"A?\"=\"my own\" user notes: my own. You can now continue with the user's answers in mind."`), `"A?"="my own"`},
		{"chat about this, nothing answered", result(`"The user doesn't want to proceed with this tool use. The tool use was rejected. To tell you how to proceed, the user said:\nThe user wants to clarify these questions.\n    Start by asking them what they would like to clarify.\n\n    Questions asked:\n- \"A?\"\n  (No answer provided)"`), ""},
		{"chat about this, a question in lines", result(`"The user doesn't want to proceed with this tool use. The tool use was rejected.\nQuestions asked:\n- \"Which host? For example:\n- SMTP\n- API\"\n  Answer: SMTP on port 25"`), "\"Which host? For example:\n- SMTP\n- API\"=\"SMTP on port 25\""},
		{"chat about this, notes only", result(`"The user doesn't want to proceed with this tool use. The tool use was rejected.\nQuestions asked:\n- \"A?\"\n  User notes: neither, ask me later\n- \"B?\"\n  Answer: y"`), `"A?" user notes: neither, ask me later, "B?"="y"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(claudeToolResultWords(tt.content, nil), "|"); got != tt.want {
				t.Errorf("claudeToolResultWords = %q, want %q", got, tt.want)
			}
		})
	}
	// The questions the line's toolUseResult answers mark where pairs
	// begin, though a preview holds text that looks like one.
	content := result(`"User has answered your questions: \"A?\"=\"x\" selected preview:\nf(\"k\", \"v\"=\"w\"), \"B?\"=\"y\". You can now continue with the user's answers in mind."`)
	toolUseResult := json.RawMessage(`{"answers": {"A?": "x", "B?": "y"}}`)
	if got, want := strings.Join(claudeToolResultWords(content, toolUseResult), "|"), `"A?"="x", "B?"="y"`; got != want {
		t.Errorf("claudeToolResultWords with the questions = %q, want %q", got, want)
	}
}

// TestClaudeKeptWindow: the uuids of lines that gave records are
// remembered for the last claudeKeptWindow of them, in a cursor state that
// stays small (every sync stores every file's state again).
func TestClaudeKeptWindow(t *testing.T) {
	h := &claudeHandler{kept: idWindow{size: claudeKeptWindow}}
	uuid := func(i int) string { return fmt.Sprintf("0b7c%04x-2f1e-4a55-9c1d-%012x", i, i*7919) }
	n := claudeKeptWindow + 10
	for i := range n {
		h.keep(uuid(i))
	}
	if len(h.st.Kept) != claudeKeptWindow*keptKeyBytes {
		t.Fatalf("state holds %d bytes, want %d", len(h.st.Kept), claudeKeptWindow*keptKeyBytes)
	}
	// A handler resumed from the stored state knows the same uuids.
	b, err := json.Marshal(h.st)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 9<<10 {
		t.Errorf("stored state is %d bytes", len(b))
	}
	resumed := &claudeHandler{kept: idWindow{size: claudeKeptWindow}}
	if err := json.Unmarshal(b, &resumed.st); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if got, want := resumed.keptBefore(uuid(i)), i >= 10; got != want {
			t.Errorf("uuid %d: remembered %v, want %v", i, got, want)
		}
	}
}

// TestRead_titleSecretNotInState: a session title that holds a secret (a
// Claude Code custom title, a Codex thread name) is redacted before the
// reader keeps it in its cursor state, which is stored with the index:
// the records' titles were redacted, but the state held it whole.
func TestRead_titleSecretNotInState(t *testing.T) {
	const secret = "ghp_q8Rz3kWm5Tn0Vb7Yc2Xl9Pd4Hf6Js1Ga8K3e"
	tests := []struct {
		kind, rel, content string
	}{
		{config.KindClaudeCode, "-home-rui-shop/33333333-2100-4000-8000-000000000021.jsonl",
			`{"type":"custom-title","customTitle":"push with ` + secret + `","sessionId":"33333333-2100-4000-8000-000000000021"}` + "\n" +
				`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/rui/shop","sessionId":"33333333-2100-4000-8000-000000000021","version":"2.1.97","type":"user","message":{"role":"user","content":"Push the release branch."},"uuid":"r1","timestamp":"2026-04-02T09:00:00.000Z"}` + "\n"},
		{config.KindCodex, "2026/01/20/rollout-2026-01-20T08-10-00-019b3c4d-0098-7000-8000-000000000098.jsonl",
			`{"timestamp":"2026-01-20T08:10:00.020Z","type":"session_meta","payload":{"id":"019b3c4d-0098-7000-8000-000000000098","timestamp":"2026-01-20T08:10:00.000Z","cwd":"/srv/app","originator":"codex_cli_rs","cli_version":"0.98.0"}}` + "\n" +
				`{"timestamp":"2026-01-20T08:10:01.000Z","type":"event_msg","payload":{"type":"thread_name_updated","thread_id":"019b3c4d-0098-7000-8000-000000000098","thread_name":"push with ` + secret + `"}}` + "\n" +
				`{"timestamp":"2026-01-20T08:10:02.001Z","type":"event_msg","payload":{"type":"user_message","message":"Push the release branch.","images":[]}}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			dir := writeTree(t, map[string]string{tt.rel: tt.content})
			var res readResult
			readFrom(t, config.Source{Name: "s", Kind: tt.kind, Path: dir}, filepath.Join(dir, filepath.FromSlash(tt.rel)), tt.rel, Cursor{}, &res)
			if len(res.records) != 1 || len(res.problems) != 0 {
				t.Fatalf("%d records, problems %v", len(res.records), res.problems)
			}
			if r := res.records[0]; r.Title != "push with [redacted]" {
				t.Errorf("title %q", r.Title)
			}
			if strings.Contains(string(res.cursor.State), secret) {
				t.Errorf("cursor state holds the secret: %s", res.cursor.State)
			}
		})
	}
}

// TestProjectFromCwd_claudeWorktrees: a session or sub-agent that Claude
// Code runs in a worktree it made (<repo>/.claude/worktrees/<name>) is of
// the repository's project, not of one named after the worktree.
func TestProjectFromCwd_claudeWorktrees(t *testing.T) {
	for cwd, want := range map[string]string{
		"/home/rui/src/shop":  "shop",
		"/home/rui/src/shop/": "shop",
		"/home/rui/src/shop/.claude/worktrees/elastic-cori-f29409":  "shop",
		"/home/rui/src/shop/.claude/worktrees/elastic-cori-f29409/": "shop",
		`C:\Users\rui\shop\.claude\worktrees\agent-a5c1`:            "shop",
		// A worktree made from a session in a worktree.
		"/home/rui/src/shop/.claude/worktrees/a/.claude/worktrees/b": "shop",
		// A folder of the worktree is named as the same folder of the
		// repository is.
		"/home/rui/src/shop/.claude/worktrees/elastic-cori-f29409/web": "web",
		"/home/rui/src/worktrees/feature":                              "feature",
		"":                                                             "",
	} {
		if got := ProjectFromCwd(cwd); got != want {
			t.Errorf("ProjectFromCwd(%q) = %q, want %q", cwd, got, want)
		}
	}
}

// TestReadClaudeCode_absorbedPromptReadOnce: a prompt the running turn
// took in is the user's once a read reaches the end of what is written,
// reply or not (the session may end there); when a later line carries it
// after all (its queued_command attachment, written after the remove),
// the file is read again whole rather than the prompt kept twice.
func TestReadClaudeCode_absorbedPromptReadOnce(t *testing.T) {
	const s = "eeeeeeee-2100-4000-8000-0000000000e9"
	queue := func(op, reason string) string {
		l := `{"type":"queue-operation","operation":"` + op + `","timestamp":"2026-10-06T08:00:05.000Z","sessionId":"` + s + `","content":"skip zoom 15"`
		if reason != "" {
			l += `,"reason":"` + reason + `"`
		}
		return l + "}\n"
	}
	head := `{"type":"user","uuid":"u1","sessionId":"` + s + `","cwd":"/w/tiles","timestamp":"2026-10-06T08:00:00.000Z","message":{"role":"user","content":"Warm zoom 14"}}` + "\n" +
		queue("enqueue", "") + queue("remove", "absorbed_mid_turn")
	tail := `{"type":"attachment","sessionId":"` + s + `","timestamp":"2026-10-06T08:00:06.000Z","attachment":{"type":"queued_command","commandMode":"prompt","prompt":"skip zoom 15","origin":{"kind":"human"}}}` + "\n" +
		`{"type":"assistant","uuid":"a1","sessionId":"` + s + `","cwd":"/w/tiles","timestamp":"2026-10-06T08:00:09.000Z","message":{"id":"m1","model":"claude-opus-4-8","content":[{"type":"text","text":"Skipped zoom 15."}]}}` + "\n"
	rel := "-w-tiles/" + s + ".jsonl"
	dir := writeTree(t, map[string]string{rel: head})
	path := filepath.Join(dir, filepath.FromSlash(rel))
	src := config.Source{Name: "c", Kind: config.KindClaudeCode, Path: dir}
	var res readResult
	readFrom(t, src, path, rel, Cursor{}, &res)
	texts := func() []string {
		var out []string
		for _, r := range res.records {
			out = append(out, fmt.Sprintf("%d %s %s", r.Line, r.Role, r.Text))
		}
		return out
	}
	if got, want := strings.Join(texts(), "|"), "1 user Warm zoom 14|2 user skip zoom 15"; got != want {
		t.Fatalf("read to the end: %q, want %q", got, want)
	}
	if err := os.WriteFile(path, []byte(head+tail), 0o600); err != nil {
		t.Fatal(err)
	}
	readResumed(t, src, path, rel, res.cursor, &res)
	if got, want := strings.Join(texts(), "|"), "1 user Warm zoom 14|4 user skip zoom 15|5 assistant Skipped zoom 15."; got != want {
		t.Errorf("read on: %q, want %q", got, want)
	}
}
