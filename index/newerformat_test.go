package index_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
)

// rewriteJSON decodes the JSON file at path into v, lets edit change it,
// and writes it back (0600, as Nova writes records).
func rewriteJSON[T any](t *testing.T, path string, edit func(*T)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	edit(&v)
	out, err := json.MarshalIndent(&v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(out, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
}

// asNewerNova rewrites the record of generation id, and the manifest when
// it names id, as a Nova of the next schema would have written them,
// sealed again.
func asNewerNova(t *testing.T, cfg config.Config, id string) {
	t.Helper()
	newer := func(m *manifest.Manifest) { m.SchemaVersion = manifest.SchemaVersion + 1; m.Seal() }
	rewriteJSON(t, filepath.Join(cfg.Home.Generation(id), generation.FileCandidate), newer)
	if m, _, err := manifest.Read(cfg.Home.Manifest()); err == nil && m.RunID == id {
		rewriteJSON(t, cfg.Home.Manifest(), newer)
	}
}

// TestNewerFormat_keptAndNamed: after a downgrade, the generation a newer
// Nova wrote (its record and manifest of schema this build's +1) was read
// as corrupt, so the next rollback or sync deleted it. It must be kept
// out of retention and rollback deletion, named (format, what to do) by
// list, rollback and the fallback novad takes, and a sync must still
// build this build's own generation beside it.
func TestNewerFormat_keptAndNamed(t *testing.T) {
	cfg, ix, runs := threeVersions(t, 0, index.Options{})
	src := cfg.Sources[0].Path
	ctx := context.Background()
	newest := runs[2]
	asNewerNova(t, cfg, newest)
	named := func(what, msg string) {
		t.Helper()
		if !strings.Contains(msg, "newer Nova (format 3)") || !strings.Contains(msg, "this build reads format 2") || !strings.Contains(msg, "novactl index sync") {
			t.Errorf("%s does not name the newer format: %s", what, msg)
		}
	}

	if _, _, err := manifest.Read(cfg.Home.Manifest()); !errors.Is(err, manifest.ErrNewerFormat) || errors.Is(err, manifest.ErrInvalid) {
		t.Errorf("reading the newer manifest: %v, want ErrNewerFormat, not ErrInvalid", err)
	} else {
		named("the manifest's error", err.Error())
	}
	list, err := ix.List(context.Background(), index.Deep)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range list {
		if g.RunID == newest && (g.State != "kept" || g.Integrity != index.IntegrityNewer) {
			t.Errorf("list shows the newer generation %s %s/%s, want kept/%s", g.RunID, g.State, g.Integrity, index.IntegrityNewer)
		}
		if g.RunID == newest {
			named("list", g.Problem)
		}
	}
	// What novad serves when the manifest cannot be: the newest this build reads.
	s, skipped, err := index.OpenNewestIntact(t.Context(), cfg.Home, cfg, lexical.NewAnalyzer(), nil)
	if err != nil || s.Record.RunID != runs[1] {
		t.Fatalf("novad's fallback: %v, want %s", err, runs[1])
	}
	if len(skipped) != 1 {
		t.Fatalf("novad's fallback skipped %v, want the newer generation", skipped)
	}
	named("novad's fallback", skipped[0].Error())

	p, err := ix.Rollback(ctx, "")
	if err != nil || p.RunID != runs[1] {
		t.Fatalf("plain rollback: %+v %v, want %s", p, err, runs[1])
	}
	if len(p.Skipped) != 1 {
		t.Fatalf("rollback skipped %v, want the newer generation", p.Skipped)
	}
	named("rollback", p.Skipped[0])
	if _, err := ix.Rollback(ctx, newest); !errors.Is(err, manifest.ErrNewerFormat) {
		t.Errorf("rollback --to the newer generation: %v, want ErrNewerFormat", err)
	}
	// Syncs by this build prune: the newer generation is never theirs to.
	for v := 4; v <= 6; v++ {
		runs = append(runs, syncVersion(t, ix, src, v).Build.RunID)
	}
	gens := dirNames(t, cfg.Home.Generations())
	if !slices.Contains(gens, newest) {
		t.Errorf("retention deleted the newer generation %s: kept %v", newest, gens)
	}
	if want := 4; len(gens) != want { // keepGenerations (3), and the newer one beside them
		t.Errorf("generations %v, want %d", gens, want)
	}
	if id, texts := activeTexts(t, cfg); id != runs[5] || !slices.Equal(texts, versionTexts(6)) {
		t.Errorf("active %s serves %q, want version 6", id, texts)
	}
	// Its segments and space are still there for the newer Nova.
	b, err := os.ReadFile(filepath.Join(cfg.Home.Generation(newest), generation.FileCandidate))
	if err != nil {
		t.Fatal(err)
	}
	var rec manifest.Manifest
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	for dir := range rec.AllFiles() {
		if _, err := os.Stat(filepath.Join(cfg.Home.IndexDir(), dir)); err != nil {
			t.Errorf("a part of the newer generation is gone: %v", err)
		}
	}
}

// TestNewerFormat_segment: a segment whose segment.json declares a format
// newer than this build's (its record's sums sealed again) was corrupt,
// and a rollback deleted its generation; it is passed over, named, kept.
func TestNewerFormat_segment(t *testing.T) {
	// Full builds: each generation has segments of its own.
	cfg, ix, runs := threeVersions(t, 0, index.Options{Full: true})
	ctx := context.Background()
	recPath := filepath.Join(cfg.Home.Generation(runs[1]), generation.FileCandidate)
	rewriteJSON(t, recPath, func(m *manifest.Manifest) {
		seg := m.Segments[len(m.Segments)-1]
		meta := filepath.Join(cfg.Home.IndexDir(), manifest.SegmentDir(seg.ID), segment.FileMeta)
		rewriteJSON(t, meta, func(sm *map[string]any) { (*sm)["formatVersion"] = segment.FormatVersion + 1 })
		b, err := os.ReadFile(meta)
		if err != nil {
			t.Fatal(err)
		}
		h := manifest.NewHasher()
		_, _ = h.Write(b) // a hash.Hash never fails
		seg.Files[segment.FileMeta] = h.Sum()
		m.Seal()
	})
	p, err := ix.Rollback(ctx, "")
	if err != nil || p.RunID != runs[0] {
		t.Fatalf("plain rollback: %+v %v, want %s (past %s)", p, err, runs[0], runs[1])
	}
	if len(p.Skipped) != 1 || !strings.Contains(p.Skipped[0], "newer Nova (format 3)") || !strings.Contains(p.Skipped[0], "reads format 2") {
		t.Errorf("rollback skipped %q, want the newer segment named", p.Skipped)
	}
	if !slices.Contains(dirNames(t, cfg.Home.Generations()), runs[1]) {
		t.Errorf("rollback deleted %s, whose segment a newer Nova wrote", runs[1])
	}
}
