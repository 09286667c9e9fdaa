package index

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"time"

	"github.com/zeebo/xxh3"
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
	// Offset is how many bytes were consumed: complete lines only, so a
	// line an agent was still writing is read the next time. Line is the
	// number of lines consumed.
	Offset int64 `json:"offset"`
	Line   int   `json:"line"`
	// Head is the checksum of the file's first bytes (up to headBytes)
	// and Tail of the tailBytes before Offset: an append leaves both as
	// they were, a rewrite almost never does.
	Head string `json:"head"`
	Tail string `json:"tail"`
	// Records is how many records the file contributed.
	Records int `json:"records"`
	// Dropped lists record ids skipped because an earlier file already
	// had them (duplicate ids); if that earlier record goes, this file is
	// read again so the record comes back, as a full rebuild would have it.
	Dropped []string `json:"dropped,omitempty"`
	// Gone is when the file was first found missing; its memory is kept
	// unless the operator prunes it.
	Gone time.Time `json:"gone,omitzero"`
	// Problems counts the file's skipped input at its last read.
	Problems int `json:"problems,omitempty"`
}

// Checksum windows of FileState.Head and FileState.Tail.
const (
	headBytes = 4096
	tailBytes = 4096
)

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

// windowSum returns the checksum of [off, off+n) of f (clipped to the
// file), hex.
func windowSum(f io.ReaderAt, off, n int64) (string, error) {
	buf := make([]byte, max(0, n))
	k, err := f.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	sum := xxh3.Hash128(buf[:k]).Bytes()
	return hex.EncodeToString(sum[:]), nil
}

// appendOnly reports whether the file at path still begins with what
// state s read: same identity, not shorter, and the same head and tail
// windows.
func appendOnly(path string, s *FileState, now fileIdentity) bool {
	if !now.sameFile(s) || now.size < s.Offset || s.Offset == 0 {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head, err := windowSum(f, 0, min(headBytes, s.Offset))
	if err != nil || head != s.Head {
		return false
	}
	tail, err := windowSum(f, max(0, s.Offset-tailBytes), min(tailBytes, s.Offset))
	return err == nil && tail == s.Tail
}
