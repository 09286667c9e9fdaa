package lexical

import (
	"slices"
	"testing"
)

func TestLemmas(t *testing.T) {
	a := NewAnalyzer()
	for form, lemma := range map[string]string{"drew": "draw", "bought": "buy", "children": "child", "went": "go", "mice": "mouse", "taught": "teach", "men": "man"} {
		if got, want := a.Terms(form), a.Terms(lemma); !slices.Equal(got, want) {
			t.Errorf("%s -> %v, %s -> %v: want the same term", form, got, lemma, want)
		}
	}
	// Forms that are common nouns in their own right keep their own term.
	for _, w := range []string{"ground", "left", "wound"} {
		if got := a.Terms(w); !slices.Equal(got, []string{a.Stem(w)}) {
			t.Errorf("%s -> %v", w, got)
		}
	}
	// The lever can be switched off.
	if got := NewAnalyzerWith(Options{NoLemmas: true}).Terms("drew"); !slices.Equal(got, []string{"drew"}) {
		t.Errorf("NoLemmas: drew -> %v", got)
	}
	if n := len(lemmas()); n < 4000 {
		t.Errorf("only %d lemmas loaded", n)
	}
}

func TestChineseSegmentation(t *testing.T) {
	d := zhWords()
	if got, want := d.segment("我上周去了北京的故宫博物院"), []string{"我", "上周", "去", "了", "北京", "的", "故宫博物院"}; !slices.Equal(got, want) {
		t.Errorf("segment = %q, want %q", got, want)
	}
	// Unknown characters stay single; an empty run has no words.
	if got := d.segment("龘"); !slices.Equal(got, []string{"龘"}) {
		t.Errorf("unknown character: %q", got)
	}
	if got := d.segment(""); len(got) != 0 {
		t.Errorf("empty run: %q", got)
	}
	a := NewAnalyzer()
	terms := a.Terms("故宫博物院")
	for _, w := range []string{"故宫博物院", "故宫", "博物", "博物院", "宫博"} {
		if !slices.Contains(terms, w) {
			t.Errorf("Terms(故宫博物院) = %q lacks %q", terms, w)
		}
	}
	// Question words are not indexed, in any form.
	for _, w := range []string{"什么", "为什", "怎么", "哪里"} {
		if slices.Contains(a.Terms("为什么他怎么去哪里买什么"), w) {
			t.Errorf("question word %q indexed", w)
		}
	}
	// Without segmentation: the plain bigrams of before.
	if got, want := NewAnalyzerWith(Options{NoSegmentation: true}).Terms("端口为什么不可用"), []string{"端口", "口为", "为什", "什么", "么不", "不可", "可用"}; !slices.Equal(got, want) {
		t.Errorf("NoSegmentation: %q, want %q", got, want)
	}
	if got := Segment("林晓在读哪本书"); slices.Contains(got, "在") || slices.Contains(got, "哪") {
		t.Errorf("Segment keeps stop words: %q", got)
	}
	// A set phrase that only assents is no evidence of its words: the
	// question's 问题 matches a problem, not 没问题 ("sure").
	if terms := a.Terms("没问题，没关系"); len(terms) != 0 {
		t.Errorf("Terms(没问题，没关系) = %q, want none", terms)
	}
	if terms := a.Terms("遇到了什么问题"); !slices.Contains(terms, "问题") {
		t.Errorf("Terms(遇到了什么问题) = %q lacks 问题", terms)
	}
	// A determiner's measure word comes apart from the noun after it, the
	// same way in a question and in a memory, and is no evidence: 哪本科幻
	// is not 本科 (undergraduate), and 这首歌 is about a 歌.
	for text, want := range map[string][]string{
		"林晓在读哪本科幻小说": {"林", "晓", "在读", "科幻", "小说"},
		"你喜欢哪首歌":     {"喜欢", "歌"},
		"我最喜欢这首歌":    {"喜欢", "歌"},
		"他去了哪家医院":    {"去", "医院"},
		"那本书很好看":     {"本书", "好看"},
		"哪本书":        {"本书"},
		"这家伙真烦":      {"家伙", "真", "烦"},
	} {
		if got := Segment(text); !slices.Equal(got, want) {
			t.Errorf("Segment(%s) = %q, want %q", text, got, want)
		}
	}
	// The measure word stays a term (its noun's kind: 张 a photo), the
	// determiner does not.
	if terms := a.Terms("陈默最喜欢哪张照片"); !slices.Contains(terms, "张") || slices.Contains(terms, "哪张") {
		t.Errorf("Terms(陈默最喜欢哪张照片) = %q, want 张 and not 哪张", terms)
	}
}

func TestNormalizeFolds(t *testing.T) {
	for in, want := range map[string]string{
		"ＡＢＣ１２３":  "abc123",
		"遷移計劃，資料": "迁移计划,资料",
		"ｶﾀｶﾅ":    "カタカナ",
		"plain":   "plain",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}
