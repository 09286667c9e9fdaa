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
// damage: doctor checks the generation the manifest names now, whether
// they ran before its files check or before it read what the generation
// recorded of the source files.
func TestActiveReplacedMeanwhile(t *testing.T) {
	for _, at := range []string{StepManifestRead, StepFilesChecked} {
		t.Run(at, func(t *testing.T) {
			f := newFixture(t)
			f.extra = "index: {keepGenerations: 2}\n"
			f.writeConfig()
			read := f.sync()
			later := ""
			rep := f.run(Options{Hook: func(step string) {
				if step != at || later != "" {
					return
				}
				later = replaceActive(t, f, read.RunID)
			}})
			if later == "" {
				t.Fatalf("doctor never reached %s", at)
			}
			c := want(t, rep, "index", Ready, "")
			if !strings.Contains(c.Message, later) {
				t.Errorf("index check %q does not name %s, the generation active now", c.Message, later)
			}
			want(t, rep, "input", Ready, "")
			want(t, rep, "freshness", Ready, "")
		})
	}
}

// replaceActive runs two syncs, each of a changed source, so that
// retention (two generations kept) removes read, the active generation
// before them, and returns the one active after them.
func replaceActive(t *testing.T, f *fixture, read string) string {
	t.Helper()
	ix := index.New(f.config(), index.Options{NoRemote: true})
	active := ""
	for _, line := range []string{
		`{"id":"r2","text":"the queue moved to Postgres","date":"2026-03-02"}`,
		`{"id":"r3","text":"the queue moved back to SQLite","date":"2026-03-03"}`,
	} {
		novatest.Must(t, os.WriteFile(f.src, []byte(line+"\n"), 0o600))
		r, err := ix.Sync(context.Background())
		novatest.Must(t, err)
		active = r.Active()
	}
	if _, err := os.Stat(f.home.Generation(read)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("retention kept %s: %v", read, err)
	}
	return active
}
