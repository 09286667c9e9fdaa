package ingest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
)

const (
	codexLegacySession = "6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b"
	codexLegacyFile    = "rollout-2025-05-14-" + codexLegacySession + ".json"
	codexLegacyFixture = "testdata/codex-legacy/sessions/" + codexLegacyFile
)

// codexLegacyWant is what the legacy fixture yields: the items are
// numbered from 1 in the order of the file's list, and every record has
// the session's time, the only one the file holds.
func codexLegacyWant() []wantRecord {
	rec := func(n int, role, text string, redactions int) wantRecord {
		return wantRecord{
			ID: codexLegacySession + ":" + strconv.Itoa(n), Role: role, Text: text,
			Session: codexLegacySession, Conversation: "codex:" + codexLegacySession,
			Time: "2025-05-14T09:41:27.318Z", Line: n, Redactions: redactions,
		}
	}
	return []wantRecord{
		rec(1, "user", "Why does the invoice exporter round VAT down? My key is [redacted]", 1),
		// Reasoning and the tool's output are dropped, the shell call
		// summarized on the answer.
		rec(5, "assistant", "vat.go uses math.Floor on the VAT amount; HMRC expects rounding to the nearest penny, so use math.Round.\n[tool: shell rg -n math.Floor exporter/]", 0),
		// The CLI's own notice (role system) is no one's words.
		rec(7, "user", "Fix it and add a test for 0.5p amounts.", 0),
		rec(10, "assistant", "Switched vat.go to math.Round and added TestVATHalfPenny.\n[tool: apply_patch exporter/vat.go]", 0),
	}
}

// TestReadCodexFile_legacyJSON: a session the TypeScript Codex CLI saved
// (2025, before the Rust rewrite) as one JSON document,
// sessions/rollout-<date>-<uuid>.json, is listed by a Codex source and
// read into the records a rollout gives.
func TestReadCodexFile_legacyJSON(t *testing.T) {
	recs, problems := collect(t, config.Source{Name: "codex", Kind: config.KindCodex, Path: "testdata/codex-legacy"})
	checkRecords(t, config.KindCodex, recs, codexLegacyWant())
	if len(problems) != 0 {
		t.Errorf("problems = %v, want none", problems)
	}
}

// TestReadCodexFile_legacyJSONPartial: the CLI rewrites the whole file at
// every item (truncated, then written), so a read may see it empty or cut
// short. A file just written is a write in progress: the items before the
// cut are read and nothing is reported; one left cut short is reported.
func TestReadCodexFile_legacyJSONPartial(t *testing.T) {
	whole, err := os.ReadFile(codexLegacyFixture)
	if err != nil {
		t.Fatal(err)
	}
	// Cut inside the seventh item (the second prompt).
	cut := whole[:strings.Index(string(whole), "Fix it and add")]
	for _, tc := range []struct {
		name     string
		data     []byte
		age      time.Duration
		records  int
		problems int
	}{
		{"empty, just truncated", nil, 0, 0, 0},
		{"cut short, being written", cut, 0, 2, 0},
		{"cut short, left so", cut, time.Hour, 2, 1},
		{"empty, left so", nil, time.Hour, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, codexLegacyFile)
			if err := os.WriteFile(p, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			if tc.age > 0 {
				old := time.Now().Add(-tc.age)
				if err := os.Chtimes(p, old, old); err != nil {
					t.Fatal(err)
				}
			}
			recs, problems := collect(t, config.Source{Name: "codex", Kind: config.KindCodex, Path: dir})
			if tc.records > 0 {
				checkRecords(t, config.KindCodex, recs, codexLegacyWant()[:tc.records])
			} else if len(recs) != 0 {
				t.Errorf("got %d records, want none", len(recs))
			}
			if len(problems) != tc.problems {
				t.Errorf("problems = %v, want %d", problems, tc.problems)
			}
		})
	}
}

// TestReadCodexFile_legacyJSONUndashedID: later TypeScript builds name a
// session by a uuid without its dashes (randomUUID().replaceAll("-",
// "")); the session's id names its records all the same.
func TestReadCodexFile_legacyJSONUndashedID(t *testing.T) {
	const id = "9b2f4c1d8e7a4b3c9d0e1f2a3b4c5d6e"
	dir := t.TempDir()
	doc := `{
  "session": {"timestamp": "2025-06-02T18:05:11.120Z", "id": "` + id + `", "instructions": ""},
  "items": [
    {"role": "user", "type": "message", "content": [{"type": "input_text", "text": "Rename the cron job to nightly-backup."}]},
    {"id": "msg_1", "type": "message", "status": "completed", "role": "assistant", "content": [{"type": "output_text", "annotations": [], "text": "Renamed it in crontab.yaml."}]}
  ]
}`
	if err := os.WriteFile(filepath.Join(dir, "rollout-2025-06-02-"+id+".json"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	recs, problems := collect(t, config.Source{Name: "codex", Kind: config.KindCodex, Path: dir})
	if len(problems) != 0 || len(recs) != 2 {
		t.Fatalf("got %d records, problems %v; want 2 and none", len(recs), problems)
	}
	for _, r := range recs {
		if r.SessionID != id || !strings.HasPrefix(r.ID, id+":") || r.Conversation != "codex:"+id {
			t.Errorf("record %s: session %q conversation %q, want %s", r.ID, r.SessionID, r.Conversation, id)
		}
	}
}

// TestReadCodexFile_legacyJSONNextDay: the CLI names the file by the day
// of each save, so a session that runs past midnight (UTC) is saved
// whole again under the next day's name, beside its file of the day
// before, which holds a start of it under the same ids. Only the latest
// is read.
func TestReadCodexFile_legacyJSONNextDay(t *testing.T) {
	whole, err := os.ReadFile(codexLegacyFixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	start := whole[:strings.Index(string(whole), "Fix it and add")]
	if err := os.WriteFile(filepath.Join(dir, codexLegacyFile), start, 0o600); err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(dir, "rollout-2025-05-15-"+codexLegacySession+".json")
	if err := os.WriteFile(next, whole, 0o600); err != nil {
		t.Fatal(err)
	}
	recs, problems := collect(t, config.Source{Name: "codex", Kind: config.KindCodex, Path: dir})
	checkRecords(t, config.KindCodex, recs, codexLegacyWant())
	for _, r := range recs {
		if r.Path != next {
			t.Errorf("record %s read from %s, want %s", r.ID, r.Path, next)
		}
	}
	if len(problems) != 0 {
		t.Errorf("problems = %v, want none", problems)
	}
	if got := Companions(config.KindCodex, filepath.Join(dir, codexLegacyFile)); len(got) != 1 || got[0] != next {
		t.Errorf("Companions = %q, want the next day's file %s", got, next)
	}
}
