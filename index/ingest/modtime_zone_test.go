package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// TestRead_modTimeDayInTheReadersZone: a note dated by its file's
// modification time (a Markdown note without a date, a canvas, a Hermes
// memory file) takes the day that time falls on in the reader's zone
// (fileCtx.loc), as every other time the readers see does. The day was
// the machine's (os.FileInfo gives time.Local), whatever zone the reader
// was given: 12:00 UTC is already tomorrow at +14 and still today at -12,
// and both were dated alike.
func TestRead_modTimeDayInTheReadersZone(t *testing.T) {
	mtime := time.Date(2023, 1, 2, 12, 0, 0, 0, time.UTC)
	readers := map[string]struct {
		name, text string
		kind       string
		read       func(*fileCtx) error
	}{
		"markdown": {"deploy.md", "The port moved to 3037.\n", config.KindMarkdown, readMarkdown},
		"canvas":   {"board.canvas", obsidianCanvas, config.KindMarkdown, readCanvas},
		"hermes":   {"MEMORY.md", "The port moved to 3037.\n", config.KindHermes, readHermesMemory},
	}
	for name, r := range readers {
		for _, z := range []struct {
			loc  *time.Location
			want string
		}{
			{time.FixedZone("LINT", 14*3600), "2023-01-03"},
			{time.FixedZone("BIT", -12*3600), "2023-01-02"},
		} {
			t.Run(name+" "+z.loc.String(), func(t *testing.T) {
				dir := writeTree(t, map[string]string{r.name: r.text})
				p := filepath.Join(dir, r.name)
				if err := os.Chtimes(p, mtime, mtime); err != nil {
					t.Fatal(err)
				}
				var recs []memory.Record
				fc := &fileCtx{ctx: context.Background(), src: config.Source{Name: "notes", Kind: r.kind, Path: dir}, path: p, rel: r.name,
					sink: Sink{Record: func(rec memory.Record) error { recs = append(recs, rec); return nil }, Problem: func(p Problem) { t.Error(p) }}, loc: z.loc}
				if err := r.read(fc); err != nil {
					t.Fatal(err)
				}
				if len(recs) == 0 {
					t.Fatal("no records")
				}
				for _, rec := range recs {
					if rec.Date != z.want {
						t.Errorf("%q dated %s, want %s", rec.Text, rec.Date, z.want)
					}
				}
			})
		}
	}
}
