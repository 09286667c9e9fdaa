package ingest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
)

var updateDrift = flag.Bool("update-drift", false, "rewrite the want.txt of every case under testdata/shapes/drift")

// driftRoot holds one directory per input shape a reader once got wrong,
// under the kind that reads it: testdata/shapes/drift/<kind>/<case>/.
// Each case is a source of its own, with the records and problems a read
// of it gives in want.txt.
const driftRoot = "testdata/shapes/drift"

// TestRead_driftShapes reads every case under driftRoot and compares what
// it gives with the case's want.txt: one line per record (file, line,
// role, project, session, date, time, tags, title and text, with line
// breaks as \n) and one per problem ("problem file:line: reason").
func TestRead_driftShapes(t *testing.T) {
	kinds, err := os.ReadDir(driftRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range kinds {
		cases, err := os.ReadDir(filepath.Join(driftRoot, k.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			dir := filepath.Join(driftRoot, k.Name(), c.Name())
			t.Run(k.Name()+"/"+c.Name(), func(t *testing.T) {
				got := driftRead(t, k.Name(), dir)
				wantPath := filepath.Join(dir, "want.txt")
				if *updateDrift {
					if err := os.WriteFile(wantPath, []byte(got), 0o600); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(wantPath)
				if err != nil {
					t.Fatal(err)
				}
				if got != string(want) {
					t.Errorf("read of %s:\n%s\nwant:\n%s", dir, got, want)
				}
			})
		}
	}
}

// driftRead reads the case in dir as a source of kind and renders what it
// gives as want.txt holds it.
func driftRead(t *testing.T, kind, dir string) string {
	t.Helper()
	recs, problems := collect(t, config.Source{Name: "drift", Kind: kind, Path: dir})
	esc := strings.NewReplacer("\\", `\\`, "\n", `\n`, "\r", `\r`, "|", `\|`)
	var b strings.Builder
	for _, r := range recs {
		if m := noiseLeak.FindString(r.Text); m != "" {
			t.Errorf("record %s: noise %q leaked", r.ID, m)
		}
		tm := ""
		if !r.Time.IsZero() {
			tm = r.Time.UTC().Format(time.RFC3339Nano)
		}
		fields := []string{driftRel(dir, r.Path) + ":" + fmt.Sprint(r.Line), r.Role, r.Project, r.SessionID,
			r.Date, tm, strings.Join(r.Tags, ","), r.Title, r.Text}
		for i, f := range fields {
			fields[i] = esc.Replace(f)
		}
		b.WriteString(strings.Join(fields, "|") + "\n")
	}
	slices.SortStableFunc(problems, func(a, b Problem) int { return strings.Compare(a.Path, b.Path) })
	for _, p := range problems {
		line := ""
		if p.Line > 0 {
			line = ":" + fmt.Sprint(p.Line)
		}
		b.WriteString("problem " + driftRel(dir, p.Path) + line + ": " + esc.Replace(p.Reason) + "\n")
	}
	return b.String()
}

func driftRel(dir, path string) string {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(rel)
}
