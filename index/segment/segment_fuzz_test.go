package segment

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/vector"
)

// fuzzSegment writes a real segment (with a dead.bin and inverted-file
// lists) and returns its chunks and its files' bytes by name. It is
// small: the fuzzer mutates short files far more effectively.
func fuzzSegment(f *testing.F) ([]memory.Chunk, map[string][]byte) {
	chunks := sampleChunks(12)
	dead := &Dead{Docs: []uint32{2, 5}}
	dead.Text.AddTerms([]string{"port", "cron"})
	dead.Context.AddTerms([]string{"word"})
	seg, files := writeSegment(f, f.TempDir(), chunks, dead)
	out := map[string][]byte{}
	for _, name := range manifest.SortedFiles(files) {
		b, err := os.ReadFile(filepath.Join(seg, name))
		if err != nil {
			f.Fatal(err)
		}
		out[name] = b
	}
	return chunks, out
}

// fuzzFirst is the first document number the fuzzed segment has in its
// generation: after the documents its dead.bin retires.
const fuzzFirst = 10

// damaged returns b truncated, extended and with bytes flipped: the
// seeds that start the fuzzer near the checks.
func damaged(b []byte) [][]byte {
	out := [][]byte{b[:len(b)/2], b[:max(len(b)-1, 0)], append(slices.Clone(b), 0)}
	for _, at := range []int{0, 8, 12, 16, 20, len(b) / 3, len(b) - 12, len(b) - 1} {
		if at >= 0 && at < len(b) {
			out = append(out, flip(b, at))
		}
	}
	return out
}

// FuzzOpen opens a segment one of whose files (which picks it, by sorted
// name) holds arbitrary bytes, as a checksum recomputed over a crafted or
// miswritten file would let through: it must be refused with a FileError
// naming a file and wrapping a corrupt error, or open and then read every
// document, column, tag and posting without a panic; opening must not
// allocate beyond what the files' sizes allow; and the files as written
// must read back exactly.
func FuzzOpen(f *testing.F) {
	chunks, orig := fuzzSegment(f)
	names := slices.Sorted(maps.Keys(orig))
	for i, name := range names {
		f.Add(uint8(i), orig[name])
		for _, b := range damaged(orig[name]) {
			f.Add(uint8(i), b)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		name := names[int(which)%len(names)]
		files := map[string][]byte{}
		size := 0
		for n, o := range orig {
			files[n] = o
			size += len(o)
		}
		// A fresh copy: the readers view a mapping's bytes as u32s, and a
		// mapping is page-aligned.
		files[name] = append(make([]byte, 0, len(b)), b...)
		size += len(b)
		r := &Reader{Files: map[string]manifest.FileSum{}}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := r.parse(files, fuzzFirst)
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > uint64(16*size+1<<20) {
			t.Fatalf("opening %d bytes of files allocated %d bytes", size, got)
		}
		if err != nil {
			var fe *FileError
			// A meta of a higher format is a newer Nova's segment, named
			// so (manifest.ErrNewerFormat), not corrupt.
			if !errors.As(err, &fe) || !isCorrupt(err) && !errors.Is(err, manifest.ErrNewerFormat) {
				t.Fatalf("refused without a named corrupt or newer-format error: %v", err)
			}
			if bytes.Equal(b, orig[name]) {
				t.Fatalf("the segment as written was refused: %v", err)
			}
			return
		}
		readAll(t, r)
		if bytes.Equal(b, orig[name]) {
			for i := range chunks {
				got, err := r.Chunk(i)
				if err != nil || !reflect.DeepEqual(*got, chunks[i]) {
					t.Fatalf("chunk %d of the segment as written: %v\n got %+v\nwant %+v", i, err, got, chunks[i])
				}
			}
		}
	})
}

// isCorrupt reports whether err is one of the corrupt errors the
// segment's readers return.
func isCorrupt(err error) bool {
	return errors.Is(err, ErrCorrupt) || errors.Is(err, lexical.ErrCorrupt) || errors.Is(err, vector.ErrCorrupt)
}

// readAll reads everything an opened segment serves, as searches would.
func readAll(t *testing.T, r *Reader) {
	n := r.Docs()
	for doc := range n {
		c, err := r.Chunk(doc)
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("chunk %d: %v", doc, err)
		}
		if _, _, err := r.ChunkStored(doc); err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("chunk %d stored: %v", doc, err)
		}
		if _, _, err := r.ChunkMeta(doc, func([]byte) bool { return true }); err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("chunk %d metadata: %v", doc, err)
		}
		_, _ = r.ChunkText(doc), r.ID(doc)
		if rank := r.IDRank(doc); rank < 1 || int(rank) > n || r.ByIDRank(rank) != doc {
			t.Fatalf("document %d has id rank %d of %d", doc, rank, n)
		}
		for f := FacetDate; f <= FacetConversation; f++ {
			_ = r.Facet(f, doc)
		}
		_, _, _ = r.Line(doc), r.Part(doc), r.Tags(doc)
		if err == nil {
			_, _ = r.Find(c.ID)
		}
	}
	all := map[uint32]bool{}
	for doc := range n {
		all[uint32(doc)] = true
	}
	for _, field := range []*lexical.Field{r.Text, r.Context} {
		field.EachTerm(func(term string, _ int) { _ = field.DocFreq(term) })
		field.Stats(all)
	}
	for doc := range n {
		_ = r.Codes.Row(doc)
	}
	_ = r.TagMatcher([]string{"config"})
	_ = r.Matcher(FacetProject, []string{"p1"})
}

// FuzzRecord decodes arbitrary bytes as a record, against a real
// segment's dictionary, in each of the ways a search decodes one: no
// panic, and an error only ErrCorrupt; a record as written decodes to its
// chunk.
func FuzzRecord(f *testing.F) {
	chunks, orig := fuzzSegment(f)
	r := &Reader{Files: map[string]manifest.FileSum{}}
	if err := r.parse(orig, fuzzFirst); err != nil {
		f.Fatal(err)
	}
	for doc := range r.Docs() {
		rec := r.record(doc)
		f.Add(rec)
		for _, b := range damaged(rec) {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, want := range []fields{fieldsAll, fieldsStored, fieldsID, fieldsText} {
			var c memory.Chunk
			d := decoder{dict: r.dict, b: b}
			if err := d.decode(&c, want); err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("decode %d: %v", want, err)
			}
		}
		for doc := range r.Docs() {
			if bytes.Equal(b, r.record(doc)) {
				var c memory.Chunk
				d := decoder{dict: r.dict, b: b}
				if err := d.decode(&c, fieldsAll); err != nil || !reflect.DeepEqual(c, chunks[doc]) {
					t.Fatalf("record %d as written: %v\n got %+v\nwant %+v", doc, err, c, chunks[doc])
				}
			}
		}
	})
}
