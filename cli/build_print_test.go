package cli

import (
	"strings"
	"testing"

	"github.com/nova-recall/nova/index"
)

// TestPrintBuild_gone: the build summary names the files whose memory is
// kept although they are gone, and counts vectors kept from earlier
// segments as such (not as memory of vanished files).
func TestPrintBuild_gone(t *testing.T) {
	for _, tt := range []struct {
		gone []string
		want string
	}{
		{nil, ""},
		{[]string{"/n/a.md"}, "kept the memory of a file that is gone: /n/a.md (--prune-missing drops it)"},
		{[]string{"/n/a.md", "/n/b.md", "/n/c.md"}, "kept the memory of 3 files that are gone: /n/a.md and 2 more (--prune-missing drops it)"},
	} {
		var b strings.Builder
		printBuild(&b, &index.BuildResult{Carried: 7, Sources: []index.SourceSummary{{Name: "notes", Kind: "markdown", Gone: tt.gone}}}, false)
		out := b.String()
		if !strings.Contains(out, "7 kept from earlier segments") {
			t.Errorf("gone %v: %q does not count the kept vectors", tt.gone, out)
		}
		if tt.want == "" && strings.Contains(out, "gone") || tt.want != "" && !strings.Contains(out, tt.want) {
			t.Errorf("gone %v: %q, want %q", tt.gone, out, tt.want)
		}
	}
}
