package lexical

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Normalize applies NFKC (full-width Latin and punctuation become their
// half-width forms, half-width katakana full-width, compatibility forms
// fold), lower case, and traditional to simplified Chinese characters.
// A search normalises the text of every candidate it weighs and a build
// every chunk's, so the text most memory is written in takes shorter
// ways to the same result: ASCII, and Chinese text (normalizeChinese).
func Normalize(s string) string {
	if isASCII(s) {
		// NFKC and the Chinese fold leave ASCII as it is.
		return strings.ToLower(s)
	}
	if n, ok := normalizeChinese(s); ok {
		return n
	}
	return foldHan(strings.ToLower(norm.NFKC.String(s)))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// normalizeChinese is Normalize for text made only of ASCII, CJK
// unified ideographs, the punctuation in nfkcInert and the full-width
// forms of ASCII: NFKC leaves the first three as they are and maps the
// last to ASCII, with no character combining across them (a test checks
// every one against x/text's tables), and the traditional-to-simplified
// fold changes only ideographs (a test checks the others), so it is done
// in the same pass. The general algorithm looks every character up in
// those tables, most of a Chinese search's normalising. ok is false for
// text with any other character (or invalid UTF-8).
func normalizeChinese(s string) (string, bool) {
	var b []byte // nil while the text is unchanged
	var han *hanTable
	for i, r := range s {
		out := r
		switch {
		case r < utf8.RuneSelf:
			if 'A' <= r && r <= 'Z' {
				out = r + 'a' - 'A'
			}
		case firstIdeograph <= r && r <= lastIdeograph:
			if han == nil {
				han = simplified()
			}
			out = han.fold(r)
		case nfkcInert(r):
		case firstFullWidth <= r && r <= lastFullWidth:
			out = r - fullWidthOffset
			if 'A' <= out && out <= 'Z' {
				out += 'a' - 'A'
			}
		default:
			return "", false
		}
		if out != r && b == nil {
			b = make([]byte, 0, len(s))
			b = append(b, s[:i]...)
		}
		if b != nil {
			b = utf8.AppendRune(b, out)
		}
	}
	if b == nil {
		return s, true
	}
	return string(b), true
}

// The CJK unified ideographs of the Basic Multilingual Plane, and the
// full-width forms of ASCII's printable characters ("！" to "～"), which
// NFKC maps to "!" to "~".
const (
	firstIdeograph  = 0x4E00
	lastIdeograph   = 0x9FFF
	firstFullWidth  = 0xFF01
	lastFullWidth   = 0xFF5E
	fullWidthOffset = 0xFF01 - '!'
)

// nfkcInert reports the punctuation of Chinese text that NFKC leaves as
// it is: 、。〈〉《》「」『』【】 and the curly quotes and the em dash.
// ("…" and the ideographic space are not: NFKC maps them to "..." and
// " ".)
func nfkcInert(r rune) bool {
	switch {
	case r == 0x3001 || r == 0x3002, 0x3008 <= r && r <= 0x3011:
		return true
	case r == 0x2014, 0x2018 <= r && r <= 0x2019, 0x201C <= r && r <= 0x201D:
		return true
	}
	return false
}
