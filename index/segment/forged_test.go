package segment

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/nova-recall/nova/manifest"
)

// rewrite replaces a sealed segment file with b and returns the segment's
// file sums with its sum recomputed: a crafted or miswritten file that its
// checksum vouches for, so only the reader's own checks stand between it
// and the process.
func rewrite(t *testing.T, seg string, files map[string]manifest.FileSum, name string, b []byte) map[string]manifest.FileSum {
	t.Helper()
	path := filepath.Join(seg, name)
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	h := manifest.NewHasher()
	_, _ = h.Write(b) // a hash never fails
	out := maps.Clone(files)
	out[name] = h.Sum()
	return out
}

// TestForgedRecordCount: a records.bin and segment.json that agree on a
// count so large that the offset table's size overflows are refused, not
// read past the table's end.
func TestForgedRecordCount(t *testing.T) {
	seg, files := writeSegment(t, t.TempDir(), sampleChunks(3), nil)
	meta, err := os.ReadFile(filepath.Join(seg, FileMeta))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(meta, &m); err != nil {
		t.Fatal(err)
	}
	const forged = 1<<61 - 1 // 8*(forged+1) wraps to 0
	m["docs"] = forged
	meta, _ = json.Marshal(m)
	files = rewrite(t, seg, files, FileMeta, meta)
	rec, err := os.ReadFile(filepath.Join(seg, FileRecords))
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint64(rec[len(rec)-len(recordsMagic)-8:], forged)
	files = rewrite(t, seg, files, FileRecords, rec)
	var fe *FileError
	if _, err := Open(t.Context(), seg, files, 0, true); !errors.As(err, &fe) || fe.File != FileRecords || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("records.bin with a forged count: %v", err)
	}
}

// TestForgedDeadTermCount: a dead.bin whose term count is forged is
// refused without allocating for the terms it claims: what a count may
// ask for is bounded by the bytes that would hold them.
func TestForgedDeadTermCount(t *testing.T) {
	dead := &Dead{Docs: []uint32{1}}
	seg, files := writeSegment(t, t.TempDir(), sampleChunks(3), dead)
	b := (&Dead{Docs: []uint32{1}}).bytes()
	// The text field's term count: after magic, count, one document and
	// the field's length.
	binary.LittleEndian.PutUint32(b[8+4+4+8:], 1<<22)
	files = rewrite(t, seg, files, FileDead, b)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Open(t.Context(), seg, files, 10, true)
	runtime.ReadMemStats(&after)
	var fe *FileError
	if !errors.As(err, &fe) || fe.File != FileDead || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("dead.bin with a forged term count: %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("opening a %d-byte dead.bin allocated %d MiB", len(b), got>>20)
	}
}
