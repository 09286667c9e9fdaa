package truncate

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestWidth(t *testing.T) {
	for _, tt := range []struct {
		s    string
		w    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello world", 6, "hello…"},
		{"日本語のテキスト", 7, "日本語…"}, // two cells a character
		{"naïve café", 6, "naïve…"},
		{"\x1b[1mbold text\x1b[0m", 5, "\x1b[1mbold…\x1b[0m"},
		{"abc", 0, ""},
	} {
		got := Width(tt.s, tt.w)
		if got != tt.want {
			t.Errorf("Width(%q, %d) = %q, want %q", tt.s, tt.w, got, tt.want)
		}
		if ansi.StringWidth(got) > tt.w || !utf8.ValidString(got) {
			t.Errorf("Width(%q, %d) = %q: %d cells, valid UTF-8 %v", tt.s, tt.w, got, ansi.StringWidth(got), utf8.ValidString(got))
		}
	}
}

func TestLeft(t *testing.T) {
	for _, tt := range []struct {
		s    string
		w    int
		want string
	}{
		{"notes/a.md", 20, "notes/a.md"},
		{"/home/dev/notes/2026/march/standup.md", 12, "…/standup.md"},
		{"/srv/メモ/会議の記録.md", 10, "…の記録.md"},
		// The cut falls inside の (two cells): it goes, or the line
		// would be a cell wider than asked.
		{"/srv/メモ/会議の記録.md", 9, "…記録.md"},
		{"ab日本", 2, "…"},
		{"ab日本", 0, ""},
	} {
		got := Left(tt.s, tt.w)
		if got != tt.want {
			t.Errorf("Left(%q, %d) = %q, want %q", tt.s, tt.w, got, tt.want)
		}
		if ansi.StringWidth(got) > tt.w {
			t.Errorf("Left(%q, %d) = %q is %d cells", tt.s, tt.w, got, ansi.StringWidth(got))
		}
	}
}

func TestRunesAndBytes(t *testing.T) {
	s := "aé日🙂z"
	for n, want := range []string{"", "a", "aé", "aé日", "aé日🙂", "aé日🙂z", "aé日🙂z"} {
		if got := Runes(s, n); got != want {
			t.Errorf("Runes(%q, %d) = %q, want %q", s, n, got, want)
		}
	}
	// a(1) é(2) 日(3) 🙂(4) z(1)
	for n, want := range map[int]string{0: "", 1: "a", 2: "a", 3: "aé", 5: "aé", 6: "aé日", 9: "aé日", 10: "aé日🙂", 11: s, 99: s, -1: ""} {
		if got := Bytes(s, n); got != want {
			t.Errorf("Bytes(%q, %d) = %q, want %q", s, n, got, want)
		}
	}
}

// TestRunesKeepsClustersWhole: Runes cuts between the characters a reader
// sees: not between a letter and its accent, inside a family emoji or a
// flag; a cluster longer than the limit is cut by code points.
func TestRunesKeepsClustersWhole(t *testing.T) {
	family := "\U0001F468\u200D\U0001F469\u200D\U0001F467" // 5 code points
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"ae\u0301z", 2, "a"},
		{"ae\u0301z", 3, "ae\u0301"},
		{"x" + family + "y", 3, "x"},
		{"x" + family + "y", 6, "x" + family},
		{"\U0001F1EB\U0001F1F7!", 1, "\U0001F1EB"},
		{"\U0001F1EB\U0001F1F7!", 2, "\U0001F1EB\U0001F1F7"},
	} {
		if got := Runes(c.s, c.n); got != c.want {
			t.Errorf("Runes(%+q, %d) = %+q, want %+q", c.s, c.n, got, c.want)
		}
	}
}

func TestWords(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"the quick brown fox", 12, "the quick"},                                              // back to the space
		{"the quickbrownfox jumps", 12, "the quickbro"},                                       // the space is in the first half
		{"the quick brown fox", 9, "the quick"},                                               // between words already
		{"the quick, brown", 10, "the quick,"},                                                // and after a comma
		{"we then call the function parseConfigFromEnv now", 40, "we then call the function"}, // an identifier is a word
		{"we edited the file src/config.go today", 30, "we edited the file"},                  // and so is a path
		{"数据库 迁移 计划", 7, "数据库 迁移"},
		{"数据库迁移计划", 4, "数据库迁"}, // any two Han characters
		{"the 数据库迁移", 6, "the 数据"},
	} {
		if got := Words(tt.s, tt.n); got != tt.want {
			t.Errorf("Words(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

// Every cut is valid UTF-8 and within its limit, whatever the input.
func FuzzCuts(f *testing.F) {
	f.Add("hello wörld 日本語 🙂", 5)
	f.Add("bold 👩\u200d💻 e\u0301 🇫🇷 ｶﾀｶﾅ src/internal/config.go", 9)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 64
		if !utf8.ValidString(s) {
			return
		}
		for name, got := range map[string]string{"Width": Width(s, n), "Left": Left(s, n), "Runes": Runes(s, n), "Bytes": Bytes(s, n), "Words": Words(s, n)} {
			if !utf8.ValidString(got) {
				t.Fatalf("%s(%q, %d) = %q is not valid UTF-8", name, s, n, got)
			}
		}
		if n >= 0 && (utf8.RuneCountInString(Runes(s, n)) > n || len(Bytes(s, n)) > n || utf8.RuneCountInString(Words(s, n)) > n) {
			t.Fatalf("over the limit at %d: %q %q %q", n, Runes(s, n), Bytes(s, n), Words(s, n))
		}
		if !strings.HasPrefix(s, Runes(s, n)) || !strings.HasPrefix(s, Bytes(s, n)) || !strings.HasPrefix(s, Words(s, n)) {
			t.Fatalf("not a prefix: %q %q %q of %q", Runes(s, n), Bytes(s, n), Words(s, n), s)
		}
		// What a terminal shows of Width's and Left's cuts fits the cells
		// given (a column of a table, the status line), colours or not.
		// Of text with control characters in it (a stray ESC) no width is
		// sure: the callers make it inert first (package inert).
		if strings.ContainsFunc(s, unicode.IsControl) {
			return
		}
		for _, text := range []string{s, "\x1b[1m" + s + "\x1b[0m"} {
			for name, got := range map[string]string{"Width": Width(text, n), "Left": Left(text, n)} {
				if w := ansi.StringWidth(got); w > max(n, 0) {
					t.Fatalf("%s(%q, %d) = %q is %d cells wide", name, text, n, got, w)
				}
			}
		}
	})
}
