package cli

import (
	"fmt"

	"github.com/nova-recall/nova/suggest"
)

// didYouMean returns "; did you mean "NAME"?" for the one of names that
// word most likely misspells (suggest.Nearest), or "" when none is close.
func didYouMean(word string, names []string) string {
	if best := suggest.Nearest(word, names); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return ""
}
