package lexical

import (
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// dictionary is a Chinese word list with each word's log probability.
type dictionary struct {
	// entries holds every word and every start of a word of two
	// characters or more: segment stops lengthening a candidate once no
	// word starts with it.
	entries map[string]zhEntry
	// maxLen is the longest word, in runes.
	maxLen int
	// unknown is the log probability given to a character that is no
	// word of the dictionary.
	unknown float64
}

// zhEntry is a string of the dictionary: a word (with its log
// probability), the start of a longer word, or both.
type zhEntry struct {
	logP   float64
	word   bool
	longer bool
}

// segment cuts a Han run into its most probable sequence of dictionary
// words (the product of the words' probabilities, by dynamic programming
// from the end of the run, as jieba and gse do without their HMM for
// unknown words). Characters that form no word stay single.
func (d *dictionary) segment(run string) []string {
	return d.appendSegment(nil, run)
}

// appendSegment appends segment's words to out.
func (d *dictionary) appendSegment(out []string, run string) []string {
	// Byte offsets of the runes, and one past the end; the tables of
	// the usual short run stay on the stack.
	var offsBuf [64]int
	var bestBuf [64]float64
	var nextBuf [64]int
	offs := offsBuf[:0]
	for i := range run {
		offs = append(offs, i)
	}
	n := len(offs)
	offs = append(offs, len(run))
	best, next := bestBuf[:], nextBuf[:]
	if n+1 > len(bestBuf) {
		best, next = make([]float64, n+1), make([]int, n+1)
	}
	best, next = best[:n+1], next[:n+1]
	best[n], next[n] = 0, 0
	for i := n - 1; i >= 0; i-- {
		best[i], next[i] = d.unknown+best[i+1], i+1
		for j := i + 2; j <= min(n, i+d.maxLen); j++ {
			e, ok := d.entries[run[offs[i]:offs[j]]]
			if !ok {
				break // no word starts with these characters
			}
			if e.word && e.logP+best[j] > best[i] {
				best[i], next[i] = e.logP+best[j], j
			}
			if !e.longer {
				break
			}
		}
	}
	for i := 0; i < n; i = next[i] {
		out = append(out, run[offs[i]:offs[next[i]]])
	}
	return out
}

// appendChinese emits the terms of a Han run. The run is cut into its
// most probable words; function words and question words (的, 了, 什么,
// 怎么, 我们, ...) are dropped, as English stop words are, and split the
// run into pieces; a determiner's measure word (哪张) leaves its measure
// word (measureOf). Each piece gives its character bigrams (the recall of
// text the dictionary does not know), its dictionary words of two
// characters or more with the words of two or three characters inside a
// longer one (故宫 and 博物院 inside 故宫博物院), and its one-character
// words (猫, 书). A word that is also a bigram then counts twice, a bigram
// that straddles two words once. Every character as a unigram was tried:
// it helped the Chinese dialogue set a little (recall@1 +.013) and cost
// the synthetic bench's Chinese queries 4.5 points of hit@10, so no.
//
// Every term is a piece of run (the words and bigrams are its characters
// as they are), not a copy.
func appendChinese(out []string, run string) []string {
	d := zhWords()
	var wordsBuf [32]string
	// The piece is run[start:end], of pieceRunes characters.
	start, end, pieceRunes := 0, 0, 0
	for _, w := range d.appendSegment(wordsBuf[:0], run) {
		at := end
		end += len(w)
		if isZhStopWord(w) {
			if pieceRunes >= 2 {
				out = appendBigramsOf(out, run[start:at])
			}
			start, pieceRunes = end, 0
			if isDeterminerMeasure(w) {
				out = append(out, measureOf(w))
			}
			continue
		}
		runes := utf8.RuneCountInString(w)
		pieceRunes += runes
		out = appendCharTerms(out, w)
		if runes == 1 {
			out = append(out, w)
			continue
		}
		if runes > 3 {
			var offsBuf [16]int
			offs := offsBuf[:0] // of w's characters, and its end
			for i := range w {
				offs = append(offs, i)
			}
			offs = append(offs, len(w))
			for size := 2; size <= 3; size++ {
				for i := 0; i+size < len(offs); i++ {
					if sub := w[offs[i]:offs[i+size]]; d.has(sub) {
						out = append(out, sub)
					}
				}
			}
		}
		out = append(out, w)
	}
	if pieceRunes >= 2 {
		out = appendBigramsOf(out, run[start:end])
	}
	return out
}

// CharTermPrefix starts the term of one character of a Chinese word
// (appendCharTerms). No other term starts with it: normalising drops
// control characters.
const CharTermPrefix = "\x01"

// IsCharTerm reports whether t is the term of one character of a Chinese
// word.
func IsCharTerm(t string) bool { return strings.HasPrefix(t, CharTermPrefix) }

// appendCharTerms emits a term for each character of a Chinese content
// word. A compound shares its characters with the words for the same
// thing that the segmenter keeps whole or splits: 左手 and 手, 钓鱼 and
// 钓过鱼, 我妈 and 妈妈, 住处 and 住在; neither the word nor its bigrams
// join them. The characters are terms of their own, not the
// one-character words ("手" is the word 手, CharTermPrefix+"手" any 手),
// so that a question's word matches itself first and a memory's compound
// after it, and the builtin model leaves them out. A character that is a
// function word on its own (在 of 现在, 不 of 不错, 有 of 有人) is no term:
// it would join nearly every text.
func appendCharTerms(out []string, w string) []string {
	terms := charTerms()
	for i, r := range w {
		ch := w[i : i+utf8.RuneLen(r)]
		switch k := int(r - hanFirst); {
		case isZhStopWord(ch):
		case k >= 0 && k < hanCount:
			out = append(out, terms[k*charTermLen:(k+1)*charTermLen])
		default:
			out = append(out, CharTermPrefix+ch)
		}
	}
	return out
}

// The CJK Unified Ideographs block, which holds every common Chinese
// character, each three bytes of UTF-8.
const (
	hanFirst    = 0x4E00
	hanCount    = 0x9FFF - hanFirst + 1
	charTermLen = len(CharTermPrefix) + 3
)

// charTerms holds the character term of every character of the CJK
// Unified Ideographs block one after the other (84 KB), each a piece of
// it: a build emits a term for every character of every Chinese word, and
// making each a new string made BenchmarkTermsChinese's text 178
// allocations instead of 4, and a third slower.
var charTerms = sync.OnceValue(func() string {
	var b strings.Builder
	b.Grow(hanCount * charTermLen)
	for r := rune(hanFirst); r < hanFirst+hanCount; r++ {
		b.WriteString(CharTermPrefix)
		b.WriteRune(r)
	}
	return b.String()
})

// appendBigramsOf emits the overlapping character bigrams of s (valid
// UTF-8 of two characters or more) as pieces of it.
func appendBigramsOf(out []string, s string) []string {
	_, first := utf8.DecodeRuneInString(s)
	for i, j := 0, first; j < len(s); {
		_, sz := utf8.DecodeRuneInString(s[j:])
		out = append(out, s[i:j+sz])
		i, j = j, j+sz
	}
	return out
}

// Segment returns the content words of normalised Chinese text: the
// dictionary words of its Han runs without function and question words
// (the query planner's key terms).
func Segment(run string) []string {
	var out []string
	for _, w := range zhWords().segment(run) {
		if !isZhStopWord(w) {
			out = append(out, w)
		}
	}
	return out
}

// zhStopWords are the Chinese function and question words that carry no
// evidence (particles, pronouns, question words, copulas and the most
// common adverbs and prepositions), the counterpart of the English stop
// words.
var zhStopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`的 了 着 过 地 得 吗 呢 吧 啊 呀 哦 嘛 么 之
		是 在 有 和 与 及 或 也 都 就 还 又 再 才 很 太 更 最 把 被 给 从 对 向 跟 让 因为 所以 但 但是 而 而且 如果 就是 还是 或者 以及
		我 你 他 她 它 您 我们 你们 他们 她们 它们 咱们 自己 这 那 这个 那个 这些 那些 这里 那里 这儿 那儿 这样 那样 这么 那么 这种 那种
		什么 怎么 怎样 怎么样 为什么 为何 哪 哪里 哪儿 哪个 哪些 哪位 谁 几 多少 多久 如何 是否 是不是 有没有 吗 呢
		一个 一些 一下 一点 一直 已经 可以 可能 会 能 要 想 该 应该 没 没有 不 不是 个 些 时候`) {
		m[w] = true
	}
	for _, w := range zhSetPhrases {
		m[w] = true
	}
	return m
}()

// isZhStopWord reports whether w is a function word (zhStopWords, or a
// determiner's measure word).
func isZhStopWord(w string) bool {
	return zhStopWords[w] || isDeterminerMeasure(w)
}

// measureOf returns the measure word of a determiner's measure word (张
// of 哪张): it is kept as a term. A measure word agrees with its noun's
// kind (张 a photo or a ticket, 首 a song, 本 a book), and an answer
// often leaves the noun out: "哪张照片" is answered "那张熊猫抱着竹子睡觉
// 的最好看". Dropped with its determiner, on the five Chinese sets pooled
// R@1 fell .434 -> .420 (BENCHMARKS.md, fifty-third session).
func measureOf(w string) string {
	_, n := utf8.DecodeRuneInString(w)
	return w[n:]
}

// isDeterminerMeasure reports whether w is a determiner and a measure
// word (这本, 哪首), found by its characters rather than listed: the
// 444 of them in a map cost every process that loads this package
// 80 kB at start.
func isDeterminerMeasure(w string) bool {
	d, n := utf8.DecodeRuneInString(w)
	if n == len(w) || !strings.ContainsRune(zhDeterminers, d) {
		return false
	}
	c, m := utf8.DecodeRuneInString(w[n:])
	return n+m == len(w) && strings.ContainsRune(zhClassifiers, c)
}

func (d *dictionary) has(w string) bool { return d.entries[w].word }

// zhSetPhrases are replies whose words do not mean what they say: 没问题
// ("sure") is no problem, 没关系 ("never mind") no relation. Their
// words matched questions about a 问题 or a 关系 with a turn that only
// assents; they are words of the dictionary and carry no evidence.
var zhSetPhrases = []string{"没问题", "没关系", "没事", "没事儿", "不客气", "不要紧", "不好意思", "没什么"}

// zhDeterminers and zhClassifiers make the words that point at a thing
// without naming it: a determiner or question word and a measure word
// (这本, 哪首, 每家). The dictionary has some (这本, 哪家), which were
// indexed as content, and lacks most of the others, so the measure word
// joined the noun after it: 哪本科幻小说 was read 本科 (undergraduate)
// and 幻, 这首歌 首歌, which a question about a 歌 did not match. Added
// to the dictionary (addedWordCount), they come apart from the noun; the
// determiner is no evidence, the measure word is (measureOf).
const (
	zhDeterminers = "这那哪每某各"
	zhClassifiers = "个本首张部家座位只条件次种台辆篇份场门节所间棵双块把支句段杯瓶顿趟届栋盆幅封架颗匹艘层类样批项笔套群回名章集款道处枚粒"
)

// zhAddedWords returns the function words the segmenter adds to its
// dictionary: the set phrases and the determiners' measure words.
func zhAddedWords() []string {
	words := slices.Clone(zhSetPhrases)
	for _, d := range zhDeterminers {
		for _, c := range zhClassifiers {
			words = append(words, string(d)+string(c))
		}
	}
	return words
}

// addedWordCount is the count an added word the dictionary lacks is
// given: about those of the ones it has (没关系 237, 没事 516, 这本 459,
// 哪家 108). A lone character counts as an unknown one (segment), so it
// keeps 没问题 whole rather than 没 and 问题, and takes 哪本 over 本科
// (2 853, which leaves 幻 alone) but not 那本 over 本书 (1 225), as the
// dictionary's 这本 does not either: a question and a memory then cut
// 本书 alike. The dictionary's 这家 (1 031) leaves 家伙 (1 546) whole.
const addedWordCount = 500

// markStarts records word w's length and its starts of two characters or
// more (segment's stops).
func (d *dictionary) markStarts(w string) {
	d.maxLen = max(d.maxLen, utf8.RuneCountInString(w))
	runes := 0
	for i := range w {
		if runes++; runes > 2 {
			e := d.entries[w[:i]]
			e.longer = true
			d.entries[w[:i]] = e
		}
	}
}
