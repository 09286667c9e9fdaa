package lexical

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// refSegment is segment as first written: every candidate up to the
// longest word is looked up, whether or not a word starts with it.
func refSegment(d *dictionary, run string) []string {
	offs := make([]int, 0, len(run)/3+1)
	for i := range run {
		offs = append(offs, i)
	}
	n := len(offs)
	offs = append(offs, len(run))
	best := make([]float64, n+1)
	next := make([]int, n+1)
	for i := n - 1; i >= 0; i-- {
		best[i], next[i] = d.unknown+best[i+1], i+1
		for j := i + 2; j <= min(n, i+d.maxLen); j++ {
			if e := d.entries[run[offs[i]:offs[j]]]; e.word && e.logP+best[j] > best[i] {
				best[i], next[i] = e.logP+best[j], j
			}
		}
	}
	var out []string
	for i := 0; i < n; i = next[i] {
		out = append(out, run[offs[i]:offs[next[i]]])
	}
	return out
}

// refAppendChinese is appendChinese as first written, on runes.
func refAppendChinese(d *dictionary, out []string, run string) []string {
	bigrams := func(out []string, runes []rune) []string {
		if len(runes) == 1 {
			return append(out, string(runes))
		}
		for k := 0; k+1 < len(runes); k++ {
			out = append(out, string(runes[k:k+2]))
		}
		return out
	}
	var piece []rune
	flush := func() {
		if len(piece) >= 2 {
			out = bigrams(out, piece)
		}
		piece = piece[:0]
	}
	for _, w := range refSegment(d, run) {
		if isZhStopWord(w) {
			if len(piece) > 0 {
				flush()
			}
			if rs := []rune(w); isDeterminerMeasure(w) {
				out = append(out, string(rs[1:]))
			}
			continue
		}
		rs := []rune(w)
		piece = append(piece, rs...)
		for _, r := range rs {
			if !isZhStopWord(string(r)) {
				out = append(out, CharTermPrefix+string(r))
			}
		}
		if len(rs) == 1 {
			out = append(out, w)
			continue
		}
		if len(rs) > 3 {
			for size := 2; size <= 3; size++ {
				for i := 0; i+size <= len(rs); i++ {
					if sub := string(rs[i : i+size]); d.has(sub) {
						out = append(out, sub)
					}
				}
			}
		}
		out = append(out, w)
	}
	if len(piece) > 0 {
		flush()
	}
	return out
}

// TestAppendChinese_reference: the segmentation that stops at strings no
// word starts with, and the terms taken as pieces of the run, are those of
// the plain dynamic programme on runes, on runs of dictionary words, stop
// words and unknown characters at random, long and short.
func TestAppendChinese_reference(t *testing.T) {
	d := zhWords()
	words := make([]string, 0, len(d.entries))
	for w, e := range d.entries {
		if e.word {
			words = append(words, w)
		}
	}
	slices.Sort(words) // a seeded run is the same run every time
	extra := []string{"的", "了", "什么", "龘", "𠀀", "故宫博物院", "我们", "是不是"}
	rng := rand.New(rand.NewPCG(3, 5))
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			if rng.IntN(4) == 0 {
				b.WriteString(extra[rng.IntN(len(extra))])
			} else {
				b.WriteString(words[rng.IntN(len(words))])
			}
		}
		run := b.String()
		if got, want := d.segment(run), refSegment(d, run); !slices.Equal(got, want) {
			t.Fatalf("segment(%q) = %q, want %q", run, got, want)
		}
		if got, want := appendChinese(nil, run), refAppendChinese(d, nil, run); !slices.Equal(got, want) {
			t.Fatalf("appendChinese(%q) = %q, want %q", run, got, want)
		}
	}
	// A run longer than the stack's tables.
	run := strings.Repeat("故宫博物院的数据库迁移", 20)
	if got, want := appendChinese(nil, run), refAppendChinese(d, nil, run); !slices.Equal(got, want) {
		t.Fatalf("appendChinese(long run) = %q, want %q", got, want)
	}
}

// TestAppendBigrams: a CJK run that is not all Han (or any run without
// segmentation) gives its overlapping bigrams, a one-character run the
// character.
func TestAppendBigrams(t *testing.T) {
	for run, want := range map[string][]string{
		"カ":    {"カ"},
		"カタカナ": {"カタ", "タカ", "カナ"},
		"한국어":  {"한국", "국어"},
		"𠀀𠀁":   {"𠀀𠀁"},
	} {
		if got := appendBigrams(nil, run); !slices.Equal(got, want) {
			t.Errorf("appendBigrams(%q) = %q, want %q", run, got, want)
		}
	}
}

func BenchmarkTermsChinese(b *testing.B) {
	text := strings.Repeat("问题 memory 修复生产，数据 spike commit aab2e02。 pprof 问题问题 stack ，信号错误 leak。 配置重试问题主键。 "+
		"部署光标修复加密问题客户端，数据库查询问题数据。 我上周去了北京的故宫博物院，为什么他怎么去哪里买什么。 ", 3)
	a := NewAnalyzer()
	a.Terms(text)
	b.ReportAllocs()
	for b.Loop() {
		a.Terms(text)
	}
}
