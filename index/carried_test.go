package index

import (
	"testing"

	"github.com/nova-recall/nova/memory"
)

// TestRedactAgain: a carried chunk that today's rules change is embedded
// again (its vector was made from the secret); an unchanged one keeps
// its codes.
func TestRedactAgain(t *testing.T) {
	leaked := pendingChunk{c: memory.Chunk{Text: "export GH_TOKEN=ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}, codes: []int8{1, 2}}
	redactAgain(&leaked)
	if leaked.codes != nil || leaked.c.Text == "export GH_TOKEN=ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" {
		t.Errorf("a redacted chunk: text %q codes %v, want the secret gone and no codes", leaked.c.Text, leaked.codes)
	}
	clean := pendingChunk{c: memory.Chunk{Text: "the dashboard moved to port 8080"}, codes: []int8{1, 2}}
	redactAgain(&clean)
	if clean.codes == nil || clean.c.Text != "the dashboard moved to port 8080" {
		t.Errorf("an unchanged chunk: text %q codes %v, want both kept", clean.c.Text, clean.codes)
	}
}
