package paths

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// DirMode is the mode of every directory Nova creates under the runtime
// home, and FileMode the mode of every file it writes there. The home holds
// the user's conversations (and any secret that slipped past redaction),
// so no other local user may list or read any of it.
const (
	DirMode  fs.FileMode = 0o700
	FileMode fs.FileMode = 0o600
)

// MkdirPrivate creates dir and any missing parent with DirMode (the umask
// can only narrow it). An existing directory keeps its mode: Home.Secure
// is what tightens a home.
func MkdirPrivate(dir string) error { return os.MkdirAll(dir, DirMode) }

// CreatePrivate creates or truncates the file at path with FileMode, as
// os.Create does with 0666: what Nova writes (reports, logs, corpora
// derived from memory) is the user's alone wherever it is asked to go,
// NOVA_HOME included.
func CreatePrivate(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, FileMode)
}

// privateTrees are the directories Nova owns under the runtime home. Their
// whole content is Nova's; the home's other entries (config.yaml, which
// the user writes, or anything else kept there) are left alone: making the
// home itself private already hides them.
func (h Home) privateTrees() []string {
	return []string{h.StateDir(), h.IndexDir(), h.CacheDir(), h.LogsDir()}
}

// CacheDir holds what can be recomputed: embeddings and builtin models.
func (h Home) CacheDir() string { return filepath.Join(h.Root, "cache") }

// Secure makes the runtime home private. It creates the home, state/,
// index/ and cache/ with DirMode, then narrows what a plain mkdir, an
// archive tool or an older Nova left wider: the home itself, and every
// directory and file under state/, index/, cache/ and logs/, to DirMode
// and FileMode. The internal token is left as it is: one that others
// could read is compromised, and is refused until novad replaces it.
// Secure never follows a symbolic link inside the trees (a tree that is
// itself a link to a directory is followed: see walkPrivate). It returns
// the paths it narrowed; an entry it cannot narrow, or a tree that is
// another user's, is an error, but the rest are still narrowed. A home
// that is another user's, or reached through a link or directory another
// user (not root) owns or others can write, is an error before anything
// is done (Refusal); a tree linked through one is an error too.
//
// novad calls it at start and every index writer when it takes the lock,
// so a home made by hand is tightened before Nova writes into it.
func (h Home) Secure() ([]string, error) {
	if err := h.Refusal(); err != nil {
		return nil, err
	}
	for _, d := range []string{h.Root, h.StateDir(), h.IndexDir(), h.CacheDir()} {
		if err := MkdirPrivate(d); err != nil {
			return nil, fmt.Errorf("create %s: %w", d, err)
		}
	}
	var narrowed []string
	var errs []error
	// Another user's entry (behind a link planted while the home was
	// open to others) is refused, never changed, even where chmod would
	// succeed (root): Nova writes memory only where no one else can read
	// or replace it.
	foreign := func(p string) {
		errs = append(errs, fmt.Errorf("%s is owned by another user; remove it (or the link to it) so that Nova can keep it private", p))
	}
	narrow := func(p string, fi fs.FileInfo, mode fs.FileMode) {
		if OwnedByAnotherUser(fi) {
			foreign(p)
			return
		}
		if err := os.Chmod(p, mode); err != nil {
			errs = append(errs, err)
			return
		}
		narrowed = append(narrowed, p)
	}
	if fi, err := os.Stat(h.Root); err == nil && wide(fi.Mode()) {
		narrow(h.Root, fi, DirMode)
	}
	trees := h.privateTrees()
	for _, tree := range trees {
		// A tree kept elsewhere through a link is held to the home's own
		// rule: no one else may control the way to it. (A link to another
		// user's directory itself is refused by the walk below.)
		if fi, err := os.Lstat(tree); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := filepath.EvalSymlinks(tree)
			if p, why := foreignOnPath(tree); p != "" && p != target {
				errs = append(errs, fmt.Errorf("%s is a link through %s, which %s, who can redirect it elsewhere at any time; keep %s in a place of yours", tree, p, why, filepath.Base(tree)))
			}
		}
	}
	err := h.walkPrivate(func(p string, fi fs.FileInfo) {
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			// A link planted while the home was open to others would
			// have Nova write there (a backup, a generation): one to
			// another user's file or directory is refused.
			if ti, err := os.Stat(p); err == nil && OwnedByAnotherUser(ti) {
				errs = append(errs, fmt.Errorf("%s is a link to a %s owned by another user; remove it so that Nova can keep what it writes there private", p, kindOf(ti)))
			}
		case slices.Contains(trees, p) && OwnedByAnotherUser(fi):
			// A tree Nova writes into, private or not: what it writes
			// there would be the other user's to read.
			foreign(p)
		case p == h.TokenFile():
			// Narrowing it would hide that it leaked; novad writes a
			// fresh one at every start.
		case fi.Mode().IsRegular() && HasOtherNames(fi):
			// A hard link planted while the home was open to others
			// (macOS lets anyone link a file they can reach by name,
			// private or not): its mode is the mode of the file it names,
			// wherever that is, and what Nova writes in place (a lock
			// file's record, the history it appends to) would be written
			// there. Nova never links its own files.
			errs = append(errs, fmt.Errorf("%s is a hard link to a file that also has another name, maybe outside the home; Nova neither changes nor writes it: remove it", p))
		case fi.IsDir() && wide(fi.Mode()):
			narrow(p, fi, DirMode)
		case fi.Mode().IsRegular() && wide(fi.Mode()):
			narrow(p, fi, FileMode)
		}
	})
	if err != nil {
		errs = append(errs, err)
	}
	return narrowed, errors.Join(errs...)
}

// Refusal reports why Secure refuses the home before it creates or
// changes anything, nil when it would not: the home is another user's, or
// the way to it passes through a link or directory another user owns, or
// a directory others can write without the sticky bit (*UnsafePathError).
// It only reads, so that novactl doctor can say why novad and every index
// command would refuse the home.
func (h Home) Refusal() error {
	// Another user's home is refused before anything is created in it,
	// even one private to them that Nova could write to (as root): they
	// could rename what Nova writes there, and put their own index in its
	// place. The root may be a symbolic link to where the user keeps it;
	// its target is the home, so Stat (not Lstat) it.
	if fi, err := os.Stat(h.Root); err == nil && OwnedByAnotherUser(fi) {
		return fmt.Errorf("%s is owned by another user; Nova serves and writes only a home of the user it runs as (set NOVA_HOME to one of yours)", h.Root)
	}
	// The same holds for a link or directory on the way to the home
	// (a link planted at /tmp/nova before the user's first start, a
	// home kept in a colleague's directory): its owner can point the
	// link, or move the home's name, elsewhere while Nova runs, and
	// every file is opened by its name under the home.
	// So does a directory on the way that others can write, without the
	// sticky bit: any of them can rename the home away while novad runs
	// and put their own, with the memory they choose, under its name.
	if p, why := foreignOnPath(h.Root); p != "" {
		return &UnsafePathError{Home: h.Root, Path: p, Writable: why == whyWritable}
	}
	return nil
}

// UnsafePathError is Refusal's error for a home whose way passes through
// a link or directory that is not the user's alone to control.
type UnsafePathError struct {
	// Home is the home refused, Path the link or directory on the way
	// to it that another user owns or, when Writable, that other users
	// can write (it has no sticky bit).
	Home, Path string
	Writable   bool
}

func (e *UnsafePathError) Error() string {
	why := whyOwned
	if e.Writable {
		why = whyWritable
	}
	return fmt.Sprintf("%s %s, who can redirect %s elsewhere at any time; Nova serves and writes only a home no one else controls the way to (set NOVA_HOME to a place of yours)", e.Path, why, e.Home)
}

// Why foreignOnPath found a path on the way another's.
const (
	whyOwned    = "is owned by another user"
	whyWritable = "can be written by other users"
)

// foreignOnPath returns the first symbolic link or directory, on the way
// to p or p itself, that a user other than Nova's or root owns, or a
// directory on the way that other users can write without the sticky bit
// (writableByOthers), and why it is another's ("is owned by another
// user" or "can be written by other users"); "" when there is none.
// It resolves p one name at a time, as the kernel does, so that the links
// inside a link's target are checked too. Root is exempt: it controls
// every path anyway, and owns the system's own links (/tmp, /var on
// macOS). A name that does not exist yet ends the walk: Secure creates
// what is missing, as the user's.
func foreignOnPath(p string) (string, string) {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	sep := string(filepath.Separator)
	done := filepath.VolumeName(p) + sep
	rest := strings.Split(filepath.Clean(p)[len(done)-len(sep):], sep)
	for hops := 0; len(rest) > 0; {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		cur := filepath.Join(done, name)
		fi, err := os.Lstat(cur)
		if err != nil {
			return "", ""
		}
		if OwnedByAnotherUser(fi) && !ownedByRoot(fi) {
			return cur, whyOwned
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			// The home's own mode is Secure's to narrow; a directory it
			// is looked up in must keep its names to their owners.
			if len(rest) > 0 && fi.IsDir() && writableByOthers(fi) {
				return cur, whyWritable
			}
			done = cur
			continue
		}
		// A loop is left to the mkdir that follows, which says so.
		if hops++; hops > 255 {
			return "", ""
		}
		target, err := os.Readlink(cur)
		if err != nil {
			return "", ""
		}
		if filepath.IsAbs(target) {
			done = filepath.VolumeName(target) + sep
			target = target[len(done)-len(sep):]
		}
		rest = append(strings.Split(target, sep), rest...)
	}
	return "", ""
}

// Exposure is one path under the runtime home that other users can access.
type Exposure struct {
	Path string      `json:"path"`
	Mode fs.FileMode `json:"mode"`
}

// Exposed lists the home itself and every directory and file under
// state/, index/, cache/ and logs/ that grants any permission to group or
// others, in walk order. It only reads.
func (h Home) Exposed() ([]Exposure, error) {
	var out []Exposure
	fi, err := os.Stat(h.Root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if wide(fi.Mode()) {
		out = append(out, Exposure{Path: h.Root, Mode: fi.Mode().Perm()})
	}
	err = h.walkPrivate(func(p string, fi fs.FileInfo) {
		if (fi.IsDir() || fi.Mode().IsRegular()) && wide(fi.Mode()) {
			out = append(out, Exposure{Path: p, Mode: fi.Mode().Perm()})
		}
	})
	return out, err
}

// kindOf names what fi is, for a message.
func kindOf(fi fs.FileInfo) string {
	if fi.IsDir() {
		return "directory"
	}
	return "file"
}

// wide reports a mode that grants group or others anything.
func wide(m fs.FileMode) bool { return m.Perm()&0o077 != 0 }

// walkPrivate calls visit for every entry of the private trees (the
// trees' roots included; a symbolic link with its own information, not
// its target's), without following symbolic links, except a tree that
// is itself a link to a directory (index/ kept on another volume): what
// is behind it holds the same memory and is walked too, under the tree's
// own name, else a link planted while the home was open to others would
// send what Nova writes there to a directory that stays open, or another
// user's. Missing trees are
// skipped; entries that vanish mid-walk (a retention pass, a temp file
// renamed) are ignored.
func (h Home) walkPrivate(visit func(path string, fi fs.FileInfo)) error {
	var errs []error
	for _, tree := range h.privateTrees() {
		root := tree
		if fi, err := os.Lstat(tree); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(tree)
			if err != nil {
				continue // dangling: nothing behind it to narrow
			}
			if ti, err := os.Stat(target); err != nil || !ti.IsDir() {
				errs = append(errs, fmt.Errorf("%s is a link to something other than a directory", tree))
				continue
			}
			root = target
		}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			// Named under the tree, as the rest of Nova names it.
			p = filepath.Join(tree, strings.TrimPrefix(p, root))
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				errs = append(errs, err)
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			visit(p, fi)
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
