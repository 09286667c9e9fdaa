package lexical

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestTerms(t *testing.T) {
	a := NewAnalyzer()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Why was port 2096 unavailable?", []string{"port", "2096", "unavail"}},
		{"See src/app/update.py RC-204", []string{"see", "src", "app", "updat", "py", "src/app/update.py", "rc", "204", "rc-204"}},
		{"2096 端口为什么不可用", []string{"2096", "端口", "口为", "为什", "什么", "么不", "不可", "可用"}},
		{"ＡＢＣ full-width", []string{"abc", "full", "width", "full-width"}},
		{"Caroline's groups", []string{"carolin", "group"}},
		{"猫", []string{"猫"}},
		{"a I x", nil},
	} {
		if got := a.Terms(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func build(docs ...string) (*Index, *Analyzer) {
	a := NewAnalyzer()
	b := NewBuilder()
	for _, d := range docs {
		b.Add(a.Terms(d))
	}
	return b.Build(), a
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
	// ScoreDocs agrees with Search.
	scores := ix.ScoreDocs(a.Terms("port 2096"), []int{0, 1, 2, 3})
	for _, h := range ix.Search(a.Terms("port 2096"), 10, nil) {
		if math.Abs(scores[h.Doc]-h.Score) > 1e-5 {
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

func TestIndexRoundTripAndCorruption(t *testing.T) {
	ix, a := build("alpha beta", "beta gamma delta", "端口 不可用")
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	q := a.Terms("beta 端口")
	if !slices.Equal(got.Search(q, 5, nil), ix.Search(q, 5, nil)) {
		t.Error("round trip changed results")
	}
	raw := buf.Bytes()
	for _, bad := range [][]byte{raw[:5], raw[:len(raw)-1], append(slices.Clone(raw), 0), append([]byte("NOVLEX99"), raw[8:]...)} {
		if _, err := Read(bytes.NewReader(bad)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("corrupt input accepted: %v", err)
		}
	}
}

func FuzzTerms(f *testing.F) {
	for _, s := range []string{"Why was port 2096 unavailable?", "src/app.py", "端口为什么", "\xff\xfe", "a-b-c-d-e", strings.Repeat("x", 100)} {
		f.Add(s)
	}
	a := NewAnalyzer()
	f.Fuzz(func(t *testing.T, s string) {
		for _, term := range a.Terms(s) {
			if term == "" || strings.ContainsAny(term, " \t\n") {
				t.Fatalf("bad term %q from %q", term, s)
			}
		}
	})
}
