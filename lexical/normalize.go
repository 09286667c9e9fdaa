package lexical

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Normalize applies NFKC (full-width Latin and punctuation become their
// half-width forms, half-width katakana full-width, compatibility forms
// fold), lower case, traditional to simplified Chinese characters and
// Latin and Greek letters with diacritics to their base letters
// (foldLetter), and drops the invisible characters a word reads through
// (ignorable) and the marks its script may leave out (optionalMark).
// A search normalises the text of every candidate it weighs and a build
// every chunk's, so the text most memory is written in takes a shorter
// way to the same result: ASCII and Chinese text are normalised in one
// pass, without allocating when they are already normalised
// (normalizeShort).
func Normalize(s string) string {
	if n, ok := normalizeShort(s); ok {
		return n
	}
	return normalizeGeneral(s)
}

// normalizeGeneral is the whole algorithm, for text normalizeShort
// refuses: after NFKC, one walk that drops what a word reads through and
// the marks its script may leave out, lower-cases, folds traditional
// characters to simplified ones and letters with diacritics to their
// base letters (the reference test and FuzzNormalizeSame check it against
// a walk for each).
func normalizeGeneral(s string) string {
	if !utf8.ValidString(s) {
		// Each invalid byte becomes U+FFFD first, as the walk below would
		// read it: NFKC passes an invalid byte through but, at the end of
		// the text, leaves the character after it unnormalised, so a
		// prefix normalised alone differed from the same bytes in the
		// whole (FuzzNormalizeCamel: "\xf3\u00a0" kept its no-break space).
		s = string([]rune(s))
	}
	s = norm.NFKC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	var folds *letterFoldTable
	for _, r := range s {
		if ignorable(r) || optionalMark(r) {
			continue
		}
		r = unicode.ToLower(r)
		switch {
		case r >= 0x3400 && unicode.Is(unicode.Han, r):
			// The fold changes only Han ideographs (TestFoldChangesOnlyHan),
			// so its table, decompressed on first use, is loaded only for
			// text that has one.
			r = simplified().fold(r)
		case r >= firstFolded:
			if folds == nil {
				folds = letterFolds() // once per call, and only for text that needs it
			}
			if f := folds.fold(r); f != "" {
				b.WriteString(f)
				continue
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isCombiningDiacritic reports whether r is one of the combining
// diacritical marks (U+0300 to U+036F) that Latin, Greek and Cyrillic
// letters take.
func isCombiningDiacritic(r rune) bool { return 0x300 <= r && r <= 0x36F }

// optionalMark reports whether r is a mark that its script's writers put
// in or leave out as they please, so a word is searched without it: a
// combining diacritical mark (after NFKC one is left only where it
// composed with no letter: a stress mark on a Cyrillic vowel), Hebrew's
// vowel points and cantillation, Arabic's short vowels, Quranic marks
// and tatweel (the stretch of a justified line). A memory that wrote
// كَتَبَ was not found by كتب.
func optionalMark(r rune) bool {
	switch {
	case r < 0x300:
		return false
	case r <= 0x36F:
		return true
	case r < 0x591 || r > 0x6ED:
		return false
	case r == 0x640:
		return true
	}
	return (r <= 0x5C7 || 0x610 <= r && r <= 0x61A || 0x64B <= r && r <= 0x65F || r == 0x670 || 0x6D6 <= r) &&
		unicode.Is(unicode.Mn, r)
}

// foldLetter returns the base letter of a lower-case Latin or Greek
// letter with diacritics (é e, ñ n, ệ e, ά α, ᾅ α), the usual ASCII
// spelling of a Latin letter of its own (ß ss, æ ae, ø o, ı i), σ for
// final ς and е for ё, or "" for any other character: people type the
// base letters (and Greek capitals are written without accents), and a
// memory that wrote café or résumé was not found by "cafe" or "resume",
// nor ΑΘΗΝΑ by Αθήνα.
func foldLetter(r rune) string { return letterFolds().fold(r) }

// fold is foldLetter with the table at hand.
func (t *letterFoldTable) fold(r rune) string {
	switch {
	case r < firstFolded:
	case r < firstFolded+rune(len(t.basic)):
		return t.basic[r-firstFolded]
	case firstFoldedExtended <= r && r < firstFoldedExtended+rune(len(t.extended)):
		return t.extended[r-firstFoldedExtended]
	}
	return ""
}

// The letters foldLetter folds lie in two blocks: from Latin-1's À to the
// end of Cyrillic's first letters (Latin Extended-A and -B, Greek, ё),
// and Latin Extended Additional with Greek Extended (Vietnamese,
// polytonic Greek).
const (
	firstFolded         = 0xC0
	firstFoldedExtended = 0x1E00
)

// letterFolds is foldLetter's table: a letter whose canonical
// decomposition is a Latin or Greek letter and combining diacritical
// marks folds to that letter (lower case, and folded by ownLetters);
// ownLetters fold as they say. Other scripts keep their letters with
// marks: й is not и, ї not і. It is built on first use (about 1,400
// decompositions, most of the package's start-up cost), so text without
// such letters never pays for it.
var letterFolds = sync.OnceValue(func() *letterFoldTable {
	t := new(letterFoldTable)
	fold := func(r rune) string {
		if f, ok := ownLetters[r]; ok {
			return f
		}
		d := []rune(norm.NFD.String(string(r)))
		if len(d) == 1 || slices.ContainsFunc(d[1:], func(m rune) bool { return !isCombiningDiacritic(m) }) {
			return ""
		}
		base := unicode.ToLower(d[0])
		if f, ok := ownLetters[base]; ok {
			return f
		}
		if 'a' <= base && base <= 'z' || unicode.Is(unicode.Greek, base) {
			return string(base)
		}
		return ""
	}
	for i := range t.basic {
		t.basic[i] = fold(firstFolded + rune(i))
	}
	for i := range t.extended {
		t.extended[i] = fold(firstFoldedExtended + rune(i))
	}
	return t
})

// letterFoldTable holds letterFolds' two blocks.
type letterFoldTable struct {
	basic    [0x460 - firstFolded]string
	extended [0x200]string
}

// ownLetters are the lower-case letters of their own that are folded to
// others: Latin ones to their usual ASCII spelling, Greek's final sigma,
// and Russian's ё, which is mostly written е.
var ownLetters = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'þ': "th", 'ð': "d", 'ø': "o",
	'đ': "d", 'ħ': "h", 'ı': "i", 'ł': "l", 'ŧ': "t",
	'ς': "σ", 'ё': "е",
}

// normalizeShort is Normalize for text made only of ASCII, CJK unified
// ideographs, the punctuation in nfkcInert and the full-width forms of
// ASCII: NFKC leaves the first three as they are and maps the last to
// ASCII, with no character combining across them (a test checks every
// one against x/text's tables), and the traditional-to-simplified fold
// changes only ideographs (a test checks the others), so all of it is
// done in one pass. The general algorithm looks every character up in
// those tables and walks the text three times. ok is false for text with
// any other character (or invalid UTF-8).
//
// It is Normalize's hot path: the ASCII characters lower-casing leaves
// alone, most of the text memory is written in, are skipped eight bytes
// at a time, and text already normalised (ASCII without capitals,
// simplified Chinese without full-width forms) is returned as it is,
// without allocating. (Before, ASCII text was read three times: a check
// that it was ASCII, and strings.ToLower's own check and copy.)
func normalizeShort(s string) (string, bool) {
	// The output is built from the first change on, not before, so
	// unchanged text costs no allocation, and each unchanged run between
	// two changes (s[pos:i]) is copied in one go.
	var b strings.Builder
	changed, pos := false, 0
	var han *hanTable
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		out := r
		if r < utf8.RuneSelf {
			if r < 'A' || 'Z' < r {
				i = skipLowerASCII(s, i+1)
				continue
			}
			out = r + 'a' - 'A'
		} else {
			// Every character taken below is three bytes long in
			// UTF-8, so only a three-byte sequence is decoded, by hand:
			// utf8.DecodeRuneInString was the pass's largest cost on
			// Chinese text. An overlong or surrogate encoding decodes to
			// no character taken below, and a sequence cut short or of
			// another length is refused: the text takes the general
			// path, as it would with invalid UTF-8.
			if r&0xF0 != 0xE0 || i+2 >= len(s) || s[i+1]&0xC0 != 0x80 || s[i+2]&0xC0 != 0x80 {
				return "", false
			}
			r = (r&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
			size = 3
			switch {
			case firstIdeograph <= r && r <= lastIdeograph:
				if han == nil {
					han = simplified()
				}
				out = han.fold(r)
			case nfkcInert(r):
				out = r
			case firstFullWidth <= r && r <= lastFullWidth:
				out = r - fullWidthOffset
				if 'A' <= out && out <= 'Z' {
					out += 'a' - 'A'
				}
			case r == ellipsis:
				// NFKC spells it "...", in as many bytes. Every
				// neighbour context has it (memory.ContextSeparator),
				// and a search reads the context of its head candidates.
				out = -1 // three dots, written below
			default:
				return "", false
			}
			if out == r {
				i += size
				continue
			}
		}
		if !changed {
			// The output is the input's length or shorter (full-width
			// forms become ASCII), but for the few hundred traditional
			// characters whose simplified form lies beyond the Basic
			// Multilingual Plane (4 bytes for 3): b grows for those.
			b.Grow(len(s))
			changed = true
		}
		b.WriteString(s[pos:i])
		if out < 0 {
			b.WriteString("...")
		} else {
			b.WriteRune(out)
		}
		i += size
		pos = i
	}
	if !changed {
		return s, true
	}
	b.WriteString(s[pos:])
	return b.String(), true
}

// skipLowerASCII returns the index of the first byte of s from i on that
// Normalize may have to change (an ASCII capital, or the first byte of a
// multi-byte character), or len(s). It tests eight bytes at a time: a
// record's text is mostly long runs of ASCII without capitals.
func skipLowerASCII(s string, i int) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080 // each byte's high bit
	)
	for ; i+8 <= len(s); i += 8 {
		// Read in one load (the compiler merges the eight reads).
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		// In each byte of low (below 0x80), adding 0x80-'A' sets the
		// high bit when the byte is 'A' or above, and adding 0x80-'Z'-1
		// when it is above 'Z', without carrying into the next byte:
		// the high bit of upper is set for the bytes 'A' to 'Z'.
		low := x &^ highs
		upper := (low + (0x80-'A')*ones) &^ (low + (0x80-'Z'-1)*ones)
		if (x|upper)&highs != 0 {
			break // one of these eight; the loop below finds which
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return i
		}
	}
	return len(s)
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
	// ellipsis is the horizontal ellipsis, "…".
	ellipsis = 0x2026
)

// ignorable reports whether r is an invisible character that Unicode's
// word boundaries (UAX #29) look through: a format character (a soft
// hyphen, the zero-width joiner and non-joiner, the word joiner, a byte
// order mark, a direction mark) or a variation selector. Text copied from
// web pages and word processors carries them inside words (hyph&shy;enation),
// which split there and were found by neither the word nor its parts.
// The zero-width space is a word boundary, and is left to separate words.
func ignorable(r rune) bool {
	// The tables are looked up only where such characters are: text of
	// the Latin, Greek, Cyrillic and CJK blocks between skips them
	// (TestIgnorableShortcuts checks every code point).
	switch {
	case r < 0xAD:
		return false
	case r < 0x2070:
	case 0xFE00 <= r && r <= 0xFE0F, r == 0xFEFF, 0xFFF9 <= r && r <= 0xFFFB:
		return true
	case r < 0x110BD:
		return false
	}
	return unicode.Is(unicode.Cf, r) && r != zeroWidthSpace || unicode.Is(unicode.Variation_Selector, r)
}

const zeroWidthSpace = 0x200B

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
