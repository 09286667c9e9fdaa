package paths_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/paths"
)

func mode(t *testing.T, p string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestSecure_createsAPrivateHome(t *testing.T) {
	h := paths.Home{Root: filepath.Join(t.TempDir(), "a", "nova")}
	narrowed, err := h.Secure()
	if err != nil || len(narrowed) != 0 {
		t.Fatalf("Secure on a new home: %v %v", narrowed, err)
	}
	for _, d := range []string{h.Root, h.StateDir(), h.IndexDir(), h.CacheDir()} {
		if m := mode(t, d); m != paths.DirMode {
			t.Errorf("%s: %v, want %v", d, m, paths.DirMode)
		}
	}
	if exposed, err := h.Exposed(); err != nil || len(exposed) != 0 {
		t.Errorf("Exposed on a private home: %v %v", exposed, err)
	}
}

func TestSecure_narrowsAHomeMadeWithMkdir(t *testing.T) {
	h := paths.Home{Root: t.TempDir()}
	gen := h.Generation("20260301T080000Z-00000001")
	must(t, os.MkdirAll(gen, 0o755))
	must(t, os.Chmod(h.Root, 0o755))
	for _, d := range []string{h.IndexDir(), h.Generations(), gen} {
		must(t, os.Chmod(d, 0o755))
	}
	chunks := filepath.Join(gen, "chunks.jsonl")
	must(t, os.WriteFile(chunks, []byte("{}\n"), 0o644))
	must(t, os.Chmod(chunks, 0o644))
	// The user's own files beside Nova's keep their modes; the token is
	// never narrowed (one others could read has leaked).
	cfgFile, notes := h.Config(), filepath.Join(h.Root, "notes", "a.md")
	must(t, os.WriteFile(cfgFile, []byte("sources: []\n"), 0o644))
	must(t, os.MkdirAll(filepath.Dir(notes), 0o755))
	must(t, os.WriteFile(notes, []byte("# a\n"), 0o644))
	must(t, os.Chmod(notes, 0o644))
	must(t, os.MkdirAll(h.StateDir(), 0o700))
	must(t, os.WriteFile(h.TokenFile(), []byte("x"), 0o644))
	must(t, os.Chmod(h.TokenFile(), 0o644))
	// A symbolic link is not followed.
	outside := filepath.Join(t.TempDir(), "outside.txt")
	must(t, os.WriteFile(outside, []byte("x"), 0o644))
	must(t, os.Chmod(outside, 0o644))
	must(t, os.Symlink(outside, filepath.Join(h.IndexDir(), "link")))

	exposed, err := h.Exposed()
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, e := range exposed {
		listed = append(listed, e.Path)
	}
	for _, want := range []string{h.Root, h.IndexDir(), gen, chunks, h.TokenFile()} {
		if !slices.Contains(listed, want) {
			t.Errorf("Exposed misses %s: %v", want, listed)
		}
	}
	if slices.Contains(listed, notes) || slices.Contains(listed, cfgFile) {
		t.Errorf("Exposed reports the user's own files: %v", listed)
	}

	narrowed, err := h.Secure()
	if err != nil {
		t.Fatal(err)
	}
	if len(narrowed) != 5 { // root, index, generations, gen, chunks
		t.Errorf("narrowed %v", narrowed)
	}
	for p, want := range map[string]fs.FileMode{h.Root: 0o700, h.IndexDir(): 0o700, h.Generations(): 0o700, gen: 0o700,
		chunks: 0o600, notes: 0o644, cfgFile: 0o644, h.TokenFile(): 0o644, outside: 0o644} {
		if got := mode(t, p); got != want {
			t.Errorf("%s: %v, want %v", p, got, want)
		}
	}
	if exposed, _ := h.Exposed(); len(exposed) != 1 || exposed[0].Path != h.TokenFile() {
		t.Errorf("after Secure only the leaked token is exposed: %v", exposed)
	}
}

// nobody is a user id the tests are not: what they give it is another
// user's.
const nobody = 65534

// TestSecure_refusesAPathAnotherUserControls: a home reached through a
// symbolic link or a directory another user owns is refused, though the
// directory it leads to is the user's: that user can point the link (or
// rename the entry) elsewhere at any time, and novad, which opens every
// file by its name under the home, would then serve their index and
// write the user's memory where they read it. A link the user owns is
// followed as before.
func TestSecure_refusesAPathAnotherUserControls(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a link or a directory to another user needs root")
	}
	dir := t.TempDir()
	mine := filepath.Join(dir, "mine")
	must(t, os.Mkdir(mine, 0o700))

	// A link planted where NOVA_HOME points (/tmp/nova, say) before the
	// user's first start.
	link := filepath.Join(dir, "nova")
	must(t, os.Symlink(mine, link))
	must(t, os.Lchown(link, nobody, nobody))
	if _, err := (paths.Home{Root: link}).Secure(); err == nil || !strings.Contains(err.Error(), link) {
		t.Errorf("Secure through another user's link: %v, want a refusal naming %s", err, link)
	}

	// A link of another user's on the way to the home.
	via := filepath.Join(dir, "via")
	must(t, os.Symlink(dir, via))
	must(t, os.Lchown(via, nobody, nobody))
	if _, err := (paths.Home{Root: filepath.Join(via, "mine")}).Secure(); err == nil || !strings.Contains(err.Error(), via) {
		t.Errorf("Secure through another user's link on the way: %v, want a refusal naming %s", err, via)
	}

	// A directory of another user's that holds the home: they can rename
	// the home away and put their own in its place.
	shared := filepath.Join(dir, "shared")
	must(t, os.Mkdir(shared, 0o777))
	must(t, os.Chown(shared, nobody, nobody))
	inShared := filepath.Join(shared, "nova")
	if _, err := (paths.Home{Root: inShared}).Secure(); err == nil || !strings.Contains(err.Error(), shared) {
		t.Errorf("Secure in another user's directory: %v, want a refusal naming %s", err, shared)
	}
	if _, err := os.Lstat(inShared); err == nil {
		t.Errorf("Secure created %s in another user's directory", inShared)
	}

	// The user's own link is followed.
	own := filepath.Join(dir, "own")
	must(t, os.Symlink(mine, own))
	if _, err := (paths.Home{Root: own}).Secure(); err != nil {
		t.Errorf("Secure through the user's own link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(mine, "state")); err != nil {
		t.Errorf("the home behind the user's own link was not made: %v", err)
	}
}

// TestSecure_refusesATreeLinkThroughAnotherUsersDirectory: a private tree
// that is a link (index/ kept elsewhere) to a directory of the user's
// inside another user's directory is refused: that user can move the
// directory away and put their own, with their own index, in its place.
func TestSecure_refusesATreeLinkThroughAnotherUsersDirectory(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a directory to another user needs root")
	}
	h := paths.Home{Root: filepath.Join(t.TempDir(), "nova")}
	theirs := filepath.Join(t.TempDir(), "theirs")
	must(t, os.Mkdir(theirs, 0o777))
	must(t, os.Chmod(theirs, 0o777))
	must(t, os.Chown(theirs, nobody, nobody))
	target := filepath.Join(theirs, "index")
	must(t, os.Mkdir(target, 0o700))
	must(t, os.MkdirAll(h.Root, 0o700))
	must(t, os.Symlink(target, h.IndexDir()))
	if _, err := h.Secure(); err == nil || !strings.Contains(err.Error(), theirs) {
		t.Errorf("Secure with index/ linked into another user's directory: %v, want a refusal naming %s", err, theirs)
	}
}

// TestSecure_leavesAFileWithOtherNamesAsItIs: a hard link to a file of
// the user's outside the home, planted in a private tree while the home
// was open to others (macOS lets anyone link a file they can reach by
// name), is refused and not narrowed: narrowing it changed the mode of
// the file it names too (a script in ~/bin lost its execute bit, a page
// in ~/Sites became unreadable to the web server), and what Nova writes
// in place (a lock file's record) would be written there.
func TestSecure_leavesAFileWithOtherNamesAsItIs(t *testing.T) {
	h := paths.Home{Root: filepath.Join(t.TempDir(), "nova")}
	must(t, os.MkdirAll(h.IndexDir(), 0o700))
	must(t, os.Chmod(h.IndexDir(), 0o777))
	tool := filepath.Join(t.TempDir(), "bin", "tool")
	must(t, os.MkdirAll(filepath.Dir(tool), 0o755))
	must(t, os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755))
	must(t, os.Chmod(tool, 0o755))
	planted := filepath.Join(h.IndexDir(), "tool")
	must(t, os.Link(tool, planted))

	_, err := h.Secure()
	if err == nil || !strings.Contains(err.Error(), planted) {
		t.Errorf("Secure with a hard link in index/: %v, want a refusal naming %s", err, planted)
	}
	if m := mode(t, tool); m != 0o755 {
		t.Errorf("the file a hard link in the home names was changed to %v", m)
	}
	// A private one too: Nova would write in place into what it names.
	history := filepath.Join(filepath.Dir(tool), ".zsh_history")
	must(t, os.WriteFile(history, []byte("git push\n"), 0o600))
	lock := h.DaemonLock()
	must(t, os.MkdirAll(h.StateDir(), 0o700))
	must(t, os.Link(history, lock))
	if _, err := h.Secure(); err == nil || !strings.Contains(err.Error(), lock) {
		t.Errorf("Secure with a hard link at the lock file: %v, want a refusal naming %s", err, lock)
	}
	// The rest is still narrowed.
	if m := mode(t, h.IndexDir()); m != paths.DirMode {
		t.Errorf("index/: %v, want %v", m, paths.DirMode)
	}
}

// TestSecure_refusesAHomeInADirectoryOthersCanWrite: whoever can write
// the directory that holds the home (or any directory on the way to it)
// can rename the home away and put their own in its place, unless the
// sticky bit (as on /tmp) keeps entries to their owners. A directory
// others can write is refused; one writable by the user's own group
// only is not (a user-private group, as umask 002 systems make).
func TestSecure_refusesAHomeInADirectoryOthersCanWrite(t *testing.T) {
	dir := t.TempDir()
	shared := filepath.Join(dir, "shared")
	must(t, os.Mkdir(shared, 0o700))
	must(t, os.Chmod(shared, 0o777))
	for _, root := range []string{filepath.Join(shared, "nova"), filepath.Join(shared, "deeper", "nova")} {
		if _, err := (paths.Home{Root: root}).Secure(); err == nil || !strings.Contains(err.Error(), shared+" can be written by other users") {
			t.Errorf("Secure of %s: %v, want a refusal naming %s", root, err, shared)
		}
		if _, err := os.Lstat(root); err == nil {
			t.Errorf("Secure created %s in a directory others can write", root)
		}
	}
	// A link of the user's own that leads through it is no better.
	link := filepath.Join(dir, "link")
	must(t, os.Symlink(shared, link))
	if _, err := (paths.Home{Root: filepath.Join(link, "nova")}).Secure(); err == nil || !strings.Contains(err.Error(), shared) {
		t.Errorf("Secure through a link into a directory others can write: %v", err)
	}

	// The sticky bit keeps each entry to its owner.
	must(t, os.Chmod(shared, 0o777|os.ModeSticky))
	if _, err := (paths.Home{Root: filepath.Join(shared, "nova")}).Secure(); err != nil {
		t.Errorf("Secure in a sticky directory: %v", err)
	}

	// The user's own group may write: on umask 002 systems it is the
	// user's private group.
	own := filepath.Join(dir, "own-group")
	must(t, os.Mkdir(own, 0o700))
	must(t, os.Chmod(own, 0o770))
	must(t, os.Chown(own, -1, os.Getegid()))
	if _, err := (paths.Home{Root: filepath.Join(own, "nova")}).Secure(); err != nil {
		t.Errorf("Secure in a directory only the user's group can write: %v", err)
	}

	// Another group that may write: its members can rename the home.
	if os.Getuid() != 0 {
		t.Skip("giving a directory to another group needs root")
	}
	team := filepath.Join(dir, "team")
	must(t, os.Mkdir(team, 0o700))
	must(t, os.Chmod(team, 0o770))
	must(t, os.Chown(team, -1, nobody))
	if _, err := (paths.Home{Root: filepath.Join(team, "nova")}).Secure(); err == nil || !strings.Contains(err.Error(), team+" can be written by other users") {
		t.Errorf("Secure in a directory another group can write: %v", err)
	}
}
