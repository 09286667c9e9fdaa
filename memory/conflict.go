package memory

import (
	"path"
	"regexp"
	"strings"
	"sync"

	"golang.org/x/text/unicode/norm"
)

// conflictCopy is what a sync service adds to a file's name (less its
// extension) when it keeps a copy of the file two devices changed at
// once: Syncthing's ".sync-conflict-20261201-101010-ABCDEFG" (older
// versions without the device), Dropbox's " (Mac's conflicted copy
// 2026-12-01)", " (Case Conflict)" and " (Unicode Encoding Conflict)"
// (Koofr's too: of two names that differ only in Unicode form, a macOS
// one decomposed and one typed elsewhere composed), Nextcloud's "
// (conflicted copy 2026-12-01 101010)", ownCloud's
// "_conflict-20261201-101010", and the " (1)" Google Drive and Windows
// add to a second file of one name.
var conflictCopy = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:\.sync-conflict-\d{8}-\d{6}(?:-[a-z0-9]{7})?|_conflict-\d{8}-\d{6}| \((?:[^()]*conflicted copy|case conflict|unicode encoding conflict)[^()]*(?:\(\d+\)[^()]*)?\)| \(\d+\))$`)
})

// ConflictCopyOf returns the name, less its extension, of the file
// whose sync service's conflict copy the file named base is (see
// conflictCopy), and whether base is one: "board" for
// "board.sync-conflict-20261201-101010-ABCDEFG.md".
func ConflictCopyOf(base string) (string, bool) {
	stem := strings.TrimSuffix(base, path.Ext(base))
	loc := conflictCopy().FindStringIndex(stem)
	if loc == nil {
		return stem, false
	}
	return stem[:loc[0]], true
}

// IsConflictCopy reports whether the file at p (slash- or
// backslash-separated, as a chunk's SourcePath) is a sync service's
// conflict copy of another (ConflictCopyOf).
func IsConflictCopy(p string) bool {
	_, ok := ConflictCopyOf(path.Base(strings.ReplaceAll(p, "\\", "/")))
	return ok
}

// CopyOf reports whether the file at p is a sync service's copy of the
// file at orig (both slash- or backslash-separated): in one folder and
// of one extension, p's name is orig's with a conflict copy's mark
// (ConflictCopyOf), or with a number after a space, as iCloud Drive
// names its copy ("notes 2.md" of "notes.md"). The number alone marks
// no copy ("sprint 2.md" is a board of its own): only beside the file
// it would copy. Names are compared in their composed (NFC) form: a
// Unicode Encoding Conflict copy's name is its original's in the other
// form.
func CopyOf(p, orig string) bool {
	dir, base := path.Split(norm.NFC.String(strings.ReplaceAll(p, "\\", "/")))
	odir, obase := path.Split(norm.NFC.String(strings.ReplaceAll(orig, "\\", "/")))
	if dir != odir || path.Ext(base) != path.Ext(obase) {
		return false
	}
	ostem := strings.TrimSuffix(obase, path.Ext(obase))
	if stem, ok := ConflictCopyOf(base); ok {
		return stem == ostem
	}
	n, ok := strings.CutPrefix(strings.TrimSuffix(base, path.Ext(base)), ostem+" ")
	return ok && n != "" && len(n) <= 3 && n[0] != '0' && strings.Trim(n, "0123456789") == ""
}
