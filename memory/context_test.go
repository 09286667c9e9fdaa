package memory

import (
	"strings"
	"testing"
)

func TestContextParams_LeadWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"one two three four", 2, "one two"},
		{"one two", 5, "one two"},
		{"", 3, ""},
		// Two characters of Chinese count as one word.
		{"我上周去了北京的故宫博物院", 3, "我上周去了北"},
		{"林晓: 我领养的猫到家了", 3, "林晓: 我领养的"},
		{"port 2096 端口不可用 because", 3, "port 2096 端口"},
	} {
		if got := (ContextParams{Turns: 2, Words: c.n}).LeadWords(c.in); got != c.want {
			t.Errorf("LeadWords(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestNeighbourContext_beforeIsEarlierTurnsOnly(t *testing.T) {
	ctx, before := NeighbourContext([]string{"alpha", "beta"}, []string{"gamma"})
	if ctx != "alpha … beta … gamma" || before != "alpha … beta" {
		t.Errorf("context %q before %q", ctx, before)
	}
}

// NeighbourContext, written into one buffer, gives what joining each
// side's non-empty words and then the two sides gives.
func TestNeighbourContextMatchesJoins(t *testing.T) {
	join := func(ws []string) string {
		var parts []string
		for _, w := range ws {
			if w != "" {
				parts = append(parts, w)
			}
		}
		return strings.Join(parts, ContextSeparator)
	}
	sides := [][]string{nil, {}, {""}, {"", ""}, {"alpha"}, {"", "beta"}, {"alpha", ""}, {"alpha", "beta"}, {" spaced ", "x"}, {"a", "", "c"}}
	for _, before := range sides {
		for _, after := range sides {
			ctx, bef := NeighbourContext(before, after)
			wantBef := join(before)
			wantCtx := strings.TrimSpace(wantBef + ContextSeparator + join(after))
			if ctx != wantCtx || bef != wantBef {
				t.Errorf("NeighbourContext(%q, %q) = %q, %q; want %q, %q", before, after, ctx, bef, wantCtx, wantBef)
			}
		}
	}
}

// The ASCII shortcut of LeadWords must give what splitting the text into
// words and joining the first ones with spaces gives, or step aside.
func TestASCIILeadWordsMatchesSplitAndJoin(t *testing.T) {
	texts := []string{
		"", "   ", "one", "one two three", "  lead and trail  ", "one  two", "one\ttwo", "one\ntwo three",
		"a b c d e f", "x. y, z!", "naïve words here", "end \n", "words then\n\nparagraph", "tab\t", "\tlead",
	}
	for _, s := range texts {
		for n := -1; n <= 7; n++ {
			got, ok := asciiLeadWords(s, n)
			if !ok {
				continue
			}
			words := strings.Fields(s)
			want := strings.Join(words[:max(0, min(n, len(words)))], " ")
			if got != want {
				t.Errorf("asciiLeadWords(%q, %d) = %q, want %q", s, n, got, want)
			}
		}
	}
	if _, ok := asciiLeadWords("the usual text, one space apart", 3); !ok {
		t.Error("plain text did not take the shortcut")
	}
}
