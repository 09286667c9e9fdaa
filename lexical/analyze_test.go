package lexical

import (
	"strings"
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
		word := (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me)) && !cjk
		if isWordRune(r) != word {
			t.Fatalf("isWordRune(%U) = %v, the tables say %v", r, !word, word)
		}
	}
}

// TestHasCJK: the byte scan agrees with decoding every character, on text
// with every script's edges, broken and truncated encodings.
func TestHasCJK(t *testing.T) {
	cases := []string{
		"", "plain ascii", "café ünïcode", "\u10ff below Hangul Jamo", "\u1100 first Jamo",
		"mixed 迁移 text", "カタカナ", "ひらがな", "한국어", "\xe1", "\xe1\x84", "\xe1\x84\x80",
		"\xe4\xb8", "ok \xe4\xb8\xad", "\xff\xfe\xe1\x84\x80", "\xc3\xe4\xb8\xad", "emoji 🙂 only", "\U00020000 ext B",
	}
	for _, s := range cases {
		if got, want := HasCJK(s), strings.ContainsFunc(s, IsCJK); got != want {
			t.Errorf("HasCJK(%q) = %v, decoding every character says %v", s, got, want)
		}
	}
}

func BenchmarkHasCJK(b *testing.B) {
	s := strings.Repeat("the dashboard port 8080 was unavailable after the deploy; ", 5)
	for b.Loop() {
		HasCJK(s)
	}
}

func BenchmarkTermsEnglish(b *testing.B) {
	benchmarkTerms(b, strings.Repeat("Caroline said the dashboard port 8080 was unavailable after Tuesday's deploy. "+
		"She went to the LGBTQ support group and painted a sunset over the lake; Melanie's kids loved it. ", 4))
}

// BenchmarkTermsCode is a coding agent's transcript: identifiers in every
// case, paths and prose.
func BenchmarkTermsCode(b *testing.B) {
	benchmarkTerms(b, strings.Repeat("I updated parseConfig in src/config/loader.go so that HTTPServer reads max_retries; "+
		"getUserByID now returns an XMLHttpRequest error when useEffect fires twice. Run go test ./config/ again. ", 4))
}

func benchmarkTerms(b *testing.B, text string) {
	a := NewAnalyzer()
	a.Terms(text)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		a.Terms(text)
	}
}
