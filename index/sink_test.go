package index

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/memory"
)

// TestContextAnalyzerOwn checks that a chunk's terms made from the words
// it lends its neighbours (remembered as a context part) and the rest of
// its text are the terms of its whole text, for lead words that are a
// piece of the text and for ones that are not.
func TestContextAnalyzerOwn(t *testing.T) {
	an := lexical.NewAnalyzer()
	params := memory.ContextParams{Turns: 2, Words: 5}
	cases := []struct{ title, text, lead string }{
		{"", "The staging API moved to port 8443 after the release.", ""},
		{"", "  The staging API moved\tto port 8443 after the release.", ""},
		{"Deploy notes", "The staging API moved to port 8443.", ""},
		{"部署", "The staging API moved to port 8443.", ""},
		{"", "Short one", ""},
		{"", "src/app.py fails on rc-204 ... see ÉCOLE café", ""},
		{"", "ＡＢＣ full-width first then words go here", ""},
		{"", "迁移 to the new 數據庫 took two hours of downtime", ""},
		{"", "the café\u0301 menu was rewritten by the team", ""},
		{"", "words then\u00a0nbsp and more words here", ""},
		{"", "The staging API moved", "staging API"},    // not at the start
		{"", "The staging API moved", "The staging AP"}, // not a whole word
		{"", "Thé staging API moved", "Thé staging"},    // not ASCII
		{"", "问题 memory 修复生产，数据 spike commit", "问题 memory 修复生产，数据"},
		{"", "问题 memory 修复生产，数据 spike commit", "问题 memory 修复生"}, // not a whole word
		{"", "e \u0301x café\u0301 ﬁne", "e"},
		{"", "e \u0301x café\u0301 ﬁne", "e \u0301x"},
		{"", "The staging API moved", "The Staging API"},  // not the text
		{"", "The staging API moved", "The staging API "}, // beyond a word
	}
	for _, tc := range cases {
		c := memory.Chunk{Title: tc.title, Text: tc.text}
		lead := tc.lead
		if lead == "" {
			lead = params.LeadWords(c.Text)
		}
		ca := newContextAnalyzer(an)
		if got, want := ca.own(&c, lead), an.Terms(c.OwnText()); !slices.Equal(got, want) {
			t.Errorf("own(%q, %q, lead %q) = %q, want %q", tc.title, tc.text, lead, got, want)
		}
		// Again with the lead remembered from a neighbour's context.
		ca.part(lead)
		if got, want := ca.own(&c, lead), an.Terms(c.OwnText()); !slices.Equal(got, want) {
			t.Errorf("own(%q, %q, lead %q) after its part = %q, want %q", tc.title, tc.text, lead, got, want)
		}
	}
}

// TestContextAnalyzerOwn_random compares own with Terms on texts made of
// words, connectors, white space and non-ASCII characters at random.
func TestContextAnalyzerOwn_random(t *testing.T) {
	an := lexical.NewAnalyzer()
	pieces := []string{"deploy", "Port", "8443", "rc-204", "src/app.py", " ", "  ", "\t", "\n", "\r\n", ".", ",", "-", "…",
		"迁移", "數據", "的", "故宫博物院", "ＡＢＣ", "é", "e\u0301", "\u0301", "\u0327", "ﬁ", "\u00a0", "\u3000", "İ", "ß", "ᄀ", "ᅡ", "ᆨ",
		"カタカナ", "ｶ", "ﾞ", "the", "a", "x"}
	rng := rand.New(rand.NewPCG(7, 11))
	for n := range 20000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		c := memory.Chunk{Text: b.String()}
		if rng.IntN(4) == 0 {
			c.Title = pieces[rng.IntN(len(pieces))] + "Title"
		}
		params := memory.ContextParams{Turns: 2, Words: 1 + rng.IntN(8)}
		lead := params.LeadWords(c.Text)
		ca := newContextAnalyzer(an)
		if n%2 == 0 {
			ca.part(lead)
		}
		if got, want := ca.own(&c, lead), an.Terms(c.OwnText()); !slices.Equal(got, want) {
			t.Fatalf("own(%q, %q, lead %q) = %q, want %q", c.Title, c.Text, lead, got, want)
		}
	}
}

// TestContextAnalyzerParts: a context's parts are its pieces between the
// separators, empty ones included, each with its own terms, however many
// there are (past the 16 gathered on the stack too).
func TestContextAnalyzerParts(t *testing.T) {
	an := lexical.NewAnalyzer()
	ca := newContextAnalyzer(an)
	for _, n := range []int{1, 2, 16, 17, 40} {
		pieces := make([]string, n)
		for i := range pieces {
			if i%5 != 3 {
				pieces[i] = fmt.Sprintf("deploy port %d to staging", 8000+i)
			}
		}
		p := ca.parts(strings.Join(pieces, memory.ContextSeparator))
		if !slices.Equal(p.Parts, pieces) || len(p.Terms) != n {
			t.Fatalf("%d parts: got %q with %d term lists", n, p.Parts, len(p.Terms))
		}
		for i, part := range pieces {
			if !slices.Equal(p.Terms[i], an.Terms(part)) {
				t.Errorf("%d parts: part %d's terms %q, want %q", n, i, p.Terms[i], an.Terms(part))
			}
		}
	}
}

// TestContextAnalyzer_noCharacterTerms: the context field holds a part's
// terms without the characters of its Chinese words, which the text field
// holds (the same part lent as a record's own words keeps them).
func TestContextAnalyzer_noCharacterTerms(t *testing.T) {
	an := lexical.NewAnalyzer()
	for _, ca := range []contextAnalyzer{newContextAnalyzer(an), {an: an}} {
		part := "左手指尖都磨出茧了 deploy"
		text := an.Terms(part)
		want := slices.DeleteFunc(slices.Clone(text), lexical.IsCharTerm)
		if len(want) == len(text) {
			t.Fatalf("fixture: %q has no character terms: %q", part, text)
		}
		for range 2 { // the second time from the cache
			if got := ca.parts(part).Terms[0]; !slices.Equal(got, want) {
				t.Errorf("context terms %q, want %q", got, want)
			}
			if got := ca.part(part); !slices.Equal(got, text) {
				t.Errorf("text terms %q, want %q", got, text)
			}
		}
	}
}

// TestWordIDs: the vector input keeps the ids of words, in order, and
// drops those of a Chinese word's characters, which the builtin model
// holds none of; a text of words only keeps its ids as they are.
func TestWordIDs(t *testing.T) {
	an := lexical.NewAnalyzer()
	terms := an.Terms("左手 deploy")
	ids := make([]uint32, len(terms))
	var want []uint32
	for i, term := range terms {
		ids[i] = uint32(10 + i)
		if !lexical.IsCharTerm(term) {
			want = append(want, ids[i])
		}
	}
	if len(want) == len(ids) {
		t.Fatalf("fixture: %q has no character terms", terms)
	}
	if got := wordIDs(terms, ids); !slices.Equal(got, want) {
		t.Errorf("wordIDs(%q) = %v, want %v", terms, got, want)
	}
	words := an.Terms("deploy port 8080")
	in := make([]uint32, len(words))
	if got := wordIDs(words, in); len(got) != len(in) || &got[0] != &in[0] {
		t.Errorf("a text of words only: %v, want its ids as they are", got)
	}
}
