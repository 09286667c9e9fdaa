package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
)

// TestReadCodexFile_payloadArtifacts: newer Codex builds write a rollout
// line of 8 KiB or more whose item is a session_meta (its base
// instructions make it that large), a tool_manifest, a sampling_boundary
// or one of a few events as a reference,
// {"timestamp","format_version","type":"rollout_payload_artifact",
// "payload":{"sha256","bytes","item_type"}}, the item itself (without
// timestamp and format_version) in <codex home>/rollout-payloads/<sha256>.json
// (codex-rs rollout, payload artifacts: store_line, hydrate_line, root).
// The session_meta read from it names the session's folder (its project)
// and tells a helper thread of Codex's own, not read; a reference whose
// file is missing is reported, and the rest of the rollout read.
func TestReadCodexFile_payloadArtifacts(t *testing.T) {
	const id = "019e1000-0000-7000-8000-0000000000a1"
	meta := func(source string) string {
		return `{"type":"session_meta","payload":{"id":"` + id + `","cwd":"/home/ana/src/ledger","cli_version":"0.190.0","source":` + source +
			`,"base_instructions":{"text":"` + strings.Repeat("You are Codex. ", 700) + `"}}}`
	}
	ref := func(item, body string) string {
		sum := sha256.Sum256([]byte(body))
		return `{"timestamp":"2026-11-02T10:00:00.000Z","format_version":1,"type":"rollout_payload_artifact","payload":{"sha256":"` +
			hex.EncodeToString(sum[:]) + `","bytes":` + strconv.Itoa(len(body)) + `,"item_type":"` + item + `"}}` + "\n"
	}
	// store writes body as the payload file of its digest, or, with
	// damaged, another text of its size there (a file replaced).
	store := func(t *testing.T, home, body string, damaged bool) {
		sum := sha256.Sum256([]byte(body))
		p := filepath.Join(home, "rollout-payloads", hex.EncodeToString(sum[:])+".json")
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if damaged {
			body = strings.Replace(body, `"cli"`, `"exe"`, 1)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	manifest := `{"type":"tool_manifest","payload":{"tools":[{"type":"function","name":"shell","description":"` + strings.Repeat("Runs a command. ", 600) + `"}]}}`
	turns := `{"timestamp":"2026-11-02T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Why does the ledger replica lag?"}]}}` + "\n" +
		`{"timestamp":"2026-11-02T10:00:02.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The replica applies the WAL in one thread."}]}}` + "\n"
	tests := []struct {
		name, source    string
		stored, damaged bool
		want            int
		project         string
		problem         string
	}{
		{"a session the user started", `"cli"`, true, false, 2, "ledger", ""},
		{"a helper thread", `{"subagent":"memory_consolidation"}`, true, false, 0, "", ""},
		{"the payload file missing", `"cli"`, false, false, 2, "", "is missing"},
		{"the payload file replaced", `"cli"`, true, true, 2, "", "not the "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			m := meta(tt.source)
			if tt.stored {
				store(t, home, m, tt.damaged)
			}
			store(t, home, manifest, false)
			p := filepath.Join(home, "sessions", "2026", "11", "02", "rollout-2026-11-02T10-00-00-"+id+".jsonl")
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(ref("session_meta", m)+ref("tool_manifest", manifest)+turns), 0o600); err != nil {
				t.Fatal(err)
			}
			recs, problems := collect(t, config.Source{Name: "c", Kind: config.KindCodex, Path: filepath.Join(home, "sessions")})
			if len(recs) != tt.want {
				t.Fatalf("%d records, want %d: %+v", len(recs), tt.want, recs)
			}
			for _, r := range recs {
				if r.Project != tt.project {
					t.Errorf("%s: project %q, want %q", r.ID, r.Project, tt.project)
				}
			}
			switch {
			case tt.problem == "" && len(problems) > 0:
				t.Errorf("problems %v", problems)
			case tt.problem != "" && (len(problems) != 1 || !strings.Contains(problems[0].Reason, tt.problem)):
				t.Errorf("problems %v, want one about %q", problems, tt.problem)
			}
		})
	}
}
