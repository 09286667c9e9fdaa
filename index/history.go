package index

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/nova-recall/nova/atomicfile"
	"github.com/nova-recall/nova/paths"
)

// Event is one line of index/history.jsonl.
type Event struct {
	Time          time.Time `json:"time"`
	Event         string    `json:"event"` // build, promote, rollback, prune
	RunID         string    `json:"runId"`
	PreviousRunID string    `json:"previousRunId,omitempty"`
	Chunks        int       `json:"chunks,omitempty"`
	Records       int       `json:"records,omitempty"`
	Embedded      int       `json:"embedded,omitempty"`
	Cached        int       `json:"cached,omitempty"`
	Carried       int       `json:"carried,omitempty"`
	Problems      int       `json:"problems,omitempty"`
	DurationMs    int64     `json:"durationMs,omitempty"`
	Deleted       []string  `json:"deleted,omitempty"`
	Note          string    `json:"note,omitempty"`
}

// Event names.
const (
	EventBuild    = "build"
	EventPromote  = "promote"
	EventRollback = "rollback"
	EventPrune    = "prune"
)

// historyLimit is the size of history.jsonl above which its oldest events
// are dropped, keeping the newest half. The watcher syncs after every
// burst an agent writes, three events each (about 1 MB an hour of agent
// work), and retention reads the whole file at every sync: unbounded, it
// would grow for good and slow every sync. Retention needs only the
// newest activations, and 128 KiB holds some 400 events.
var historyLimit int64 = 256 << 10

func appendHistory(path string, e Event) error {
	// Never through a symbolic link: one planted while the home was open
	// to others would have every sync append to the file it points to (a
	// shell profile). Nova runs on unix only (macOS, Linux).
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND|paths.NoFollow, paths.FileMode)
	if errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("open history: %s %w", path, atomicfile.ErrSymlink)
	}
	if err != nil {
		return fmt.Errorf("open history: %w", err)
	}
	b, _ := json.Marshal(e)
	b = append(b, '\n')
	// A writer killed mid-append leaves a line without its newline; start
	// on a line of our own, or this event would be glued to the torn one
	// and skipped by ReadHistory.
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			b = append([]byte{'\n'}, b...)
		}
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("append history: %w", err)
	}
	// No fsync: the history is a record of what happened, not what is
	// active (the manifest is, with the generation it replaced). A power
	// failure that loses its last lines costs a line of index list's
	// story and, for rollback, an order that the manifest's previous run
	// id and the run ids (which sort by time) stand in for; a torn line is
	// skipped when read, and the next append starts a line of its own.
	// Each fsync here was a drive cache flush on macOS, two a sync.
	fi, err := f.Stat()
	if err := f.Close(); err != nil {
		return err
	}
	if err == nil && fi.Size() > historyLimit {
		return trimHistory(path, historyLimit/2)
	}
	return nil
}

// trimHistory rewrites history.jsonl (atomically) with its newest whole
// lines that fit in keep bytes, and at least its last line.
func trimHistory(path string, keep int64) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("trim history: %w", err)
	}
	start := len(data)
	for start > 0 {
		// The line before start begins after the newline before it.
		i := bytes.LastIndexByte(data[:start-1], '\n') + 1
		if int64(len(data)-i) > keep && start < len(data) {
			break
		}
		start = i
	}
	if err := atomicfile.Write(path, data[start:], paths.FileMode); err != nil {
		return fmt.Errorf("trim history: %w", err)
	}
	return nil
}

// ReadHistory returns the events of history.jsonl in order. Lines that do
// not parse (a torn last line after a crash) are skipped.
func ReadHistory(path string) ([]Event, error) {
	// Only a regular file: a named pipe would block the open, and every
	// index command and novad's fallback with it.
	f, _, err := paths.OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var e Event
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.RunID != "" {
			out = append(out, e)
		}
	}
	return out, sc.Err()
}
