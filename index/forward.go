package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unsafe"
)

// maxForwardBytes bounds what one record of the file may claim, so a
// damaged file fails instead of asking for an enormous allocation.
const maxForwardBytes = 1 << 30

// Records of the temporary vector-input file: a kind byte, then the
// codes to carry (dim bytes), the dense input or the text to embed (length
// and bytes). A dense input is its ids in the segment's text vocabulary
// (a count, then each id), its ids in the context vocabulary (the same),
// then its terms (a term list). The two vocabularies follow the records,
// as two term lists, when the segment is sealed: embedding then looks each
// distinct term up in the model once a segment, not once a chunk, and the
// file holds each term's bytes once. A term list is its count, total
// bytes, each term's length, then all the terms' bytes.
const (
	fwdCodes byte = iota
	fwdTerms
	fwdText
)

// denseInput is what the builtin model embeds for a chunk: its text's
// terms and the words before it, as the lexical fields numbered them (ids
// in the segment's text and context vocabularies, which the fields looked
// up anyway), and as terms where a part of the words before is not a part
// of the context field (see contextAnalyzer.before).
type denseInput struct {
	text, context []uint32
	terms         []string
}

// writeForward appends a chunk's vector input to its segment's temporary
// file: its codes when it carries them, else its dense input when dense
// is set, else its text.
func writeForward(w *bufio.Writer, pc *pendingChunk, dense *denseInput) error {
	// Appended in the writer's free buffer: no allocation a chunk.
	b := w.AvailableBuffer()
	switch {
	case pc.codes != nil:
		b = append(b, fwdCodes)
		for _, v := range pc.codes {
			b = append(b, byte(v))
		}
	case dense != nil:
		b = append(b, fwdTerms)
		for _, ids := range [2][]uint32{dense.text, dense.context} {
			b = binary.AppendUvarint(b, uint64(len(ids)))
			for _, id := range ids {
				b = binary.AppendUvarint(b, uint64(id))
			}
		}
		b = appendTermList(b, dense.terms)
	default:
		t := pc.c.IndexText()
		b = binary.AppendUvarint(append(b, fwdText), uint64(len(t)))
		b = append(b, t...)
	}
	_, err := w.Write(b)
	return err
}

// appendTermList appends terms as a term list.
func appendTermList(b []byte, terms []string) []byte {
	size := 0
	for _, t := range terms {
		size += len(t)
	}
	b = binary.AppendUvarint(b, uint64(len(terms)))
	b = binary.AppendUvarint(b, uint64(size))
	for _, t := range terms {
		b = binary.AppendUvarint(b, uint64(len(t)))
	}
	for _, t := range terms {
		b = append(b, t...)
	}
	return b
}

// vocabularies are a sealed segment's text and context vocabularies, or
// anything indexed by their ids.
type vocabularies[T any] struct {
	text, context []T
}

// writeVocabularies appends a segment's vocabularies after its records.
func writeVocabularies(w *bufio.Writer, v vocabularies[string]) error {
	_, err := w.Write(appendTermList(appendTermList(w.AvailableBuffer(), v.text), v.context))
	return err
}

// readVocabularies reads what writeVocabularies wrote.
func readVocabularies(r *bufio.Reader) (vocabularies[string], error) {
	var v vocabularies[string]
	var err error
	if v.text, err = readTermList(r); err == nil {
		v.context, err = readTermList(r)
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return v, err
}

// forwardEntry is one decoded vector input.
type forwardEntry struct {
	kind  byte
	codes []int8
	dense denseInput
	text  string
}

// readForward reads the next record; io.EOF means the file ended cleanly,
// between records. rows are the model's rows of the segment's
// vocabularies (vocabularyRows): every id must index them.
func readForward(r *bufio.Reader, dim int, rows vocabularies[int32]) (forwardEntry, error) {
	k, err := r.ReadByte()
	if err != nil {
		return forwardEntry{}, err
	}
	e, err := readForwardBody(r, k, dim, rows)
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF // inside a record: the file was cut short
	}
	return e, err
}

func readForwardBody(r *bufio.Reader, k byte, dim int, rows vocabularies[int32]) (forwardEntry, error) {
	e := forwardEntry{kind: k}
	str := func() (string, error) {
		n, err := binary.ReadUvarint(r)
		if err != nil {
			return "", err
		}
		if n > maxForwardBytes {
			return "", fmt.Errorf("vector input: text of %d bytes", n)
		}
		b := make([]byte, n)
		_, err = io.ReadFull(r, b)
		return string(b), err
	}
	switch k {
	case fwdCodes:
		b := make([]byte, dim)
		if _, err := io.ReadFull(r, b); err != nil {
			return e, err
		}
		e.codes = make([]int8, dim)
		for i, v := range b {
			e.codes[i] = int8(v)
		}
	case fwdTerms:
		var err error
		if e.dense.text, err = readIDs(r, len(rows.text)); err != nil {
			return e, err
		}
		if e.dense.context, err = readIDs(r, len(rows.context)); err != nil {
			return e, err
		}
		if e.dense.terms, err = readTermList(r); err != nil {
			return e, err
		}
	case fwdText:
		var err error
		if e.text, err = str(); err != nil {
			return e, err
		}
	default:
		return e, fmt.Errorf("vector input: unknown record kind %d", k)
	}
	return e, nil
}

// readIDs reads a count and as many ids, each below vocab.
func readIDs(r *bufio.Reader, vocab int) ([]uint32, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if n > maxForwardBytes {
		return nil, fmt.Errorf("vector input: %d term ids", n)
	}
	ids := make([]uint32, n)
	for i := range ids {
		id, err := binary.ReadUvarint(r)
		if err != nil {
			return nil, err
		}
		if id >= uint64(vocab) {
			return nil, fmt.Errorf("vector input: term id %d of a vocabulary of %d", id, vocab)
		}
		ids[i] = uint32(id)
	}
	return ids, nil
}

// readTermList reads a term list: two allocations, not two a term. The
// lengths of most lists fit on the stack.
func readTermList(r *bufio.Reader) ([]string, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	size, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if n > maxForwardBytes || size > maxForwardBytes {
		return nil, fmt.Errorf("vector input: %d terms of %d bytes", n, size)
	}
	terms := make([]string, n)
	var buf [256]int
	lens := buf[:0]
	if n > uint64(len(buf)) {
		lens = make([]int, 0, n)
	}
	lens = lens[:n]
	for i := range lens {
		l, err := binary.ReadUvarint(r)
		if err != nil {
			return nil, err
		}
		lens[i] = int(l)
	}
	all := make([]byte, size)
	if _, err := io.ReadFull(r, all); err != nil {
		return nil, err
	}
	rest := unsafe.String(unsafe.SliceData(all), len(all)) // all is not written again
	for i, l := range lens {
		if l > len(rest) {
			return nil, fmt.Errorf("vector input: term lengths exceed %d bytes", size)
		}
		terms[i], rest = rest[:l], rest[l:]
	}
	return terms, nil
}
