package index_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// TestSync_lostBaseStateKeepsMemory: the base state file a generation's
// sources.json names (index/states/<id>.json), damaged or deleted, is
// only a record of how far each file was read. The next sync reads every
// source again, but on the active generation: the memory of transcripts
// that are gone (Claude Code deletes them after 30 days) is kept, and the
// builtin embedder is not retrained, as with novactl index sync --full.
// It used to build from scratch and drop that memory.
func TestSync_lostBaseStateKeepsMemory(t *testing.T) {
	for _, damage := range []string{"damaged", "deleted"} {
		t.Run(damage, func(t *testing.T) {
			dir := t.TempDir()
			projects := filepath.Join(dir, "projects")
			kept := filepath.Join(projects, "-src-app", "s1.jsonl")
			gone := filepath.Join(projects, "-src-app", "s2.jsonl")
			var a, b []string
			for i := 1; i <= 6; i++ {
				a = append(a, claudeLine(i, "question"))
				b = append(b, strings.Replace(claudeLine(i, "vanished"), `"s1"`, `"s2"`, 1))
			}
			writeFile(t, kept, strings.Join(a, ""))
			writeFile(t, gone, strings.Join(b, ""))
			cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: projects})
			clk := newClock(epoch)
			ix := func() *index.Indexer {
				return index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true})
			}
			mustSync(t, ix())
			m0, _ := active(t, cfg.Home)
			if err := os.Remove(gone); err != nil {
				t.Fatal(err)
			}
			mustSync(t, ix())
			before := goneTexts(t, cfg)
			if before == 0 {
				t.Fatal("the gone transcript's memory was not kept by an incremental sync")
			}

			states, err := filepath.Glob(filepath.Join(cfg.Home.IndexDir(), "states", "*.json"))
			if err != nil || len(states) != 1 {
				t.Fatalf("base states: %v %v", states, err)
			}
			if damage == "deleted" {
				err = os.Remove(states[0])
			} else {
				_ = os.Chmod(states[0], 0o600)
				err = os.WriteFile(states[0], []byte(`{"version":"x","files":[]}`), 0o600)
			}
			if err != nil {
				t.Fatal(err)
			}
			appendFile(t, kept, claudeLine(7, "question"))
			mustSync(t, ix())

			if after := goneTexts(t, cfg); after != before {
				t.Errorf("after a sync over a %s base state the gone transcript has %d chunks, want %d", damage, after, before)
			}
			m, g := active(t, cfg.Home)
			if m.EmbeddingProfileHash != m0.EmbeddingProfileHash {
				t.Errorf("the embedder was retrained: profile %s, was %s", m.EmbeddingProfile.Model, m0.EmbeddingProfile.Model)
			}
			found := false
			for _, c := range g.All() {
				found = found || strings.Contains(c.Text, "question 007")
			}
			if !found {
				t.Error("the line appended since is not in memory")
			}
			if _, err := index.FileStates(cfg.Home, m); err != nil {
				t.Errorf("the new generation's states cannot be read: %v", err)
			}
		})
	}
}

// goneTexts counts the active generation's chunks of the vanished session.
func goneTexts(t *testing.T, cfg config.Config) int {
	t.Helper()
	_, g := active(t, cfg.Home)
	n := 0
	for _, c := range g.All() {
		if strings.Contains(c.Text, "vanished") {
			n++
		}
	}
	return n
}

// TestSync_prunedFilesStartANewBase: files dropped from the states (gone
// and pruned) count toward a new base as changed files do. They did not:
// after pruning many gone transcripts at once, every later sources.json
// listed each of them as removed, and the base kept their states, until
// an eighth of the remaining files changed.
func TestSync_prunedFilesStartANewBase(t *testing.T) {
	dir := t.TempDir()
	projects := filepath.Join(dir, "projects")
	var sessions []string
	for s := range 16 {
		p := filepath.Join(projects, "-src-app", fmt.Sprintf("s%02d.jsonl", s))
		writeFile(t, p, strings.Replace(claudeLine(1, "question"), `"s1"`, fmt.Sprintf(`"s%02d"`, s), 1))
		sessions = append(sessions, p)
	}
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: projects})
	clk := newClock(epoch)
	ix := func() *index.Indexer {
		return index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, NoCompact: true, PruneMissing: true})
	}
	mustSync(t, ix())
	appendFile(t, sessions[0], claudeLine(2, "question"))
	mustSync(t, ix()) // an incremental sync: the states get a base
	for _, p := range sessions[8:] {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	mustSync(t, ix())
	m, _ := active(t, cfg.Home)
	b, err := os.ReadFile(filepath.Join(cfg.Home.IndexDir(), m.GenerationPath, "sources.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Removed []json.RawMessage `json:"removed"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Removed) != 0 {
		t.Errorf("half the files pruned: sources.json lists %d removed on the old base, want a new base", len(s.Removed))
	}
	states, err := index.FileStates(cfg.Home, m)
	if err != nil || len(states) != 8 {
		t.Errorf("states after the prune: %d files, %v; want 8", len(states), err)
	}
}

// TestList_saysABaseStateIsLost: novactl index list called a generation
// intact when the base state its sources.json names was damaged or
// deleted (doctor says so). Its memory is intact, and list says both.
func TestList_saysABaseStateIsLost(t *testing.T) {
	for _, damage := range []string{"damaged", "deleted"} {
		t.Run(damage, func(t *testing.T) {
			dir := t.TempDir()
			projects := filepath.Join(dir, "projects")
			session := filepath.Join(projects, "-src-app", "s1.jsonl")
			writeFile(t, session, claudeLine(1, "question"))
			cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "claude", Kind: config.KindClaudeCode, Path: projects})
			ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now, NoCompact: true})
			first := mustSync(t, ix).Active()
			appendFile(t, session, claudeLine(2, "question"))
			second := mustSync(t, ix).Active() // a delta: its states are on a base
			states, err := filepath.Glob(filepath.Join(cfg.Home.IndexDir(), "states", "*.json"))
			if err != nil || len(states) != 1 {
				t.Fatalf("base states: %v %v", states, err)
			}
			if damage == "deleted" {
				err = os.Remove(states[0])
			} else {
				_ = os.Chmod(states[0], 0o600)
				err = os.WriteFile(states[0], []byte(`{"version":"x","files":[]}`), 0o600)
			}
			if err != nil {
				t.Fatal(err)
			}
			list, err := ix.List(context.Background(), index.Quick)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range list {
				switch g.RunID {
				case second:
					if g.Integrity != "intact" || !g.StatesLost || !strings.Contains(g.Problem, second) || !strings.Contains(g.Problem, "memory is intact") {
						t.Errorf("the generation whose base state is %s: %+v, want intact files with its states lost", damage, g)
					}
				case first:
					if g.Integrity != "intact" || g.StatesLost || g.Problem != "" {
						t.Errorf("the generation with its states whole: %+v", g)
					}
				}
			}
		})
	}
}
