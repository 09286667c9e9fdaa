package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"unicode/utf8"

	"github.com/zeebo/xxh3"

	"github.com/nova-recall/nova/config"
)

const (
	// inlineLineBytes is the longest line handed to a reader as it is.
	// A longer line (a Claude Code message with a pasted 13 MB image) is
	// streamed through a shrinker instead, so it is never held whole.
	inlineLineBytes = 1 << 20
	// maxLineBytes bounds one line once its binary payloads are replaced;
	// a line still longer is reported and skipped.
	maxLineBytes = 16 << 20
	// binaryStringBytes is the length from which a JSON string of a
	// streamed line that is all base64 (or a base64 data URL) is replaced
	// by binaryMark. Shorter strings stay; StripBinary handles them.
	binaryStringBytes = 64 << 10
	// lineBufferBytes is the read buffer of a line scanner.
	lineBufferBytes = 64 << 10
	// cutReserveBytes is the room a cutting shrinker leaves below
	// maxLineBytes for what follows the string it cuts (the line's other
	// fields).
	cutReserveBytes = 1 << 20
)

// rawLine is one line of a line file.
type rawLine struct {
	// data is the line without its line ending, with binary payloads
	// replaced when the line was longer than inlineLineBytes. It is only
	// valid until the next call of next.
	data []byte
	// size is the number of bytes the line takes in the file, line ending
	// included.
	size int64
	// terminated is false for a last line without a line ending.
	terminated bool
	// tooLong is true when the line is longer than maxLineBytes even with
	// its binary payloads replaced; data is then empty.
	tooLong bool
}

// lineScanner splits a stream into lines of any length in bounded
// memory: at most inlineLineBytes of a raw line, the shrunk line and the
// read buffer are held.
type lineScanner struct {
	br  *bufio.Reader
	buf []byte
	sh  shrinker
	// cut, when set, has the shrinker cut long strings rather than
	// refuse a line too long (see shrinker.cut).
	cut bool
	// sum, when set, gets the raw bytes of every line returned. mark is
	// its state before the last line when that line has no line ending
	// (the caller may leave it for the next read: see unread); only then,
	// or for a line too long to hold, is the state copied.
	sum    *xxh3.Hasher
	mark   xxh3.Hasher
	marked bool
}

func newLineScanner(r io.Reader) *lineScanner {
	return &lineScanner{br: bufio.NewReaderSize(r, lineBufferBytes)}
}

// lines returns a scanner of r, a file of fc's source or another file of
// the same kind (a transcript a duplicate check reads): every scanner of
// a kind treats a line too long alike, so a line one of them keeps is not
// lost to another. An agent's line too long is read with its longest
// text cut; a record of the user's own (the jsonl kind) is refused whole
// (see shrinker.cutAt).
func (fc *fileCtx) lines(r io.Reader) *lineScanner {
	sc := newLineScanner(r)
	sc.cut = fc.src.Kind != config.KindJSONL
	return sc
}

// next returns the next line, or io.EOF when there is none.
func (s *lineScanner) next() (rawLine, error) {
	s.buf = s.buf[:0]
	s.marked = false
	var l rawLine
	streaming := false
	for {
		chunk, err := s.br.ReadSlice('\n')
		l.size += int64(len(chunk))
		switch {
		case streaming:
			s.sh.write(chunk)
			s.hash(chunk)
		case len(s.buf)+len(chunk) > inlineLineBytes:
			streaming = true
			s.sh.reset()
			if s.cut {
				s.sh.cutAt = maxLineBytes - cutReserveBytes
			}
			s.sh.write(s.buf)
			s.sh.write(chunk)
			if s.sum != nil {
				s.mark = *s.sum
			}
			s.hash(s.buf)
			s.hash(chunk)
		default:
			s.buf = append(s.buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return rawLine{}, err
		}
		if l.size == 0 {
			return rawLine{}, io.EOF
		}
		l.terminated = err == nil
		break
	}
	switch {
	case streaming:
		s.marked = !l.terminated
	case !l.terminated && s.sum != nil:
		s.mark, s.marked = *s.sum, true
		s.hash(s.buf)
	default:
		s.hash(s.buf)
	}
	l.data = s.buf
	if streaming {
		l.data, l.tooLong = s.sh.finish()
	}
	l.data = bytes.TrimRight(l.data, "\r\n")
	return l, nil
}

func (s *lineScanner) hash(b []byte) {
	if s.sum != nil {
		_, _ = s.sum.Write(b)
	}
}

// unread takes the last line, one without a line ending that the caller
// leaves for the next read, back out of sum.
func (s *lineScanner) unread() {
	if s.marked && s.sum != nil {
		*s.sum = s.mark
	}
	s.marked = false
}

// shrinker copies a JSON text while replacing every string value longer
// than binaryStringBytes that is base64 (a pasted image, an attachment)
// with binaryMark. It decides on a string from its first
// binaryStringBytes bytes, so it never holds a whole payload, and it
// stops copying (and reports it) past maxLineBytes of output.
type shrinker struct {
	out []byte
	// str holds the start of the current string while it is undecided.
	str  []byte
	mode shrinkMode
	// esc is set after a backslash inside a string; hex counts the
	// digits of a \u escape still to come, u is its value so far, and
	// pair is set after one that is the first half of a surrogate pair
	// (the second must not be cut off).
	esc  bool
	hex  int
	u    rune
	pair bool
	// over is set once out would pass maxLineBytes.
	over bool
	// nul is set when out ends in a NUL byte outside a string: a run of
	// them (a crash's padding, see splitNULPadding) is copied as one, so
	// that padding longer than a line may be does not cost the record
	// appended after it.
	nul bool
	// cutAt, when not 0, cuts a string of at least binaryStringBytes
	// that reaches cutAt bytes of output there, at a character, ending
	// it with cutMark, so that the rest of the line is read: an agent's
	// line (a pasted build log, a tool result holding one) is memory
	// without the end of its longest text. A record of the user's own
	// (the jsonl kind) is refused whole instead: cut, it would say less
	// than it does, and nothing would tell.
	cutAt int
	// safe is the length of out at the last character boundary of the
	// kept string being copied: where it may be cut.
	safe int
	// gap is the length of out after the last white space of the kept
	// string (a space, or an escaped line break or tab): the cut is made
	// there, so that it drops the word it falls in whole. Cut inside a
	// secret (ghp_ and 28 of its 36 characters), the word is no longer one
	// redaction knows, and what is left of it still tells most of it.
	gap int
}

type shrinkMode int

const (
	outsideString shrinkMode = iota
	undecidedString
	keptString
	droppedString
	// cutString is a kept string cut short: the rest of it is skipped.
	cutString
)

func (s *shrinker) reset() {
	s.out, s.str = s.out[:0], s.str[:0]
	s.mode, s.esc, s.hex, s.pair, s.over, s.nul, s.cutAt, s.safe, s.gap = outsideString, false, 0, false, false, false, 0, 0, 0
}

func (s *shrinker) emit(b ...byte) {
	if s.over {
		return
	}
	if len(s.out)+len(b) > maxLineBytes {
		s.over = true
		return
	}
	if need := len(s.out) + len(b); need > cap(s.out) {
		// Doubled, not append's quarter at a time once large: a line of
		// 16 MiB would cost five times its length in copies.
		s.out = slices.Grow(s.out, min(max(2*cap(s.out), need), maxLineBytes)-len(s.out))
	}
	s.out = append(s.out, b...)
}

// plainRun is the length of the run of bytes at the start of p that are
// neither a quote nor a backslash: inside a string, bytes that change no
// state but the character boundary.
func plainRun(p []byte) int {
	for i, c := range p {
		if c == '"' || c == '\\' {
			return i
		}
	}
	return len(p)
}

// copyRun copies, or skips, the run of plain bytes of a kept, cut or
// dropped string at the start of p in one step, and returns its length
// (0 when p does not start with one, or the string is between the halves
// of an escape or a surrogate pair).
func (s *shrinker) copyRun(p []byte) int {
	if s.esc || s.hex > 0 || s.pair {
		return 0
	}
	n := plainRun(p)
	if s.mode != keptString {
		return n
	}
	if s.cutAt > 0 && !s.over {
		// Up to the cut at most: the byte there is decided one at a time.
		n = min(n, s.cutAt-len(s.out))
	}
	if n <= 0 {
		return 0
	}
	for i := n - 1; i >= 0; i-- {
		if utf8.RuneStart(p[i]) {
			s.safe = len(s.out) + i
			break
		}
	}
	s.emit(p[:n]...)
	return n
}

func (s *shrinker) write(p []byte) {
	for i := 0; i < len(p); i++ {
		if s.mode == keptString || s.mode == cutString || s.mode == droppedString {
			if n := s.copyRun(p[i:]); n > 0 {
				i += n - 1
				continue
			}
		}
		c := p[i]
		if s.mode == outsideString {
			if c == '"' {
				s.mode, s.str, s.esc, s.hex, s.pair = undecidedString, s.str[:0], false, 0, false
				s.nul = false
				continue
			}
			if c == 0 && s.nul {
				continue
			}
			s.nul = c == 0
			s.emit(c)
			continue
		}
		// end: c closes the string; space: c ends a white space
		// character (see gap).
		end, space := false, false
		// boundary: c starts a character of the string (not the rest of
		// an escape or of a UTF-8 sequence).
		boundary := !s.esc && s.hex == 0 && !s.pair && utf8.RuneStart(c)
		if !s.esc && s.hex == 0 && s.pair {
			s.pair = false // c starts the second half
		}
		switch {
		case s.hex > 0:
			s.hex--
			s.u = s.u<<4 | hexValue(c)
			if s.hex == 0 {
				s.pair = s.u >= 0xD800 && s.u < 0xDC00
			}
		case s.esc:
			s.esc = false
			if c == 'u' {
				s.hex, s.u = 4, 0
			}
			space = c == 'n' || c == 'r' || c == 't'
		case c == '\\':
			s.esc = true
		case c == '"':
			end = true
		case c == ' ':
			space = true
		}
		switch s.mode {
		case undecidedString:
			if end {
				s.emit('"')
				s.emit(s.str...)
				s.emit('"')
				s.mode = outsideString
				continue
			}
			s.str = append(s.str, c)
			if len(s.str) >= binaryStringBytes {
				if base64Payload(s.str) {
					s.emit('"')
					s.emit([]byte(binaryMark)...)
					s.mode = droppedString
				} else {
					s.emit('"')
					// Cut here at the latest: where str ends may be
					// inside a character.
					s.safe = len(s.out)
					// A space is one byte of its own in JSON, never
					// inside an escape or a character.
					s.gap = s.safe + bytes.LastIndexByte(s.str, ' ') + 1
					s.emit(s.str...)
					s.mode = keptString
				}
				s.str = s.str[:0]
			}
		case keptString:
			if end {
				s.emit(c)
				s.mode = outsideString
				break
			}
			if boundary {
				s.safe = len(s.out)
			}
			if s.cutAt > 0 && !s.over && len(s.out) >= s.cutAt {
				s.out = append(s.out[:min(s.safe, s.gap)], cutMark...)
				s.mode = cutString
				break
			}
			s.emit(c)
			if space && !s.over {
				s.gap = len(s.out)
			}
		case cutString:
			if end {
				s.emit('"')
				s.mode = outsideString
			}
		case droppedString:
			if end {
				s.emit('"')
				s.mode = outsideString
			}
		}
	}
}

// hexValue is the value of the hexadecimal digit c (0 for another byte,
// which valid JSON has not there).
func hexValue(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10
	}
	return 0
}

// finish returns the shrunk text and whether it was cut at maxLineBytes.
func (s *shrinker) finish() ([]byte, bool) {
	if s.mode == undecidedString {
		// An unterminated string (a torn line): keep what was read so the
		// reader reports the line as it is.
		s.emit('"')
		s.emit(s.str...)
	}
	if s.over {
		return nil, true
	}
	return s.out, false
}

// base64Payload reports whether the start of a JSON string is an encoded
// payload: base64 or base64url characters (JSON may escape "/" and wrap
// lines with "\n"), optionally after a data URL prefix.
func base64Payload(b []byte) bool {
	if bytes.HasPrefix(b, []byte("data:")) {
		i := bytes.Index(b, []byte(";base64,"))
		if i < 0 || i > 200 {
			return false
		}
		b = b[i+len(";base64,"):]
	}
	for _, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
			c == '+' || c == '/' || c == '=' || c == '_' || c == '-' || c == '\\') {
			return false
		}
	}
	return true
}

// splitNULPadding returns what a line holds after the NUL bytes a crash
// can leave in an appended file: a file extended before its data reached
// the disk reads as NUL bytes there, and the writer's next append follows
// them on the same line. line is the last part of the line between runs
// of NUL bytes that is not blank; nuls is whether there were any, and cut
// whether an earlier part (a line the padding cut short) was dropped.
func splitNULPadding(b []byte) (line []byte, nuls, cut bool) {
	if bytes.IndexByte(b, 0) < 0 {
		return b, false, false
	}
	// Part by part, not bytes.Split: that makes a slice for each NUL
	// byte, and a file a crash left preallocated is millions of them.
	for rest := b; ; {
		i := bytes.IndexByte(rest, 0)
		part := rest
		if i >= 0 {
			part = rest[:i]
		}
		if part = bytes.TrimSpace(part); len(part) > 0 {
			cut = cut || line != nil
			line = part
		}
		if i < 0 {
			return line, true, cut
		}
		rest = rest[i+1:]
	}
}

// notJSONError is a line handler's word that a line is not JSON at all.
// readLines then looks for a record a crash joined to it (see
// tornRecord) before it reports the line.
type notJSONError struct{ reason string }

func (e *notJSONError) Error() string { return e.reason }

func notJSON(err error) error { return &notJSONError{"not a JSON object: " + trimErr(err)} }

// undecodedLine handles line n (data), which did not decode into a
// reader's line type (err): one that is not JSON is notJSON's error; a
// JSON object whose fields are of other types is a problem of the file,
// and reading goes on.
func undecodedLine(fc *fileCtx, n int, data []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) || !json.Valid(data) {
		return notJSON(err)
	}
	fc.problem(n, "unexpected line: "+trimErr(err))
	return nil
}

// tornRecord returns the record at the end of a line that is not JSON: a
// writer killed in the middle of a line leaves its start without a line
// ending, and its next append (the same agent resumed) follows on the
// same line. The record is the longest tail from a '{"' on that is valid
// JSON. Only the first few candidates are tried: a line that is not JSON
// for another reason must not cost a pass over it per brace.
func tornRecord(line []byte) ([]byte, bool) {
	const candidates = 16
	at := 0
	for range candidates {
		i := bytes.Index(line[at+1:], []byte(`{"`))
		if i < 0 {
			return nil, false
		}
		at += 1 + i
		if json.Valid(line[at:]) {
			return line[at:], true
		}
	}
	return nil, false
}

// withoutNULRuns is b without its runs of two or more NUL bytes (the
// padding of an interrupted write, see splitNULPadding), for telling text
// from binary: a file of JSON lines is text whatever padding a crash left
// in it, while a NUL on its own (UTF-16, an executable) still makes a file
// binary.
func withoutNULRuns(b []byte) []byte {
	if !bytes.Contains(b, []byte{0, 0}) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == 0 && (i+1 < len(b) && b[i+1] == 0 || i > 0 && b[i-1] == 0) {
			continue
		}
		out = append(out, b[i])
	}
	return out
}
