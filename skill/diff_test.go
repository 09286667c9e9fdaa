package skill

import (
	"fmt"
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	lines := func(n int, change map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if s, ok := change[i]; ok {
				b.WriteString(s)
				continue
			}
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	for _, c := range []struct {
		name, a, b, want string
	}{
		{"equal", "x\n", "x\n", ""},
		{"create", "", "a\nb\n", "--- A\n+++ B\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"remove", "a\nb\n", "", "--- A\n+++ B\n@@ -1,2 +0,0 @@\n-a\n-b\n"},
		{
			"one change with context",
			lines(10, nil), lines(10, map[int]string{5: "five\n"}),
			"--- A\n+++ B\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+five\n line 6\n line 7\n line 8\n",
		},
		{
			"two hunks",
			lines(20, nil), lines(20, map[int]string{2: "", 18: "line 18\nextra\n"}),
			"--- A\n+++ B\n@@ -1,5 +1,4 @@\n line 1\n-line 2\n line 3\n line 4\n line 5\n@@ -16,5 +15,6 @@\n line 16\n line 17\n line 18\n+extra\n line 19\n line 20\n",
		},
		{
			"close changes merge",
			lines(10, nil), lines(10, map[int]string{3: "three\n", 8: "eight\n"}),
			"--- A\n+++ B\n@@ -1,10 +1,10 @@\n line 1\n line 2\n-line 3\n+three\n line 4\n line 5\n line 6\n line 7\n-line 8\n+eight\n line 9\n line 10\n",
		},
		{"no final newline", "a\nb", "a\nb\n", "--- A\n+++ B\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
	} {
		if got := UnifiedDiff("A", "B", []byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// Applying the diff's hunks to a gives b.
func TestUnifiedDiffRoundTrip(t *testing.T) {
	a := string(Render("codex", ""))
	b := strings.Replace(strings.Replace(a, "## Language", "## Languages\nextra\n", 1), "# Nova recall\n", "", 1)
	d := UnifiedDiff("a", "b", []byte(a), []byte(b))
	if got := patch(t, a, d); got != b {
		t.Errorf("patch(a, diff) != b\n%s", d)
	}
}

// patch applies a unified diff produced by UnifiedDiff.
func patch(t *testing.T, a, d string) string {
	t.Helper()
	al := splitLines(a)
	var out []string
	next := 0
	for _, line := range splitLines(d)[2:] {
		switch {
		case strings.HasPrefix(line, "@@"):
			var as, an, bs, bn int
			if _, err := fmt.Sscanf(line, "@@ -%d,%d +%d,%d @@", &as, &an, &bs, &bn); err != nil {
				t.Fatalf("hunk header %q: %v", line, err)
			}
			for next < as-1 {
				out = append(out, al[next])
				next++
			}
		case line[0] == ' ':
			out = append(out, line[1:])
			next++
		case line[0] == '-':
			next++
		case line[0] == '+':
			out = append(out, line[1:])
		}
	}
	out = append(out, al[next:]...)
	return strings.Join(out, "")
}

// splitLines splits s into lines that keep their "\n".
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
