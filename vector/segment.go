package vector

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"unsafe"
)

// The codes file of one segment (little endian): magic "NOVVEC02", then
// rows x dim int8 codes, row-major, then rows u32 and dim u32 (a footer,
// so the file can be streamed before the count is known). It is read in
// place from a read-only mapping.
const (
	codesMagic      = "NOVVEC02"
	codesHeaderSize = 8
	codesFooterSize = 8
)

// ErrCorrupt means a serialised vector file is malformed.
var ErrCorrupt = errors.New("corrupt vector file")

// CodesWriter streams the codes of one segment's vectors to a file and,
// when asked (SignsTo), their sign bits to a second one.
type CodesWriter struct {
	bw    *bufio.Writer
	q     Quantizer
	row   []int8
	rows  uint32
	err   error
	n     int64
	signs *signsWriter
}

// NewCodesWriter starts a codes file of vectors quantized by q.
func NewCodesWriter(w io.Writer, q Quantizer) *CodesWriter {
	cw := &CodesWriter{bw: bufio.NewWriterSize(w, 1<<20), q: q, row: make([]int8, q.Dim())}
	cw.write([]byte(codesMagic))
	return cw
}

// Rows is the number of vectors written.
func (w *CodesWriter) Rows() int { return int(w.rows) }

func (w *CodesWriter) write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.bw.Write(b)
	w.n += int64(n)
	w.err = err
}

// Add quantizes and writes the next vector.
func (w *CodesWriter) Add(v []float32) error {
	if len(v) != w.q.Dim() {
		return fmt.Errorf("vector of dimension %d, want %d", len(v), w.q.Dim())
	}
	w.q.Encode(v, w.row)
	return w.AddCodes(w.row)
}

// AddCodes writes already-quantized codes (carried from another segment
// of the same space).
func (w *CodesWriter) AddCodes(c []int8) error {
	if len(c) != w.q.Dim() {
		return fmt.Errorf("codes of dimension %d, want %d", len(c), w.q.Dim())
	}
	w.write(unsafe.Slice((*byte)(unsafe.Pointer(&c[0])), len(c)))
	w.rows++
	if w.signs != nil && w.err == nil {
		w.err = w.signs.add(c)
	}
	return w.err
}

// Close writes the footer and flushes the file.
func (w *CodesWriter) Close() (int64, error) {
	f := binary.LittleEndian.AppendUint32(nil, w.rows)
	w.write(binary.LittleEndian.AppendUint32(f, uint32(w.q.Dim())))
	if w.err != nil {
		return w.n, w.err
	}
	if w.signs != nil {
		if err := w.signs.close(); err != nil {
			return w.n, err
		}
	}
	return w.n, w.bw.Flush()
}

// Codes is the codes file of one segment, read in place. It is immutable
// and safe for concurrent use.
type Codes struct {
	rows, dim int
	data      []int8
	// The sign prefilter's bits and the floor they were computed against
	// (signs.go).
	signMu    sync.Mutex
	signFloor []int32
	signBits  []uint64
}

// OpenCodes checks b's layout and returns a reader over it; b must stay
// valid and unchanged while the codes are used.
func OpenCodes(b []byte, dim int) (*Codes, error) {
	if len(b) < codesHeaderSize+codesFooterSize || string(b[:8]) != codesMagic {
		return nil, fmt.Errorf("%w: bad magic or short file", ErrCorrupt)
	}
	foot := b[len(b)-codesFooterSize:]
	rows := int(binary.LittleEndian.Uint32(foot))
	if d := int(binary.LittleEndian.Uint32(foot[4:])); d != dim {
		return nil, fmt.Errorf("%w: dimension %d, want %d", ErrCorrupt, d, dim)
	}
	if len(b) != codesHeaderSize+rows*dim+codesFooterSize {
		return nil, fmt.Errorf("%w: size %d for %d rows of %d", ErrCorrupt, len(b), rows, dim)
	}
	c := &Codes{rows: rows, dim: dim}
	if rows > 0 {
		body := b[codesHeaderSize : len(b)-codesFooterSize]
		c.data = unsafe.Slice((*int8)(unsafe.Pointer(&body[0])), len(body))
	}
	return c, nil
}

// Len is the number of rows.
func (c *Codes) Len() int { return c.rows }

// Row returns row i's codes (do not modify).
func (c *Codes) Row(i int) []int8 { return c.data[i*c.dim : (i+1)*c.dim : (i+1)*c.dim] }
