package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// FileState is what a generation remembers of one source file: enough to
// tell, without reading it, that it is unchanged, that it only grew (an
// append-only transcript), or that it changed otherwise; and how far it
// was read. It is one entry of the generation's sources.json.
type FileState struct {
	Source string `json:"source"`
	Path   string `json:"path"`
	// Size, ModTime (Unix nanoseconds), Device and Inode identify the
	// file as it was read.
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime"`
	Device  uint64 `json:"device,omitempty"`
	Inode   uint64 `json:"inode,omitempty"`
	// Cursor is how far the file was read: complete lines only, so a line
	// an agent was still writing is read the next time. An append-only
	// file (a transcript) that grew is read on from there.
	Cursor ingest.Cursor `json:"cursor"`
	// Records is how many records the file contributed.
	Records int `json:"records"`
	// Dropped lists record ids skipped because an earlier file already
	// had them (duplicate ids); if that earlier record goes, this file is
	// read again so the record comes back, as a full rebuild would have it.
	Dropped []string `json:"dropped,omitempty"`
	// Gone is when the file was first found missing; its memory is kept
	// unless the operator prunes it.
	Gone time.Time `json:"gone,omitzero"`
	// Problems counts the file's skipped input at its last read (with,
	// for a file read on from its cursor, what the reads before skipped:
	// that input is still not in memory).
	Problems int `json:"problems,omitempty"`
	// Problem is why the first of it was skipped, with its line when it
	// has one: "binary content (...)", "line 12: not a JSON object: ...".
	// Empty in the states of generations built before it was recorded.
	Problem string `json:"problem,omitempty"`
	// Interrupted is how many of Problems are the remains of writes a
	// crash interrupted (NUL padding, a line cut short): lost, with
	// nothing in the file to fix.
	Interrupted int `json:"interrupted,omitempty"`
}

// markGone records that the file is gone, first found missing at now
// unless it was before, and drops what only reading it on would need: the
// reader's state in its cursor (a long Claude Code session's holds the
// digests of a thousand line uuids) and the prefix digest. A gone file is
// never read on from its cursor (if it comes back it is read whole), and
// its state stays in every later sources.json, which each sync writes
// whole: transcripts that agents delete after a month would weigh on it
// for good.
func (s *FileState) markGone(now time.Time) {
	if s.Gone.IsZero() {
		s.Gone = now
	}
	s.Cursor.State, s.Cursor.Prefix, s.Cursor.Window = nil, "", ""
}

// problemReason is p as a FileState's Problem: its reason, after its line
// when it has one (the state already names the source and the file).
func problemReason(p ingest.Problem) string {
	if p.Line > 0 {
		return fmt.Sprintf("line %d: %s", p.Line, p.Reason)
	}
	return p.Reason
}

// stateKey identifies a file across syncs.
type stateKey struct{ source, path string }

// sourceStates is a generation's sources.json: every file of every source.
type sourceStates struct {
	// Version is the reading rules the states were made under; a change
	// (a reader that extracts differently) means every file is read again.
	Version string      `json:"version"`
	Files   []FileState `json:"files"`
}

func (s *sourceStates) index() map[stateKey]*FileState {
	m := make(map[stateKey]*FileState, len(s.Files))
	for i := range s.Files {
		f := &s.Files[i]
		m[stateKey{f.Source, f.Path}] = f
	}
	return m
}

func (s *sourceStates) sort() {
	sort.Slice(s.Files, func(i, j int) bool {
		a, b := s.Files[i], s.Files[j]
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		return a.Path < b.Path
	})
}

func (s *sourceStates) marshal() []byte {
	s.sort()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return buf.Bytes()
}

func readSourceStates(path string) (*sourceStates, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &sourceStates{}, nil
	}
	if err != nil {
		return nil, err
	}
	var s sourceStates
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return &s, nil
}

// FileStates returns what the generation m records of each source file
// (its sources.json), by source and path. A generation of an older format
// without the file records none.
func FileStates(home paths.Home, m *manifest.Manifest) ([]FileState, error) {
	s, err := readSourceStates(filepath.Join(home.IndexDir(), m.GenerationPath, generation.FileSources))
	if err != nil {
		return nil, err
	}
	s.sort()
	return s.Files, nil
}

// fileIdentity is what stat says of a file now.
type fileIdentity struct {
	size, modTime  int64
	device, inode  uint64
	regular, exist bool
}

func statIdentity(path string) fileIdentity {
	fi, err := os.Stat(path)
	if err != nil {
		return fileIdentity{}
	}
	id := fileIdentity{size: fi.Size(), modTime: fi.ModTime().UnixNano(), regular: fi.Mode().IsRegular(), exist: true}
	id.device, id.inode = deviceInode(fi)
	return id
}

func (id fileIdentity) sameFile(s *FileState) bool {
	return id.inode == s.Inode && id.device == s.Device
}

func (id fileIdentity) unchanged(s *FileState) bool {
	return id.sameFile(s) && id.size == s.Size && id.modTime == s.ModTime
}

// moved reports whether the file now at path is the file s describes,
// under another name: the same inode, and the same content. A moved file
// keeps its size and time; an append-only one may have grown since, but
// still starts with what was read. The inode alone does not say it: a
// file system hands a deleted file's inode to the next file created
// (ext4 does at once), and that file's memory is not the deleted one's.
func (id fileIdentity) moved(path string, s *FileState) bool {
	if !id.sameFile(s) {
		return false
	}
	if id.size == s.Size && id.modTime == s.ModTime {
		return true
	}
	return id.size >= s.Cursor.Offset && ingest.Continues(path, s.Cursor)
}

// grew reports whether the file only grew since s was read: the same file,
// larger. Reading on from the cursor then confirms the start is unchanged.
func (id fileIdentity) grew(s *FileState) bool {
	return id.sameFile(s) && id.size > s.Size && s.Cursor.Offset > 0
}
