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
// codes to carry (dim bytes), the dense terms (count, total bytes, each
// term's length, then all the terms' bytes) or the text to embed (length
// and bytes).
const (
	fwdCodes byte = iota
	fwdTerms
	fwdText
)

// writeForward appends a chunk's vector input to its segment's temporary file.
func writeForward(w *bufio.Writer, pc *pendingChunk, dense []string) error {
	return writeForwardTerms(w, pc, dense, nil, dense != nil)
}

// writeForwardTerms is writeForward for dense terms given in two pieces
// (the text's, then the words before it), when embed is set: the same
// record as for the two joined, without joining them.
func writeForwardTerms(w *bufio.Writer, pc *pendingChunk, text, before []string, embed bool) error {
	// Appended in the writer's free buffer: no allocation a chunk.
	b := w.AvailableBuffer()
	switch {
	case pc.codes != nil:
		b = append(b, fwdCodes)
		for _, v := range pc.codes {
			b = append(b, byte(v))
		}
	case embed:
		size := 0
		for _, t := range text {
			size += len(t)
		}
		for _, t := range before {
			size += len(t)
		}
		b = binary.AppendUvarint(append(b, fwdTerms), uint64(len(text)+len(before)))
		b = binary.AppendUvarint(b, uint64(size))
		for _, t := range text {
			b = binary.AppendUvarint(b, uint64(len(t)))
		}
		for _, t := range before {
			b = binary.AppendUvarint(b, uint64(len(t)))
		}
		for _, t := range text {
			b = append(b, t...)
		}
		for _, t := range before {
			b = append(b, t...)
		}
	default:
		t := pc.c.IndexText()
		b = binary.AppendUvarint(append(b, fwdText), uint64(len(t)))
		b = append(b, t...)
	}
	_, err := w.Write(b)
	return err
}

// forwardEntry is one decoded vector input.
type forwardEntry struct {
	kind  byte
	codes []int8
	terms []string
	text  string
}

// readForward reads the next record; io.EOF means the file ended cleanly,
// between records.
func readForward(r *bufio.Reader, dim int) (forwardEntry, error) {
	k, err := r.ReadByte()
	if err != nil {
		return forwardEntry{}, err
	}
	e, err := readForwardBody(r, k, dim)
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF // inside a record: the file was cut short
	}
	return e, err
}

func readForwardBody(r *bufio.Reader, k byte, dim int) (forwardEntry, error) {
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
		n, err := binary.ReadUvarint(r)
		if err != nil {
			return e, err
		}
		size, err := binary.ReadUvarint(r)
		if err != nil {
			return e, err
		}
		if n > maxForwardBytes || size > maxForwardBytes {
			return e, fmt.Errorf("vector input: %d terms of %d bytes", n, size)
		}
		// The lengths, then every term's bytes in one string that each
		// term slices: two allocations a chunk, not two a term. The
		// lengths of most chunks' terms fit on the stack.
		e.terms = make([]string, n)
		var buf [256]int
		lens := buf[:0]
		if n > uint64(len(buf)) {
			lens = make([]int, 0, n)
		}
		lens = lens[:n]
		for i := range lens {
			l, err := binary.ReadUvarint(r)
			if err != nil {
				return e, err
			}
			lens[i] = int(l)
		}
		all := make([]byte, size)
		if _, err := io.ReadFull(r, all); err != nil {
			return e, err
		}
		rest := unsafe.String(unsafe.SliceData(all), len(all)) // all is not written again
		for i, l := range lens {
			if l > len(rest) {
				return e, fmt.Errorf("vector input: term lengths exceed %d bytes", size)
			}
			e.terms[i], rest = rest[:l], rest[l:]
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
