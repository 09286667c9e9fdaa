package index_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// TestSync_crash kills a sync (a child process, SIGKILL) at every
// durability boundary of a build and a promotion, starting from a home
// with one promoted generation. After each crash the manifest is the old
// or the new one, parses, and its generation loads; the next sync cleans
// up and succeeds, and the generation that was active before it can still
// be rolled back to.
func TestSync_crash(t *testing.T) {
	steps := []struct {
		step    string
		wantNew bool // the crash comes after the manifest rename
	}{
		{"progress:write", false},        // candidate directory created, nothing written
		{index.StepStatesWritten, false}, // a new base of the source states, no candidate names it yet
		{index.StepCandidateVerified, false},
		{index.StepGenerationMoved, false},
		{manifest.StepTempWritten, false},
		{manifest.StepTempSynced, false},
		{manifest.StepRenamed, true},
		{index.StepManifestWritten, true},
	}
	for _, tt := range steps {
		t.Run(tt.step, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			src := filepath.Join(dir, "memories.jsonl")
			root := filepath.Join(dir, "home")
			writeFile(t, src, jsonlLines(t, baseRecords()[:4]...))
			cfg := testConfig(t, root, config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
			old := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})).Build.RunID

			// The child syncs two more records and dies at the step.
			writeFile(t, src, jsonlLines(t, baseRecords()...))
			childStart := epoch.Add(time.Hour)
			cmd := childCommand(t, "crash", root, src, childStart, tt.step)
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("child: %v, want death by SIGKILL at %s", err, tt.step)
			}

			// The manifest is the old or the new one, valid, and loads.
			m, _, err := manifest.Read(cfg.Home.Manifest())
			if err != nil {
				t.Fatalf("manifest after a crash at %s: %v", tt.step, err)
			}
			g, err := generation.Open(context.Background(), filepath.Join(root, "index"), m, lexical.NewAnalyzer(), generation.Options{})
			if err != nil {
				t.Fatalf("generation %s after a crash at %s: %v", m.RunID, tt.step, err)
			}
			isNew := m.RunID != old
			if isNew != tt.wantNew {
				t.Errorf("after a crash at %s the manifest names %s (new %v), want new %v", tt.step, m.RunID, isNew, tt.wantNew)
			}
			wantChunks := 4
			if isNew {
				wantChunks = 6
				if m.PreviousRunID != old || !strings.HasPrefix(m.RunID, childStart.Format("20060102")) {
					t.Errorf("new manifest %s previous %s", m.RunID, m.PreviousRunID)
				}
			}
			if g.Count() != wantChunks || m.ChunkCount != wantChunks {
				t.Errorf("active generation has %d chunks (manifest %d), want %d", g.Count(), m.ChunkCount, wantChunks)
			}

			// The next sync cleans what the crash left and succeeds.
			writeFile(t, src, jsonlLines(t, append(baseRecords(), rec{ID: "mem-009", Text: "After the crash: the index was rebuilt.", Session: "s9"})...))
			ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch.Add(2 * time.Hour)).Now})
			r := mustSync(t, ix)
			if r.Promote.PreviousRunID != m.RunID {
				t.Errorf("the next sync replaced %s, want %s", r.Promote.PreviousRunID, m.RunID)
			}
			if got := dirNames(t, cfg.Home.Candidates()); len(got) != 0 {
				t.Errorf("candidates left after the next sync: %v", got)
			}
			for _, name := range dirNames(t, cfg.Home.IndexDir()) {
				if strings.HasSuffix(name, ".tmp") {
					t.Errorf("temp file left in the index directory: %s", name)
				}
			}
			nm, ng := active(t, cfg.Home)
			if nm.RunID != r.Build.RunID || ng.Count() != 7 {
				t.Errorf("after the next sync: active %s with %d chunks", nm.RunID, ng.Count())
			}
			// Only generations that were ever active are kept: the old
			// one, the crashed one if it became active, and the new one.
			want := []string{old}
			if isNew {
				want = append(want, m.RunID)
			}
			want = append(want, nm.RunID)
			if got := dirNames(t, cfg.Home.Generations()); !slices.Equal(got, want) {
				t.Errorf("generations %v, want %v", got, want)
			}
			// Nothing the crash wrote outlives it: every segment, space
			// and base of source states left is one a kept generation
			// uses.
			checkNoOrphans(t, cfg.Home)
			// Rolling back goes to what was active before the next sync.
			p, err := ix.Rollback(context.Background(), "")
			if err != nil || p.RunID != m.RunID {
				t.Errorf("rollback after recovery: %+v %v, want %s", p, err, m.RunID)
			}
		})
	}
}

// TestSync_cleansInterruptedCandidates: a candidate directory without its
// candidate record (a build that died while writing) and the temp files
// of the manifest, index/lost.json and a trimmed history are removed by
// the next sync; a complete candidate is not touched by a build.
func TestSync_cleansInterruptedCandidates(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, baseRecords()...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch).Now})
	mustSync(t, ix)
	torn := cfg.Home.Candidate(manifest.NewRunID(epoch.Add(time.Hour)))
	writeFile(t, filepath.Join(torn, generation.FileSources), `{"files":[`)
	temps := []string{".manifest-123.tmp", ".lost.json.4567.tmp", ".history.jsonl.89.tmp"}
	for _, name := range temps {
		writeFile(t, filepath.Join(cfg.Home.IndexDir(), name), `{"schemaVersion":1,`)
	}
	if _, err := ix.Verify(context.Background(), filepath.Base(torn)); err == nil {
		t.Errorf("verify of an interrupted candidate succeeded")
	}
	syncOK(t, ix)
	if _, err := os.Stat(torn); !os.IsNotExist(err) {
		t.Errorf("interrupted candidate still there: %v", err)
	}
	for _, name := range temps {
		if _, err := os.Stat(filepath.Join(cfg.Home.IndexDir(), name)); !os.IsNotExist(err) {
			t.Errorf("temp file %s still there: %v", name, err)
		}
	}
}

// TestRollback_crash kills a plain rollback (a child process, SIGKILL) at
// every durability boundary of its manifest write, the last one after
// the rename but before history.jsonl records the rollback. The manifest
// is then the old one or the rolled-back-to one, valid and loadable; a
// plain rollback goes on stepping back from whichever is active, and the
// next sync cleans up and builds on it.
func TestRollback_crash(t *testing.T) {
	steps := []struct {
		step    string
		wantNew bool // the crash comes after the manifest rename
	}{
		{manifest.StepTempWritten, false},
		{manifest.StepTempSynced, false},
		{manifest.StepRenamed, true},
		{index.StepManifestWritten, true},
	}
	for _, tt := range steps {
		t.Run(tt.step, func(t *testing.T) {
			t.Parallel()
			cfg, _, runs := threeVersions(t, 0, index.Options{})
			src := cfg.Sources[0].Path
			cmd := childCommand(t, "crash-rollback", cfg.Home.Root, src, epoch.Add(time.Hour), tt.step)
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("child: %v, want death by SIGKILL at %s", err, tt.step)
			}
			want, next := runs[2], runs[1]
			if tt.wantNew {
				want, next = runs[1], runs[0]
			}
			if id, texts := activeTexts(t, cfg); id != want {
				t.Fatalf("after a crash at %s: active %s (%d chunks), want %s", tt.step, id, len(texts), want)
			}
			ix := index.New(cfg, index.Options{NoRemote: true, NoCompact: true, Now: newClock(epoch.Add(2 * time.Hour)).Now})
			p, err := ix.Rollback(context.Background(), "")
			if err != nil || p.RunID != next {
				t.Fatalf("plain rollback after a crash at %s: %+v %v, want %s", tt.step, p, err, next)
			}
			r := syncVersion(t, ix, src, 4)
			if r.Promote.PreviousRunID != next {
				t.Errorf("the sync after replaced %s, want %s", r.Promote.PreviousRunID, next)
			}
			for _, name := range dirNames(t, cfg.Home.IndexDir()) {
				if strings.HasSuffix(name, ".tmp") {
					t.Errorf("temp file left in the index directory: %s", name)
				}
			}
			if id, texts := activeTexts(t, cfg); id != r.Build.RunID || !slices.Equal(texts, versionTexts(4)) {
				t.Errorf("after the sync: active %s serves %q, want version 4", id, texts)
			}
		})
	}
}

// checkNoOrphans fails the test for a segment, space or base of source
// states under home's index directory that no kept generation names:
// disk use a crashed writer left, which would otherwise grow with every
// crash.
func checkNoOrphans(t *testing.T, home paths.Home) {
	t.Helper()
	used := map[string]bool{}
	for _, id := range dirNames(t, home.Generations()) {
		b, err := os.ReadFile(filepath.Join(home.Generation(id), generation.FileCandidate))
		if err != nil {
			t.Fatal(err)
		}
		var m manifest.Manifest
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for dir := range m.AllFiles() {
			used[dir] = true
		}
		src, err := os.ReadFile(filepath.Join(home.Generation(id), generation.FileSources))
		if err != nil {
			t.Fatal(err)
		}
		var states struct {
			Base struct {
				ID string `json:"id"`
			} `json:"base"`
		}
		if json.Unmarshal(src, &states) == nil && states.Base.ID != "" {
			used["states/"+states.Base.ID+".json"] = true
		}
	}
	for _, kind := range []string{"segments", "spaces", "states"} {
		for _, name := range dirNames(t, filepath.Join(home.IndexDir(), kind)) {
			if !used[kind+"/"+name] {
				t.Errorf("%s/%s is left, named by no kept generation", kind, name)
			}
		}
	}
}
