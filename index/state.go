package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
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
	// Birth is when the file was created (Unix nanoseconds), 0 where the
	// file system does not say or the state was recorded before it was.
	// With Device and Inode it names the file across an edit and a
	// rename: a file system hands a deleted file's inode to the next file
	// created, but not its birth time.
	Birth int64 `json:"birth,omitempty"`
	// Companions is the stat of the files read along with this one
	// (ingest.Companions: a SQLite database's write-ahead log), "" for a
	// file without any. A database in WAL mode takes new rows in its log
	// and keeps its own size and time until a checkpoint, so a file is
	// unchanged only while its companions are too.
	Companions string `json:"companions,omitempty"`
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
	// Unreadable is set when the file's last read failed for a lasting
	// reason (a damaged file, one of another format, a permission
	// denied): Size, ModTime, Device, Inode, Birth, Companions and
	// Changed are the file as that read found it, and Problem says why.
	// While it stays so, the syncs after leave it unread (it would fail
	// the same way) and count it among the earlier problems; any change
	// to it reads it again. The memory read from it before, if any, is
	// kept (Records), but not its cursor: a repaired file is read whole.
	Unreadable bool `json:"unreadable,omitempty"`
	// Changed is an Unreadable file's status change time (Unix
	// nanoseconds), 0 where the system does not say: a permission given
	// back, or a repair that puts the modification time back, changes it
	// and nothing else.
	Changed int64 `json:"changed,omitempty"`
}

// markGone records that the file is gone, first found missing at now
// unless it was before, and drops what only reading it on would need: the
// reader's state in its cursor (a long Claude Code session's holds the
// digests of a thousand line uuids) and the prefix digest. A gone file is
// never read on from its cursor (if it comes back it is read whole), and
// its state stays in every later generation's states (and in each new
// base of them, written whole): transcripts that agents delete after a
// month would weigh on them for good.
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
//
// Written whole, it is MBs at a few thousand sessions (a Claude Code
// cursor holds its reader's state), rewritten at every sync for the one
// file that moved. So an incremental sync writes it as the changes to a
// base: Base names a full state file under index/states (written once,
// immutable, kept while a generation or candidate names it), Files are
// the states that differ from the base's or are new, Removed the base's
// files that are no longer listed. Read, it is always whole: Files holds
// every file, Base and Removed are nil.
type sourceStates struct {
	// Version is the reading rules the states were made under; a change
	// (a reader that extracts differently) means every file is read again.
	Version string         `json:"version"`
	Base    *stateBaseRef  `json:"base,omitempty"`
	Files   []FileState    `json:"files"`
	Removed []stateKeyJSON `json:"removed,omitempty"`

	// base is the base the states were read on, or written as, which
	// marshal writes the changes to; nil: marshal writes every file.
	base *stateBase
	// lost is why the base could not be read (damaged or deleted): the
	// states are then empty, of no version.
	lost error
}

// stateBaseRef names a base state file: index/states/<ID>.json, with
// the checksum it was written with.
type stateBaseRef struct {
	ID  string           `json:"id"`
	Sum manifest.FileSum `json:"sum"`
}

// stateKeyJSON is a stateKey in a sources.json.
type stateKeyJSON struct {
	Source string `json:"source"`
	Path   string `json:"path"`
}

// stateBase is a base state file, read.
type stateBase struct {
	ref   stateBaseRef
	files map[stateKey]*FileState
}

// ErrBaseStateLost is FileStates' error when the base state file a
// generation's sources.json names is damaged or missing: how far each
// source file was read is lost, not memory, and the next sync reads every
// file again.
var ErrBaseStateLost = errors.New("the record of how far each source file was read is damaged or missing")

// statesDir is where base state files live, under the index directory.
const statesDir = "states"

// baseEvery is how many of a base's files may differ before a sync
// writes a new base: the changes a sync writes stay a small part of what
// writing everything would cost, and a new base is written after many
// syncs (agents append to a few sessions at a time).
const baseEvery = 8

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

// marshal returns the sources.json of s: the changes to its base when it
// has one, every file otherwise.
func (s *sourceStates) marshal() []byte {
	s.sort()
	out := sourceStates{Version: s.Version, Files: s.Files}
	if s.base != nil {
		out.Base, out.Files, out.Removed = &s.base.ref, s.changed(), s.removed()
	}
	if out.Files == nil {
		out.Files = []FileState{}
	}
	return marshalJSON(&out)
}

// removed returns the base's files that s no longer lists, sorted.
func (s *sourceStates) removed() []stateKeyJSON {
	listed := make(map[stateKey]bool, len(s.Files))
	for i := range s.Files {
		listed[stateKey{s.Files[i].Source, s.Files[i].Path}] = true
	}
	var out []stateKeyJSON
	for key := range s.base.files {
		if !listed[key] {
			out = append(out, stateKeyJSON{key.source, key.path})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Source < b.Source || a.Source == b.Source && a.Path < b.Path
	})
	return out
}

// changed returns the files of s whose state is not its base's.
func (s *sourceStates) changed() []FileState {
	var out []FileState
	for i := range s.Files {
		f := &s.Files[i]
		if b := s.base.files[stateKey{f.Source, f.Path}]; b == nil || !sameState(f, b) {
			out = append(out, *f)
		}
	}
	return out
}

func marshalJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return buf.Bytes()
}

// sameState reports whether a and b record the same of a file: every
// field of FileState (a field added there must be added here).
func sameState(a, b *FileState) bool {
	return a.Source == b.Source && a.Path == b.Path && a.Size == b.Size && a.ModTime == b.ModTime &&
		a.Device == b.Device && a.Inode == b.Inode && a.Birth == b.Birth && a.Companions == b.Companions && a.Cursor.Same(b.Cursor) && a.Records == b.Records &&
		slices.Equal(a.Dropped, b.Dropped) && a.Gone.Equal(b.Gone) && a.Problems == b.Problems &&
		a.Problem == b.Problem && a.Interrupted == b.Interrupted && a.Unreadable == b.Unreadable && a.Changed == b.Changed
}

// sameStates reports whether a and b record the same of every file.
func sameStates(a, b *sourceStates) bool {
	if a.Version != b.Version || len(a.Files) != len(b.Files) {
		return false
	}
	a.sort()
	b.sort()
	for i := range a.Files {
		if !sameState(&a.Files[i], &b.Files[i]) {
			return false
		}
	}
	return true
}

// readSourceStates reads a sources.json (under <index>/generations/<id>/
// or <index>/candidates/<id>/), with the base it names, whole. A base
// that cannot be read gives empty states with lost set, not an error.
func readSourceStates(path string) (*sourceStates, error) {
	b, err := readGenerationFile(path)
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
	if s.Base == nil {
		return &s, nil
	}
	indexDir := filepath.Dir(filepath.Dir(filepath.Dir(path)))
	base, err := readStateBase(indexDir, *s.Base)
	if err != nil {
		// The base records only how far each file was read; the memory
		// is in the generation. States of no version make the next
		// build read every file again on top of the generation, keeping
		// the memory of files that are gone and the embedder, where an
		// error would have it build from scratch and drop them.
		return &sourceStates{lost: fmt.Errorf("%w: %w", ErrBaseStateLost, err)}, nil
	}
	whole := make(map[stateKey]FileState, len(base.files)+len(s.Files))
	for key, f := range base.files {
		whole[key] = f.clone() // the base may be cached: never share what a build changes
	}
	for _, f := range s.Files {
		whole[stateKey{f.Source, f.Path}] = f
	}
	for _, k := range s.Removed {
		delete(whole, stateKey{k.Source, k.Path})
	}
	out := &sourceStates{Version: s.Version, Files: make([]FileState, 0, len(whole)), base: base}
	for _, f := range whole {
		out.Files = append(out.Files, f)
	}
	out.sort()
	return out, nil
}

// clone returns a copy of s that shares nothing with it.
func (s *FileState) clone() FileState {
	c := *s
	c.Cursor.State = slices.Clone(s.Cursor.State)
	c.Dropped = slices.Clone(s.Dropped)
	return c
}

// cachedBase is the base state file read last, with the identity of the
// file it was read from. The watcher syncs in one process, tens of times
// an hour, each sync reading the same base (MBs of JSON, 50 ms at 3 000
// sessions): a base file is written once and never changed, so while the
// same file (inode, size, time) holds it, it is not read, checked and
// parsed again.
var cachedBase struct {
	sync.Mutex
	path string
	id   fileIdentity
	base *stateBase
}

// readStateBase reads and checks a base state file.
func readStateBase(indexDir string, ref stateBaseRef) (*stateBase, error) {
	if !manifest.ValidRunID(ref.ID) {
		return nil, fmt.Errorf("base state %q is not a run id", ref.ID)
	}
	path := filepath.Join(indexDir, statesDir, ref.ID+".json")
	id := statIdentity(path)
	cachedBase.Lock()
	defer cachedBase.Unlock()
	if c := cachedBase.base; c != nil && cachedBase.path == path && cachedBase.id == id && c.ref == ref {
		return c, nil
	}
	base, err := loadStateBase(path, ref)
	if err != nil {
		return nil, err
	}
	cachedBase.path, cachedBase.id, cachedBase.base = path, id, base
	return base, nil
}

func loadStateBase(path string, ref stateBaseRef) (*stateBase, error) {
	b, err := readGenerationFile(path)
	if err != nil {
		return nil, fmt.Errorf("base state: %w", err)
	}
	h := manifest.NewHasher()
	_, _ = h.Write(b)
	if h.Sum() != ref.Sum {
		return nil, fmt.Errorf("base state %s does not match its checksum (damaged)", path)
	}
	var s sourceStates
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	base := &stateBase{ref: ref, files: make(map[stateKey]*FileState, len(s.Files))}
	for i := range s.Files {
		base.files[stateKey{s.Files[i].Source, s.Files[i].Path}] = &s.Files[i]
	}
	return base, nil
}

// baseOf returns the base state a sources.json names ("" for none),
// reading only its start: marshal writes the base before the files.
func baseOf(path string) (string, error) {
	f, _, err := paths.OpenRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", fmt.Errorf("read %s: not a JSON object", path)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", fmt.Errorf("read %s: %w", path, err)
		}
		switch t {
		case "base":
			var ref stateBaseRef
			if err := dec.Decode(&ref); err != nil {
				return "", fmt.Errorf("read %s: %w", path, err)
			}
			return ref.ID, nil
		case "files":
			return "", nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", fmt.Errorf("read %s: %w", path, err)
		}
	}
	return "", nil
}

// rebase writes states whole as a new base under index/states when they
// have none or their changes to it grew past a part of it (baseEvery), so
// that the sources.json of their generation holds only what changes
// after. The base is synced, file and directory, before any candidate
// names it: the manifest, written later with a full sync, must never name
// a generation whose base a crash lost. A base no generation or
// candidate names (a build that died after writing it) is removed by
// collectGarbage.
func (x *Indexer) rebase(states *sourceStates) error {
	// Files no longer listed (pruned) count as changes: each is written
	// in every sources.json on this base, as a changed file is.
	if states.base != nil && (len(states.changed())+len(states.removed()))*baseEvery <= len(states.base.files) {
		return nil
	}
	states.Version = ingest.Version
	states.sort()
	dir := filepath.Join(x.home.IndexDir(), statesDir)
	if err := paths.MkdirPrivate(dir); err != nil {
		return fmt.Errorf("create states directory: %w", err)
	}
	id := manifest.NewRunID(x.opts.Now())
	sum, err := writeSealed(filepath.Join(dir, id+".json"), marshalJSON(&sourceStates{Version: states.Version, Files: states.Files}))
	if err != nil {
		return fmt.Errorf("write base state: %w", err)
	}
	if err := manifest.SyncDir(dir); err != nil {
		return err
	}
	base := &stateBase{ref: stateBaseRef{ID: id, Sum: sum}, files: make(map[stateKey]*FileState, len(states.Files))}
	for i := range states.Files {
		f := states.Files[i]
		base.files[stateKey{f.Source, f.Path}] = &f
	}
	states.base = base
	x.opts.Hook(StepStatesWritten)
	return nil
}

// FileStates returns what the generation m records of each source file
// (its sources.json), by source and path. A generation of an older format
// without the file records none.
func FileStates(home paths.Home, m *manifest.Manifest) ([]FileState, error) {
	s, err := readSourceStates(filepath.Join(home.IndexDir(), m.GenerationPath, generation.FileSources))
	if err != nil {
		return nil, err
	}
	if s.lost != nil {
		return nil, s.lost
	}
	s.sort()
	return s.Files, nil
}

// fileIdentity is what stat says of a file now.
type fileIdentity struct {
	size, modTime  int64
	device, inode  uint64
	birth          int64 // 0: unknown
	changed        int64 // status change time; 0: unknown
	regular, exist bool
	// companions is FileState.Companions, when sourceIdentity made it.
	companions string
}

// sourceIdentity is statIdentity of a file of a source of kind, with the
// stat of its companions (size, time and inode of each; "-" for one that
// does not exist).
func sourceIdentity(kind, path string) fileIdentity {
	id := statIdentity(path)
	var b strings.Builder
	for _, c := range ingest.Companions(kind, path) {
		ci := statIdentity(c)
		if !ci.exist {
			b.WriteString("-;")
			continue
		}
		fmt.Fprintf(&b, "%d:%d:%d;", ci.size, ci.modTime, ci.inode)
	}
	id.companions = b.String()
	return id
}

// birthTime is statBirthTime; tests replace it to sync as on a file
// system that gives no birth time.
var birthTime = statBirthTime

func statIdentity(path string) fileIdentity {
	fi, err := os.Stat(path)
	if err != nil {
		return fileIdentity{}
	}
	id := fileIdentity{size: fi.Size(), modTime: fi.ModTime().UnixNano(), regular: fi.Mode().IsRegular(), exist: true}
	id.device, id.inode = deviceInode(fi)
	id.birth = birthTime(path, fi)
	id.changed = changeTime(fi)
	return id
}

// sameFile reports whether the file stat'd is the one s describes: the
// same device and inode, and the same birth time where both are known (a
// new file that took a deleted one's inode was born later).
func (id fileIdentity) sameFile(s *FileState) bool {
	return id.inode == s.Inode && id.device == s.Device && (id.birth == 0 || s.Birth == 0 || id.birth == s.Birth)
}

// unchanged reports whether the file is as s describes it: the same
// file, size, time and companions; and, for a file a read failed on, the
// same status change time (its permissions, say, may be all that changed).
func (id fileIdentity) unchanged(s *FileState) bool {
	if s.Unreadable && id.changed != s.Changed {
		return false
	}
	return id.sameFile(s) && id.size == s.Size && id.modTime == s.ModTime && id.companions == s.Companions
}

// unreadableState is the state of a file whose read r failed for a
// lasting reason (r.lasting): the file as that read found it and why, so
// that the syncs after leave it unread while it stays so. prev is its
// earlier state, if any: the memory read from it before is kept, records
// of it (the build that keeps them says how many).
func unreadableState(source string, prev *FileState, r *fileRead, records int) FileState {
	id := r.failed
	st := FileState{Source: source, Path: r.file.Path, Size: id.size, ModTime: id.modTime, Device: id.device, Inode: id.inode,
		Birth: id.birth, Companions: id.companions, Changed: id.changed, Records: records,
		Problems: 1, Problem: r.err.Error(), Unreadable: true}
	if prev != nil && records > 0 {
		st.Dropped = slices.Clone(prev.Dropped)
	}
	return st
}

// moved reports whether the file now at path is the file s describes,
// under another name. The inode alone does not say it: a file system
// hands a deleted file's inode to the next file created (ext4 does at
// once), and that file's memory is not the deleted one's. With the birth
// time, the same inode born at the same time is the same file, whatever
// it holds now (a note edited, then moved). Without it, the file must
// still hold what was read: a moved file keeps its size and time; an
// append-only one may have grown since, but still starts with what was
// read.
func (id fileIdentity) moved(path string, s *FileState) bool {
	if !id.sameFile(s) {
		return false
	}
	if id.birth != 0 && s.Birth != 0 {
		return true
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
