package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
)

// validManifest returns a sealed, valid manifest.
func validManifest() *Manifest {
	prof := api.EmbeddingProfile{Provider: "builtin", Model: "lsa-0123456789ab", Dimension: 384}
	m := &Manifest{
		SchemaVersion: SchemaVersion, Status: StatusActive, RunID: "20260301T080000Z-1a2b3c4d",
		GenerationPath: "generations/20260301T080000Z-1a2b3c4d",
		CreatedAt:      time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC), PromotedAt: time.Date(2026, 3, 1, 8, 0, 5, 0, time.UTC),
		PromotedBy: "sync", ChunkCount: 42, RecordCount: 40,
		EmbeddingProfile: prof, EmbeddingProfileHash: ProfileHash(prof),
		SourceProfile:    SourceProfile{Sources: []SourceRef{{Name: "notes", Kind: "jsonl", Path: "/home/me/notes.jsonl", SourceSet: "external-content"}}},
		BuildProfileHash: strings.Repeat("0f", 32),
		Space:            Part{ID: "20260301T075900Z-00aa00aa", Files: map[string]FileSum{"space.bin": {Size: 1560, XXH3: strings.Repeat("12", 16)}}},
		Segments: []Part{
			{ID: "20260301T075901Z-00bb00bb", Docs: 40, Files: map[string]FileSum{"records.bin": {Size: 1234, XXH3: strings.Repeat("ab", 16)}}},
			{ID: "20260301T075902Z-00cc00cc", Docs: 4, Files: map[string]FileSum{"codes.i8": {Size: 1552, XXH3: strings.Repeat("cd", 16)}}},
		},
		Files: map[string]FileSum{
			"sources.json": {Size: 640, XXH3: strings.Repeat("ef", 16)},
		},
		PreviousRunID: "20260228T080000Z-00ff00ff",
	}
	m.SourceProfileHash = m.SourceProfile.Hash()
	m.Seal()
	return m
}

func TestWriteAtomic_read(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "manifest.json")
	var steps []string
	if err := WriteAtomic(path, validManifest(), func(s string) { steps = append(steps, s) }); err != nil {
		t.Fatal(err)
	}
	if want := []string{StepTempWritten, StepTempSynced, StepRenamed}; !slices.Equal(steps, want) {
		t.Errorf("hook steps %v, want %v", steps, want)
	}
	m, sum, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.RunID != validManifest().RunID || len(sum) != 64 {
		t.Errorf("read %+v sum %q", m, sum)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after the write, want only manifest.json", len(entries))
	}
	if _, _, err := Read(filepath.Join(dir, "missing.json")); !errors.Is(err, ErrNoManifest) {
		t.Errorf("missing manifest: %v, want ErrNoManifest", err)
	}
	// An invalid manifest is never written.
	bad := validManifest()
	bad.RunID = "../../etc"
	if err := WriteAtomic(path, bad, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("write of an invalid manifest: %v", err)
	}
	if m, _, err := Read(path); err != nil || m.RunID != validManifest().RunID {
		t.Errorf("the previous manifest did not survive a refused write: %v", err)
	}
}

// TestRead_damaged truncates the manifest at every length, flips every
// bit of every byte and zero-fills it: Read refuses each with ErrInvalid.
func TestRead_damaged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "manifest.json")
	if err := WriteAtomic(path, validManifest(), nil); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, b []byte) {
		t.Helper()
		if _, err := Parse(b); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Parse: %v, want ErrInvalid", what, err)
		}
	}
	// The trailing newline is not part of the content.
	for n := 0; n < len(good)-1; n++ {
		check("truncated to "+itoa(n), good[:n])
	}
	var accepted []string
	for i := range good {
		for bit := 0; bit < 8; bit++ {
			b := bytes.Clone(good)
			b[i] ^= 1 << bit
			if _, err := Parse(b); err == nil {
				accepted = append(accepted, itoa(i)+"/"+itoa(bit)+" ("+string(good[max(0, i-10):min(len(good), i+10)])+")")
			} else if !errors.Is(err, ErrInvalid) {
				t.Errorf("flip byte %d bit %d: %v, want ErrInvalid", i, bit, err)
			}
		}
	}
	// A flip in the trailing newline or the final closing brace's
	// surrounding whitespace could be harmless; nothing else may pass.
	for _, a := range accepted {
		t.Errorf("a bit flip was accepted: byte/bit %s", a)
	}
	check("zero-filled", make([]byte, len(good)))
	check("empty", nil)
	check("two manifests", append(bytes.Clone(good), good...))

	// Read reports the same through the file.
	if err := os.WriteFile(path, good[:len(good)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Read(path); !errors.Is(err, ErrInvalid) {
		t.Errorf("Read of a truncated file: %v, want ErrInvalid", err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(m *Manifest)
	}{
		{"schema version", func(m *Manifest) { m.SchemaVersion = 3 }},
		{"status", func(m *Manifest) { m.Status = "candidate" }},
		{"run id", func(m *Manifest) { m.RunID = "latest" }},
		{"generation path escapes", func(m *Manifest) { m.GenerationPath = "generations/../../x" }},
		{"negative chunks", func(m *Manifest) { m.ChunkCount = -1 }},
		{"profile hash", func(m *Manifest) { m.EmbeddingProfile.Dimension = 768 }},
		{"no files", func(m *Manifest) { m.Files = nil }},
		{"file path", func(m *Manifest) { m.Files["../x"] = FileSum{Size: 1, XXH3: strings.Repeat("0", 32)} }},
		{"file sum", func(m *Manifest) { m.Files["x"] = FileSum{Size: 1, XXH3: "abc"} }},
		{"no segments", func(m *Manifest) { m.Segments = nil }},
		{"segment id", func(m *Manifest) { m.Segments[0].ID = "../../etc" }},
		{"segment repeated", func(m *Manifest) { m.Segments[1].ID = m.Segments[0].ID }},
		{"segment file path", func(m *Manifest) { m.Segments[1].Files["a/b"] = FileSum{Size: 1, XXH3: strings.Repeat("0", 32)} }},
		{"segment without files", func(m *Manifest) { m.Segments[0].Files = nil }},
		{"space id", func(m *Manifest) { m.Space.ID = "" }},
		{"space file sum", func(m *Manifest) { m.Space.Files["space.bin"] = FileSum{Size: 1, XXH3: "x"} }},
		{"more chunks than documents", func(m *Manifest) { m.ChunkCount = 45 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := validManifest()
			tt.change(m)
			m.Seal() // a consistent checksum: the field check must catch it
			if err := m.Validate(); !errors.Is(err, ErrInvalid) {
				t.Errorf("Validate: %v, want ErrInvalid", err)
			}
		})
	}
	t.Run("edited without resealing", func(t *testing.T) {
		m := validManifest()
		m.ChunkCount++
		if err := m.Validate(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "checksum") {
			t.Errorf("Validate: %v, want a checksum mismatch", err)
		}
	})
	t.Run("older format", func(t *testing.T) {
		if _, err := Parse([]byte(`{"schemaVersion":1,"status":"active","files":{}}`)); !errors.Is(err, ErrOldFormat) {
			t.Errorf("Parse of a first-format manifest: %v, want ErrOldFormat", err)
		}
	})
	t.Run("unknown field", func(t *testing.T) {
		b, _ := json.Marshal(validManifest())
		b = bytes.Replace(b, []byte(`{"schemaVersion"`), []byte(`{"extra":1,"schemaVersion"`), 1)
		if _, err := Parse(b); !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse: %v, want ErrInvalid", err)
		}
	})
}

func TestNewRunID(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	var ids []string
	for i := 0; i < 200; i++ {
		id := NewRunID(t0.Add(time.Duration(i) * 5 * time.Millisecond))
		if !ValidRunID(id) {
			t.Fatalf("NewRunID gave %q", id)
		}
		ids = append(ids, id)
	}
	// Ids sort by creation time even within one second: "the newest
	// candidate" is the last one by name.
	if !slices.IsSorted(ids) {
		t.Errorf("run ids of increasing times do not sort in order: %v", ids[:10])
	}
	if a, b := NewRunID(t0), NewRunID(t0); a == b {
		t.Errorf("two run ids of one instant are equal: %s", a)
	}
}

// FuzzParse: Parse never panics, refuses with one of its named errors
// (a schemaVersion above this build's is ErrNewerFormat: the record is
// kept for the newer Nova, not called invalid), and whatever it accepts
// re-validates and, written again, reads back the same.
func FuzzParse(f *testing.F) {
	good, _ := json.MarshalIndent(validManifest(), "", "  ")
	f.Add(good)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"schemaVersion":1,"status":"active"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse(b)
		if err != nil {
			if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrOldFormat) && !errors.Is(err, ErrNewerFormat) {
				t.Fatalf("Parse error %v is not ErrInvalid, ErrOldFormat or ErrNewerFormat", err)
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("accepted manifest does not validate: %v", err)
		}
		// Written as WriteAtomic writes it, it reads back the same.
		again, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if back, err := Parse(append(again, '\n')); err != nil || !reflect.DeepEqual(back, m) {
			t.Fatalf("accepted manifest rewritten does not read back: %v\n got %+v\nwant %+v", err, back, m)
		}
	})
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	neg := i < 0
	if neg {
		i = -i
	}
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	if neg {
		return "-" + string(d)
	}
	return string(d)
}

// TestWriteAtomic_overWhatIsNotAFile: a promotion or rollback replaces
// what is found at manifest.json when it is not a regular file. A
// symbolic link (which Read follows, so novad served it and doctor said
// Ready) is replaced by the file, not written through; an empty directory
// is removed. Before, both made every sync fail as an interrupted
// promotion, and rollback and sync, which doctor advises for an unreadable
// manifest, could not repair it. A directory that holds something is
// left alone, and the error says what is in the way.
func TestWriteAtomic_overWhatIsNotAFile(t *testing.T) {
	t.Run("symlink", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "manifest.json")
		target := filepath.Join(dir, "elsewhere.json")
		if err := os.WriteFile(target, []byte("keep me"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
		if err := WriteAtomic(path, validManifest(), nil); err != nil {
			t.Fatalf("WriteAtomic over a symbolic link: %v", err)
		}
		if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("manifest.json after the write: %v %v, want a regular file", fi, err)
		}
		if b, _ := os.ReadFile(target); string(b) != "keep me" {
			t.Errorf("the link's target was written through: %q", b)
		}
		if _, _, err := Read(path); err != nil {
			t.Errorf("Read: %v", err)
		}
	})
	t.Run("empty directory", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "manifest.json")
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := WriteAtomic(path, validManifest(), nil); err != nil {
			t.Fatalf("WriteAtomic over an empty directory: %v", err)
		}
		if _, _, err := Read(path); err != nil {
			t.Errorf("Read: %v", err)
		}
	})
	t.Run("directory with a file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "manifest.json")
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(path, "x"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		err := WriteAtomic(path, validManifest(), nil)
		if !errors.Is(err, ErrDirectory) || !strings.Contains(err.Error(), path) {
			t.Errorf("WriteAtomic over a directory with a file: %v, want ErrDirectory naming it", err)
		}
		if _, err := os.Stat(filepath.Join(path, "x")); err != nil {
			t.Errorf("the directory's file: %v", err)
		}
	})
}
