package lexical

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// slowNormalize is Normalize without its short ways: the reference.
func slowNormalize(s string) string {
	if !utf8.ValidString(s) {
		// Normalize reads an invalid byte as U+FFFD before NFKC (NFKC at
		// the end of a text left the character after one unnormalised).
		// Indexed text is valid UTF-8 (ingest replaces invalid bytes), so
		// an index is the same as the references' before this.
		s = string([]rune(s))
	}
	return foldLettersReference(dropIgnorable(foldHan(strings.ToLower(norm.NFKC.String(s)))))
}

// dropIgnorable removes the characters Normalize drops, in a walk of its
// own.
func dropIgnorable(s string) string {
	return strings.Map(func(r rune) rune {
		if ignorable(r) {
			return -1
		}
		return r
	}, s)
}

// foldLettersReference is Normalize's fold of marks and letters, in a
// walk of its own and without foldLetter's table: a mark optionalMark
// names is dropped, and each letter of the folded blocks is decomposed,
// one that is a Latin or Greek letter with diacritics becoming its letter.
func foldLettersReference(s string) string {
	var b strings.Builder
	for _, r := range s {
		if optionalMark(r) {
			continue
		}
		if f, ok := ownLetters[r]; ok {
			b.WriteString(f)
			continue
		}
		if (0xC0 <= r && r < 0x460) || (0x1E00 <= r && r < 0x2000) {
			d := []rune(norm.NFD.String(string(r)))
			if len(d) > 1 && !slices.ContainsFunc(d[1:], func(m rune) bool { return !isCombiningDiacritic(m) }) {
				base := unicode.ToLower(d[0])
				if f, ok := ownLetters[base]; ok {
					b.WriteString(f)
					continue
				}
				if base < utf8.RuneSelf && unicode.IsLetter(base) || unicode.Is(unicode.Greek, base) {
					b.WriteRune(base)
					continue
				}
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TestNormalizeChineseCharacters checks every character normalizeShort
// takes against x/text's tables: NFKC leaves it as it is (or, full-width
// ASCII, maps it to the ASCII character), and what it becomes starts a
// segment that no character before it combines with, so a text of them is
// normalised character by character.
func TestNormalizeChineseCharacters(t *testing.T) {
	check := func(r rune, want string) {
		t.Helper()
		if got := norm.NFKC.String(string(r)); got != want {
			t.Fatalf("NFKC(%U %q) = %q, want %q", r, string(r), got, want)
		}
		if p := norm.NFKC.PropertiesString(want); !p.BoundaryBefore() || p.CCC() != 0 {
			t.Fatalf("%U %q: %q may combine with the character before it under NFKC", r, string(r), want)
		}
		if ignorable(r) || optionalMark(r) || foldLetter(r) != "" {
			t.Fatalf("%U %q is dropped or folded by the general path", r, string(r))
		}
	}
	for r := rune(0); r < 0x80; r++ {
		check(r, string(r))
		if got, ok := normalizeShort(string(r)); !ok || got != strings.ToLower(string(r)) {
			t.Fatalf("normalizeShort(%q) = %q, %v", string(r), got, ok)
		}
	}
	for r := rune(firstIdeograph); r <= lastIdeograph; r++ {
		check(r, string(r))
	}
	for r := rune(0x2000); r < 0x3100; r++ {
		if nfkcInert(r) {
			check(r, string(r))
		}
	}
	for r := rune(firstFullWidth); r <= lastFullWidth; r++ {
		check(r, string(r-fullWidthOffset))
	}
}

// TestNormalizeMatchesNFKC: on random text drawn from ASCII, ideographs,
// the inert punctuation, full-width forms and a few characters the short
// ways refuse (the ellipsis, the ideographic space, a combining accent,
// half-width katakana, a traditional character, an invalid byte, a soft
// hyphen, a zero-width joiner, letters that fold, marks that go),
// Normalize gives what the full path gives.
func TestNormalizeMatchesNFKC(t *testing.T) {
	alphabet := []string{"a", "Z", "7", " ", "-", ".", "中", "文", "遷", "移", "、", "。", "《", "」", "“", "—",
		"Ａ", "ｚ", "１", "，", "：", "？", "…", "\u3000", "\u0301", "ｶ", "\xff", "\u00ad", "\u200d", "é", "ß", "Ø", "ệ", "ı", "Ά", "ς", "Ё", "й", "\u05b8", "\u064e", "\u0640"}
	rng := rand.New(rand.NewPCG(3, 3))
	for range 20_000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		if got, want := Normalize(s), slowNormalize(s); got != want {
			t.Fatalf("Normalize(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestNormalizeASCII: ASCII text skips NFKC and the Chinese fold, which
// must leave every ASCII character as it is.
func TestNormalizeASCII(t *testing.T) {
	var all []byte
	for c := range 128 {
		all = append(all, byte(c))
	}
	for _, s := range []string{string(all), "Port 3036 UNAVAILABLE: see PR #42 / ~/.nova", ""} {
		if got, want := Normalize(s), slowNormalize(s); got != want {
			t.Errorf("Normalize(%q) = %q, want %q (the full path)", s, got, want)
		}
	}
}

// TestFoldLeavesAllButIdeographs: normalizeShort folds traditional
// characters to simplified ones only among the ideographs, which is
// foldHan's result only if the fold leaves every other character it
// passes (ASCII and the inert punctuation) as it is.
func TestFoldLeavesAllButIdeographs(t *testing.T) {
	for r := rune(0); r < 0x10000; r++ {
		if (r < 0x80 || nfkcInert(r)) && simplified().fold(r) != r {
			t.Errorf("the Chinese fold maps %U %q to %q", r, string(r), string(simplified().fold(r)))
		}
	}
}

// TestHanTable: the array and the map beyond the Basic Multilingual Plane
// answer as the map they are made from.
func TestHanTable(t *testing.T) {
	m := map[rune]rune{'遷': '迁', '這': '这', 0x2A6A5: 0x4E00}
	h := newHanTable(m)
	for _, r := range []rune{'a', '遷', '這', '中', 0x2A6A5, 0x2A6A6, 0x3400, 0xFFFF} {
		want := r
		if v, ok := m[r]; ok {
			want = v
		}
		if got := h.fold(r); got != want {
			t.Errorf("fold(%U) = %U, want %U", r, got, want)
		}
	}
	if got := newHanTable(nil).fold('遷'); got != '遷' {
		t.Errorf("empty table folds 遷 to %q", got)
	}
}

// FuzzNormalize: whatever the text, Normalize's short ways give what the
// full path gives.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"Port 3036", "端口为什么不可用，遷移計劃：ＡＢＣ１２３！", "《报告》“好”—完", "…\u3000ｶﾀｶﾅ", "e\u0301", "\xff中"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Normalize(s), slowNormalize(s); got != want {
			t.Fatalf("Normalize(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestFoldChangesOnlyHan: the traditional-to-simplified fold changes
// only Han ideographs from U+3400 on, which lowerFold relies on to ask
// it about those alone (and foldHan to skip text without one).
func TestFoldChangesOnlyHan(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		s := simplified().fold(r)
		if s == r {
			continue
		}
		if r < 0x3400 || !unicode.Is(unicode.Han, r) {
			t.Errorf("the Chinese fold maps %U %q, not a Han ideograph, to %q", r, string(r), string(s))
		}
	}
}
