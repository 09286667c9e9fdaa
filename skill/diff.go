package skill

import (
	"github.com/aymanbagabas/go-udiff"
	"github.com/aymanbagabas/go-udiff/myers"
)

// UnifiedDiff returns a unified diff from a (named aName) to b (named
// bName) with three lines of context, or "" when they are equal; a last
// line without a newline is marked as in diff(1).
func UnifiedDiff(aName, bName string, a, b []byte) string {
	//nolint:staticcheck // SA1019: myers diffs whole lines; udiff.Strings diffs characters, which turns a changed line into -/+ pairs of its unchanged neighbours.
	edits := myers.ComputeEdits(string(a), string(b))
	d, err := udiff.ToUnified(aName, bName, string(a), edits, udiff.DefaultContextLines)
	if err != nil {
		return "" // cannot happen: the edits come from the same two texts
	}
	return d
}
