// Package manifest owns index/manifest.json, the active search boundary: its
// type, parsing and validation, the atomic write that promotion and rollback
// use, and the watcher that tells novad a new manifest may have appeared.
package manifest

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/atomicfile"
	"github.com/nova-recall/nova/paths"
)

// SchemaVersion is the manifest format version this build reads and writes.
const SchemaVersion = 1

// StatusActive is the only status a served manifest has.
const StatusActive = "active"

// Manifest names the active index generation and everything needed to
// verify it before serving.
type Manifest struct {
	SchemaVersion int    `json:"schemaVersion"`
	Status        string `json:"status"`
	RunID         string `json:"runId"`
	// GenerationPath is relative to the index directory, e.g.
	// "generations/20261130T080000Z-1a2b3c4d".
	GenerationPath string    `json:"generationPath"`
	CreatedAt      time.Time `json:"createdAt"`
	PromotedAt     time.Time `json:"promotedAt"`
	// PromotedBy says which operation wrote this manifest: promote, sync
	// or rollback.
	PromotedBy           string               `json:"promotedBy"`
	ChunkCount           int                  `json:"chunkCount"`
	RecordCount          int                  `json:"recordCount"`
	EmbeddingProfile     api.EmbeddingProfile `json:"embeddingProfile"`
	EmbeddingProfileHash string               `json:"embeddingProfileHash"`
	SourceProfile        SourceProfile        `json:"sourceProfile"`
	SourceProfileHash    string               `json:"sourceProfileHash"`
	// Files lists every file of the generation with its size and SHA-256;
	// the loader refuses a generation whose files do not match.
	Files map[string]FileSum `json:"files"`
	// PreviousRunID is the generation this one replaced, if any.
	PreviousRunID string `json:"previousRunId,omitempty"`
	// Checksum is the SHA-256 of the manifest's canonical JSON with this
	// field empty. It catches a truncated or bit-flipped manifest.
	Checksum string `json:"checksum"`
}

// FileSum is the size and SHA-256 of one generation file.
type FileSum struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// SourceProfile records which sources a generation was built from.
type SourceProfile struct {
	Sources []SourceRef `json:"sources"`
}

// SourceRef identifies one configured source.
type SourceRef struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Path      string `json:"path"`
	SourceSet string `json:"sourceSet"`
}

// Hash returns the canonical hash of the source profile.
func (p SourceProfile) Hash() string { return canonicalHash(p) }

// ProfileHash returns the canonical hash of an embedding profile.
func ProfileHash(p api.EmbeddingProfile) string { return canonicalHash(p) }

func canonicalHash(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Errors returned by Read and Validate.
var (
	// ErrNoManifest means no manifest exists: nothing has been promoted.
	ErrNoManifest = errors.New("no active manifest")
	// ErrInvalid means the manifest exists but cannot be trusted.
	ErrInvalid = errors.New("invalid manifest")
)

var runIDPattern = regexp.MustCompile(`^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$`)

// ValidRunID reports whether id has the run id shape
// (YYYYMMDDTHHMMSSZ-8hex). Run ids are also directory names, so nothing
// else is accepted.
func ValidRunID(id string) bool { return runIDPattern.MatchString(id) }

// NewRunID returns a fresh run id for time t. The first three hex digits
// of the suffix are t's milliseconds and the other five are random, so run
// ids sort by creation time even within one second ("the newest
// candidate" is the last by name).
func NewRunID(t time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	ms := uint32(t.Nanosecond() / int(time.Millisecond)) // 0-999: 0x000-0x3e7
	return t.UTC().Format("20060102T150405Z") + "-" + fmt.Sprintf("%08x", ms<<20|binary.BigEndian.Uint32(b[:])&0xfffff)
}

// Seal fills in the checksum.
func (m *Manifest) Seal() {
	m.Checksum = ""
	m.Checksum = canonicalHash(m)
}

// Validate checks the manifest's fields and checksum.
func (m *Manifest) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
	}
	if m.SchemaVersion != SchemaVersion {
		return bad("schemaVersion %d is not supported (want %d)", m.SchemaVersion, SchemaVersion)
	}
	if m.Status != StatusActive {
		return bad("status %q is not %q", m.Status, StatusActive)
	}
	if !ValidRunID(m.RunID) {
		return bad("runId %q is malformed", m.RunID)
	}
	if m.GenerationPath != "generations/"+m.RunID {
		return bad("generationPath %q does not name generations/%s", m.GenerationPath, m.RunID)
	}
	if m.ChunkCount < 0 {
		return bad("chunkCount is negative")
	}
	if m.EmbeddingProfile.Dimension <= 0 || m.EmbeddingProfile.Provider == "" {
		return bad("embeddingProfile is incomplete")
	}
	if ProfileHash(m.EmbeddingProfile) != m.EmbeddingProfileHash {
		return bad("embeddingProfileHash does not match embeddingProfile")
	}
	if len(m.Files) == 0 {
		return bad("files is empty")
	}
	for name, sum := range m.Files {
		if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
			return bad("file name %q is not a plain file name", name)
		}
		if sum.Size < 0 || len(sum.SHA256) != 64 {
			return bad("file %s has a malformed checksum", name)
		}
	}
	want := m.Checksum
	copyM := *m
	copyM.Seal()
	if want == "" || copyM.Checksum != want {
		return bad("checksum mismatch (the manifest is corrupt or was edited)")
	}
	return nil
}

// Parse decodes and validates manifest bytes.
func Parse(b []byte) (*Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	// The checksum covers the decoded values; the bytes must also be
	// exactly what WriteAtomic wrote (up to white space). Otherwise a
	// flipped case bit in a key (encoding/json matches keys without
	// regard to case) or garbage after the object would pass.
	var compact bytes.Buffer
	canonical, err := json.Marshal(&m)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if err := json.Compact(&compact, b); err != nil || !bytes.Equal(compact.Bytes(), canonical) {
		return nil, fmt.Errorf("%w: the file differs from the manifest it decodes to (damaged or edited)", ErrInvalid)
	}
	return &m, nil
}

// Read reads, parses and validates the manifest at path. It also returns
// the raw bytes' SHA-256, which the reload loop uses to skip no-op changes.
func Read(path string) (*Manifest, string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", ErrNoManifest
	}
	if err != nil {
		return nil, "", fmt.Errorf("read manifest: %w", err)
	}
	sum := sha256.Sum256(b)
	m, err := Parse(b)
	return m, hex.EncodeToString(sum[:]), err
}

// Hook is called at each durability boundary of a write with the name of
// the step about to happen. Tests use it to crash a writer at that point;
// production passes nil.
type Hook func(step string)

// Steps of WriteAtomic, in order.
const (
	StepTempWritten = "manifest-" + string(atomicfile.StepTempWritten)
	StepTempSynced  = "manifest-" + string(atomicfile.StepTempSynced)
	StepRenamed     = "manifest-" + string(atomicfile.StepRenamed)
)

// Mode is the manifest's file mode: it lives under NOVA_HOME, which is
// private to the user.
const Mode = paths.FileMode

// WriteAtomic replaces path with m: write a temp file in the same
// directory, fsync it, rename it over path, fsync the directory. A crash
// at any point leaves either the old or the new manifest, both valid.
func WriteAtomic(path string, m *Manifest, hook Hook) error {
	m.Seal()
	if err := m.Validate(); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	var opts []atomicfile.Option
	if hook != nil {
		opts = append(opts, atomicfile.WithHook(func(s atomicfile.Step) { hook("manifest-" + string(s)) }))
	}
	if err := atomicfile.Write(path, b, Mode, opts...); err != nil {
		return fmt.Errorf("publish manifest: %w", err)
	}
	return nil
}

// SyncDir fsyncs a directory so that a rename in it survives a crash.
func SyncDir(dir string) error { return atomicfile.SyncDir(dir) }

// CleanTemps removes manifest temp files a crashed writer left behind.
func CleanTemps(dir string) {
	atomicfile.RemoveTemps(filepath.Join(dir, "manifest.json"))
	// Temp files of builds before package atomicfile.
	matches, _ := filepath.Glob(filepath.Join(dir, ".manifest-*.tmp"))
	for _, m := range matches {
		os.Remove(m)
	}
}

// SortedFiles returns the file names of m in order.
func (m *Manifest) SortedFiles() []string {
	names := make([]string, 0, len(m.Files))
	for n := range m.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
