package lexical

import (
	_ "embed"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// zhRelatedZst holds, for each Chinese word of two characters or more of
// the segmenter's dictionary that CC-CEDICT glosses, up to twelve words of
// related meaning, most related first, and up to six English words, its
// common senses first ("word\trelated ...\tenglish ..."): 饭馆 餐馆 饭店
// 酒楼, 笔试 口试 测验, 康复 休养 养病; 端口 interface port.
// scripts/gen-zh-related.sh makes it from CC-CEDICT's English glosses and
// WordNet; licence in data/NOTICE.
//
//go:embed data/zh-related.txt.zst
var zhRelatedZst []byte

// zhGlosses are a word's related words and English words, each joined by
// spaces.
type zhGlosses struct{ related, english string }

// zhRelated maps a word to its glosses, pieces of the decompressed table
// (eachLine). It is read on the first Chinese query (or by LoadChinese),
// so an English-only user never pays for it.
var zhRelated = sync.OnceValue(func() map[string]zhGlosses {
	m := make(map[string]zhGlosses, 46_000)
	eachLine(zhRelatedZst, func(line string) {
		word, rest, _ := strings.Cut(line, "\t")
		related, english, _ := strings.Cut(rest, "\t")
		m[word] = zhGlosses{related, english}
	})
	return m
})

// RelatedWords returns the words related in meaning to the Chinese
// content words of a normalised query (Normalize): Chinese words, none of
// the query's own, and English words (the words' glosses, for memories in
// English), each once, in the order of the query's words, each word's
// most related first. A memory says 餐馆 or 饭店 where a question asks
// about a 饭馆, 考 where it asks about a 考试, "port" where it asks about
// an 端口: the analyzer's terms join word forms, not words. English
// questions have no such table: WordNet synonyms, searched the same way,
// moved LoCoMo dev by noise (BENCHMARKS.md).
func RelatedWords(query string) (chinese, english []string) {
	// A single character is too ambiguous to expand: 陈 of 陈默 is also
	// 陈列 and 东晋.
	words := slices.DeleteFunc(ChineseWords(query), func(w string) bool { return utf8.RuneCountInString(w) < 2 })
	if len(words) == 0 {
		return nil, nil
	}
	table := zhRelated()
	seen := make(map[string]bool, len(words))
	for _, w := range words {
		seen[w] = true
	}
	for _, w := range words {
		g := table[w]
		for r := range strings.FieldsSeq(g.related) {
			// A function word is related to others by its gloss
			// (不可: 不能, 应该) and is evidence of nothing.
			if !seen[r] && !isZhStopWord(r) {
				seen[r] = true
				chinese = append(chinese, r)
			}
		}
		for e := range strings.FieldsSeq(g.english) {
			if !seen[e] {
				seen[e] = true
				english = append(english, e)
			}
		}
	}
	return chinese, english
}

// ChineseWords returns the segmenter's content words (Segment) of the
// runs of Han characters of a normalised text, in order.
func ChineseWords(normalized string) []string {
	var words []string
	for run := range hanRuns(normalized) {
		words = append(words, Segment(run)...)
	}
	return words
}

// hanRuns yields the runs of Han characters of s.
func hanRuns(s string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		start := -1
		for i, r := range s {
			han := r >= utf8.RuneSelf && unicode.Is(unicode.Han, r)
			switch {
			case han && start < 0:
				start = i
			case !han && start >= 0:
				if !yield(s[start:i]) {
					return
				}
				start = -1
			}
		}
		if start >= 0 {
			yield(s[start:])
		}
	}
}
