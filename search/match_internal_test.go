package search

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/lexical"
)

// TestMetaScore: English markers match at word boundaries, CJK markers as
// substrings, and three markers make a text wholly meta-discussion.
func TestMetaScore(t *testing.T) {
	an := lexical.NewAnalyzer()
	for _, c := range []struct {
		text string
		want float64
	}{
		{"The benchmark showed recall@10 in the RAG eval.", 1},
		{"召回率和检索质量都有质量问题", 1},
		{"内置 eval 的召回率", 2.0 / 3},
		{"Benchmarking the parser", 0},
		{"the dashboard port was down after the deploy", 0},
		{"部署后仪表盘端口不可用", 0},
	} {
		if got := metaScore(newTextView(an, c.text)); got != c.want {
			t.Errorf("metaScore(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// TestContainsAtBoundary_cjkNeighbours: a Latin or digit run written
// into CJK text with no space is a word of its own, as the analyzer
// indexes it, while a longer Latin or digit run still holds no shorter
// word, and CJK text next to CJK is no boundary.
func TestContainsAtBoundary_cjkNeighbours(t *testing.T) {
	for _, c := range []struct {
		hay, needle string
		want        bool
	}{
		{"我用docker部署", "docker", true},
		{"端口改成5433了", "5433", true},
		{"用了goose做迁移", "goose", true},
		{"サーバーは東京-01です", "01", true},
		{"the port is 5433.", "5433", true},
		{"端口改成54330了", "5433", false},
		{"端口改成15433了", "5433", false},
		{"监控服务的dockerfile写法", "docker", false},
		{"用mydocker部署", "docker", false},
		{"café5433", "5433", false},
		{"在東京都", "東京", false},
	} {
		if got := containsAtBoundary(c.hay, c.needle); got != c.want {
			t.Errorf("containsAtBoundary(%q, %q) = %v, want %v", c.hay, c.needle, got, c.want)
		}
	}
}

// TestTextViewCovers_cjkNeighbours: a term's other forms are found in a
// Latin or Russian word written into CJK text with no space as in one
// written between spaces: by its stem at the start of the word
// (outages for outage) and by the word's stem (cities for city, базы for
// база); a longer word that stems otherwise is still no match.
func TestTextViewCovers_cjkNeighbours(t *testing.T) {
	an := lexical.NewAnalyzer()
	for _, c := range []struct {
		text, term string
		want       bool
	}{
		{"上周的outages都修好了", "outage", true},
		{"这些cities的服务器", "city", true},
		{"我们的базы数据", "база", true},
		{"这些citizens的服务器", "city", false},
		{"端口改成54330了", "5433", false},
	} {
		if got := newTextView(an, c.text).covers(newMatchTerm(an, c.term)); got != c.want {
			t.Errorf("%q covers %q = %v, want %v", c.text, c.term, got, c.want)
		}
	}
}

// TestMarkerSetMatchesContainsAtBoundary: the one-pass count finds the
// markers that a search per marker finds (containsAtBoundary for English
// markers, strings.Contains for CJK ones), on random text made of the
// markers, their pieces, words and characters that run into them and
// punctuation.
func TestMarkerSetMatchesContainsAtBoundary(t *testing.T) {
	pieces := []string{" ", "-", "/", "@", ".", "x", "9", "é", "中", "top", "recall", "quality", "eval", "gate", "rag", "benchmarks", "topkapi", "q0", "-q2",
		"召", "召回", "质量", "内置", "默认", "测试", "真实", "检索", "率"}
	checkMarkerCounts(t, metaSet, metaMarkers, pieces, 2)
}

// TestMarkerSetSharedStarts: markers whose first two bytes are neighbours
// (one word of the starts bitset) or the same are each found: the lookup
// by rank tells them apart, as the meta markers, whose starts all lie in
// different words, do not show.
func TestMarkerSetSharedStarts(t *testing.T) {
	markers := []string{"ab", "abc", "ac", "ad x", "ae", "ba", "bb", "中文", "中国", "中"}
	pieces := []string{" ", "-", "a", "b", "c", "d", "x", "é", "文", "国", "中"}
	checkMarkerCounts(t, newMarkerSet(markers), markers, pieces, 3)
}

// checkMarkerCounts compares set's count with a search per marker on
// 20 000 random texts of the markers and pieces.
func checkMarkerCounts(t *testing.T, set *markerSet, markers, pieces []string, seed uint64) {
	t.Helper()
	pieces = append(slices.Clip(pieces), markers...)
	rng := rand.New(rand.NewPCG(seed, seed))
	for range 20_000 {
		var b strings.Builder
		for range rng.IntN(10) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		hay := b.String()
		want := 0
		for _, m := range markers {
			if lexical.HasCJK(m) && strings.Contains(hay, m) || !lexical.HasCJK(m) && containsAtBoundary(hay, m) {
				want++
			}
		}
		if got := set.count(hay); got != want {
			t.Fatalf("count(%q) = %d, want %d", hay, got, want)
		}
	}
}

// TestCollapseSpace_asFields: text that needs collapsing comes out as its
// words joined by single spaces, as strings.Fields splits them, whatever
// space characters separate them (NEL and the line separator are not
// made plain by NFKC).
func TestCollapseSpace_asFields(t *testing.T) {
	for _, s := range []string{
		"Title\nbody text",
		"  lead and trail  \n",
		"a\t\tb\r\nc\v\fd",
		"x\u0085y\u2028z  w",
		"混合\n文本  and\u3000words",
		"\n",
		"one  two",
		"é\nü",
	} {
		if got, want := collapseSpace(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
	}
	if s := "no break here"; collapseSpace(s) != s {
		t.Errorf("collapseSpace changed %q", s)
	}
}

// FuzzCollapseSpace holds collapseSpace to strings.Fields on any text
// that needs collapsing.
func FuzzCollapseSpace(f *testing.F) {
	f.Add("Title\nbody  text\t")
	f.Add("x\u0085y\u2028z")
	f.Fuzz(func(t *testing.T, s string) {
		got := collapseSpace(s)
		if !needsCollapse(s) {
			if got != s {
				t.Fatalf("collapseSpace(%q) = %q, want it unchanged", s, got)
			}
			return
		}
		if want := strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
	})
}

// BenchmarkCollapseSpace prepares a candidate's title and text, as
// query.view does for every head candidate.
func BenchmarkCollapseSpace(b *testing.B) {
	s := "Deploy notes\n" + strings.Repeat("the parser reads the config  file and builds a plan; ", 40) + "\n"
	zh := "会议记录\n" + strings.Repeat("我们讨论了新的部署计划和配置文件。 ", 40)
	b.Run("en", func(b *testing.B) {
		for b.Loop() {
			collapseSpace(s)
		}
	})
	b.Run("zh", func(b *testing.B) {
		for b.Loop() {
			collapseSpace(zh)
		}
	})
}
