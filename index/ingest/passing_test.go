package ingest

import (
	"io/fs"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/nova-recall/nova/config"
)

// TestList_folderNotReadForAPassingReason: a folder of a source that
// cannot be read for a reason that passes (too many open files) is a
// problem marked Passing, so that a sync counts it to list again soon; one
// that cannot be read for a lasting reason (a permission) is not.
func TestList_folderNotReadForAPassingReason(t *testing.T) {
	for _, tc := range []struct {
		err     error
		passing bool
	}{{syscall.EMFILE, true}, {syscall.EIO, true}, {fs.ErrPermission, false}} {
		t.Run(tc.err.Error(), func(t *testing.T) {
			src := writeTree(t, map[string]string{
				"ledger.md":        "# Ledger\n\nClosed on the third day.\n",
				"harbour/crane.md": "# Crane\n\nInspected at the spring tide.\n",
			})
			sub := filepath.Join(src, "harbour")
			defer failReadDir(sub, tc.err)()
			l, err := List(config.Source{Name: "notes", Kind: config.KindMarkdown, Path: src})
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Files) != 1 || l.Files[0].Rel != "ledger.md" {
				t.Errorf("listed %v, want ledger.md alone", l.Files)
			}
			i := slices.IndexFunc(l.Problems, func(p Problem) bool { return p.Path == sub })
			if i < 0 {
				t.Fatalf("problems %v do not name %s", l.Problems, sub)
			}
			if l.Problems[i].Passing != tc.passing {
				t.Errorf("the folder's problem %+v: passing %v, want %v", l.Problems[i], l.Problems[i].Passing, tc.passing)
			}
		})
	}
}

// failReadDir makes List's walk fail to read the entries of dir with err,
// as filepath.WalkDir reports it (a second call for the folder), until
// the returned function is called.
func failReadDir(dir string, err error) (restore func()) {
	prev := walkDir
	walkDir = func(root string, fn fs.WalkDirFunc) error {
		return prev(root, func(p string, d fs.DirEntry, e error) error {
			if p != dir || e != nil {
				return fn(p, d, e)
			}
			if r := fn(p, d, nil); r != nil {
				return r
			}
			if r := fn(p, d, &fs.PathError{Op: "open", Path: p, Err: err}); r != nil {
				return r
			}
			return fs.SkipDir
		})
	}
	return func() { walkDir = prev }
}
