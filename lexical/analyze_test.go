package lexical

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestRuneClassesFastPaths: the shortcuts of IsCJK and isWordRune agree
// with the Unicode tables at every code point.
func TestRuneClassesFastPaths(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		cjk := unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) ||
			r == 0x30FC || r == 0xFF70 || r == 0x3005 || // ー, ｰ, 々
			unicode.In(r, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
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
		"", "plain ascii", "café ünïcode", "\u10ff below Hangul Jamo", "\u1100 first Jamo", "\u0dff below Thai", "\u0e01 Thai",
		"हिन्दी Devanagari", "ລາວ", "ខ្មែរ", "မြန်မာ", "\xe0", "\xe0\xb8",
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

// TestTerms_russianInflections: Russian writes a noun's case and number,
// and a verb's person, as endings (база, базы, базе, базу), so each form
// of a word must give the one term that its other forms give, or a
// question that names the word in another case finds nothing; Russian's
// function words are dropped as English ones are.
func TestTerms_russianInflections(t *testing.T) {
	a := NewAnalyzer()
	for _, forms := range [][]string{
		{"база", "базы", "базе", "базу", "базой"},
		{"встреча", "встречу", "встречи", "встречей"},
		{"пароль", "пароли", "паролей", "паролями"},
		{"сервер", "сервере", "серверов", "серверами"},
		{"копия", "копии", "копий"},
		{"хранится", "хранятся"},
		// ё is written е as often as not (Normalize folds it).
		{"ёлка", "ёлки", "елке"},
	} {
		want := a.Terms(forms[0])
		if len(want) != 1 {
			t.Fatalf("Terms(%q) = %q, want one term", forms[0], want)
		}
		for _, f := range forms[1:] {
			if got := a.Terms(Normalize(f)); !slices.Equal(got, want) {
				t.Errorf("Terms(%q) = %q, want %q, the term of %q", f, got, want, forms[0])
			}
		}
	}
	if got, want := a.Terms("где лежат ключи от склада"), a.Terms("лежат ключи склада"); !slices.Equal(got, want) {
		t.Errorf("the function words где and от gave terms: %q, want %q", got, want)
	}
	// Words with letters Russian does not have are another language's
	// (Ukrainian, Serbian, ...), which Russian's rules would cut wrongly:
	// they stay as they are.
	for _, w := range []string{"інформація", "їжака", "љубав"} {
		if got := a.Terms(w); !slices.Equal(got, []string{w}) {
			t.Errorf("Terms(%q) = %q, want the word as it is", w, got)
		}
	}
}

// TestTerms_japaneseMarksInsideWords: the long vowel ー and the repeat 々
// are part of the words they are written in (サーバー, 人々), which are
// indexed as bigrams like any kana or kanji run, and a Latin word written
// straight after one (サーバーsrv) is a word of its own.
func TestTerms_japaneseMarksInsideWords(t *testing.T) {
	a := NewAnalyzer()
	for _, tc := range []struct{ text, want string }{
		{"サーバー", "サー"}, // a bigram across the mark, not サ and ー apart
		{"人々", "人々"},
		{"サーバーsrv-東京-01", "srv"},
		{"ｻｰﾊﾞｰ", "サー"}, // half-width, as NFKC writes it
	} {
		if got := a.Terms(Normalize(tc.text)); !slices.Contains(got, tc.want) {
			t.Errorf("Terms(%q) = %q, want %q among them", tc.text, got, tc.want)
		}
	}
}
