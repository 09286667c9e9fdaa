package index_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/manifest"
)

// copyOldHome copies testdata/format1-home (the records a Nova of
// generation format 1 wrote) into root, private as Nova keeps a home.
func copyOldHome(t *testing.T, root string) {
	t.Helper()
	src := filepath.Join("testdata", "format1-home")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(root, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o700)
		}
		if d.Name() == "README.md" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOlderFormat_namedNotDamaged: on a home a week-older Nova wrote
// (generation format 1), index list called each generation "incomplete"
// ("it has no candidate record: a build that did not finish"), rollback
// called them damaged ("invalid manifest: candidate record: json: unknown
// field sha256"), and the sync's retention logged that it removed damaged
// generations. They are intact, in a format this build does not read: each
// says so, and what to run.
func TestOlderFormat_namedNotDamaged(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "memories.jsonl")
	writeFile(t, src, jsonlLines(t, versionRecords(1)...))
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "notes", Kind: config.KindJSONL, Path: src})
	copyOldHome(t, cfg.Home.Root)
	var logs bytes.Buffer
	ix := index.New(cfg, index.Options{NoRemote: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	old := []string{"20261206T083804Z-32dc1e58", "20261206T083805Z-0bb248de"}
	named := func(what, msg string) {
		t.Helper()
		if !strings.Contains(msg, "older Nova") || !strings.Contains(msg, "format 1") || !strings.Contains(msg, "novactl index sync") ||
			strings.Contains(msg, "damaged") || strings.Contains(msg, "invalid manifest") {
			t.Errorf("%s does not say the generation is of an older format: %s", what, msg)
		}
	}

	gens, err := ix.List(context.Background(), index.Quick)
	if err != nil {
		t.Fatal(err)
	}
	if len(gens) != len(old) {
		t.Fatalf("list: %+v, want the two old generations", gens)
	}
	for _, g := range gens {
		if g.State == "incomplete" || g.Integrity != index.IntegrityOlder {
			t.Errorf("list: %s is %s/%q, want %q", g.RunID, g.State, g.Integrity, index.IntegrityOlder)
		}
		named("list's problem of "+g.RunID, g.Problem)
	}

	_, err = ix.Rollback(context.Background(), old[0])
	if !errors.Is(err, manifest.ErrOldFormat) || errors.Is(err, manifest.ErrInvalid) {
		t.Errorf("rollback --to %s: %v, want ErrOldFormat, not ErrInvalid", old[0], err)
	} else {
		named("rollback --to", err.Error())
	}
	_, err = ix.Rollback(context.Background(), "")
	if err == nil || !strings.Contains(err.Error(), "older Nova") || strings.Contains(err.Error(), "damaged") {
		t.Errorf("plain rollback: %v, want one that names the generations of an older Nova, not damage", err)
	}

	// The sync still rebuilds with this build's rules, and retention
	// removes the old records (this build never serves them) without
	// calling them damaged.
	r := mustSync(t, ix)
	if logs.Len() > 0 && strings.Contains(logs.String(), "damaged") {
		t.Errorf("the rollback or sync logged the older generations as damaged:\n%s", logs.String())
	}
	if gens, err := ix.List(context.Background(), index.Quick); err != nil || len(gens) != 1 || gens[0].RunID != r.Build.RunID || gens[0].Integrity != "intact" {
		t.Errorf("list after the sync: %+v (%v), want only %s, intact", gens, err, r.Build.RunID)
	}
}
