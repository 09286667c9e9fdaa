package agentconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aymanbagabas/go-udiff"
	"github.com/aymanbagabas/go-udiff/myers"

	"github.com/nova-recall/nova/atomicfile"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/paths"
)

// Record is what one install did to one file.
type Record struct {
	// Agent is the agent's ID.
	Agent string `json:"agent"`
	// Command is the command the entry runs, so that an entry installed
	// with --command is still recognised as Nova's.
	Command string `json:"command,omitempty"`
	Insertion
	// CreatedFile is true when the install created the file, so that an
	// uninstall that leaves it empty deletes it.
	CreatedFile bool `json:"createdFile,omitempty"`
}

// Records is the install record store, one JSON file. It is not safe for
// concurrent use.
type Records struct {
	file     string
	Version  int                `json:"version"`
	Installs map[string]*Record `json:"installs"`
}

// RecordsFile is where the install records of a runtime home live.
func RecordsFile(home paths.Home) string { return filepath.Join(home.StateDir(), "mcp-installs.json") }

// ErrBadRecords is returned by LoadRecords, with an empty store, when the
// store is not valid JSON: the records only make removal exact, so a
// caller may go on without them (and Save then replaces the file).
var ErrBadRecords = errors.New("the install record is unreadable")

// LoadRecords reads the store at file; a missing file is an empty store.
func LoadRecords(file string) (*Records, error) {
	r := &Records{file: file, Version: 1, Installs: map[string]*Record{}}
	b, _, existed, err := read(file)
	if err != nil || !existed {
		return r, err
	}
	if err := json.Unmarshal(b, r); err != nil {
		return &Records{file: file, Version: 1, Installs: map[string]*Record{}}, fmt.Errorf("%w: %s: %v", ErrBadRecords, file, err)
	}
	if r.Installs == nil {
		r.Installs = map[string]*Record{}
	}
	return r, nil
}

// Get returns the record for a configuration file, or nil.
func (r *Records) Get(path string) *Record { return r.Installs[path] }

// Paths returns the configuration files with a record of agent id, in
// sorted order.
func (r *Records) Paths(id string) []string {
	var out []string
	for path, rec := range r.Installs {
		if rec.Agent == id {
			out = append(out, path)
		}
	}
	slices.Sort(out)
	return out
}

// Set stores rec for path; nil deletes the record.
func (r *Records) Set(path string, rec *Record) {
	if rec == nil {
		delete(r.Installs, path)
		return
	}
	r.Installs[path] = rec
}

// Save writes the store atomically (mode 0600 in a 0700 directory), or
// deletes it when it is empty.
func (r *Records) Save() error {
	if len(r.Installs) == 0 {
		if err := os.Remove(r.file); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(r.file, append(b, '\n'), paths.FileMode)
}

// UpdateRecords sets the records of changes (a configuration file's path
// to its record; nil deletes it) in the store at file as it is now, and
// saves it. An unreadable store is replaced. It holds the store's lock
// meanwhile, waiting a moment for another novactl's: two installs or
// uninstalls run at once (a setup script per agent, two terminals) each
// read the store at their start, and the one that saved last used to put
// back what it had read, dropping the other's records.
func UpdateRecords(file string, changes map[string]*Record) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	lock, err := acquireRecordsLock(strings.TrimSuffix(file, filepath.Ext(file))+".lock", time.Now)
	if err != nil {
		return err
	}
	defer lock.Release()
	r, err := LoadRecords(file)
	if err != nil && !errors.Is(err, ErrBadRecords) {
		return err
	}
	for path, rec := range changes {
		r.Set(path, rec)
	}
	return r.Save()
}

// recordsLockWait bounds how long UpdateRecords waits for another
// command's lock of the store: each holds it only to read and write one
// small file.
const recordsLockWait = 10 * time.Second

// acquireRecordsLock takes the store's lock at path, trying again while
// another process holds it, for up to recordsLockWait.
func acquireRecordsLock(path string, now func() time.Time) (*lockfile.Lock, error) {
	deadline := now().Add(recordsLockWait)
	for {
		l, err := lockfile.Acquire(path, paths.FileMode, "mcp install record", now())
		if !errors.Is(err, lockfile.ErrHeld) || now().After(deadline) {
			if errors.Is(err, lockfile.ErrHeld) {
				return nil, fmt.Errorf("%w; run the command again once it is done", err)
			}
			return l, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ErrChanged is returned by Apply when the file changed after it was read.
var ErrChanged = errors.New("the file changed while it was being edited; run the command again")

// Apply writes the plan: atomically replaces the file (keeping its mode),
// creates it (mode 0600, parent directories 0700) or deletes it. It
// refuses if the file changed since the plan read it, checking again just
// before the rename.
func (p *Plan) Apply() error {
	if !p.Changed() {
		return nil
	}
	if err := p.unchanged(); errors.Is(err, ErrChanged) {
		return fmt.Errorf("%s: %w", p.Path, err)
	} else if err != nil {
		return err
	}
	if p.After == nil {
		return atomicfile.Remove(p.file)
	}
	// atomicfile names the path in its error.
	return writeAtomic(p.file, p.After, p.mode, atomicfile.WithCheck(func(fs.FileInfo) error {
		return p.unchanged()
	}))
}

// unchanged checks that the file is still as the plan read it. Agents
// rewrite their files while they run (Claude Code rewrites ~/.claude.json
// at every start): Apply checks before it writes and once more just before
// the rename, so that a change made while the edited copy was written and
// synced is not lost. A link that now points elsewhere is a change too.
func (p *Plan) unchanged() error {
	now, _, existed, file, err := readConfig(p.Path)
	if err != nil {
		return err
	}
	if existed != p.existed || file != p.file || !bytes.Equal(now, p.Before) {
		return ErrChanged
	}
	return nil
}

// writeHook, when set, is called at each step of a write (tests change
// the file there).
var writeHook func(atomicfile.Step)

// writeAtomic replaces path with data (see package atomicfile), creating
// missing parent directories private to the user.
func writeAtomic(path string, data []byte, mode os.FileMode, opts ...atomicfile.Option) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if writeHook != nil {
		opts = append(opts, atomicfile.WithHook(writeHook))
	}
	return atomicfile.Write(path, data, mode, opts...)
}

// Diff renders the plan as a unified diff (three lines of context), or ""
// when nothing changes.
func (p *Plan) Diff() string {
	if !p.Changed() {
		return ""
	}
	oldName, newName := "a"+p.Path, "b"+p.Path
	if !p.existed {
		oldName = "/dev/null"
	}
	if p.After == nil {
		newName = "/dev/null"
	}
	//nolint:staticcheck // SA1019: myers diffs whole lines; udiff.Strings diffs characters, which turns a changed line into -/+ pairs of its unchanged neighbours.
	edits := myers.ComputeEdits(string(p.Before), string(p.After))
	d, err := udiff.ToUnified(oldName, newName, string(p.Before), edits, udiff.DefaultContextLines)
	if err != nil {
		return "" // cannot happen: the edits come from the same two texts
	}
	return d
}
