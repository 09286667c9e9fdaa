package generation

import (
	"cmp"
	"path"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/nova-recall/nova/memory"
)

// snapshotDate is a day in a snapshot file's name (board-2026-06-01.md,
// board-20260601.md, 看板 2026年6月1日.md, 보드 2026년 6월 1일.md, a
// month 2026年6月.md, a day of no year 周报 6月1日.md): the snapshots of
// one board differ by it.
var snapshotDate = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\d{4}-?\d{2}-?\d{2}|(?:\d{4} ?[年년] ?)?\d{1,2} ?[月월](?: ?\d{1,2} ?[日일])?`)
})

// datedSection is a heading with a day in a section's subject (a lane of
// the day's releases, "Shipped 2026-05-20", a log's day, "2026年5月30日",
// "2026/05/30"): the section is of that day, not a state of the board
// that a later snapshot ends.
var datedSection = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|\D)(?:\d{4}-\d{2}-\d{2}|\d{4} ?[年년] ?\d{1,2} ?[月월] ?\d{1,2} ?[日일]|\d{4}/\d{1,2}/\d{1,2})(?:\D|$)`)
})

// repeatNumber is the number that tells apart the sections of one
// heading path in a snapshot (boardSubjects: "blocked~2").
var repeatNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`~\d+$`) })

// copyOrder orders a file that is a conflict copy before one that is
// not (-1, 0 or 1, as cmp.Compare): at one time, the file its owner
// keeps is the newer state. A copy is made when two devices change a
// file within one sync, often on one day, which is all the time an
// undated note has.
func copyOrder(a, b string) int {
	switch ca, cb := memory.IsConflictCopy(a), memory.IsConflictCopy(b); {
	case ca == cb:
		return 0
	case ca:
		return -1
	}
	return 1
}

// boardKey names the task board a snapshot's chunk belongs to: its
// project, its source, its file's folder and the words of its file's
// name less the day and the extension, in lower case (board-2026-06-01.md
// and Board 2026-07-01.md are two snapshots of one board, and so are
// TASK_BOARD.md edited in place and a copy TASK_BOARD-2026-05-01.md;
// ops.md beside them is another board). Names that are only a day or a
// month (2026-06-01.md, 2026-06.md, june.md) are the snapshots of one
// board of their folder. A folder of old snapshots (archive, old,
// history) is its parent's: archive/board-2026-01-01.md is a snapshot of
// the board.md beside it, while frontend/board.md and backend/board.md
// are two boards. A sync service's conflict copy of a board
// (memory.ConflictCopyOf) is a snapshot of the board it copies.
func boardKey(c *memory.Chunk) string {
	dir, base := path.Split(strings.ReplaceAll(c.SourcePath, "\\", "/"))
	if parent, folder := path.Split(strings.TrimSuffix(dir, "/")); archiveFolders[norm.NFC.String(strings.ToLower(folder))] {
		dir = parent
	}
	base, _ = memory.ConflictCopyOf(base)
	// Composed before the day is found: a Korean name as macOS writes it
	// is decomposed (년 is three jamo).
	base = snapshotDate().ReplaceAllString(norm.NFC.String(base), " ")
	words := strings.FieldsFunc(strings.ToLower(base), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if onlyMonth(words) {
		words = nil
	}
	// A name is one text in either Unicode form (a macOS folder's name
	// is decomposed, a typed one composed).
	return norm.NFC.String(c.Project + "\x00" + c.SourceName + "\x00" + dir + "\x00" + strings.Join(words, " "))
}

// archiveFolders are the names (in lower case, composed: a macOS
// folder's Korean name is decomposed) of a folder a board's older
// snapshots are moved to, beside the board, in English, Chinese,
// Japanese and Korean.
var archiveFolders = map[string]bool{
	"archive": true, "archives": true, "archived": true, "old": true, "history": true, "snapshots": true,
	"归档": true, "歸檔": true, "存档": true, "存檔": true, "历史": true, "歷史": true, "旧版": true, "舊版": true,
	"アーカイブ": true, "過去ログ": true, "履歴": true, "보관": true, "보관함": true, "아카이브": true,
}

// months are the names of the months, whole and abbreviated, in lower
// case.
var months = map[string]bool{
	"january": true, "february": true, "march": true, "april": true, "may": true, "june": true, "july": true,
	"august": true, "september": true, "october": true, "november": true, "december": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true,
	"sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
}

// onlyMonth reports whether the words of a file's name only name a
// month (june, "June 2026", 2026-06): a snapshot named by its time and
// nothing else. Numbers alone are not ("1", "2": pages, sprints), a
// year with a month number is ("2026 06").
func onlyMonth(words []string) bool {
	year, month := false, false
	for _, w := range words {
		switch {
		case months[w]:
			month = true
		case len(w) == 4 && (strings.HasPrefix(w, "19") || strings.HasPrefix(w, "20")) && allDigits(w):
			year = true
		case len(w) <= 2 && allDigits(w):
			// a month's number, with a year
		default:
			return false
		}
	}
	return month || year
}

// allDigits reports whether s is ASCII digits only.
func allDigits(s string) bool {
	return strings.Trim(s, "0123456789") == ""
}

// boardFile is one snapshot (one file) of a task board.
type boardFile struct {
	// when is the latest time of its chunks ("" when none has one).
	when         string
	source, path string
	// first is its first chunk, by line: what a dropped section is
	// superseded by.
	first, firstLine int
	docs             []int
	subjects         []string
	// holds maps each subject of the file to its first chunk, by line.
	holds map[string]int
}

// add counts the chunk doc of subject, of time when, as the file's.
func (f *boardFile) add(doc int, c *memory.Chunk, when string) {
	f.when = max(f.when, when)
	if len(f.docs) == 0 || cmp.Or(cmp.Compare(c.LineNumber, f.firstLine), cmp.Compare(doc, f.first)) < 0 {
		f.first, f.firstLine = doc, c.LineNumber
	}
	f.docs = append(f.docs, doc)
	f.subjects = append(f.subjects, c.Subject)
	if d, ok := f.holds[c.Subject]; !ok || doc < d {
		f.holds[c.Subject] = doc
	}
}

// newerThan orders two snapshots of a board as versions are ordered
// (version.newerThan): by time, then the board before its conflict copy
// (copyOrder), then by where they are read from.
func (f *boardFile) newerThan(o *boardFile) bool {
	if f.when != o.when {
		return f.when > o.when
	}
	return cmp.Or(copyOrder(f.path, o.path), strings.Compare(f.source, o.source), strings.Compare(f.path, o.path)) > 0
}

// boards gathers the chunks of task-board snapshots by board and file.
type boards map[string]map[string]*boardFile

// add counts chunk c (document doc, of time when) if it is a section of
// a task-board snapshot.
func (b boards) add(doc int, c *memory.Chunk, when string) {
	if c.SourceSet != memory.TaskBoardSnapshot {
		return
	}
	k := boardKey(c)
	if b[k] == nil {
		b[k] = map[string]*boardFile{}
	}
	file := c.SourceName + "\x00" + c.SourcePath
	f := b[k][file]
	if f == nil {
		f = &boardFile{source: c.SourceName, path: c.SourcePath, holds: map[string]int{}}
		b[k][file] = f
	}
	f.add(doc, c, when)
}

// iCloudCopy is the number iCloud Drive puts after a file's name for its
// copy of the file ("board 2.md"): the name less it is group 1, its
// extension group 2.
var iCloudCopy = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.*) [1-9]\d{0,2}(\.[^./]*)?$`) })

// foldCopies moves each snapshot that iCloud Drive's copy of another
// snapshot of its source is ("board 2.md" beside "board.md",
// memory.CopyOf) to that snapshot's board, and returns the board each
// moved file (by source and path, as boards keys them) is now of. The
// number alone is no copy's mark ("sprint 2.md" is a board), so the
// copy is judged beside its board, as boardKey, of one chunk, cannot.
func (b boards) foldCopies() map[string]string {
	files := map[string]string{} // file -> its board
	for k, fs := range b {
		for file := range fs {
			files[file] = k
		}
	}
	copyOf := map[string]string{} // copy -> the file it copies
	for file, k := range files {
		src, p, _ := strings.Cut(file, "\x00")
		m := iCloudCopy().FindStringSubmatch(strings.ReplaceAll(p, "\\", "/"))
		if m == nil {
			continue
		}
		orig := src + "\x00" + m[1] + m[2]
		if to, ok := files[orig]; ok && to != k && memory.CopyOf(p, orig[len(src)+1:]) {
			copyOf[file] = orig
		}
	}
	moved := map[string]string{}
	for file, orig := range copyOf {
		// A copy of a copy ("board 2 2.md") is of the board the first
		// copies.
		for hops := 0; hops < len(copyOf); hops++ {
			o, ok := copyOf[orig]
			if !ok {
				break
			}
			orig = o
		}
		moved[file] = files[orig]
	}
	for file, to := range moved {
		from := files[file]
		b[to][file] = b[from][file]
		delete(b[from], file)
		if len(b[from]) == 0 {
			delete(b, from)
		}
	}
	return moved
}

// supersedeDropped records that the newest snapshot of each board
// supersedes the sections of its older snapshots that it no longer
// holds (a card taken off the board, the second of two lanes of one name
// when one is left): no newer version of their own would, and they were
// current forever. Such a section is superseded by its heading's
// section on the newest snapshot when there is one (the lane left of
// two), else by the newest snapshot's first section. A dated section (datedSection) stays. A snapshot without a time is not ordered against the
// others (as timeGroups does not order them).
func (v *versions) supersedeDropped(b boards) {
	dated, repeat := datedSection(), repeatNumber()
	for _, files := range b {
		var newest *boardFile
		for _, f := range files {
			if f.when != "" && (newest == nil || f.newerThan(newest)) {
				newest = f
			}
		}
		if newest == nil {
			continue
		}
		for _, f := range files {
			if f == newest || f.when == "" {
				continue
			}
			for i, d := range f.docs {
				subject := f.subjects[i]
				if _, ok := v.newer[d]; ok || dated.MatchString(subject) {
					continue
				}
				if _, ok := newest.holds[subject]; ok {
					continue
				}
				// The second of two lanes of one name, when one is left,
				// is that lane's card in its newer state.
				n, ok := newest.holds[repeat.ReplaceAllString(subject, "")]
				if !ok {
					n = newest.first
				}
				v.newer[d] = n
			}
		}
	}
	// A version a dropped one superseded (a card of June that July also
	// held, August not) names the newest state, as supersededBy does:
	// August's, not July's card, itself superseded now.
	for d, n := range v.newer {
		for hops := 0; hops < len(v.newer); hops++ {
			m, ok := v.newer[n]
			if !ok || m == d {
				break
			}
			n = m
		}
		v.newer[d] = n
	}
}
