//go:build ignore

// Command gen-zh-related writes to stdout the table that
// scripts/gen-zh-related.sh compresses into lexical/data/zh-related.txt.zst:
// the words related in meaning to each Chinese word of the segmenter's
// dictionary and its English words, for the query expansion of lexical.RelatedWords
// and lexical.EnglishWords: "word\tzh zh ...\ten en ...". Run it through
// scripts/gen-zh-related.sh, which fetches its inputs:
//
//	go run scripts/gen-zh-related.go CEDICT WORDNET_DIR > TABLE
//
// Two Chinese words are related when their English glosses in CC-CEDICT
// name the same things. Each gloss sense gives its head word (the last
// content word: "written examination" gives examination, "to take an
// exam" gives exam), and WordNet widens it to the words of its most
// common sense (exam: examination, test) and, more weakly, of that
// sense's broader senses (house: building, dwelling). A word is then a
// vector of these English keys, each weighed by how few Chinese words
// share it (idf); keys shared by more than maxMembers words say nothing
// and are left out. A word's related words are the most similar vectors
// (cosine at least minCosine, at most maxRelated of them).
package main

import (
	"bufio"
	"cmp"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
)

// The parameters were chosen on the first two Chinese sets
// (BENCHMARKS.md): broader keys (150 words) and more neighbours (12)
// than the tightest table tried (60 and 8) gained recall on both; 16
// neighbours gained no more and made the table a quarter larger.
const (
	minFreq    = 10  // as zh-dict.txt.zst: rarer words are no words of the segmenter
	maxMembers = 150 // a key shared by more words is too broad to relate them
	minCosine  = 0.2
	maxRelated = 12
	// maxEnglish bounds the English words of a Chinese word, searched in
	// English memories: a word's first senses are its common ones.
	maxEnglish = 6
	// Weights of a gloss's head word, the other words of its most
	// common WordNet sense, and the words of that sense's broader ones.
	headWeight, synonymWeight, broaderWeight = 1.0, 0.8, 0.5
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run scripts/gen-zh-related.go CEDICT WORDNET_DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "gen-zh-related:", err)
		os.Exit(1)
	}
}

func run(cedictPath, wordnetDir string) error {
	freq, err := readDict("lexical/data/zh-dict.txt.zst")
	if err != nil {
		return err
	}
	wn, err := readWordNet(wordnetDir)
	if err != nil {
		return err
	}
	keys, heads, err := readGlosses(cedictPath, freq, wn)
	if err != nil {
		return err
	}
	related := relate(keys)
	w := bufio.NewWriter(os.Stdout)
	lines := 0
	for _, word := range slices.Sorted(maps.Keys(keys)) {
		// A single character is never expanded (lexical.RelatedWords).
		if utf8.RuneCountInString(word) < 2 || len(related[word])+len(heads[word]) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", word, strings.Join(related[word], " "), strings.Join(heads[word], " "))
		lines++
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%d words with glosses, %d written\n", len(keys), lines)
	return nil
}

// readDict reads the segmenter's "word frequency" lines.
func readDict(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := zstd.NewReader(f)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	freq := map[string]int{}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		word, n, _ := strings.Cut(sc.Text(), " ")
		if v, err := strconv.Atoi(n); err == nil {
			freq[word] = v
		}
	}
	return freq, sc.Err()
}

// sense is a WordNet synset: its words and broader synsets (hypernyms).
type sense struct {
	words   []string
	broader []string
}

// wordNet holds the nouns and verbs of WordNet.
type wordNet struct {
	senses     [2]map[string][]string // lemma -> synset offsets, most common first
	synsets    [2]map[string]sense
	exceptions map[string]string // irregular form -> lemma
}

func readWordNet(dir string) (*wordNet, error) {
	wn := &wordNet{exceptions: map[string]string{}}
	for i, pos := range []string{"noun", "verb"} {
		wn.senses[i], wn.synsets[i] = map[string][]string{}, map[string]sense{}
		err := eachLine(filepath.Join(dir, "index."+pos), func(f []string) {
			// lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
			if len(f) < 4 {
				return
			}
			p, _ := strconv.Atoi(f[3])
			if 6+p <= len(f) {
				wn.senses[i][f[0]] = f[6+p:]
			}
		})
		if err != nil {
			return nil, err
		}
		err = eachLine(filepath.Join(dir, "data."+pos), func(f []string) {
			// offset lex_filenum ss_type w_cnt word lex_id ... p_cnt ptr...
			if len(f) < 4 {
				return
			}
			n, _ := strconv.ParseInt(f[3], 16, 0)
			var s sense
			for j := range int(n) {
				s.words = append(s.words, strings.ToLower(f[4+2*j]))
			}
			at := 4 + 2*int(n)
			ptrs, _ := strconv.Atoi(f[at])
			for j := range ptrs {
				sym, off := f[at+1+4*j], f[at+2+4*j]
				if sym == "@" || sym == "@i" {
					s.broader = append(s.broader, off)
				}
			}
			wn.synsets[i][f[0]] = s
		})
		if err != nil {
			return nil, err
		}
		err = eachLine(filepath.Join(dir, pos+".exc"), func(f []string) {
			if len(f) >= 2 {
				if _, ok := wn.exceptions[f[0]]; !ok {
					wn.exceptions[f[0]] = f[1]
				}
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return wn, nil
}

// eachLine calls fn with the fields of each line of path that does not
// start with a space (WordNet's licence header does).
func eachLine(path string, fn func([]string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line := sc.Text(); line != "" && line[0] != ' ' {
			fn(strings.Fields(line))
		}
	}
	return sc.Err()
}

func (wn *wordNet) known(w string) bool {
	_, noun := wn.senses[0][w]
	_, verb := wn.senses[1][w]
	return noun || verb
}

// lemma returns w's WordNet lemma: itself, its irregular lemma, or w less
// a regular inflection.
func (wn *wordNet) lemma(w string) string {
	if wn.known(w) {
		return w
	}
	if l, ok := wn.exceptions[w]; ok {
		return l
	}
	for _, r := range [][2]string{{"ies", "y"}, {"es", ""}, {"s", ""}, {"ed", ""}, {"ed", "e"}, {"ing", ""}, {"ing", "e"}} {
		if base, ok := strings.CutSuffix(w, r[0]); ok && wn.known(base+r[1]) {
			return base + r[1]
		}
	}
	return w
}

// widen returns the keys of an English head word with their weights.
func (wn *wordNet) widen(head string) map[string]float64 {
	keys := map[string]float64{head: headWeight}
	add := func(words []string, weight float64) {
		for _, w := range words {
			if !strings.Contains(w, "_") && keys[w] < weight {
				keys[w] = weight
			}
		}
	}
	for i := range wn.senses {
		offs := wn.senses[i][head]
		if len(offs) == 0 {
			continue
		}
		s := wn.synsets[i][offs[0]]
		add(s.words, synonymWeight)
		for _, b := range s.broader[:min(2, len(s.broader))] {
			add(wn.synsets[i][b].words, broaderWeight)
		}
	}
	return keys
}

var (
	cedictLine  = regexp.MustCompile(`^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$`)
	parenthesis = regexp.MustCompile(`\([^)]*\)`)
	englishWord = regexp.MustCompile(`[a-z]+`)
	// Senses that are no meaning of their own.
	notAMeaning = []string{"cl:", "variant of", "old variant", "surname", "see ", "abbr", "used in",
		"also written", "erhua", "japanese variant", "archaic variant", "pr.", "unofficial variant"}
	glossStop = set(`a an the of to for in on at by with from and or as be is one some something
		someone sb sth oneself etc his her its their your my our it this that up out off into over
		about than more most very also not no used fig lit esp`)
	// lightVerbs say little before their object: "to take an exam" is
	// about the exam.
	lightVerbs = set(`take make have do get give go come put set let keep be become`)
	// generic heads would relate unrelated words ("native place" and
	// "parking place").
	generic = set(`thing person people place way time kind type sort part piece matter affair
		state condition act action quality manner form group item area side point case fact means`)
)

func set(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// contentWords returns the content words of one gloss sense, or none when
// the sense is no meaning of its own or is a definition, not a name.
func contentWords(gloss string) []string {
	g := strings.TrimSpace(strings.ToLower(parenthesis.ReplaceAllString(gloss, "")))
	if g == "" || strings.ContainsFunc(g, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
		return nil
	}
	for _, p := range notAMeaning {
		if strings.HasPrefix(g, p) {
			return nil
		}
	}
	var words []string
	for _, w := range englishWord.FindAllString(g, -1) {
		if !glossStop[w] {
			words = append(words, w)
		}
	}
	if len(words) > 4 {
		return nil // a definition, not a name for the thing
	}
	return words
}

// head returns the head word of a gloss sense's content words, or "".
func (wn *wordNet) head(words []string) string {
	if len(words) == 0 {
		return ""
	}
	h := wn.lemma(words[len(words)-1])
	if generic[h] || len(h) <= 2 {
		return ""
	}
	return h
}

// english reports whether a content word of a gloss is worth searching in
// English text: "apartment" of "apartment building", not "take" of "to
// take an exam".
func english(w string) bool { return len(w) > 2 && !lightVerbs[w] && !generic[w] }

// readGlosses returns each dictionary word's English keys and weights,
// and the content words of its glosses in the dictionary's order (its
// most common senses first), at most maxEnglish.
func readGlosses(path string, freq map[string]int, wn *wordNet) (map[string]map[string]float64, map[string][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	keys, heads := map[string]map[string]float64{}, map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := cedictLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		word := m[2]
		if freq[word] < minFreq || strings.ContainsFunc(word, func(r rune) bool { return !unicode.Is(unicode.Han, r) }) {
			continue
		}
		for _, gloss := range strings.Split(m[3], "/") {
			words := contentWords(gloss)
			for _, w := range words {
				if english(w) && len(heads[word]) < maxEnglish && !slices.Contains(heads[word], w) {
					heads[word] = append(heads[word], w)
				}
			}
			h := wn.head(words)
			if h == "" {
				continue
			}
			if keys[word] == nil {
				keys[word] = map[string]float64{}
			}
			for k, w := range wn.widen(h) {
				keys[word][k] = max(keys[word][k], w)
			}
		}
	}
	return keys, heads, sc.Err()
}

// relate returns each word's most similar words.
func relate(keys map[string]map[string]float64) map[string][]string {
	members := map[string][]string{}
	for word, ks := range keys {
		for k := range ks {
			members[k] = append(members[k], word)
		}
	}
	n := float64(len(keys))
	vectors := map[string]map[string]float64{}
	for word, ks := range keys {
		v, norm := map[string]float64{}, 0.0
		// Keys in order, here and in the sums below: every float is then
		// the same bits at every run, and so is the table.
		for _, k := range slices.Sorted(maps.Keys(ks)) {
			w := ks[k]
			if len(members[k]) <= maxMembers {
				v[k] = w * math.Log(n/float64(len(members[k])))
				norm += v[k] * v[k]
			}
		}
		if norm == 0 {
			continue
		}
		for k := range v {
			v[k] /= math.Sqrt(norm)
		}
		vectors[word] = v
	}
	related := map[string][]string{}
	for word, v := range vectors {
		score := map[string]float64{}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			x := v[k]
			for _, other := range members[k] {
				if ov, ok := vectors[other]; ok && other != word {
					score[other] += x * ov[k]
				}
			}
		}
		type cand struct {
			word  string
			score float64
		}
		var cands []cand
		for w, s := range score {
			if s >= minCosine {
				cands = append(cands, cand{w, s})
			}
		}
		slices.SortFunc(cands, func(a, b cand) int {
			if c := cmp.Compare(b.score, a.score); c != 0 {
				return c
			}
			return strings.Compare(a.word, b.word)
		})
		for _, c := range cands[:min(maxRelated, len(cands))] {
			related[word] = append(related[word], c.word)
		}
	}
	return related
}
