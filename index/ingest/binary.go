package ingest

import (
	"bytes"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// sniffBytes is how much of a file is looked at to tell text from binary.
const sniffBytes = 8 << 10

// maxControlPercent is the share of bytes that may be invalid UTF-8 or
// control characters in text: a few stray Latin-1 bytes or escape codes
// are text, an executable or an image is not.
const maxControlPercent = 10

// binaryContent reports whether b (the start of a file, or a record's
// text) is binary rather than text: it holds a NUL byte, or more than
// maxControlPercent of it is invalid UTF-8 or control characters other
// than tab, line breaks and form feed. A rune cut at the end of b is not
// counted.
func binaryContent(b string) bool {
	if len(b) == 0 {
		return false
	}
	bad := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c == 0 {
			return true
		}
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') || c == 0x7f {
				bad++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(b[i:])
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRuneInString(b[i:]) {
				break
			}
			bad++
			i++
			continue
		}
		// U+FFFD in decoded JSON text is where a decoder already replaced
		// invalid bytes; C1 controls are as unlikely in text as C0 ones.
		if r == utf8.RuneError || (r >= 0x80 && r < 0xa0) {
			bad++
		}
		i += size
	}
	return bad*100 > len(b)*maxControlPercent
}

// utf16Problem is the problem of a line-based file saved as UTF-16: a
// byte offset into it is no line's start in UTF-8, so it is refused
// with the fix rather than as "binary content".
const utf16Problem = "UTF-16 text, not UTF-8 (Windows PowerShell 5's > and Out-File write it): save it as UTF-8 to index it; skipped"

// utf16Text reports whether head, the start of a file, is UTF-16: it
// begins with a UTF-16 byte-order mark, or one byte of nearly every pair
// is NUL (Latin-script text without a mark) and almost no byte of the
// other is.
func utf16Text(head []byte) bool {
	if bytes.HasPrefix(head, utf16LEBOM) || bytes.HasPrefix(head, utf16BEBOM) {
		return true
	}
	pairs := len(head) / 2
	if pairs < 8 {
		return false
	}
	var zeros [2]int
	for i := range pairs * 2 {
		if head[i] == 0 {
			zeros[i%2]++
		}
	}
	most, few := pairs*9/10, pairs/10
	return (zeros[0] >= most && zeros[1] <= few) || (zeros[1] >= most && zeros[0] <= few)
}

// Byte-order marks: UTF-8's, and UTF-16's in either byte order.
var (
	utf8BOM    = []byte{0xEF, 0xBB, 0xBF}
	utf16LEBOM = []byte{0xFF, 0xFE}
	utf16BEBOM = []byte{0xFE, 0xFF}
)

// replacementChar (U+FFFD) stands in for bytes that are not UTF-8.
var replacementChar = []byte("\uFFFD")

// noteText returns a note's bytes as UTF-8 without a byte-order mark: the
// index and the JSON it serves hold only UTF-8, and a mark before the
// first heading would hide it. A note with a UTF-16 mark (Windows Notepad
// saves them) is decoded from UTF-16. Notes saved by older Windows editors
// are often Windows-1252 ("caf\xe9"): a file that is not UTF-8 and holds
// no multi-byte UTF-8 character at all is decoded as Windows-1252. In a
// file that does hold some (UTF-8 text with a few damaged bytes), the
// invalid bytes become U+FFFD instead: decoding it as Windows-1252 would
// garble every character it got right.
func noteText(b []byte) []byte {
	switch {
	case bytes.HasPrefix(b, utf8BOM):
		b = b[len(utf8BOM):]
	case bytes.HasPrefix(b, utf16LEBOM), bytes.HasPrefix(b, utf16BEBOM):
		// The decoder reads the mark, picks the byte order and drops it.
		if out, err := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Bytes(b); err == nil {
			return bytes.ToValidUTF8(out, replacementChar)
		}
	}
	if utf8.Valid(b) {
		return b
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if size > 1 && r != utf8.RuneError {
			return bytes.ToValidUTF8(b, replacementChar)
		}
		i += size
	}
	out, err := charmap.Windows1252.NewDecoder().Bytes(b)
	if err != nil { // the decoder maps every byte, so this is only a guard
		return bytes.ToValidUTF8(b, replacementChar)
	}
	return out
}
