package ingest

import "github.com/zeebo/xxh3"

// keptKeyBytes is the size of an id's digest in an idWindow: 48 bits, so
// that an id wrongly taken for one of a 1 024-id window's is about one in
// 2^38 (1 024 / 2^48).
const keptKeyBytes = 6

// idWindow remembers the last size ids a reader read from a file, across
// reads: their digests live packed in the file's cursor state (keptKeyBytes
// each, oldest first; JSON stores them as one base64 string, which every
// sync writes again for every file), and in a set while a read runs.
// Claude Code's reader remembers the lines that gave a record, Gemini
// CLI's the messages it read.
type idWindow struct {
	size int
	set  map[uint64]bool
}

// has reports whether id is among those packed remembers.
func (w *idWindow) has(packed []byte, id string) bool {
	w.load(packed)
	return w.set[keptKey(id)]
}

// full reports whether packed holds size ids: adding another forgets
// the oldest.
func (w *idWindow) full(packed []byte) bool {
	return w.size > 0 && len(packed) >= w.size*keptKeyBytes
}

// add remembers id, forgetting the oldest beyond the window's size, and
// returns packed updated.
func (w *idWindow) add(packed []byte, id string) []byte {
	if w.size <= 0 || w.has(packed, id) {
		return packed
	}
	k := keptKey(id)
	if len(packed) >= w.size*keptKeyBytes {
		delete(w.set, keptKeyAt(packed, 0))
		packed = packed[keptKeyBytes:]
	}
	for i := range keptKeyBytes {
		packed = append(packed, byte(k>>(8*i)))
	}
	w.set[k] = true
	return packed
}

// load fills the set from packed, once a read.
func (w *idWindow) load(packed []byte) {
	if w.set != nil {
		return
	}
	w.set = make(map[uint64]bool, len(packed)/keptKeyBytes)
	for i := 0; i+keptKeyBytes <= len(packed); i += keptKeyBytes {
		w.set[keptKeyAt(packed, i)] = true
	}
}

// keptKey is the 48-bit digest of an id that an idWindow stores.
func keptKey(id string) uint64 {
	return xxh3.HashString(id) & (1<<(8*keptKeyBytes) - 1)
}

// keptKeyAt reads the digest stored at offset i of packed.
func keptKeyAt(packed []byte, i int) uint64 {
	var k uint64
	for j := range keptKeyBytes {
		k |= uint64(packed[i+j]) << (8 * j)
	}
	return k
}
