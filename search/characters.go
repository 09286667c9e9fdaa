package search

import (
	"slices"
	"unicode/utf8"

	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lexical"
)

// LeverCharacters searches a Chinese question's word through its
// characters (lexical.IsCharTerm) where the word alone finds nothing: a
// word of one character (手 finds 左手, 爸 finds 我爸) and a word that no
// memory's text holds (住处 finds 住在, 钓过鱼's 钓 finds 钓鱼). A word the
// memories do hold is searched as itself: its characters would also match
// every other word that shares one (考级 would find 模拟考), which cost
// recall@1 on the Chinese sets; backing off only where the word is
// missing raised R@1 and R@5 (BENCHMARKS.md).
const LeverCharacters = "characters"

// characterTerms returns the query's terms (words, from the analyzer) with
// only the character terms the lever searches: those of the query's
// one-character words and of its words that no memory of g holds.
func (e *Engine) characterTerms(g *generation.Generation, query string, words []string) []string {
	if !slices.ContainsFunc(words, lexical.IsCharTerm) {
		return words
	}
	if !e.on(LeverCharacters) {
		return slices.DeleteFunc(words, lexical.IsCharTerm)
	}
	searched := map[string]bool{}
	for _, w := range lexical.ChineseWords(lexical.Normalize(query)) {
		if utf8.RuneCountInString(w) > 1 && g.TextDocFreq(w) > 0 {
			continue
		}
		for _, r := range w {
			searched[lexical.CharTermPrefix+string(r)] = true
		}
	}
	return slices.DeleteFunc(words, func(t string) bool { return lexical.IsCharTerm(t) && !searched[t] })
}
