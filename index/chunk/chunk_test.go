package chunk

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// numberedWords returns n distinct words "w0001 w0002 ..." separated by
// single spaces, so that any overlap between pieces is unambiguous.
func numberedWords(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = fmt.Sprintf("w%04d", i+1)
	}
	return strings.Join(w, " ")
}

// blankRune reports what Split trims pieces of: white space, the
// byte-order mark and the zero-width spaces, joiners and word joiner.
func blankRune(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("\ufeff\u200b\u200c\u200d\u2060", r)
}

// runeLen counts characters the way Split does.
func runeLen(s string) int { return utf8.RuneCountInString(s) }

// layout looks for a way to lay pieces over text that shows nothing was
// lost: the first piece starts where the trimmed text starts, each next one
// starts no earlier than the previous one and either repeats at most
// maxOverlap characters of its end or follows it after whitespace only, and
// the last one ends where the text ends. It returns the byte offsets of one
// such layout, or nil. text must be valid UTF-8.
func layout(text string, pieces []string, maxOverlap int) []int {
	text = strings.TrimFunc(text, blankRune)
	if len(pieces) == 0 {
		if text == "" {
			return []int{}
		}
		return nil
	}
	// from[i] maps each reachable offset of piece i to the offset of
	// piece i-1 it was reached from.
	from := make([]map[int]int, len(pieces))
	from[0] = map[int]int{}
	if strings.HasPrefix(text, pieces[0]) {
		from[0][0] = -1
	}
	for i := 1; i < len(pieces); i++ {
		from[i] = map[int]int{}
		for pq := range from[i-1] {
			end := pq + len(pieces[i-1])
			// Candidates: back into the previous piece by at most
			// maxOverlap characters, or forward over whitespace.
			lo := end
			for n := 0; n < maxOverlap && lo > pq; n++ {
				_, size := utf8.DecodeLastRuneInString(text[:lo])
				lo -= size
			}
			hi := end + len(text[end:]) - len(strings.TrimLeftFunc(text[end:], blankRune))
			for q := max(lo, pq); q <= hi; q++ {
				if strings.HasPrefix(text[q:], pieces[i]) {
					from[i][q] = pq
				}
			}
		}
	}
	last := len(pieces) - 1
	for q := range from[last] {
		if q+len(pieces[last]) == len(text) {
			offs := make([]int, len(pieces))
			for i := last; i >= 0; i-- {
				offs[i] = q
				q = from[i][q]
			}
			return offs
		}
	}
	return nil
}

// checkPieces asserts the invariants every Split result has: pieces are
// non-empty, trimmed, valid UTF-8 (for valid input), within the cap, and
// together cover the input with at most OverlapChars repeated between
// neighbours.
func checkPieces(t *testing.T, text string, o Options, pieces []string) {
	t.Helper()
	for i, p := range pieces {
		if p == "" || p != strings.TrimFunc(p, blankRune) {
			t.Errorf("piece %d is empty or untrimmed: %q", i, p)
		}
		if o.MaxChars > 0 && runeLen(p) > o.MaxChars {
			t.Errorf("piece %d has %d characters, cap %d", i, runeLen(p), o.MaxChars)
		}
		if utf8.ValidString(text) && !utf8.ValidString(p) {
			t.Errorf("piece %d is not valid UTF-8: %q", i, p)
		}
	}
	if utf8.ValidString(text) && layout(text, pieces, max(0, o.OverlapChars)) == nil {
		t.Errorf("pieces do not cover the input %q with overlap <= %d:\n%q", text, o.OverlapChars, pieces)
	}
}

// overlapOf returns the longest suffix of a that is a prefix of b, in
// characters.
func overlapOf(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	for k := min(len(ra), len(rb)); k > 0; k-- {
		if string(ra[len(ra)-k:]) == string(rb[:k]) {
			return k
		}
	}
	return 0
}

// TestSplitShortText: text that fits, counted in characters, is one
// trimmed piece; blank text is no piece; a cap of zero or less disables
// splitting.
func TestSplitShortText(t *testing.T) {
	long := numberedWords(500)
	tests := []struct {
		name string
		text string
		o    Options
		want []string
	}{
		{"empty", "", Options{MaxChars: 10}, nil},
		{"blank", " \n\t\u3000 ", Options{MaxChars: 10}, nil},
		{"one word", "hello", Options{MaxChars: 10}, []string{"hello"}},
		{"trimmed", "  hello world \n", Options{MaxChars: 11}, []string{"hello world"}},
		{"exactly the cap", strings.Repeat("a", 10), Options{MaxChars: 10}, []string{strings.Repeat("a", 10)}},
		// 11 characters but 33 bytes: the cap counts characters.
		{"CJK at the cap", "部署回滚端口防火墙缓存", Options{MaxChars: 11}, []string{"部署回滚端口防火墙缓存"}},
		{"emoji at the cap", "🚀🔥✅🎉", Options{MaxChars: 4}, []string{"🚀🔥✅🎉"}},
		{"zero cap", long, Options{MaxChars: 0, OverlapChars: 50}, []string{long}},
		{"negative cap", long, Options{MaxChars: -1}, []string{long}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Split(tt.text, tt.o); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Split(%q, %+v) = %q, want %q", tt.text, tt.o, got, tt.want)
			}
		})
	}
}

// TestSplitLongText: long text is cut into pieces within the cap, each at
// least half a window long, neighbours repeating at most OverlapChars (and
// nearly that much, give or take one word, when it is below half the cap),
// and no word is lost or reordered.
func TestSplitLongText(t *testing.T) {
	text := numberedWords(1000) // 5999 characters, words of 5
	const word = 5
	tests := []Options{
		{MaxChars: 200},
		{MaxChars: 200, OverlapChars: 40},
		{MaxChars: 1600, OverlapChars: 200}, // the default configuration
		{MaxChars: 300, OverlapChars: 149},
		{MaxChars: 300, OverlapChars: 10000}, // more than half the cap
		{MaxChars: 300, OverlapChars: -5},
	}
	for _, o := range tests {
		t.Run(fmt.Sprintf("%d-%d", o.MaxChars, o.OverlapChars), func(t *testing.T) {
			pieces := Split(text, o)
			if len(pieces) < runeLen(text)/o.MaxChars {
				t.Fatalf("%d pieces for %d characters with cap %d", len(pieces), runeLen(text), o.MaxChars)
			}
			checkPieces(t, text, o, pieces)
			want := max(0, min(o.OverlapChars, o.MaxChars/2-1))
			inText := map[string]bool{}
			for _, w := range strings.Fields(text) {
				inText[w] = true
			}
			var words []string
			for i, p := range pieces {
				if i < len(pieces)-1 && runeLen(p) < o.MaxChars/2-1 {
					t.Errorf("piece %d has only %d characters (cap %d)", i, runeLen(p), o.MaxChars)
				}
				fields := strings.Fields(p)
				for _, w := range fields {
					if !inText[w] {
						t.Errorf("piece %d starts or ends mid-word: %q", i, w)
					}
				}
				if i > 0 {
					got := overlapOf(pieces[i-1], p)
					if got > want || got < want-word-1 {
						t.Errorf("pieces %d and %d overlap by %d characters, want %d give or take a word", i-1, i, got, want)
					}
					// Drop the words repeated from the previous piece.
					fields = strings.Fields(string([]rune(p)[got:]))
				}
				words = append(words, fields...)
			}
			if !slices.Equal(words, strings.Fields(text)) {
				t.Errorf("the pieces minus their overlaps are not the input's words")
			}
		})
	}
}

// TestSplitPrefersBoundaries: a piece ends at the last paragraph break in
// the second half of its window, else a line break, a sentence end
// (Western or CJK) or a space, and only cuts hard when there is none.
func TestSplitPrefersBoundaries(t *testing.T) {
	var paras, lines, sentences, cjk []string
	for i := range 40 {
		// Paragraphs hold line breaks and sentences, so both are later in
		// the window than the paragraph break that must win.
		paras = append(paras, fmt.Sprintf("Paragraph %d starts here.\nIt has a second line. And a sentence.", i))
		lines = append(lines, fmt.Sprintf("line %d: a list item, with a comma", i))
		sentences = append(sentences, fmt.Sprintf("Sentence %d ends with a full stop.", i))
		cjk = append(cjk, fmt.Sprintf("第%d条记录说明部署已经回滚到上一版本。", i))
	}
	tests := []struct {
		name  string
		text  string
		o     Options
		units []string // every piece is a run of these, joined by sep
		sep   string
	}{
		{"paragraphs", strings.Join(paras, "\n\n"), Options{MaxChars: 240}, paras, "\n\n"},
		{"lines", strings.Join(lines, "\n"), Options{MaxChars: 150}, lines, "\n"},
		{"sentences", strings.Join(sentences, " "), Options{MaxChars: 120}, sentences, " "},
		{"CJK sentences", strings.Join(cjk, ""), Options{MaxChars: 50}, cjk, ""},
		{"words", numberedWords(300), Options{MaxChars: 64}, strings.Fields(numberedWords(300)), " "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pieces := Split(tt.text, tt.o)
			if len(pieces) < 3 {
				t.Fatalf("only %d pieces", len(pieces))
			}
			checkPieces(t, tt.text, tt.o, pieces)
			for i, p := range pieces {
				if !isRunOf(p, tt.units, tt.sep) {
					t.Errorf("piece %d is not made of whole units:\n%q", i, p)
				}
			}
		})
	}

	t.Run("hard cut", func(t *testing.T) {
		text := strings.Repeat("abcdefghij", 25) // no boundary at all
		o := Options{MaxChars: 60, OverlapChars: 10}
		pieces := Split(text, o)
		checkPieces(t, text, o, pieces)
		// No piece may start mid-word, so the overlap is dropped and the
		// pieces are consecutive slices of exactly the cap.
		if strings.Join(pieces, "") != text {
			t.Errorf("pieces do not concatenate to the input: %q", pieces)
		}
		for i, p := range pieces[:len(pieces)-1] {
			if runeLen(p) != 60 {
				t.Errorf("piece %d has %d characters, want 60", i, runeLen(p))
			}
		}
	})

	t.Run("early paragraph break ignored", func(t *testing.T) {
		// A paragraph break in the first half of the window would make a
		// tiny piece; the later sentence end wins.
		text := "Short intro.\n\n" + strings.Repeat("More words in a sentence. ", 20)
		pieces := Split(text, Options{MaxChars: 100})
		if p := pieces[0]; runeLen(p) < 50 || !strings.HasSuffix(p, ".") {
			t.Errorf("first piece %q: want more than half the cap, ending at a sentence", p)
		}
	})
}

// isRunOf reports whether s is units[k] sep units[k+1] sep ... for some k.
func isRunOf(s string, units []string, sep string) bool {
	for k, u := range units {
		rest, ok := strings.CutPrefix(s, u)
		if !ok {
			continue
		}
		for j := k + 1; ; j++ {
			if rest == "" {
				return true
			}
			if j == len(units) {
				break
			}
			if rest, ok = strings.CutPrefix(rest, sep+units[j]); !ok {
				break
			}
		}
	}
	return false
}

// TestSplitMultiByte: CJK and emoji text, with and without spaces, is
// never cut inside a character; CJK keeps its overlap (any character is a
// word boundary) while an unbroken emoji run drops it rather than start a
// piece mid-word.
func TestSplitMultiByte(t *testing.T) {
	han := strings.Repeat("部署回滚端口防火墙缓存索引查询令牌会话备份迁移超时", 12)
	emoji := strings.Repeat("🚀🔥✅🎉👩‍💻🇫🇷", 30)
	mixed := strings.Repeat("deploy 部署 🚀 rollback 回滚。 café naïve Ωμέγα ", 30)
	tests := []struct {
		name string
		text string
		o    Options
	}{
		{"han", han, Options{MaxChars: 37, OverlapChars: 5}},
		{"han odd cap", han, Options{MaxChars: 7, OverlapChars: 2}},
		{"emoji", emoji, Options{MaxChars: 13, OverlapChars: 4}},
		{"emoji tiny cap", emoji, Options{MaxChars: 1}},
		{"mixed", mixed, Options{MaxChars: 41, OverlapChars: 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pieces := Split(tt.text, tt.o)
			if len(pieces) < 2 {
				t.Fatalf("only %d pieces", len(pieces))
			}
			checkPieces(t, tt.text, tt.o, pieces)
		})
	}

	t.Run("han overlap", func(t *testing.T) {
		o := Options{MaxChars: 20, OverlapChars: 6}
		pieces := Split(han, o)
		for i := 1; i < len(pieces); i++ {
			prev := []rune(pieces[i-1])
			if tail := string(prev[len(prev)-6:]); !strings.HasPrefix(pieces[i], tail) {
				t.Errorf("piece %d %q does not start with the last 6 characters %q of the previous one", i, pieces[i], tail)
			}
		}
	})
	t.Run("emoji without overlap", func(t *testing.T) {
		pieces := Split(emoji, Options{MaxChars: 13, OverlapChars: 4})
		if strings.Join(pieces, "") != emoji {
			t.Errorf("emoji pieces do not concatenate to the input")
		}
	})
}

// TestSplitIsDeterministic: the same input always gives the same pieces
// (chunk ids are derived from their order), and an edit near the end
// leaves the first piece alone but changes the result.
func TestSplitIsDeterministic(t *testing.T) {
	text := strings.Repeat("The staging API moved to port 8080 after the release. ", 40)
	o := Options{MaxChars: 300, OverlapChars: 50}
	first := Split(text, o)
	for range 5 {
		if again := Split(text, o); !reflect.DeepEqual(again, first) {
			t.Fatalf("Split is not deterministic:\n%q\n%q", first, again)
		}
	}
	edited := text[:len(text)-20] + "port 9443 instead."
	got := Split(edited, o)
	if reflect.DeepEqual(got, first) {
		t.Fatal("editing the text did not change the pieces")
	}
	if got[0] != first[0] {
		t.Errorf("an edit at the end changed the first piece:\n%q\n%q", first[0], got[0])
	}
}

// FuzzChunk checks Split's invariants on arbitrary text and options: no
// panic; pieces non-empty and trimmed; within the cap (or the whole text
// when the cap is off); valid UTF-8 whenever the input is, or whenever the
// text had to be cut; and, for valid input, the pieces cover the text in
// order with at most OverlapChars repeated.
func FuzzChunk(f *testing.F) {
	f.Add("", 10, 2)
	f.Add("hello world", 5, 1)
	f.Add("Para one.\n\nPara two is longer. It has two sentences.\nA line.", 20, 5)
	f.Add("部署回滚端口。防火墙缓存索引！查询令牌会话？备份迁移超时；", 7, 3)
	f.Add("🚀🔥✅🎉👩‍💻🇫🇷 deploy 🚀", 3, 1)
	f.Add("a\n\n\n\n          \n\n\n\t\t\tb c d e f g h", 4, 1)
	f.Add("word "+strings.Repeat("x", 40)+" word", 9, 4)
	f.Add("\xff\xfeinvalid \xc3 utf8 text here", 4, 1)
	f.Add("end. next! more? last; 終。", 6, 2)
	// Found by fuzzing: the second window started on the double space, so
	// its piece was just "1", which the third piece repeated whole
	// (TestSplitEveryPieceAddsText).
	f.Add("0000000  1 0000", 7, 101)
	f.Add("intro\n| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |\nafter the table", 14, 3)
	f.Add("see https://example.com/a/very/long/path/to/a/page?q=1 then more", 30, 5)
	f.Add("prose before\n```go\nfunc f() error {\n\treturn nil\n}\n```\nprose after ~~~\n~~~\nopen", 12, 4)
	f.Add("\ufeff\u200bภาษา\u200bไทย\u200b e\u0301e\u0301 🇫🇷🇩🇪 👩\u200d💻\u200d", 3, 1)
	f.Fuzz(func(t *testing.T, text string, maxChars, overlap int) {
		if len(text) > 4096 {
			return
		}
		o := Options{MaxChars: maxChars % 512, OverlapChars: overlap % 1024}
		pieces := Split(text, o)
		trimmed := strings.TrimFunc(text, blankRune)
		if !strings.ContainsFunc(trimmed, func(r rune) bool {
			return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.So, r)
		}) {
			if pieces != nil {
				t.Fatalf("blank or markup-only text gave %q", pieces)
			}
			return
		}
		if len(pieces) == 0 {
			t.Fatalf("no pieces for %q", text)
		}
		if o.MaxChars <= 0 && (len(pieces) != 1 || pieces[0] != trimmed) {
			t.Fatalf("cap %d: got %q, want the whole text", o.MaxChars, pieces)
		}
		if o.MaxChars > 0 && runeLen(trimmed) > o.MaxChars {
			for i, p := range pieces {
				if !utf8.ValidString(p) {
					t.Fatalf("piece %d of a cut text is not valid UTF-8: %q", i, p)
				}
			}
		}
		checkPieces(t, text, o, pieces)
	})
}

// TestSplitKeepsCharactersWhole: a text without spaces (Thai, a run of
// accented letters written with combining marks, emoji sequences, flags)
// is cut between the characters a reader sees, never between a letter
// and its marks, inside a joined emoji, or between a flag's two halves.
func TestSplitKeepsCharactersWhole(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
	}{
		{"thai", strings.Repeat("ภาษาไทยไม่มีช่องว่างระหว่างคำที่นี่", 8)},
		{"combining acute", strings.Repeat("e\u0301", 90)},
		{"devanagari", strings.Repeat("नमस्ते", 40)},
		{"family emoji", strings.Repeat("👩\u200d👩\u200d👧\u200d👦", 25)},
		{"flags", strings.Repeat("🇫🇷🇩🇪🇯🇵", 30)},
		{"skin tones", strings.Repeat("👍🏽👋🏿", 40)},
		{"keycaps", strings.Repeat("1\ufe0f\u20e3#\ufe0f\u20e3", 40)},
	} {
		for _, o := range []Options{{MaxChars: 17, OverlapChars: 4}, {MaxChars: 40}, {MaxChars: 9, OverlapChars: 3}} {
			t.Run(fmt.Sprintf("%s-%d", tc.name, o.MaxChars), func(t *testing.T) {
				pieces := Split(tc.text, o)
				if len(pieces) < 2 {
					t.Fatalf("only %d pieces", len(pieces))
				}
				checkPieces(t, tc.text, o, pieces)
				if strings.Join(pieces, "") != tc.text {
					t.Errorf("pieces of a text without spaces do not concatenate to it: %q", pieces)
				}
				for i, p := range pieces {
					first, _ := utf8.DecodeRuneInString(p)
					last, _ := utf8.DecodeLastRuneInString(p)
					if unicode.In(first, unicode.Mn, unicode.Mc, unicode.Me) || first == '\u200d' || first == '\ufe0f' || (first >= 0x1F3FB && first <= 0x1F3FF) || last == '\u200d' {
						t.Errorf("piece %d is cut inside a character: %q", i, p)
					}
					if countRegional(p)%2 != 0 {
						t.Errorf("piece %d holds half a flag: %q", i, p)
					}
				}
			})
		}
	}
}

// countRegional counts the regional indicator symbols of s (two make a
// flag).
func countRegional(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x1F1E6 && r <= 0x1F1FF {
			n++
		}
	}
	return n
}

// TestSplitInvisibleCharacters: a byte-order mark or zero-width space
// around a text is no part of it (the same text with and without one is
// one text), a text of nothing else is no piece, and a zero-width space
// inside text written without spaces (Thai) is where a piece may end.
func TestSplitInvisibleCharacters(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		want []string
	}{
		{"bom only", "\ufeff", nil},
		{"zero-width only", "\u200b \u200b\u2060\n", nil},
		{"bom before text", "\ufeffhello world", []string{"hello world"}},
		{"zero-width around text", "\u200b hello world\u200b\u200d", []string{"hello world"}},
		{"joiner inside kept", "a\u200db", []string{"a\u200db"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Split(tc.text, Options{MaxChars: 40}); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Split(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
	t.Run("thai words", func(t *testing.T) {
		words := []string{"ภาษาไทย", "ไม่มี", "ช่องว่าง", "ระหว่าง", "คำ"}
		var all []string
		for range 12 {
			all = append(all, words...)
		}
		text := strings.Join(all, "\u200b")
		o := Options{MaxChars: 30, OverlapChars: 8}
		pieces := Split(text, o)
		checkPieces(t, text, o, pieces)
		for i, p := range pieces {
			if !isRunOf(p, all, "\u200b") {
				t.Errorf("piece %d is not made of whole words: %q", i, p)
			}
		}
	})
}

// TestSplitParagraphsWhateverTheLineEnds: a text with Windows line ends
// (CRLF), or blank lines holding a few spaces, is cut at the same
// paragraph breaks as the same text with bare line feeds.
func TestSplitParagraphsWhateverTheLineEnds(t *testing.T) {
	var paras []string
	for i := range 30 {
		paras = append(paras, fmt.Sprintf("Paragraph %d starts here.\nIt has a second line. And a sentence.", i))
	}
	lf := strings.Join(paras, "\n\n")
	o := Options{MaxChars: 240, OverlapChars: 0}
	want := Split(lf, o)
	for name, text := range map[string]string{
		"crlf":              strings.ReplaceAll(lf, "\n", "\r\n"),
		"spaces in a blank": strings.ReplaceAll(lf, "\n\n", "\n  \n"),
		"tab and crlf":      strings.ReplaceAll(strings.ReplaceAll(lf, "\n\n", "\n\t\n"), "\n", "\r\n"),
	} {
		t.Run(name, func(t *testing.T) {
			pieces := Split(text, o)
			checkPieces(t, text, o, pieces)
			if len(pieces) != len(want) {
				t.Fatalf("%d pieces, want %d as with line feeds:\n%q", len(pieces), len(want), pieces)
			}
			for i, p := range pieces {
				lfs := strings.NewReplacer("\n  \n", "\n\n", "\n\t\n", "\n\n").Replace(strings.ReplaceAll(p, "\r\n", "\n"))
				if !isRunOf(lfs, paras, "\n\n") {
					t.Errorf("piece %d is not made of whole paragraphs: %q", i, p)
				}
			}
		})
	}
}

// TestSplitEveryPieceAddsText: no piece is only a repeat of text its
// predecessor holds, however much space lies between the words: a run of
// blanks longer than the overlap used to make a piece of the overlap
// alone, and a window starting on spaces a piece its successor repeated
// whole.
func TestSplitEveryPieceAddsText(t *testing.T) {
	words := numberedWords(40) // w0001 ... w0040, each once
	tests := []struct {
		name string
		text string
		o    Options
	}{
		{"spaces", words[:120] + strings.Repeat(" ", 300) + words[120:], Options{MaxChars: 100, OverlapChars: 40}},
		{"blank lines", words[:120] + strings.Repeat("\n", 300) + words[120:], Options{MaxChars: 100, OverlapChars: 40}},
		{"padding", words[:60] + strings.Repeat(" ", 70) + words[60:], Options{MaxChars: 100, OverlapChars: 30}},
		{"window on spaces", "w0001w0002w0003  w0004 w0005w0006", Options{MaxChars: 20, OverlapChars: 9}},
		{"content then spaces", words[:170] + strings.Repeat(" ", 300) + words[170:], Options{MaxChars: 100, OverlapChars: 40}},
		// Found by fuzzing: the window after the first piece held its
		// overlap "w0003" and blanks, and was a piece of its own.
		{"overlap then spaces", "w0001 w0002 w0003           w0004", Options{MaxChars: 20, OverlapChars: 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pieces := Split(tt.text, tt.o)
			checkPieces(t, tt.text, tt.o, pieces)
			if len(pieces) < 2 {
				t.Fatalf("only %d pieces", len(pieces))
			}
			// Each word is once in the text: a piece adds text when its
			// last word comes after its predecessor's, and is not repeated
			// whole when its successor's first word comes after its own.
			first := func(p string) int { return strings.Index(tt.text, p[:5]) }
			last := func(p string) int { return strings.LastIndex(tt.text, p[len(p)-5:]) }
			for i := 1; i < len(pieces); i++ {
				if last(pieces[i]) <= last(pieces[i-1]) {
					t.Errorf("piece %d %q adds nothing to piece %d %q", i, pieces[i], i-1, pieces[i-1])
				}
				if first(pieces[i]) <= first(pieces[i-1]) {
					t.Errorf("piece %d %q repeats piece %d %q whole", i, pieces[i], i-1, pieces[i-1])
				}
			}
		})
	}
	// The FuzzChunk seed: the second window began on the two spaces, and
	// its piece "1" was repeated whole by the third.
	if got, want := Split("0000000  1 0000", Options{MaxChars: 7, OverlapChars: 101}), []string{"0000000", "1 0000"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Split = %q, want %q", got, want)
	}
}

// TestSplitKeepsCodeFencesWhole: a fenced code block that fits in a piece
// is not cut, and no piece begins inside one (its code would read as
// prose and its closing fence open a block); a block longer than a piece
// is cut at its lines.
func TestSplitKeepsCodeFencesWhole(t *testing.T) {
	prose := func(n int) string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprintf("Sentence %d of the notes explains the parser.", i))
		}
		return strings.Join(s, " ")
	}
	code := func(fence string, n int) string {
		lines := []string{fence + "go"}
		for i := range n {
			lines = append(lines, fmt.Sprintf("\tif err := step%d(); err != nil {\n\t\treturn err\n\t}", i))
		}
		return strings.Join(append(lines, fence), "\n")
	}
	fences := func(p string) int {
		n := 0
		for l := range strings.SplitSeq(p, "\n") {
			if l = strings.TrimLeft(l, " "); strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") {
				n++
			}
		}
		return n
	}
	for _, tc := range []struct {
		name string
		text string
		o    Options
	}{
		{"block after prose", prose(6) + "\n\n" + code("```", 6) + "\n\n" + prose(12), Options{MaxChars: 400, OverlapChars: 60}},
		{"tilde block", prose(4) + "\n" + code("~~~", 5) + "\n" + prose(12), Options{MaxChars: 350, OverlapChars: 80}},
		{"two blocks", prose(3) + "\n\n" + code("```", 4) + "\n\n" + prose(5) + "\n\n" + code("```", 4) + "\n\n" + prose(8), Options{MaxChars: 300, OverlapChars: 40}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pieces := Split(tc.text, tc.o)
			checkPieces(t, tc.text, tc.o, pieces)
			for i, p := range pieces {
				if fences(p)%2 != 0 {
					t.Errorf("piece %d cuts a code block:\n%s", i, p)
				}
			}
		})
	}
	t.Run("block longer than a piece", func(t *testing.T) {
		text := prose(2) + "\n\n" + code("```", 30) + "\n\n" + prose(4)
		o := Options{MaxChars: 300, OverlapChars: 40}
		pieces := Split(text, o)
		checkPieces(t, text, o, pieces)
		for i, p := range pieces[1:] {
			if strings.HasPrefix(p, "return err") || strings.HasPrefix(p, "}") && !strings.HasPrefix(p, "}\n") {
				t.Errorf("piece %d does not start at a line of the block: %q", i+1, p[:min(len(p), 30)])
			}
		}
	})
}

// TestSplitKeepsLongWordsWhole: a word without spaces longer than half a
// piece (a URL, a path, a hash) that fits in a piece is not cut: the piece
// before it ends early instead. Only a word longer than a piece is cut.
func TestSplitKeepsLongWordsWhole(t *testing.T) {
	url := "https://github.com/nova-recall/nova/blob/main/index/chunk/chunk.go?plain=1#L42-L97&context=" + strings.Repeat("x", 30)
	path := "/Users/alex/Library/Application-Support/nova/generations/20260301T080000Z-3f9c/segments/000017.seg"
	for _, tc := range []struct {
		name, word string
		o          Options
	}{
		{"url", url, Options{MaxChars: 150, OverlapChars: 20}},
		{"path", path, Options{MaxChars: 120, OverlapChars: 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := "See the notes on the parser at " + tc.word + " before the next change, and " + tc.word + " again."
			pieces := Split(text, tc.o)
			checkPieces(t, text, tc.o, pieces)
			whole := 0
			for _, p := range pieces {
				whole += strings.Count(p, tc.word)
				for _, w := range strings.Fields(p) {
					if w != tc.word && strings.Contains(tc.word, w) && len(w) > 12 {
						t.Errorf("piece %q holds part of %q: %q", p, tc.word, w)
					}
				}
			}
			if whole < 2 {
				t.Errorf("the word is whole %d times in %q", whole, pieces)
			}
		})
	}
}

// TestSplitKeepsTablesWhole: a Markdown table that fits in a piece is not
// cut (rows apart from the header that names their columns read as bare
// values), whatever precedes it.
func TestSplitKeepsTablesWhole(t *testing.T) {
	var rows []string
	rows = append(rows, "| host | port | state |", "|------|-----:|:-----:|")
	for i := range 6 {
		rows = append(rows, fmt.Sprintf("| web-%d | %d | up |", i, 8000+i))
	}
	table := strings.Join(rows, "\n")
	intro := "The staging hosts and their ports after the move to the new proxy, as the runbook lists them."
	for _, tc := range []struct {
		name string
		text string
		o    Options
	}{
		{"after a paragraph", intro + "\n\n" + table + "\n\nThe proxy reads this table at start.", Options{MaxChars: 200, OverlapChars: 30}},
		{"after a line", intro + "\n" + table + "\nThe proxy reads this table at start.", Options{MaxChars: 220, OverlapChars: 0}},
		{"indented pipes", intro + "\n\n" + strings.ReplaceAll("\n"+table, "\n|", "\n  |")[1:] + "\n\nDone.", Options{MaxChars: 210, OverlapChars: 30}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pieces := Split(tc.text, tc.o)
			checkPieces(t, tc.text, tc.o, pieces)
			for i, p := range pieces {
				if strings.Contains(p, "web-") && !strings.Contains(p, "| host | port | state |") {
					t.Errorf("piece %d holds rows without their header:\n%s", i, p)
				}
			}
		})
	}
}

// TestSplitMarkupOnly: a text of markup and punctuation alone (a rule, an
// empty code block or table, an ellipsis) holds nothing to find and is no
// piece; a text with a letter, a digit or a symbol such as an emoji is.
func TestSplitMarkupOnly(t *testing.T) {
	for text, want := range map[string][]string{
		"---":                         nil,
		"* * *":                       nil,
		"```\n```":                    nil,
		"| | |\n|---|---|\n| | |":     nil,
		"...":                         nil,
		"<!-- -->":                    nil,
		"👍":                           {"👍"},
		"+1":                          {"+1"},
		"## Done":                     {"## Done"},
		"---\nport 8080 is open\n---": {"---\nport 8080 is open\n---"},
	} {
		if got := Split(text, Options{MaxChars: 40}); !reflect.DeepEqual(got, want) {
			t.Errorf("Split(%q) = %q, want %q", text, got, want)
		}
	}
}
