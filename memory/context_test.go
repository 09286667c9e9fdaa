package memory

import "testing"

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
