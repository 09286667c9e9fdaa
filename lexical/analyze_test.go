package lexical

import (
	"testing"
	"unicode"
)

// TestRuneClassesFastPaths: the shortcuts of IsCJK and isWordRune agree
// with the Unicode tables at every code point.
func TestRuneClassesFastPaths(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		cjk := unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
		if IsCJK(r) != cjk {
			t.Fatalf("IsCJK(%U) = %v, the tables say %v", r, !cjk, cjk)
		}
		word := (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)) && !cjk
		if isWordRune(r) != word {
			t.Fatalf("isWordRune(%U) = %v, the tables say %v", r, !word, word)
		}
	}
}
