package ingest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// codexRollbackFixture is a rollout whose user rolled back two turns (the
// second with no answer), then one more, at lines 22 and 32.
const codexRollbackFixture = driftRoot + "/codex/rolled-back/rollout-2026-10-02T08-00-00-019da000-0180-7000-8000-000000000180.jsonl"

// rollbackLines returns the first n lines of the rollback fixture (all
// of them when n is past its end), each with its line ending.
func rollbackLines(t *testing.T, n int) []byte {
	t.Helper()
	content, err := os.ReadFile(codexRollbackFixture)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(content, []byte("\n"))
	return bytes.Join(lines[:min(n, len(lines))], nil)
}

// texts returns the texts of recs, in order.
func texts(recs []memory.Record) []string {
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.Text)
	}
	return out
}

// hasText reports whether one of recs says s.
func hasText(recs []memory.Record, s string) bool {
	return slices.ContainsFunc(recs, func(r memory.Record) bool { return strings.Contains(r.Text, s) })
}

// TestReadCodexFile_rollbackAfterCursor: turns read by an earlier read,
// then rolled back in what Codex appended, make the read on from the
// cursor ErrFileChanged (the index then reads the file whole), and the
// whole read gives none of them. A rollback of turns that all come after
// the cursor is read on from it.
func TestReadCodexFile_rollbackAfterCursor(t *testing.T) {
	dir := t.TempDir()
	rel := filepath.Base(codexRollbackFixture)
	path := filepath.Join(dir, rel)
	src := config.Source{Name: "codex", Kind: config.KindCodex, Path: dir}
	write := func(b []byte) {
		t.Helper()
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	write(rollbackLines(t, 1000))
	var whole readResult
	readFrom(t, src, path, rel, Cursor{}, &whole)

	// Read up to the aborted third turn: the turns to be rolled back are
	// read, and said.
	write(rollbackLines(t, 21))
	var first readResult
	readFrom(t, src, path, rel, Cursor{}, &first)
	if !hasText(first.records, "Brandywine") || !hasText(first.records, "compost") {
		t.Fatalf("before the rollback: %q", texts(first.records))
	}
	write(rollbackLines(t, 1000))
	_, err := ReadFile(context.Background(), src, File{Path: path, Rel: rel}, storedCursor(t, first.cursor), Sink{
		Record:  func(memory.Record) error { return nil },
		Problem: func(Problem) {},
	})
	if !errors.Is(err, ErrFileChanged) {
		t.Fatalf("read on past a rollback of turns read before: %v, want ErrFileChanged", err)
	}
	var again readResult
	readFrom(t, src, path, rel, Cursor{}, &again)
	sameResult(t, "read whole again", again, whole)
	for _, gone := range []string{"Brandywine", "compost", "Email the order number"} {
		if hasText(again.records, gone) {
			t.Errorf("rolled back %q is still read: %q", gone, texts(again.records))
		}
	}
	if !hasText(again.records, "Mountain Magic and Defiant") || !hasText(again.records, "most sun") {
		t.Errorf("the turns kept are not all read: %q", texts(again.records))
	}

	// Up to the turn_context of the fifth turn: the turn rolled back
	// after it starts after the cursor.
	write(rollbackLines(t, 29))
	var resumed readResult
	readFrom(t, src, path, rel, Cursor{}, &resumed)
	write(rollbackLines(t, 1000))
	readFrom(t, src, path, rel, resumed.cursor, &resumed)
	sameResult(t, "read on past a rollback of turns after the cursor", resumed, whole)
}

// TestReadCodexFile_rollbackCompressed: a compressed rollout (read whole)
// gives what its plain copy gives.
func TestReadCodexFile_rollbackCompressed(t *testing.T) {
	dir := t.TempDir()
	rel := filepath.Base(codexRollbackFixture)
	writeZstd(t, filepath.Join(dir, rel+".zst"), rollbackLines(t, 1000))
	recs, _ := collect(t, config.Source{Name: "codex", Kind: config.KindCodex, Path: dir})
	var whole readResult
	readFrom(t, config.Source{Name: "codex", Kind: config.KindCodex, Path: filepath.Dir(codexRollbackFixture)}, codexRollbackFixture, rel, Cursor{}, &whole)
	if got, want := texts(recs), texts(whole.records); !slices.Equal(got, want) || hasText(recs, "Brandywine") {
		t.Errorf("compressed: %q\nwant %q", got, want)
	}
}

// TestScanMark: the mark is found wherever the reads cut it, and without
// it the bytes up to the last line ending are the ones looked through.
func TestScanMark(t *testing.T) {
	mark := codexRollbackMark
	tests := []struct {
		name  string
		in    string
		found bool
		lines int64
	}{
		{"none", "{\"a\":1}\n{\"b\":2}\n{\"c\"", false, 16},
		{"no line ending", "{\"a\":1}", false, 0},
		{"whole", "{\"a\":1}\n{\"type\":\"thread_rolled_back\"}\n", true, 0},
		{"quoted in a text", "{\"text\":\"the \\\"thread_rolled_back\\\" event\"}\n", false, 44},
		{"torn", "{\"a\":1}\n{\"type\":\"thread_rolled_back", false, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
				found, lines, err := scanMark(r, mark)
				if err != nil || found != tt.found || lines != tt.lines {
					t.Errorf("scanMark = %v, %d, %v; want %v, %d", found, lines, err, tt.found, tt.lines)
				}
			}
		})
	}
}
