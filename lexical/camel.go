package lexical

import (
	"strings"
	"unicode/utf8"
)

// camelWord is a word of a text written in camelCase or PascalCase
// (parseConfig, HTTPServer): Normalize lower-cases it to one word, so its
// parts are found in the text as written, and indexed beside the whole
// word so that "parse the config", parse_config and parseConfig meet.
type camelWord struct {
	at   int    // where its lower-case form starts in the normalised text
	word string // as written
}

// normalizeCamel returns Normalize(text) and text's camelCase words, with
// their offsets in it, appended to dst (a caller's buffer: most texts have
// a few).
func normalizeCamel(dst []camelWord, text string) (string, []camelWord) {
	norm := Normalize(text)
	if len(norm) == len(text) && norm == text {
		return norm, dst // nothing was lower-cased: no capital, no camelCase
	}
	camel := camelWords(dst, text)
	if len(camel) == 0 {
		return norm, camel
	}
	// Normalisation leaves ASCII letters where they were unless it
	// changed the length of something before them (full-width forms,
	// a no-break space, a composed accent): then the text is normalised
	// again in pieces around the camelCase words, to learn where they
	// went.
	if len(norm) == len(text) {
		aligned := true
		for _, c := range camel {
			aligned = aligned && isLowerOf(norm[c.at:c.at+len(c.word)], c.word)
		}
		if aligned {
			return norm, camel
		}
	}
	return normalizeAround(text, camel), camel
}

// normalizeAround returns Normalize(text), made of the normalised pieces
// between text's camelCase words and the words lower-cased, and sets each
// word's offset to where it is in the result. It is the same text:
// normalisation never joins an ASCII letter to a character beside it
// that is not a word character (a combining mark is one), so the pieces
// are normalised as they would be in the whole.
func normalizeAround(text string, camel []camelWord) string {
	var b strings.Builder
	b.Grow(len(text))
	prev := 0
	for i := range camel {
		c := &camel[i]
		b.WriteString(Normalize(text[prev:c.at]))
		prev, c.at = c.at+len(c.word), b.Len()
		for j := 0; j < len(c.word); j++ {
			b.WriteByte(c.word[j] | ('a' - 'A')) // an ASCII letter's lower case
		}
	}
	b.WriteString(Normalize(text[prev:]))
	return b.String()
}

// camelWords appends the camelCase words of text to out: words of ASCII letters
// only (a word with a digit or a letter beyond ASCII, such as utf8Decode,
// is kept whole) with a change of case inside. Only the words around a
// capital letter are looked at, and lower-case ASCII is skipped eight
// bytes at a time, so prose costs little more than a scan.
func camelWords(out []camelWord, text string) []camelWord {
	for i := 0; i < len(text); {
		i = skipLowerASCII(text, i)
		if i == len(text) {
			break
		}
		if text[i] >= utf8.RuneSelf {
			for i < len(text) && text[i] >= utf8.RuneSelf {
				i++
			}
			continue
		}
		// A capital: the run of ASCII letters around it.
		start, end := i, i+1
		for start > 0 && isASCIILetter(text[start-1]) {
			start--
		}
		for end < len(text) && isASCIILetter(text[end]) {
			end++
		}
		i = end
		if w := text[start:end]; camelBreak(w, 0) < len(w) && !wordRuneBefore(text, start) && !wordRuneAfter(text, end) {
			out = append(out, camelWord{at: start, word: w})
		}
	}
	return out
}

// camelBreak returns where the part of the camelCase word w that starts at
// from ends: before a capital that follows a lower-case letter (parse|Config),
// or before the last capital of a run of them that a lower-case letter
// follows (HTTP|Server), but not before an acronym's plural s (URLs,
// getIDs|ByName). It returns len(w) for the last part, and for a word that
// is capitalised (Hello) or all capitals (NASA).
func camelBreak(w string, from int) int {
	for k := from + 1; k < len(w); k++ {
		if !isUpper(w[k]) {
			continue
		}
		if !isUpper(w[k-1]) {
			return k
		}
		if k+1 < len(w) && !isUpper(w[k+1]) && !(w[k+1] == 's' && (k+2 == len(w) || isUpper(w[k+2]))) {
			return k
		}
	}
	return len(w)
}

// appendCamelParts appends the terms of the parts of the camelCase word
// written as word, whose lower-case form is lower.
func (a *Analyzer) appendCamelParts(out []string, lower, word string) []string {
	for from := 0; from < len(word); {
		to := camelBreak(word, from)
		if t, ok := a.wordTerm(lower[from:to]); ok {
			out = append(out, t)
		}
		from = to
	}
	return out
}

// isLowerOf reports whether lower is word, a word of ASCII letters, in
// lower case.
func isLowerOf(lower, word string) bool {
	for i := 0; i < len(word); i++ {
		if lower[i] != word[i]|('a'-'A') {
			return false
		}
	}
	return true
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

func isASCIILetter(c byte) bool { return 'a' <= c|('a'-'A') && c|('a'-'A') <= 'z' }

// wordRuneBefore reports whether the character of s before i is a word
// character.
func wordRuneBefore(s string, i int) bool {
	if i == 0 {
		return false
	}
	if c := s[i-1]; c < utf8.RuneSelf {
		return asciiClass[c]&classWord != 0
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return isWordRune(r)
}

// wordRuneAfter reports whether the character of s at i is a word
// character.
func wordRuneAfter(s string, i int) bool {
	if i == len(s) {
		return false
	}
	if c := s[i]; c < utf8.RuneSelf {
		return asciiClass[c]&classWord != 0
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return isWordRune(r)
}

// CamelParts returns the words of text's camelCase and PascalCase
// identifiers, lower-cased and separated by spaces ("parseConfig on an
// HTTPServer" gives "parse config http server"), or "" when it has none:
// the words a text holds beside those Normalize leaves it, for a caller
// that matches query words in text as the index's terms do.
func CamelParts(text string) string {
	var buf [camelBuf]camelWord
	camel := camelWords(buf[:0], text)
	if len(camel) == 0 {
		return ""
	}
	var b strings.Builder
	for _, c := range camel {
		for from := 0; from < len(c.word); {
			to := camelBreak(c.word, from)
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			for j := from; j < to; j++ {
				b.WriteByte(c.word[j] | ('a' - 'A'))
			}
			from = to
		}
	}
	return b.String()
}
