package index

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

// Records of the temporary vector-input file: a kind byte, then the
// codes to carry (dim bytes), the dense terms (count, then each as
// length and bytes) or the text to embed (length and bytes).
const (
	fwdCodes byte = iota
	fwdTerms
	fwdText
)

// writeForward appends a chunk's vector input to its segment's temporary file.
func writeForward(w *bufio.Writer, pc *pendingChunk, dense []string) error {
	var b []byte
	switch {
	case pc.codes != nil:
		b = append([]byte{fwdCodes}, int8Bytes(pc.codes)...)
	case dense != nil:
		b = binary.AppendUvarint([]byte{fwdTerms}, uint64(len(dense)))
		for _, t := range dense {
			b = binary.AppendUvarint(b, uint64(len(t)))
			b = append(b, t...)
		}
	default:
		t := pc.c.IndexText()
		b = binary.AppendUvarint([]byte{fwdText}, uint64(len(t)))
		b = append(b, t...)
	}
	_, err := w.Write(b)
	return err
}

func int8Bytes(c []int8) []byte {
	b := make([]byte, len(c))
	for i, v := range c {
		b[i] = byte(v)
	}
	return b
}

// forwardEntry is one decoded vector input.
type forwardEntry struct {
	kind  byte
	codes []int8
	terms []string
	text  string
}

func readForward(r *bufio.Reader, dim int) (forwardEntry, error) {
	var e forwardEntry
	k, err := r.ReadByte()
	if err != nil {
		return e, err
	}
	e.kind = k
	str := func() (string, error) {
		n, err := binary.ReadUvarint(r)
		if err != nil {
			return "", err
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
		e.terms = make([]string, 0, n)
		for range n {
			t, err := str()
			if err != nil {
				return e, err
			}
			e.terms = append(e.terms, t)
		}
	case fwdText:
		if e.text, err = str(); err != nil {
			return e, err
		}
	default:
		return e, fmt.Errorf("vector input: unknown record kind %d", k)
	}
	return e, nil
}
