package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/zeebo/xxh3"
)

// A jsonl source also reads JSON documents: records exported as one JSON
// array (pretty-printed, as most tools write it), or one pretty-printed
// object. Such a file is not a sequence of lines: its records are the
// array's elements, each read as a line of a JSONL file is. It cannot be
// appended to, so it is read whole every time it changes (documentState).

// documentState is the Cursor.State after a JSON document: a read on
// from it is refused (newLineHandler), which makes the caller read the
// file again whole, as for a JSONL file rewritten before its cursor.
var documentState = json.RawMessage(`{"document":true}`)

// errDocumentCursor is newLineHandler's word that a cursor is after a
// JSON document, which is read whole.
var errDocumentCursor = errors.New("a JSON document (an array of records) is read whole, never on from a cursor")

// isDocumentHead reports whether a jsonl source file that starts with
// head (its first sniffBytes) may be a JSON document
// rather than JSON lines: its first byte that is not blank opens an array,
// or opens an object on a first line that is not JSON on its own (a
// pretty printer puts "{" alone there). A first line too long to see
// whole in head is a line. readDocument confirms an object.
func isDocumentHead(head []byte) bool {
	rest := bytes.TrimLeft(bytes.TrimPrefix(head, utf8BOM), jsonSpace)
	if len(rest) == 0 {
		return false
	}
	switch rest[0] {
	case '[':
		return true
	case '{':
		end := bytes.IndexByte(rest, '\n')
		if end < 0 {
			return false // one line, or a first line longer than head: JSONL
		}
		return !json.Valid(bytes.TrimSpace(rest[:end]))
	}
	return false
}

// docReader is the reader under a JSON document's decoder: it hashes
// every byte (the cursor's Prefix), keeps where the lines end between
// the last value asked about and what the decoder read ahead (never the
// whole file's), and refuses to read more than maxLineBytes past the
// start of the value being decoded, so that one value, not the file,
// bounds the memory a read takes.
type docReader struct {
	r   io.Reader
	sum *xxh3.Hasher
	// off is how many bytes were read.
	off int64
	// newlines are the offsets of the line endings read at or after
	// base; lines counts those before it.
	newlines []int64
	lines    int
	// total counts every line ending read; last is the last byte read.
	total int
	last  byte
	// mark is where the value being decoded starts (at the latest).
	mark  int64
	guard bool
}

// errValueTooLong stops the decoder of a value longer than maxLineBytes.
var errValueTooLong = fmt.Errorf("longer than %d bytes", maxLineBytes)

func (d *docReader) Read(p []byte) (int, error) {
	if d.guard {
		// One byte past the bound: a value that long never completes.
		room := d.mark + maxLineBytes + 1 - d.off
		if room <= 0 {
			return 0, errValueTooLong
		}
		if int64(len(p)) > room {
			p = p[:room]
		}
	}
	n, err := d.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			d.newlines = append(d.newlines, d.off+int64(i))
			d.total++
		}
	}
	if n > 0 {
		_, _ = d.sum.Write(p[:n])
		d.last = p[n-1]
	}
	d.off += int64(n)
	return n, err
}

// line returns the 1-based line of the byte at offset at, which must not
// be before an offset asked about before: the line endings before it are
// counted and let go.
func (d *docReader) line(at int64) int {
	i := 0
	for i < len(d.newlines) && d.newlines[i] < at {
		i++
	}
	d.lines += i
	d.newlines = append(d.newlines[:0], d.newlines[i:]...)
	return d.lines + 1
}

// lineCount is the number of lines read, as CountLines counts them.
func (d *docReader) lineCount() int {
	if d.off > 0 && d.last != '\n' {
		return d.total + 1
	}
	return d.total
}

// readDocument reads file as a JSON document when it is one (see
// isDocumentHead): every element of a top-level array, and every
// top-level object, is a record read as h reads a line, at the line it
// starts on. ok is false for a file that is JSON lines after all (its
// first value does not decode, or ends on its first line): nothing was
// read from it, and it is read as lines. The cursor returned covers the
// whole file (Offset, and Line as CountLines counts); sum is the hash of
// every byte, its Prefix. ReadFilePiece gives it documentState.
//
// The file is streamed (encoding/json's Decoder, Token and More): only
// the value being decoded is held, and a value longer than maxLineBytes
// is reported, with the rest of the file, as a line that long is. What
// does not decode (a syntax error, an array cut short by a write in
// progress) is reported with where it is; the records before it stand,
// and the file is read again whole once it changes.
func (h jsonlHandler) readDocument(file *os.File) (cur Cursor, sum *xxh3.Hasher, ok bool, err error) {
	head := make([]byte, sniffBytes)
	n, err := file.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return Cursor{}, nil, false, err
	}
	head = head[:n]
	if utf16Text(head) || binaryContent(string(withoutNULRuns(head))) || !isDocumentHead(head) {
		return Cursor{}, nil, false, nil // readLines reports what it is
	}
	bom := int64(0)
	if bytes.HasPrefix(head, utf8BOM) {
		bom = int64(len(utf8BOM))
	}
	d := &docReader{r: io.NewSectionReader(file, 0, 1<<62), sum: xxh3.New()}
	// The decoder does not take a byte-order mark: it reads after it, and
	// its offsets are bom short of the file's.
	if _, err := io.CopyN(io.Discard, d, bom); err != nil {
		return Cursor{}, nil, false, err
	}
	d.mark, d.guard = bom, true
	dec := json.NewDecoder(d)
	// value decodes the next value, which starts at or after d.mark, and
	// returns it with the line it starts on.
	value := func() (json.RawMessage, int, error) {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			// The line of what does not decode: where it starts, after
			// the comma before it.
			start, serr := valueStart(file, d.mark)
			if serr != nil {
				return nil, 0, serr
			}
			return nil, d.line(start), err
		}
		end := bom + dec.InputOffset()
		line := d.line(end - int64(len(raw)))
		d.mark = end
		return raw, line, nil
	}
	first := true
	for n := 0; ; n++ {
		if n%256 == 0 {
			if err := h.fc.ctx.Err(); err != nil {
				return Cursor{}, nil, false, err
			}
		}
		if !dec.More() {
			break
		}
		at := bom + dec.InputOffset()
		var open [1]byte
		if _, err := file.ReadAt(open[:], at); err != nil {
			return Cursor{}, nil, false, err
		}
		key := ""
		if open[0] == '{' && first {
			if key, err = recordsKey(h.fc.ctx, file, at, h.fc.loc); err != nil {
				return Cursor{}, nil, false, err
			}
		}
		if key != "" {
			first = false
			if err := h.readWrapper(dec, d, value, key); err != nil {
				if !errors.Is(err, errDocumentStop) {
					return Cursor{}, nil, false, err
				}
				break
			}
			continue
		}
		if open[0] == '[' {
			first = false
			if err := h.readArray(dec, d, value, ""); err != nil {
				if !errors.Is(err, errDocumentStop) {
					return Cursor{}, nil, false, err
				}
				break
			}
			continue
		}
		raw, line, err := value()
		if err != nil && !inDocument(err) {
			return Cursor{}, nil, false, err
		}
		if first && (err != nil || bytes.IndexByte(raw, '\n') < 0) {
			return Cursor{}, nil, false, nil // JSON lines, or none at all
		}
		first = false
		if err != nil {
			h.fc.problem(line, documentProblem("", err))
			break
		}
		if err := h.value(line, raw, ""); err != nil {
			return Cursor{}, nil, false, err
		}
	}
	// The rest of a file whose reading stopped is hashed and counted, so
	// that the cursor covers the whole file.
	d.guard = false
	if _, err := io.Copy(io.Discard, d); err != nil {
		return Cursor{}, nil, false, err
	}
	return Cursor{Offset: d.off, Line: d.lineCount()}, d.sum, true, nil
}

// valueStart returns the offset of the first byte at or after from that
// is neither JSON white space nor a comma: where the next value starts.
func valueStart(file *os.File, from int64) (int64, error) {
	buf := make([]byte, 4096)
	for {
		n, err := file.ReadAt(buf, from)
		for i, c := range buf[:n] {
			if c != ',' && bytes.IndexByte([]byte(jsonSpace), c) < 0 {
				return from + int64(i), nil
			}
		}
		from += int64(n)
		if errors.Is(err, io.EOF) {
			return from, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// errDocumentStop is readArray's word that the document cannot be read
// on (what went wrong is reported).
var errDocumentStop = errors.New("the document stops here")

// readArray reads the elements of the array whose "[" is the decoder's
// next token; in names it in a problem (a wrapper's key, see readWrapper).
func (h jsonlHandler) readArray(dec *json.Decoder, d *docReader, value func() (json.RawMessage, int, error), in string) error {
	if _, err := dec.Token(); err != nil {
		return h.stop(d, "", err)
	}
	for i := 0; dec.More(); i++ {
		if i%256 == 255 {
			if err := h.fc.ctx.Err(); err != nil {
				return err
			}
		}
		where := fmt.Sprintf("%selement [%d]: ", in, i)
		raw, line, err := value()
		if err != nil && !inDocument(err) {
			return err
		}
		if err != nil {
			h.fc.problem(line, documentProblem(where, err))
			return errDocumentStop
		}
		if err := h.value(line, raw, where); err != nil {
			return err
		}
	}
	// The closing bracket, or what stands in its place.
	if _, err := dec.Token(); err != nil {
		return h.stop(d, "", err)
	}
	return nil
}

// stop reports err, what stopped the reading of a document after the
// last value read, as errDocumentStop; an error of the file itself is
// returned as it is.
func (h jsonlHandler) stop(d *docReader, where string, err error) error {
	if !inDocument(err) {
		return err
	}
	h.fc.problem(d.line(d.mark), documentProblem(where, err))
	return errDocumentStop
}

// inDocument reports whether err is the document's (it is not valid
// JSON, ends too soon, or holds a value too long) rather than the file's
// (a read that failed), which stops the read.
func inDocument(err error) bool {
	var syn *json.SyntaxError
	return errors.As(err, &syn) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, errValueTooLong)
}

// value reads one value of a document as a line of a JSONL file: a
// value that is not an object is reported, as such a line is.
func (h jsonlHandler) value(line int, raw []byte, where string) error {
	err := h.record(line, raw, where)
	var bad *notJSONError
	if errors.As(err, &bad) {
		h.fc.problem(line, where+bad.reason)
		return nil
	}
	return err
}

// documentProblem says what stopped the reading of a document.
func documentProblem(where string, err error) string {
	switch {
	case errors.Is(err, errValueTooLong):
		return where + fmt.Sprintf("a value longer than %d bytes: the rest of the file is skipped", maxLineBytes)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return where + "the JSON document ends before it is complete (a write in progress, or cut short): the rest is read once it is"
	}
	return where + "not valid JSON, the rest of the file is skipped: " + trimErr(err)
}

// readWrapper reads the object whose "{" is the decoder's next token as
// the wrapper of the records in its array under key (recordsKey): that
// array's elements are records, its other values are skipped.
func (h jsonlHandler) readWrapper(dec *json.Decoder, d *docReader, value func() (json.RawMessage, int, error), key string) error {
	if _, err := dec.Token(); err != nil {
		return h.stop(d, "", err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return h.stop(d, "", err)
		}
		if name, _ := tok.(string); name == key {
			if err := h.readArray(dec, d, value, fmt.Sprintf("%q ", key)); err != nil {
				return err
			}
			continue
		}
		// Another value (Day One's metadata): held no longer than its
		// decoding, as a record is.
		if _, _, err := value(); err != nil {
			if !inDocument(err) {
				return err
			}
			return h.stop(d, "", err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return h.stop(d, "", err)
	}
	return nil
}

// recordsKey returns the key of the array of records in the object that
// starts at offset at of file, when the object is plainly their wrapper
// (as Day One's Journal.json, {"metadata": {...}, "entries": [...]}): one
// of its keys, and one only, holds an array of objects, the first of
// which reads as a record (parseJSONLLine, loc), and none of the object's
// own keys is a record's field. Otherwise the wrapper is ambiguous (its
// "tags" may be its records', or it may be a record with a list of its
// own): key is "", and the object is read as a record, whose problem
// says where the records are (wrappedOr). Only the object's keys and its
// arrays' first elements are held, none longer than maxLineBytes (a
// longer one is left to the reading to report); err is the file's, or
// ctx's.
func recordsKey(ctx context.Context, file *os.File, at int64, loc *time.Location) (key string, err error) {
	r := &boundedReader{r: io.NewSectionReader(file, at, 1<<62)}
	dec := json.NewDecoder(r)
	// token reads the next token, which may be as long as maxLineBytes.
	n := 0
	token := func() (json.Token, error) {
		if n++; n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		r.mark = dec.InputOffset()
		return dec.Token()
	}
	if _, err := token(); err != nil {
		return "", fileErr(err)
	}
	for dec.More() {
		tok, err := token()
		if err != nil {
			return "", fileErr(err)
		}
		name, _ := tok.(string)
		if recordFields[name] {
			return "", nil
		}
		tok, err = token()
		if err != nil {
			return "", fileErr(err)
		}
		delim, _ := tok.(json.Delim)
		if delim != '[' && delim != '{' {
			continue // a string, a number: read whole by Token
		}
		if delim == '[' && dec.More() {
			var elem json.RawMessage
			r.mark = dec.InputOffset()
			if err := dec.Decode(&elem); err != nil {
				return "", fileErr(err)
			}
			if bytes.HasPrefix(elem, []byte("{")) {
				if key != "" {
					return "", nil // two arrays of objects: which is the export's word
				}
				// A note in the trash, or of photos alone, is a record too.
				_, reason, err := parseJSONLLine(elem, loc)
				if err != nil && !errors.Is(err, errTrashed) && !errors.Is(err, errNoWords) || reason != "" {
					return "", nil
				}
				key = name
			}
		}
		// The rest of the value, to its closing bracket.
		for depth := 1; depth > 0; {
			tok, err := token()
			if errors.Is(err, errValueTooLong) && key != "" {
				// A record too long to read (the reading reports it) after
				// the first: the records are where they were found.
				return key, nil
			}
			if err != nil {
				return "", fileErr(err)
			}
			switch tok {
			case json.Delim('['), json.Delim('{'):
				depth++
			case json.Delim(']'), json.Delim('}'):
				depth--
			}
		}
	}
	return key, nil
}

// boundedReader refuses to read more than maxLineBytes past mark, where
// the value being decoded starts, as docReader does.
type boundedReader struct {
	r         io.Reader
	off, mark int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	room := b.mark + maxLineBytes + 1 - b.off
	if room <= 0 {
		return 0, errValueTooLong
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.r.Read(p)
	b.off += int64(n)
	return n, err
}

// fileErr is recordsKey's error: the file's own (a read that failed),
// or nil for a document that is not valid JSON, which its reading
// reports.
func fileErr(err error) error {
	if inDocument(err) {
		return nil
	}
	return err
}
