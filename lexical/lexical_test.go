package lexical

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestTerms(t *testing.T) {
	a := NewAnalyzer()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Why was port 2096 unavailable?", []string{"port", "2096", "unavail"}},
		{"See src/app/update.py RC-204", []string{"see", "src", "app", "updat", "py", "src/app/update.py", "rc", "204", "rc-204", "rc204"}},
		// 为什么 is a question word: it splits the run and is not indexed;
		// dictionary words (端口, 不可) and one-character words join the
		// bigrams.
		{"2096 端口为什么不可用", []string{"2096", "\x01端", "\x01口", "端口", "端口", "\x01可", "不可", "\x01用", "用", "不可", "可用"}},
		// Traditional characters fold to simplified ones.
		{"數據庫遷移", []string{"\x01数", "\x01据", "\x01库", "数据库", "\x01迁", "\x01移", "迁移", "数据", "据库", "库迁", "迁移"}},
		// Irregular forms join their lemma before stemming.
		{"She drew the children", []string{"draw", "child"}},
		{"ＡＢＣ full-width", []string{"abc", "full", "width", "full-width"}},
		{"Caroline's groups", []string{"carolin", "group"}},
		// A word's characters are terms of their own (CharTermPrefix).
		{"猫", []string{"\x01猫", "猫"}},
		{"a I x", nil},
	} {
		if got := a.Terms(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// field writes docs as one segment's field and opens it.
func field(t testing.TB, a *Analyzer, docs ...string) *Field {
	t.Helper()
	terms := make([][]string, len(docs))
	for i, d := range docs {
		terms[i] = a.Terms(d)
	}
	return fieldOfTerms(t, terms...)
}

// fieldOfTerms writes documents given as their terms as one segment's
// field and opens it.
func fieldOfTerms(t testing.TB, docs ...[]string) *Field {
	t.Helper()
	w := NewFieldWriter(0)
	for _, d := range docs {
		w.Add(d)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := OpenField(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func build(docs ...string) (*Index, *Analyzer) {
	a := NewAnalyzer()
	terms := make([][]string, len(docs))
	for i, d := range docs {
		terms[i] = a.Terms(d)
	}
	return Build(terms, B), a
}

func TestSearchRanksAndFilters(t *testing.T) {
	ix, a := build(
		"the dashboard port 2096 was unavailable",
		"port forwarding notes",
		"unrelated text about cooking",
		"port 2096 port 2096 again and again",
	)
	hits := ix.Search(a.Terms("port 2096"), 10, nil)
	if len(hits) != 3 || hits[len(hits)-1].Doc != 1 {
		t.Fatalf("hits %+v", hits)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Fatalf("not sorted: %+v", hits)
		}
	}
	hits = ix.Search(a.Terms("port 2096"), 10, func(d int) bool { return d != 3 })
	if slices.ContainsFunc(hits, func(h Hit) bool { return h.Doc == 3 }) {
		t.Error("filter ignored")
	}
	// ScoreDocs agrees with Search exactly.
	scores := ix.ScoreDocs(a.Terms("port 2096"), []int{0, 1, 2, 3})
	for _, h := range ix.Search(a.Terms("port 2096"), 10, nil) {
		if scores[h.Doc] != h.Score {
			t.Errorf("doc %d: ScoreDocs %v, Search %v", h.Doc, scores[h.Doc], h.Score)
		}
	}
	if scores[2] != 0 {
		t.Errorf("a document without the terms scored %v", scores[2])
	}
	if ix.IDF("port") <= 0 || ix.IDF("absent") != 0 || ix.DocFreq("port") != 3 {
		t.Errorf("idf/df: %v %v %v", ix.IDF("port"), ix.IDF("absent"), ix.DocFreq("port"))
	}
}

// TestSegmentsScoreLikeOneIndex is the property incremental builds rest
// on: a field cut into segments, with some documents replaced (dead in an
// old segment, added again in a later one), scores every live document
// exactly like one segment built from the live documents.
func TestSegmentsScoreLikeOneIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	words := strings.Fields("port 2096 dashboard cron migration failed retry token 端口 不可用 redis queue deploy rollback note lsa vector")
	a := NewAnalyzer()
	text := func() string {
		n := 1 + rng.IntN(300) // long lists cross block boundaries
		if rng.IntN(4) > 0 {
			n = 1 + rng.IntN(12)
		}
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(ws, " ")
	}
	for round := range 20 {
		var all []string
		for range 50 + rng.IntN(700) {
			all = append(all, text())
		}
		// Cut into segments; kill some documents and append a replacement
		// for each in a final delta.
		var fields []*Field
		dead := Dead{DF: map[string]int{}}
		isDead := map[int]bool{}
		for lo := 0; lo < len(all); {
			hi := min(len(all), lo+1+rng.IntN(300))
			fields = append(fields, field(t, a, all[lo:hi]...))
			lo = hi
		}
		var delta []string
		for d := range all {
			if rng.IntN(5) == 0 {
				isDead[d] = true
				terms := a.Terms(all[d])
				dead.Docs++
				dead.Len += uint64(len(terms))
				seen := map[string]bool{}
				for _, term := range terms {
					if !seen[term] {
						seen[term] = true
						dead.DF[term]++
					}
				}
				delta = append(delta, text())
			}
		}
		if len(delta) > 0 {
			fields = append(fields, field(t, a, delta...))
		}
		segs := NewIndex(fields, dead, nil)
		var live []string
		var liveDoc []int // doc in segs of each doc in one
		for d, s := range all {
			if !isDead[d] {
				live = append(live, s)
				liveDoc = append(liveDoc, d)
			}
		}
		for i, s := range delta {
			live = append(live, s)
			liveDoc = append(liveDoc, len(all)+i)
		}
		one := NewIndex([]*Field{field(t, a, live...)}, Dead{}, nil)
		if segs.Live() != one.Live() {
			t.Fatalf("round %d: live %d, want %d", round, segs.Live(), one.Live())
		}
		accept := func(d int) bool { return !isDead[d] }
		for range 10 {
			q := a.Terms(text())
			want := one.Search(q, 1000, nil)
			got := segs.Search(q, 1000, accept)
			if len(got) != len(want) {
				t.Fatalf("round %d: %d hits, want %d", round, len(got), len(want))
			}
			wantScore := map[int]float64{}
			for _, h := range want {
				wantScore[liveDoc[h.Doc]] = h.Score
			}
			for _, h := range got {
				if w, ok := wantScore[h.Doc]; !ok || w != h.Score {
					t.Fatalf("round %d: doc %d scored %v, one index %v (%v)", round, h.Doc, h.Score, w, ok)
				}
			}
			docs := make([]int, len(liveDoc))
			copy(docs, liveDoc)
			gotScores := segs.ScoreDocs(q, docs)
			oneDocs := make([]int, len(liveDoc))
			for i := range oneDocs {
				oneDocs[i] = i
			}
			if !slices.Equal(gotScores, one.ScoreDocs(q, oneDocs)) {
				t.Fatalf("round %d: ScoreDocs differ", round)
			}
		}
	}
}

func TestFieldCorruption(t *testing.T) {
	a := NewAnalyzer()
	w := NewFieldWriter(0)
	for i := range 300 {
		w.Add(a.Terms("alpha beta 端口 不可用 " + strings.Repeat("gamma ", i%7)))
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	raw := buf.Bytes()
	if _, err := OpenField(raw); err != nil {
		t.Fatal(err)
	}
	cases := [][]byte{raw[:5], raw[:len(raw)-1], append(slices.Clone(raw), 0), append([]byte("NOVLEX99"), raw[8:]...)}
	// A flipped byte in the header, the tables or the block tables must be
	// refused at open (the postings bytes themselves are guarded by the
	// file checksum).
	for _, off := range []int{9, 13, 25, headerSize + 1, headerSize + 4*300 + 2} {
		b := slices.Clone(raw)
		b[off] ^= 0x5a
		cases = append(cases, b)
	}
	// Section sizes whose sum wraps around to the file's size (2^63 added
	// to both): the checksum can be right over such a file (a writer's
	// bug), and the sections past the end were sliced (a panic).
	wrapped := slices.Clone(raw)
	binary.LittleEndian.PutUint64(wrapped[32:], binary.LittleEndian.Uint64(raw[32:])+1<<63)
	binary.LittleEndian.PutUint64(wrapped[40:], binary.LittleEndian.Uint64(raw[40:])+1<<63)
	cases = append(cases, wrapped)
	for i, bad := range cases {
		if _, err := OpenField(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("case %d: corrupt input accepted: %v", i, err)
		}
	}
}

// FuzzTerms: whatever the text (any script, bytes that are not UTF-8),
// its terms are non-empty valid UTF-8 with no white space in them (a
// term is one word of the index, served as JSON in an explanation); the
// same text gives the same terms again (the stem memo changes nothing);
// and AppendTerms adds to what it is given exactly the terms Terms gives
// (a chunk's pieces are analysed that way).
func FuzzTerms(f *testing.F) {
	for _, s := range []string{"Why was port 2096 unavailable?", "src/app.py", "端口为什么", "\xff\xfe", "a-b-c-d-e", strings.Repeat("x", 100),
		"parseConfig\u00a0getUserByID", "e\u0301\u3000ｶﾀｶﾅ\u2028x", "don't 1,000 한국어 ภาษาไทย"} {
		f.Add(s)
	}
	a := NewAnalyzer()
	f.Fuzz(func(t *testing.T, s string) {
		terms := a.Terms(s)
		for _, term := range terms {
			if term == "" || !utf8.ValidString(term) || strings.ContainsFunc(term, unicode.IsSpace) {
				t.Fatalf("bad term %q from %q", term, s)
			}
		}
		if again := a.Terms(s); !slices.Equal(again, terms) {
			t.Fatalf("Terms(%q) = %q, then %q", s, terms, again)
		}
		if got := a.AppendTerms([]string{"before"}, s); len(got) == 0 || got[0] != "before" || !slices.Equal(got[1:], terms) {
			t.Fatalf("AppendTerms(before, %q) = %q; Terms gives %q", s, got, terms)
		}
	})
}

// TestSearchMatchesExhaustiveScoring: Search stops taking in documents
// once the common terms left cannot lift one into the top k (MaxScore);
// its results must be those of scoring every document (ScoreDocs), for
// small and large k, with a filter, over segments with dead documents.
// Rare words in a few documents beside words most documents hold make
// the stop happen.
func TestSearchMatchesExhaustiveScoring(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	a := NewAnalyzer()
	common := strings.Fields("port deploy queue token retry")
	rare := strings.Fields("zanzibar quokka fjord ozone kumquat")
	text := func() string {
		var ws []string
		for _, w := range common {
			for range rng.IntN(3) {
				ws = append(ws, w)
			}
		}
		if rng.IntN(40) == 0 {
			ws = append(ws, rare[rng.IntN(len(rare))])
		}
		for range rng.IntN(30) {
			ws = append(ws, "filler"+strconv.Itoa(rng.IntN(200)))
		}
		return strings.Join(ws, " ")
	}
	for round := range 10 {
		var fields []*Field
		n := 0
		for range 1 + rng.IntN(3) {
			var docs []string
			for range 200 + rng.IntN(2000) {
				docs = append(docs, text())
			}
			fields = append(fields, field(t, a, docs...))
			n += len(docs)
		}
		ix := NewIndex(fields, Dead{}, nil)
		var accept func(int) bool
		if round%2 == 1 {
			accept = func(d int) bool { return d%3 != 0 }
		}
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		for range 20 {
			q := []string{rare[rng.IntN(len(rare))], rare[rng.IntN(len(rare))]}
			for range 1 + rng.IntN(3) {
				q = append(q, common[rng.IntN(len(common))])
			}
			q = a.Terms(strings.Join(q, " "))
			scores := ix.ScoreDocs(q, all)
			var want []Hit
			for d, s := range scores {
				if s > 0 && (accept == nil || accept(d)) {
					want = append(want, Hit{Doc: d, Score: s})
				}
			}
			slices.SortStableFunc(want, func(x, y Hit) int { return cmp.Compare(y.Score, x.Score) })
			for _, k := range []int{1, 5, 20, 80} {
				got := ix.Search(q, k, accept)
				if w := want[:min(k, len(want))]; !slices.Equal(got, w) {
					t.Fatalf("round %d, %q, k %d:\n got %v\nwant %v", round, q, k, got, w)
				}
			}
		}
	}
}

// A query resolved once serves Search and ScoreDocs of its own index
// alike, and is refused by another index (its term ids mean nothing
// there).
func TestResolvedQuery(t *testing.T) {
	a := NewAnalyzer()
	ix := Build([][]string{a.Terms("port 2096 firewall"), a.Terms("dns record moved"), a.Terms("firewall rule for port 443")}, B)
	terms := a.Terms("firewall port")
	q := ix.Resolve(terms)
	if got, want := ix.SearchQuery(q, 3, nil), ix.Search(terms, 3, nil); !slices.Equal(got, want) || len(got) != 2 {
		t.Errorf("SearchQuery %v, Search %v", got, want)
	}
	if got, want := ix.ScoreQuery(q, []int{0, 1, 2}), ix.ScoreDocs(terms, []int{0, 1, 2}); !slices.Equal(got, want) {
		t.Errorf("ScoreQuery %v, ScoreDocs %v", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("a query resolved in another index was used")
		}
	}()
	Build([][]string{a.Terms("port")}, B).SearchQuery(q, 3, nil)
}

// TestFieldHasHan: a field knows whether it holds Chinese from its term
// dictionary alone, whatever else sorts around the Han block: kana and
// the CJK symbols before it, Hangul and full-width forms after it.
func TestFieldHasHan(t *testing.T) {
	for _, c := range []struct {
		terms []string
		want  bool
	}{
		{[]string{"deploy", "queue", "stall"}, false},
		{[]string{"5433", "迁移", "数据库"}, true},
		{[]string{"port", "遷移"}, true},         // traditional is Han too
		{[]string{"デプロイ", "キュー"}, false},       // katakana, before U+3400
		{[]string{"〆", "々"}, false},            // CJK symbols, before it
		{[]string{"배포", "대기열", "ｐｏｒｔ"}, false}, // Hangul and full-width, after U+9FFF
		{[]string{"㐀"}, true},                  // U+3400, the first
		{[]string{"鿿", "대기열"}, true},           // U+9FFF, the last
		{nil, false},
	} {
		if got := fieldOfTerms(t, c.terms).HasHan(); got != c.want {
			t.Errorf("HasHan of %q = %v, want %v", c.terms, got, c.want)
		}
	}
	// Through the analyzer, as a segment is written.
	a := NewAnalyzer()
	if !field(t, a, "port 5433", "迁移记录：数据库端口改为 5433").HasHan() {
		t.Error("a field of a Chinese note: HasHan false")
	}
	if field(t, a, "the deploy queue stalls", "ｐｏｒｔ ５４３３").HasHan() {
		t.Error("a field of English notes: HasHan true")
	}
}
