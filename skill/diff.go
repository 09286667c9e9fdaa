package skill

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines shown around a change.
const diffContext = 3

// maxDiffCells bounds the LCS table; larger inputs diff as one hunk that
// replaces everything.
const maxDiffCells = 4_000_000

type editKind byte

const (
	editEqual editKind = ' '
	editDel   editKind = '-'
	editIns   editKind = '+'
)

type edit struct {
	kind editKind
	a, b int // line indexes in a and b (the one that applies)
}

// UnifiedDiff returns a unified diff from a (named aName) to b (named
// bName) with three lines of context, or "" when they are equal. Lines
// are compared exactly; a last line without a newline is marked as in
// diff(1).
func UnifiedDiff(aName, bName string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	al, bl := splitLines(string(a)), splitLines(string(b))
	edits := diffLines(al, bl)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	for i := 0; i < len(edits); {
		// Find the next change.
		for i < len(edits) && edits[i].kind == editEqual {
			i++
		}
		if i == len(edits) {
			break
		}
		start := max(0, i-diffContext)
		// Extend the hunk while changes are within 2*context of each other.
		end := i
		for j := i; j < len(edits); j++ {
			if edits[j].kind != editEqual {
				end = j + 1
			} else if j-end >= 2*diffContext {
				break
			}
		}
		end = min(len(edits), end+diffContext)
		writeHunk(&out, edits[start:end], al, bl)
		i = end
	}
	return out.String()
}

func writeHunk(out *strings.Builder, h []edit, al, bl []string) {
	aStart, bStart, aN, bN := -1, -1, 0, 0
	for _, e := range h {
		if e.kind != editIns {
			if aStart < 0 {
				aStart = e.a
			}
			aN++
		}
		if e.kind != editDel {
			if bStart < 0 {
				bStart = e.b
			}
			bN++
		}
	}
	// An empty range starts after the line that precedes it.
	if aStart < 0 {
		aStart = h[0].a
	}
	if bStart < 0 {
		bStart = h[0].b
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(aStart, aN), hunkRange(bStart, bN))
	for _, e := range h {
		line := ""
		if e.kind == editIns {
			line = bl[e.b]
		} else {
			line = al[e.a]
		}
		out.WriteByte(byte(e.kind))
		if strings.HasSuffix(line, "\n") {
			out.WriteString(line)
		} else {
			out.WriteString(line + "\n\\ No newline at end of file\n")
		}
	}
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
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

// diffLines returns an edit script from a to b: a longest common
// subsequence of lines, with deletions before insertions in each change.
// Each edit records its position in a and in b (for an insertion, a is
// the index of the next line of a, and vice versa).
func diffLines(a, b []string) []edit {
	// Trim the common prefix and suffix; the table covers the middle.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var edits []edit
	for i := 0; i < pre; i++ {
		edits = append(edits, edit{editEqual, i, i})
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	n, m := len(am), len(bm)
	if (n+1)*(m+1) > maxDiffCells {
		for i := range am {
			edits = append(edits, edit{editDel, pre + i, pre})
		}
		for j := range bm {
			edits = append(edits, edit{editIns, pre + n, pre + j})
		}
	} else {
		// lcs[i][j] is the LCS length of am[i:] and bm[j:].
		lcs := make([][]int32, n+1)
		for i := range lcs {
			lcs[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if am[i] == bm[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && am[i] == bm[j]:
				edits = append(edits, edit{editEqual, pre + i, pre + j})
				i++
				j++
			case j == m || (i < n && lcs[i+1][j] >= lcs[i][j+1]):
				edits = append(edits, edit{editDel, pre + i, pre + j})
				i++
			default:
				edits = append(edits, edit{editIns, pre + i, pre + j})
				j++
			}
		}
	}
	for k := 0; k < suf; k++ {
		edits = append(edits, edit{editEqual, len(a) - suf + k, len(b) - suf + k})
	}
	return edits
}
