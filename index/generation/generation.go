// Package generation opens an index generation for searching: the
// segments its manifest lists (index/segments/<id>, memory-mapped, see
// package segment), the documents later segments retired, and the vector
// space the segments were embedded in (index/spaces/<id>: the builtin
// model, the quantizer, the inverted-file cells). Every file is checked
// against the manifest's sizes and checksums before it is mapped; a
// damaged generation is refused with a CorruptError naming the file.
package generation

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"weak"

	"github.com/edsrzf/mmap-go"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/internal/lazy"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/parallel"
	"github.com/nova-recall/nova/vector"
)

// Files of a generation directory and of a vector space directory.
const (
	// FileCandidate is the sealed record of a generation (the manifest it
	// becomes when promoted, with status "candidate").
	FileCandidate = "candidate.json"
	// FileSources is the per-file state of the sources the generation was
	// built from (what an incremental sync compares against).
	FileSources = "sources.json"
	// FileReport is the build report.
	FileReport = "build-report.json"
	// FileSpace holds a space's quantizer and cells; FileModel its
	// builtin model.
	FileSpace = "space.bin"
	FileModel = "model.lsa"
)

// Meta describes a generation.
type Meta struct {
	RunID            string               `json:"runId"`
	CreatedAt        time.Time            `json:"createdAt"`
	ChunkCount       int                  `json:"chunkCount"`
	RecordCount      int                  `json:"recordCount"`
	EmbeddingProfile api.EmbeddingProfile `json:"embeddingProfile"`
	Segments         int                  `json:"segments"`
	// Analyzer is the lexical analyzer version its terms come from
	// (lexical.Analyzer.Version): another than the searching analyzer's
	// means an index built by an older Nova, which a sync rebuilds.
	Analyzer string `json:"analyzer,omitempty"`
	// ANN describes how dense searches find candidates.
	ANN *ANNMeta `json:"ann,omitempty"`
}

// ANNMeta records the vector search of a generation: exact (every vector
// scanned) or the inverted file, with the build-time recall check.
type ANNMeta struct {
	Enabled    bool    `json:"enabled"`
	RecallAt10 float64 `json:"recallAt10"`
	Cells      int     `json:"cells,omitempty"`
	Probe      int     `json:"probe,omitempty"`
	Reason     string  `json:"reason"`
}

// Generation is a loaded, verified, immutable generation. It is safe for
// concurrent use. Readers reach its memory only through its methods, never
// its files.
type Generation struct {
	Dir  string
	Meta Meta
	// Model is the builtin embedder of this generation (nil for other
	// providers): queries against this generation are embedded with it.
	Model *embedding.LSA
	// LoadDuration is how long Open took.
	LoadDuration time.Duration

	segs    []*segment.Reader
	bases   []int
	n       int      // document slots
	dead    []uint64 // bitmap of retired documents; nil when none
	live    int
	text    *lexical.Index
	context *lexical.Index
	vectors *vector.Index

	// What is derived from the mapped files on first use sits behind a
	// lazy.Once: a fault in one must leave nothing half-built behind.
	summaryOnce lazy.Once
	summary     Summary

	ctxParams memory.ContextParams
	convs     conversations

	exactOnce lazy.Once
	exact     *vector.Index
	// Derived per-generation structures of the recall levers (read.go),
	// computed on first use.
	versionsOnce, agentsOnce, sourcesOnce lazy.Once
	versions                              versions
	zone                                  *time.Location // Options.Location
	agents, sources                       []string
	// fences order most documents of different segments by chunk id
	// without decoding them (IDLess).
	fencesOnce lazy.Once
	fences     []idFences
	fencesRead atomic.Bool
	// shared says, per segment, whether it came open from the Cache: a
	// generation served before this one maps it too (Prepare).
	shared []bool
}

// ErrCorrupt is wrapped by every load failure caused by the generation's
// files (as opposed to the caller's context or the OS).
var ErrCorrupt = errors.New("generation is corrupt")

// CorruptError names the file and the problem.
type CorruptError struct {
	RunID, File, Reason string
	// Missing says the file is gone rather than changed: a mapping of it
	// still reads the bytes that were verified.
	Missing bool
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("generation %s: %s: %s", e.RunID, e.File, e.Reason)
}

// Unwrap makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Unwrap() error { return ErrCorrupt }

// Options tune Open.
type Options struct {
	// Cache shares opened segments between the generations of one
	// process: a reload after an incremental sync maps only the new delta.
	Cache *Cache
	// SkipChecksums checks sizes and structure but not checksums (a build
	// reading the generation it extends; never for serving).
	SkipChecksums bool
	// Dir is where the generation's own files are when that is not the
	// manifest's generationPath (a candidate not yet promoted).
	Dir string
	// Location is the user's zone: a bare date's day begins at its
	// midnight there when versions of a subject are ordered (nil: UTC).
	// The caller chooses it, as search.Config's, so that a test can
	// order versions in any zone without touching time.Local.
	Location *time.Location
	// Checked, when set, is told of every n files checked (size and
	// checksum) as Open goes, for a progress line; calls come from
	// several goroutines at once.
	Checked func(n int)
}

// Open loads the generation m describes from indexDir (the directory
// holding generations/, segments/ and spaces/), verifying every file. A
// cancelled ctx stops it with ctx's error, never a CorruptError: a
// generation whose checks were not finished is not damaged.
func Open(ctx context.Context, indexDir string, m *manifest.Manifest, analyzer *lexical.Analyzer, opts Options) (*Generation, error) {
	start := time.Now()
	dir := opts.Dir
	if dir == "" {
		dir = filepath.Join(indexDir, m.GenerationPath)
	}
	zone := opts.Location
	if zone == nil {
		zone = time.UTC
	}
	g := &Generation{Dir: dir, zone: zone, Meta: Meta{
		RunID: m.RunID, CreatedAt: m.CreatedAt, ChunkCount: m.ChunkCount, RecordCount: m.RecordCount,
		EmbeddingProfile: m.EmbeddingProfile, Segments: len(m.Segments),
	}}
	corrupt := func(dir, file string, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			// The checks were stopped (Ctrl-C), which says nothing of
			// the files; what deletes damaged generations must not see
			// damage here.
			return fmt.Errorf("generation %s: %w", m.RunID, ctxErr)
		}
		reason := err.Error()
		if errors.Is(err, manifest.ErrNewerFormat) {
			// Written by a newer Nova: not damage, which would have it
			// deleted; the error names the format.
			return fmt.Errorf("generation %s: %s: %w", m.RunID, filepath.Join(dir, file), err)
		}
		if errors.Is(err, os.ErrNotExist) {
			reason = "file is missing"
		} else if _, sys := errors.AsType[syscall.Errno](err); sys && !errors.Is(err, ErrCorrupt) {
			// The system refused to open, read or map the file (a
			// permission, an I/O error, too many open files): that says
			// nothing of its bytes, and what deletes damaged generations
			// must not take it for damage.
			return fmt.Errorf("generation %s: %s: %w", m.RunID, filepath.Join(dir, file), err)
		}
		return &CorruptError{RunID: m.RunID, File: filepath.Join(dir, file), Reason: reason}
	}
	// The generation's own files are not mapped; they are checked so the
	// manifest vouches for everything it lists. An error names them where
	// they are: a candidate's are not yet under its generationPath.
	checked := opts.Checked
	if checked == nil {
		checked = func(int) {}
	}
	ownDir := m.GenerationPath
	if rel, err := filepath.Rel(indexDir, g.Dir); opts.Dir != "" && err == nil {
		ownDir = rel
	}
	for _, name := range manifest.SortedFiles(m.Files) {
		if err := CheckFile(ctx, filepath.Join(g.Dir, name), m.Files[name], !opts.SkipChecksums); err != nil {
			return nil, corrupt(ownDir, name, err)
		}
		checked(1)
	}
	space, model, ann, err := openSpace(ctx, filepath.Join(indexDir, manifest.SpaceDir(m.Space.ID)), m.Space.Files, m.EmbeddingProfile, analyzer, !opts.SkipChecksums)
	if err != nil {
		var fe *fileError
		if errors.As(err, &fe) {
			return nil, corrupt(manifest.SpaceDir(m.Space.ID), fe.file, fe.err)
		}
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("generation %s: %w", m.RunID, err)
	}
	checked(len(m.Space.Files))
	g.Model, g.Meta.ANN = model, ann
	// Segments are verified and mapped on every core (checksums and
	// postings tables are most of a large generation's load), then
	// checked in order. A segment's first document number comes from the
	// manifest's counts, which each segment must then match.
	readers := make([]*segment.Reader, len(m.Segments))
	shared := make([]bool, len(m.Segments))
	errs := make([]error, len(m.Segments))
	firsts := make([]int, len(m.Segments))
	for i := 1; i < len(m.Segments); i++ {
		firsts[i] = firsts[i-1] + m.Segments[i-1].Docs
	}
	parallel.For(len(m.Segments), 1, func(i int) {
		p := m.Segments[i]
		readers[i], shared[i], errs[i] = opts.Cache.open(ctx, filepath.Join(indexDir, manifest.SegmentDir(p.ID)), p, firsts[i], !opts.SkipChecksums)
		if errs[i] == nil {
			checked(len(p.Files))
		}
	})
	for i, p := range m.Segments {
		r, err := readers[i], errs[i]
		if err != nil {
			var fe *segment.FileError
			if errors.As(err, &fe) {
				return nil, corrupt(manifest.SegmentDir(p.ID), fe.File, fe.Err)
			}
			return nil, corrupt(manifest.SegmentDir(p.ID), "", err)
		}
		if r.Meta.Docs != p.Docs || r.Meta.ID != p.ID || r.Meta.Dim != m.EmbeddingProfile.Dimension || r.Meta.Space != m.Space.ID {
			return nil, corrupt(manifest.SegmentDir(p.ID), segment.FileMeta, fmt.Errorf("segment %s (%d docs, dimension %d, space %s) does not match the manifest", r.Meta.ID, r.Meta.Docs, r.Meta.Dim, r.Meta.Space))
		}
		// Terms of two analyzers in one generation would make each query
		// miss in part of it; one analyzer other than today's is only an
		// older index (Meta.Analyzer), searchable until a sync rebuilds it.
		if len(g.segs) > 0 && r.Meta.Analyzer != g.Meta.Analyzer {
			return nil, corrupt(manifest.SegmentDir(p.ID), segment.FileMeta, fmt.Errorf("segment %s was analysed by %q, the generation's other segments by %q", r.Meta.ID, r.Meta.Analyzer, g.Meta.Analyzer))
		}
		g.Meta.Analyzer = r.Meta.Analyzer
		if (r.Meta.Cells > 0) != (space.Cells != nil) || (space.Cells != nil && r.Meta.Cells != space.Cells.N()) {
			return nil, corrupt(manifest.SegmentDir(p.ID), segment.FileMeta, errors.New("inverted-file cells differ from the space's"))
		}
		if len(g.segs) > 0 && r.Meta.Context != g.ctxParams {
			return nil, corrupt(manifest.SegmentDir(p.ID), segment.FileMeta, errors.New("neighbouring context made differently from the generation's other segments"))
		}
		g.ctxParams = r.Meta.Context
		g.segs = append(g.segs, r)
		g.shared = append(g.shared, shared[i])
		g.bases = append(g.bases, g.n)
		g.n += r.Docs()
	}
	var deadText, deadContext lexical.Dead
	deadText.DF, deadContext.DF = map[string]int{}, map[string]int{}
	for _, r := range g.segs {
		if r.Dead == nil {
			continue
		}
		if g.dead == nil {
			g.dead = make([]uint64, (g.n+63)/64)
		}
		for _, d := range r.Dead.Docs {
			if g.dead[d/64]&(1<<(d%64)) != 0 {
				return nil, corrupt(r.Dir, segment.FileDead, fmt.Errorf("document %d retired twice", d))
			}
			g.dead[d/64] |= 1 << (d % 64)
		}
		for _, f := range []struct {
			dst *lexical.Dead
			src segment.FieldStats
		}{{&deadText, r.Dead.Text}, {&deadContext, r.Dead.Context}} {
			f.dst.Docs += len(r.Dead.Docs)
			f.dst.Len += f.src.Len
			for t, n := range f.src.DF {
				f.dst.DF[t] += n
			}
		}
	}
	g.live = g.n - deadText.Docs
	if g.live != m.ChunkCount {
		return nil, &CorruptError{RunID: m.RunID, File: "manifest.json", Reason: fmt.Sprintf("%d live chunks, manifest says %d", g.live, m.ChunkCount)}
	}
	texts, contexts, codes, lists := make([]*lexical.Field, len(g.segs)), make([]*lexical.Field, len(g.segs)), make([]*vector.Codes, len(g.segs)), make([]*vector.Lists, len(g.segs))
	for i, r := range g.segs {
		texts[i], contexts[i], codes[i], lists[i] = r.Text, r.Context, r.Codes, r.Lists
	}
	g.text = lexical.NewIndex(texts, deadText, g.IDLess)
	g.context = lexical.NewIndex(contexts, deadContext, g.IDLess)
	if space.Cells == nil {
		lists = nil
	}
	if g.vectors, err = vector.NewIndex(space, codes, lists, g.IDLess); err != nil {
		return nil, &CorruptError{RunID: m.RunID, File: manifest.SpaceDir(m.Space.ID), Reason: err.Error()}
	}
	g.LoadDuration = time.Since(start)
	return g, nil
}

// IDLess orders two documents by chunk id: ties in score are broken the
// same way whichever segments hold the documents, so an incrementally
// built generation answers exactly like a full rebuild.
//
// Documents of different segments are first placed between their
// segments' id fences: scores tie often (a rare term's BM25 in documents
// of one length), and decoding both ids for each tie was a twentieth of a
// 100k search's CPU.
func (g *Generation) IDLess(a, b int) bool {
	sa, la := g.locate(a)
	sb, lb := g.locate(b)
	ra, rb := g.segs[sa].IDRank(la), g.segs[sb].IDRank(lb)
	if sa == sb {
		return ra < rb
	}
	fences := g.idFences()
	loA, hiA := fences[sa].around(ra)
	loB, hiB := fences[sb].around(rb)
	switch {
	case hiA < loB:
		return true
	case hiB < loA:
		return false
	}
	return g.segs[sa].ID(la) < g.segs[sb].ID(lb)
}

// idFences are one segment's chunk ids at every segment.IDFenceStep-th
// place of its id order (IDRank 1, 1+IDFenceStep, ...) and at its last
// place (segment.Reader.IDFences).
type idFences []string

// around returns ids that bound the id of the document at rank: lo <= id
// <= hi.
func (f idFences) around(rank uint32) (lo, hi string) {
	i := int(rank-1) / segment.IDFenceStep
	return f[i], f[min(i+1, len(f)-1)]
}

// span returns the places of the id order of a segment of n documents
// (from to to-1) where id would be: between the fences around it. ok is
// false when id is outside the segment's ids.
func (f idFences) span(id string, n int) (from, to int, ok bool) {
	if len(f) == 0 || id < f[0] || id > f[len(f)-1] {
		return 0, 0, false
	}
	// place is the place in the id order of fence k.
	place := func(k int) int { return min(k*segment.IDFenceStep, n-1) }
	i := sort.SearchStrings(f, id) // f[i-1] < id <= f[i]
	if i == 0 {
		return 0, 1, true
	}
	return place(i - 1), place(i) + 1, true
}

// idFences returns every segment's id fences (Prepare, or the first tie
// between segments), each segment's read once for all the generations
// that share it.
func (g *Generation) idFences() []idFences {
	g.fencesOnce.Do(func() {
		g.fences = make([]idFences, len(g.segs))
		for s, r := range g.segs {
			g.fences[s] = r.IDFences()
		}
		g.fencesRead.Store(true)
	})
	return g.fences
}

// locate returns the segment holding doc and doc's number in it.
func (g *Generation) locate(doc int) (int, int) {
	s := sort.Search(len(g.bases), func(i int) bool { return g.bases[i] > doc }) - 1
	return s, doc - g.bases[s]
}

// fileError names a file of a space.
type fileError struct {
	file string
	err  error
}

func (e *fileError) Error() string { return e.file + ": " + e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// openSpace reads a vector space's files.
func openSpace(ctx context.Context, dir string, files map[string]manifest.FileSum, prof api.EmbeddingProfile, analyzer *lexical.Analyzer, verify bool) (vector.Space, *embedding.LSA, *ANNMeta, error) {
	var sp vector.Space
	read := func(name string) ([]byte, error) {
		want, err := listed(files, name)
		if err != nil {
			return nil, err
		}
		if err := CheckFile(ctx, filepath.Join(dir, name), want, verify); err != nil {
			return nil, &fileError{name, err}
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, &fileError{name, err}
		}
		return b, nil
	}
	b, err := read(FileSpace)
	if err != nil {
		return sp, nil, nil, err
	}
	space, ann, err := ParseSpace(b)
	if err != nil {
		return sp, nil, nil, &fileError{FileSpace, err}
	}
	if space.Quantizer.Dim() != prof.Dimension {
		return sp, nil, nil, &fileError{FileSpace, fmt.Errorf("%w: dimension %d, profile says %d", ErrCorrupt, space.Quantizer.Dim(), prof.Dimension)}
	}
	var model *embedding.LSA
	if prof.Provider == embedding.ProviderBuiltin {
		if model, err = openModel(ctx, filepath.Join(dir, FileModel), files, analyzer, verify); err != nil {
			return sp, nil, nil, err
		}
		if model.Profile() != prof {
			return sp, nil, nil, &fileError{FileModel, fmt.Errorf("%w: model %s does not match the profile %s", ErrCorrupt, model.ID(), prof.Model)}
		}
	}
	for name := range files {
		if name != FileSpace && name != FileModel {
			return sp, nil, nil, &fileError{name, fmt.Errorf("%w: not a space file", ErrCorrupt)}
		}
	}
	return space, model, ann, nil
}

// listed returns the manifest's sum of a space's file name, or the
// error that says the manifest does not list it.
func listed(files map[string]manifest.FileSum, name string) (manifest.FileSum, error) {
	want, ok := files[name]
	if !ok {
		return want, &fileError{name, fmt.Errorf("%w: not listed", ErrCorrupt)}
	}
	return want, nil
}

// openModel maps the builtin model read-only and reads it in place: its
// basis, most of its bytes, stays in the file's pages, which the kernel
// shares and can reclaim, instead of the process's own memory (16 MB at
// 10 000 chunks). The mapping lasts as long as the model.
func openModel(ctx context.Context, path string, files map[string]manifest.FileSum, analyzer *lexical.Analyzer, verify bool) (*embedding.LSA, error) {
	want, err := listed(files, FileModel)
	if err != nil {
		return nil, err
	}
	mm, err := manifest.MapFile(ctx, path, want, verify, ErrCorrupt)
	if err != nil {
		return nil, &fileError{FileModel, err}
	}
	model, err := embedding.ParseLSA(mm, analyzer)
	if err != nil {
		_ = mm.Unmap()
		return nil, &fileError{FileModel, err}
	}
	// Parsing read every page (the model id is a hash of it); they need
	// not stay resident.
	manifest.DropResident(mm)
	runtime.AddCleanup(model, func(m mmap.MMap) { _ = m.Unmap() }, mm)
	return model, nil
}

// space.bin: magic "NOVSPC03", the quantizer (with its centre), then a
// u32 flag: 0 for exact search, 1 followed by the build-time recall
// (millionths, u64) and the cells. "NOVSPC02" spaces, written before the
// centre, are read as they are: a sync that trains a new space replaces
// them.
const (
	spaceMagic   = "NOVSPC03"
	spaceMagicV2 = "NOVSPC02"
)

// MarshalSpace encodes a space and its recall check.
func MarshalSpace(sp vector.Space, recall float64) []byte {
	b := []byte(spaceMagic)
	q, _ := sp.Quantizer.MarshalBinary()
	b = append(b, q...)
	if sp.Cells == nil {
		return binary.LittleEndian.AppendUint32(b, 0)
	}
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = binary.LittleEndian.AppendUint64(b, uint64(recall*1e6))
	c, _ := sp.Cells.MarshalBinary()
	return append(b, c...)
}

// ParseSpace decodes MarshalSpace's output.
func ParseSpace(b []byte) (vector.Space, *ANNMeta, error) {
	var sp vector.Space
	if len(b) < 8 || string(b[:8]) != spaceMagic && string(b[:8]) != spaceMagicV2 {
		return sp, nil, fmt.Errorf("%w: bad space magic", ErrCorrupt)
	}
	q, rest, err := vector.ParseQuantizer(b[8:], string(b[:8]) == spaceMagic)
	if err != nil {
		return sp, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	sp.Quantizer = q
	if len(rest) < 4 {
		return sp, nil, fmt.Errorf("%w: short space", ErrCorrupt)
	}
	switch binary.LittleEndian.Uint32(rest) {
	case 0:
		if len(rest) != 4 {
			return sp, nil, fmt.Errorf("%w: trailing bytes", ErrCorrupt)
		}
		return sp, &ANNMeta{Enabled: false, Reason: "exact search: every vector is scanned"}, nil
	case 1:
		if len(rest) < 12 {
			return sp, nil, fmt.Errorf("%w: short space", ErrCorrupt)
		}
		recall := float64(binary.LittleEndian.Uint64(rest[4:])) / 1e6
		if sp.Cells, err = vector.ParseCells(rest[12:]); err != nil {
			return sp, nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		if sp.Cells.Dim != q.Dim() {
			return sp, nil, fmt.Errorf("%w: cells of dimension %d", ErrCorrupt, sp.Cells.Dim)
		}
		return sp, &ANNMeta{Enabled: true, RecallAt10: recall, Cells: sp.Cells.N(), Probe: sp.Cells.Probe,
			Reason: fmt.Sprintf("inverted file: %d of %d cells probed per search, int8 scan with exact re-scoring", sp.Cells.Probe, sp.Cells.N())}, nil
	}
	return sp, nil, fmt.Errorf("%w: unknown space kind", ErrCorrupt)
}

// CheckFile checks path's size and, when verify is set, its checksum,
// which a cancelled ctx stops with ctx's error.
func CheckFile(ctx context.Context, path string, want manifest.FileSum, verify bool) error {
	// Lstat first: a link in place of a generation file is refused, not
	// followed.
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: not a regular file", ErrCorrupt)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return manifest.CheckOpen(ctx, f, want, verify, ErrCorrupt)
}

// Cache shares opened segments between generations. Its zero value is
// not usable; a nil *Cache opens every segment afresh. It holds weak
// references: a segment no generation uses is unmapped, and its entry
// goes at the next segment the cache keeps.
type Cache struct {
	mu   sync.Mutex
	segs map[string]cached
}

// cached is one opened segment and the size and modification time each of
// its files had when it was verified.
type cached struct {
	r      weak.Pointer[segment.Reader]
	stamps map[string]stamp
}

type stamp struct {
	size  int64
	mtime time.Time
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{segs: map[string]cached{}} }

// open returns the segment p in dir, and whether it was open already (a
// generation of this process maps it).
func (c *Cache) open(ctx context.Context, dir string, p manifest.Part, first int, verify bool) (*segment.Reader, bool, error) {
	if c == nil {
		r, err := segment.Open(ctx, dir, p.Files, first, verify)
		return r, false, err
	}
	key := dir + "@" + fmt.Sprint(first)
	c.mu.Lock()
	e, ok := c.segs[key]
	c.mu.Unlock()
	if ok {
		if r := e.r.Value(); r != nil && sameFiles(r.Files, p.Files) {
			// Mapped and verified before; a cheap size check catches a
			// file replaced since. A file whose size or time changed
			// since it was verified (rewritten in place) is verified
			// again below: taking the mapping on trust would serve its
			// new bytes as checked.
			unchanged := true
			for name, sum := range p.Files {
				if err := CheckFile(ctx, filepath.Join(dir, name), sum, false); err != nil {
					return nil, false, &segment.FileError{File: name, Err: err}
				}
				st, err := statFile(filepath.Join(dir, name))
				unchanged = unchanged && err == nil && st == e.stamps[name]
			}
			if unchanged {
				return r, true, nil
			}
		}
	}
	// Stamped before opening: a file changed while it is being verified
	// then differs from its stamp, and is verified again next time.
	stamps := map[string]stamp{}
	for name := range p.Files {
		if st, err := statFile(filepath.Join(dir, name)); err == nil {
			stamps[name] = st
		}
	}
	// Opened outside the lock: a generation opens its segments in
	// parallel.
	r, err := segment.Open(ctx, dir, p.Files, first, verify)
	if err != nil {
		return nil, false, err
	}
	// Only a verified segment is shared: an open that verifies must not
	// take one that was not on trust.
	if verify {
		c.mu.Lock()
		// Entries of segments no generation uses any more go now: every
		// sync adds a segment, and novad runs for weeks.
		for k, e := range c.segs {
			if e.r.Value() == nil {
				delete(c.segs, k)
			}
		}
		c.segs[key] = cached{r: weak.Make(r), stamps: stamps}
		c.mu.Unlock()
	}
	return r, false, nil
}

func statFile(path string) (stamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return stamp{}, err
	}
	return stamp{fi.Size(), fi.ModTime()}, nil
}

func sameFiles(a, b map[string]manifest.FileSum) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
