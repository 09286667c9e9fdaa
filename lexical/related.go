package lexical

import (
	_ "embed"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// zhRelatedGz holds, for each Chinese word of the segmenter's dictionary
// that CC-CEDICT glosses, up to twelve words of related meaning, most
// related first ("word\trelated related ..."): 饭馆 餐馆 饭店 酒楼, 笔试
// 口试 测验, 康复 休养 养病. scripts/gen-zh-related.sh makes it from
// CC-CEDICT's English glosses and WordNet; licence in data/NOTICE.
//
//go:embed data/zh-related.txt.gz
var zhRelatedGz []byte

// zhRelated maps a word to its related words, joined by spaces. Each
// value is a piece of one decompressed string: a map of 48 000 words
// then costs its keys and headers, not a slice per word. It is read on
// the first Chinese query, so an English-only user never pays for it.
var zhRelated = sync.OnceValue(func() map[string]string {
	m := make(map[string]string, 50_000)
	eachLine(zhRelatedGz, func(line string) {
		if word, related, ok := strings.Cut(line, "\t"); ok {
			m[word] = related
		}
	})
	return m
})

// RelatedWords returns the words related in meaning to the Chinese
// content words of a normalised query (Normalize), each once and none of
// the query's own words, in the order of the query's words, each word's
// most related first. A memory says 餐馆 or 饭店 where a question asks
// about a 饭馆, 考 where it asks about a 考试: the analyzer's terms join
// word forms, not words. English has no such table: WordNet synonyms,
// searched the same way, moved LoCoMo dev by noise (BENCHMARKS.md).
func RelatedWords(query string) []string {
	var words []string
	for run := range hanRuns(query) {
		for _, w := range Segment(run) {
			// A single character is too ambiguous to expand: 陈 of 陈默
			// is also 陈列 and 东晋.
			if utf8.RuneCountInString(w) >= 2 {
				words = append(words, w)
			}
		}
	}
	if len(words) == 0 {
		return nil
	}
	table := zhRelated()
	seen := make(map[string]bool, len(words))
	for _, w := range words {
		seen[w] = true
	}
	var out []string
	for _, w := range words {
		for r := range strings.FieldsSeq(table[w]) {
			// A function word is related to others by its gloss
			// (不可: 不能, 应该) and is evidence of nothing.
			if !seen[r] && !zhStopWords[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	return out
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
