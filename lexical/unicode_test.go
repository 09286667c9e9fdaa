package lexical

import (
	"slices"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestTermsIgnoreFormatCharacters: the invisible format characters that
// text copied from web pages, word processors and chat apps carries inside
// words (a soft hyphen, the zero-width joiner and non-joiner, the word
// joiner, a byte order mark, direction marks, variation selectors) leave
// the word whole, as Unicode's word boundaries (UAX #29) ignore them: a
// memory that wrote hyph&shy;en&shy;ation was found by neither
// "hyphenation" nor its parts' stems. The zero-width space is a word
// boundary there, and stays one.
func TestTermsIgnoreFormatCharacters(t *testing.T) {
	a := NewAnalyzer()
	for in, same := range map[string]string{
		"hyph\u00aden\u00adation":        "hyphenation",
		"pass\u200dword":                 "password",
		"co\u200cordinate":               "coordinate",
		"word\u2060joiner":               "wordjoiner",
		"\ufeffDeployment":               "deployment",
		"\u200eshalom\u200f":             "shalom",
		"\u202adeploy\u202c rollback":    "deploy rollback",
		"葛\U000E0100飾区":                  "葛飾区",
		"naïve\u00ad":                    "naïve",
		"https://exam\u00adple.com/path": "https://example.com/path",
	} {
		if got, want := a.Terms(in), a.Terms(same); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q, want %q (the terms of %q)", in, got, want, same)
		}
	}
	if got, want := a.Terms("zero\u200bwidth"), []string{"zero", "width"}; !slices.Equal(got, want) {
		t.Errorf("Terms(zero ZWSP width) = %q, want %q", got, want)
	}
}

// TestTermsKeepIndicWordsWhole: a word of a script whose vowel signs are
// spacing marks (Devanagari, Bengali, Tamil, ...) is one term: the signs
// split it into its consonants, so "भाषा" (language) was searched as भ
// and ष and matched the भ of भी (also), in nearly every Hindi text.
func TestTermsKeepIndicWordsWhole(t *testing.T) {
	a := NewAnalyzer()
	for in, want := range map[string][]string{
		"हिन्दी भाषा":    {"हिन्दी", "भाषा"},
		"தமிழ் மொழி":     {"தமிழ்", "மொழி"},
		"মাতৃভাষা বাংলা": {"মাতৃভাষা", "বাংলা"},
	} {
		if got := a.Terms(in); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTermsFoldLatinDiacritics: a Latin letter with a diacritic is its
// base letter, and the letters written as two (ß, æ, œ, þ) or with a
// stroke (ø, ł, đ) or without a dot (ı) are their usual ASCII spelling:
// a person types "cafe" or "resume" for what a memory wrote as café or
// résumé, and neither was found. A combining mark of the Latin block
// that composed with nothing is dropped too. Cyrillic and kana keep
// their letters: й is not и, が is not か (Greek's fold too:
// TestTermsFoldOptionalMarks).
func TestTermsFoldLatinDiacritics(t *testing.T) {
	a := NewAnalyzer()
	for in, same := range map[string]string{
		"café":                     "cafe",
		"cafe\u0301":               "cafe",
		"Résumé":                   "resume",
		"naïve coöperate":          "naive cooperate",
		"Straße STRAẞE":            "strasse strasse",
		"Ærøskøbing":               "aeroskobing",
		"œuvre":                    "oeuvre",
		"Łódź":                     "lodz",
		"Þingvellir":               "thingvellir",
		"kırmızı İstanbul":         "kirmizi istanbul",
		"Việt Nam":                 "viet nam",
		"São Paulo":                "sao paulo",
		"Müller-Lüdenscheidt GmbH": "muller-ludenscheidt GmbH",
		"молоко\u0301":             "молоко",
	} {
		if got, want := a.Terms(in), a.Terms(same); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q, want %q (the terms of %q)", in, got, want, same)
		}
	}
	for _, in := range []string{"й", "が"} {
		if got := Normalize(in); got != in {
			t.Errorf("Normalize(%q) = %q, want it kept", in, got)
		}
	}
}

// TestTermsJapaneseKanjiBetweenKana: a kanji that stands alone between
// kana in Japanese text (猫 in 猫が好き, 本 in 本を読む) is a term of its
// own, as a one-character Chinese word is: the run was indexed as
// bigrams only (猫が, が好, ...), and a question that names the word (猫,
// 私の猫) did not find it.
func TestTermsJapaneseKanjiBetweenKana(t *testing.T) {
	a := NewAnalyzer()
	for in, want := range map[string][]string{
		"猫が好きです":   {"猫", "好"},
		"本を読む":     {"本", "読"},
		"ねこと猫":     {"猫"},
		"東京に行った":   {"行"}, // 東京, two kanji, is among the bigrams already
		"カタカナ":     nil,
		"ひらがなの猫です": {"猫"},
	} {
		got := a.Terms(in)
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("Terms(%q) = %q, want %q among them", in, got, w)
			}
		}
		for _, term := range got {
			if n := utf8.RuneCountInString(term); n == 1 && !slices.Contains(want, term) {
				t.Errorf("Terms(%q) = %q: %q is not a kanji alone between kana", in, got, term)
			}
		}
	}
	// The question's terms meet the memory's.
	memory, question := a.Terms("昨日、猫が窓から外を見ていた"), a.Terms("私の猫")
	if !slices.ContainsFunc(question, func(q string) bool { return slices.Contains(memory, q) }) {
		t.Errorf("Terms of 私の猫 %q share none of the memory's %q", question, memory)
	}
}

// TestTermsFoldOptionalMarks: the marks a script's writers put in or
// leave out as they please are left out: Arabic's short vowels and
// tatweel, Hebrew's vowel points, Greek's accents (capitals are written
// without them) and final sigma, Russian's ё. A memory that wrote
// ΑΘΗΝΑ was not found by Αθήνα, nor كَتَبَ by كتب.
func TestTermsFoldOptionalMarks(t *testing.T) {
	a := NewAnalyzer()
	for in, same := range map[string]string{
		"كَتَبَ":     "كتب",
		"العربيـــة": "العربية",
		"שָׁלוֹם":    "שלום",
		"ΑΘΗΝΑ":      "Αθήνα",
		"ΟΔΟΣ":       "οδός",
		"ΣΑΣ":        "σας",
		"ᾅδης":       "αδης",
		"Ёлка":       "елка",
	} {
		if got, want := a.Terms(in), a.Terms(same); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q, want %q (the terms of %q)", in, got, want, same)
		}
	}
	for _, in := range []string{"й", "йод", "ї", "ש", "ء", "ω"} {
		if got := Normalize(in); got != in {
			t.Errorf("Normalize(%q) = %q, want it kept", in, got)
		}
	}
}

// TestTermsNumberWithThousandsSeparators: a number written with commas
// between its groups of three digits is also the number without them:
// a memory that wrote 1,000 or $1,250,000 was not found by 1000 or
// 1250000, as a person types them. Its groups stay terms, so "1,000"
// finds it as before.
func TestTermsNumberWithThousandsSeparators(t *testing.T) {
	a := NewAnalyzer()
	for in, want := range map[string][]string{
		"1,000 users":    {"1", "1000", "000", "user"},
		"$1,250,000":     {"1", "1250000", "250", "000"},
		"1,000.50 total": {"1", "1000", "000", "50", "000.50", "total"},
		"1,000円":         {"1", "1000", "000", "\x01円", "円"},
		"1,2,3":          {"1", "2", "3"},
		"12,3456":        {"12", "3456"},
		"1,000x":         {"1", "000x"},
		"v1,000":         {"v1", "000"},
	} {
		if got := a.Terms(in); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTermsKoreanNounBeforeParticle: a Korean noun of one syllable with a
// particle after it (책을, 집에서) is a term of its own beside the word's
// bigrams: the word gave only 책을, and a question naming the noun (책)
// did not find it. Longer nouns are among the bigrams already.
func TestTermsKoreanNounBeforeParticle(t *testing.T) {
	a := NewAnalyzer()
	for in, want := range map[string][]string{
		"책을 읽었다":   {"책을", "책", "읽었", "었다"},
		"집에서 쉬었다":  {"집에", "에서", "집", "쉬었", "었다"},
		"한국어를 배운다": {"한국", "국어", "어를", "배운", "운다"},
		"책":        {"책"},
		"사랑":       {"사랑"},
	} {
		if got := a.Terms(in); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTermsContractions: the pieces of an English contraction are no
// words: "won't" was indexed as win (won's lemma) and "haven't" as haven,
// so "did we win" and "safe haven" found every "won't" and "haven't";
// we're, we'll and we've left the terms re, ll and ve. A word with an
// apostrophe that is no contraction (O'Brien) and the words themselves
// (we won, a safe haven) keep their terms.
func TestTermsContractions(t *testing.T) {
	a := NewAnalyzer()
	for in, want := range map[string][]string{
		"it won't start":                      {"start"},
		"it won’t start":                      {"start"},
		"we haven't shipped, it isn't done":   {"ship", "do"},
		"we're done, we'll see, they've gone": {"do", "see", "go"},
		"we won a safe haven":                 {"win", "safe", "haven"},
		"O'Brien's report":                    {"brien", "report"},
		"re: the ll parser":                   {"re", "ll", "parser"},
	} {
		if got := a.Terms(in); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTermsLanguageNames: a name written as a word and ++ or # (C++, C#,
// F#, g++, Notepad++) is a term: its word is a single letter, which is
// no term, or another name (notepad), so a memory about C++ gave no term
// for it and "C++" found nothing, or any memory about C.
func TestTermsLanguageNames(t *testing.T) {
	a := NewAnalyzer()
	for in, want := range map[string][]string{
		"C++ template error": {"c++", "templat", "error"},
		"C# async":           {"c#", "async"},
		"in F#.":             {"f#"},
		"g++ -O2":            {"g++", "o2"},
		"Notepad++":          {"notepad", "notepad++"},
		"C++17":              {"17", "c++17"},
		"#hashtag":           {"hashtag"},
		"+1 ++ #":            {"1"},
	} {
		if got := a.Terms(in); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTermsLettersDashNumber: a name written as letters, a connector and
// a number (UTF-8, GPT-4, H.264, ISO-8601, COVID-19) is also the two
// joined, as a person often types it (utf8, gpt4): "utf8" did not find a
// memory that wrote UTF-8, nor "UTF-8" one that wrote utf8.
func TestTermsLettersDashNumber(t *testing.T) {
	a := NewAnalyzer()
	for in, want := range map[string][]string{
		"UTF-8":    {"utf", "8", "utf-8", "utf8"},
		"GPT-4":    {"gpt", "4", "gpt-4", "gpt4"},
		"H.264":    {"264", "h.264", "h264"},
		"COVID-19": {"covid", "19", "covid-19", "covid19"},
		"utf8":     {"utf8"},
		"x86_64":   {"x86", "64", "x86_64"},
		"v1.2":     {"v1", "2", "v1.2"},
		"3-way":    {"3", "way", "3-way"},
	} {
		if got := a.Terms(in); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestIgnorableShortcuts: ignorable's ranges agree with the Unicode
// tables at every code point.
func TestIgnorableShortcuts(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := unicode.Is(unicode.Cf, r) && r != 0x200B || unicode.Is(unicode.Variation_Selector, r)
		if ignorable(r) != want {
			t.Fatalf("ignorable(%U) = %v, the tables say %v", r, !want, want)
		}
	}
}

// TestKoreanNoun: a Korean word's noun is the word without the particle
// written onto it, the longer particle first; a word with no particle is
// its own noun, and a word of another script is no Korean word.
func TestKoreanNoun(t *testing.T) {
	for _, c := range []struct {
		in, noun string
		korean   bool
	}{
		{"회의를", "회의", true},
		{"프린터가", "프린터", true},
		{"데이터베이스는", "데이터베이스", true},
		{"집에서", "집", true},
		{"집으로", "집", true},
		{"서버까지", "서버", true},
		{"프린터", "프린터", true},
		{"에서", "에서", true},
		{"책", "책", true},
		{"データ", "データ", false},
		{"회의db", "회의db", false},
		{"", "", false},
	} {
		if noun, korean := KoreanNoun(c.in); noun != c.noun || korean != c.korean {
			t.Errorf("KoreanNoun(%q) = %q, %v; want %q, %v", c.in, noun, korean, c.noun, c.korean)
		}
	}
}
