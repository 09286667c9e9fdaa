package bench

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Query kinds.
const (
	// KindExactID asks for a rare identifier (a commit hash or a ticket)
	// that exists in the target record.
	KindExactID = "exact-id"
	// KindKeyword is 2-4 content words of the target record.
	KindKeyword = "keyword"
	// KindSemantic paraphrases the target: a few of its words, others
	// replaced by words of the same topic that it does not contain, often
	// phrased as a natural question.
	KindSemantic = "semantic"
	// KindFiltered is a keyword query with a project or date-range filter
	// that the target satisfies.
	KindFiltered = "filtered"
	// KindChinese is 2-3 Chinese words of a Chinese target record.
	KindChinese = "chinese"
	// KindMiss is made-up words that occur nowhere: the right answer is
	// nothing.
	KindMiss = "miss"
)

// QueryKinds lists every query kind in report order.
var QueryKinds = []string{KindExactID, KindKeyword, KindSemantic, KindFiltered, KindChinese, KindMiss}

// Query is one benchmark query with the record that answers it.
type Query struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	Text string `json:"text"`
	// Target is the id of the record the query was made from ("" for
	// KindMiss): a system finds it when this id is among its top results.
	Target string `json:"target,omitempty"`
	// Hard filters (KindFiltered).
	Project  string `json:"project,omitempty"`
	DateFrom string `json:"dateFrom,omitempty"`
	DateTo   string `json:"dateTo,omitempty"`
}

// Filtered reports whether q carries a hard filter.
func (q Query) Filtered() bool { return q.Project != "" || q.DateFrom != "" || q.DateTo != "" }

// Queries returns perKind queries of every kind, interleaved (one of each
// kind in turn) so that any drift during a run touches every kind alike.
// The same corpus, count and seed give the same queries. A kind the corpus
// cannot serve (chinese with no Chinese sessions) has fewer queries.
func (c *Corpus) Queries(perKind int, seed int64) []Query {
	byKind := make([][]Query, len(QueryKinds))
	for k, kind := range QueryKinds {
		r := rand.New(rand.NewPCG(uint64(seed)^0x0e7a5c1d, uint64(k)+1))
		used := map[int]bool{}
		for n := 0; n < perKind; n++ {
			var q Query
			ok := false
			for attempt := 0; attempt < 2000 && !ok && c.Len() > 0; attempt++ {
				i := r.IntN(c.Len())
				if used[i] && kind != KindMiss {
					continue
				}
				q, ok = c.makeQuery(kind, i, r)
				if ok {
					used[i] = true
				}
			}
			if !ok {
				break
			}
			q.ID = fmt.Sprintf("%s-%03d", kind, n)
			q.Kind = kind
			byKind[k] = append(byKind[k], q)
		}
	}
	var out []Query
	for n := 0; n < perKind; n++ {
		for k := range byKind {
			if n < len(byKind[k]) {
				out = append(out, byKind[k][n])
			}
		}
	}
	return out
}

func (c *Corpus) makeQuery(kind string, i int, r *rand.Rand) (Query, bool) {
	if kind == KindMiss {
		n := 2 + r.IntN(2)
		words := make([]string, 0, n)
		for len(words) < n {
			if w := pseudoWord(r); !c.vocab[w] {
				words = append(words, w)
			}
		}
		return Query{Text: strings.Join(words, " ")}, true
	}
	g := c.record(i)
	q := Query{Target: g.ID}
	english, chinese := splitScripts(g.words)
	switch kind {
	case KindExactID:
		if len(g.rareIDs) == 0 {
			return q, false
		}
		id := g.rareIDs[r.IntN(len(g.rareIDs))]
		switch x := r.Float64(); {
		case x < 0.6:
			q.Text = id
		case x < 0.8:
			q.Text = "what changed in " + id
		default:
			q.Text = "details of " + id
		}
	case KindKeyword:
		if g.chinese || len(english) < 4 {
			return q, false
		}
		q.Text = strings.Join(c.pick(english, 2+r.IntN(3), 0.5, r), " ")
	case KindSemantic:
		if g.chinese || len(english) < 4 {
			return q, false
		}
		have := map[string]bool{}
		for _, w := range english {
			have[w] = true
		}
		var co []string
		for _, w := range c.topics[g.topic] {
			if !have[w] {
				co = append(co, w)
			}
		}
		if len(co) < 2 {
			return q, false
		}
		words := c.pick(english, 1, 0.5, r)
		r.Shuffle(len(co), func(a, b int) { co[a], co[b] = co[b], co[a] })
		words = append(words, co[:1+r.IntN(2)]...)
		r.Shuffle(len(words), func(a, b int) { words[a], words[b] = words[b], words[a] })
		text := strings.Join(words, " ")
		if r.Float64() < 0.6 {
			text = fmt.Sprintf(questionTemplates[r.IntN(len(questionTemplates))], text)
		}
		q.Text = text
	case KindFiltered:
		if g.chinese || len(english) < 4 {
			return q, false
		}
		q.Text = strings.Join(c.pick(english, 2+r.IntN(2), 0.7, r), " ")
		if r.Float64() < 0.5 {
			q.Project = g.Project
		} else {
			t, err := time.Parse(time.RFC3339, g.Date)
			if err != nil {
				return q, false
			}
			q.DateFrom = t.AddDate(0, 0, -3).Format("2006-01-02")
			q.DateTo = t.AddDate(0, 0, 3).Format("2006-01-02")
		}
	case KindChinese:
		if !g.chinese || len(chinese) < 3 {
			return q, false
		}
		sep := " "
		if r.Float64() < 0.4 {
			sep = ""
		}
		q.Text = strings.Join(c.pick(chinese, 2+r.IntN(2), 0.5, r), sep)
	default:
		return q, false
	}
	return q, q.Text != ""
}

// pick returns n distinct words of list, drawn from its rarest share
// (by generator probability): people remember the distinctive words.
func (c *Corpus) pick(list []string, n int, share float64, r *rand.Rand) []string {
	sorted := append([]string(nil), list...)
	sort.SliceStable(sorted, func(a, b int) bool {
		return c.wordProb[strings.ToLower(sorted[a])] < c.wordProb[strings.ToLower(sorted[b])]
	})
	pool := sorted[:min(len(sorted), max(n, int(float64(len(sorted))*share+0.5)))]
	pool = append([]string(nil), pool...)
	r.Shuffle(len(pool), func(a, b int) { pool[a], pool[b] = pool[b], pool[a] })
	return pool[:min(n, len(pool))]
}

// splitScripts separates Chinese words from the others.
func splitScripts(words []string) (other, chinese []string) {
	for _, w := range words {
		if r, _ := utf8.DecodeRuneInString(w); unicode.Is(unicode.Han, r) {
			chinese = append(chinese, w)
		} else {
			other = append(other, w)
		}
	}
	return other, chinese
}

var pseudoSyllables = strings.Fields(`zor blax quiv tremp vosk glim drax yul kesh frob wemb snarp plov trizz gorb fump quaz vell`) //nolint:misspell // made-up syllables, not words

// pseudoWord makes a word of two or three syllables that reads like a name
// and is in no vocabulary list.
func pseudoWord(r *rand.Rand) string {
	n := 2 + r.IntN(2)
	var b strings.Builder
	for k := 0; k < n; k++ {
		b.WriteString(pseudoSyllables[r.IntN(len(pseudoSyllables))])
	}
	return b.String()
}
