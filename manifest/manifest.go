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
	"sync"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/atomicfile"
	"github.com/nova-recall/nova/paths"
)

// SchemaVersion is the manifest format version this build reads and
// writes. Version 1 named one directory of JSON and float files per
// generation; version 2 names memory-mapped segments shared between
// generations (a base and the deltas of incremental syncs) and the vector
// space they were embedded in.
const SchemaVersion = 2

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
	// BuildProfileHash covers everything in the configuration that shapes
	// chunks (sources, chunk sizes, context, analyzer, reading rules): a
	// sync under another profile rebuilds in full.
	BuildProfileHash string `json:"buildProfileHash"`
	// Space is the vector space the segments were embedded in: the
	// builtin model (if any), the quantizer and the inverted-file cells,
	// under index/spaces/<id>.
	Space Part `json:"space"`
	// Segments are the generation's segments in document order, each
	// under index/segments/<id>. Later segments may retire documents of
	// earlier ones (an incremental sync's delta).
	Segments []Part `json:"segments"`
	// Files lists the files of the generation directory itself (the
	// per-file source state, the build report). Every file of the
	// generation, its segments' and its space's included, has a size and
	// a checksum here; the loader refuses any that does not match.
	Files map[string]FileSum `json:"files"`
	// PreviousRunID is the generation this one replaced, if any.
	PreviousRunID string `json:"previousRunId,omitempty"`
	// Checksum is the SHA-256 of the manifest's canonical JSON with this
	// field empty. It catches a truncated or bit-flipped manifest.
	Checksum string `json:"checksum"`
}

// FileSum is the size and checksum of one file. The checksum is XXH3-128
// (hex): it guards against damage, not against an attacker who can write
// NOVA_HOME (who could rewrite the manifest too), and it lets novad verify
// a generation of a million chunks in well under a second.
type FileSum struct {
	Size int64  `json:"size"`
	XXH3 string `json:"xxh3"`
}

// Part is a directory of immutable files a generation uses: a segment or
// a vector space.
type Part struct {
	ID string `json:"id"`
	// Docs is the number of document slots of a segment (0 for a space).
	Docs  int                `json:"docs,omitempty"`
	Files map[string]FileSum `json:"files"`
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
	return HashBytes(b)
}

// HashBytes returns the SHA-256 of b, hex.
func HashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Errors returned by Read and Validate.
var (
	// ErrNoManifest means no manifest exists: nothing has been promoted.
	ErrNoManifest = errors.New("no active manifest")
	// ErrInvalid means the manifest exists but cannot be trusted.
	ErrInvalid = errors.New("invalid manifest")
	// ErrOldFormat means the manifest names a generation in a format this
	// build no longer serves; the next novactl index sync rebuilds it
	// (keeping the memory of vanished source files).
	ErrOldFormat = errors.New("the index was built by an older Nova; run novactl index sync to rebuild it")
	// ErrNewerFormat means a file was written by a newer Nova, in a
	// format this build does not read (after a downgrade): not damage, so
	// nothing deletes what holds it; a NewerFormatError says which.
	ErrNewerFormat = errors.New("written by a newer Nova")
	// ErrDirectory means a directory that holds files is where the
	// manifest goes: nothing Nova writes makes one, so it is left for the
	// user to look at and move away.
	ErrDirectory = errors.New("is a directory that holds files, not the manifest: move it away and run the command again")
)

// NewerFormatError is a file of a format newer than this build's: What
// names it, Format is its format number, Reads the one this build reads.
// errors.Is(err, ErrNewerFormat) is true of it.
type NewerFormatError struct {
	What          string
	Format, Reads int
}

func (e *NewerFormatError) Error() string {
	return fmt.Sprintf("%s was written by a newer Nova (format %d); this build reads format %d: upgrade, or run novactl index sync to build one this version can read",
		e.What, e.Format, e.Reads)
}

// Unwrap makes errors.Is(err, ErrNewerFormat) true.
func (e *NewerFormatError) Unwrap() error { return ErrNewerFormat }

// NewerSchema returns a *NewerFormatError naming what when b, a manifest
// or a candidate record, declares a schemaVersion above SchemaVersion,
// and nil otherwise. It looks at that number alone, before any strict
// decoding: a newer format may add fields, and its checksum may cover
// them in a way this build cannot recompute. A damaged file that only
// reads as newer is kept, never deleted: the safe side.
func NewerSchema(b []byte, what string) error {
	var version struct {
		SchemaVersion int `json:"schemaVersion"`
	}
	if json.Unmarshal(b, &version) == nil && version.SchemaVersion > SchemaVersion && !sealsAsOwn(b) {
		return &NewerFormatError{What: what, Format: version.SchemaVersion, Reads: SchemaVersion}
	}
	return nil
}

// sealsAsOwn reports whether b, a record whose schemaVersion is not this
// build's, matches its checksum once that number is set to this build's:
// a flipped bit in this build's own number, which is damage, not another
// format.
func sealsAsOwn(b []byte) bool {
	var m Manifest
	if json.Unmarshal(b, &m) != nil {
		return false
	}
	want := m.Checksum
	m.SchemaVersion = SchemaVersion
	m.Seal()
	return m.Checksum == want
}

// OlderFormatError is a record of a format older than this build's (a
// generation a Nova of some days before wrote, found after an upgrade):
// What names it, Format is its format number, Reads the one this build
// reads. It is intact for the Nova that wrote it, not damage, though this
// build never makes it active. errors.Is(err, ErrOldFormat) is true of it.
type OlderFormatError struct {
	What          string
	Format, Reads int
}

func (e *OlderFormatError) Error() string {
	return fmt.Sprintf("%s was written by an older Nova (format %d); this build reads format %d and cannot make it active: novactl index sync builds one this version reads, keeping the memory of files that are gone (only the Nova that wrote it rolls back to it)",
		e.What, e.Format, e.Reads)
}

// Unwrap makes errors.Is(err, ErrOldFormat) true.
func (e *OlderFormatError) Unwrap() error { return ErrOldFormat }

// OlderSchema returns an *OlderFormatError naming what when b, a
// candidate record, declares a schemaVersion from 1 up to below
// SchemaVersion, and nil otherwise. Like NewerSchema it looks at that
// number alone: an older format's fields (format 1 had a sha256 per file)
// fail this build's strict decoding, which is no sign of damage.
func OlderSchema(b []byte, what string) error {
	var version struct {
		SchemaVersion int `json:"schemaVersion"`
	}
	if json.Unmarshal(b, &version) == nil && version.SchemaVersion >= 1 && version.SchemaVersion < SchemaVersion && !sealsAsOwn(b) {
		return &OlderFormatError{What: what, Format: version.SchemaVersion, Reads: SchemaVersion}
	}
	return nil
}

var runIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$`) })

// ValidRunID reports whether id has the run id shape
// (YYYYMMDDTHHMMSSZ-8hex). Run ids are also directory names, so nothing
// else is accepted.
func ValidRunID(id string) bool { return runIDPattern().MatchString(id) }

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
	if err := validFiles("generation", m.Files); err != nil {
		return bad("%v", err)
	}
	if !ValidRunID(m.Space.ID) || m.Space.Docs != 0 {
		return bad("space id %q is malformed", m.Space.ID)
	}
	if err := validFiles("space "+m.Space.ID, m.Space.Files); err != nil {
		return bad("%v", err)
	}
	if len(m.Segments) == 0 {
		return bad("segments is empty")
	}
	docs, seen := 0, map[string]bool{}
	for _, p := range m.Segments {
		if !ValidRunID(p.ID) || seen[p.ID] || p.Docs < 0 {
			return bad("segment id %q is malformed or repeated", p.ID)
		}
		seen[p.ID] = true
		docs += p.Docs
		if err := validFiles("segment "+p.ID, p.Files); err != nil {
			return bad("%v", err)
		}
	}
	if m.ChunkCount > docs {
		return bad("chunkCount %d exceeds the segments' %d documents", m.ChunkCount, docs)
	}
	want := m.Checksum
	copyM := *m
	copyM.Seal()
	if want == "" || copyM.Checksum != want {
		return bad("checksum mismatch (the manifest is corrupt or was edited)")
	}
	return nil
}

func validFiles(what string, files map[string]FileSum) error {
	if len(files) == 0 {
		return fmt.Errorf("%s lists no files", what)
	}
	for name, sum := range files {
		if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
			return fmt.Errorf("%s: file name %q is not a plain file name", what, name)
		}
		if sum.Size < 0 || len(sum.XXH3) != 32 {
			return fmt.Errorf("%s: file %s has a malformed checksum", what, name)
		}
	}
	return nil
}

// Parse decodes and validates manifest bytes.
func Parse(b []byte) (*Manifest, error) {
	var version struct {
		SchemaVersion int `json:"schemaVersion"`
	}
	if json.Unmarshal(b, &version) == nil && version.SchemaVersion == 1 {
		return nil, ErrOldFormat
	}
	if err := NewerSchema(b, "the manifest"); err != nil {
		return nil, err
	}
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

// maxSize bounds the manifest Read accepts: one lists every file of a
// generation, a few hundred bytes a segment, so even thousands of
// segments stay far below it.
const maxSize = 64 << 20

// Read reads, parses and validates the manifest at path. It also returns
// the raw bytes' SHA-256, which the reload loop uses to skip no-op changes.
func Read(path string) (*Manifest, string, error) {
	// Only a regular file is read: a named pipe would block the read (and
	// novad's reload loop, doctor, every index command) until a writer
	// came, and a link to a device such as /dev/zero never ends.
	// ReadRegular judges the file it opened, without waiting on a pipe.
	b, _, err := paths.ReadRegular(path, maxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", ErrNoManifest
	}
	if nf, ok := errors.AsType[*paths.NotFileError](err); ok {
		return nil, "", fmt.Errorf("%w: %v", ErrInvalid, nf)
	}
	if tl, ok := errors.AsType[*paths.TooLargeError](err); ok {
		return nil, "", fmt.Errorf("%w: %s is %d bytes, more than a manifest ever is", ErrInvalid, path, tl.Size)
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
//
// Both fsyncs are full ones (F_FULLFSYNC on macOS), the commit of a
// sync: the first makes the new manifest's bytes durable before the
// rename can publish them, and flushes the drive's cache for every
// generation file synced in order before it (Seal, SyncDir), so nothing
// the manifest names can be lost; the second makes the rename itself
// durable, so a promotion reported done stays done.
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
	// Whatever is at path that is not the manifest must not stop the one
	// write that repairs the index (doctor advises rollback or sync for an
	// unreadable manifest). A symbolic link is replaced, not written
	// through: index/ is private to Nova, and the manifest is a file.
	opts := []atomicfile.Option{atomicfile.ReplaceSymlink()}
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		// A rename cannot replace a directory. An empty one holds nothing
		// to lose; one with files in it is the user's to look at.
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("publish manifest: %s %w", path, ErrDirectory)
		}
	}
	if hook != nil {
		opts = append(opts, atomicfile.WithHook(func(s atomicfile.Step) { hook("manifest-" + string(s)) }))
	}
	if err := atomicfile.Write(path, b, Mode, opts...); err != nil {
		return fmt.Errorf("publish manifest: %w", err)
	}
	return nil
}

// SyncDir fsyncs a directory of generation files (a segment's, a space's,
// generations/ after a candidate moved in) so that its entries survive a
// crash before the manifest names them. Kept because a manifest that
// survives a crash must not name a file or directory whose entry did not;
// ordered (atomicfile.SyncDirOrdered) because WriteAtomic's full sync,
// after it, flushes the drive's cache for it.
func SyncDir(dir string) error { return atomicfile.SyncDirOrdered(dir) }

// CleanTemps removes manifest temp files a crashed writer left behind.
func CleanTemps(dir string) {
	atomicfile.RemoveTemps(filepath.Join(dir, "manifest.json"))
	// Temp files of builds before package atomicfile.
	matches, _ := filepath.Glob(filepath.Join(dir, ".manifest-*.tmp"))
	for _, m := range matches {
		os.Remove(m)
	}
}

// SortedFiles returns the names of files in order.
func SortedFiles(files map[string]FileSum) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Bytes is the total size of every file the manifest lists.
func (m *Manifest) Bytes() int64 {
	var n int64
	for _, files := range m.AllFiles() {
		for _, f := range files {
			n += f.Size
		}
	}
	return n
}

// AllFiles returns the files of the generation by directory, relative to
// the index directory: the generation's own, its space's and each
// segment's.
func (m *Manifest) AllFiles() map[string]map[string]FileSum {
	out := map[string]map[string]FileSum{
		m.GenerationPath:     m.Files,
		SpaceDir(m.Space.ID): m.Space.Files,
	}
	for _, p := range m.Segments {
		out[SegmentDir(p.ID)] = p.Files
	}
	return out
}

// SegmentDir is the directory of segment id, relative to the index
// directory.
func SegmentDir(id string) string { return "segments/" + id }

// SpaceDir is the directory of vector space id, relative to the index
// directory.
func SpaceDir(id string) string { return "spaces/" + id }

// Hasher computes the FileSum of the bytes written to it.
type Hasher struct {
	h *xxh3.Hasher
	n int64
}

// NewHasher returns an empty Hasher.
func NewHasher() *Hasher { return &Hasher{h: xxh3.New()} }

// Write implements io.Writer.
func (h *Hasher) Write(p []byte) (int, error) {
	h.n += int64(len(p))
	return h.h.Write(p)
}

// Sum returns the size and checksum of what was written.
func (h *Hasher) Sum() FileSum {
	b := h.h.Sum128().Bytes()
	return FileSum{Size: h.n, XXH3: hex.EncodeToString(b[:])}
}
