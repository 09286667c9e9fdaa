package paths

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	cwd, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		environ []string
		want    string
	}{
		{[]string{"HOME=/home/ada"}, "/home/ada/.nova"},
		{[]string{"HOME=/home/ada", "NOVA_HOME=/srv/nova"}, "/srv/nova"},
		{[]string{"HOME=/home/ada", "NOVA_HOME=~/memory"}, "/home/ada/memory"},
		{[]string{"HOME=/home/ada", "NOVA_HOME=~"}, "/home/ada"},
		{[]string{"HOME=/home/ada", "NOVA_HOME=rel/home"}, filepath.Join(cwd, "rel/home")},
		{[]string{"HOME=/home/ada", "NOVA_HOME=/first", "NOVA_HOME=/last"}, "/last"}, // the last one wins, as in a shell
		{[]string{"HOME=/home/ada", "NOVA_HOME="}, "/home/ada/.nova"},                // empty is unset
		{[]string{"HOME=/home/ada", "NOVA_HOMEX=/no"}, "/home/ada/.nova"},
	} {
		h, err := Resolve(tt.environ)
		if err != nil || h.Root != tt.want {
			t.Errorf("Resolve(%v) = %q, %v; want %q", tt.environ, h.Root, err, tt.want)
		}
	}
}

// TestRelocated: only a NOVA_HOME that moves the home away from ~/.nova
// counts; spelling out the default is the default.
func TestRelocated(t *testing.T) {
	for _, tt := range []struct {
		environ []string
		want    string
	}{
		{[]string{"HOME=/home/ada"}, ""},
		{[]string{"HOME=/home/ada", "NOVA_HOME="}, ""},
		{[]string{"HOME=/home/ada", "NOVA_HOME=/home/ada/.nova"}, ""},
		{[]string{"HOME=/home/ada", "NOVA_HOME=~/.nova/"}, ""},
		{[]string{"HOME=/home/ada", "NOVA_HOME=/srv/nova"}, "/srv/nova"},
		{[]string{"HOME=/home/ada", "NOVA_HOME=~/memory"}, "/home/ada/memory"},
	} {
		if got := Relocated(tt.environ); got != tt.want {
			t.Errorf("Relocated(%v) = %q, want %q", tt.environ, got, tt.want)
		}
	}
}

// TestResolve_noHome: with no HOME anywhere and no NOVA_HOME there is no
// home to use, and Resolve says what to set.
func TestResolve_noHome(t *testing.T) {
	t.Setenv("HOME", "")
	if h, err := Resolve(nil); err == nil || !strings.Contains(err.Error(), "NOVA_HOME") {
		t.Errorf("Resolve without HOME = %q, %v; want an error naming NOVA_HOME", h.Root, err)
	}
	if h, err := Resolve([]string{"NOVA_HOME=/srv/nova"}); err != nil || h.Root != "/srv/nova" {
		t.Errorf("NOVA_HOME without HOME = %q, %v", h.Root, err)
	}
}

func TestExpandHome(t *testing.T) {
	env := []string{"HOME=/home/ada"}
	for in, want := range map[string]string{
		"~": "/home/ada", "~/notes": "/home/ada/notes", "~ada/notes": "~ada/notes", "/abs": "/abs", "rel": "rel", "": "",
	} {
		if got := ExpandHome(in, env); got != want {
			t.Errorf("ExpandHome(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLayout: every location is the one the architecture names, under the
// root, and no two coincide.
func TestLayout(t *testing.T) {
	h := Home{Root: "/n"}
	want := map[string]string{
		h.Config():      "/n/config.yaml",
		h.StateDir():    "/n/state",
		h.TokenFile():   "/n/state/internal-token",
		h.ServerState(): "/n/state/server-state.json",
		h.IndexDir():    "/n/index",
		h.Manifest():    "/n/index/manifest.json",
		h.History():     "/n/index/history.jsonl",
		h.Generations(): "/n/index/generations",
		h.Generation("20260301T080000Z-1a2b3c4d"): "/n/index/generations/20260301T080000Z-1a2b3c4d",
		h.Candidates():                           "/n/index/candidates",
		h.Candidate("20260301T080000Z-1a2b3c4d"): "/n/index/candidates/20260301T080000Z-1a2b3c4d",
		h.Lock():                                 "/n/index/lock",
		h.CacheDir():                             "/n/cache",
		h.EmbeddingCache():                       "/n/cache/embeddings",
		h.ModelDir():                             "/n/cache/models",
		h.LogsDir():                              "/n/logs",
		h.Backups("config"):                      "/n/state/backups/config",
	}
	if len(want) != 17 {
		t.Fatalf("%d distinct locations, want 17: two coincide", len(want))
	}
	for got, w := range want {
		if got != w {
			t.Errorf("%s, want %s", got, w)
		}
	}
}

// TestWithin: a path is within itself and its ancestors, not within a
// sibling that shares its prefix, and nothing is within "".
func TestWithin(t *testing.T) {
	for _, c := range []struct {
		p, dir string
		want   bool
	}{
		{"/a/b", "/a/b", true}, {"/a/b/c", "/a/b", true}, {"/a/b/c", "/", true},
		{"/a/bc", "/a/b", false}, {"/a", "/a/b", false}, {"/a", "", false},
	} {
		if got := Within(c.p, c.dir); got != c.want {
			t.Errorf("Within(%q, %q) = %v", c.p, c.dir, got)
		}
	}
}
