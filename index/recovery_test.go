package index_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/memory"
)

// versions syncs three different versions of a memory (full rebuilds, so
// the generations share no files and can be damaged one by one) and
// returns the configuration and the run ids, oldest first.
func versions(t *testing.T) (config.Config, []string) {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join(root, "memory.jsonl")
	cfg := testConfig(t, filepath.Join(root, "home"), config.Source{Name: "m", Kind: config.KindJSONL, Path: src})
	clk := newClock(epoch)
	var runs []string
	for v := 1; v <= 3; v++ {
		writeFile(t, src, jsonlLines(t, versionRecords(v)...))
		ix := index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Full: true})
		runs = append(runs, mustSync(t, ix).Active())
	}
	return cfg, runs
}

// damageSegments damages a file of every segment of generation runID.
func damageSegments(t *testing.T, cfg config.Config, runID string) {
	t.Helper()
	rec := record(t, cfg, runID)
	for _, p := range rec.Segments {
		flipByte(t, filepath.Join(cfg.Home.IndexDir(), manifest.SegmentDir(p.ID), "records.bin"), 20)
	}
}

func record(t *testing.T, cfg config.Config, runID string) *manifest.Manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(cfg.Home.Generation(runID), generation.FileCandidate))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return &m
}

// TestRollback_withoutAManifest: a damaged manifest.json does not stop
// rollback (it works from the kept generations alone), with or without
// --to; the next sync then builds on the restored generation.
func TestRollback_withoutAManifest(t *testing.T) {
	for _, damage := range []string{"not json", "checksum"} {
		t.Run(damage, func(t *testing.T) {
			cfg, runs := versions(t)
			path := cfg.Home.Manifest()
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if damage == "not json" {
				overwrite(t, path, b[:len(b)/2])
			} else {
				overwrite(t, path, []byte(strings.Replace(string(b), `"promotedBy": "sync"`, `"promotedBy": "sunk"`, 1)))
			}
			if _, _, err := manifest.Read(path); !errors.Is(err, manifest.ErrInvalid) {
				t.Fatalf("the damaged manifest reads: %v", err)
			}
			ix := index.New(cfg, index.Options{NoRemote: true})
			p, err := ix.Rollback(context.Background(), "")
			if err != nil {
				t.Fatalf("rollback with a damaged manifest: %v", err)
			}
			if p.RunID != runs[2] { // the newest intact generation
				t.Errorf("rolled back to %s, want %s", p.RunID, runs[2])
			}
			p, err = ix.Rollback(context.Background(), runs[0])
			if err != nil || p.RunID != runs[0] {
				t.Fatalf("rollback --to %s: %+v %v", runs[0], p, err)
			}
			if m, _, err := manifest.Read(path); err != nil || m.RunID != runs[0] {
				t.Errorf("manifest after rollback: %v %v", m, err)
			}
		})
	}
}

// TestRollback_skipsDamagedGenerations: rollback passes over a damaged
// kept generation (and says so) to the older intact one; retention then
// drops the damaged one before any intact one, so the next sync keeps
// what rollback may need.
func TestRollback_skipsDamagedGenerations(t *testing.T) {
	cfg, runs := versions(t)
	damageSegments(t, cfg, runs[1])
	ix := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch.Add(24 * 3600e9)).Now})
	p, err := ix.Rollback(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if p.RunID != runs[0] || len(p.Skipped) != 1 || !strings.Contains(p.Skipped[0], runs[1]) {
		t.Errorf("rollback: %s skipping %v, want %s skipping %s", p.RunID, p.Skipped, runs[0], runs[1])
	}
	// Retention dropped the damaged generation first and kept both
	// intact ones; a new version then keeps the three intact ones.
	if kept := dirNames(t, cfg.Home.Generations()); !slices.Equal(kept, []string{runs[0], runs[2]}) {
		t.Errorf("kept %v after the rollback, want %v", kept, []string{runs[0], runs[2]})
	}
	writeFile(t, cfg.Sources[0].Path, jsonlLines(t, versionRecords(4)...))
	r := mustSync(t, ix)
	if kept := dirNames(t, cfg.Home.Generations()); !slices.Equal(kept, []string{runs[0], runs[2], r.Active()}) {
		t.Errorf("kept %v after a sync, want %v", kept, []string{runs[0], runs[2], r.Active()})
	}
	// A damaged generation named explicitly is refused by name.
	damageSegments(t, cfg, runs[2])
	if _, err := ix.Rollback(context.Background(), runs[2]); !errors.Is(err, generation.ErrCorrupt) {
		t.Errorf("rollback --to a damaged generation: %v", err)
	}
}

// interruptedPromotion builds a fourth version and fails its promotion
// after the generation was moved into place (a full disk writing the
// manifest). It returns the configuration, the three promoted run ids and
// the one whose promotion was interrupted.
func interruptedPromotion(t *testing.T) (cfg config.Config, runs []string, built string) {
	t.Helper()
	cfg, runs = versions(t)
	writeFile(t, cfg.Sources[0].Path, jsonlLines(t, versionRecords(4)...))
	fail := index.New(cfg, index.Options{NoRemote: true, Now: newClock(epoch.Add(48 * 3600e9)).Now, Hook: func(step string) {
		if step == manifest.StepTempWritten {
			panic("disk full") // the manifest cannot be written
		}
	}})
	func() {
		defer func() { _ = recover() }()
		b, err := fail.Build(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		built = b.RunID
		_, _ = fail.Promote(context.Background(), built)
	}()
	if _, err := os.Stat(cfg.Home.Generation(built)); err != nil {
		t.Fatalf("the interrupted promotion did not move the generation: %v", err)
	}
	if m, _, _ := manifest.Read(cfg.Home.Manifest()); m.RunID != runs[2] {
		t.Fatalf("active %s, want %s still", m.RunID, runs[2])
	}
	return cfg, runs, built
}

// TestPromote_finishesAnInterruptedPromotion: an interrupted promotion is
// finished by promoting again, and its message says so.
func TestPromote_finishesAnInterruptedPromotion(t *testing.T) {
	cfg, _, built := interruptedPromotion(t)
	p, err := index.New(cfg, index.Options{NoRemote: true}).Promote(context.Background(), "")
	if err != nil || p.RunID != built {
		t.Fatalf("promote again: %+v %v, want %s promoted", p, err, built)
	}
}

// TestRollback_afterAnInterruptedPromotion: rollback goes back, never
// forward to the generation that was never made active ("is active
// again" would be untrue): with the older generations damaged, there is
// nothing to roll back to.
func TestRollback_afterAnInterruptedPromotion(t *testing.T) {
	cfg, runs, built := interruptedPromotion(t)
	damageSegments(t, cfg, runs[0])
	damageSegments(t, cfg, runs[1])
	rb, err := index.New(cfg, index.Options{NoRemote: true}).Rollback(context.Background(), "")
	if !errors.Is(err, index.ErrNotFound) {
		t.Fatalf("rollback after an interrupted promotion, older generations damaged: %+v %v, want nothing to roll back to (not %s)", rb, err, built)
	}
}

// TestSync_rebuildsPastAFileChangedInPlace: a file of the active
// generation changed in place after its promotion (same size, later
// time) is neither built upon nor reported unchanged: a plain sync
// rebuilds, with or without a source change, and the result verifies.
// Before, the sync said nothing changed over the damage, or built a delta
// that its own verification refused on every later run.
func TestSync_rebuildsPastAFileChangedInPlace(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "memory.jsonl")
	cfg := testConfig(t, filepath.Join(root, "home"), config.Source{Name: "m", Kind: config.KindJSONL, Path: src})
	writeFile(t, src, jsonlLines(t, versionRecords(1)...))
	ix := index.New(cfg, index.Options{NoRemote: true, Now: time.Now})
	active := mustSync(t, ix).Active()
	damage := func() {
		t.Helper()
		for _, p := range record(t, cfg, active).Segments {
			path := filepath.Join(cfg.Home.IndexDir(), manifest.SegmentDir(p.ID), "records.bin")
			novatest.Must(t, os.Chmod(path, 0o600))
			flipByte(t, path, 20)
			later := time.Now().Add(time.Hour)
			novatest.Must(t, os.Chtimes(path, later, later))
		}
	}
	for _, changeSource := range []bool{false, true} {
		damage()
		if changeSource {
			writeFile(t, src, jsonlLines(t, append(versionRecords(1), versionRecords(2)...)...))
		}
		r, err := ix.Sync(context.Background())
		if err != nil {
			t.Fatalf("sync over a damaged generation (source changed: %v): %v", changeSource, err)
		}
		if r.Build.Mode != index.ModeFull || r.Active() == active {
			t.Fatalf("source changed %v: mode %s, active %s (was %s), want a full rebuild", changeSource, r.Build.Mode, r.Active(), active)
		}
		active = r.Active()
		if _, _, err := index.OpenActive(context.Background(), cfg.Home, lexical.NewAnalyzer()); err != nil {
			t.Errorf("the rebuilt generation does not verify: %v", err)
		}
	}
	// An untouched generation is still built upon.
	writeFile(t, src, jsonlLines(t, append(versionRecords(1), versionRecords(3)...)...))
	if r := mustSync(t, ix); r.Build.Mode != index.ModeIncremental {
		t.Errorf("a sync over an intact generation: mode %s, want incremental", r.Build.Mode)
	}
}

// TestSync_overAFirstFormatIndex: an index written by the first format is
// rebuilt by a plain sync, as the README says (it once panicked).
func TestSync_overAFirstFormatIndex(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "memory.jsonl")
	cfg := testConfig(t, filepath.Join(root, "home"), config.Source{Name: "m", Kind: config.KindJSONL, Path: src})
	writeFile(t, src, jsonlLines(t, versionRecords(1)...))
	gen := filepath.Join(cfg.Home.IndexDir(), "generations", "20250101T000000Z-aaaaaaaa")
	writeFile(t, filepath.Join(gen, "chunks.jsonl"), "")
	writeFile(t, cfg.Home.Manifest(), `{"schemaVersion":1,"status":"active","runId":"20250101T000000Z-aaaaaaaa","generationPath":"generations/20250101T000000Z-aaaaaaaa","files":{"chunks.jsonl":{"size":0,"sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}}}`)
	for _, opts := range []index.Options{{NoRemote: true, Now: time.Now}, {NoRemote: true, Now: time.Now, Full: true}} {
		r := mustSync(t, index.New(cfg, opts))
		if r.Build.Records != len(versionRecords(1)) {
			t.Errorf("full %v: %d records, want %d", opts.Full, r.Build.Records, len(versionRecords(1)))
		}
		writeFile(t, cfg.Home.Manifest(), `{"schemaVersion":1,"status":"active","runId":"x","generationPath":"gen","files":{"chunks.jsonl":{"size":0,"sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}}}`)
	}
}

// TestSync_carriedMemoryIsRedactedAgain: memory kept from a file that is
// gone was indexed under the rules of its day. A secret that today's
// rules catch must not stay in it, searchable and returned, for as long
// as the memory is kept.
func TestSync_carriedMemoryIsRedactedAgain(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "memory.jsonl")
	gone := filepath.Join(root, "old.jsonl")
	cfg := testConfig(t, filepath.Join(root, "home"), config.Source{Name: "m", Kind: config.KindJSONL, Path: root})
	writeFile(t, src, jsonlLines(t, versionRecords(1)...))
	const secret = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
	old := memory.Chunk{
		ID: "m:old-1", Text: "Rotated the deploy credentials; the new one is GH_TOKEN=" + secret + " for the release job.",
		Title: "token " + secret, Tags: []string{"deploy"}, SourceName: "m", SourceSet: "jsonl", SourcePath: gone,
		LineNumber: 1, Part: 1, Parts: 1, Date: "2025-01-01",
	}
	line, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	line = append(line, '\n')
	sum := sha256.Sum256(line)
	gen := filepath.Join(cfg.Home.IndexDir(), "generations", "20250101T000000Z-aaaaaaaa")
	writeFile(t, filepath.Join(gen, "chunks.jsonl"), string(line))
	writeFile(t, cfg.Home.Manifest(), fmt.Sprintf(`{"schemaVersion":1,"status":"active","runId":"20250101T000000Z-aaaaaaaa","generationPath":"generations/20250101T000000Z-aaaaaaaa","files":{"chunks.jsonl":{"size":%d,"sha256":"%s"}}}`, len(line), hex.EncodeToString(sum[:])))

	r := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: time.Now}))
	if r.Build.Carried != 1 {
		t.Fatalf("carried %d chunks, want the gone file's 1", r.Build.Carried)
	}
	_, g := active(t, cfg.Home)
	var found bool
	for id, c := range chunkByID(t, g) {
		if strings.Contains(c.Text+c.Title+id, "ghp_") {
			t.Errorf("carried chunk %s still holds the secret: title %q text %q", id, c.Title, c.Text)
		}
		if c.SourcePath == gone {
			found = true
			if !strings.Contains(c.Text, "Rotated the deploy credentials") {
				t.Errorf("carried chunk lost its words: %q", c.Text)
			}
		}
	}
	if !found {
		t.Errorf("the gone file's memory was not carried")
	}
}
