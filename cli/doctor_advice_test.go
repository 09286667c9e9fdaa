package cli

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/paths"
)

// adviceHome is a jsonlHome (root/src/r.jsonl, one record) with its
// source r; sync runs novactl index sync as the advice names it.
type adviceHome struct {
	t    *testing.T
	root string
	src  string
	home paths.Home
	env  []string
}

func newAdviceHome(t *testing.T) *adviceHome {
	root, home, env := jsonlHome(t)
	return &adviceHome{t: t, root: root, src: filepath.Join(root, "src"), home: home, env: env}
}

// config writes config.yaml with source r's line given its extra keys
// (", exclude: [x]") and more sources after it.
func (h *adviceHome) config(extra, more string) {
	h.t.Helper()
	cfg := "server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\nsources:\n  - {name: r, kind: jsonl, path: '" + h.src + "'" + extra + "}\n" + more
	novatest.Must(h.t, os.WriteFile(h.home.Config(), []byte(cfg), 0o600))
}

func (h *adviceHome) write(name, content string) {
	h.t.Helper()
	novatest.Must(h.t, os.WriteFile(filepath.Join(h.src, name), []byte(content), 0o600))
}

func (h *adviceHome) run(args ...string) {
	h.t.Helper()
	if code, out, errOut := runCLI(context.Background(), h.env, args...); code != ExitOK {
		h.t.Fatalf("novactl %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
	}
}

// doctor runs novactl doctor --json and novactl doctor, and returns the
// report and the text.
func (h *adviceHome) doctor() (doctor.Report, string) {
	h.t.Helper()
	_, out, errOut := runCLI(context.Background(), h.env, "doctor", "--json")
	var rep doctor.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		h.t.Fatalf("doctor --json: %v\n%s\n%s", err, out, errOut)
	}
	_, text, _ := runCLI(context.Background(), h.env, "doctor")
	return rep, text
}

// follow runs each novactl command the advice names, as written there
// (its words split at spaces): a command or flag that does not exist
// fails.
func (h *adviceHome) follow(advice string, cmds ...string) {
	h.t.Helper()
	for _, c := range cmds {
		if !strings.Contains(advice, c) {
			h.t.Fatalf("advice %q does not name %q", advice, c)
		}
		h.run(strings.Fields(strings.TrimPrefix(c, "novactl "))...)
	}
}

const heron = `{"id":"1","text":"the heron nests by the weir"}` + "\n"

// TestDoctor_adviceWorksWhenFollowed makes each condition doctor reports
// on a real home, takes the check's advice literally (the novactl
// commands it names, run as written; the file change it names), and runs
// doctor again: the check is then Ready (or gone). --json and the text
// carry the same code and advice.
func TestDoctor_adviceWorksWhenFollowed(t *testing.T) {
	cases := []struct {
		name, check, code string
		// setup makes the condition; fix follows the advice.
		setup func(h *adviceHome)
		fix   func(h *adviceHome, advice string)
	}{
		{
			name: "manifest removed", check: "index", code: doctor.CodeIndexMissing,
			setup: func(h *adviceHome) { h.run("index", "sync"); novatest.Must(h.t, os.Remove(h.home.Manifest())) },
			fix:   func(h *adviceHome, advice string) { h.follow(advice, "novactl index rollback") },
		},
		{
			name: "manifest unreadable", check: "index", code: doctor.CodeManifestInvalid,
			setup: func(h *adviceHome) {
				h.run("index", "sync")
				novatest.Must(h.t, os.WriteFile(h.home.Manifest(), []byte("{not json"), 0o600))
			},
			fix: func(h *adviceHome, advice string) { h.follow(advice, "novactl index rollback") },
		},
		{
			name: "embedding profile changed", check: "index", code: doctor.CodeProfileMismatch,
			setup: func(h *adviceHome) {
				h.run("index", "sync")
				f, err := os.OpenFile(h.home.Config(), os.O_APPEND|os.O_WRONLY, 0)
				novatest.Must(h.t, err)
				_, err = f.WriteString("embedding: {dimension: 128}\n")
				novatest.Must(h.t, err)
				novatest.Must(h.t, f.Close())
			},
			fix: func(h *adviceHome, advice string) { h.follow(advice, "novactl index sync") },
		},
		{
			name: "generation damaged and none intact", check: "index", code: doctor.CodeGenerationCorrupt,
			setup: func(h *adviceHome) {
				h.run("index", "sync")
				gens, err := filepath.Glob(filepath.Join(h.home.IndexDir(), "generations", "*", "sources.json"))
				novatest.Must(h.t, err)
				for _, g := range gens {
					novatest.Must(h.t, os.WriteFile(g, []byte("{}"), 0o600))
				}
			},
			fix: func(h *adviceHome, advice string) { h.follow(advice, "novactl index sync") },
		},
		{
			name: "active generation damaged and an older intact (sync)", check: "index", code: doctor.CodeGenerationCorrupt,
			setup: func(h *adviceHome) { h.damageActive() },
			fix:   func(h *adviceHome, advice string) { h.follow(advice, "novactl index sync") },
		},
		{
			name: "active generation damaged and an older intact (rollback)", check: "index", code: doctor.CodeGenerationCorrupt,
			setup: func(h *adviceHome) { h.damageActive() },
			fix: func(h *adviceHome, advice string) {
				_, after, ok := strings.Cut(advice, "novactl index rollback --to ")
				if !ok {
					h.t.Fatalf("advice %q names no rollback", advice)
				}
				h.follow(advice, "novactl index rollback --to "+strings.TrimRight(strings.Fields(after)[0], ")"))
			},
		},
		{
			name: "record of a file's reads lost", check: "input", code: doctor.CodeGenerationCorrupt,
			setup: func(h *adviceHome) {
				h.run("index", "sync")
				h.write("r.jsonl", heron+`{"id":"2","text":"the otter fishes below the mill"}`+"\n")
				h.run("index", "sync")
				states, err := filepath.Glob(filepath.Join(h.home.IndexDir(), "states", "*.json"))
				novatest.Must(h.t, err)
				for _, s := range states {
					novatest.Must(h.t, os.Remove(s))
				}
			},
			fix: func(h *adviceHome, advice string) { h.follow(advice, "novactl index sync") },
		},
		{
			// The rest of the file is searchable: removing the file, or
			// leaving it out, would drop that memory with the bad line.
			name: "a malformed line beside searchable records", check: "input", code: doctor.CodeInputSkipped,
			setup: func(h *adviceHome) {
				h.write("r.jsonl", heron+"{not json\n")
				h.run("index", "sync")
			},
			fix: func(h *adviceHome, advice string) {
				for _, lossy := range []string{"fix or remove", "or leave it out"} {
					if strings.Contains(advice, lossy) {
						h.t.Errorf("advice %q offers to drop the file's searchable record (%q)", advice, lossy)
					}
				}
				if !strings.Contains(advice, "fix the input") {
					h.t.Fatalf("advice %q does not say to fix the input", advice)
				}
				h.write("r.jsonl", heron+`{"id":"2","text":"the otter fishes below the mill"}`+"\n")
				h.follow(advice, "novactl index sync")
			},
		},
		{
			name: "a file of nothing but malformed lines", check: "input", code: doctor.CodeInputSkipped,
			setup: func(h *adviceHome) {
				h.write("bad.jsonl", "{not json\n")
				h.run("index", "sync")
			},
			fix: func(h *adviceHome, advice string) {
				if !strings.Contains(advice, "leave it out: sources[].exclude") {
					h.t.Fatalf("advice %q does not offer to leave the file out", advice)
				}
				h.config(", exclude: [bad.jsonl]", "")
				h.follow(advice, "novactl index sync")
			},
		},
		{
			// Every index command refuses the home until the Private home
			// check's fix is made: a sync said alone fails.
			name: "no index in a home others control the way to", check: "index", code: doctor.CodeIndexMissing,
			setup: func(h *adviceHome) { novatest.Must(h.t, os.Chmod(h.root, 0o777)) },
			fix: func(h *adviceHome, advice string) {
				if !strings.Contains(advice, "the Private home check says why and what to do); once that is fixed") {
					h.t.Fatalf("advice %q does not say the home is refused first", advice)
				}
				novatest.Must(h.t, os.Chmod(h.root, 0o700)) // the privacy check's chmod go-w
				h.follow(advice, "novactl index sync")
			},
		},
		{
			name: "home open to others", check: "privacy", code: doctor.CodeHomeNotPrivate,
			setup: func(h *adviceHome) {
				h.run("index", "sync")
				novatest.Must(h.t, os.Chmod(h.home.Root, 0o755))
				novatest.Must(h.t, os.Chmod(h.home.Manifest(), 0o644))
			},
			fix: func(h *adviceHome, advice string) {
				if !strings.Contains(advice, "chmod -R go= "+h.home.Root) {
					h.t.Fatalf("advice %q does not name chmod -R go= %s", advice, h.home.Root)
				}
				novatest.Must(h.t, filepath.WalkDir(h.home.Root, func(p string, d fs.DirEntry, err error) error {
					if err != nil {
						return err
					}
					fi, err := d.Info()
					if err != nil {
						return err
					}
					return os.Chmod(p, fi.Mode().Perm()&^0o077)
				}))
			},
		},
		{
			name: "record of lost memory unreadable", check: "lost", code: doctor.CodeMemoryLost,
			setup: func(h *adviceHome) {
				h.run("index", "sync")
				novatest.Must(h.t, os.WriteFile(filepath.Join(h.home.IndexDir(), "lost.json"), []byte("{not json"), 0o600))
			},
			fix: func(h *adviceHome, advice string) {
				lost := filepath.Join(h.home.IndexDir(), "lost.json")
				mv := "mv " + lost + " " + lost + ".unreadable"
				if !strings.Contains(advice, mv) {
					h.t.Fatalf("advice %q does not say how to clear it (%s)", advice, mv)
				}
				novatest.Must(h.t, os.Rename(lost, lost+".unreadable"))
			},
		},
		{
			name: "a source added since the build", check: "freshness", code: doctor.CodeIndexStale,
			setup: func(h *adviceHome) {
				h.run("index", "sync")
				more := filepath.Join(h.root, "more")
				novatest.Must(h.t, os.MkdirAll(more, 0o700))
				novatest.Must(h.t, os.WriteFile(filepath.Join(more, "m.jsonl"), []byte(`{"id":"m","text":"the kingfisher dives"}`+"\n"), 0o600))
				past := h.modTime(h.home.Manifest()).Add(-time.Hour)
				novatest.Must(h.t, os.Chtimes(filepath.Join(more, "m.jsonl"), past, past))
				h.config("", "  - {name: more, kind: jsonl, path: '"+more+"'}\n")
			},
			fix: func(h *adviceHome, advice string) { h.follow(advice, "novactl index sync") },
		},
		{
			name: "a misspelled source set", check: "source:r", code: doctor.CodeSourceSetUnknown,
			setup: func(h *adviceHome) { h.config(", sourceSet: lesons", ""); h.run("index", "sync") },
			fix: func(h *adviceHome, advice string) {
				if !strings.Contains(advice, `did you mean "lessons"? fix sources[].sourceSet`) {
					h.t.Fatalf("advice %q does not name the set", advice)
				}
				h.config(", sourceSet: lessons", "")
				h.follow(advice, "novactl index sync")
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newAdviceHome(t)
			h.t = t
			tc.setup(h)
			rep, text := h.doctor()
			c, ok := findCheck(rep, tc.check)
			if !ok || c.State == doctor.Ready || c.Code != tc.code || c.Advice == "" {
				t.Fatalf("check %s: %+v (found %v), want %s with advice", tc.check, c, ok, tc.code)
			}
			if !strings.Contains(text, c.State+": "+c.Code) || !strings.Contains(text, "→ "+c.Advice) {
				t.Errorf("the text does not carry %s and its advice %q:\n%s", c.Code, c.Advice, text)
			}
			tc.fix(h, c.Advice)
			rep, text = h.doctor()
			if c, ok := findCheck(rep, tc.check); ok && c.State != doctor.Ready {
				t.Errorf("after following the advice, check %s is still %s: %s (%s)\n%s", tc.check, c.State, c.Message, c.Advice, text)
			}
		})
	}
}

// damageActive syncs twice and cuts a byte off the active generation's
// record of its sources (a file of its own: segments may be shared).
func (h *adviceHome) damageActive() {
	h.t.Helper()
	h.run("index", "sync")
	h.write("r.jsonl", heron+`{"id":"2","text":"the otter fishes below the mill"}`+"\n")
	h.run("index", "sync")
	b, err := os.ReadFile(h.home.Manifest())
	novatest.Must(h.t, err)
	var m struct{ RunID string }
	novatest.Must(h.t, json.Unmarshal(b, &m))
	p := filepath.Join(h.home.Generation(m.RunID), "sources.json")
	fi, err := os.Stat(p)
	novatest.Must(h.t, err)
	novatest.Must(h.t, os.Truncate(p, fi.Size()-1))
}

func findCheck(rep doctor.Report, id string) (doctor.Check, bool) {
	for _, c := range rep.Checks {
		if c.ID == id {
			return c, true
		}
	}
	return doctor.Check{}, false
}

func (h *adviceHome) modTime(p string) time.Time {
	h.t.Helper()
	fi, err := os.Stat(p)
	novatest.Must(h.t, err)
	return fi.ModTime()
}
