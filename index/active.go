package index

import (
	"context"
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
	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// OpenActive reads home's manifest and opens the generation it names,
// verifying every file against the manifest's sums: the generation novad
// would serve. It returns manifest.ErrNoManifest when nothing is promoted.
// A cancelled ctx (Ctrl-C) stops the checksums with an error wrapping
// ctx's, which is no damage.
func OpenActive(ctx context.Context, home paths.Home, analyzer *lexical.Analyzer) (*manifest.Manifest, *generation.Generation, error) {
	m, _, err := manifest.Read(home.Manifest())
	if err != nil {
		return nil, nil, err
	}
	s, err := OpenServed(ctx, home, m, analyzer, nil)
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

	indexDir string
	// mu guards stamps. Only the re-checker takes it, never a search.
	mu     sync.Mutex
	stamps map[string]fileStamp
}

type fileStamp struct {
	size  int64
	mtime time.Time
}

// OpenServed opens the generation m names (the active manifest), verifying
// every file, for serving. cache, when set, shares segments already
// mapped by an earlier generation (they are size-checked, not re-hashed).
// A cancelled ctx (novad stopping) stops the checksums with an error
// wrapping ctx's, which is no damage.
func OpenServed(ctx context.Context, home paths.Home, m *manifest.Manifest, analyzer *lexical.Analyzer, cache *generation.Cache) (*Served, error) {
	return openRecord(ctx, home.IndexDir(), m, analyzer, cache)
}

// OpenNewestIntact opens the most recently promoted kept generation
// (history.jsonl's order; by run id where it says nothing), other than
// those in except, that verifies in full and that cfg's embedder can search: what
// novad serves when the active generation is missing or damaged. skipped
// says why each newer kept generation was passed over. It returns
// ErrNoIntact when none qualifies, and ctx's error when ctx is cancelled
// before one is found.
func OpenNewestIntact(ctx context.Context, home paths.Home, cfg config.Config, analyzer *lexical.Analyzer, cache *generation.Cache, except ...string) (s *Served, skipped []error, err error) {
	_, skipped, err = newestIntact(home, cfg, except, func(rec *manifest.Manifest) error {
		var err error
		s, err = openRecord(ctx, home.IndexDir(), rec, analyzer, cache)
		return err
	})
	if cerr := ctx.Err(); err != nil && cerr != nil {
		return nil, nil, cerr
	}
	return s, skipped, err
}

// NewestIntact is OpenNewestIntact without loading: it returns the record
// of the generation novad would fall back to, checked at depth d.
func NewestIntact(ctx context.Context, home paths.Home, cfg config.Config, d Depth, except ...string) (*manifest.Manifest, []error, error) {
	return newestIntact(home, cfg, except, func(rec *manifest.Manifest) error {
		return CheckGeneration(ctx, home, rec, d)
	})
}

// CheckGeneration checks the files of the promoted generation rec names
// (its own, its segments' and its space's) without loading it: at Quick
// depth every file exists with its recorded size and only a file modified
// after the generation was sealed (its candidate record written; files are
// immutable from then on) is hashed; at Deep depth every file is hashed.
// A cancelled ctx stops the checks with an error wrapping ctx's, which
// is no CorruptError: the files were not all checked.
func CheckGeneration(ctx context.Context, home paths.Home, rec *manifest.Manifest, d Depth) error {
	return checkRecord(ctx, home.IndexDir(), filepath.Join(home.IndexDir(), rec.GenerationPath), rec, d)
}

// checkRecord checks rec's files, taking the modification time of the
// candidate record in genDir as the moment the generation was sealed.
func checkRecord(ctx context.Context, indexDir, genDir string, rec *manifest.Manifest, d Depth) error {
	var sealed time.Time
	if fi, err := os.Stat(filepath.Join(genDir, generation.FileCandidate)); err == nil {
		sealed = fi.ModTime()
	}
	return checkFiles(ctx, indexDir, genDir, rec, d, func(_ string, st fileStamp) bool {
		return !sealed.IsZero() && !st.mtime.After(sealed)
	}, nil)
}

// Recheck verifies a served generation's files again without touching
// what is loaded, so searches go on unaffected. Quick compares each file's
// size and modification time with those it had when it was opened (or
// last hashed) and hashes only a file that changed; Deep hashes every
// file. A cancelled ctx (novad stopping) stops it with an error wrapping
// ctx's, which is no damage.
func (s *Served) Recheck(ctx context.Context, d Depth) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	genDir := filepath.Join(s.indexDir, s.Record.GenerationPath)
	return checkFiles(ctx, s.indexDir, genDir, s.Record, d, func(path string, st fileStamp) bool { return s.stamps[path] == st },
		func(path string, st fileStamp) { s.stamps[path] = st })
}

func openRecord(ctx context.Context, indexDir string, rec *manifest.Manifest, analyzer *lexical.Analyzer, cache *generation.Cache) (*Served, error) {
	// Stamp before opening: a file changed while it is being verified then
	// differs from its stamp, and the next quick check hashes it again.
	stamps := map[string]fileStamp{}
	for dir, files := range recordFiles(indexDir, filepath.Join(indexDir, rec.GenerationPath), rec) {
		for name := range files {
			p := filepath.Join(dir, name)
			if fi, err := os.Stat(p); err == nil {
				stamps[p] = fileStamp{fi.Size(), fi.ModTime()}
			}
		}
	}
	// Dates are the machine's, as search.ConfigFor's: Nova has no
	// time-zone setting.
	g, err := generation.Open(ctx, indexDir, rec, analyzer, generation.Options{Cache: cache, Location: time.Local})
	if err != nil {
		return nil, err
	}
	g.Prepare() // before it serves: the first search must not pay for it
	return &Served{Record: rec, Gen: g, indexDir: indexDir, stamps: stamps}, nil
}

// recordFiles returns rec's files by absolute directory; genDir is where
// the generation's own files are (its candidate directory before it is
// promoted).
func recordFiles(indexDir, genDir string, rec *manifest.Manifest) map[string]map[string]manifest.FileSum {
	out := map[string]map[string]manifest.FileSum{}
	for dir, files := range rec.AllFiles() {
		if dir == rec.GenerationPath {
			out[genDir] = files
			continue
		}
		out[filepath.Join(indexDir, dir)] = files
	}
	return out
}

// checkFiles checks every file rec lists: it must exist with its recorded
// size; at Deep depth, or when unchanged says it may have been modified,
// its checksum must match. hashed, if not nil, is told each file that
// hashed clean.
func checkFiles(ctx context.Context, indexDir, genDir string, rec *manifest.Manifest, d Depth, unchanged func(string, fileStamp) bool, hashed func(string, fileStamp)) error {
	byDir := recordFiles(indexDir, genDir, rec)
	dirs := make([]string, 0, len(byDir))
	for dir := range byDir {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		files := byDir[dir]
		for _, name := range manifest.SortedFiles(files) {
			path := filepath.Join(dir, name)
			rel, _ := filepath.Rel(indexDir, path)
			bad := func(reason string) error {
				return &generation.CorruptError{RunID: rec.RunID, File: rel, Reason: reason}
			}
			want := files[name]
			fi, err := os.Stat(path)
			if errors.Is(err, fs.ErrNotExist) {
				return &generation.CorruptError{RunID: rec.RunID, File: rel, Reason: "file is missing", Missing: true}
			}
			if err != nil {
				return unreadable(rec.RunID, rel, err)
			}
			if fi.Size() != want.Size {
				return bad(fmt.Sprintf("size %d, record says %d", fi.Size(), want.Size))
			}
			st := fileStamp{fi.Size(), fi.ModTime()}
			if d == Quick && unchanged(path, st) {
				continue
			}
			if err := generation.CheckFile(ctx, path, want, true); err != nil {
				if ctxErr := ctx.Err(); ctxErr != nil {
					return fmt.Errorf("generation %s: %w", rec.RunID, ctxErr)
				}
				if !errors.Is(err, generation.ErrCorrupt) {
					return unreadable(rec.RunID, rel, err)
				}
				return bad(err.Error())
			}
			if hashed != nil {
				hashed(path, st)
			}
		}
	}
	return nil
}

// unreadable is a generation file that could not be checked for a reason
// that says nothing of its bytes (permission, too many open files, an I/O
// error): not damage (isDamage), so nothing deletes the generation for it.
// A file gone between the listing and the check is missing, which is.
func unreadable(runID, rel string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return &generation.CorruptError{RunID: runID, File: rel, Reason: "file is missing", Missing: true}
	}
	return fmt.Errorf("generation %s: cannot check %s: %w", runID, rel, err)
}

// isDamage reports whether err, from checking or opening a kept
// generation, shows it damaged: a file corrupt, missing or of an unknown
// format. Only damage lets retention or a rollback delete a generation;
// one that cannot be read now (a permission, an I/O error, too many open
// files) is passed over and kept, since the next try may read it, and so
// is one a newer Nova wrote (manifest.ErrNewerFormat): it is that Nova's,
// whole, after a downgrade.
func isDamage(err error) bool {
	if errors.Is(err, manifest.ErrNewerFormat) {
		return false
	}
	return errors.Is(err, generation.ErrCorrupt) || errors.Is(err, manifest.ErrInvalid) || errors.Is(err, fs.ErrNotExist)
}

// newestIntact walks the kept generations newest first (run ids sort by
// creation time) and returns the record of the first one, not in except,
// whose profile cfg can search and that try accepts.
func newestIntact(home paths.Home, cfg config.Config, except []string, try func(rec *manifest.Manifest) error) (*manifest.Manifest, []error, error) {
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
	// The most recently promoted first, as the history says, not the
	// greatest run id: a clock set back between syncs names the later
	// generation before the earlier.
	sort.Strings(ids)
	slices.Reverse(historyOrder(home, ids))
	var skipped []error
	for _, id := range ids {
		rec, err := readCandidateRecord(home.Generation(id))
		if err != nil {
			skipped = append(skipped, fmt.Errorf("generation %s: %w", id, err))
			continue
		}
		if p := rec.EmbeddingProfile; !ProfileMatchesConfig(cfg, p) {
			skipped = append(skipped, fmt.Errorf("generation %s was embedded with %s/%s/%d, which the configured embedder cannot search",
				id, p.Provider, p.Model, p.Dimension))
			continue
		}
		if err := try(rec); err != nil {
			skipped = append(skipped, err)
			continue
		}
		return rec, skipped, nil
	}
	return nil, skipped, ErrNoIntact
}

// GenerationAnalyzer returns the analyzer version the terms of the
// generation m names come from (its first segment's; all of a
// generation's agree), or "" for a generation without segments. Another
// than today's (lexical.Version) is an index an older Nova built: searched
// as it is until the next sync rebuilds it.
func GenerationAnalyzer(home paths.Home, m *manifest.Manifest) (string, error) {
	if len(m.Segments) == 0 {
		return "", nil
	}
	return segment.ReadAnalyzer(filepath.Join(home.IndexDir(), manifest.SegmentDir(m.Segments[0].ID)))
}
