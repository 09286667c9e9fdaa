package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// OpenActive reads home's manifest and opens the generation it names,
// verifying every file against the manifest's sums: the generation novad
// would serve. It returns manifest.ErrNoManifest when nothing is promoted.
func OpenActive(home paths.Home, analyzer *lexical.Analyzer) (*manifest.Manifest, *generation.Generation, error) {
	m, _, err := manifest.Read(home.Manifest())
	if err != nil {
		return nil, nil, err
	}
	s, err := OpenServed(home, m, analyzer)
	if err != nil {
		return nil, nil, err
	}
	return m, s.Gen, nil
}

// Depth says how thoroughly a generation's files are checked.
type Depth int

const (
	// Quick checks that every file exists with its recorded size, and
	// hashes only a file modified since it was known good (since the
	// generation was sealed, or since a served generation was opened).
	Quick Depth = iota
	// Deep hashes every file.
	Deep
)

// ErrNoIntact means no kept generation passed verification.
var ErrNoIntact = errors.New("no intact kept generation")

// Served is a generation opened for serving: the record whose file sums
// vouched for it (the active manifest, or a kept generation's candidate
// record) and the loaded generation. It remembers each file's size and
// modification time at opening, so that damage on disk can be noticed
// cheaply later. Record and Gen are immutable and safe for concurrent use.
type Served struct {
	Record *manifest.Manifest
	Gen    *generation.Generation

	dir string
	// mu guards stamps. Only the re-checker takes it, never a search.
	mu     sync.Mutex
	stamps map[string]fileStamp
}

type fileStamp struct {
	size  int64
	mtime time.Time
}

// OpenServed opens the generation m names (the active manifest), verifying
// every file, for serving.
func OpenServed(home paths.Home, m *manifest.Manifest, analyzer *lexical.Analyzer) (*Served, error) {
	return openRecord(filepath.Join(home.IndexDir(), m.GenerationPath), m, analyzer)
}

// OpenNewestIntact opens the newest kept generation, other than those in
// except, that verifies in full and that cfg's embedder can search: what
// novad serves when the active generation is missing or damaged. skipped
// says why each newer kept generation was passed over. It returns
// ErrNoIntact when none qualifies.
func OpenNewestIntact(home paths.Home, cfg config.Config, analyzer *lexical.Analyzer, except ...string) (s *Served, skipped []error, err error) {
	_, skipped, err = newestIntact(home, cfg, except, func(dir string, rec *manifest.Manifest) error {
		var err error
		s, err = openRecord(dir, rec, analyzer)
		return err
	})
	return s, skipped, err
}

// NewestIntact is OpenNewestIntact without loading: it returns the record
// of the generation novad would fall back to, checked at depth d.
func NewestIntact(home paths.Home, cfg config.Config, d Depth, except ...string) (*manifest.Manifest, []error, error) {
	return newestIntact(home, cfg, except, func(dir string, rec *manifest.Manifest) error {
		return checkDir(dir, rec, d)
	})
}

// CheckGeneration checks the files of the promoted generation rec names
// without loading it: at Quick depth every file exists with its recorded
// size and only a file modified after the generation was sealed (its
// candidate record written; generations are immutable from then on) is
// hashed; at Deep depth every file is hashed.
func CheckGeneration(home paths.Home, rec *manifest.Manifest, d Depth) error {
	return checkDir(filepath.Join(home.IndexDir(), rec.GenerationPath), rec, d)
}

// Recheck verifies a served generation's files again without touching
// what is loaded, so searches go on unaffected. Quick compares each file's
// size and modification time with those it had when it was opened (or
// last hashed) and hashes only a file that changed; Deep hashes every
// file.
func (s *Served) Recheck(d Depth) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return checkFiles(s.Record, s.dir, d, func(name string, st fileStamp) bool { return s.stamps[name] == st },
		func(name string, st fileStamp) { s.stamps[name] = st })
}

func openRecord(dir string, rec *manifest.Manifest, analyzer *lexical.Analyzer) (*Served, error) {
	// Stamp before opening: a file changed while it is being verified then
	// differs from its stamp, and the next quick check hashes it again.
	stamps := map[string]fileStamp{}
	for name := range rec.Files {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil {
			stamps[name] = fileStamp{fi.Size(), fi.ModTime()}
		}
	}
	g, err := generation.Open(dir, rec.RunID, rec.Files, analyzer)
	if err != nil {
		return nil, err
	}
	if g.Meta.EmbeddingProfile != rec.EmbeddingProfile || g.Count() != rec.ChunkCount {
		return nil, &generation.CorruptError{RunID: rec.RunID, File: generation.FileMeta,
			Reason: "does not match its record (embedding profile or chunk count)"}
	}
	return &Served{Record: rec, Gen: g, dir: dir, stamps: stamps}, nil
}

// checkDir checks the generation in dir against rec at depth d, taking
// the candidate record's modification time as the moment it was sealed.
func checkDir(dir string, rec *manifest.Manifest, d Depth) error {
	var sealed time.Time
	if fi, err := os.Stat(filepath.Join(dir, generation.FileCandidate)); err == nil {
		sealed = fi.ModTime()
	}
	return checkFiles(rec, dir, d, func(_ string, st fileStamp) bool {
		return !sealed.IsZero() && !st.mtime.After(sealed)
	}, nil)
}

// checkFiles checks every file rec lists in dir: it must exist with its
// recorded size; at Deep depth, or when unchanged says it may have been
// modified, its SHA-256 must match. hashed, if not nil, is told each file
// that hashed clean.
func checkFiles(rec *manifest.Manifest, dir string, d Depth, unchanged func(string, fileStamp) bool, hashed func(string, fileStamp)) error {
	bad := func(name, reason string) error {
		return &generation.CorruptError{RunID: rec.RunID, File: name, Reason: reason}
	}
	for _, name := range rec.SortedFiles() {
		want := rec.Files[name]
		fi, err := os.Stat(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			return bad(name, "file is missing")
		}
		if err != nil {
			return bad(name, err.Error())
		}
		if fi.Size() != want.Size {
			return bad(name, fmt.Sprintf("size %d, record says %d", fi.Size(), want.Size))
		}
		st := fileStamp{fi.Size(), fi.ModTime()}
		if d == Quick && unchanged(name, st) {
			continue
		}
		if err := generation.Verify(dir, map[string]manifest.FileSum{name: want}); err != nil {
			reason := err.Error()
			if inner := errors.Unwrap(err); inner != nil {
				reason = inner.Error()
			}
			return bad(name, reason)
		}
		if hashed != nil {
			hashed(name, st)
		}
	}
	return nil
}

// newestIntact walks the kept generations newest first (run ids sort by
// creation time) and returns the record of the first one, not in except,
// whose profile cfg can search and that try accepts.
func newestIntact(home paths.Home, cfg config.Config, except []string, try func(dir string, rec *manifest.Manifest) error) (*manifest.Manifest, []error, error) {
	entries, err := os.ReadDir(home.Generations())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && manifest.ValidRunID(e.Name()) && !slices.Contains(except, e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(ids)))
	var skipped []error
	for _, id := range ids {
		dir := home.Generation(id)
		rec, err := readCandidate(dir)
		if err != nil {
			skipped = append(skipped, fmt.Errorf("generation %s: %w", id, err))
			continue
		}
		if p := rec.EmbeddingProfile; !ProfileMatchesConfig(cfg, p) {
			skipped = append(skipped, fmt.Errorf("generation %s was embedded with %s/%s/%d, which the configured embedder cannot search",
				id, p.Provider, p.Model, p.Dimension))
			continue
		}
		if err := try(dir, rec); err != nil {
			skipped = append(skipped, err)
			continue
		}
		return rec, skipped, nil
	}
	return nil, skipped, ErrNoIntact
}
