package watch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/redact"
)

// fileStat is what the rescan compares: a file changed when any differs.
// The mode is in it because a note that could not be read and is made
// readable changes nothing else.
type fileStat struct {
	size  int64
	mtime int64
	inode uint64
	mode  fs.FileMode
}

func statOf(fi fs.FileInfo) fileStat {
	return fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano(), inode: inodeOf(fi), mode: fi.Mode()}
}

// tree is what the watcher knows of the sources: the folders it watches
// or polls, and the stat of every file each source reads.
type tree struct {
	n       notifier
	sources []config.Source
	lister  Lister
	// watched folders have a notifier watch, costing watched[dir] of the
	// budget, on the folder ids[dir] identifies (see add); polled ones
	// could not get one and rely on the rescan.
	watched map[string]int
	ids     map[string]uint64
	polled  map[string]bool
	// denied folders could not be watched for want of permission, said
	// once each (see add).
	denied map[string]bool
	budget int
	used   int
	// cost is what watching a folder costs now (watchCost).
	cost func(dir string) (int, error)
	// snap[i] is the files of sources[i] with their stat.
	snap []map[string]fileStat
	// dirs[i] is sourceDir(sources[i]) as of the last walk: events are
	// matched against it without a stat each.
	dirs []string
	// anchors[i] is the folder watched in place of source i's folder
	// while that is missing: the nearest existing one above its path,
	// where a Create says the path is coming back. "" when not missing.
	anchors []string
	// targets[i] maps the files that source i's files link to (a
	// transcript or an export linked from a synced drive) to the link:
	// their folders are watched too, since writing such a file raises no
	// event where the link is.
	targets []map[string]string
	// limit is told when a watch limit is hit.
	limit func(name string, value int, msg string)
	warn  func(msg string, args ...any)
}

func newTree(n notifier, sources []config.Source, lister Lister, budget int, cost func(string) (int, error)) *tree {
	// Events name clean paths: a source written /notes/ (config.yaml keeps
	// an absolute path as written) is matched as /notes, or no event in
	// its folder would count.
	sources = slices.Clone(sources)
	for i, s := range sources {
		if s.Path != "" {
			sources[i].Path = filepath.Clean(s.Path)
		}
	}
	t := &tree{n: n, sources: sources, lister: lister, watched: map[string]int{}, ids: map[string]uint64{}, polled: map[string]bool{}, denied: map[string]bool{},
		budget: budget, cost: cost, snap: make([]map[string]fileStat, len(sources)), dirs: make([]string, len(sources)), anchors: make([]string, len(sources)), targets: make([]map[string]string, len(sources)),
		limit: func(string, int, string) {}, warn: func(string, ...any) {}}
	for i := range t.snap {
		t.snap[i] = map[string]fileStat{}
	}
	return t
}

// kqueueCost is what watching dir costs under kqueue: a descriptor for
// the folder and one for each entry of it; 1 with the error when its
// entries cannot be read. It is here, not in the kqueue build, so that
// Linux tests can charge folders as a Mac does.
func kqueueCost(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 1, err
	}
	return 1 + len(entries), nil
}

// sourceDir returns the folder to watch for a source: its path, or the folder
// holding it when the source is one file. "" when it does not exist.
func sourceDir(src config.Source) string {
	fi, err := os.Stat(src.Path)
	switch {
	case err != nil:
		return ""
	case fi.IsDir():
		return src.Path
	}
	return filepath.Dir(src.Path)
}

// owners returns the indexes of the sources whose tree holds p.
func (t *tree) owners(p string) []int {
	var out []int
	for i, s := range t.sources {
		if _, linked := t.targets[i][p]; linked || within(p, s.Path) || within(p, t.dirs[i]) {
			out = append(out, i)
		}
	}
	return out
}

func within(p, root string) bool { return paths.Within(p, root) }

// hidden reports whether p is or lies in a hidden folder below root,
// which the readers skip (.git, .obsidian, .trash), or is a hidden file
// (hiddenName tells the two apart).
func hidden(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." {
		return false
	}
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.HasPrefix(part, ".") && part != "." && part != ".." {
			return true
		}
	}
	return false
}

// dirsUnder lists the folder of a folder source and every folder below
// it that its listing enters (ingest.SkipsDir: not hidden, not excluded
// by the source's or its kind's globs); symlinked folders are not
// followed, unless the source's path is one (ingest.WalkRoot).
func dirsUnder(src config.Source) []string {
	var out []string
	walk := ingest.WalkRoot(src.Path)
	_ = filepath.WalkDir(walk, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && p != walk {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p == walk {
			p = src.Path // the link's path, as events name it
		} else {
			rel, _ := filepath.Rel(src.Path, p)
			if ingest.SkipsDir(src, filepath.ToSlash(rel)) {
				return fs.SkipDir
			}
		}
		out = append(out, p)
		return nil
	})
	return out
}

// enteredBy reports whether the listing of source i, a folder, enters
// dir: dir is its folder, or below it with no folder on the way (dir
// included) that ingest.SkipsDir skips.
func (t *tree) enteredBy(i int, dir string) bool {
	s := t.sources[i]
	if t.dirs[i] != s.Path || !within(dir, s.Path) {
		return false // a one-file source or a missing one enters no folder
	}
	rel, err := filepath.Rel(s.Path, dir)
	if err != nil {
		return false
	}
	if rel == "." {
		return true
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for k := range parts {
		if ingest.SkipsDir(s, strings.Join(parts[:k+1], "/")) {
			return false
		}
	}
	return true
}

// entered reports whether the listing of any source enters dir: the
// folders worth a watch.
func (t *tree) entered(dir string) bool {
	for i := range t.sources {
		if t.enteredBy(i, dir) {
			return true
		}
	}
	return false
}

// hiddenName reports whether p's own name begins with a dot.
func hiddenName(p string) bool {
	return strings.HasPrefix(filepath.Base(p), ".")
}

// ignores reports whether an event for p says nothing to source i, one
// of its owners: p is in a hidden folder or in one the source's listing
// does not enter, or is a hidden file or folder its listing does not
// notice (.DS_Store, an editor's swap file, .git; Aider's
// .aider.chat.history.md is an aider source's, and iCloud's stub
// .Note.md.icloud a notes source's). A one-file source's file is its own,
// hidden or not.
func (t *tree) ignores(i int, p string) bool {
	d := t.dirs[i]
	_, linked := t.targets[i][p]
	switch {
	case d == "" || linked:
		return false
	case hidden(filepath.Dir(p), d):
		return true
	case d != t.sources[i].Path || p == d:
		return false
	case hiddenName(p):
		rel, err := filepath.Rel(d, p)
		if err != nil || !ingest.Notices(t.sources[i], filepath.ToSlash(rel)) {
			return true
		}
	}
	return !t.enteredBy(i, filepath.Dir(p))
}

// polls reports whether source i has a folder with no watch, which
// only a rescan looks at: one it reads, the anchor it waits on, the
// folder holding its link or one its links point into. A missing source
// counts too (listing it costs nothing).
func (t *tree) polls(i int) bool {
	s := t.sources[i]
	if t.dirs[i] == "" {
		return true
	}
	lp := linkParent(s)
	for d := range t.polled {
		if within(d, s.Path) || within(d, t.dirs[i]) || d == t.anchors[i] || d == lp {
			return true
		}
		for target := range t.targets[i] {
			if filepath.Dir(target) == d {
				return true
			}
		}
	}
	return false
}

// mayList reports whether p, a file no source reads yet, may be source
// i's once listed: a folder source's listing lists its name (see
// ingest.ListsFile; the caller judged its folder with ignores), or it is
// the companion of a file the source reads (a Hermes database's -wal,
// see ingest.Companions); a one-file source's only file is its own (or
// a companion of it). Listing a source again stats every file of it: a
// file no listing lists, written all day beside the ones read (Codex's
// history.jsonl, Gemini's logs.json, a database's -shm), must not cost
// that at each write.
func (t *tree) mayList(i int, p string) bool {
	s := t.sources[i]
	if t.dirs[i] != s.Path {
		return p == s.Path || slices.Contains(ingest.Companions(s.Kind, s.Path), p)
	}
	if rel, err := filepath.Rel(s.Path, p); err == nil && ingest.Notices(s, filepath.ToSlash(rel)) {
		return true
	}
	// A companion's name extends its file's.
	for k := len(p) - 1; k > len(s.Path); k-- {
		if _, ok := t.snap[i][p[:k]]; ok && slices.Contains(ingest.Companions(s.Kind, p[:k]), p) {
			return true
		}
	}
	return false
}

// watchNew watches a folder that just appeared and every folder below it
// that a source's listing enters; a folder no listing enters is not
// watched (see entered). Each folder is watched before it is listed: a
// subfolder created between the listing and the watch would otherwise
// have neither a watch nor a Create event (mkdir -p of a new day folder
// races the watcher), while one created after the watch raises an
// event, and one created before is in the listing.
func (t *tree) watchNew(dir string) {
	queue := []string{dir}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if !t.entered(d) {
			continue
		}
		t.add(d)
		entries, err := os.ReadDir(d)
		if err != nil {
			continue // gone meanwhile, or unreadable: the rescan retries
		}
		for _, e := range entries {
			// Symlinked folders are not followed, as dirsUnder does.
			if e.IsDir() {
				queue = append(queue, filepath.Join(d, e.Name()))
			}
		}
	}
}

// watchAll (re)walks every source and watches the folders not yet
// watched: new ones, and polled ones whose limit may have eased; the
// watched ones are charged what they cost now (see recount) and added
// again (see add).
func (t *tree) watchAll() {
	// A folder gone with no event to say so (below a polled folder, or
	// lost in an overflow) is forgotten first: it counted as watched or
	// polled (a polled one kept the rescan short) and held budget.
	for d := range t.watched {
		if _, err := os.Lstat(d); errors.Is(err, fs.ErrNotExist) {
			t.drop(d)
		}
	}
	for d := range t.polled {
		if _, err := os.Lstat(d); errors.Is(err, fs.ErrNotExist) {
			delete(t.polled, d)
		}
	}
	for d := range t.denied {
		if _, err := os.Lstat(d); errors.Is(err, fs.ErrNotExist) {
			delete(t.denied, d)
		}
	}
	for i, s := range t.sources {
		t.dirs[i] = sourceDir(s)
	}
	t.recount()
	var dirs []string
	for i, s := range t.sources {
		if lp := linkParent(s); lp != "" {
			dirs = append(dirs, lp)
		}
		if d := t.dirs[i]; d != "" {
			if d != s.Path {
				dirs = append(dirs, d) // a one-file source: only its folder
				continue
			}
			dirs = append(dirs, dirsUnder(s)...)
		}
	}
	t.watch(dirs)
	for i := range t.sources {
		t.anchor(i)
	}
}

// recount charges each watched folder what watching it costs now and,
// when that is beyond the budget, leaves the least recently modified
// folders to the rescan until it is not (never a source's own folder or
// anchor: new folders appear there, and watch puts them first too). Under kqueue a folder's cost grows with
// every file made in it after its watch, since fsnotify watches each: a
// watcher running for weeks over transcripts that keep coming would spend
// descriptors past its budget, until new files went unwatched and syncs
// could not open the files they read. Under inotify the cost is constant
// and this only walks the map.
func (t *tree) recount() {
	for d, old := range t.watched {
		c, err := t.cost(d)
		switch {
		case errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE):
			// Out of descriptors, which the watches may have outgrown:
			// this folder's are given back, so that the rest can be
			// counted, and watch adds it again if it fits.
			t.unwatch(d)
			t.limit(freshness.LimitOpenFiles, openFilesLimit(), openFilesMessage())
			continue
		case err != nil:
			c = old // unreadable now: fsnotify holds what it held
		}
		t.watched[d] = c
		t.used += c - old
	}
	if t.budget <= 0 || t.used <= t.budget {
		return
	}
	keep := map[string]bool{}
	for i, d := range t.dirs {
		keep[d], keep[t.anchors[i]] = true, true
	}
	type cand struct {
		dir   string
		mtime time.Time
	}
	var cs []cand
	for d := range t.watched {
		if keep[d] {
			continue
		}
		c := cand{dir: d}
		if fi, err := os.Stat(d); err == nil {
			c.mtime = fi.ModTime()
		}
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool {
		if !cs[i].mtime.Equal(cs[j].mtime) {
			return cs[i].mtime.Before(cs[j].mtime)
		}
		return cs[i].dir < cs[j].dir
	})
	for _, c := range cs {
		if t.used <= t.budget {
			break
		}
		t.unwatch(c.dir)
	}
	t.limit(budgetLimit, t.budget, budgetMessage(t.budget))
}

// unwatch gives back the watch of dir, leaving it to the rescan.
func (t *tree) unwatch(dir string) {
	t.forget(dir)
	t.polled[dir] = true
}

// forget gives back the watch of dir, and only dir.
func (t *tree) forget(dir string) {
	_ = t.n.Remove(dir)
	t.used -= t.watched[dir]
	delete(t.watched, dir)
	delete(t.ids, dir)
}

// folderID identifies the folder dir names now (through a link): its
// inode, 0 when unknown.
func folderID(dir string) uint64 {
	fi, err := os.Stat(dir)
	if err != nil {
		return 0
	}
	return inodeOf(fi)
}

// place watches source i where it stands now: its folder (and, for a
// folder source, everything below it) when it exists, else an anchor.
func (t *tree) place(i int) {
	s := t.sources[i]
	d := sourceDir(s)
	t.dirs[i] = d
	if lp := linkParent(s); lp != "" {
		if _, ok := t.watched[lp]; !ok {
			t.add(lp)
		}
	}
	switch {
	case d == s.Path:
		t.watchNew(d)
	case d != "":
		if _, ok := t.watched[d]; !ok {
			t.add(d)
		}
	}
	t.anchor(i)
}

// anchor watches the nearest existing folder above source i's path while
// the source's folder is missing (removed, or moved away and not yet
// back), so that its return is seen at once rather than at the next
// rescan, and stops when the folder is back.
func (t *tree) anchor(i int) {
	old, next := t.anchors[i], ""
	if t.dirs[i] == "" {
		next = nearestDir(filepath.Dir(t.sources[i].Path))
	}
	t.anchors[i] = next
	if next != "" {
		if _, ok := t.watched[next]; !ok {
			t.add(next)
		}
	}
	if old != "" && old != next {
		t.release(old)
	}
	// A folder made on the way between the look and the watch (mkdir -p
	// of the source) raised no event here: look again, and move down.
	if next != "" {
		if sourceDir(t.sources[i]) != "" {
			t.place(i)
		} else if n := nearestDir(filepath.Dir(t.sources[i].Path)); n != next && within(n, next) {
			t.place(i)
		}
	}
}

// linkParent returns the folder holding a source's path when that path
// is a link: watched too, so that the link pointed elsewhere (a new link
// renamed over it, ln -sfn) raises an event there (see relinked); the
// watches below the link follow the folder it pointed to when they were
// made. "" for a source that is not a link.
func linkParent(src config.Source) string {
	if fi, err := os.Lstat(src.Path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return filepath.Dir(src.Path)
	}
	return ""
}

// relinked returns the sources whose path is p, a link made anew there:
// they must be watched where it points now.
func (t *tree) relinked(p string) []int {
	var out []int
	for i, s := range t.sources {
		if s.Path == p && linkParent(s) != "" {
			out = append(out, i)
		}
	}
	return out
}

// nearestDir returns p or the nearest folder above it that exists.
func nearestDir(p string) string {
	for {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
		up := filepath.Dir(p)
		if up == p {
			return ""
		}
		p = up
	}
}

// release drops the watch of a former anchor unless a source still needs
// it: as another anchor, or as a folder it reads.
func (t *tree) release(dir string) {
	for i, d := range t.dirs {
		if t.anchors[i] == dir || d == dir || (d == t.sources[i].Path && within(dir, d)) || linkParent(t.sources[i]) == dir {
			return
		}
		for target := range t.targets[i] {
			if filepath.Dir(target) == dir {
				return
			}
		}
	}
	if _, ok := t.watched[dir]; ok {
		t.forget(dir)
	}
}

// anchoredBy returns the sources whose anchor holds p and whose path p
// leads to (p is their missing folder, one above it, or their file).
func (t *tree) anchoredBy(p string) []int {
	var out []int
	for i, a := range t.anchors {
		if a != "" && filepath.Dir(p) == a && within(t.sources[i].Path, p) {
			out = append(out, i)
		}
	}
	return out
}

// displaced returns the sources whose folder or anchor lay in dir, which
// was removed or moved away.
func (t *tree) displaced(dir string) []int {
	var out []int
	for i, s := range t.sources {
		if within(s.Path, dir) || within(t.dirs[i], dir) || within(t.anchors[i], dir) {
			out = append(out, i)
		}
	}
	return out
}

// watch adds watches for dirs, newest first: when a limit leaves some
// folders to the rescan, those are the least active ones (last year's
// Codex day folders, old Claude Code projects). Source roots go first of
// all: new folders appear in them.
func (t *tree) watch(dirs []string) {
	roots := map[string]bool{}
	for _, d := range t.dirs {
		roots[d] = true
	}
	type cand struct {
		dir   string
		root  bool
		mtime time.Time
	}
	var cs []cand
	seen := map[string]bool{}
	for _, d := range dirs {
		if seen[d] {
			continue
		}
		seen[d] = true
		if _, ok := t.watched[d]; ok {
			t.add(d) // see add: the folder there may be another by now
			continue
		}
		c := cand{dir: d, root: roots[d]}
		if fi, err := os.Stat(d); err == nil {
			c.mtime = fi.ModTime()
		}
		cs = append(cs, c)
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].root != cs[j].root {
			return cs[i].root
		}
		return cs[i].mtime.After(cs[j].mtime)
	})
	for _, c := range cs {
		t.add(c.dir)
	}
}

// add watches one folder, within the budget. A folder watched already is
// added again at no cost: the path may name another folder by now (one
// deleted and made again while the events saying so were lost in an
// overflow, one renamed over it, a link pointed elsewhere), which the old
// watch does not follow. inotify's Add of the path watches the folder it
// names now; kqueue's keeps the descriptor it opened on the old one, so a
// path that names another folder than the one watched is watched anew.
func (t *tree) add(dir string) {
	if _, ok := t.watched[dir]; ok {
		if id := folderID(dir); id == 0 || id == t.ids[dir] {
			if err := t.n.Add(dir); errors.Is(err, fs.ErrNotExist) {
				t.drop(dir) // gone meanwhile
			}
			return
		}
		// Only the folder itself: the walk meets each one below it.
		t.forget(dir)
	}
	// A folder whose entries cannot be read costs 1: fsnotify cannot
	// watch them either.
	cost, _ := t.cost(dir)
	if t.budget > 0 && t.used+cost > t.budget {
		t.polled[dir] = true
		t.limit(budgetLimit, t.budget, budgetMessage(t.budget))
		return
	}
	// The folder is identified before its watch: one put in its place
	// between the two is then watched anew at the next look.
	id := folderID(dir)
	err := t.n.Add(dir)
	var none *notifierError
	switch {
	case errors.As(err, &none):
		t.polled[dir] = true
		name, value, msg := notifierLimit(none.err)
		t.limit(name, value, msg)
	case err == nil:
		t.watched[dir] = cost
		t.ids[dir] = id
		t.used += cost
		delete(t.polled, dir)
		delete(t.denied, dir)
	case errors.Is(err, fs.ErrNotExist):
		delete(t.polled, dir) // gone meanwhile
	case errors.Is(err, fs.ErrPermission):
		// A folder this user may not read: nothing in it can be listed
		// either (the listing reports it), so there is nothing for the
		// rescan to poll, and counting it as polled would shorten the
		// rescan of every source for as long as it stays unreadable. The
		// chmod that makes it readable raises an event in its parent,
		// which watches it (see onEvent), and every rescan tries again:
		// said once, not at each try.
		delete(t.polled, dir)
		if !t.denied[dir] {
			t.denied[dir] = true
			t.warn("Cannot watch a folder this user may not read; nothing in it is read until it can be", "dir", redact.Path(dir), "err", loggedErr(err))
		}
	case errors.Is(err, syscall.ENOSPC):
		t.polled[dir] = true
		t.limit(freshness.LimitInotifyWatches, inotifyMaxWatches(), inotifyMessage())
	case errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE):
		t.polled[dir] = true
		t.limit(freshness.LimitOpenFiles, openFilesLimit(), openFilesMessage())
	default:
		t.polled[dir] = true
		t.warn("Cannot watch a folder; the rescan covers it", "dir", redact.Path(dir), "err", loggedErr(err))
	}
}

// loggedErr is err's text as the log may hold it: with the secrets in a
// folder's name it quotes redacted, as the folder is (redact.Path).
// The log is a file users attach to bug reports.
func loggedErr(err error) string {
	s, _ := redact.Text(err.Error())
	return s
}

// drop forgets dir and every folder below it (deleted or moved away).
func (t *tree) drop(dir string) {
	for d := range t.watched {
		if within(d, dir) {
			t.forget(d) // its watch already gone with the folder, mostly
		}
	}
	for d := range t.polled {
		if within(d, dir) {
			delete(t.polled, d)
		}
	}
	for d := range t.denied {
		if within(d, dir) {
			delete(t.denied, d)
		}
	}
}

// known reports whether any source reads p.
func (t *tree) known(p string) bool {
	for _, m := range t.snap {
		if _, ok := m[p]; ok {
			return true
		}
	}
	return false
}

// change is what a relist or stat found.
type change struct {
	added, changed []string
	removed        []removed
}

// removed is a file no longer there, with the inode it had.
type removed struct {
	path  string
	inode uint64
}

func (c *change) any() bool { return len(c.added)+len(c.changed)+len(c.removed) > 0 }

// relist lists source i again and compares it with what was known.
func (t *tree) relist(i int, c *change) {
	files, err := t.lister(t.sources[i])
	if err != nil {
		files = nil // a missing source keeps its memory; only its files are gone
	}
	next := make(map[string]fileStat, len(files))
	targets := map[string]string{}
	for _, p := range files {
		fi, err := os.Lstat(p)
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if target, err := filepath.EvalSymlinks(p); err == nil {
				targets[target] = p
			}
			fi, err = os.Stat(p)
		}
		if err != nil {
			continue
		}
		st := statOf(fi)
		next[p] = st
		old, ok := t.snap[i][p]
		switch {
		case !ok:
			c.added = append(c.added, p)
		case old != st:
			c.changed = append(c.changed, p)
		}
	}
	for p, old := range t.snap[i] {
		if _, ok := next[p]; !ok {
			c.removed = append(c.removed, removed{p, old.inode})
		}
	}
	t.snap[i] = next
	t.link(i, targets)
}

// link records the files source i's links point to and watches their
// folders, releasing the folders of the ones no link points to now.
func (t *tree) link(i int, targets map[string]string) {
	old := t.targets[i]
	t.targets[i] = targets
	for target := range targets {
		if d := filepath.Dir(target); !t.covers(d) {
			t.add(d)
		}
	}
	for target := range old {
		if _, ok := targets[target]; !ok {
			t.release(filepath.Dir(target))
		}
	}
}

// covers reports whether dir is watched or polled already.
func (t *tree) covers(dir string) bool {
	_, ok := t.watched[dir]
	return ok || t.polled[dir]
}

// linksTo returns the source files that are links to p.
func (t *tree) linksTo(p string) []string {
	var out []string
	for _, m := range t.targets {
		if l, ok := m[p]; ok {
			out = append(out, l)
		}
	}
	return out
}

// restat compares one known file with what was known, in every source
// that reads it.
func (t *tree) restat(p string, c *change) {
	fi, err := os.Stat(p)
	for _, m := range t.snap {
		old, ok := m[p]
		if !ok {
			continue
		}
		switch {
		case err != nil:
			delete(m, p)
			c.removed = append(c.removed, removed{p, old.inode})
		case statOf(fi) != old:
			m[p] = statOf(fi)
			c.changed = append(c.changed, p)
		}
	}
	if err != nil {
		t.unlink(p)
	}
}

// unlink forgets the file that p, a link gone, pointed to, and leaves
// its folder unless another link or source needs it.
func (t *tree) unlink(p string) {
	for i, m := range t.targets {
		for target, l := range m {
			if l == p {
				delete(t.targets[i], target)
				t.release(filepath.Dir(target))
			}
		}
	}
}

// inode returns the inode known for p, 0 when unknown.
func (t *tree) inode(p string) uint64 {
	for _, m := range t.snap {
		if st, ok := m[p]; ok {
			return st.inode
		}
	}
	return 0
}

// files counts the distinct files the sources read.
func (t *tree) files() int {
	seen := map[string]bool{}
	for _, m := range t.snap {
		for p := range m {
			seen[p] = true
		}
	}
	return len(seen)
}
