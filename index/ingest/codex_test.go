package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

const (
	codexSession = "0196c0de-7a11-7c2e-9f00-5e1b2c3d4e5f"
	codexRollout = "rollout-2026-03-02T09-15-03-" + codexSession + ".jsonl"
	codexFixture = "testdata/codex/sessions/2026/03/02/" + codexRollout
)

// wantRecord is what a transcript test checks of one record.
type wantRecord struct {
	ID, Role, Text, Project, Session, Conversation, Time string
	Line, Redactions                                     int
}

// collect reads src through Read and returns its records and problems.
func collect(t *testing.T, src config.Source) ([]memory.Record, []Problem) {
	t.Helper()
	var recs []memory.Record
	var problems []Problem
	err := Read(context.Background(), src, Sink{
		Record:  func(r memory.Record) error { recs = append(recs, r); return nil },
		Problem: func(p Problem) { problems = append(problems, p) },
	})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return recs, problems
}

// noiseLeak matches what must never reach a dialogue record: the markers
// the fixtures put in dropped content, secrets, base64 payloads and the
// citation markup Codex hides.
var noiseLeak = regexp.MustCompile(`MARKER|sk-proj-|ghp_|base64|iVBOR|[A-Za-z0-9+/]{80,}|【F:|<citation>|oai-mem-citation`)

// checkRecords compares recs with want and checks what every dialogue
// record of kind must carry.
func checkRecords(t *testing.T, kind string, recs []memory.Record, want []wantRecord) {
	t.Helper()
	for i, r := range recs {
		if r.Agent != kind || r.Kind != kind || r.Layer != "dialogue" {
			t.Errorf("record %d: agent %q kind %q layer %q", i, r.Agent, r.Kind, r.Layer)
		}
		if r.Date != r.Time.UTC().Format("2006-01-02") || r.Date == "" {
			t.Errorf("record %d: date %q does not match time %v", i, r.Date, r.Time)
		}
		if r.Path == "" || r.Title != "" {
			t.Errorf("record %d: path %q title %q", i, r.Path, r.Title)
		}
		if m := noiseLeak.FindString(r.Text); m != "" {
			t.Errorf("record %d: noise %q leaked into %q", i, m, r.Text)
		}
	}
	if len(recs) != len(want) {
		for _, r := range recs {
			t.Logf("got %s %s %q", r.ID, r.Role, r.Text)
		}
		t.Fatalf("got %d records, want %d", len(recs), len(want))
	}
	for i, w := range want {
		r := recs[i]
		got := wantRecord{
			ID: r.ID, Role: r.Role, Text: r.Text, Project: r.Project, Session: r.SessionID,
			Conversation: r.Conversation, Time: r.Time.UTC().Format(time.RFC3339Nano),
			Line: r.Line, Redactions: r.Redactions,
		}
		if got != w {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, got, w)
		}
	}
}

// codexWant is what the fixture rollout yields.
func codexWant() []wantRecord {
	conv := "codex:" + codexSession
	rec := func(line int, role, text, project, ts string, redactions int) wantRecord {
		return wantRecord{
			ID: codexSession + ":" + strconv.Itoa(line), Role: role, Text: text, Project: project,
			Session: codexSession, Conversation: conv, Time: ts, Line: line, Redactions: redactions,
		}
	}
	return []wantRecord{
		// Lines 2-4 are the developer prompt, AGENTS.md and environment
		// context; line 7 repeats line 6 with other white space.
		rec(6, "user", "Why do invoice totals drift by a cent?", "billing", "2026-03-02T09:15:10.02Z", 0),
		// Commentary is an assistant message too (its event_msg copy on
		// line 12 is dropped).
		rec(11, "assistant", "Let me search for the rounding calls.", "billing", "2026-03-02T09:15:20Z", 0),
		// Reasoning, token counts and the tool output are dropped; the
		// shell call is summarized on the answer that follows it.
		rec(15, "assistant", "Totals drift because each line is rounded before summing; round once at the end with ROUND_HALF_EVEN.\n[tool: shell rg -n round( src]", "billing", "2026-03-02T09:16:41.502Z", 0),
		// turn_context moved the session to billing-api.
		rec(19, "user", "Here is the failing run; the staging key is [redacted].\n[image]", "billing-api", "2026-03-02T09:20:05.25Z", 1),
		rec(24, "assistant", "Switched the rounding to the end of the sum and added a regression test.\n[tool: apply_patch src/money.py tests/test_money.py]", "billing-api", "2026-03-02T09:21:10Z", 0),
		// <turn_aborted> and the world_state line are dropped; a prompt
		// really repeated is kept twice.
		rec(28, "user", "go on", "billing-api", "2026-03-02T09:23:00Z", 0),
		rec(30, "assistant", "Done: make test passes.", "billing-api", "2026-03-02T09:23:20Z", 0),
		rec(32, "user", "go on", "billing-api", "2026-03-02T09:24:00Z", 0),
		// The compaction summary is kept.
		rec(34, "assistant", "Summary of the session so far.", "billing-api", "2026-03-02T09:24:30Z", 0),
	}
}

func TestReadCodexFile(t *testing.T) {
	recs, problems := collect(t, config.Source{Name: "codex", Kind: config.KindCodex, Path: "testdata/codex"})
	checkRecords(t, config.KindCodex, recs, codexWant())
	if len(problems) != 1 || problems[0].Line != 21 || problems[0].Source != "codex" ||
		!strings.HasSuffix(problems[0].Path, codexRollout) || !strings.Contains(problems[0].Reason, "JSON") {
		t.Errorf("problems = %v, want the malformed line 21", problems)
	}
	if got := problems[0].String(); !strings.HasSuffix(got, codexRollout+":21: "+problems[0].Reason) {
		t.Errorf("problem = %q, want file:line", got)
	}
}

// writeZstd writes data compressed to path.
func writeZstd(t *testing.T, path string, data []byte) {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	if err := os.WriteFile(path, enc.EncodeAll(data, nil), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestReadCodexFile_zstd(t *testing.T) {
	plain, err := os.ReadFile(codexFixture)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		withPlain bool
	}{
		{"compressed only", false},
		{"plain sibling wins", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeZstd(t, filepath.Join(dir, codexRollout+".zst"), plain)
			if tt.withPlain {
				if err := os.WriteFile(filepath.Join(dir, codexRollout), plain, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			recs, problems := collect(t, config.Source{Name: "codex", Kind: config.KindCodex, Path: dir})
			// Same records, same ids, whichever file they came from.
			checkRecords(t, config.KindCodex, recs, codexWant())
			wantSuffix := codexRollout + ".zst"
			if tt.withPlain {
				wantSuffix = codexRollout
			}
			for _, r := range recs {
				if !strings.HasSuffix(r.Path, wantSuffix) {
					t.Errorf("record %s read from %s, want *%s", r.ID, r.Path, wantSuffix)
				}
			}
			if len(problems) != 1 || problems[0].Line != 21 {
				t.Errorf("problems = %v, want the malformed line 21 once", problems)
			}
		})
	}
}

func TestReadCodexFile_edges(t *testing.T) {
	meta := `{"timestamp":"2026-03-03T08:00:00Z","type":"session_meta","payload":{"id":"s-1","cwd":"/w/nova"}}` + "\n"
	user := func(ts, text string) string {
		return `{"timestamp":"` + ts + `","type":"event_msg","payload":{"type":"user_message","message":"` + text + `"}}` + "\n"
	}
	tests := []struct {
		name      string
		file      string
		content   string
		zst       bool
		wantTexts []string
		wantIDs   []string
		problem   string
	}{
		{
			name:      "unterminated last line is an append in progress",
			file:      "rollout-a.jsonl",
			content:   meta + user("2026-03-03T08:00:01Z", "first") + `{"timestamp":"2026-03-03T08:00:02Z","type":"event_`,
			wantTexts: []string{"first"},
			wantIDs:   []string{"s-1:2"},
		},
		{
			name:      "session id from the file name without session_meta",
			file:      "rollout-2026-03-03T08-00-00-0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl",
			content:   user("2026-03-03T08:00:01Z", "hello"),
			wantTexts: []string{"hello"},
			wantIDs:   []string{"0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000:1"},
		},
		{
			name:      "image-only prompt and IDE context",
			file:      "rollout-b.jsonl",
			content:   meta + `{"timestamp":"2026-03-03T08:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"","images":["data:image/png;base64,AAAA"]}}` + "\n" + user("2026-03-03T08:00:02Z", `# Context from my IDE setup:\n\n## Active file: a.go\n\n## My request for Codex:\nrename Foo`),
			wantTexts: []string{"rename Foo"},
			wantIDs:   []string{"s-1:3"},
		},
		{
			name:      "payload of an unexpected shape is a problem, the rest is read",
			file:      "rollout-d.jsonl",
			content:   meta + `{"timestamp":"2026-03-03T08:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":42}}` + "\n" + user("2026-03-03T08:00:02Z", "after"),
			wantTexts: []string{"after"},
			wantIDs:   []string{"s-1:3"},
			problem:   "unexpected message content",
		},
		{
			// The event copies of an answer of two text items, one per
			// item, written before the answer (as 0.42 wrote its copies).
			name: "answer of two text items after its event copies",
			file: "rollout-e.jsonl",
			content: meta + user("2026-03-03T08:00:01Z", "status?") +
				`{"timestamp":"2026-03-03T08:00:02Z","type":"event_msg","payload":{"type":"agent_message","message":"Build is green."}}` + "\n" +
				`{"timestamp":"2026-03-03T08:00:02Z","type":"event_msg","payload":{"type":"agent_message","message":"Deploy waits for review."}}` + "\n" +
				`{"timestamp":"2026-03-03T08:00:02Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Build is green."},{"type":"output_text","text":"Deploy waits for review."}]}}` + "\n",
			wantTexts: []string{"status?", "Build is green.", "Deploy waits for review."},
			wantIDs:   []string{"s-1:2", "s-1:3", "s-1:4"},
		},
		{
			name:    "corrupt zstd",
			file:    "rollout-c.jsonl.zst",
			content: "this is not zstd",
			problem: "zst",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, tt.file), []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			recs, problems := collect(t, config.Source{Name: "c", Kind: config.KindCodex, Path: dir})
			var texts, ids []string
			for _, r := range recs {
				texts, ids = append(texts, r.Text), append(ids, r.ID)
			}
			if strings.Join(texts, "|") != strings.Join(tt.wantTexts, "|") || strings.Join(ids, "|") != strings.Join(tt.wantIDs, "|") {
				t.Errorf("records %q %q, want %q %q", texts, ids, tt.wantTexts, tt.wantIDs)
			}
			switch {
			case tt.problem == "" && len(problems) > 0:
				t.Errorf("unexpected problems %v", problems)
			case tt.problem != "" && (len(problems) != 1 || !strings.Contains(problems[0].Reason, tt.problem)):
				t.Errorf("problems %v, want one about %q", problems, tt.problem)
			}
		})
	}
}

// TestReadCodexFile_helperThreads reads the rollouts of the helper
// threads Codex records for itself beside the user's (a rollout of them
// gives no record, so they are no drift case: every such case must give
// one): none of their lines is read, whatever its role.
func TestReadCodexFile_helperThreads(t *testing.T) {
	rollout := func(meta string) string {
		return `{"timestamp":"2026-09-27T09:00:00.000Z","type":"session_meta","payload":{"id":"019da000-0177-7000-8000-000000000178","cwd":"/home/ana/src/ledger","cli_version":"0.177.0",` + meta + `}}` + "\n" +
			`{"timestamp":"2026-09-27T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Consolidate the raw memories into MEMORY.md."}]}}` + "\n" +
			`{"timestamp":"2026-09-27T09:00:02.000Z","type":"event_msg","payload":{"type":"user_message","message":"Consolidate the raw memories into MEMORY.md."}}` + "\n" +
			`{"timestamp":"2026-09-27T09:00:03.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Updated MEMORY.md."}]}}` + "\n"
	}
	tests := []struct {
		name, meta string
		want       int
	}{
		{"a session the user started is read", `"source":"cli"`, 2},
		{"a spawned sub-agent is read", `"source":{"subagent":{"thread_spawn":{"parent_thread_id":"019da000-0177-7000-8000-000000000177","depth":1}}}`, 2},
		{"memory consolidation (internal)", `"source":{"internal":"memory_consolidation"},"thread_source":"memory_consolidation"`, 0},
		{"guardian (internal)", `"source":{"internal":"guardian"}`, 0},
		{"guardian (sub-agent)", `"source":{"subagent":{"other":"guardian"}},"thread_source":"guardian_review"`, 0},
		{"compaction (sub-agent)", `"source":{"subagent":"compact"}`, 0},
		{"memory consolidation (sub-agent)", `"source":{"subagent":"memory_consolidation"}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			name := "rollout-2026-09-27T09-00-00-019da000-0177-7000-8000-000000000178.jsonl"
			if err := os.WriteFile(filepath.Join(dir, name), []byte(rollout(tt.meta)), 0o600); err != nil {
				t.Fatal(err)
			}
			recs, problems := collect(t, config.Source{Name: "c", Kind: config.KindCodex, Path: dir})
			if len(recs) != tt.want || len(problems) > 0 {
				t.Errorf("%d records (want %d), problems %v", len(recs), tt.want, problems)
			}
		})
	}
}

func TestReadCodexFile_stops(t *testing.T) {
	src := config.Source{Name: "codex", Kind: config.KindCodex, Path: "testdata/codex"}
	t.Run("cancelled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := ReadFile(ctx, src, File{Path: codexFixture, Rel: codexRollout}, Cursor{}, Sink{
			Record:  func(memory.Record) error { t.Error("record after cancel"); return nil },
			Problem: func(Problem) {},
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("sink error", func(t *testing.T) {
		stop := errors.New("stop")
		n := 0
		_, err := ReadFile(context.Background(), src, File{Path: codexFixture, Rel: codexRollout}, Cursor{}, Sink{
			Record:  func(memory.Record) error { n++; return stop },
			Problem: func(Problem) {},
		})
		if !errors.Is(err, stop) || n != 1 {
			t.Errorf("err = %v after %d records, want stop after 1", err, n)
		}
	})
}

func TestStripCodexCitations(t *testing.T) {
	entries := "<citation>\n<citation_entries>\nMEMORY.md:1-2|note=[x]\n</citation_entries>\n</citation>"
	tests := []struct{ name, text, want string }{
		{"memory citation", "Use the bucket." + entries + " Done.", "Use the bucket. Done."},
		{"two", "a" + entries + "b" + entries + "c", "abc"},
		{"xml element kept", "In JATS: <citation>Smith 2020</citation> is a reference.", "In JATS: <citation>Smith 2020</citation> is a reference."},
		{"xml then memory", "<citation>Smith</citation> ok" + entries, "<citation>Smith</citation> ok"},
		{"unclosed kept", "Write <citation> then the text.", "Write <citation> then the text."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := codexAssistantText(tt.text); got != tt.want {
				t.Errorf("codexAssistantText(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
	if got, _ := codexAssistantText("Done.<oai-mem-citation>left open"); got != "Done." {
		t.Errorf("an open <oai-mem-citation> runs to the end: %q", got)
	}
}
