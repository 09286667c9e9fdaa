package index_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSearch_codexLegacySession: a person who used the TypeScript Codex
// CLI (2025) has its sessions in ~/.codex/sessions as rollout-*.json
// documents. Through real syncs of a Codex home and a real search, the
// session is found: first as the CLI is still writing it (cut short, no
// problem reported), then whole once it is written.
func TestSearch_codexLegacySession(t *testing.T) {
	whole, err := os.ReadFile("ingest/testdata/codex-legacy/sessions/rollout-2025-05-14-6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	codexHome := filepath.Join(dir, ".codex")
	path := filepath.Join(codexHome, "sessions", "rollout-2025-05-14-6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b.json")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "codex", Kind: config.KindCodex, Path: codexHome})
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})

	// The CLI truncated the file and is writing it again.
	writeFile(t, path, string(whole[:strings.Index(string(whole), "Fix it and add")]))
	r := syncOK(t, ix)
	if r.Build.ProblemCount != 0 || r.Build.Records != 2 {
		t.Errorf("a session being written: %d records, problems %v; want 2 and none", r.Build.Records, r.Build.Problems)
	}
	if got := searchTexts(t, cfg.Home, "HMRC nearest penny math.Round"); countHolding(got, "HMRC expects rounding to the nearest penny") != 1 {
		t.Errorf("search while written = %q, want the answer once", got)
	}

	writeFile(t, path, string(whole))
	r = syncOK(t, ix)
	if r.Build.ProblemCount != 0 || r.Build.Records != 4 {
		t.Errorf("the whole session: %d records, problems %v; want 4 and none", r.Build.Records, r.Build.Problems)
	}
	got := searchTexts(t, cfg.Home, "TestVATHalfPenny half penny test")
	if countHolding(got, "added TestVATHalfPenny") != 1 {
		t.Errorf("search = %q, want the last answer once", got)
	}
	if n := countHolding(got, "HMRC expects rounding"); n > 1 {
		t.Errorf("the first answer is found %d times after the rewrite: %q", n, got)
	}
}

// TestSearch_codexLegacySessionNextDay: a legacy session saved again
// under the next day's name once it ran past midnight replaces the file
// of the day before at the next sync: its records are not read twice
// (duplicate ids) and nothing is reported.
func TestSearch_codexLegacySessionNextDay(t *testing.T) {
	whole, err := os.ReadFile("ingest/testdata/codex-legacy/sessions/rollout-2025-05-14-6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sessions := filepath.Join(dir, ".codex", "sessions")
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "codex", Kind: config.KindCodex, Path: filepath.Join(dir, ".codex")})
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})
	old := time.Now().Add(-time.Hour)
	day := filepath.Join(sessions, "rollout-2025-05-14-6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b.json")
	writeFile(t, day, string(whole[:strings.Index(string(whole), "Fix it and add")]))
	if err := os.Chtimes(day, old, old); err != nil {
		t.Fatal(err)
	}
	syncOK(t, ix)
	writeFile(t, filepath.Join(sessions, "rollout-2025-05-15-6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b.json"), string(whole))
	r := syncOK(t, ix)
	if r.Build.ProblemCount != 0 || r.Build.Records != 4 {
		t.Errorf("after the next day's save: %d records, problems %v; want 4 and none", r.Build.Records, r.Build.Problems)
	}
	if got := searchTexts(t, cfg.Home, "HMRC nearest penny math.Round"); countHolding(got, "HMRC expects rounding to the nearest penny") != 1 {
		t.Errorf("search = %q, want the answer once", got)
	}
}
