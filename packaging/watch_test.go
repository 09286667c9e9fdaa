package packaging

import (
	"os"
	"strings"
	"testing"
)

// TestHomebrewRunsTheSameWatcher keeps the one command line YAML cannot
// import in step with WatchArgs: the nova-watch formula's script in
// .goreleaser.yaml must run novactl with exactly these arguments.
func TestHomebrewRunsTheSameWatcher(t *testing.T) {
	b, err := os.ReadFile("../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := `/novactl" ` + strings.Join(WatchArgs(), " ") + ` "$@"`
	if !strings.Contains(string(b), want) {
		t.Fatalf(".goreleaser.yaml's %s formula does not run %s", HomebrewWatchFormula, want)
	}
}
