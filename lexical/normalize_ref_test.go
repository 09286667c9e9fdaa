package lexical

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// normalizeReference is Normalize as it was before its single-pass
// rewrite (27e5df4), kept as the reference the rewrite must match for
// every input: an index built by either must be the same. The general
// path drops ignorable characters and optional marks and folds letters
// since (neither short way takes one).
func normalizeReference(s string) string {
	if isASCIIReference(s) {
		return strings.ToLower(s)
	}
	if n, ok := normalizeChineseReference(s); ok {
		return n
	}
	return slowNormalize(s)
}

func isASCIIReference(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// normalizeChineseReference is normalizeChinese as it was before the
// rewrite.
func normalizeChineseReference(s string) (string, bool) {
	var b []byte
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

// normalizeCases are texts of each kind Normalize takes a different way
// through: lower-case ASCII (returned as it is), ASCII with capitals,
// Chinese with and without traditional characters and full-width forms,
// and text only the general path (NFKC) handles.
var normalizeCases = []string{
	"",
	"a",
	"A",
	"port 3036 is not available",
	"Port 3036 UNAVAILABLE: see PR #42 / ~/.nova",
	"ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz@",
	"\x00\x1f\x7f tabs\tand\nnewlines",
	"端口为什么不可用",
	"端口为什么不可用，遷移計劃：ＡＢＣ１２３！",
	"這個遷移計劃",
	"《报告》“好”—完",
	"We’re “done” — mostly",
	"ＦＵＬＬ　ＷＩＤＴＨ",
	"…\u3000ｶﾀｶﾅ",
	"e\u0301 and É and Straße and ΣΑΣ",
	"ﬁle ① ㎏ Ⅻ",
	"\xff中",
	"ok\xffOK",
	"\xe4\xb8",
	"Ａ\u0301",
	"中\u0301",
	"İstanbul KELVIN \u212a",
	"\U0002A6A5 𠀀 😀 Emoji",
	"\uFFFD replacement",
	"the turn before … The Turn After … 下一句…… 全角…\u0301",
	"hyph\u00aden\u00adation pass\u200dword \ufeffBOM 葛\U000E0100飾 zero\u200bwidth",
	"Café RÉSUMÉ naïve Straße STRAẞE Ærø œuvre Łódź kırmızı Việt Þing ǣ ǅ молоко\u0301 й が",
	"ΑΘΗΝΑ Αθήνα ΟΔΟΣ οδός ᾅδης ΐ Ёлка ї كَتَبَ العربيـــة שָׁלוֹם",
}

// TestNormalizeSameAsReference: on texts of every kind, Normalize gives
// what the reference (the implementation before the rewrite) gives.
func TestNormalizeSameAsReference(t *testing.T) {
	for _, s := range normalizeCases {
		if got, want := Normalize(s), normalizeReference(s); got != want {
			t.Errorf("Normalize(%q) = %q, want %q (the reference)", s, got, want)
		}
	}
}

// TestNormalizeSameAtEveryOffset: a character Normalize changes or
// refuses (a capital, the bytes on either side of the capitals, a
// Chinese, a full-width, a general-path character, an invalid byte) at
// every offset of ASCII text without capitals, across and between the
// eight-byte words skipLowerASCII reads, gives what the reference gives.
func TestNormalizeSameAtEveryOffset(t *testing.T) {
	const plain = "abcdefghijklmnopqrstuvwxy 0123456789@[`{"
	for _, c := range []string{"A", "Z", "@", "[", "中", "遷", "Ｑ", "…", "……", "é", "\u3000", "\xff", "\xe4\xb8"} {
		for i := 0; i <= len(plain); i++ {
			for _, s := range []string{plain[:i] + c + plain[i:], plain[:i] + c, c + plain[i:]} {
				if got, want := Normalize(s), normalizeReference(s); got != want {
					t.Errorf("Normalize(%q) = %q, want %q (the reference)", s, got, want)
				}
			}
		}
	}
}

// FuzzNormalizeSame: whatever the text, Normalize gives what the
// reference gives.
func FuzzNormalizeSame(f *testing.F) {
	for _, s := range normalizeCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Normalize(s), normalizeReference(s); got != want {
			t.Fatalf("Normalize(%q) = %q, want %q (the reference)", s, got, want)
		}
	})
}

// normalizeBenchTexts are texts like those a search normalises for every
// candidate (a title, a record's text) and a build for every chunk.
var normalizeBenchTexts = []struct{ name, text string }{
	{"lower", "the migration deadlocked on the replica, so we rolled it back and retried after vacuum"},
	{"english", "The migration deadlocked on the Postgres replica, so we rolled it back. Retry after VACUUM finished?"},
	{"mixed", "We’re “done” with the café rollout — mostly… the p99 is 12 ms → 9 ms."},
	{"chinese", "端口为什么不可用？我们把迁移计划推迟到下周，先修复数据库的死锁问题。"},
	{"traditional", "這個遷移計劃為什麼失敗？資料庫的死鎖問題還沒有修復，ＡＢＣ１２３！"},
	{"long", strings.Repeat("Deploy the canary to Staging, then check the Grafana dashboard for latency spikes. ", 24)},
}

func BenchmarkNormalize(b *testing.B) {
	for _, c := range normalizeBenchTexts {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			b.ReportAllocs()
			for b.Loop() {
				Normalize(c.text)
			}
		})
	}
}
