package memory

import "strings"

// ContextParams say how a record's neighbouring context is made: the
// Turns records before and after it in its conversation each lend their
// first Words words. A generation stores them, because the context is
// not stored: it is derived from the neighbours whenever it is needed.
type ContextParams struct {
	Turns int `json:"contextTurns"`
	Words int `json:"contextWords"`
}

// LeadWords returns the words a record lends its neighbours: the first
// Words words of its first piece (the redacted text, as indexed).
func (p ContextParams) LeadWords(firstPiece string) string {
	f := strings.Fields(firstPiece)
	if len(f) > p.Words {
		f = f[:p.Words]
	}
	return strings.Join(f, " ")
}

// ContextSeparator joins the neighbours' words in a context.
const ContextSeparator = " … "

// NeighbourContext returns the context of a record whose neighbours lend
// words (before: the records before it, nearest last; after: those after
// it) and the part of it that comes before. A question about a turn is
// often answered in words of the turns around it (an elliptic "Some fun
// ones like charades" after the turn that names the picnic). The
// before-part holds only earlier turns, so appending a turn to a
// conversation never changes what the dense channel embedded for the turns
// already there.
func NeighbourContext(before, after []string) (context, beforePart string) {
	join := func(ws []string) string {
		parts := make([]string, 0, len(ws))
		for _, w := range ws {
			if w != "" {
				parts = append(parts, w)
			}
		}
		return strings.Join(parts, ContextSeparator)
	}
	beforePart = join(before)
	return strings.TrimSpace(beforePart + ContextSeparator + join(after)), beforePart
}
