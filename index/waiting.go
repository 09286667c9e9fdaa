package index

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/paths"
)

// A record's neighbouring context needs the records after it in its
// conversation, so the last records of every conversation wait until the
// source is read: a file of 84 000 sessions left 168 000 chunks waiting, a
// third of a 1M-record build's heap. Beyond a bound they wait on disk.

// defaultWaitingInMemory bounds the waiting records held in memory (about
// 2 KB each).
const defaultWaitingInMemory = 20_000

// waitingFile holds waiting records' chunks in a temporary file under
// index/tmp, private like everything else, removed when the build ends.
type waitingFile struct {
	dir  string
	f    *os.File
	size int64
}

// spilled is where a record's chunks are in the waiting file.
type spilled struct{ off, n int64 }

// storedChunk is a pendingChunk as the waiting file stores it.
type storedChunk struct {
	C     memory.Chunk `json:"c"`
	Codes []int8       `json:"codes,omitempty"`
}

// put appends chunks to the file.
func (w *waitingFile) put(chunks []pendingChunk) (spilled, error) {
	if w.f == nil {
		if err := paths.MkdirPrivate(w.dir); err != nil {
			return spilled{}, err
		}
		f, err := os.CreateTemp(w.dir, "waiting-*.json") // 0600
		if err != nil {
			return spilled{}, err
		}
		w.f = f
	}
	stored := make([]storedChunk, len(chunks))
	for i, pc := range chunks {
		stored[i] = storedChunk{C: pc.c, Codes: pc.codes}
	}
	b, err := json.Marshal(stored)
	if err != nil {
		return spilled{}, err
	}
	if _, err := w.f.Write(b); err != nil {
		return spilled{}, err
	}
	at := spilled{off: w.size, n: int64(len(b))}
	w.size += at.n
	return at, nil
}

// get reads chunks back.
func (w *waitingFile) get(at spilled) ([]pendingChunk, error) {
	b := make([]byte, at.n)
	if _, err := w.f.ReadAt(b, at.off); err != nil && err != io.EOF {
		return nil, err
	}
	var stored []storedChunk
	if err := json.Unmarshal(b, &stored); err != nil {
		return nil, fmt.Errorf("waiting records: %w", err)
	}
	out := make([]pendingChunk, len(stored))
	for i, s := range stored {
		out[i] = pendingChunk{c: s.C, codes: s.Codes}
	}
	return out, nil
}

// close removes the file.
func (w *waitingFile) close() {
	if w.f != nil {
		w.f.Close()
		os.Remove(w.f.Name())
		w.f, w.size = nil, 0
	}
}
