package index_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
)

// damagedRollout is a second Codex session, compressed as Codex keeps it,
// beside the plain codexRollout: its own session id, so its records are
// its own.
func damagedRollout(t *testing.T) (name string, good []byte) {
	t.Helper()
	plain, _ := codexRolloutBytes(t)
	plain = bytes.ReplaceAll(plain, []byte("0196c0de-7a11-7c2e-9f00-5e1b2c3d4e5f"), []byte("0196c0de-7a11-7c2e-9f00-5e1b2c3d4e60"))
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return "rollout-2026-03-02T10-15-03-0196c0de-7a11-7c2e-9f00-5e1b2c3d4e60.jsonl.zst", enc.EncodeAll(plain, nil)
}

// problemFor returns the reason of the first problem of r with the whole
// file at path (not one of its lines), "" if none.
func problemFor(r *index.SyncResult, path string) string {
	for _, p := range r.Build.Problems {
		if p.Path == path && p.Line == 0 {
			return p.Reason
		}
	}
	return ""
}

// TestSync_damagedFileNotReadAgainUntilItChanges: a source file no read
// can use (a .jsonl.zst that is not zstd) was read again, whole, at every
// sync and its failure reported as new each time; a large one made every
// sync a full build (its bytes counted as a large change). It is now read
// once: the next syncs leave it unread while it stays as it was, count
// its problem as found earlier and promote nothing; and it is read at the
// first sync after any change, even one that keeps its size, time and
// inode (repaired in place, its time put back, as a restore tool does).
func TestSync_damagedFileNotReadAgainUntilItChanges(t *testing.T) {
	dir := t.TempDir()
	plain, _ := codexRolloutBytes(t)
	day := filepath.Join(dir, "codex", "sessions", "2026", "03", "02")
	writeFile(t, filepath.Join(day, codexRollout), string(plain))
	name, good := damagedRollout(t)
	bad := filepath.Join(day, name)
	writeFile(t, bad, strings.Repeat("x", len(good))) // no zstd frame
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(bad, past, past); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, filepath.Join(dir, "home"), config.Source{Name: "codex", Kind: config.KindCodex, Path: filepath.Join(dir, "codex")})
	clk := newClock(epoch)
	first := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now}))
	if problemFor(first, bad) == "" {
		t.Fatalf("first sync: no problem for %s: %+v", bad, first.Build.Problems)
	}
	records := first.Build.Records

	for i := range 2 {
		r := syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now}))
		if r.Build.FilesRead != 0 || r.Promote != nil || r.Build.Mode != index.ModeUnchanged {
			t.Errorf("sync %d after: read %d files, mode %s, promoted %v; want the damaged file left unread and nothing built", i, r.Build.FilesRead, r.Build.Mode, r.Promote != nil)
		}
		if p := problemFor(r, bad); p != "" {
			t.Errorf("sync %d after: the same failure reported as new: %s", i, p)
		}
		if s := r.Build.Sources[0]; s.EarlierProblems != first.Build.Sources[0].Problems || s.Problems != 0 {
			t.Errorf("sync %d after: problems %d, earlier %d; want 0 and %d (the first sync's, the damaged file's among them)", i, s.Problems, s.EarlierProblems, first.Build.Sources[0].Problems)
		}
		// The source's files are the same two, whichever build counts them.
		if n, m := first.Build.Sources[0].Files, r.Build.Sources[0].Files; n != 2 || m != 2 {
			t.Errorf("sync %d after: the full build counted %d files, this one %d; want 2", i, n, m)
		}
	}

	// Repaired in place: the same size, inode and time.
	if err := os.WriteFile(bad, good, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(bad, past, past); err != nil {
		t.Fatal(err)
	}
	fixed := mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now}))
	if fixed.Build.FilesRead != 1 || fixed.Build.Records <= records || problemFor(fixed, bad) != "" {
		t.Fatalf("repaired: read %d files, %d records (was %d), problem %q; want it read", fixed.Build.FilesRead, fixed.Build.Records, records, problemFor(fixed, bad))
	}
	records = fixed.Build.Records

	// Damaged again: its memory is kept, and it is read once.
	if err := os.WriteFile(bad, good[:len(good)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	again := syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now}))
	if again.Build.FilesRead != 1 || problemFor(again, bad) == "" || again.Build.Records != records {
		t.Errorf("damaged again: read %d, problem %q, %d records (want %d kept)", again.Build.FilesRead, problemFor(again, bad), again.Build.Records, records)
	}
	r := syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now}))
	if r.Build.FilesRead != 0 || r.Promote != nil || problemFor(r, bad) != "" {
		t.Errorf("after damaged again: read %d files, promoted %v, problem %q", r.Build.FilesRead, r.Promote != nil, problemFor(r, bad))
	}
	if r.Build.Records != records {
		t.Errorf("after damaged again: %d records, want %d (its earlier memory kept)", r.Build.Records, records)
	}

	// A full build reads every file, this one too, and records it again.
	full := syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now, Full: true}))
	if problemFor(full, bad) == "" || full.Build.Records != records {
		t.Errorf("full: problem %q, %d records (want %d)", problemFor(full, bad), full.Build.Records, records)
	}
	r = syncOK(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now}))
	if r.Build.FilesRead != 0 || r.Promote != nil {
		t.Errorf("after the full build: read %d files, promoted %v", r.Build.FilesRead, r.Promote != nil)
	}

	// Restored from a backup (a new file of the name).
	if err := os.Remove(bad); err != nil {
		t.Fatal(err)
	}
	writeFile(t, bad, string(good))
	fixed = mustSync(t, index.New(cfg, index.Options{NoRemote: true, Now: clk.Now}))
	if fixed.Build.FilesRead != 1 || fixed.Build.Records != records || problemFor(fixed, bad) != "" {
		t.Errorf("restored: read %d files, %d records (want %d), problem %q", fixed.Build.FilesRead, fixed.Build.Records, records, problemFor(fixed, bad))
	}
}
