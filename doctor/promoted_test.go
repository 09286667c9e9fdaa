package doctor

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestActiveReplacedMeanwhile: syncs beside doctor that make another
// generation active and retire the one whose manifest doctor read are no
// damage: doctor checks the generation the manifest names now.
func TestActiveReplacedMeanwhile(t *testing.T) {
	f := newFixture(t)
	f.extra = "index: {keepGenerations: 2}\n"
	f.writeConfig()
	read := f.sync()
	later := ""
	rep := f.run(Options{Hook: func(step string) {
		if step != StepManifestRead || later != "" {
			return
		}
		ix := index.New(f.config(), index.Options{NoRemote: true})
		for _, line := range []string{
			`{"id":"r2","text":"the queue moved to Postgres","date":"2026-03-02"}`,
			`{"id":"r3","text":"the queue moved back to SQLite","date":"2026-03-03"}`,
		} {
			novatest.Must(t, os.WriteFile(f.src, []byte(line+"\n"), 0o600))
			r, err := ix.Sync(context.Background())
			novatest.Must(t, err)
			later = r.Active()
		}
		if _, err := os.Stat(f.home.Generation(read.RunID)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("retention kept %s: %v", read.RunID, err)
		}
	}})
	c := want(t, rep, "index", Ready, "")
	if later == "" || !strings.Contains(c.Message, later) {
		t.Errorf("index check %q does not name %s, the generation active now", c.Message, later)
	}
}
